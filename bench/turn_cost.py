"""Turn cost: DynamoDB calls and capacity per submitted action, handler time, cold import.

    .venv/bin/python bench/turn_cost.py                # Mäxchen, 20 tables of 4 and of 6
    .venv/bin/python bench/turn_cost.py --game all     # Mäxchen, Mariechen and 42
    .venv/bin/python bench/turn_cost.py --tables 5 --imports 3 --importtime

Seeded random bots play round 1 of a tournament through the real Lambda handler over
moto, exactly as `tests/api` does. Only `POST .../actions` calls are measured:

1. DynamoDB calls per action, counted on the client, and the capacity units DynamoDB
   would charge for them, computed from item sizes (moto's ConsumedCapacity is a fixed
   fake), the deadline index's writes included; the table item's size over its life.
2. The handler's in-process time per action, with the time spent inside moto (and, as a
   second figure, inside the whole DynamoDB client) subtracted.
3. The cold import of the handler module plus building its services (the DynamoDB
   client), in fresh interpreters, against a bare `boto3.client("dynamodb")`.

The script prints figures; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import io
import itertools
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass, field
from datetime import date
from importlib.metadata import version as installed_version
from pathlib import Path
from typing import Any
from unittest import mock

import boto3
from moto import mock_aws

from core.registry import game_names
from functions.api.app import lambda_handler
from functions.wiring import use_services
from infra.bootstrap import build_jobs, build_services
from infra.dice import SeededDice
from infra.jobs.runner import JobRunner
from infra.settings import Settings
from local.lambda_events import invoke_http
from local.provision import create_tables

ROOT = Path(__file__).resolve().parent.parent
TABLE_NAME = "knobelcup"
NOW = 1_800_000_000.0
CLOCK_STEP = 2.5  # seconds per clock reading
API_DEFAULT_TABLE_SIZE = 6  # CreateTournament.table_size's default

TARGET_RCU = 1
TARGET_WCU = 2
TARGET_IMPORT_RATIO = 1.5

# Fake credentials and a region, as in tests/api/conftest.py: nothing may reach AWS.
ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "eu-central-1",
    "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_SERVICE_NAME": "knobelcup",
    "POWERTOOLS_METRICS_NAMESPACE": "Knobelcup",
    "KNOBELCUP_TABLE": TABLE_NAME,
}
UNSET = ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB")
# The import children run as Lambda runs the function: tracing on, and the variables the
# runtime sets. They matter: outside Lambda the X-Ray SDK builds two botocore clients
# for its sampling rules at import; inside, Lambda samples and the SDK builds none.
LAMBDA_ENVIRONMENT = {
    "LAMBDA_TASK_ROOT": str(Path(tempfile.gettempdir()) / "knobelcup-task-root"),
    "AWS_LAMBDA_FUNCTION_NAME": "knobelcup-api",
    "AWS_EXECUTION_ENV": "AWS_Lambda_python3.13",
    "POWERTOOLS_TRACE_DISABLED": "false",
}


# --- DynamoDB item sizes and capacity units -------------------------------------------
#
# The rules of the AWS doc "DynamoDB item sizes and formats" (Amazon DynamoDB Developer
# Guide, CapacityUnitCalculations.html): an item's size is the sum over its attributes of
# the UTF-8 length of the name plus the size of the value. S: UTF-8 bytes; N: about one
# byte per two significant digits (leading and trailing zeroes trimmed) plus one; B: raw
# bytes; BOOL and NULL: 1; List and Map: 3 bytes plus the nested elements (a Map element
# counts its name too) plus 1 byte per element. A strongly consistent read costs one RCU
# per 4 KB, a write one WCU per 1 KB of the larger of the old and the new item.


def number_size(text: str) -> int:
    """Bytes of an N value: one per two significant digits, plus one."""
    mantissa = text.lstrip("+-").lower().partition("e")[0]
    digits = mantissa.replace(".", "").strip("0")
    return (max(len(digits), 1) + 1) // 2 + 1


def value_size(value: Mapping[str, Any]) -> int:
    """Bytes of one attribute value in the low-level client's form (`{"S": "..."}`)."""
    ((kind, data),) = value.items()
    if kind == "S":
        return len(data.encode())
    if kind == "N":
        return number_size(data)
    if kind == "B":
        return len(data)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(text.encode()) for text in data)
    if kind == "NS":
        return sum(number_size(text) for text in data)
    if kind == "BS":
        return sum(len(blob) for blob in data)
    if kind == "M":
        return 3 + sum(len(name.encode()) + value_size(v) + 1 for name, v in data.items())
    if kind == "L":
        return 3 + sum(value_size(v) + 1 for v in data)
    raise ValueError(f"unknown attribute type {kind!r}")


