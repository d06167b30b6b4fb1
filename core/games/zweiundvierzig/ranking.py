"""How 42's throws rank, how a round's turns compare, and how a table ranks (docs/rules.md §3)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

# Values are written higher die first; `RANKING` orders them best to worst, 42 down to 32.
RANKING: tuple[int, ...] = (
    42, 22, 54, 31, 11, 53, 21, 65, 52, 66, 64, 51, 55, 63, 43, 44, 62, 41, 33, 61, 32,
)  # fmt: skip
RANK: dict[int, int] = {value: rank for rank, value in enumerate(RANKING)}  # 0 is best
NO_THROW = 0  # a turn that timed out before its first throw
# A missing throw is worse than any throw (docs/rules.md §4.2: none thrown is the worst result).
_BADNESS: dict[int, int] = {**RANK, NO_THROW: len(RANKING)}


class TurnResult(NamedTuple):
    """One finished turn of a round: the seat, its last throw (or NO_THROW), throws used."""

    seat: int
    value: int
    throws: int


def badness(
    result: TurnResult, position: int, sticks: Sequence[int] = ()
) -> tuple[int, int, int, int]:
    """Sort key of a turn at `position` in the round's playing order; higher is worse.

    docs/rules.md §3.5: the value by the ranking; on equal value more throws used is worse; on
    equal value and throws the later thrower is worse ("Mit ist Schitt"). Turns without a
    throw are worse than any throw (§4.2). Decision: among turns without a throw, the player
    holding more `sticks` is worse, then the later one. Without it two players who never
    act would pass a stick back and forth in the Rückrunde forever, each in turn the later
    one; with it the sticks gather on one of them and the match ends.
    """
    value = result.value
    held = sticks[result.seat] if value == NO_THROW and sticks else 0
    return (_BADNESS[value], result.throws, held, position)


def worst_and_best(results: Sequence[TurnResult], sticks: Sequence[int] = ()) -> tuple[int, int]:
    """Positions in `results` (playing order) of the round's worst and best turn."""
    worst = best = 0
    worst_key = best_key = badness(results[0], 0, sticks)
    for position in range(1, len(results)):
        key = badness(results[position], position, sticks)
        if key > worst_key:
            worst, worst_key = position, key
        elif key < best_key:
            best, best_key = position, key
    return worst, best


def best_position(results: Sequence[TurnResult], sticks: Sequence[int] = ()) -> int | None:
    """Position of the best turn in `results`, or None when nobody has finished."""
    if not results:
        return None
    return min(
        range(len(results)), key=lambda position: badness(results[position], position, sticks)
    )


def top_places_known(survivors: int, group: int, above: int, unplaced: int) -> bool:
    """Whether the set of players in places 1..survivors is fixed (decision on "known").

    `group` players left together after the Hinrunde and hold places 1..group in an order
    still open; `above` counts every place fixed from the top (group included); `unplaced`
    players are still at the table just below them. The set is known unless the cut after
    place `survivors` runs through the open group or through the players at the table.
    """
    if group > survivors:
        return False
    return not above < survivors < above + unplaced


def table_ranking(
    *,
    group: Sequence[int],
    group_placed: Sequence[int],
    left: Sequence[int],
    unplaced: Sequence[int],
    bottom: Sequence[int],
    sticks: Sequence[int],
) -> tuple[int, ...]:
    """Seats best first: earlier departures first, forfeits and the last holder at the end.

    Decisions: places inside a group the play-off has not ordered follow seat order;
    players still at the table when the match stops rank below every leaver, fewer
    sticks first, then seat order; `bottom` lists places fixed from the bottom, last first.
    """
    at_table = sorted(unplaced, key=lambda seat: (sticks[seat], seat))
    return (*sorted(group), *reversed(group_placed), *left, *at_table, *reversed(bottom))
