"""A disqualified player's `Forfeit`: out at once in every game, as on the forfeiting
timeout of docs/rules.md §4.3, whatever `forfeit_after_timeouts` says; players cannot send it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from core.actions import Forfeit, Throw, Timeout, action_from_dict
from core.errors import IllegalAction, InvalidDice
from core.events import PlayerForfeited
from core.match import Move
from core.protocol import Game
from core.registry import get_game
from infra.store.table_item import decode_moves, encode_moves

GAMES = ("maexchen", "mariechen", "zweiundvierzig")


def game_dice(game: Game[Any], state: Any, rng: random.Random) -> tuple[int, ...]:
    """Dice for a timeout: as many as the game needs (varied, so that throw-offs end)."""
    return tuple(rng.randint(1, 6) for _ in range(game.dice_needed(state, Timeout())))


PLAYERS = ("ann", "bob", "cem", "dan")


@pytest.mark.parametrize("name", GAMES)
def test_forfeit_puts_the_player_to_act_out_at_once_and_last(name: str) -> None:
    game = get_game(name)
    state, _ = game.seat(PLAYERS, {"forfeit_after_timeouts": 0}, 1)
    first = game.to_act(state)
    assert first is not None
    assert game.dice_needed(state, Forfeit()) == 0
    state, events = game.apply(state, first, Forfeit(), ())
    assert PlayerForfeited(first) in events
    assert game.to_act(state) not in (None, first)
    # everyone else forfeits too: the table ends, the first forfeit ranked last
    while (player := game.to_act(state)) is not None:
        state, _ = game.apply(state, player, Forfeit(), ())
    assert game.is_over(state)
    assert game.outcome(state).ranking[-1] == first


@pytest.mark.parametrize("name", GAMES)
def test_the_outcome_tells_who_forfeited(name: str) -> None:
    # docs/rules.md §5.9: the standings put a forfeiter below those who played to the end
    game = get_game(name)
    state, _ = game.seat(PLAYERS, {"forfeit_after_timeouts": 0}, 3)
    first = game.to_act(state)
    assert first is not None
    state, _ = game.apply(state, first, Forfeit(), ())
    rng = random.Random(name)
    while (player := game.to_act(state)) is not None:  # the others play on, by timeouts
        state, _ = game.apply(state, player, Timeout(), game_dice(game, state, rng))
    placements = game.outcome(state).placements
    assert [p.player for p in placements if p.forfeited] == [first]


@pytest.mark.parametrize("name", GAMES)
def test_forfeit_takes_no_dice(name: str) -> None:
    game = get_game(name)
    state, _ = game.seat(PLAYERS, {}, 1)
    player = game.to_act(state)
    assert player is not None
    with pytest.raises(InvalidDice):
        game.apply(state, player, Forfeit(), (3,))


def test_maexchen_forfeit_mid_turn_after_a_throw() -> None:
    game = get_game("maexchen")
    state, _ = game.seat(("ann", "bob", "cem"), {}, 1)
    state, _ = game.apply(state, "ann", Throw(), (5, 3))
    state, events = game.apply(state, "ann", Forfeit(), ())
    assert PlayerForfeited("ann") in events
    assert game.to_act(state) == "bob"


def test_players_cannot_send_a_forfeit() -> None:
    with pytest.raises(IllegalAction, match="kind"):
        action_from_dict({"kind": "forfeit"})


def test_a_forfeit_is_stored_as_its_own_move_letter() -> None:
    moves = [Move(Throw(), (5, 3)), Move(Forfeit(), ())]
    assert encode_moves(moves) == "t53f"
    assert decode_moves("t53f") == moves