def item_size(item: Mapping[str, Mapping[str, Any]]) -> int:
    """Bytes of a whole item: attribute names plus values."""
    return sum(len(name.encode()) + value_size(value) for name, value in item.items())


def read_units(size: int) -> int:
    """RCU of a strongly consistent read of an item of `size` bytes (at least 1)."""
    return max(1, math.ceil(size / 4096))


def write_units(old_size: int, new_size: int) -> int:
    """WCU of a PutItem replacing an item of `old_size` bytes (0: none) by `new_size`."""
    return max(1, math.ceil(max(old_size, new_size) / 1024))


# --- counting the client's calls ------------------------------------------------------


@dataclass
class Tally:
    """What the DynamoDB client did during one request."""

    calls: Counter[str] = field(default_factory=Counter)
    rcu: int = 0
    wcu: int = 0  # the table's and its index's
    index_wcu: int = 0  # of which the deadline index's
    client_seconds: float = 0.0  # inside the client: botocore's work plus moto's
    moto_seconds: float = 0.0  # inside moto alone (botocore's before-send hook)


class DynamoMeter:
    """Counts a client's calls and their capacity, and times them, from inside the client.

    The client's `_make_api_call` is wrapped (every operation passes through it, so the
    wrapper sees each call's parameters and answer and times the client's whole work);
    moto answers in botocore's `before-send` event, so hooks registered first and last
    on that event time moto alone. Every read is charged as strongly consistent: the
    stores make no other kind.
    """

    def __init__(self, client: Any) -> None:
        self.tally = Tally()
        # the last size seen of every item, to charge a PutItem for the larger version
        self._sizes: dict[tuple[str, str], int] = {}
        # the last deadline index key seen of every item (None: not in the index)
        self._index_keys: dict[tuple[str, str], tuple[str, str] | None] = {}
        # table item -> version -> size, from every table item written or read
        self.table_sizes: defaultdict[str, dict[int, int]] = defaultdict(dict)
        self._send_started = 0.0
        original: Callable[[str, dict[str, Any]], Any] = client._make_api_call

        def metered(operation: str, params: dict[str, Any]) -> Any:
            started = time.perf_counter()
            try:
                answer = original(operation, params)
            finally:
                self.tally.client_seconds += time.perf_counter() - started
                self.tally.calls[operation] += 1
            self._account(operation, params, answer)
            return answer

        client._make_api_call = metered
        client.meta.events.register_first("before-send", self._before_moto)
        client.meta.events.register_last("before-send", self._after_moto)

    def start(self) -> None:
        """Count from here on into a fresh tally."""
        self.tally = Tally()

    def stop(self) -> Tally:
        """The tally since `start`; later calls go to a fresh one."""
        tally, self.tally = self.tally, Tally()
        return tally

    def _before_moto(self, **_: Any) -> None:
        self._send_started = time.perf_counter()

    def _after_moto(self, **_: Any) -> None:
        self.tally.moto_seconds += time.perf_counter() - self._send_started

    def _account(self, operation: str, params: Mapping[str, Any], answer: Any) -> None:
        if operation == "GetItem":
            item = answer.get("Item")
            size = item_size(item) if item else 0
            self.tally.rcu += read_units(size)
            if item:
                self._seen(item, size)
        elif operation == "PutItem":
            item = params["Item"]
            size = item_size(item)
            index = index_write_units(self._index_keys.get(_key(item)), _index_key(item))
            self.tally.wcu += write_units(self._sizes.get(_key(item), 0), size) + index
            self.tally.index_wcu += index
            self._seen(item, size)
        elif operation == "BatchWriteItem":  # the start seats every table this way
            for requests in params["RequestItems"].values():
                for request in requests:
                    if "PutRequest" in request:
                        put = request["PutRequest"]["Item"]
                        self._seen(put, item_size(put))

    def _seen(self, item: Mapping[str, Any], size: int) -> None:
        self._sizes[_key(item)] = size
        self._index_keys[_key(item)] = _index_key(item)
        if item.get("sk", {}).get("S") == "TABLE" and "version" in item:
            self.table_sizes[item["pk"]["S"]][int(item["version"]["N"])] = size


