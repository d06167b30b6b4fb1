"""Bracket rule 2 (`BALANCED_PLAYERS`, the rule of 2026-12-02): rounds balanced by players.

docs/rules.md §5.3, §5.5: the P players a round sends on are listed in feeder order (the
round's tables in order, each table's advancers in place order) and cut into
k = ceil(P / table_size) consecutive tables whose sizes differ by at most one, the larger
first. Round 1 is the seeded order cut the same way, except that with tables of 2 and
2^m < N <= 2^(m+1) it has 2^m tables: N - 2^m of 2 and 2^(m+1) - N byes.

So every round is a number of players P and of tables k, and its tables are `larger`
tables of `base + 1` followed by `k - larger` of `base` (divmod(P, k)). Every position in
a round's list of players, and every table's feeders and routes, follow by arithmetic
from those two numbers; the plan stores only them and the sizes.

A table of the next round may seat players of part of a feeder: a feeder's advancers are
cut where the table fills, so one feeder can send players to two (or, where `advance`
is large, more) tables. Why no bye and no lopsided round: with tables of 3 or more and
P > table_size, k >= 2 and P > (k - 1) * table_size, so every table seats at least 2;
with tables of 2 every round after the first is a power of two.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from core.bracket.plan import BALANCED_PLAYERS, BracketPlan, Route, TableRef, register_rule, sends


@dataclass(frozen=True, slots=True)
class BalancedPlan(BracketPlan):
    """A plan under rule 2. `players[r - 1]` is how many play round r."""

    rule: ClassVar[int] = BALANCED_PLAYERS
    players: tuple[int, ...]

    @classmethod
    def plan(cls, player_count: int, table_size: int, advance: int) -> BalancedPlan:
        """Compute every round (the numbers are checked by `BracketPlan.build`)."""
        if player_count == 1:
            return cls(1, table_size, advance, ((1,),), (1,))
        if table_size == 2:  # the largest power of two below the player count
            tables = 1 << (player_count - 1).bit_length() - 1
        else:
            tables = -(-player_count // table_size)
        players, sizes, counts = player_count, [], []
        while True:
            base, larger = divmod(players, tables)
            sizes.append((base + 1,) * larger + (base,) * (tables - larger))
            counts.append(players)
            if tables == 1:
                return cls(player_count, table_size, advance, tuple(sizes), tuple(counts))
            players = larger * sends(base + 1, advance) + (tables - larger) * sends(base, advance)
            tables = -(-players // table_size)

    # --- a round's list of players -----------------------------------------------------
    # round r's tables seat positions first_seat(r, j) .. first_seat(r, j + 1) - 1 of the
    # players entering round r; the advancers of its table f are positions
    # first_sent(r, f) .. first_sent(r, f + 1) - 1 of the players entering round r + 1.

    def _cut(self, round: int) -> tuple[int, int]:
        """(base, larger): round `round` has `larger` tables of base + 1, then of base."""
        return divmod(self.players[round - 1], len(self.sizes[round - 1]))

    def _first_seat(self, round: int, table: int) -> int:
        base, larger = self._cut(round)
        return table * base + min(table, larger)

    def _table_at(self, round: int, seat: int) -> int:
        base, larger = self._cut(round)
        split = larger * (base + 1)
        return seat // (base + 1) if seat < split else larger + (seat - split) // base

    def _sent(self, round: int) -> tuple[int, int, int]:
        """(sent by a larger table, by a smaller one, how many larger) in round `round`."""
        base, larger = self._cut(round)
        return sends(base + 1, self.advance), sends(base, self.advance), larger

    def _first_sent(self, round: int, table: int) -> int:
        more, fewer, larger = self._sent(round)
        return table * fewer + min(table, larger) * (more - fewer)

    def _sender_of(self, round: int, position: int) -> int:
        more, fewer, larger = self._sent(round)
        split = larger * more
        return position // more if position < split else larger + (position - split) // fewer

    # --- the plan's questions ------------------------------------------------------------

    def feeders(self, ref: TableRef) -> range:
        """The tables of the round before whose advancers sit here (none in round 1)."""
        self._size(ref)
        round, index = ref
        if round == 1:
            return range(0)
        first, end = self._first_seat(round, index), self._first_seat(round, index + 1)
        return range(self._sender_of(round - 1, first), self._sender_of(round - 1, end - 1) + 1)

    def routes(self, ref: TableRef) -> tuple[Route, ...]:
        """The table's advancers cut where the next round's tables fill; () for the final."""
        self._size(ref)
        round, index = ref
        if round == len(self.sizes):
            return ()
        first, end = self._first_sent(round, index), self._first_sent(round, index + 1)
        following = round + 1
        routes: list[Route] = []
        for table in range(
            self._table_at(following, first), self._table_at(following, end - 1) + 1
        ):
            seat = self._first_seat(following, table)
            low, high = max(first, seat), min(end, self._first_seat(following, table + 1))
            slot = index - self._sender_of(round, seat)
            routes.append(Route(TableRef(following, table), slot, low - first, high - low))
        return tuple(routes)

    def arrivals(self, ref: TableRef) -> tuple[int, ...]:
        """How many of each feeder's advancers sit here, in feeder order."""
        feeders = self.feeders(ref)
        if not feeders:
            return ()
        round, index = ref
        first, end = self._first_seat(round, index), self._first_seat(round, index + 1)
        counts = []
        for feeder in feeders:
            low = max(first, self._first_sent(round - 1, feeder))
            high = min(end, self._first_sent(round - 1, feeder + 1))
            counts.append(high - low)
        return tuple(counts)


def _build(player_count: int, table_size: int, advance: int) -> BracketPlan:
    return BalancedPlan.plan(player_count, table_size, advance)


register_rule(BALANCED_PLAYERS, _build)
