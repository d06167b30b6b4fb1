"""One test per rule and decision of docs/rules.md §5 (tournament format: elimination tables)."""

from __future__ import annotations

import ast
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from core.bracket import (
    FEEDER_GROUPS,
    Bracket,
    BracketPlan,
    ByeGiven,
    Decision,
    Exit,
    InvalidBracket,
    RoundCompleted,
    SeatTable,
    Standing,
    TableRef,
    TournamentFinished,
    advancing,
    exits,
    first_round,
    organizer_order,
    seat_next,
    seeded_order,
    standings,
)
from core.outcome import Outcome

PLAYERS = tuple(f"player-{i:02d}" for i in range(40))


def outcome(ranking: Sequence[str], measures: Sequence[int] | None = None) -> Outcome:
    """Penalty points as the measure: `measures[i]` belongs to `ranking[i]` (default place-1)."""
    points = list(measures) if measures is not None else list(range(len(ranking)))
    return Outcome.from_ranking(
        tuple(ranking),
        dict(zip(ranking, points, strict=True)),
        "penalty_points",
        lower_measure_is_better=True,
    )


def seat_tables(decisions: Sequence[Decision]) -> dict[TableRef, SeatTable]:
    return {d.table: d for d in decisions if isinstance(d, SeatTable)}


def play_in_seat_order(bracket: Bracket, decisions: list[Decision]) -> list[Decision]:
    """Record every seated table with its seat order as the ranking; return all decisions."""
    log = list(decisions)
    pending = [d for d in decisions if isinstance(d, SeatTable)]
    while pending:
        table = pending.pop(0)
        new = bracket.record(table.table, outcome(table.players))
        log.extend(new)
        pending.extend(d for d in new if isinstance(d, SeatTable))
    return log


# --- seeding -----------------------------------------------------------------------


def test_seeding_is_reproducible_from_the_seed_and_differs_for_another_seed() -> None:
    players = PLAYERS[:20]
    order = seeded_order(players, "knobelcup-2026")
    assert order == seeded_order(players, "knobelcup-2026")
    assert order == seeded_order(tuple(reversed(players)), "knobelcup-2026")  # audit: no
    # dependence on registration order; the documented formula reproduces it:
    by_formula = sorted(
        players, key=lambda p: hashlib.sha256(f"knobelcup-2026:{p}".encode()).digest()
    )
    assert order == tuple(by_formula)
    assert sorted(order) == sorted(players)
    assert order != seeded_order(players, "another-seed")
    assert order != players


def test_seeding_organizer_given_order_is_used_as_is() -> None:
    order = tuple(reversed(PLAYERS[:13]))
    assert organizer_order(list(order)) == order
    plan = BracketPlan.build(13, 6, 2)
    decisions = Bracket(plan, order).start()
    seated = [d.players for d in decisions if isinstance(d, SeatTable)]
    assert seated == [order[0:5], order[5:9], order[9:13]]


# --- round 1 -----------------------------------------------------------------------


