"""The whole turn flow through the real handler: create, register, start, play round 1."""

from __future__ import annotations

import random
from typing import Any

import pytest
from apiclient import Stack
from leaks import leaks, throws_of

from core.audit import verify

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


def play_round_one(
    stack: Stack, tournament: str, players: list[dict[str, Any]], seed: int
) -> dict[str, str]:
    """Random bots play every seated table to its end through the API alone; player → table."""
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
            action = rng.choice(view["legal_actions"])
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
    [("maexchen", {"blind_reroll": True}), ("zweiundvierzig", {})],
    ids=["maexchen", "zweiundvierzig"],
)
def test_no_answer_shows_a_player_a_hidden_throw_of_another(
    stack: Stack, capsys: pytest.CaptureFixture[str], game: str, options: dict[str, Any]
) -> None:
    tournament, _, players = create_and_start(stack, game, table_size=4, advance=1, options=options)
    play_round_one(stack, tournament, players, seed=11)
    printed = capsys.readouterr().out  # log lines and metrics
    assert "ActionsAccepted" in printed
    assert '"dice"' not in printed and "your_throw" not in printed
    throws = {}
    for ref in ("R1-1", "R1-2", "R1-3"):
        log = stack.api.call("GET", f"/tournaments/{tournament}/tables/{ref}/log")
        throws[ref] = throws_of(log.body["records"])
    hidden = [t for table in throws.values() for t in table if t[3] != "public"]
    assert hidden, "the game must have hidden throws for this test to mean anything"
    scanned = [(viewer, answer) for viewer, answer in stack.api.answers if answer.status == 200]
    assert len(scanned) > 100
    found = [leak for viewer, answer in scanned for leak in leaks(viewer, answer.body, throws)]
    assert found == []


def test_the_scan_catches_a_planted_leak(stack: Stack) -> None:
    tournament, _, players = create_and_start(stack, table_size=4, advance=1)
    play_round_one(stack, tournament, players, seed=3)
    log = stack.api.call("GET", f"/tournaments/{tournament}/tables/R1-1/log")
    throws = {"R1-1": throws_of(log.body["records"])}
    version, thrower, dice, _ = next(t for t in throws["R1-1"] if t[3] == "thrower")
    other = next(r for r in log.body["records"][0]["events"][0]["seats"] if r != thrower)
    planted = {
        "table": "R1-1",
        "over": False,
        "view": {"version": version},
        "events": [
            {"type": "DiceThrown", "player": thrower, "dice": list(dice), "visibility": "thrower"}
        ],
    }
    assert leaks(other, planted, throws)
    assert leaks(thrower, planted, throws) == []