def _key(item: Mapping[str, Any]) -> tuple[str, str]:
    return item["pk"]["S"], item["sk"]["S"]


def _index_key(item: Mapping[str, Any]) -> tuple[str, str] | None:
    """The item's key in the deadline index, None if it is not in it (sparse)."""
    if "due_shard" in item and "due_at" in item:
        return item["due_shard"]["S"], item["due_at"]["N"]
    return None


def index_write_units(old: tuple[str, str] | None, new: tuple[str, str] | None) -> int:
    """WCU a table write costs the KEYS_ONLY deadline index (its entries are far under
    1 KB): none if the index key stays (nothing projected changes), one to put or delete
    an entry, two to change its key (delete the old entry, put the new one)."""
    if old == new:
        return 0
    return 1 if old is None or new is None else 2


# --- playing tables through the handler -----------------------------------------------


@dataclass(frozen=True)
class ActionCost:
    """One submitted action: what it was, what it cost in DynamoDB, how long it took."""

    kind: str
    calls: Counter[str]
    rcu: int
    wcu: int  # the table's and the deadline index's
    index_wcu: int
    handler_seconds: float
    client_seconds: float
    moto_seconds: float

    @property
    def without_moto(self) -> float:
        """The handler's time minus moto's: Powertools', ours and botocore's."""
        return self.handler_seconds - self.moto_seconds

    @property
    def without_client(self) -> float:
        """The handler's time minus the DynamoDB client's: Powertools' and ours."""
        return self.handler_seconds - self.client_seconds


@dataclass
class TableRun:
    """Every action of round 1 of one tournament, and its table items' sizes."""

    game: str
    table_size: int
    tables: int
    actions: list[ActionCost]
    table_sizes: dict[str, dict[int, int]]


class Api:
    """Requests through `lambda_handler`, as API Gateway would send them."""

    def __init__(self, jobs: JobRunner) -> None:
        self.logs = io.StringIO()  # what the handler prints (the metrics' EMF lines)
        self._jobs = jobs  # the start job, run here: no stream or queue in this bench

    def call(
        self,
        method: str,
        path: str,
        body: object = None,
        token: str | None = None,
        query: str = "",
    ) -> dict[str, Any]:
        """The decoded JSON body of a 2xx answer; anything else is an error here."""
        answer, _ = self.timed(method, path, body, token, query)
        return answer

    def run_jobs(self, tournament: str) -> None:
        """Run the tournament's lifecycle job (the start) to its end."""
        with redirect_stdout(self.logs):
            self._jobs.run_to_end(tournament)

    def timed(
        self,
        method: str,
        path: str,
        body: object = None,
        token: str | None = None,
        query: str = "",
    ) -> tuple[dict[str, Any], float]:
        """The decoded answer and the handler's wall time around `lambda_handler` alone."""
        elapsed = 0.0

        def timed_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
            nonlocal elapsed
            started = time.perf_counter()
            result: dict[str, Any] = lambda_handler(event, context)
            elapsed = time.perf_counter() - started
            return result

        with redirect_stdout(self.logs):
            answer = invoke_http(timed_handler, method, path, body, token=token, query=query)
        self.logs.seek(0)
        self.logs.truncate()
        if not 200 <= answer.status < 300:
            raise RuntimeError(f"{method} {path} answered {answer.status}: {answer.raw}")
        decoded: dict[str, Any] = answer.body
        return decoded, elapsed


