"""What the bracket engine decides: tables to seat, byes, finished rounds, the standings.

Decisions are immutable NamedTuples, like the core's events; the shell turns them into
tables to play, notifications and stored items. Rules: docs/rules.md §5.
"""

from __future__ import annotations

from typing import NamedTuple

from core.bracket.plan import TableRef
from core.events import PlayerId


class SeatTable(NamedTuple):
    """Seat `players` (in this seat order) at `table`; it plays until `survivors` remain."""

    table: TableRef
    players: tuple[PlayerId, ...]
    survivors: int
    final: bool


class ByeGiven(NamedTuple):
    """`player` would sit alone at `table`, so goes on to the next round without playing."""

    table: TableRef
    player: PlayerId


class RoundCompleted(NamedTuple):
    """Every table of `round` has finished (byes count as finished)."""

    round: int


class Standing(NamedTuple):
    """A player's final place in the tournament.

    `round` is the last round the player reached, `table_place` their place at the table
    they left from, and `measure` the game's measure turned so that lower is better
    (`Outcome.standing_measure`: penalty points as they are, scores negated). `name` is
    the player's display name where the caller knows it ('' in the bracket engine);
    `forfeited`: they did not play their last table to its end (below those who did).
    """

    place: int
    player: PlayerId
    round: int
    table_place: int
    measure: int
    name: str = ""
    forfeited: bool = False


class TournamentFinished(NamedTuple):
    """The final is over; `standings[0].player` is the champion."""

    standings: tuple[Standing, ...]


Decision = SeatTable | ByeGiven | RoundCompleted | TournamentFinished