def test_round_one_has_ceil_n_over_table_size_tables_differing_by_at_most_one() -> None:
    assert BracketPlan.build(13, 6, 2).table_sizes(1) == (5, 4, 4)
    assert BracketPlan.build(12, 6, 2).table_sizes(1) == (6, 6)
    assert BracketPlan.build(25, 6, 2).table_sizes(1) == (5, 5, 5, 5, 5)
    assert BracketPlan.build(31, 6, 2).table_sizes(1) == (6, 5, 5, 5, 5, 5)
    for n in range(1, 200):
        sizes = BracketPlan.build(n, 7, 3).table_sizes(1)
        assert len(sizes) == -(-n // 7)
        assert sum(sizes) == n
        assert max(sizes) - min(sizes) <= 1
        assert list(sizes) == sorted(sizes, reverse=True)  # the larger tables come first
    tables = first_round(BracketPlan.build(13, 6, 2), PLAYERS[:13])
    assert [t.players for t in tables if isinstance(t, SeatTable)] == [
        PLAYERS[0:5],
        PLAYERS[5:9],
        PLAYERS[9:13],
    ]


# --- advancing and feeding ---------------------------------------------------------


def test_each_finished_table_sends_its_top_advance_players_on() -> None:
    plan = BracketPlan.build(36, 6, 2)
    bracket = Bracket(plan, PLAYERS[:36])
    tables = seat_tables(bracket.start())
    assert all(t.survivors == 2 for t in tables.values())
    feeder_outcomes = {}
    for index in (0, 1, 2):
        table = tables[TableRef(1, index)]
        ranking = tuple(reversed(table.players))
        feeder_outcomes[index] = ranking
        decisions = bracket.record(table.table, outcome(ranking))
    assert advancing(plan, TableRef(1, 0), outcome(feeder_outcomes[0])) == feeder_outcomes[0][:2]
    (seated,) = decisions
    assert isinstance(seated, SeatTable)
    assert seated.table == TableRef(2, 0)
    assert seated.players == (
        feeder_outcomes[0][:2] + feeder_outcomes[1][:2] + feeder_outcomes[2][:2]
    )


def test_next_table_is_fed_by_floor_table_size_over_advance_consecutive_tables() -> None:
    # the bracket rule of 2026-12-01 (docs/rules.md §5.11), kept for running tournaments
    plan = BracketPlan.build(36, 6, 2, FEEDER_GROUPS)  # floor(6 / 2) = 3 feeders per table
    assert plan.tables_in(1) == 6
    assert plan.tables_in(2) == 2
    assert plan.feeders(TableRef(2, 0)) == range(0, 3)
    assert plan.feeders(TableRef(2, 1)) == range(3, 6)
    assert plan.feeders(TableRef(1, 0)) == range(0)
    assert [plan.successor(TableRef(1, i)) for i in range(6)] == [TableRef(2, 0)] * 3 + [
        TableRef(2, 1)
    ] * 3
    assert [plan.slot(TableRef(1, i)) for i in range(6)] == [0, 1, 2, 0, 1, 2]
    wide = BracketPlan.build(72, 6, 1, FEEDER_GROUPS)  # floor(6 / 1) = 6 feeders per table
    assert wide.tables_in(1) == 12
    assert [wide.feeders(TableRef(2, i)) for i in range(2)] == [range(0, 6), range(6, 12)]
    ragged = BracketPlan.build(
        48, 6, 2, FEEDER_GROUPS
    )  # 8 tables: groups of 3, 3 and a last group of 2
    assert [ragged.feeders(TableRef(2, i)) for i in range(3)] == [
        range(0, 3),
        range(3, 6),
        range(6, 8),
    ]
    assert ragged.table_sizes(2) == (6, 6, 4)


def test_balanced_rounds_example_200_players_tables_of_6_two_go_on() -> None:
    # the bracket rule of 2026-12-01 (docs/rules.md §5.11), kept for running tournaments
    # docs/rules.md §5.5 "Balanced rounds": g = floor(6 / 2) = 3 feeders per table at most.
    plan = BracketPlan.build(200, 6, 2, FEEDER_GROUPS)
    assert [plan.tables_in(r) for r in range(1, plan.rounds + 1)] == [34, 12, 4, 2, 1]
    # 34 feeders in ceil(34 / 3) = 12 groups: ten of 3, then two of 2 (larger first)
    assert plan.table_sizes(2) == (6,) * 10 + (4, 4)
    assert [plan.feeders(TableRef(2, i)).start for i in range(12)] == [
        0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 32,
    ]  # fmt: skip
    assert plan.feeders(TableRef(2, 11)) == range(32, 34)
    assert plan.table_sizes(3) == (6, 6, 6, 6)  # 12 feeders in 4 groups of 3
    assert plan.table_sizes(4) == (4, 4)  # 4 feeders in 2 groups of 2, not 3 and 1
    assert plan.feeders(TableRef(4, 1)) == range(2, 4)
    assert plan.table_sizes(5) == (4,)  # the final: 4 players, not 3
    assert plan.is_final(TableRef(5, 0))


def test_balanced_rounds_when_feeders_do_not_divide_by_g() -> None:
    # the bracket rule of 2026-12-01 (docs/rules.md §5.11), kept for running tournaments
    # 42 / 6 / 2: 7 feeders, g = 3, k = ceil(7 / 3) = 3 groups of 3, 2, 2 (not 3, 3, 1)
    plan = BracketPlan.build(42, 6, 2, FEEDER_GROUPS)
    assert plan.table_sizes(2) == (6, 4, 4)
    assert [plan.feeders(TableRef(2, i)) for i in range(3)] == [
        range(0, 3),
        range(3, 5),
        range(5, 7),
    ]
    assert [plan.successor(TableRef(1, i)) for i in range(7)] == [
        TableRef(2, 0), TableRef(2, 0), TableRef(2, 0),
        TableRef(2, 1), TableRef(2, 1), TableRef(2, 2), TableRef(2, 2),
    ]  # fmt: skip
    assert [plan.slot(TableRef(1, i)) for i in range(7)] == [0, 1, 2, 0, 1, 0, 1]
    assert plan.table_sizes(3) == (6,)  # 2 + 2 + 2 fit one table: the final
    assert plan.rounds == 3
    # 60 / 6 / 2: 10 feeders in 4 groups of 3, 3, 2, 2, then 4 in 2 groups of 2
    sixty = BracketPlan.build(60, 6, 2, FEEDER_GROUPS)
    assert [sixty.table_sizes(r) for r in range(2, sixty.rounds + 1)] == [
        (6, 6, 4, 4),
        (4, 4),
        (4,),
    ]
    assert not any(sixty.is_bye(TableRef(r, i)) for r in (2, 3) for i in range(sixty.tables_in(r)))
    # 132 / 12 / 3: g = 4, 11 feeders in 3 groups of 4, 4, 3
    wide = BracketPlan.build(132, 12, 3, FEEDER_GROUPS)
    assert wide.tables_in(1) == 11
    assert wide.table_sizes(2) == (12, 12, 9)
    assert [wide.feeders(TableRef(2, i)).start for i in range(3)] == [0, 4, 8]
    assert wide.table_sizes(3) == (9,)  # 3 + 3 + 3 fit one table


def test_balanced_rounds_where_advance_is_over_half_a_table() -> None:
    # the bracket rule of 2026-12-01 (docs/rules.md §5.11), kept for running tournaments
    # 24 / 6 / 4: g = floor(6 / 4) = 1, so every group starts with one feeder and then
    # takes further feeders while their players fit one table.
    plan = BracketPlan.build(24, 6, 4, FEEDER_GROUPS)
    assert plan.table_sizes(1) == (6, 6, 6, 6)
    assert plan.table_sizes(2) == (4, 4, 4, 4)  # 4 + 4 would not fit 6
    assert plan.table_sizes(3) == (6, 6)  # tables of 4 send 3: two feeders fit
    assert plan.feeders(TableRef(3, 1)) == range(2, 4)
    assert plan.table_sizes(4) == (4, 4)
    assert plan.table_sizes(5) == (6,)
    assert plan.is_final(TableRef(5, 0))
    # 40 / 5 / 3: tables of 5 send 3 (3 + 3 would not fit), tables of 3 send 2 (2 + 2
    # fits, 2 + 2 + 2 would not), tables of 4 send 3
    odd = BracketPlan.build(40, 5, 3, FEEDER_GROUPS)
    assert odd.table_sizes(2) == (3,) * 8
    assert odd.table_sizes(3) == (4, 4, 4, 4)
    assert odd.table_sizes(4) == (3, 3, 3, 3)
    assert odd.table_sizes(5) == (4, 4)
    assert odd.table_sizes(6) == (3, 3)
    assert odd.table_sizes(7) == (4,)
    # 12 / 3 / 2: four tables of 2 send 1 each; a group takes feeders while they fit, in
    # order, so 3 and then a lone player's bye (the clause is greedy, not balanced)
    greedy = BracketPlan.build(12, 3, 2, FEEDER_GROUPS)
    assert greedy.table_sizes(2) == (2, 2, 2, 2)
    assert greedy.table_sizes(3) == (3, 1)
    assert greedy.table_sizes(4) == (3,)


def test_decision_further_feeders_join_while_their_players_fit() -> None:
    # the bracket rule of 2026-12-01 (docs/rules.md §5.11), kept for running tournaments
    # table_size 3, advance 2: floor(3 / 2) = 1 feeder; tables of 2 send 1 each, and
    # the literal rule would seat each lone survivor alone forever.
    plan = BracketPlan.build(27, 3, 2, FEEDER_GROUPS)
    assert plan.table_sizes(1) == (3,) * 9
    assert plan.table_sizes(2) == (2,) * 9  # one feeder of 2 each: 2 + 2 would not fit
    assert plan.table_sizes(3) == (3, 3, 3)  # feeders sending 1 join while they fit
    assert plan.feeders(TableRef(3, 0)) == range(0, 3)
    assert plan.table_sizes(4) == (2, 2, 2)
    assert plan.table_sizes(5) == (3,)
    assert plan.rounds == 5
    assert plan.is_final(TableRef(5, 0))


def test_decision_every_table_eliminates_someone() -> None:
    plan = BracketPlan.build(7, 6, 4)  # round 1: tables of 4 and 3, advance 4
    assert plan.table_sizes(1) == (4, 3)
    assert plan.survivors(TableRef(1, 0)) == 3  # min(advance, size - 1)
    assert plan.survivors(TableRef(1, 1)) == 2
    assert plan.table_sizes(2) == (5,)


def test_a_table_starts_as_soon_as_its_feeders_finish() -> None:
    plan = BracketPlan.build(36, 6, 2)
    bracket = Bracket(plan, PLAYERS[:36])
    tables = seat_tables(bracket.start())
    assert bracket.record(TableRef(1, 5), outcome(tables[TableRef(1, 5)].players)) == []
    assert bracket.record(TableRef(1, 3), outcome(tables[TableRef(1, 3)].players)) == []
    decisions = bracket.record(TableRef(1, 4), outcome(tables[TableRef(1, 4)].players))
    (seated,) = decisions  # round 1 is not complete yet: no RoundCompleted
    assert isinstance(seated, SeatTable)
    assert seated.table == TableRef(2, 1)
    assert set(bracket.playing) == {TableRef(1, 0), TableRef(1, 1), TableRef(1, 2), TableRef(2, 1)}
    assert bracket.record(TableRef(1, 0), outcome(tables[TableRef(1, 0)].players)) == []
    assert bracket.record(TableRef(1, 1), outcome(tables[TableRef(1, 1)].players)) == []
    last = bracket.record(TableRef(1, 2), outcome(tables[TableRef(1, 2)].players))
    assert last[0] == RoundCompleted(1)
    assert isinstance(last[1], SeatTable)
    assert last[1].table == TableRef(2, 0)


# --- byes, final, standings ----------------------------------------------------------


def test_a_lone_player_gets_a_bye() -> None:
    plan = BracketPlan.build(3, 2, 1)  # round 1: a table of 2 and a lone player
    assert plan.table_sizes(1) == (2, 1)
    assert plan.is_bye(TableRef(1, 1))
    bracket = Bracket(plan, PLAYERS[:3])
    decisions = bracket.start()
    assert decisions == [
        SeatTable(TableRef(1, 0), PLAYERS[:2], 1, False),
        ByeGiven(TableRef(1, 1), PLAYERS[2]),
    ]
    final = bracket.record(TableRef(1, 0), outcome((PLAYERS[1], PLAYERS[0])))
    assert final == [
        RoundCompleted(1),
        SeatTable(TableRef(2, 0), (PLAYERS[1], PLAYERS[2]), 1, True),
    ]


def test_a_bye_is_carried_on_at_once_and_can_chain() -> None:
    # the bracket rule of 2026-12-01 (docs/rules.md §5.11), kept for running tournaments
    plan = BracketPlan.build(
        5, 2, 1, FEEDER_GROUPS
    )  # (2, 2, 1) -> (2, 1): R2-2 is fed by R1-3's bye alone
    assert plan.table_sizes(2) == (2, 1)
    assert plan.feeders(TableRef(2, 1)) == range(2, 3)
    bracket = Bracket(plan, PLAYERS[:5])
    decisions = bracket.start()
    assert decisions[2:] == [
        ByeGiven(TableRef(1, 2), PLAYERS[4]),
        ByeGiven(TableRef(2, 1), PLAYERS[4]),
    ]
    log = play_in_seat_order(bracket, decisions)
    final = [d for d in log if isinstance(d, SeatTable) and d.final]
    assert final == [SeatTable(TableRef(3, 0), (PLAYERS[0], PLAYERS[4]), 1, True)]
    assert [d.round for d in log if isinstance(d, RoundCompleted)] == [1, 2, 3]
    assert bracket.champion == PLAYERS[0]


def test_final_when_the_players_left_fit_one_table() -> None:
    plan = BracketPlan.build(12, 6, 2)  # 2 tables send 4 players: they fit one table
    assert plan.rounds == 2
    assert plan.table_sizes(2) == (4,)
    assert plan.is_final(TableRef(2, 0))
    assert not plan.is_final(TableRef(1, 0))
    assert plan.successor(TableRef(2, 0)) is None
    assert plan.feeders(TableRef(2, 0)) == range(0, 2)
    small = BracketPlan.build(6, 6, 2)  # everyone fits one table from the start
    assert small.rounds == 1
    assert first_round(small, PLAYERS[:6]) == (SeatTable(TableRef(1, 0), PLAYERS[:6], 1, True),)


def test_final_plays_to_one_survivor_and_fixes_the_top_places() -> None:
    plan = BracketPlan.build(12, 6, 2)
    bracket = Bracket(plan, PLAYERS[:12])
    log = play_in_seat_order(bracket, bracket.start())
    (final,) = [d for d in log if isinstance(d, SeatTable) and d.table == TableRef(2, 0)]
    assert final.final
    assert final.survivors == 1
    assert plan.survivors(TableRef(2, 0)) == 1
    finished = log[-1]
    assert isinstance(finished, TournamentFinished)
    assert [s.player for s in finished.standings[:4]] == list(final.players)
    assert bracket.champion == final.players[0] == finished.standings[0].player
    assert bracket.is_finished


def test_standings_order_by_round_then_place_then_measure_then_seed() -> None:
    plan = BracketPlan.build(12, 6, 2)
    order = PLAYERS[:12]
    bracket = Bracket(plan, order)
    bracket.start()
    a, b = order[:6], order[6:]
    # R1-1: a0 a1 advance; a2 3rd with 1 point, a3 4th with 2, a4 5th 3, a5 6th 3
    bracket.record(TableRef(1, 0), outcome(a, [0, 0, 1, 2, 3, 3]))
    # R1-2: b0 b1 advance; b2 3rd with 0 points (beats a2 on measure), b3 4th with 2
    # (ties a3 on everything but seeding: a3 was seeded earlier), b4 5th 4, b5 6th 5
    bracket.record(TableRef(1, 1), outcome(b, [0, 0, 0, 2, 4, 5]))
    final = (b[1], a[0], b[0], a[1])
    (finished,) = [
        d
        for d in bracket.record(TableRef(2, 0), outcome(final))
        if isinstance(d, TournamentFinished)
    ]
    assert [s.player for s in finished.standings] == [
        *final,  # round 2 reached, by place at the final
        b[2], a[2],  # place 3: fewer penalty points first
        a[3], b[3],  # place 4, equal measure: earlier seeding first
        a[4], b[4], a[5], b[5],
    ]  # fmt: skip
    assert finished.standings[0] == Standing(1, b[1], 2, 1, 0)
    assert finished.standings[4] == Standing(5, b[2], 1, 3, 0)
    assert [s.place for s in finished.standings] == list(range(1, 13))
    assert bracket.standings == finished.standings


def test_standings_measure_where_higher_is_better() -> None:
    scores = Outcome.from_ranking(
        ("x", "y", "z"), {"x": 9, "y": 7, "z": 7}, "score", lower_measure_is_better=False
    )
    plan = BracketPlan.build(3, 3, 1)
    ranked = standings(
        [*exits(plan, TableRef(1, 0), scores), Exit("w", 1, 3, -8)],
        {"x": 3, "y": 2, "z": 1, "w": 0},
    )
    assert [(s.player, s.measure) for s in ranked] == [("x", -9), ("y", -7), ("w", -8), ("z", -7)]


def test_single_player_is_champion_without_playing() -> None:
    plan = BracketPlan.build(1, 6, 2)
    ref = TableRef(1, 0)
    assert plan.rounds == 1
    assert plan.is_bye(ref)
    assert plan.is_final(ref)
    assert first_round(plan, ["solo"]) == ()
    bracket = Bracket(plan, ["solo"])
    assert bracket.champion is None
    assert bracket.start() == [TournamentFinished((Standing(1, "solo", 1, 1, 0),))]
    assert bracket.champion == "solo"
    assert bracket.is_finished


def test_round_completed_once_per_round_in_order() -> None:
    plan = BracketPlan.build(40, 4, 1)
    bracket = Bracket(plan, PLAYERS)
    log = play_in_seat_order(bracket, bracket.start())
    assert [d.round for d in log if isinstance(d, RoundCompleted)] == list(
        range(1, plan.rounds + 1)
    )
    assert isinstance(log[-1], TournamentFinished)
    assert log[-2] == RoundCompleted(plan.rounds)


def test_table_names() -> None:
    assert str(TableRef(2, 4)) == "R2-5"
    assert TableRef.parse("R2-5") == TableRef(2, 4)
    assert TableRef.parse(str(TableRef(12, 99))) == TableRef(12, 99)
    for bad in ("R0-1", "R1-0", "2-5", "R2_5", "R2-", "r2-5", "R2-5 "):
        with pytest.raises(InvalidBracket):
            TableRef.parse(bad)


# --- errors --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "table_size", "advance", "field"),
    [
        (10, 1, 1, "table_size"),
        (10, 13, 2, "table_size"),
        (10, 6, 0, "advance"),
        (10, 6, 6, "advance"),
        (10, 2, 2, "advance"),
        (0, 6, 2, "player_count"),
        (-3, 6, 2, "player_count"),
        (10.0, 6, 2, "player_count"),
    ],
)
def test_error_bad_plan_numbers(players: int, table_size: int, advance: int, field: str) -> None:
    with pytest.raises(InvalidBracket) as error:
        BracketPlan.build(players, table_size, advance)
    assert field in str(error.value)
    topic = "players" if field == "player_count" else field
    assert error.value.rule == f"rules §5.1 {topic}"
    assert error.value.code == "invalid_bracket"


