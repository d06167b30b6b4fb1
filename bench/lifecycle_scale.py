"""A whole tournament's lifecycle at scale, on moto: is any step too big for its function?

    .venv/bin/python bench/lifecycle_scale.py                    # 20,000 Mäxchen players
    .venv/bin/python bench/lifecycle_scale.py --players 100000   # (make bench-lifecycle)

Registration goes through the service layer (no HTTP); the organizer's requests (create,
open, start, reads) go through the API's Lambda handler. The round tables are played
here by the game engine with random legal actions and each finished table is saved
through the tables' store in one write, as its last turn would save it; everything else
runs for real on the local stack: the stream, the publisher, the timers, the job
function (start, finish), the progression and, once at the end, the deadline sweeper.

It prints, for every function, how many times it was invoked, its longest invocation
and that one's share of the function's Timeout in template.yaml (target: under a third),
the longest API request (target: under 1 s), and per kind of item the most writes one
item received (target: under 1,000). Figures for one run are in docs/performance.md. It
asserts nothing; it exits 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import random
import time
import warnings
from collections import defaultdict
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import replace
from typing import Any
from unittest import mock

from moto import mock_aws

from core.bracket import BracketPlan
from core.match import Move
from core.registry import get_game
from functions.api.app import lambda_handler
from infra.dice import PlaceSeededDice
from infra.store.table_item import TableRecord
from local import delivery
from local.lambda_events import HttpAnswer, invoke_http
from local.moto_atomic import moto_server, serve_faster
from local.operations import FUNCTIONS  # the local stack's name → template.yaml's
from local.provision import function_timeout
from local.stack import LocalStack, start_local_stack, stop_local_stack
from local.tournament import RandomBot
from local.write_counter import WriteCounter

ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_DEFAULT_REGION": "eu-central-1",
    "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_DISABLED": "true",
}
SHARE_OF_TIMEOUT = 1 / 3
API_LIMIT_SECONDS = 1.0
WRITES_PER_ITEM = 1_000


class Timings:
    """How long each invocation of each function took, by the local stack's name."""

    def __init__(self) -> None:
        self.by_function: dict[str, list[float]] = defaultdict(list)
        self.api: list[tuple[str, float]] = []

    def invoking(self, invoke: Callable[..., Any]) -> Callable[..., Any]:
        """`invoke` (the runner's way of calling a handler), timed."""

        def timed(handler: Any, event: Any, context: Any) -> Any:
            started = time.perf_counter()
            try:
                # Powertools prints a batch's metrics once it holds 100, even with
                # metrics disabled: they would bury the figures
                with contextlib.redirect_stdout(io.StringIO()):
                    return invoke(handler, event, context)
            finally:
                self.by_function[context.function_name].append(time.perf_counter() - started)

        return timed

    def request(self, method: str, path: str, body: object = None, **kw: Any) -> HttpAnswer:
        """One API request through the handler, timed; a non-2xx answer is an error."""
        started = time.perf_counter()
        answer = invoke_http(lambda_handler, method, path, body, **kw)
        self.api.append((f"{method} {path}", time.perf_counter() - started))
        if not 200 <= answer.status < 300:
            raise RuntimeError(f"{method} {path} answered {answer.status}: {answer.raw}")
        return answer


def timeouts() -> dict[str, float]:
    """Each function's Timeout (seconds) as template.yaml sets it."""
    return {logical: function_timeout(logical) for logical in FUNCTIONS.values()}


def play_seated_tables(stack: LocalStack, tournament: str, plan: BracketPlan, seed: str) -> int:
    """Play every table that is seated and still in play, each saved in one write; how
    many were played."""
    tables = stack.api.turns._tables  # the API's own store (counted writes)
    played = 0
    for round_number in range(1, plan.rounds + 1):
        refs = [f"R{round_number}-{index + 1}" for index in range(plan.tables_in(round_number))]
        for start in range(0, len(refs), 100):
            for table in tables.get_tables(tournament, refs[start : start + 100]):
                if table.over:
                    continue
                tables.save_table(_played(table, seed), loaded_version=table.version)
                played += 1
    return played


def _played(table: TableRecord, seed: str) -> TableRecord:
    """`table` played to its end by random bots, as its last turn would store it."""
    game = get_game(table.seating.game)
    state, _ = game.seat(table.seating.seats, table.seating.options, table.seating.survivors)
    bot, dice = RandomBot(f"{seed}/{table.ref}"), random.Random(f"{seed}/{table.ref}/dice")
    moves: list[Move] = []
    while (player := game.to_act(state)) is not None:
        action = bot.choose(game, state)
        rolled = tuple(dice.randint(1, 6) for _ in range(game.dice_needed(state, action)))
        state, _ = game.apply(state, player, action, rolled)
        moves.append(Move(action, rolled))
    return replace(table, moves=moves, ranking=game.outcome(state).ranking, deadline=0)


