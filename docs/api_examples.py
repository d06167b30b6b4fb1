"""The answers docs/api.md shows, from the current server: a Mäxchen table of three
played through the API's handler on in-process moto, each request and its answer
printed as the document shows them. Run it when a route's answer changes, and paste:

    .venv/bin/python docs/api_examples.py

`tests/api/test_api_examples.py` plays the same (`play`) and checks that every example
there has the keys these answers have.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import boto3
from moto import mock_aws

from functions.api.app import lambda_handler
from functions.wiring import use_services
from infra.bootstrap import build_jobs, build_services
from infra.dice import PlaceSeededDice
from infra.settings import Settings
from infra.tokens import seeded_ids
from local.fake_aws import fake_aws
from local.lambda_events import invoke_http
from local.provision import create_tables

NOW = 1_796_218_515  # the examples' clock: a turn's deadline is 900 s on
HOST = {"host": "127.0.0.1:3000"}


def main() -> None:
    """Play the examples' table and print every answer."""
    with fake_aws(KNOBELCUP_TABLE="knobelcup", POWERTOOLS_METRICS_DISABLED="true"), mock_aws():
        client = boto3.client("dynamodb")
        create_tables(client, names={"KnobelcupTable": "knobelcup"})
        settings = Settings.from_env()
        dice = PlaceSeededDice("docs")
        use_services(
            build_services(
                settings,
                client=client,
                dice=dice,
                clock=lambda: NOW,
                tournament_ids=seeded_ids("docs"),
            )
        )
        jobs = build_jobs(settings, client=client, clock=lambda: NOW, dice=dice)
        play(_call, jobs.run_to_end)
        use_services(None)


_SHOWN: set[tuple[str, str, str]] = set()


def _call(method: str, path: str, body: object = None, token: str | None = None) -> Any:
    """The answer to one request; printed the first time its route answers a stage."""
    target, _, query = path.partition("?")
    answer = invoke_http(
        lambda_handler, method, target, body, token=token, headers=HOST, query=query
    )
    stage = str(answer.body.get("view", {}).get("stage", "")) if answer.body else ""
    route = "/".join("…" if part[:2] in ("t-", "p-") else part for part in path.split("/"))
    if (method, route, stage) not in _SHOWN:
        _SHOWN.add((method, route, stage))
        print(f"\n$ {method} {path}  → {answer.status}\n{json.dumps(answer.body)}")
    return answer.body


Call = Callable[..., Any]  # (method, path, body=None, token=None) → the answer's body


def play(call: Call, start_job: Callable[[str], object]) -> None:
    """The examples' requests, each through `call`; `start_job` runs a tournament's
    start job to its end, as the job function would."""
    game = {"game": "maexchen", "name": "Stammtisch", "table_size": 3, "advance": 1}
    made = call("POST", "/tournaments", game)
    t, organizer = made["tournament_id"], made["organizer_token"]
    base = f"/tournaments/{t}"
    call("POST", f"{base}/registration/open", token=organizer)
    tokens = {}
    for name in ("Anna", "Bernd", "Carla"):
        joined = call("POST", f"{base}/players", {"name": name})
        tokens[joined["player_id"]] = joined["player_token"]
    anna = next(iter(tokens.values()))
    call("PUT", f"{base}/me/seed", {"seed": "anna-2024"}, token=anna)
    call("POST", f"{base}/start", {"seed": "seed"}, token=organizer)
    start_job(t)
    call("GET", f"{base}/me", token=anna)
    table = f"{base}/tables/R1-1"
    call("POST", f"{base}/me/socket-ticket", token=anna)
    for _ in range(200):
        shown = call("GET", table)
        if shown["over"]:
            break
        actor = shown["view"]["to_act"]
        mine = call("GET", f"{table}/me", token=tokens[actor])
        action = mine["view"]["legal_actions"][0]
        version = mine["view"]["version"]
        call("POST", f"{table}/actions", {"version": version, "action": action}, tokens[actor])
        if version == 2:
            call("GET", f"{table}/events", token=tokens[actor])
            call("GET", f"{table}/log")
    over = call("GET", f"{table}/events", token=anna)
    call("GET", f"{table}/events?after={over['version']}", token=anna)
    call("GET", f"{table}/log")
    call("GET", base)
    call("GET", f"{base}/me", token=anna)
    call("GET", f"{base}/rounds/1")


if __name__ == "__main__":
    main()
