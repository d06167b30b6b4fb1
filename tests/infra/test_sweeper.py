"""The deadline sweeper: a lost deadline is still applied, at its version, found through
the sparse index and never by a scan; a table whose player acted, or that is over, gets
no timeout; finished tables leave the index; a run is bounded.

Each test runs the local stack on in-process moto (the template's table and index) with
a clock the test moves; schedules are "lost" by deleting them, as if Scheduler had
dropped them or TimeoutFunction had failed past its retries.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from moto import mock_aws
from suite_dice import suite_seed

from core.actions import Timeout
from functions.api.app import lambda_handler as api_handler
from functions.sweeper import app as sweeper_app
from infra.dice import PlaceSeededDice
from infra.services.sweeper import DeadlineSweeper
from infra.services.turns import TurnService
from infra.store.deadlines import GRACE_SECONDS, INDEX, SHARDS
from infra.store.game_tables import GameTableStore
from infra.store.stores import Stores
from infra.store.table_item import TableRecord
from local.bots import Bot, BotTournament
from local.delivery import RateSchedule
from local.lambda_events import HttpAnswer, LocalContext, invoke_http
from local.provision import function_timeout
from local.service import DeliveryRunner
from local.stack import LocalStack, start_local_stack, stop_local_stack

NOW = 1_800_000_000.0
TIMEOUT = 30  # the tournaments' turn_timeout_seconds
SWEEPER_TIMEOUT = function_timeout("SweeperFunction")


@dataclass
class Clock:
    """The stack's clock, moved by the test."""

    now: float = NOW

    def __call__(self) -> float:
        return self.now


@dataclass
class Cup:
    """A started tournament on a local stack, and what the tests look at."""

    stack: LocalStack
    clock: Clock
    run: BotTournament

    @property
    def stores(self) -> Stores:
        return Stores.over(self.stack.dynamodb, self.stack.settings.table_name)

    def table(self, ref: str = "R1-1") -> TableRecord:
        found = self.stores.tables.get_table(self.run.tournament, ref)
        assert found is not None
        return found

    def index(self) -> dict[str, int]:
        """Every table in the deadline index: ref → due_at."""
        entries: dict[str, int] = {}
        for shard in SHARDS:
            start = None
            while True:
                found, start = self.stores.deadlines.overdue(shard, 2**40, start)
                entries.update({ref: due for _, ref, due in found})
                if start is None:
                    break
        return entries

    def lose_deadlines(self) -> None:
        """Delete every pending schedule: no TimeoutFunction will ever fire for them."""
        scheduler = boto3.client("scheduler")
        group = self.stack.settings.schedule_group
        for schedule in scheduler.list_schedules(GroupName=group)["Schedules"]:
            scheduler.delete_schedule(Name=schedule["Name"], GroupName=group)
        assert not self.stack.delivery.schedules.pending()

    def sweep(self) -> dict[str, Any]:
        """One run of the real SweeperFunction handler."""
        report: dict[str, Any] = sweeper_app.lambda_handler(
            {}, LocalContext(timeout_seconds=SWEEPER_TIMEOUT)
        )
        return report

    def act(self, ref: str = "R1-1") -> None:
        """The player to act at `ref` throws (or takes its first legal action)."""
        path = f"/tournaments/{self.run.tournament}/tables/{ref}"
        to_act = http("GET", path).body["view"]["to_act"]
        bot: Bot = self.run.bots[to_act]
        view = http("GET", path + "/me", token=bot.token).body["view"]
        answer = http(
            "POST",
            path + "/actions",
            {"version": view["version"], "action": view["legal_actions"][0]},
            token=bot.token,
        )
        assert answer.status == 200, answer.raw

    def take_turn(self, ref: str = "R1-1") -> None:
        """The player to act at `ref` acts until another player's turn begins (a throw
        and an announcement): only a new turn moves the table's `deadline`."""
        path = f"/tournaments/{self.run.tournament}/tables/{ref}"
        player = http("GET", path).body["view"]["to_act"]
        while http("GET", path).body["view"]["to_act"] == player:
            self.act(ref)