def test_error_duplicate_players() -> None:
    twice = ["ann", "bob", "ann"]
    with pytest.raises(InvalidBracket, match="ann"):
        seeded_order(twice, "seed")
    with pytest.raises(InvalidBracket, match="ann"):
        organizer_order(twice)
    with pytest.raises(InvalidBracket, match="ann"):
        Bracket(BracketPlan.build(3, 6, 2), twice)


def test_error_player_count_not_the_planned_one() -> None:
    with pytest.raises(InvalidBracket, match="planned for 4"):
        Bracket(BracketPlan.build(4, 6, 2), PLAYERS[:5])


def test_error_unknown_table() -> None:
    plan = BracketPlan.build(36, 6, 2)
    bracket = Bracket(plan, PLAYERS[:36])
    bracket.start()
    for ref in (TableRef(1, 6), TableRef(4, 0), TableRef(0, 0), TableRef(1, -1)):
        assert ref not in plan
        with pytest.raises(InvalidBracket, match="no table"):
            plan.seats_at(ref)
        with pytest.raises(InvalidBracket, match="no table"):
            bracket.record(ref, outcome(PLAYERS[:6]))


def test_error_table_not_seated_or_recorded_twice() -> None:
    plan = BracketPlan.build(36, 6, 2)
    bracket = Bracket(plan, PLAYERS[:36])
    with pytest.raises(InvalidBracket, match="not been seated"):
        bracket.record(TableRef(1, 0), outcome(PLAYERS[:6]))
    bracket.start()
    with pytest.raises(InvalidBracket, match="already"):
        bracket.start()
    with pytest.raises(InvalidBracket, match="not been seated"):
        bracket.record(TableRef(2, 0), outcome(PLAYERS[:6]))
    bracket.record(TableRef(1, 0), outcome(PLAYERS[:6]))
    with pytest.raises(InvalidBracket, match="recorded already"):
        bracket.record(TableRef(1, 0), outcome(PLAYERS[:6]))


