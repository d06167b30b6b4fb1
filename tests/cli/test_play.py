"""The terminal player: what it shows of real views, how it asks for a choice, and a
scripted game against the local service.

The views for the text come from the core games' own `view`, as the API builds them.
"""

from __future__ import annotations

import io
import json
from typing import Any

from cli.api_client import ApiClient
from cli.play import Player
from cli.table_text import change_lines, choice_label, result_lines, seat_lines, situation_lines
from core.actions import Announce, Doubt, Stop, Throw
from core.registry import get_game

MAEXCHEN = get_game("maexchen")


def sent(view: dict[str, object]) -> dict[str, Any]:
    """A view as the client receives it."""
    received: dict[str, Any] = json.loads(json.dumps(view))
    return received


def test_a_maexchen_turn_shows_the_seats_the_announcement_and_the_own_dice() -> None:
    state, _ = MAEXCHEN.seat(["ann", "bob"])
    state, _ = MAEXCHEN.apply(state, "ann", Throw(), (3, 5))
    state, _ = MAEXCHEN.apply(state, "ann", Announce(62))
    before = sent(MAEXCHEN.view(state, "bob"))
    state, _ = MAEXCHEN.apply(state, "bob", Throw(), (4, 4))
    view = sent(MAEXCHEN.view(state, "bob"))
    assert seat_lines(view, "bob") == [
        "   ann: 0 penalty points",
        " > bob (you): 0 penalty points",
    ]
    assert situation_lines(view, "bob") == [
        "Round 1: the announcement is 62, by ann.",
        "Your dice under the cup: 44",
    ]
    labels = [choice_label(action, view, "bob") for action in view["legal_actions"]]
    assert labels[0] == "Announce 63" and "Announce 44 (your throw)" in labels
    assert labels[-1] == "Announce 21 - Maexchen!"
    assert [choice_label(a, before, "bob") for a in before["legal_actions"]] == [
        "Doubt ann's 62: lift the cup",
        "Believe the 62 and throw",
    ]


def test_what_others_did_is_told_between_two_looks() -> None:
    state, _ = MAEXCHEN.seat(["ann", "bob", "cid"])
    state, _ = MAEXCHEN.apply(state, "ann", Throw(), (1, 3))
    before = sent(MAEXCHEN.view(state, "cid"))
    state, _ = MAEXCHEN.apply(state, "ann", Announce(55))
    announced = sent(MAEXCHEN.view(state, "cid"))
    assert change_lines(before, announced, "cid") == ["ann announced 55.", "It is bob's turn."]
    state, _ = MAEXCHEN.apply(state, "bob", Doubt())
    doubted = sent(MAEXCHEN.view(state, "cid"))
    assert change_lines(announced, doubted, "cid") == [
        "ann got 1 penalty point (1 now).",
        "Round 2: ann starts.",
        "It is ann's turn.",
    ]


def test_a_42_turn_offers_to_stop_with_the_last_throw() -> None:
    game = get_game("zweiundvierzig")
    state, _ = game.seat(["ann", "bob"])
    state, _ = game.apply(state, "ann", Throw(), (2, 4))
    view = sent(game.view(state, "ann"))
    assert [choice_label(a, view, "ann") for a in view["legal_actions"]] == [
        "Throw again",
        "Stop with 42",
    ]
    assert "Your throws: 42" in situation_lines(view, "ann")
    state, _ = game.apply(state, "ann", Stop())
    after = sent(game.view(state, "bob"))
    assert change_lines(view, after, "bob")[0] == "ann finished: 42 after 1 throw."


def test_a_finished_table_says_the_place_and_whether_the_player_is_through() -> None:
    view = {"ranking": ["ann", "bob", "cid"], "survivors": 2}
    assert result_lines(view, "bob") == [
        "The table is over: 1. ann, 2. you, 3. cid.",
        "Your place at this table: 2 of 3, through to what comes next.",
    ]
    assert result_lines(view, "cid")[1] == "Your place at this table: 3 of 3, out."


def test_a_choice_is_asked_again_until_it_is_a_listed_number() -> None:
    answers = iter(["", "zwei", "0", "4", " 2 "])
    out = io.StringIO()
    player = Player(ApiClient(), "t-x", input_fn=lambda prompt: next(answers), out=out)
    assert player.choose(3) == 2
    assert out.getvalue().count("Please type a number from 1 to 3.") == 4
