"""A table as stored: its seating plus the moves played, replayed into state and log.

The service keeps no engine state of its own: a table is the seating and the list of
moves (what was done, with which dice). Replaying them through the game's rules gives
the current state, any earlier version of it, and the audit log, with no second source
of truth that could disagree. A move does not name its player: it is always the player
whose turn it was, so a stored log cannot even express an action out of turn.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, NamedTuple

from core.actions import Action, Forfeit, Timeout
from core.audit import LogEntry
from core.errors import MatchOver
from core.events import PlayerId
from core.protocol import Game
from core.registry import get_game


class Move(NamedTuple):
    """One applied action and its dice, taken by whoever was to act."""

    action: Action
    dice: tuple[int, ...]


class Seating(NamedTuple):
    """How a table was seated: everything `Game.seat` needs to rebuild version 0."""

    game: str
    seats: tuple[PlayerId, ...]
    options: Mapping[str, object]
    survivors: int


def replay(seating: Seating, moves: Sequence[Move], upto: int | None = None) -> Any:
    """The table's state after the first `upto` moves (all of them when None)."""
    game = get_game(seating.game)
    state, _ = game.seat(seating.seats, seating.options, seating.survivors)
    for move in moves if upto is None else moves[:upto]:
        state, _ = game.apply(state, _actor(game, state), move.action, move.dice)
    return state


def actor(seating: Seating, moves: Sequence[Move], index: int) -> PlayerId:
    """Who took move number `index` (counting from 0)."""
    return _actor(get_game(seating.game), replay(seating, moves, index))


def forfeit_disqualified(
    game: Game[Any], state: Any, disqualified: Collection[PlayerId]
) -> tuple[Any, list[Move]]:
    """A forfeit for each disqualified player the turn reaches, while the match goes on:
    they are out the moment it is their turn (docs/rules.md §4.4). The state after, and
    the forfeits as moves (a forfeit throws no dice in any game)."""
    forfeits: list[Move] = []
    while (player := game.to_act(state)) is not None and player in disqualified:
        state, _ = game.apply(state, player, Forfeit(), ())
        forfeits.append(Move(Forfeit(), ()))
    return state, forfeits


def same_turn(game: Game[Any], before: Any, after: Any, action: Action) -> bool:
    """Whether `action`, taken in `before`, leaves its player's turn running in `after`:
    they are still to act, in the same round (for games with rounds), and it was no
    timeout, which always ends a turn. A Mäxchen throw and its announcement, or a
    Mariechen player's throws, are one turn (docs/rules.md §4.1 times turns out, not actions)."""
    if isinstance(action, (Timeout, Forfeit)):
        return False
    player = game.to_act(before)
    return (
        player is not None
        and game.to_act(after) == player
        and getattr(before, "round", None) == getattr(after, "round", None)
    )


class Turns(NamedTuple):
    """A table's turns, from its stored moves."""

    starts: list[int]  # per version 0..len(moves): the version its turn in play began at
    to_act: PlayerId | None  # whose turn it is after the last move (None once over)


def turns(seating: Seating, moves: Sequence[Move]) -> Turns:
    """Where each turn began, and who is to act now: one replay."""
    game = get_game(seating.game)
    state, _ = game.seat(seating.seats, seating.options, seating.survivors)
    starts = [0]
    for number, move in enumerate(moves, start=1):
        after, _ = game.apply(state, _actor(game, state), move.action, move.dice)
        starts.append(starts[-1] if same_turn(game, state, after, move.action) else number)
        state = after
    return Turns(starts, game.to_act(state))


def replay_log(seating: Seating, moves: Sequence[Move]) -> tuple[Any, list[LogEntry]]:
    """The final state and every step as a `LogEntry`, for the audit log."""
    game = get_game(seating.game)
    state, events = game.seat(seating.seats, seating.options, seating.survivors)
    log = [LogEntry(0, None, None, (), events)]
    for move in moves:
        player = _actor(game, state)
        state, events = game.apply(state, player, move.action, move.dice)
        log.append(LogEntry(state.version, player, move.action, move.dice, events))
    return state, log


def replay_step(seating: Seating, moves: Sequence[Move], upto: int) -> tuple[Any, tuple[Any, ...]]:
    """The state after `upto` moves and the events the last of them produced."""
    game = get_game(seating.game)
    if upto == 0:
        return game.seat(seating.seats, seating.options, seating.survivors)
    before = replay(seating, moves, upto - 1)
    move = moves[upto - 1]
    return game.apply(before, _actor(game, before), move.action, move.dice)


def _actor(game: Game[Any], state: Any) -> PlayerId:
    player = game.to_act(state)
    if player is None:
        raise MatchOver(
            "the stored moves go on after the table ended", rule="rules §6.6 match over"
        )
    return player
