"""The standings counted and placed a page at a time are `standings`' own, for any exits,
any page size and any segment size: ties on round, place, forfeit and measure included."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.bracket import Exit, Standing, standings
from core.bracket.paged_standings import Group, count_groups, group_starts, place_page


@st.composite
def exits_in_seed_order(draw: st.DrawFn) -> list[Exit]:
    """Exits of players p0, p1, … in seeding order, crowded onto few groups."""
    count = draw(st.integers(min_value=1, max_value=60))
    return [
        Exit(
            f"p{n}",
            draw(st.integers(min_value=1, max_value=3)),
            draw(st.integers(min_value=1, max_value=4)),
            draw(st.integers(min_value=-2, max_value=2)),
            draw(st.booleans()),  # forfeited: below those who played to the end (§5.9)
        )
        for n in range(count)
    ]


def paged(
    exits: list[Exit], count_page: int, place_page_size: int, rows: int
) -> tuple[list[Standing], dict[str, int]]:
    """The standings rows and the places, computed page by page as the finish job does."""
    counts = count_groups([])
    for start in range(0, len(exits), count_page):
        counts = count_groups(exits[start : start + count_page], counts)
    starts = group_starts(counts)
    seen: dict[Group, int] = {}
    table: list[Standing] = []
    places: dict[str, int] = {}
    for start in range(0, len(exits), place_page_size):
        page = exits[start : start + place_page_size]
        page_places, segments, seen = place_page(page, starts, seen, rows)
        places.update(zip((e.player for e in page), page_places, strict=True))
        assert all(1 <= len(s.players) <= rows for s in segments)
        table.extend(row for segment in segments for row in segment.rows())
    assert seen == dict(counts)
    return sorted(table), places


@settings(max_examples=300, deadline=None)
@given(
    exits=exits_in_seed_order(),
    count_page=st.integers(min_value=1, max_value=70),
    place_page_size=st.integers(min_value=1, max_value=70),
    rows=st.integers(min_value=1, max_value=5),
)
def test_paged_standings_are_the_standings(
    exits: list[Exit], count_page: int, place_page_size: int, rows: int
) -> None:
    expected = standings(exits, {e.player: n for n, e in enumerate(exits)})
    table, places = paged(exits, count_page, place_page_size, rows)
    assert table == list(expected)
    assert places == {row.player: row.place for row in expected}


def test_a_group_split_over_pages_keeps_seeding_order() -> None:
    # four players tie on round, place and measure; one reached a later round
    exits = [Exit("a", 1, 2, 0), Exit("b", 1, 2, 0), Exit("c", 2, 1, 0), Exit("d", 1, 2, 0)]
    table, places = paged(exits, 1, 1, 1)
    assert [row.player for row in table] == ["c", "a", "b", "d"]
    assert places == {"c": 1, "a": 2, "b": 3, "d": 4}