def test_error_outcome_with_wrong_players_changes_nothing() -> None:
    plan = BracketPlan.build(12, 6, 2)
    bracket = Bracket(plan, PLAYERS[:12])
    bracket.start()
    for wrong in (PLAYERS[1:7], PLAYERS[:5], (*PLAYERS[:5], PLAYERS[0]), PLAYERS[:7]):
        with pytest.raises(InvalidBracket, match="R1-1"):
            bracket.record(TableRef(1, 0), outcome(wrong))
    assert bracket.record(TableRef(1, 0), outcome(PLAYERS[:6])) == []  # still open
    with pytest.raises(InvalidBracket):
        advancing(plan, TableRef(1, 1), outcome(PLAYERS[:5]))


def test_error_arrivals_that_do_not_match_the_feeders() -> None:
    plan = BracketPlan.build(36, 6, 2)
    with pytest.raises(InvalidBracket, match="fed by 3"):
        seat_next(plan, TableRef(2, 0), [("a", "b"), ("c", "d")])
    with pytest.raises(InvalidBracket, match="sends 2"):
        seat_next(plan, TableRef(2, 0), [("a", "b"), ("c",), ("e", "f")])
    with pytest.raises(InvalidBracket, match="twice"):
        seat_next(plan, TableRef(2, 0), [("a", "b"), ("c", "d"), ("a", "f")])
    with pytest.raises(InvalidBracket, match="round 1"):
        seat_next(plan, TableRef(1, 0), [])
    with pytest.raises(InvalidBracket, match="feeds no table"):
        plan.slot(TableRef(plan.rounds, 0))
    assert seat_next(plan, TableRef(2, 0), [("a", "b"), ("c", "d"), ("e", "f")]) == SeatTable(
        TableRef(2, 0), ("a", "b", "c", "d", "e", "f"), 2, False
    )