def http(method: str, path: str, body: object = None, **request: Any) -> HttpAnswer:
    return invoke_http(api_handler, method, path, body, **request)


@pytest.fixture
def cup(aws_env: None) -> Iterator[Any]:
    """Makes a started tournament: `cup(players=4, absent=True, table_size=4)`."""
    with mock_aws():
        clock = Clock()
        stack = start_local_stack("sw", dice=PlaceSeededDice(suite_seed("sweeper")), clock=clock)

        def make(players: int = 4, *, absent: bool = True, table_size: int = 4) -> Cup:
            run = BotTournament(http, stack, "bots")
            run.create("maexchen", table_size=table_size, advance=1, turn_timeout_seconds=TIMEOUT)
            names = [f"bot {n}" for n in range(players)]
            run.register(names, absent=names if absent else [])
            run.start()
            stack.delivery.settle()
            return Cup(stack, clock, run)

        yield make
        stop_local_stack()


def test_a_lost_deadline_is_applied_by_the_sweeper_and_the_table_plays_on_to_its_end(
    cup: Any,
) -> None:
    cup = cup()
    seated = cup.table()
    deadline = int(NOW) + TIMEOUT
    assert (seated.version, seated.deadline) == (0, deadline)
    assert cup.index() == {"R1-1": deadline}, "seated: in the index, due at its deadline"
    cup.lose_deadlines()

    cup.clock.now = deadline + GRACE_SECONDS - 1
    assert cup.sweep()["visited"] == 0, "not overdue before the grace has passed"
    assert cup.table().version == 0

    cup.clock.now = deadline + GRACE_SECONDS
    assert cup.sweep() | {"complete": True} == {
        "visited": 1,
        "timed_out": 1,
        "moved_on": 0,
        "left_index": 0,
        "unchanged": 0,
        "complete": True,
    }
    timed_out = cup.table()
    assert timed_out.version == 1
    assert timed_out.moves[0].action == Timeout(), "the timeout of version 0, nothing else"
    assert timed_out.deadline == int(cup.clock.now) + TIMEOUT

    # the same write moved the table on in the index: the next run does not visit it
    assert cup.index() == {"R1-1": timed_out.deadline}
    assert cup.sweep()["visited"] == 0
    # and the table moves on as usual: its new version gets a schedule from the stream
    cup.stack.delivery.settle()
    [(_, following)] = cup.stack.delivery.schedules.pending().values()
    assert following["version"] == 1

    # every deadline lost from here on: the sweeper alone plays the table to its end
    for _ in range(50):
        cup.lose_deadlines()
        cup.clock.now = cup.table().deadline + GRACE_SECONDS
        before = cup.table().version
        assert cup.sweep()["timed_out"] == 1
        assert cup.table().version == before + 1
        cup.stack.delivery.settle()
        if cup.table().over:
            break
    final = cup.table()
    assert final.over and all(move.action == Timeout() for move in final.moves)
    assert cup.index() == {}, "the timeout that ended the table took it out of the index"
    cup.stack.delivery.settle()  # the publisher and the progression finish the cup
    status = http("GET", f"/tournaments/{cup.run.tournament}").body["status"]
    assert status == "finished"


def test_a_table_whose_player_acted_gets_no_timeout(cup: Any) -> None:
    cup = cup(absent=False)
    first_deadline = cup.table().deadline
    cup.clock.now = NOW + 20
    cup.act()  # a throw: the same turn, the same deadline
    assert (cup.table().version, cup.table().deadline) == (1, first_deadline)
    cup.take_turn()  # the announcement: the next player's turn, due 20 s later
    acted = cup.table()
    assert (acted.version, acted.deadline) == (2, first_deadline + 20)
    assert cup.index() == {"R1-1": first_deadline}, "a turn never writes the index"
    cup.lose_deadlines()

    # the index's due_at has passed, the table's deadline has not: moved on, not timed out
    cup.clock.now = first_deadline + GRACE_SECONDS
    report = cup.sweep()
    assert (report["visited"], report["moved_on"], report["timed_out"]) == (1, 1, 0)
    assert cup.table().moves == acted.moves
    assert cup.index() == {"R1-1": acted.deadline}


