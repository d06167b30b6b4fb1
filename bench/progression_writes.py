"""Hot items: the most writes any one DynamoDB item receives in a whole tournament.

    .venv/bin/python bench/progression_writes.py                 # 1,000 Mäxchen players
    .venv/bin/python bench/progression_writes.py --players 300 --game zweiundvierzig

A tournament runs from registration to champion on the local stack over moto (the
template's table, bus, queues and schedule group; every handler real, deliveries played
as Lambda and Scheduler would), with bots acting through the HTTP API. Every function's
DynamoDB client counts its writes per item, failed conditional writes included (they
cost capacity too). The script prints, per kind of item, how many items there were and
the most writes one of them received, and the share of the round-1 tables that the
hottest progression item heard from. It asserts nothing.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
import warnings
from unittest import mock

from moto import mock_aws

from core.bracket import BracketPlan
from functions.api.app import lambda_handler
from infra.dice import PlaceSeededDice
from local.bots import BotTournament
from local.lambda_events import HttpAnswer, invoke_http
from local.stack import start_local_stack, stop_local_stack
from local.write_counter import WriteCounter

ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_DEFAULT_REGION": "eu-central-1",
    "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_DISABLED": "true",
}
# what the progression consumer and the finish job write besides the tables (the
# tournament item is written by every registration, and once by each step of a job)
PROGRESSION_KINDS = ("arrivals", "round node", "player", "standings", "places")


def http(method: str, path: str, body: object = None, **request: object) -> HttpAnswer:
    """A request to the API's Lambda handler."""
    return invoke_http(lambda_handler, method, path, body, **request)  # type: ignore[arg-type]


def main() -> None:
    """Run one tournament and print the write counts."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--game", default="maexchen")
    parser.add_argument("--table-size", type=int, default=6)
    parser.add_argument("--advance", type=int, default=2)
    args = parser.parse_args()
    logging.disable(logging.INFO)  # the functions log every event; the figures are wanted
    writes = WriteCounter()
    with mock.patch.dict(os.environ, ENVIRONMENT), mock_aws(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "No application metrics to publish")
        stack = start_local_stack(
            "bench", dice=PlaceSeededDice("bench"), clock=time.time, writes=writes
        )
        run = BotTournament(http, stack, "bench")
        run.create(args.game, table_size=args.table_size, advance=args.advance)
        run.register([f"bot {n}" for n in range(args.players)])
        started = time.perf_counter()
        run.start()
        final = run.run()
        elapsed = time.perf_counter() - started
        stop_local_stack()
    plan = BracketPlan.build(args.players, args.table_size, args.advance)
    tables = sum(plan.tables_in(r) for r in range(1, plan.rounds + 1))
    print(
        f"{args.game}, {args.players} players, tables of {args.table_size}, advance "
        f"{args.advance}: {plan.rounds} rounds, {tables} tables ({plan.tables_in(1)} in "
        f"round 1), {run.actions} actions by bots; champion {final['champion']}; "
        f"{elapsed:.0f} s on moto"
    )
    print(f"{'item kind':<12} {'items':>7} {'most writes to one item':>24}")
    for kind, (items, most) in sorted(writes.kinds().items()):
        print(f"{kind:<12} {items:>7} {most:>24}")
    (pk, sk), most = max(
        (writes.hottest(kind) for kind in PROGRESSION_KINDS), key=lambda pair: pair[1]
    )
    print(
        f"hottest progression item: {pk} / {sk}, {most} writes "
        f"(round 1 has {plan.tables_in(1)} tables)"
    )
    (pk, sk), most = writes.hottest("tournament")
    print(f"tournament item: {most} writes ({args.players} of them registrations)")
    (pk, sk), most = writes.hottest("table")
    print(f"hottest table item (one write per action at that table): {pk}, {most} writes")


if __name__ == "__main__":
    main()
