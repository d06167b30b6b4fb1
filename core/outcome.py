"""A finished table's result as a value: the full ranking and each player's measure."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from core.events import PlayerId


@dataclass(frozen=True, slots=True)
class Placement:
    """One player's place at a finished table (1 is best) and the game's own measure.

    `forfeited`: the player did not play the table to its end (out for
    `forfeit_after_timeouts`, or disqualified: docs/rules.md §4.3, §4.4); the tournament
    standings put them below everyone who did at the same round and place (§5.9).
    """

    player: PlayerId
    place: int
    measure: int
    forfeited: bool = False


@dataclass(frozen=True, slots=True)
class Outcome:
    """Every player of a finished table exactly once, best first.

    `measure_name` says what `Placement.measure` counts (penalty points, score, sticks);
    `lower_measure_is_better` says which way it sorts for tournament standings.
    """

    placements: tuple[Placement, ...]
    measure_name: str
    lower_measure_is_better: bool

    @property
    def ranking(self) -> tuple[PlayerId, ...]:
        """The players, best first."""
        return tuple(p.player for p in self.placements)

    def top(self, count: int) -> tuple[PlayerId, ...]:
        """The best `count` players, in place order."""
        return tuple(p.player for p in self.placements[:count])

    def standing_measure(self, placement: Placement) -> int:
        """The measure turned so that lower is always better (for sorting standings)."""
        return placement.measure if self.lower_measure_is_better else -placement.measure

    @classmethod
    def from_ranking(
        cls,
        ranking: tuple[PlayerId, ...],
        measures: dict[PlayerId, int],
        measure_name: str,
        *,
        lower_measure_is_better: bool,
        forfeited: Collection[PlayerId] = (),
    ) -> Outcome:
        """Build an outcome from players best first, their measures and who forfeited."""
        placements = tuple(
            Placement(player, place, measures[player], player in forfeited)
            for place, player in enumerate(ranking, start=1)
        )
        return cls(placements, measure_name, lower_measure_is_better)
