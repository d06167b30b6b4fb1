"""The bracket's shape: every round's tables, their sizes and who feeds whom.

Rules: docs/rules.md §5 (elimination tables). The whole shape follows from three numbers
(players, `table_size`, `advance`), so it is computed once, up front, and stored as a
tuple of table sizes and a tuple of feeder-group starts per round: no per-player objects.

Decisions beyond the rules' text:
- A table of s >= 2 players that is not the final sends on `min(advance, s - 1)`:
  every table eliminates someone, or a table of <= `advance` players would repeat forever.
- A table of one player is a bye: that player goes on without playing.
- Balanced rounds (the rule's decision of 2026-12-01): with F feeders and
  g = floor(table_size / advance), the next round has k = ceil(F / g) tables, fed by k
  groups of consecutive feeders whose sizes differ by at most one, the larger groups
  first (200 players, tables of 6, 2 go on: 34, 12, 4, 2 tables and a final of 4).
  Before any grouping, a round whose players all fit one table is the final.
  No table overflows, since g feeders send at most g * advance <= table_size players.
- Where `advance > table_size / 2` (so g = 1), a group takes further consecutive feeders
  while their players fit one table, greedily in order: one feeder per table would seat
  lone players forever, as a table of 2 sends 1 player.
- A single player is champion without playing: one round holding one bye that is the end.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate, pairwise
from typing import NamedTuple

from core.errors import KnobelcupError

MIN_TABLE_SIZE = 2
MAX_TABLE_SIZE = 12
_TABLE_NAME = re.compile(r"R([1-9][0-9]*)-([1-9][0-9]*)")
_NUMBER_RULES = {
    "player_count": "rules §5.1 players",
    "table_size": "rules §5.1 table_size",
    "advance": "rules §5.1 advance",
}


class InvalidBracket(KnobelcupError):
    """The bracket cannot be built or advanced as asked (bad size, unknown table, ...)."""

    code = "invalid_bracket"


class TableRef(NamedTuple):
    """One table of the bracket: its round (from 1) and its index in the round (from 0)."""

    round: int
    index: int  # type: ignore[assignment]  # the field shadows tuple.index on purpose

    def __str__(self) -> str:
        return f"R{self.round}-{self.index + 1}"

    @classmethod
    def parse(cls, name: str) -> TableRef:
        """The table named like "R2-5" (round 2, fifth table): the inverse of `str`."""
        match = _TABLE_NAME.fullmatch(name)
        if match is None:
            raise InvalidBracket(f"a table is named like 'R2-5', got {name!r}", rule="tables")
        return cls(int(match[1]), int(match[2]) - 1)


def _check_number(name: str, value: int, low: int, high: int | None) -> None:
    if type(value) is not int:
        raise InvalidBracket(f"{name} must be an integer, got {value!r}", rule=_NUMBER_RULES[name])
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise InvalidBracket(f"{name} must be {bound}, got {value}", rule=_NUMBER_RULES[name])


def _balanced_starts(feeders: int, per_table: int) -> tuple[int, ...]:
    """The first feeder of each of ceil(feeders / per_table) groups, larger groups first."""
    tables = -(-feeders // per_table)
    smaller, larger = divmod(feeders, tables)  # `larger` groups of smaller + 1 feeders
    split = larger * (smaller + 1)
    return (*range(0, split, smaller + 1), *range(split, feeders, smaller))


def _fitting_starts(entering: list[int], table_size: int) -> tuple[int, ...]:
    """The first feeder of each group when every group takes feeders while they fit.

    `entering[f]` counts the players sent by the feeders before feeder f. A feeder sends
    fewer than `table_size` players, so each group holds at least one feeder.
    """
    group_starts: list[int] = []
    first, feeders = 0, len(entering) - 1
    while first < feeders:
        group_starts.append(first)
        first = bisect_right(entering, entering[first] + table_size) - 1
    return tuple(group_starts)


def _sends(size: int, advance: int) -> int:
    """How many players a table that is not the final sends on (a bye sends its one)."""
    return 1 if size == 1 else min(advance, size - 1)


@dataclass(frozen=True, slots=True)
class BracketPlan:
    """The bracket for `player_count` players; build it with `BracketPlan.build`.

    `sizes[r - 1]` holds round r's table sizes; `starts[r - 1]` holds, for each table of
    round r, the index in round r - 1 of its first feeder (empty for round 1).
    """

    player_count: int
    table_size: int
    advance: int
    sizes: tuple[tuple[int, ...], ...]
    starts: tuple[tuple[int, ...], ...]

    @classmethod
    def build(cls, player_count: int, table_size: int, advance: int) -> BracketPlan:
        """Compute every round's tables for these numbers (docs/rules.md §5)."""
        _check_number("player_count", player_count, 1, None)
        _check_number("table_size", table_size, MIN_TABLE_SIZE, MAX_TABLE_SIZE)
        _check_number("advance", advance, 1, table_size - 1)
        tables = -(-player_count // table_size)
        base, larger = divmod(player_count, tables)
        sizes = [(base + 1,) * larger + (base,) * (tables - larger)]
        starts: list[tuple[int, ...]] = [()]
        per_table = table_size // advance  # >= 1 because advance < table_size
        sends_of = [0] + [_sends(size, advance) for size in range(1, table_size + 1)]
        while len(sizes[-1]) > 1:
            entering = list(accumulate((sends_of[s] for s in sizes[-1]), initial=0))
            feeders = len(entering) - 1
            if entering[-1] <= table_size:  # everyone left fits one table: the final
                sizes.append((entering[-1],))
                starts.append((0,))
                continue
            if per_table > 1:  # advance <= table_size / 2
                group_starts = _balanced_starts(feeders, per_table)
            else:
                group_starts = _fitting_starts(entering, table_size)
            bounds = pairwise((*group_starts, feeders))
            sizes.append(tuple(entering[end] - entering[start] for start, end in bounds))
            starts.append(group_starts)
        return cls(player_count, table_size, advance, tuple(sizes), tuple(starts))

    @property
    def rounds(self) -> int:
        """How many rounds the bracket has; the last one is the final."""
        return len(self.sizes)

    def tables_in(self, round: int) -> int:
        """How many tables round `round` has (byes included)."""
        if not 1 <= round <= len(self.sizes):
            raise InvalidBracket(
                f"rounds run from 1 to {len(self.sizes)}, got {round}", rule="tables"
            )
        return len(self.sizes[round - 1])

    def table_sizes(self, round: int) -> tuple[int, ...]:
        """The sizes of round `round`'s tables, in index order."""
        self.tables_in(round)
        return self.sizes[round - 1]

    def _size(self, ref: TableRef) -> int:
        """The table's size; `InvalidBracket` if the bracket has no such table."""
        try:
            round, index = ref
            if round > 0 and index >= 0:
                return self.sizes[round - 1][index]
        except (TypeError, ValueError, IndexError):
            pass
        raise InvalidBracket(f"the bracket has no table {ref!r}", rule="tables")

    def __contains__(self, ref: object) -> bool:
        try:
            self._size(ref)  # type: ignore[arg-type]
        except InvalidBracket:
            return False
        return True

    def check(self, ref: TableRef) -> TableRef:
        """`ref` itself if the bracket has that table, else `InvalidBracket`."""
        self._size(ref)
        return ref

    def seats_at(self, ref: TableRef) -> int:
        """How many players sit at the table (1 for a bye)."""
        return self._size(ref)

    def is_final(self, ref: TableRef) -> bool:
        """Whether the table is the final (the only table of the last round)."""
        self._size(ref)
        return ref[0] == len(self.sizes)

    def is_bye(self, ref: TableRef) -> bool:
        """Whether the table holds a single player, who goes on without playing."""
        return self._size(ref) == 1

    def survivors(self, ref: TableRef) -> int:
        """How many players the table sends on: 1 for the final and for a bye."""
        size = self._size(ref)
        if size == 1 or ref[0] == len(self.sizes):
            return 1
        return min(self.advance, size - 1)

    def feeders(self, ref: TableRef) -> range:
        """Indices, in the round before, of the tables feeding this one (none in round 1)."""
        self._size(ref)
        round, index = ref
        if round == 1:
            return range(0)
        starts = self.starts[round - 1]
        end = starts[index + 1] if index + 1 < len(starts) else len(self.sizes[round - 2])
        return range(starts[index], end)

    def successor(self, ref: TableRef) -> TableRef | None:
        """The table this one's survivors go on to; None for the final."""
        self._size(ref)
        round, index = ref
        if round == len(self.sizes):
            return None
        return TableRef(round + 1, bisect_right(self.starts[round], index) - 1)

    def slot(self, ref: TableRef) -> int:
        """This table's position in its successor's feeder list."""
        self._size(ref)
        round, index = ref
        if round == len(self.sizes):
            raise InvalidBracket(f"the final {ref} feeds no table", rule="rules §5.8 final")
        starts = self.starts[round]
        return index - starts[bisect_right(starts, index) - 1]