def test_a_player_acting_between_the_sweepers_read_and_write_wins(cup: Any) -> None:
    cup = cup(absent=False)
    cup.lose_deadlines()
    cup.clock.now = cup.table().deadline + GRACE_SECONDS

    class Racing(GameTableStore):
        def get_table(self, tournament: str, ref: str) -> TableRecord | None:
            read = super().get_table(tournament, ref)
            cup.act(ref)  # the player's action lands after the sweeper's read
            return read

    racing = Racing(cup.stack.dynamodb, cup.stack.settings.table_name)
    report = sweeper_over(cup.stores, cup.clock, tables=racing).sweep()

    assert (report.visited, report.timed_out, report.unchanged) == (1, 0, 1)
    table = cup.table()
    assert table.version == 1 and table.moves[0].action != Timeout()


def test_finished_tables_and_byes_are_not_in_the_index_once_swept(cup: Any) -> None:
    cup = cup(3, absent=False, table_size=2)  # R1-1 plays, R1-2 is a bye
    assert cup.table("R1-2").bye
    assert cup.index() == {"R1-1": int(NOW) + TIMEOUT}, "no bye, player or tournament item"

    cup.run.run()  # the bots play R1-1 and the final R2-1 to the end
    r1, final = cup.table("R1-1"), cup.table("R2-1")
    assert r1.over and final.over
    assert set(cup.index()) == {"R1-1", "R2-1"}, "the end of a table writes no index"

    cup.clock.now = max(cup.index().values()) + GRACE_SECONDS
    report = cup.sweep()
    assert (report["left_index"], report["timed_out"], report["moved_on"]) == (2, 0, 0)
    assert cup.index() == {}
    assert cup.table("R1-1").moves == r1.moves and cup.table("R2-1").moves == final.moves
    assert cup.sweep()["visited"] == 0


class Spy:
    """A DynamoDB client that records every operation and its request."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        operation = getattr(self._client, name)

        def recorded(**request: Any) -> Any:
            self.calls.append((name, request))
            return operation(**request)

        return recorded


def test_the_sweeper_queries_the_index_by_shard_and_never_scans(cup: Any) -> None:
    cup = cup(12)  # three tables, all absent
    cup.lose_deadlines()
    cup.clock.now = int(NOW) + TIMEOUT + GRACE_SECONDS
    spy = Spy(cup.stack.dynamodb)
    sweeper = sweeper_over(Stores.over(spy, cup.stack.settings.table_name), cup.clock)

    assert sweeper.sweep().timed_out == 3
    cup.clock.now += TIMEOUT - 1
    cup.take_turn("R1-1")  # its deadline moves on; the others' pass
    cup.clock.now += GRACE_SECONDS + 1
    second = sweeper.sweep()
    assert (second.timed_out, second.moved_on) == (2, 1)
    operations = {name for name, _ in spy.calls}
    assert operations == {"query", "get_item", "put_item", "update_item"}
    queries = [request for name, request in spy.calls if name == "query"]
    assert len(queries) == 2 * len(SHARDS), "one page per shard and run"
    for request in queries:
        assert request["IndexName"] == INDEX
        assert request["KeyConditionExpression"] == "due_shard = :shard AND due_at <= :cutoff"
    assert {q["ExpressionAttributeValues"][":shard"]["S"] for q in queries} == set(SHARDS)


def with_lost_deadlines(make: Any) -> Cup:
    """Three tables of 4 whose deadlines were lost, the clock past them and their grace."""
    cup: Cup = make(12)
    cup.lose_deadlines()
    cup.clock.now = int(NOW) + TIMEOUT + GRACE_SECONDS
    return cup


def test_a_run_is_bounded_and_the_next_run_takes_the_rest(
    cup: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cup = with_lost_deadlines(cup)
    monkeypatch.setattr("infra.store.deadlines.PAGE_SIZE", 1)  # pages of one key
    stores = cup.stores

    out_of_time = sweeper_over(stores, cup.clock).sweep(time_left=lambda: 5.0)
    assert (out_of_time.visited, out_of_time.complete) == (0, False)

    # a 50 s run whose visits take 7 s each: a third visit would end past 30% of it (15 s)
    run = RunClock(50.0)
    visit = DeadlineSweeper._visit
    monkeypatch.setattr(DeadlineSweeper, "_visit", lambda *args: (run.spend(7.0), visit(*args))[1])
    a_third = sweeper_over(stores, cup.clock).sweep(time_left=run)
    assert (a_third.visited, a_third.complete) == (2, False)
    assert run.left == 50.0 - 2 * 7.0
    monkeypatch.setattr(DeadlineSweeper, "_visit", visit)

    rest = sweeper_over(stores, cup.clock, max_visits=2).sweep()
    assert (rest.visited, rest.timed_out, rest.complete) == (1, 1, True), "the one left over"
    versions = sorted(cup.table(f"R1-{n}").version for n in (1, 2, 3))
    assert versions == [1, 1, 1]


def test_a_slow_page_of_the_index_does_not_carry_a_run_past_its_share(
    cup: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    cup = with_lost_deadlines(cup)
    stores = cup.stores
    run = RunClock(50.0)
    overdue = stores.deadlines.overdue
    monkeypatch.setattr(
        stores.deadlines, "overdue", lambda *args: (run.spend(12.0), overdue(*args))[1]
    )
    report = sweeper_over(stores, cup.clock).sweep(time_left=run)
    assert not report.complete
    assert 50.0 - run.left <= 50.0 / 3  # one page: a second as slow would end past 30%


@dataclass
class RunClock:
    """The seconds left of a function's run, as `time_left`; spent by patched steps."""

    left: float

    def __call__(self) -> float:
        return self.left

    def spend(self, seconds: float) -> None:
        self.left -= seconds