def play_round_one(game: str, tables: int, table_size: int, seed: int) -> TableRun:
    """Random bots play round 1 (`tables` tables of `table_size`) over a fresh moto."""
    with mock_aws():
        client = boto3.client("dynamodb")
        create_tables(client, names={"KnobelcupTable": TABLE_NAME})
        meter = DynamoMeter(client)
        label = f"{seed}-{game}-{table_size}"
        ticks = itertools.count()

        def clock() -> float:
            # time passes: every reading is CLOCK_STEP later, so each action writes a new
            # deadline, as it does in play
            return NOW + CLOCK_STEP * next(ticks)

        dice = SeededDice(label)  # repeatable: the seating derives each server seed from it
        use_services(build_services(Settings.from_env(), client=client, dice=dice, clock=clock))
        try:
            api = Api(jobs=build_jobs(Settings.from_env(), client=client, clock=clock, dice=dice))
            tournament, seating, tokens = _start(api, game, tables * table_size, table_size)
            rng = random.Random(label)
            actions: list[ActionCost] = []
            for ref, players in seating.items():
                actions.extend(
                    _play_table(
                        api,
                        meter,
                        rng,
                        tournament=tournament,
                        ref=ref,
                        players=players,
                        tokens=tokens,
                    )
                )
        finally:
            use_services(None)
    return TableRun(game, table_size, len(seating), actions, dict(meter.table_sizes))


def _start(
    api: Api, game: str, players: int, table_size: int
) -> tuple[str, dict[str, list[str]], dict[str, str]]:
    """A started tournament: its id, round 1's tables (ref -> players), player -> token."""
    created = api.call(
        "POST", "/tournaments", {"game": game, "table_size": table_size, "advance": 1}
    )
    tournament, organizer = created["tournament_id"], created["organizer_token"]
    api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    tokens = {}
    for number in range(players):
        registered = api.call(
            "POST", f"/tournaments/{tournament}/players", {"name": f"bot {number}"}
        )
        tokens[registered["player_id"]] = registered["player_token"]
    api.call("POST", f"/tournaments/{tournament}/start", token=organizer)
    api.run_jobs(tournament)
    seating: dict[str, list[str]] = {}
    offset: int | None = 0
    while offset is not None:
        page = api.call("GET", f"/tournaments/{tournament}/rounds/1", query=f"offset={offset}")
        seating.update({t["table"]: t["players"] for t in page["tables"]})
        offset = page["next_offset"]
    return tournament, seating, tokens


def _play_table(
    api: Api,
    meter: DynamoMeter,
    rng: random.Random,
    *,
    tournament: str,
    ref: str,
    players: Sequence[str],
    tokens: Mapping[str, str],
) -> Iterator[ActionCost]:
    """Play table `ref` to its end; yield the cost of every submitted action."""
    path = f"/tournaments/{tournament}/tables/{ref}"
    viewer = players[0]
    seen = api.call("GET", path + "/me", token=tokens[viewer])
    over, view = seen["over"], seen["view"]
    while not over:
        if view["to_act"] != viewer:  # the answer to an action shows the actor's view only
            viewer = view["to_act"]
            seen = api.call("GET", path + "/me", token=tokens[viewer])
            view = seen["view"]
        action = rng.choice(view["legal_actions"])
        meter.start()
        answer, elapsed = api.timed(
            "POST",
            path + "/actions",
            {"version": view["version"], "action": action},
            tokens[viewer],
        )
        tally = meter.stop()
        yield ActionCost(
            kind=action["kind"],
            calls=tally.calls,
            rcu=tally.rcu,
            wcu=tally.wcu,
            index_wcu=tally.index_wcu,
            handler_seconds=elapsed,
            client_seconds=tally.client_seconds,
            moto_seconds=tally.moto_seconds,
        )
        over, view = answer["over"], answer["view"]


