"""The standings a page of players at a time, without sorting everyone at once.

`core.bracket.progression.standings` orders the exits by (round reached, descending;
place at the last table; played it to the end before forfeited; measure; seeding
position). Call (round, table place, measure, forfeited) a player's *group*. Two passes
give every place with bounded work per page:

1. count the players of each group (`count_groups`); each group's first place is then
   one more than the players of all groups before it (`group_starts`);
2. go through the players in seeding order (`place_page`): a player's place is their
   group's first place plus how many of their group came before them. A page's players
   of one group have consecutive places, so they form one `Segment` of the standings.

The counts and the running counts per group are all that passes from page to page.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from core.bracket.decisions import Standing
from core.bracket.plan import InvalidBracket
from core.bracket.progression import Exit

STANDINGS_RULE = "rules §5.9 standings"


class Group(NamedTuple):
    """Players who tie on everything but their seeding position."""

    round: int
    table_place: int
    measure: int
    forfeited: bool = False  # did not play their last table to its end


class Segment(NamedTuple):
    """Consecutive places from `first_place` on, all of one group, in seeding order."""

    first_place: int
    group: Group
    players: tuple[str, ...]

    def rows(self) -> list[Standing]:
        """The segment as standings rows."""
        g = self.group
        return [
            Standing(
                self.first_place + n, player, g.round, g.table_place, g.measure, "", g.forfeited
            )
            for n, player in enumerate(self.players)
        ]


def group_of(exit: Exit) -> Group:
    """The group of an exit."""
    return Group(exit.round, exit.table_place, exit.measure, exit.forfeited)


def in_standings_order(groups: Iterable[Group]) -> list[Group]:
    """`groups` best first: later round, then better table place, then those who played
    their table to its end, then lower measure."""
    return sorted(groups, key=lambda g: (-g.round, g.table_place, g.forfeited, g.measure))


def count_groups(exits: Iterable[Exit], counts: Counter[Group] | None = None) -> Counter[Group]:
    """`counts` (a fresh counter if None) plus the players of each group in `exits`."""
    counted = Counter(counts or {})
    counted.update(group_of(e) for e in exits)
    return counted


def group_starts(counts: Mapping[Group, int]) -> dict[Group, int]:
    """Each group's first place: prefix sums of the counts in standings order."""
    starts: dict[Group, int] = {}
    place = 1
    for group in in_standings_order(counts):
        starts[group] = place
        place += counts[group]
    return starts


def place_page(
    exits: Sequence[Exit],
    starts: Mapping[Group, int],
    seen: Mapping[Group, int],
    max_rows: int,
) -> tuple[list[int], list[Segment], dict[Group, int]]:
    """Places of `exits`, a page of players in seeding order, after `seen` players of
    each group in earlier pages: their places (in the order of `exits`), the page's
    segments (at most `max_rows` players each, by first place), and `seen` updated."""
    following = dict(seen)
    places: list[int] = []
    members: dict[Group, list[str]] = {}
    firsts: dict[Group, int] = {}
    for exit in exits:
        group = group_of(exit)
        if group not in starts:
            raise InvalidBracket(
                f"player {exit.player} exited in {group}, which was not counted",
                rule=STANDINGS_RULE,
            )
        before = following.get(group, 0)
        place = starts[group] + before
        places.append(place)
        firsts.setdefault(group, place)
        members.setdefault(group, []).append(exit.player)
        following[group] = before + 1
    segments = [
        Segment(firsts[group] + offset, group, tuple(players[offset : offset + max_rows]))
        for group, players in members.items()
        for offset in range(0, len(players), max_rows)
    ]
    segments.sort(key=lambda s: s.first_place)
    return places, segments, following
