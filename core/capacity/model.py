"""What a tournament asks of AWS: peak demand per quota, duration per round, cost.

Everyone plays at once: every first-round table is in play from the start, each table
takes one action every `seconds_per_action`, so the peak is the first round's tables
÷ `seconds_per_action` actions a second, and every counted call per action
(`Calibration`) scales with it. A round takes its longest table's time, or longer
where the binding quota holds the rate down: then its actions ÷ the rate that quota
allows (what pacing, queuing tables, would give). Connections are made before the
start, at most `websocket_connects_per_second`; registration's requests (a person's
phone: the play page, its scripts, the reads and the socket ticket) spread over it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from core.bracket import BracketPlan
from core.capacity.calibration import Calibration
from core.capacity.quotas import Quota

SECONDS_PER_ACTION = {"people": 4.0, "bots": 0.5}
# a turn that runs out (its deadline fires: a Scheduler invocation and a timeout)
TIMED_OUT_TURNS = {"people": 0.05, "bots": 0.0}
HEADROOM = 1.25  # a recommended quota or warm throughput: the peak and a quarter more
# the budget of tables in play (KNOBELCUP_TABLES_IN_PLAY) recommended: 70% of what the
# binding quota carries, the rest for registrations, page views, retries and other use
PACING_SHARE = 0.7
# the capacity item (infra/store/capacity.py) is one partition key: a table's slot is
# claimed and released in two transactions of 2 WCU on it, and a key takes 1,000 WCU/s
KEY_WCU = 1000.0
CAPACITY_WCU_PER_TABLE = 4.0
# how long an invocation runs on Lambda (ms) and its memory (MB): assumptions, not counted
# (template.yaml's MemorySize; durations from docs/performance.md's budgets, rounded up).
# The stream's readers are calibrated one record a batch (cli/calibrate.py), so theirs is
# the time per record: on AWS a batch holds many tables' records, and fewer invocations
# share the same work
FUNCTIONS = {
    "ApiFunction": (40.0, 512),
    "SocketFunction": (20.0, 512),
    "PublisherFunction": (15.0, 512),  # per record: its posts, 8 at a time
    "TimerFunction": (10.0, 512),  # per record: a schedule created and one deleted
    "ProgressionFunction": (150.0, 512),
    "JobFunction": (1000.0, 1024),
    "TimeoutFunction": (60.0, 512),
    "SweeperFunction": (500.0, 512),
}
API_GATEWAY = ("http:", "apigateway:")  # every one an API Gateway request (account RPS)
CDN = "cdn:"  # a request to the site's CloudFront distribution (its play page, its scripts)
# what reaches the site's distribution: its own files, and every HTTP API request, which
# goes through it (the WebSocket API does not)
THROUGH_CDN = (CDN, "http:")


@dataclass(frozen=True)
class Demand:
    """One quota's peak demand against its figure."""

    quota: Quota
    peak: float
    unit: str
    paces: bool = True  # False: a ramp, not a rate the tournament must keep under

    @property
    def share(self) -> float:
        """Peak ÷ quota (above 1: throttled unless paced or raised)."""
        return self.peak / self.quota.value if self.quota.value else math.inf

    @property
    def recommended(self) -> float:
        """The figure to ask AWS for: the peak with headroom, rounded up to 1,000s."""
        return max(self.quota.value, math.ceil(self.peak * HEADROOM / 1000) * 1000)


@dataclass(frozen=True)
class HotKey:
    """The most written item of a kind and its writes a second at the peak."""

    kind: str
    writes_per_second: float
    how: str


@dataclass(frozen=True)
class Round:
    """One round: tables played, its longest table's time, and its time at the quotas."""

    number: int
    tables: int
    actions: float
    table_seconds: float
    seconds: float


@dataclass
class Plan:
    """Everything `knobelcup plan` prints."""

    players: int
    pace: str
    seconds_per_action: float
    demands: list[Demand]
    hot_keys: list[HotKey]
    rounds: list[Round]
    connect_seconds: float
    totals: dict[str, float]
    cost: dict[str, float] = field(default_factory=dict)

    @property
    def binding(self) -> Demand:
        """The quota with the largest share: the first to throttle."""
        return max((d for d in self.demands if d.paces), key=lambda d: d.share)

    @property
    def play_seconds(self) -> float:
        """From the start to the champion."""
        return sum(r.seconds for r in self.rounds)


def peak_rates(cal: Calibration, actions_per_second: float) -> dict[str, float]:
    """Calls per second of every operation at `actions_per_second`."""
    return {key: per * actions_per_second for key, per in cal.per_action.items()}