def test_the_local_delivery_runs_the_sweeper_every_minute(cup: Any) -> None:
    cup = cup()
    cup.lose_deadlines()
    due = cup.clock.now = cup.table().deadline + GRACE_SECONDS  # the sweeper's clock too
    delivery = cup.stack.delivery

    assert delivery.sweep_due(due) is True
    assert cup.table().version == 1, "the real handler ran on the stack"
    assert delivery.sweep_due(due + 59) is False
    assert delivery.sweep_due(due + 60) is True
    assert delivery.sweeps is not None and delivery.sweeps.runs == 2


def test_a_rate_schedule_runs_once_per_period_and_survives_a_failing_run() -> None:
    runs: list[dict[str, Any]] = []

    def handler(event: dict[str, Any], context: Any) -> None:
        runs.append(event)
        if len(runs) == 2:
            raise RuntimeError("a failed run")

    every_minute = RateSchedule(handler, "sweeper", 60)
    assert [every_minute.run_due(t) for t in (100, 130, 159.9, 160, 220, 221)] == [
        True,
        False,
        False,
        True,
        True,
        False,
    ]
    assert (every_minute.runs, every_minute.failures) == (3, 1)
    assert runs[0]["detail-type"] == "Scheduled Event"
    assert runs[0]["time"] == "1970-01-01T00:01:40Z"


def test_the_served_stacks_runner_sweeps() -> None:
    """`make serve`'s runner asks for a sweep on every pass; the rate decides if one runs."""
    swept = threading.Event()

    class NoSchedules:
        def fire_due(self, now: float) -> int:
            return 0

    class Delivery:
        schedules = NoSchedules()

        def poll(self, skip: object = ()) -> int:
            return 0

        def sweep_due(self, now: float) -> bool:
            swept.set()
            return True

    runner = DeliveryRunner(Delivery(), clock=lambda: 0.0)  # type: ignore[arg-type]
    runner.start()
    try:
        assert swept.wait(timeout=30)
    finally:
        runner.stop()


def sweeper_over(
    stores: Stores, clock: Clock, *, tables: GameTableStore | None = None, **options: Any
) -> DeadlineSweeper:
    """A sweeper over `stores` (its tables read through `tables` when given)."""
    tables = tables if tables is not None else stores.tables
    turns = TurnService(tables, stores.players, PlaceSeededDice(suite_seed("sweeper")), clock)
    return DeadlineSweeper(stores.deadlines, tables, turns, clock, **options)
