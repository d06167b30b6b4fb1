"""The bracket's shape: every round's tables, their sizes and who feeds whom.

Rules: docs/rules.md §5 (elimination tables). The whole shape follows from three numbers
(players, `table_size`, `advance`) and the bracket rule the tournament was created under,
so it is computed once, up front, and stored as integer tuples: no per-player objects.

A tournament keeps the plan it started with (§5.11): each bracket rule is a subclass of
`BracketPlan`, kept as long as a tournament may use it, and `BracketPlan.build` takes the
rule's number. A tournament created before rules were numbered plays `FEEDER_GROUPS`.

- `FEEDER_GROUPS` (1, the rule of 2026-12-01, `core.bracket.plan_feeder_groups`):
  rounds balanced by the number of feeder tables.
- `BALANCED_PLAYERS` (2, the rule of 2026-12-02, `core.bracket.plan_balanced`): rounds
  balanced by players; a table's players may come from part of a feeder.

Decisions common to every rule:
- A table of s >= 2 players that is not the final sends on `min(advance, s - 1)`:
  every table eliminates someone, or a table of <= `advance` players would repeat forever.
- A table of one player is a bye: that player goes on without playing.
- A single player is champion without playing: one round holding one bye that is the end.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from core.errors import KnobelcupError

MIN_TABLE_SIZE = 2
MAX_TABLE_SIZE = 12
FEEDER_GROUPS = 1  # rules of 2026-12-01: balanced by feeder tables
BALANCED_PLAYERS = 2  # rules of 2026-12-02: balanced by players
CURRENT_RULE = BALANCED_PLAYERS  # what a new tournament is created under
LEGACY_RULE = FEEDER_GROUPS  # what a tournament stored without a rule plays
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


class Route(NamedTuple):
    """Where some of a table's advancers go: its advancers `first` to `first + seats - 1`
    (in place order, from 0) take `seats` seats at `table`, which lists this table at
    `slot` of its feeders (`BracketPlan.feeders`)."""

    table: TableRef
    slot: int
    first: int
    seats: int


def check_number(name: str, value: int, low: int, high: int | None) -> None:
    """`InvalidBracket` unless `value` is an int from `low` to `high` (None: no bound)."""
    if type(value) is not int:
        raise InvalidBracket(f"{name} must be an integer, got {value!r}", rule=_NUMBER_RULES[name])
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise InvalidBracket(f"{name} must be {bound}, got {value}", rule=_NUMBER_RULES[name])


def sends(size: int, advance: int) -> int:
    """How many players a table that is not the final sends on (a bye sends its one)."""
    return 1 if size == 1 else min(advance, size - 1)


_Builder = Callable[[int, int, int], "BracketPlan"]
_BUILDERS: dict[int, _Builder] = {}


def register_rule(rule: int, builder: _Builder) -> None:
    """Make `BracketPlan.build(..., rule=rule)` call `builder` (each rule's module does)."""
    _BUILDERS[rule] = builder


@dataclass(frozen=True, slots=True)
class BracketPlan:
    """The bracket for `player_count` players; build it with `BracketPlan.build`.

    `sizes[r - 1]` holds round r's table sizes. How the players a round sends on are
    cut into the next round's tables is the rule's: `feeders`, `routes` and `arrivals`.
    """

    rule: ClassVar[int]
    player_count: int
    table_size: int
    advance: int
    sizes: tuple[tuple[int, ...], ...]

    @classmethod
    def build(
        cls, player_count: int, table_size: int, advance: int, rule: int = CURRENT_RULE
    ) -> BracketPlan:
        """Compute every round's tables for these numbers under bracket rule `rule`."""
        check_number("player_count", player_count, 1, None)
        check_number("table_size", table_size, MIN_TABLE_SIZE, MAX_TABLE_SIZE)
        check_number("advance", advance, 1, table_size - 1)
        builder = _BUILDERS.get(rule) if type(rule) is int else None
        if builder is None:
            known = ", ".join(str(r) for r in sorted(_BUILDERS))
            raise InvalidBracket(
                f"bracket rule {rule!r} is unknown (known: {known})", rule="rules §5.11 plan"
            )
        return builder(player_count, table_size, advance)

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
        """Indices, in the round before, of the tables whose players sit at this one, in
        seat order (none in round 1)."""
        raise NotImplementedError

    def routes(self, ref: TableRef) -> tuple[Route, ...]:
        """Where the table's advancers go, in place order; () for the final."""
        raise NotImplementedError

    def arrivals(self, ref: TableRef) -> tuple[int, ...]:
        """How many players each of `feeders(ref)` sends to this table, in feeder order."""
        raise NotImplementedError

    def successor(self, ref: TableRef) -> TableRef | None:
        """The table the best of this one's advancers go on to; None for the final."""
        routes = self.routes(ref)
        return routes[0].table if routes else None

    def slot(self, ref: TableRef) -> int:
        """This table's position among the feeders of `successor(ref)`."""
        routes = self.routes(ref)
        if not routes:
            raise InvalidBracket(f"the final {ref} feeds no table", rule="rules §5.8 final")
        return routes[0].slot
