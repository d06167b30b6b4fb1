"""The whole turn flow through the real handler: create, register, start, play round 1."""

from __future__ import annotations

import base64
import math
import random
from collections.abc import Callable
from typing import Any

import pytest
from apiclient import Stack
from conftest import NOW
from leaks import leaks, seed_leaks, throws_of

from core.audit import verify
from infra.store.table_item import table_key

PLAYERS = 12


def create_and_start(
    stack: Stack, game: str = "maexchen", **settings: Any
) -> tuple[str, str, list[dict[str, Any]]]:
    """A started tournament of `PLAYERS` players: (id, organizer token, registrations)."""
    api = stack.api
    created = api.call("POST", "/tournaments", {"game": game, "name": "Stammtisch", **settings})
    assert created.status == 201, created.body
    tournament, organizer = created.body["tournament_id"], created.body["organizer_token"]
    assert (
        api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer).status
        == 200
    )
    players = []
    for number in range(PLAYERS):
        answer = api.call("POST", f"/tournaments/{tournament}/players", {"name": f"bot {number}"})
        assert answer.status == 201, answer.body
        players.append(answer.body)
    started = api.call("POST", f"/tournaments/{tournament}/start", token=organizer)
    assert started.status == 202 and started.body["status"] == "starting", started.body
    assert api.call("GET", f"/tournaments/{tournament}").body["status"] == "running"
    return tournament, organizer, players


Feeds = dict[str | None, list[dict[str, Any]]]  # viewer → the feed records they got


def read_feed(stack: Stack, path: str, viewer: str | None, token: str | None, feeds: Feeds) -> None:
    """Ask the table's event feed for what `viewer` has not seen yet; keep the records."""
    seen = feeds.setdefault(viewer, [])
    after = seen[-1]["version"] if seen else -1
    answer = stack.api.call(
        "GET", path + "/events", query=f"after={after}", token=token, viewer=viewer
    )
    assert answer.status == 200, answer.body
    assert [r["version"] for r in answer.body["records"]] == list(
        range(after + 1, answer.body["version"] + 1)
    )
    seen.extend(answer.body["records"])


Choose = Callable[[random.Random, dict[str, Any]], dict[str, Any]]


def any_legal_action(rng: random.Random, view: dict[str, Any]) -> dict[str, Any]:
    """A random bot's choice."""
    return rng.choice(view["legal_actions"])


def throwing_on_in_the_first_round(rng: random.Random, view: dict[str, Any]) -> dict[str, Any]:
    """A random bot that, in a table's first round of 42, throws as long as it may: the
    round's starter uses all five throws, and the fifth is covered (rules §3.4)."""
    throw = [a for a in view["legal_actions"] if a["kind"] == "throw"]
    if view["game"] == "zweiundvierzig" and view["round"]["number"] == 1 and throw:
        return throw[0]
    return any_legal_action(rng, view)


def play_round_one(
    stack: Stack,
    tournament: str,
    players: list[dict[str, Any]],
    seed: int,
    *,
    feeds: dict[str, Feeds] | None = None,
    choose: Choose = any_legal_action,
) -> dict[str, str]:
    """Bots play every seated table to its end through the API alone, each action
    `choose`n (at random by default); player → table.

    With `feeds` (table → viewer → records), each player reads the table's event feed
    after each of their actions, and so does a spectator."""
    api = stack.api
    rng = random.Random(seed)
    tables = {}
    for player in players:
        me = api.call("GET", f"/tournaments/{tournament}/me", token=player["player_token"])
        assert me.status == 200 and me.body["player"] == player["player_id"]
        tables[player["player_id"]] = me.body["table"]
    playing = list(players)
    while playing:
        rng.shuffle(playing)
        for player in list(playing):
            pid, token = player["player_id"], player["player_token"]
            path = f"/tournaments/{tournament}/tables/{tables[pid]}"
            seen = api.call("GET", path + "/me", token=token, viewer=pid)
            assert seen.status == 200, seen.body
            if seen.body["over"]:
                playing.remove(player)
                continue
            view = seen.body["view"]
            if view["to_act"] != pid:
                continue
            action = choose(rng, view)
            acted = api.call(
                "POST",
                path + "/actions",
                {"version": view["version"], "action": action},
                token=token,
                viewer=pid,
            )
            assert acted.status == 200, acted.body
            assert acted.body["view"]["version"] == view["version"] + 1
            api.call("GET", path)  # a spectator looks on
            if feeds is not None:
                table_feeds = feeds.setdefault(tables[pid], {})
                read_feed(stack, path, pid, token, table_feeds)
                read_feed(stack, path, None, None, table_feeds)
    return tables


def test_bots_play_every_round_one_table_to_its_end_through_the_api(stack: Stack) -> None:
    tournament, _, players = create_and_start(stack, table_size=4, advance=1)
    tables = play_round_one(stack, tournament, players, seed=7)

    listing = stack.api.call("GET", f"/tournaments/{tournament}/rounds/1")
    assert listing.status == 200
    assert sorted(t["table"] for t in listing.body["tables"]) == ["R1-1", "R1-2", "R1-3"]
    seated = sorted(p for t in listing.body["tables"] for p in t["players"])
    assert seated == sorted(p["player_id"] for p in players)
    for table in listing.body["tables"]:
        assert table["over"] and len(table["ranking"]) == 4
        log = stack.api.call("GET", f"/tournaments/{tournament}/tables/{table['table']}/log")
        assert log.status == 200 and log.body["complete"]
        assert list(verify(log.body["records"]).ranking) == table["ranking"]
        assert len(log.body["records"]) == table["version"] + 1
    assert set(tables.values()) == {"R1-1", "R1-2", "R1-3"}


