"""The bracket rule of 2026-12-02 (docs/rules.md §5.5): rounds balanced by players.

The players a round sends on, in feeder order, are cut into ceil(P / table_size)
consecutive tables whose sizes differ by at most one, the larger first; round 1 of
tables of 2 is padded with byes to a power of two. Each named case is one of the
brackets issue 27 found unfair under the rule of 2026-12-01.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from core.bracket import Bracket, BracketPlan, Route, SeatTable, TableRef, seeded_order
from core.outcome import Outcome

PAIRS = [(ts, adv) for ts in range(2, 13) for adv in range(1, ts)]


def shape(plan: BracketPlan) -> list[list[tuple[int, int]]]:
    """Each round as (size, how many tables of that size), the larger first."""
    return [
        sorted(Counter(plan.table_sizes(r)).items(), reverse=True)
        for r in range(1, plan.rounds + 1)
    ]


def check_fair(plan: BracketPlan) -> None:
    """Every property §5 of 2026-12-02 promises of a plan."""
    table_size = plan.table_size
    assert sum(plan.table_sizes(1)) == plan.player_count
    assert plan.tables_in(plan.rounds) == 1  # finite, ending in one final
    assert (plan.rounds == 1) == (plan.player_count <= table_size)
    for round in range(1, plan.rounds + 1):
        sizes = plan.table_sizes(round)
        assert max(sizes) - min(sizes) <= 1  # within a round, sizes differ by at most one
        assert list(sizes) == sorted(sizes, reverse=True)  # the larger first
        assert max(sizes) <= table_size
        if table_size >= 3 or round > 1:
            assert plan.player_count == 1 or min(sizes) >= 2  # no bye but round 1 of 2s
        if round > 1:  # ceil(P / table_size) tables for the P players sent on
            before = range(plan.tables_in(round - 1))
            sent = sum(plan.survivors(TableRef(round - 1, f)) for f in before)
            assert sent == sum(sizes)
            assert len(sizes) == -(-sent // table_size)
    if table_size == 2 and plan.player_count > 1:
        tables = plan.tables_in(1)
        assert tables & (tables - 1) == 0  # a power of two: every later round is full
        assert 2 * tables >= plan.player_count > tables
    check_feeders(plan)


def check_feeders(plan: BracketPlan) -> None:
    """Each table's feeders are exactly the tables whose players it seats, and the
    players a round sends on fill the next round's tables in feeder order."""
    for round in range(1, plan.rounds):
        seated: dict[int, list[int]] = {}  # next-round table -> its feeders, by routes
        filled = [0] * plan.tables_in(round + 1)
        cursor = (0, 0)  # (table, seats filled) where the next player sent on goes
        for feeder in range(plan.tables_in(round)):
            ref = TableRef(round, feeder)
            routes = plan.routes(ref)
            assert routes
            assert sum(r.seats for r in routes) == plan.survivors(ref)
            first = 0
            for route in routes:
                assert route.first == first and route.seats >= 1
                first += route.seats
                target = route.table.index
                assert route.table.round == round + 1
                table_at, full = cursor
                if full == plan.seats_at(TableRef(round + 1, table_at)):
                    table_at, full = table_at + 1, 0
                assert target == table_at  # consecutive: the next seats in order
                seated.setdefault(target, []).append(feeder)
                filled[target] += route.seats
                cursor = (target, full + route.seats)
                assert route.slot == seated[target].index(feeder)
            assert plan.successor(ref) == routes[0].table
        assert filled == list(plan.table_sizes(round + 1))
        for index in range(plan.tables_in(round + 1)):
            feeders = plan.feeders(TableRef(round + 1, index))
            assert list(feeders) == seated[index]
            arrivals = plan.arrivals(TableRef(round + 1, index))
            assert sum(arrivals) == plan.seats_at(TableRef(round + 1, index))
            assert len(arrivals) == len(feeders)
    assert plan.routes(TableRef(plan.rounds, 0)) == ()
    assert plan.successor(TableRef(plan.rounds, 0)) is None


def play(plan: BracketPlan, seed: int) -> Bracket:
    """The whole tournament with random outcomes in a random order of recording."""
    rng = random.Random(seed)
    players = seeded_order([f"p{i}" for i in range(plan.player_count)], f"s{seed}")
    bracket = Bracket(plan, players)
    playing = [d for d in bracket.start() if isinstance(d, SeatTable)]
    while playing:
        table = playing.pop(rng.randrange(len(playing)))
        ranking = list(table.players)
        rng.shuffle(ranking)
        result = Outcome.from_ranking(
            tuple(ranking),
            dict.fromkeys(ranking, 0),
            "penalty_points",
            lower_measure_is_better=True,
        )
        playing.extend(d for d in bracket.record(table.table, result) if isinstance(d, SeatTable))
    assert bracket.is_finished
    assert len(bracket.standings) == plan.player_count
    return bracket


# --- the worked example and the cases of issue 27 ---------------------------------------


def test_worked_example_200_players_tables_of_6_two_go_on() -> None:
    plan = BracketPlan.build(200, 6, 2)
    assert shape(plan) == [[(6, 30), (5, 4)], [(6, 8), (5, 4)], [(6, 4)], [(4, 2)], [(4, 1)]]
    check_fair(plan)
    # R2-1 to R2-8 seat 6 players each, three tables' worth; R2-9 seats 5: R1-25, R1-26
    # and the winner of R1-27, whose second player opens R2-10
    assert list(plan.feeders(TableRef(2, 8))) == [24, 25, 26]
    assert list(plan.feeders(TableRef(2, 9))) == [26, 27, 28]
    assert plan.routes(TableRef(1, 26)) == (
        Route(TableRef(2, 8), slot=2, first=0, seats=1),
        Route(TableRef(2, 9), slot=0, first=1, seats=1),
    )
    assert plan.arrivals(TableRef(2, 8)) == (2, 2, 1)


