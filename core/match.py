"""A table as stored: its seating plus the moves played, replayed into state and log.

The service keeps no engine state of its own: a table is the seating and the list of
moves (who acted, what, with which dice). Replaying them through the game's rules gives
the current state, any earlier version of it, and the audit log, with no second source
of truth that could disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from core.actions import Action
from core.audit import LogEntry
from core.events import PlayerId
from core.registry import get_game


class Move(NamedTuple):
    """One applied action: the acting seat (index into the seats), the action, its dice."""

    seat: int
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
    seats = seating.seats
    for move in moves if upto is None else moves[:upto]:
        state, _ = game.apply(state, seats[move.seat], move.action, move.dice)
    return state


def replay_log(seating: Seating, moves: Sequence[Move]) -> tuple[Any, list[LogEntry]]:
    """The final state and every step as a `LogEntry`, for the audit log."""
    game = get_game(seating.game)
    state, events = game.seat(seating.seats, seating.options, seating.survivors)
    log = [LogEntry(0, None, None, (), events)]
    for move in moves:
        player = seating.seats[move.seat]
        state, events = game.apply(state, player, move.action, move.dice)
        log.append(LogEntry(state.version, player, move.action, move.dice, events))
    return state, log


def replay_step(seating: Seating, moves: Sequence[Move], upto: int) -> tuple[Any, tuple[Any, ...]]:
    """The state after `upto` moves and the events the last of them produced."""
    if upto == 0:
        game = get_game(seating.game)
        return game.seat(seating.seats, seating.options, seating.survivors)
    before = replay(seating, moves, upto - 1)
    move = moves[upto - 1]
    return get_game(seating.game).apply(before, seating.seats[move.seat], move.action, move.dice)