@pytest.mark.parametrize(
    ("game", "options"),
    [("maexchen", {"blind_reroll": True}), ("mariechen", {}), ("zweiundvierzig", {})],
    ids=["maexchen", "mariechen", "zweiundvierzig"],
)
def test_no_answer_shows_a_player_a_hidden_throw_of_another(
    stack: Stack, capsys: pytest.CaptureFixture[str], game: str, options: dict[str, Any]
) -> None:
    """Views, action answers and the event feed, for players and spectators alike."""
    tournament, _, players = create_and_start(stack, game, table_size=4, advance=1, options=options)
    feeds: dict[str, Feeds] = {}
    play_round_one(
        stack, tournament, players, seed=11, feeds=feeds, choose=throwing_on_in_the_first_round
    )
    printed = capsys.readouterr().out  # log lines and metrics
    assert "ActionsAccepted" in printed
    assert '"dice"' not in printed and "your_throw" not in printed
    throws = {}
    for ref in ("R1-1", "R1-2", "R1-3"):
        log = stack.api.call("GET", f"/tournaments/{tournament}/tables/{ref}/log")
        throws[ref] = throws_of(log.body["records"])
    hidden = [t for table in throws.values() for t in table if t[3] != "public"]
    assert bool(hidden) == (game != "mariechen"), "hidden throws are what this test is about"
    scanned = [(viewer, answer) for viewer, answer in stack.api.answers if answer.status == 200]
    assert len(scanned) > 100
    assert sum(1 for _, answer in scanned if "records" in answer.body and "to_act" in answer.body)
    found = [leak for viewer, answer in scanned for leak in leaks(viewer, answer.body, throws)]
    assert found == []
    server_seeds = {ref: _server_seed(stack, tournament, ref) for ref in throws}
    every = [answer.body for _, answer in stack.api.answers]
    assert [leak for body in every for leak in seed_leaks(body, server_seeds)] == []
    assert not seed_leaks(printed, server_seeds), "log lines and metrics"
    for ref, table_feeds in feeds.items():
        spectator = table_feeds[None]
        assert spectator[-1]["events"][-1]["type"] == "MatchFinished"
        for viewer, records in table_feeds.items():
            assert feed_shows_what_the_rules_show(viewer, records, throws[ref]) == []


def _server_seed(stack: Stack, tournament: str, ref: str) -> bytes:
    """The table's server seed as only the database holds it."""
    item = stack.dynamodb.get_item(
        TableName="knobelcup", Key=table_key(tournament, ref), ConsistentRead=True
    )["Item"]
    return base64.b64decode(item["server_seed"]["S"])


def feed_shows_what_the_rules_show(
    viewer: str | None, records: list[dict[str, Any]], throws: list[Any]
) -> list[str]:
    """Where a viewer's feed, read piece by piece during play, hides a throw they may see
    (public, or their own under the cup) or shows one they may not. Records read once the
    table is over carry `dice`: they reveal everything, as the log does."""
    wrong = []
    by_version: dict[int, list[Any]] = {}
    for version, player, faces, visibility in throws:
        by_version.setdefault(version, []).append((player, list(faces), visibility))
    for record in records:
        if "dice" in record:
            continue
        thrown = [e for e in record["events"] if e["type"] == "DiceThrown"]
        for event, (player, faces, visibility) in zip(
            thrown, by_version.get(record["version"], []), strict=True
        ):
            visible = visibility == "public" or (visibility == "thrower" and player == viewer)
            if event["dice"] != (faces if visible else None):
                wrong.append(f"{viewer} got {event} at version {record['version']}")
    return wrong


def test_every_read_of_a_table_in_play_tells_when_its_turn_times_out(stack: Stack) -> None:
    """The play page counts down from the server's deadline, not from a local guess."""
    api = stack.api
    tournament, _, players = create_and_start(stack, turn_timeout_seconds=30)
    player = players[0]
    token = player["player_token"]
    table = api.call("GET", f"/tournaments/{tournament}/me", token=token).body["table"]
    path = f"/tournaments/{tournament}/tables/{table}"
    reads = [
        api.call("GET", path + "/me", token=token).body,
        api.call("GET", path).body,
        api.call("GET", path + "/events", query="after=-1").body,
    ]
    deadlines = {read["deadline"] for read in reads}
    assert len(deadlines) == 1, deadlines
    [deadline] = deadlines
    assert deadline == math.ceil(NOW + 30)  # the stack's clock stands still
    to_act = reads[0]["view"]["to_act"]
    mover = next(p for p in players if p["player_id"] == to_act)
    acted = api.call(
        "POST",
        path + "/actions",
        {"version": reads[0]["view"]["version"], "action": {"kind": "throw"}},
        token=mover["player_token"],
    )
    assert acted.status == 200, acted.body
    assert acted.body["deadline"] is None  # an answer is replayed as first sent: no clock in it
    assert api.call("GET", path).body["deadline"] == deadline  # the same turn: throw, announce
