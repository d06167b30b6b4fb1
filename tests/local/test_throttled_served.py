"""Throttling loses nothing, on the served stack as `make serve` runs it: with AWS
refusing a share of the stream readers' calls (the publisher's posts and socket-set
reads, the timers' CreateSchedule and DeleteSchedule, `local.throttles`), bot-kit bots
on WebSocket push play a small tournament to its champion, every turn taken by its
player and none timed out.

The second tournament refuses half of the `your_turn` posts besides: those the retries
cannot deliver close their connection, and the bots, reading their view after every
reconnect, still act on every turn in time.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from typing import Any

import pytest
from served import serve_in_session
from suite_dice import suite_seed

from cli.api_client import ApiClient
from cli.botkit import BotResult, run_bot
from cli.demo_bots import bot_names, random_legal_action
from cli.push_watch import connector
from local.operations import PATH
from local.throttles import ENVIRONMENT

PLAYERS = 8


def play(url: str, seed: str) -> tuple[dict[str, Any], list[BotResult]]:
    """Eight bots on push play a tournament of tables of four, two advancing."""
    api = ApiClient(url)
    created = api.ok("POST", "/tournaments", {"game": "maexchen", "table_size": 4, "advance": 2})
    tid, organizer = created["tournament_id"], created["organizer_token"]
    api.ok("POST", f"/tournaments/{tid}/registration/open", token=organizer)
    results: list[BotResult] = []
    registered = threading.Semaphore(0)

    def bot(name: str) -> None:
        results.append(
            run_bot(
                ApiClient(url),
                tid,
                name,
                random_legal_action,
                on_registered=lambda _: registered.release(),
                push=connector(url, tid),
            )
        )

    threads = [threading.Thread(target=bot, args=(n,), daemon=True) for n in bot_names(PLAYERS)]
    for thread in threads:
        thread.start()
    for _ in threads:
        assert registered.acquire(timeout=60)
    api.ok("POST", f"/tournaments/{tid}/start", {"seed": seed}, token=organizer)
    for thread in threads:
        thread.join(timeout=240)
        assert not thread.is_alive()
    return api.ok("GET", f"/tournaments/{tid}"), results


def timeouts(url: str, tournament: dict[str, Any]) -> list[str]:
    """Every timeout any table's audit log records: `table vN`."""
    api = ApiClient(url)
    tid = tournament["tournament_id"]
    found = []
    for round_ in tournament["rounds"]:
        tables = api.ok("GET", f"/tournaments/{tid}/rounds/{round_['round']}")["tables"]
        for table in tables:
            log = api.ok("GET", f"/tournaments/{tid}/tables/{table['table']}/log")
            assert log["over"] and log["records"]
            found += [
                f"{table['table']} v{record.get('version')}"
                for record in log["records"]
                if "TurnTimedOut" in json.dumps(record)
                or (record.get("action") or {}).get("kind") == "timeout"
            ]
    return found


def operations(url: str) -> dict[str, int]:
    with urllib.request.urlopen(url + PATH, timeout=30) as answer:
        calls: dict[str, int] = json.load(answer)["calls"]
    return calls


def assert_nothing_lost(url: str, final: dict[str, Any], results: list[BotResult]) -> None:
    assert final["status"] == "finished" and final["champion"]
    assert len(results) == PLAYERS
    assert [r.error for r in results if r.error is not None] == []
    assert sorted(r.place for r in results if r.place is not None) == list(range(1, PLAYERS + 1))
    assert timeouts(url, final) == [], "a bot acting on every turn was timed out"


@pytest.mark.parametrize(
    ("throttle", "recovers"),
    [
        ("0.1", False),  # one call in ten refused: the retries deliver everything
        ("0.1,post_to_connection:your_turn=0.5", True),  # and half the turns' posts
    ],
    ids=["ten-percent", "turns-refused"],
)
def test_a_tournament_loses_no_turn_while_aws_throttles(
    throttle: str, recovers: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = suite_seed(f"throttled-{throttle}")
    monkeypatch.setenv(ENVIRONMENT, f"{throttle}/{seed}")
    with serve_in_session("--memory", "--dice-seed", seed) as (_, url, _banner):
        final, results = play(url, seed)
        assert_nothing_lost(url, final, results)
        calls = operations(url)
    refused = {k: v for k, v in calls.items() if k.startswith("local:throttled:")}
    # the throttling reached every kind of call the stream readers make
    for operation in ("post_to_connection", "batch_get_item", "create_schedule"):
        assert refused.get(f"local:throttled:{operation}", 0) > 0, refused
    closed = calls.get("apigateway:DeleteConnection", 0)
    if recovers:  # turns the retries could not deliver were recovered, none lost
        assert closed > 0, calls
    else:
        assert closed <= 1, calls  # five refusals in a row at 10%: one post in 10^5