# --- reporting ------------------------------------------------------------------------


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile (`share` in 0..100) of `values`."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share / 100 * len(ordered)) - 1)]


def _units(values: Sequence[int]) -> str:
    return (
        f"mean {statistics.fmean(values):.2f}, p50 {percentile(values, 50):.0f}, "
        f"p95 {percentile(values, 95):.0f}, max {max(values)}"
    )


def _ms(values: Sequence[float]) -> str:
    median, p95 = statistics.median(values) * 1e3, percentile(values, 95) * 1e3
    return f"median {median:.2f} ms, p95 {p95:.2f} ms"


def report_run(run: TableRun) -> None:
    """Print the DynamoDB cost and the handler time of one run."""
    actions = run.actions
    count = len(actions)
    print(
        f"  tables of {run.table_size}: {run.tables} tables, {count:,} actions "
        f"({count / run.tables:.1f} per table)"
    )
    calls: Counter[str] = Counter()
    for action in actions:
        calls.update(action.calls)
    per_action = ", ".join(f"{op} {n / count:.2f}" for op, n in sorted(calls.items()))
    print(f"    DynamoDB calls per action: {per_action}   target: GetItem 1, PutItem 1")
    rcu = [a.rcu for a in actions]
    wcu = [a.wcu for a in actions]
    print(
        f"    RCU per action: {_units(rcu)}   "
        f"target ≤ {TARGET_RCU}: {_verdict(max(rcu) <= TARGET_RCU)}"
    )
    shares = ", ".join(f"{units}: {n / count:.1%}" for units, n in sorted(Counter(wcu).items()))
    print(
        f"    WCU per action: {_units(wcu)}   "
        f"target ≤ {TARGET_WCU}: {_verdict(max(wcu) <= TARGET_WCU)} (WCU {shares})"
    )
    index = [a.index_wcu for a in actions]
    print(
        f"    of which deadline index WCU per action: {_units(index)} "
        f"({sum(1 for units in index if units) / count:.1%} of actions write it)"
    )
    lives = list(run.table_sizes.values())
    sizes = [size for versions in lives for size in versions.values()]
    print(
        f"    table item (bytes) over its life: version 0 "
        f"{statistics.median(v[0] for v in lives if 0 in v):.0f}, "
        f"median {statistics.median(sizes):.0f}, max {max(sizes)}; "
        f"+{statistics.fmean(_growth(v) for v in lives):.1f} bytes per action; "
        f"longest table {max(max(v) for v in lives)} versions"
    )
    for limit in (1024, 2048):
        past = [n for v in lives if (n := _first_past(v, limit)) is not None]
        if past:
            print(
                f"    {len(past)} of {len(lives)} items grew past {limit // 1024} KB, "
                f"at version {min(past)} to {max(past)} (median {statistics.median(past):.0f})"
            )
    print(f"    handler time per action, minus moto:      {_ms([a.without_moto for a in actions])}")
    print(
        f"    handler time per action, minus client:    {_ms([a.without_client for a in actions])}"
    )
    print(
        f"    (handler with moto {_ms([a.handler_seconds for a in actions])}; "
        f"botocore's share {_ms([a.client_seconds - a.moto_seconds for a in actions])})"
    )
    kinds: defaultdict[str, list[float]] = defaultdict(list)
    for action in actions:
        kinds[action.kind].append(action.without_moto)
    by_kind = ", ".join(
        f"{kind} {statistics.median(times) * 1e3:.2f} ms ×{len(times)}"
        for kind, times in sorted(kinds.items(), key=lambda kv: -statistics.median(kv[1]))
    )
    print(f"    by action (median minus moto, count): {by_kind}")


def _growth(versions: Mapping[int, int]) -> float:
    """Bytes per action from version 0 to the last version seen."""
    last = max(versions)
    return (versions[last] - versions[0]) / last if last and 0 in versions else 0.0


def _first_past(versions: Mapping[int, int], limit: int) -> int | None:
    """The first version whose item is larger than `limit` bytes, if any."""
    return next((n for n, size in sorted(versions.items()) if size > limit), None)


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