def queued(cal: Calibration) -> float:
    """Messages a queue gets per action: every event put reaches a queue at most once
    (the bus's rules target the progression and job queues)."""
    return float(cal.data["items_per_action"].get("events:PutEvents", 0.0))


def _sum(rates: dict[str, float], *prefixes: str) -> float:
    return sum(v for k, v in rates.items() if k.startswith(prefixes))


def demands(
    cal: Calibration, quotas: dict[str, Quota], actions_per_second: float, pace: str
) -> list[Demand]:
    """The peak demand on every quota the service touches, at `actions_per_second`."""
    rates = peak_rates(cal, actions_per_second)
    units = {k: v * actions_per_second for k, v in cal.data["per_action_units"].items()}
    turns = cal.data["turns_per_seat"] / cal.data["actions_per_seat"] * actions_per_second
    timeouts = max(rates.get("lambda:TimeoutFunction", 0.0), turns * TIMED_OUT_TURNS[pace])
    rates["lambda:TimeoutFunction"] = timeouts
    concurrency = {
        name: rates.get(f"lambda:{name}", 0.0) * ms / 1000 for name, (ms, _) in FUNCTIONS.items()
    }
    busiest = max(concurrency.values())
    found = [
        Demand(quotas["apigateway_rps"], _sum(rates, *API_GATEWAY), "requests/s"),
        Demand(quotas["cloudfront_rps"], _sum(rates, *THROUGH_CDN), "requests/s"),
        Demand(quotas["scheduler_create_tps"], rates.get("scheduler:CreateSchedule", 0.0), "/s"),
        Demand(quotas["scheduler_delete_tps"], rates.get("scheduler:DeleteSchedule", 0.0), "/s"),
        Demand(quotas["scheduler_invocations_tps"], timeouts, "/s"),
        Demand(quotas["dynamodb_table_wcu"], units.get("WCU", 0.0), "WCU/s"),
        Demand(quotas["dynamodb_table_rcu"], units.get("RCU", 0.0), "RCU/s"),
        Demand(quotas["dynamodb_warm_writes"], units.get("WCU", 0.0), "WCU/s"),
        Demand(quotas["dynamodb_warm_reads"], units.get("RCU", 0.0), "RCU/s"),
        Demand(quotas["lambda_concurrency"], sum(concurrency.values()), "environments"),
        Demand(quotas["lambda_scaling_per_10s"], busiest / 6, "environments/10 s in 1 min", False),
        Demand(quotas["eventbridge_putevents_tps"], rates.get("events:PutEvents", 0.0), "/s"),
        # the bus's rules deliver each event to a queue, Lambda receives and deletes it
        Demand(quotas["sqs_requests_per_second"], 3 * queued(cal) * actions_per_second, "/s"),
    ]
    return found


def hot_keys(cal: Calibration, plan: BracketPlan, spa: float, registrations: float) -> list[HotKey]:
    """Per kind of item, its most written item's writes a second at the peak: a table's
    own items at a table's pace, the tournament's items at the rate tables finish, the
    registration shards at the registration rate."""
    source = cal.data["source"]
    run_tables, run_players = source["played_tables"], source["players"]
    size = max(plan.table_sizes(1))
    table_seconds = cal.data["actions_per_seat"] * size * spa
    tables_finishing = sum(1 for s in plan.table_sizes(1) if s > 1) / table_seconds
    found = []
    for kind, seen in sorted(cal.data["item_kinds"].items()):
        hottest = seen["hottest"]
        if kind in ("table", "arrivals", "round node", "player"):
            rate, how = hottest / table_seconds, "over one table's time"
        elif kind == "registration shard":
            rate, how = hottest / run_players * registrations, "at the registration rate"
        elif seen["items"] > 1 and hottest <= 1:
            rate, how = 0.0, "written once"
        else:
            rate, how = hottest / run_tables * tables_finishing, "as tables finish"
        found.append(HotKey(kind, rate, how))
    return sorted(found, key=lambda h: -h.writes_per_second)


@dataclass(frozen=True)
class Shape:
    """How the tournament is played: its tables, and how fast they move."""

    table_size: int = 6
    advance: int = 2
    pace: str = "people"
    seconds_per_action: float | None = None  # None: the pace's
    registration_minutes: float = 30.0