@pytest.mark.parametrize(
    ("players", "table_size", "advance", "expected"),
    [
        (14, 6, 4, [[(5, 2), (4, 1)], [(6, 1), (5, 1)], [(4, 2)], [(6, 1)]]),
        (25, 6, 3, [[(5, 5)], [(5, 3)], [(5, 1), (4, 1)], [(6, 1)]]),
        (
            385,
            12,
            6,
            [
                [(12, 22), (11, 11)],
                [(12, 11), (11, 6)],
                [(12, 3), (11, 6)],
                [(11, 4), (10, 1)],
                [(10, 3)],
                [(9, 2)],
                [(12, 1)],
            ],
        ),
        (
            769,
            12,
            6,
            [
                [(12, 54), (11, 11)],
                [(12, 27), (11, 6)],
                [(12, 11), (11, 6)],
                [(12, 3), (11, 6)],
                [(11, 4), (10, 1)],
                [(10, 3)],
                [(9, 2)],
                [(12, 1)],
            ],
        ),
        (
            129,
            8,
            4,
            [
                [(8, 10), (7, 7)],
                [(8, 5), (7, 4)],
                [(8, 1), (7, 4)],
                [(7, 2), (6, 1)],
                [(6, 2)],
                [(8, 1)],
            ],
        ),
    ],
)
def test_no_full_table_beside_a_small_one_and_no_bye(
    players: int, table_size: int, advance: int, expected: list[list[tuple[int, int]]]
) -> None:
    plan = BracketPlan.build(players, table_size, advance)
    assert shape(plan) == expected
    check_fair(plan)
    play(plan, seed=players)


def test_advance_over_half_a_table_34_players_tables_of_11_ten_go_on() -> None:
    plan = BracketPlan.build(34, 11, 10)
    assert shape(plan) == [
        [(9, 2), (8, 2)],
        [(10, 3)],
        [(9, 3)],
        [(8, 3)],
        [(11, 1), (10, 1)],
        [(10, 1), (9, 1)],
        [(9, 1), (8, 1)],
        [(8, 1), (7, 1)],
        [(7, 1), (6, 1)],
        [(11, 1)],
    ]
    check_fair(plan)
    # round 1 sends 8, 8, 7 and 7 players to three tables of 10: R1-2 and R1-3 are split
    assert [len(plan.routes(TableRef(1, i))) for i in range(4)] == [1, 2, 2, 1]
    play(plan, seed=34)


@pytest.mark.parametrize(("players", "rounds"), [(257, 8), (515, 9)])
def test_tables_of_4_two_go_on_give_no_bye(players: int, rounds: int) -> None:
    plan = BracketPlan.build(players, 4, 2)
    assert plan.rounds == rounds
    assert plan.table_sizes(rounds) == (4,)  # the final is full
    check_fair(plan)
    play(plan, seed=players)


@pytest.mark.parametrize("players", [3, 5, 9, 17, 33, 1025, 4097])
def test_tables_of_2_with_2k_plus_1_players_one_bye_each_at_most(players: int) -> None:
    plan = BracketPlan.build(players, 2, 1)
    half = 1 << (players - 1).bit_length() - 1  # 2^m < players <= 2^(m+1)
    assert plan.table_sizes(1) == (2,) * (players - half) + (1,) * (2 * half - players)
    for round in range(2, plan.rounds + 1):
        assert set(plan.table_sizes(round)) == {2}
    check_fair(plan)
    bracket = play(plan, seed=players)
    assert bracket.champion is not None


def test_tables_of_2_with_a_power_of_two_have_no_bye() -> None:
    plan = BracketPlan.build(16, 2, 1)
    assert shape(plan) == [[(2, 8)], [(2, 4)], [(2, 2)], [(2, 1)]]
    check_fair(plan)


# --- properties ---------------------------------------------------------------------------

REPRESENTATIVE = sorted(
    {2, 3, 4, 5, 6, 7, 11, 12, 13, 17, 23, 25, 34, 47, 64, 65, 97, 127, 129, 200, 257}
    | {385, 511, 513, 769, 1000, 1023, 1025, 2049, 3001, 4097, 4999, 5000}
)


@pytest.mark.parametrize(("table_size", "advance"), PAIRS)
def test_every_setting_is_fair_for_representative_player_counts(
    table_size: int, advance: int
) -> None:
    counts = {*REPRESENTATIVE, table_size, table_size + 1, 2 * table_size + 1}
    for players in sorted(counts):
        check_fair(BracketPlan.build(players, table_size, advance))


@pytest.mark.parametrize(("table_size", "advance"), PAIRS)
def test_every_setting_plays_to_one_champion(table_size: int, advance: int) -> None:
    for players in (1, 2, table_size + 1, 97, 2 * table_size + 1):
        play(BracketPlan.build(players, table_size, advance), seed=players + table_size)


def test_tables_of_2_never_give_a_player_a_second_bye() -> None:
    for players in range(2, 300):
        plan = BracketPlan.build(players, 2, 1)
        byes = [r for r in range(1, plan.rounds + 1) if 1 in plan.table_sizes(r)]
        assert byes in ([], [1])