# --- cold import ----------------------------------------------------------------------

# Each child times only its imports (and the client), not the interpreter's own start.
APP_CHILD = """
import time
started = time.perf_counter()
import functions.api.app
imported = time.perf_counter()
from functions.wiring import renew, services
services()
built = time.perf_counter()
renew()  # what a SnapStart restore runs, then the first request builds its services again
restored = time.perf_counter()
services()
print(imported - started, built - started, time.perf_counter() - restored)
"""
BOTO3_CHILD = """
import time
started = time.perf_counter()
import boto3
boto3.client("dynamodb")
print(time.perf_counter() - started)
"""


@dataclass
class ImportTimes:
    """Seconds per fresh interpreter, one entry per repetition."""

    app_import: list[float] = field(default_factory=list)
    app_with_services: list[float] = field(default_factory=list)
    # after a SnapStart restore: renew, then the services built again (modules and models
    # loaded already, in the snapshot)
    after_restore: list[float] = field(default_factory=list)
    python: str = ""  # the children's Python version
    boto3_client: list[float] = field(default_factory=list)


def _child_env() -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in UNSET}
    env.update(ENVIRONMENT)
    env.update(LAMBDA_ENVIRONMENT)
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    return env


def _run_child(
    code: str, *flags: str, python: str = sys.executable
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, *flags, "-c", code],
        cwd=ROOT,
        env=_child_env(),
        capture_output=True,
        text=True,
        check=True,
    )


def measure_imports(repetitions: int, python: str = sys.executable) -> ImportTimes:
    """Time both children `repetitions` times, alternating, after one untimed warm-up each
    (which also leaves the bytecode caches written), in the interpreter `python`."""
    times = ImportTimes()
    version = "import platform; print(platform.python_version())"
    times.python = _run_child(version, python=python).stdout.strip()
    _run_child(APP_CHILD, python=python)
    _run_child(BOTO3_CHILD, python=python)
    for _ in range(repetitions):
        imported, built, restored = map(float, _run_child(APP_CHILD, python=python).stdout.split())
        times.app_import.append(imported)
        times.app_with_services.append(built)
        times.after_restore.append(restored)
        times.boto3_client.append(float(_run_child(BOTO3_CHILD, python=python).stdout))
    return times


def _import_tree(code: str) -> list[tuple[int, int, int, str]]:
    """(depth, self µs, cumulative µs, module) for every import `code` makes, in order."""
    stderr = _run_child(code, "-X", "importtime").stderr
    tree = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "[us]" in line:
            continue
        own, cumulative, name = line.removeprefix("import time:").split("|")
        depth = (len(name) - len(name.lstrip()) - 1) // 2
        tree.append((depth, int(own), int(cumulative), name.strip()))
    return tree


def import_ranking() -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """What the handler imports beyond a bare boto3 client, by `-X importtime`: the self
    time (µs) of the modules only the handler needs, summed by top-level package, and per
    module; slowest first. A module's self time includes whatever its body runs."""
    baseline = {name for _, _, _, name in _import_tree(BOTO3_CHILD)}
    extra = [(name, own) for _, own, _, name in _import_tree(APP_CHILD) if name not in baseline]
    packages: Counter[str] = Counter()
    for name, own in extra:
        packages[name.split(".")[0]] += own
    return packages.most_common(), sorted(extra, key=lambda entry: -entry[1])


