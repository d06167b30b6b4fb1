"""Ill-typed input gets a typed error naming what is wrong, in every game, never a crash."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from core.actions import Announce, Throw, Timeout
from core.audit import AuditMismatch, verify
from core.errors import IllegalAction, InvalidDice, InvalidOption, InvalidSeating, KnobelcupError
from core.registry import game_names, get_game

GAMES = game_names()


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("action", ["throw", None, {}, 3])
def test_something_that_is_no_action_is_an_illegal_action(name: str, action: Any) -> None:
    game = get_game(name)
    state, _ = game.seat(["ann", "bob"])
    with pytest.raises(IllegalAction, match="has no action"):
        game.apply(state, "ann", action, (1, 2))


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("dice", [None, 5, {1: 1, 2: 2}, ([1], 2), "12", (1.0, 2)])
def test_dice_that_are_not_a_list_of_faces_are_invalid(name: str, dice: Any) -> None:
    game = get_game(name)
    state, _ = game.seat(["ann", "bob"])
    with pytest.raises(InvalidDice):
        game.apply(state, "ann", Throw(), dice)
    if dice is not None:  # None is taken as "no dice" by actions that need none
        with pytest.raises(InvalidDice):
            game.apply(state, "ann", Timeout(), dice)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize(
    ("seating", "error", "text"),
    [
        (("abc", 1, None), InvalidSeating, "list of player ids"),
        (([1, 2], 1, None), InvalidSeating, "non-empty string"),
        ((["ann", ""], 1, None), InvalidSeating, "non-empty string"),
        ((["ann", "bob"], True, None), InvalidSeating, "survivors must be an integer"),
        ((["ann", "bob", "cem"], 1.5, None), InvalidSeating, "survivors must be an integer"),
        ((["ann", "bob"], "1", None), InvalidSeating, "survivors must be an integer"),
        ((["ann", "bob"], 1, 5), InvalidOption, "options must map option names"),
        ((["ann", "bob"], 1, ["sticks"]), InvalidOption, "options must map option names"),
    ],
)
def test_bad_seatings_name_the_field(
    name: str, seating: tuple[Any, Any, Any], error: type[Exception], text: str
) -> None:
    players, survivors, options = seating
    with pytest.raises(error, match=text):
        get_game(name).seat(players, options, survivors)


@pytest.mark.parametrize("value", [[21], 31.0, "21", None, True])
def test_a_maexchen_announcement_must_be_a_whole_number(value: Any) -> None:
    game = get_game("maexchen")
    state, _ = game.seat(["ann", "bob"])
    state, _ = game.apply(state, "ann", Throw(), (1, 3))
    with pytest.raises(IllegalAction, match="whole number"):
        game.apply(state, "ann", Announce(value))


@pytest.mark.parametrize(
    "records",
    [[], [{}], [{"events": []}], [{"events": [{"type": "TableSeated"}]}], [{"events": "x"}]],
)
def test_a_malformed_audit_log_is_an_audit_mismatch(records: Any) -> None:
    with pytest.raises(AuditMismatch):
        verify(records)


@pytest.mark.parametrize("name", GAMES)
def test_every_bad_input_error_is_a_knobelcup_error(name: str) -> None:
    game = get_game(name)
    state, _ = game.seat(["ann", "bob"])
    attempts: list[Callable[[], object]] = [
        lambda: game.apply(state, "ann", object(), ()),  # type: ignore[arg-type]
        lambda: game.apply(state, "zed", Throw(), (1, 2)),
        lambda: game.apply(state, "ann", Throw(), (0, 7)),
        lambda: game.seat(["ann"]),
    ]
    for attempt in attempts:
        with pytest.raises(KnobelcupError):
            attempt()
