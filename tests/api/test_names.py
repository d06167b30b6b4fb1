"""Display names: one per player in a tournament, checked at registration, and shown
next to the player's id in every table view, action answer, log and round listing."""

from __future__ import annotations

from typing import Any

import pytest
from apiclient import Stack
from test_flow import create_and_start, play_round_one

from core.names import MAX_LENGTH, name_key


def open_tournament(stack: Stack) -> str:
    """A tournament open for registration: its id."""
    created = stack.api.call("POST", "/tournaments", {"game": "maexchen"}).body
    tournament, organizer = created["tournament_id"], created["organizer_token"]
    stack.api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    return tournament


def register(stack: Stack, tournament: str, name: str) -> Any:
    return stack.api.call("POST", f"/tournaments/{tournament}/players", {"name": name})


@pytest.mark.parametrize(
    "again",
    ["Anna", "anna", "  ANNA  ", "\u00a0aNNa\u3000", "ＡＮＮＡ"],  # full-width: NFKC
    ids=["same", "lower", "upper-with-spaces", "odd-spaces", "full-width"],
)
def test_a_name_taken_is_409_naming_the_field(stack: Stack, again: str) -> None:
    tournament = open_tournament(stack)
    assert register(stack, tournament, "Anna").status == 201
    answer = register(stack, tournament, again)
    assert answer.status == 409, answer.body
    assert answer.body["code"] == "name_taken" and answer.body["field"] == "name"
    count = stack.api.call("GET", f"/tournaments/{tournament}").body["player_count"]
    assert count == 1, "the refused registration counted no one"


def test_names_differing_in_more_than_case_and_form_are_two(stack: Stack) -> None:
    tournament = open_tournament(stack)
    for name in ("Anna", "Änna", "Anna B", "Anna  Bee", "anna bee!"):
        assert register(stack, tournament, name).status == 201, name
    assert register(stack, tournament, "anna bee").status == 409  # "Anna  Bee"'s key
    other = open_tournament(stack)
    assert register(stack, other, "Anna").status == 201, "names are unique per tournament"


def test_a_name_is_stored_trimmed_and_composed(stack: Stack) -> None:
    tournament = open_tournament(stack)
    decomposed = "  Jo\u0308rg  "  # o + combining diaeresis
    answer = register(stack, tournament, decomposed)
    assert answer.status == 201
    me = stack.api.call(
        "GET", f"/tournaments/{tournament}/me", token=answer.body["player_token"]
    ).body
    assert me["name"] == "J\u00f6rg"  # NFC: one character
    assert register(stack, tournament, "JÖRG").status == 409


@pytest.mark.parametrize(
    "name",
    [
        "Anna\nBerta",
        "Anna\tB",
        "\x00Anna",
        "Anna\x7f",
        "An\u0085na",  # next line: a C1 control (trimmed at either end, as whitespace)
        "\u202eannA",  # right-to-left override
        "An\u200bna",  # zero-width space
        "An\u2028na",  # line separator
        "",
        "   ",
        "x" * (MAX_LENGTH + 1),
        " " + "ü" * (MAX_LENGTH + 1) + " ",
    ],
    ids=[
        "newline",
        "tab",
        "nul",
        "delete",
        "c1-control",
        "bidi-override",
        "zero-width-space",
        "line-separator",
        "empty",
        "blank",
        "too-long",
        "too-long-trimmed",
    ],
)
def test_bad_names_are_422_naming_the_field(stack: Stack, name: str) -> None:
    tournament = open_tournament(stack)
    answer = register(stack, tournament, name)
    assert answer.status == 422, answer.body
    assert answer.body["code"] == "invalid_field" and answer.body["field"] == "name"


@pytest.mark.parametrize(
    "name",
    ["  " + "ü" * MAX_LENGTH + "  ", "Zoë", "李小龙", "👨\u200d👩\u200d👧 family", "O'Brien-Smith"],
    ids=["longest", "diaeresis", "cjk", "emoji-joined", "punctuation"],
)
def test_good_names_register(stack: Stack, name: str) -> None:
    assert register(stack, open_tournament(stack), name).status == 201


def test_the_comparison_key_folds_case_and_compatibility_forms() -> None:
    assert name_key(" Straße ") == name_key("STRASSE") == "strasse"
    assert name_key("ﬁsh  and\u00a0chips") == "fish and chips"
    assert name_key("Änna") != name_key("Anna")


def _names(players: list[dict[str, Any]]) -> dict[str, str]:
    return {p["player_id"]: f"bot {n}" for n, p in enumerate(players)}


def _assert_seated(body: dict[str, Any], names: dict[str, str]) -> None:
    """The envelope names every seat, in seat order, as the view's seats do."""
    seats = [seat["player"] for seat in body["view"]["seats"]]
    assert body["players"] == [{"id": p, "name": names[p]} for p in seats]


def test_every_table_answer_names_its_players(stack: Stack) -> None:
    tournament, _, players = create_and_start(stack, table_size=4, advance=1)
    names = _names(players)
    first, token = players[0]["player_id"], players[0]["player_token"]
    table = stack.api.call("GET", f"/tournaments/{tournament}/me", token=token).body["table"]
    path = f"/tournaments/{tournament}/tables/{table}"
    spectator = stack.api.call("GET", path).body
    _assert_seated(spectator, names)
    _assert_seated(stack.api.call("GET", path + "/me", token=token).body, names)
    to_act = spectator["view"]["to_act"]
    actor = next(p for p in players if p["player_id"] == to_act)
    acted = stack.api.call(
        "POST",
        path + "/actions",
        {"version": spectator["view"]["version"], "action": {"kind": "throw"}},
        token=actor["player_token"],
    )
    assert acted.status == 200, acted.body
    _assert_seated(acted.body, names)
    log = stack.api.call("GET", path + "/log").body
    assert log["players"] == spectator["players"]
    assert first in [p["id"] for p in spectator["players"]]

    play_round_one(stack, tournament, players, seed=5)
    listing = stack.api.call("GET", f"/tournaments/{tournament}/rounds/1").body["tables"]
    for summary in listing:
        assert summary["names"] == [names[p] for p in summary["players"]]


def test_a_table_seated_before_names_were_stored_shows_the_ids(stack: Stack) -> None:
    tournament, _, _ = create_and_start(stack, table_size=4, advance=1)
    key = {"pk": {"S": f"T#{tournament}#TABLE#R1-1"}, "sk": {"S": "TABLE"}}
    stack.dynamodb.update_item(
        TableName="knobelcup",
        Key=key,
        UpdateExpression="REMOVE #n",
        ExpressionAttributeNames={"#n": "names"},
    )
    view = stack.api.call("GET", f"/tournaments/{tournament}/tables/R1-1").body
    assert [p["name"] for p in view["players"]] == [p["id"] for p in view["players"]]
    listing = stack.api.call("GET", f"/tournaments/{tournament}/rounds/1").body["tables"]
    assert listing[0]["names"] == listing[0]["players"]
    assert listing[1]["names"] != listing[1]["players"]