def report_imports(times: ImportTimes, *, importtime: bool) -> float:
    """Print the cold import figures; the ratio of medians (app + services : boto3)."""
    runs = len(times.boto3_client)
    print(f"Cold import in a fresh interpreter, median (min) of {runs} (Python {times.python}):")
    rows = (
        ('import boto3; boto3.client("dynamodb")', times.boto3_client),
        ("import functions.api.app", times.app_import),
        ("import functions.api.app + services() (its client)", times.app_with_services),
        ("after a SnapStart restore: renew() + services()", times.after_restore),
    )
    for label, values in rows:
        print(f"  {label:<52} {statistics.median(values) * 1e3:7.1f} ms ({min(values) * 1e3:.1f})")
    baseline = statistics.median(times.boto3_client)
    module_only = statistics.median(times.app_import) / baseline
    print(
        f"  ratio handler module alone : bare boto3 client      {module_only:7.2f} "
        "(the module creates its client on the first request)"
    )
    ratio = statistics.median(times.app_with_services) / baseline
    best = min(times.app_with_services) / min(times.boto3_client)
    print(
        f"  ratio app + services : bare boto3 client             {ratio:7.2f} "
        f"(of mins {best:.2f})   target ≤ {TARGET_IMPORT_RATIO}: "
        f"{_verdict(ratio <= TARGET_IMPORT_RATIO)}"
    )
    restored = statistics.median(times.after_restore) / baseline
    print(
        f"  ratio after a SnapStart restore : bare boto3 client  {restored:7.2f} "
        "(the first request's own set-up once the snapshot holds the imports)"
    )
    if importtime or ratio > TARGET_IMPORT_RATIO:
        packages, modules = import_ranking()
        print(
            "  -X importtime, one run: self time of the modules a bare boto3 client does not "
            f"need, {sum(us for _, us in packages) / 1e3:.0f} ms in all"
        )
        print("    by package: " + ", ".join(f"{n} {us / 1e3:.0f} ms" for n, us in packages[:8]))
        print(
            "    slowest modules: " + ", ".join(f"{n} {us / 1e3:.0f} ms" for n, us in modules[:6])
        )
    return ratio


# --- main -----------------------------------------------------------------------------


@contextmanager
def bench_environment() -> Iterator[None]:
    """Fake credentials, a region and the table name, restored afterwards."""
    with mock.patch.dict(os.environ, ENVIRONMENT):
        for name in UNSET:
            os.environ.pop(name, None)
        with warnings.catch_warnings():
            # Powertools warns on every request that records no metric: all of these
            warnings.filterwarnings("ignore", "No application metrics to publish")
            yield


@dataclass
class Results:
    """Everything `run` measured."""

    runs: list[TableRun]
    imports: ImportTimes


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tables", type=int, default=20, help="tables per game and size")
    parser.add_argument("--game", choices=[*game_names(), "all"], default="maexchen")
    parser.add_argument(
        "--table-size",
        type=int,
        default=4,
        help=f"players per table (tables of {API_DEFAULT_TABLE_SIZE}, the API's default, "
        "are measured as well)",
    )
    parser.add_argument("--imports", type=int, default=7, help="cold import repetitions")
    parser.add_argument(
        "--imports-python",
        default=sys.executable,
        metavar="PYTHON",
        help="the interpreter of the cold-import children (default: this one), e.g. the "
        "Lambda runtime's version with the dependencies on its PYTHONPATH",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--importtime",
        action="store_true",
        help="rank the imports even when the import target is met",
    )
    return parser.parse_args(argv)


def run(options: argparse.Namespace) -> Results:
    """Measure and print; the figures come back for callers that check them."""
    games = game_names() if options.game == "all" else (options.game,)
    sizes = list(dict.fromkeys([options.table_size, API_DEFAULT_TABLE_SIZE]))
    print(
        f"Turn cost, {date.today().isoformat()}: Python {platform.python_version()}, "
        f"boto3 {installed_version('boto3')}, moto {installed_version('moto')}, "
        f"Powertools {installed_version('aws-lambda-powertools')}"
    )
    print(
        f"Round 1, advance 1, seeded random bots (seed {options.seed}), one warm function: "
        "every action finds the table's state cached (by the GET .../me or action before it)."
    )
    print("Figures per POST .../actions; capacity units computed from item sizes.")
    results = Results([], ImportTimes())
    with bench_environment():
        for game in games:
            print(f"{game}:")
            for size in sizes:
                played = play_round_one(game, options.tables, size, options.seed)
                results.runs.append(played)
                report_run(played)
        if options.imports > 0:
            results.imports = measure_imports(options.imports, options.imports_python)
            report_imports(results.imports, importtime=options.importtime)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark with the command line's options."""
    run(parse_args(argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