def main(argv: list[str] | None = None) -> int:
    """Run one tournament's lifecycle and print the figures; 1 if a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--game", default="maexchen")
    parser.add_argument("--table-size", type=int, default=6)
    parser.add_argument("--advance", type=int, default=2)
    parser.add_argument(
        "--moto",
        choices=("server", "in-process"),
        default="server",
        help="moto's server in a process of its own, as `make serve` runs it (default; "
        "a few ms a call), or moto in this process (about 10 ms a call)",
    )
    args = parser.parse_args(argv)
    logging.disable(logging.INFO)  # the functions log every event; the figures are wanted
    writes, timings = WriteCounter(), Timings()
    plan = BracketPlan.build(args.players, args.table_size, args.advance)
    with ExitStack() as moto:
        moto.enter_context(mock.patch.dict(os.environ, ENVIRONMENT))
        if args.moto == "server":
            os.environ["AWS_ENDPOINT_URL"] = moto.enter_context(moto_server())
        else:
            serve_faster()  # moto would copy the whole table before every registration
            moto.enter_context(mock_aws())
        moto.enter_context(warnings.catch_warnings())
        moto.enter_context(
            mock.patch.object(delivery, "_invoke", timings.invoking(delivery._invoke))
        )
        warnings.filterwarnings("ignore", "No application metrics to publish")
        stack = start_local_stack(
            "scale", dice=PlaceSeededDice("scale"), clock=time.time, writes=writes, observer=False
        )
        request = timings.request
        created = request(
            "POST",
            "/tournaments",
            {"game": args.game, "table_size": args.table_size, "advance": args.advance},
        ).body
        tournament, organizer = created["tournament_id"], created["organizer_token"]
        request("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
        began = time.perf_counter()
        for number in range(args.players):
            stack.api.tournaments.register(tournament, f"bot {number}")
        registering = time.perf_counter() - began
        print(f"{args.players:,} registrations in {registering:.1f} s", flush=True)

        began = time.perf_counter()
        request("POST", f"/tournaments/{tournament}/start", {"seed": "scale"}, token=organizer)
        tables = 0
        while request("GET", f"/tournaments/{tournament}").body["status"] != "finished":
            stack.delivery.settle()
            tables += play_seated_tables(stack, tournament, plan, "scale")
        stack.delivery.sweep_due(time.time() + 86_400)  # every table over: the index empties
        request("GET", f"/tournaments/{tournament}/standings", query="offset=0&limit=1000")
        print(
            f"start to champion: {time.perf_counter() - began:.0f} s, {tables:,} tables played",
            flush=True,
        )
        stop_local_stack()
    return _report(args, plan, timings, writes)


def _report(
    args: argparse.Namespace, plan: BracketPlan, timings: Timings, writes: WriteCounter
) -> int:
    missed = 0
    limits = timeouts()
    print(
        f"\n{args.game}, {args.players:,} players, tables of {args.table_size}, "
        f"{args.advance} go on: {plan.rounds} rounds, {plan.tables_in(1):,} tables in round 1"
    )
    print(f"{'function':<20} {'invocations':>11} {'longest':>9} {'Timeout':>8} {'share':>7}")
    for name, logical in FUNCTIONS.items():
        spent = timings.by_function.get(name, [])
        longest = max(spent, default=0.0)
        share = longest / limits[logical]
        missed += share >= SHARE_OF_TIMEOUT
        flag = "" if share < SHARE_OF_TIMEOUT else "  over a third"
        print(
            f"{logical:<20} {len(spent):>11,} {longest:>8.2f}s {limits[logical]:>7.0f}s "
            f"{share:>7.1%}{flag}"
        )
    route, longest_api = max(timings.api, key=lambda pair: pair[1])
    missed += longest_api >= API_LIMIT_SECONDS
    print(
        f"{'API requests':<20} {len(timings.api):>11,} {longest_api:>8.2f}s "
        f"(longest: {route}; target under {API_LIMIT_SECONDS:.0f} s)"
    )
    print(f"\n{'item kind':<20} {'items':>9} {'most writes to one item':>24}")
    for kind, (items, most) in sorted(writes.kinds().items()):
        missed += most >= WRITES_PER_ITEM
        print(f"{kind:<20} {items:>9,} {most:>24,}")
    print("all targets met" if not missed else f"{missed} targets missed")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
