"""A 42 table's options, phases and state, and the queries the other modules share."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from core.events import PlayerId
from core.games.zweiundvierzig.ranking import TurnResult, table_ranking, top_places_known
from core.options import TableOptions, require_range

NAME = "zweiundvierzig"
COVERED_THROW = 5  # a player's fifth throw stays covered, even for them, until scored
CONCEDE_VALUE = 32  # the worst throw: on the last allowed throw the player may concede


@dataclass(frozen=True, slots=True)
class ZweiundvierzigOptions(TableOptions):
    """42's rule options: the pot of sticks (decision: 13) and the starter's throw limit."""

    sticks: int = 13
    max_throws: int = 5

    def validate(self) -> None:
        """Raise `InvalidOption` for a value out of its range."""
        TableOptions.validate(self)
        require_range(self, "sticks", 1, 99)
        require_range(self, "max_throws", 1, 5)


class Phase(StrEnum):
    """The part of the match being played."""

    HINRUNDE = "hinrunde"  # sticks from the pot to each round's worst
    PLAYOFF = "playoff"  # orders the players who left together after the Hinrunde
    RUECKRUNDE = "rueckrunde"  # each round's best passes a stick to its worst
    OVER = "over"


class ZweiundvierzigState(NamedTuple):
    """One 42 table. Seats are indices into `seats`; -1 means nobody.

    Places are fixed from the top by `group` (Hinrunde leavers, places 1..len(group),
    order open), `group_placed` (placed by the play-off, lowest place first) and `left`
    (Rückrunde leavers), and from the bottom by `bottom` (last place first). Everyone else
    is still at the table. A covered fifth throw sits in `results` until the round is
    scored; only `view` and `core.audit` decide who may see it.
    """

    options: ZweiundvierzigOptions
    seats: tuple[PlayerId, ...]
    survivors: int
    phase: Phase
    pot: int
    sticks: tuple[int, ...]  # held per seat; a forfeiter's go to `sticks_removed`
    sticks_removed: int  # sticks that left the game with forfeiters (decision)
    timeouts: tuple[int, ...]
    forfeited: tuple[int, ...]  # seats in the order they forfeited
    group: tuple[int, ...]  # seat order
    group_placed: tuple[int, ...]
    left: tuple[int, ...]
    bottom: tuple[int, ...]
    round: int
    starter: int
    order: tuple[int, ...]  # this round's players: the starter, then seat order
    results: tuple[TurnResult, ...]  # finished turns of this round, in playing order
    in_hand: tuple[int, ...]  # the values thrown so far by the player to act
    limit: int  # max_throws until the starter finishes, then the throws they used
    turn: int  # seat to act, -1 once over
    version: int


def unplaced(state: ZweiundvierzigState) -> tuple[int, ...]:
    """Seats whose place is still open, in seat order: the players still at the table."""
    placed = {*state.group, *state.group_placed, *state.left, *state.bottom}
    return tuple(seat for seat in range(len(state.seats)) if seat not in placed)


def top_known(state: ZweiundvierzigState) -> bool:
    """Whether the set of the top `survivors` places is fixed, so the match can stop."""
    above = len(state.group) + len(state.group_placed) + len(state.left)
    at_table = len(state.seats) - above - len(state.bottom)
    return top_places_known(state.survivors, len(state.group), above, at_table)


def players_ranked(state: ZweiundvierzigState) -> tuple[PlayerId, ...]:
    """The table's players best first, as far as the places are fixed (see `table_ranking`)."""
    seats = table_ranking(
        group=state.group,
        group_placed=state.group_placed,
        left=state.left,
        unplaced=unplaced(state),
        bottom=state.bottom,
        sticks=state.sticks,
    )
    return tuple(state.seats[seat] for seat in seats)


def bump(values: tuple[int, ...], seat: int, by: int) -> tuple[int, ...]:
    """`values` with the entry of `seat` raised by `by`."""
    return (*values[:seat], values[seat] + by, *values[seat + 1 :])