def build_plan(cal: Calibration, quotas: dict[str, Quota], players: int, shape: Shape) -> Plan:
    """The whole plan for a tournament of `players`."""
    pace = shape.pace
    spa = shape.seconds_per_action or SECONDS_PER_ACTION[pace]
    bracket = BracketPlan.build(players, shape.table_size, shape.advance)
    first = sum(1 for s in bracket.table_sizes(1) if s > 1)
    peak = first / spa
    found = demands(cal, quotas, peak, pace)
    limit = max(d.share for d in found if d.paces)
    allowed = peak / limit if limit > 1 else math.inf  # actions/s the binding quota lets by
    # and the recommended budget of tables in play, each an action every `spa`: below the
    # binding quota by its headroom, or held by the capacity item's key
    allowed = min(allowed, tables_in_play(cal, quotas, shape) / spa)
    aps = cal.data["actions_per_seat"]
    rounds = []
    for number in range(1, bracket.rounds + 1):
        sizes = [s for s in bracket.table_sizes(number) if s > 1]
        actions = aps * sum(sizes)
        table_seconds = aps * max(sizes, default=0) * spa
        rounds.append(
            Round(number, len(sizes), actions, table_seconds, max(table_seconds, actions / allowed))
        )
    registrations = players / (shape.registration_minutes * 60)
    connects = quotas["websocket_connects_per_second"]
    found.append(Demand(connects, registrations, "connects/s over registration"))
    # people on phones register, read, ask for a socket ticket: every one an API Gateway
    # request, spread over the registration
    joining = _sum(cal.per_person(pace)[0], *API_GATEWAY) * registrations
    found.append(Demand(quotas["apigateway_rps"], joining, "requests/s over registration"))
    # the play page and its scripts come from the site's distribution, and the API's
    # requests pass through it
    site = _sum(cal.per_person(pace)[0], *THROUGH_CDN) * registrations
    found.append(Demand(quotas["cloudfront_rps"], site, "requests/s over registration"))
    actions = sum(r.actions for r in rounds)
    counts = cal.counts(players, actions, pace)
    plan = Plan(
        players,
        pace,
        spa,
        found,
        hot_keys(cal, bracket, spa, registrations),
        rounds,
        players / connects.value,
        counts,
    )
    return plan


def table_seconds(cal: Calibration, table_size: int, seconds_per_action: float) -> float:
    """A full table's typical duration: its counted actions at the pace."""
    return float(cal.data["actions_per_seat"]) * table_size * seconds_per_action


def tables_in_play(cal: Calibration, quotas: dict[str, Quota], shape: Shape) -> int:
    """The budget of tables in play to deploy with (template parameter
    `TablesInPlayBudget`): `PACING_SHARE` of the tables the binding quota carries, each
    taking an action every `seconds_per_action`, and no more than `PACING_SHARE` of what
    the capacity item's key carries (slots claimed and released as tables end)."""
    spa = shape.seconds_per_action or SECONDS_PER_ACTION[shape.pace]
    per_action = demands(cal, quotas, 1.0, shape.pace)  # each demand at one action a second
    carried = min(d.quota.value / d.peak for d in per_action if d.paces and d.peak > 0)
    seconds = table_seconds(cal, shape.table_size, spa)
    key_carries = KEY_WCU / CAPACITY_WCU_PER_TABLE * seconds
    return max(1, math.floor(PACING_SHARE * min(carried * spa, key_carries)))


def with_increases(plan: Plan) -> dict[str, float]:
    """The adjustable quotas to raise, and to what, for the plan to run unpaced."""
    raised: dict[str, float] = {}
    for d in plan.demands:  # a quota met twice (play, registration): the larger figure
        if d.share > 1 and d.quota.adjustable and d.recommended > d.quota.value:
            raised[d.quota.name] = max(raised.get(d.quota.name, 0.0), d.recommended)
    return raised


def warm_throughput(plan: Plan) -> tuple[int, int]:
    """(WriteUnitsPerSecond, ReadUnitsPerSecond) to set on the table before the event:
    the peak the plan runs at (paced to its binding quota), with headroom; at least
    what a new table has anyway."""
    paced = min(1.0, 1 / plan.binding.share) if plan.binding.share > 0 else 1.0
    by_name = {d.quota.name: d for d in plan.demands}
    writes = by_name["dynamodb_warm_writes"].peak * paced * HEADROOM
    reads = by_name["dynamodb_warm_reads"].peak * paced * HEADROOM
    return (
        max(4000, math.ceil(writes / 1000) * 1000),
        max(12000, math.ceil(reads / 1000) * 1000),
    )
