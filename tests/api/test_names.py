"""Display names: one per player in a tournament, checked at registration."""

from __future__ import annotations

from typing import Any

import pytest
from apiclient import Stack

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
