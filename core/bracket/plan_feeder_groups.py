"""Bracket rule 1 (`FEEDER_GROUPS`, the rule of 2026-12-01): rounds balanced by feeders.

Kept unchanged for the tournaments created under it (docs/rules.md §5.11): a tournament
keeps the plan it started with. New tournaments play `core.bracket.plan_balanced`.

- With F feeders and g = floor(table_size / advance), the next round has k = ceil(F / g)
  tables, fed by k groups of consecutive feeders whose sizes differ by at most one, the
  larger groups first (200 players, tables of 6, 2 go on: 34, 12, 4, 2 tables and a
  final of 4). Before any grouping, a round whose players all fit one table is the final.
  No table overflows, since g feeders send at most g * advance <= table_size players.
- Where `advance > table_size / 2` (so g = 1), a group takes further consecutive feeders
  while their players fit one table, greedily in order: one feeder per table would seat
  lone players forever, as a table of 2 sends 1 player.
- Round 1: ceil(N / table_size) tables whose sizes differ by at most one, the larger
  first (with tables of 2 and an odd N, one bye; byes can chain in later rounds).
- Every table sends all its advancers to one table of the next round.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate, pairwise
from typing import ClassVar

from core.bracket.plan import FEEDER_GROUPS, BracketPlan, Route, TableRef
from core.bracket.plan import register_rule as _register
from core.bracket.plan import sends as _sends_of


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


@dataclass(frozen=True, slots=True)
class FeederGroupPlan(BracketPlan):
    """A plan under rule 1. `starts[r - 1]` holds, for each table of round r, the index
    in round r - 1 of its first feeder (empty for round 1)."""

    rule: ClassVar[int] = FEEDER_GROUPS
    starts: tuple[tuple[int, ...], ...]

    @classmethod
    def plan(cls, player_count: int, table_size: int, advance: int) -> FeederGroupPlan:
        """Compute every round's tables (the numbers are checked by `BracketPlan.build`)."""
        tables = -(-player_count // table_size)
        base, larger = divmod(player_count, tables)
        sizes = [(base + 1,) * larger + (base,) * (tables - larger)]
        starts: list[tuple[int, ...]] = [()]
        per_table = table_size // advance  # >= 1 because advance < table_size
        sends_of = [0] + [_sends_of(size, advance) for size in range(1, table_size + 1)]
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

    def feeders(self, ref: TableRef) -> range:
        """Indices, in the round before, of the tables feeding this one (none in round 1)."""
        self._size(ref)
        round, index = ref
        if round == 1:
            return range(0)
        starts = self.starts[round - 1]
        end = starts[index + 1] if index + 1 < len(starts) else len(self.sizes[round - 2])
        return range(starts[index], end)

    def routes(self, ref: TableRef) -> tuple[Route, ...]:
        """All the table's advancers go to one table; () for the final."""
        self._size(ref)
        round, index = ref
        if round == len(self.sizes):
            return ()
        starts = self.starts[round]
        group = bisect_right(starts, index) - 1
        successor = TableRef(round + 1, group)
        return (Route(successor, index - starts[group], 0, self.survivors(ref)),)

    def arrivals(self, ref: TableRef) -> tuple[int, ...]:
        """Each feeder sends all its advancers."""
        return tuple(self.survivors(TableRef(ref[0] - 1, f)) for f in self.feeders(ref))


def _build(player_count: int, table_size: int, advance: int) -> BracketPlan:
    return FeederGroupPlan.plan(player_count, table_size, advance)


_register(FEEDER_GROUPS, _build)