def test_bracket_package_imports_only_the_standard_library_and_core() -> None:
    package = Path(__file__).resolve().parents[2] / "core" / "bracket"
    for source in package.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                top = name.split(".")[0]
                assert top == "core" or top in sys.stdlib_module_names, (source.name, name)


def test_standings_put_forfeiters_below_those_who_played_their_table_to_the_end() -> None:
    # docs/rules.md §5.9 (decision 2026-12-02): round, then table place, then played to
    # the end before forfeited, then the measure (a 42 forfeiter holds 0 sticks, the best)
    out = [
        Exit("a", 2, 3, 0, forfeited=True),
        Exit("b", 2, 3, 2),
        Exit("c", 2, 3, 1),
        Exit("d", 2, 2, 5, forfeited=True),  # a better table place still comes first
        Exit("e", 3, 4, 9, forfeited=True),  # and a later round before that
        Exit("f", 2, 3, 0, forfeited=True),  # forfeiters among themselves: measure, seed
    ]
    ranked = standings(out, {e.player: n for n, e in enumerate(out)})
    assert [s.player for s in ranked] == ["e", "d", "c", "b", "a", "f"]
    assert [s.forfeited for s in ranked] == [True, True, False, False, True, True]


def test_exits_carry_the_forfeit_of_the_outcome() -> None:
    plan = BracketPlan.build(12, 6, 2)
    result = Outcome.from_ranking(
        PLAYERS[:6],
        dict.fromkeys(PLAYERS[:6], 1),
        "sticks",
        lower_measure_is_better=True,
        forfeited={PLAYERS[5]},
    )
    leaving = exits(plan, TableRef(1, 0), result)
    assert [(e.player, e.forfeited) for e in leaving] == [
        (PLAYERS[2], False), (PLAYERS[3], False), (PLAYERS[4], False), (PLAYERS[5], True),
    ]  # fmt: skip
