"""Property tests of the bracket engine (docs/rules.md §5): random outcomes and recording order."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bracket import (
    BALANCED_PLAYERS,
    FEEDER_GROUPS,
    Bracket,
    BracketPlan,
    ByeGiven,
    Decision,
    RoundCompleted,
    SeatTable,
    TableRef,
    TournamentFinished,
    seeded_order,
)
from core.outcome import Outcome

PAIRS = [(ts, adv) for ts in range(2, 13) for adv in range(1, ts)]


def check_plan(plan: BracketPlan) -> None:
    """The plan's shape under the rule of 2026-12-01: round 1 holds everyone, each table
    holds what its feeders send."""
    assert sum(plan.table_sizes(1)) == plan.player_count
    assert plan.tables_in(plan.rounds) == 1
    for round in range(2, plan.rounds + 1):
        covered = 0
        for index, size in enumerate(plan.table_sizes(round)):
            ref = TableRef(round, index)
            feeders = plan.feeders(ref)
            assert feeders.start == covered  # consecutive, in order, none skipped
            assert len(feeders) >= 1
            covered = feeders.stop
            sent = [plan.survivors(TableRef(round - 1, f)) for f in feeders]
            assert sum(sent) == size <= plan.table_size
            for slot, feeder in enumerate(feeders):
                assert plan.successor(TableRef(round - 1, feeder)) == ref
                assert plan.slot(TableRef(round - 1, feeder)) == slot
        assert covered == plan.tables_in(round - 1)
    check_balanced_rounds(plan)


def check_balanced_rounds(plan: BracketPlan) -> None:
    """docs/rules.md §5.5 (balanced rounds) and §5.8 (the final): feeder groups, round by round."""
    table_size, advance = plan.table_size, plan.advance
    per_table = table_size // advance  # g
    assert (plan.rounds == 1) == (plan.player_count <= table_size)
    for round in range(2, plan.rounds + 1):
        feeders = plan.tables_in(round - 1)
        sent = [plan.survivors(TableRef(round - 1, f)) for f in range(feeders)]
        if round == plan.rounds:
            assert sum(sent) <= table_size  # the final: everyone left fits one table
            continue
        assert sum(sent) > table_size  # not the final while they would all fit
        assert max(plan.table_sizes(round)) <= table_size
        groups = [plan.feeders(TableRef(round, i)) for i in range(plan.tables_in(round))]
        counts = [len(group) for group in groups]
        if 2 * advance <= table_size:
            assert len(groups) == -(-feeders // per_table)
            assert max(counts) - min(counts) <= 1
            assert counts == sorted(counts, reverse=True)  # the larger groups first
        else:  # a group takes further consecutive feeders while their players fit
            for group in groups[:-1]:
                players = sum(sent[f] for f in group)
                assert players + sent[group.stop] > table_size


class Log:
    """Every decision of one tournament, checked as it arrives."""

    def __init__(self, plan: BracketPlan) -> None:
        self.plan = plan
        self.rounds_of: dict[str, list[int]] = defaultdict(list)
        self.completed: list[int] = []
        self.finished: list[TournamentFinished] = []
        self.playing: list[SeatTable] = []

    def take(self, decisions: list[Decision]) -> None:
        plan = self.plan
        for decision in decisions:
            assert not self.finished, "nothing comes after the end"
            if isinstance(decision, SeatTable):
                ref = decision.table
                assert 2 <= len(decision.players) <= plan.table_size
                assert len(decision.players) == plan.seats_at(ref)
                assert 1 <= decision.survivors < len(decision.players)
                assert decision.survivors == plan.survivors(ref)
                assert decision.final == (ref.round == plan.rounds)
                for player in decision.players:
                    self.rounds_of[player].append(ref.round)
                self.playing.append(decision)
            elif isinstance(decision, ByeGiven):
                assert plan.is_bye(decision.table)
                self.rounds_of[decision.player].append(decision.table.round)
            elif isinstance(decision, RoundCompleted):
                self.completed.append(decision.round)
            else:
                assert isinstance(decision, TournamentFinished)
                self.finished.append(decision)


def random_outcome(table: SeatTable, rng: random.Random) -> Outcome:
    ranking = list(table.players)
    rng.shuffle(ranking)
    return Outcome.from_ranking(
        tuple(ranking),
        dict(zip(ranking, rng.choices(range(4), k=len(ranking)), strict=True)),
        "penalty_points",
        lower_measure_is_better=True,
    )


def play(
    player_count: int, table_size: int, advance: int, seed: int, rule: int = FEEDER_GROUPS
) -> None:
    """Play a whole tournament with random outcomes and order; assert every invariant.
    The plan's own shape is checked here for the rule of 2026-12-01 (test_fair_brackets
    checks the rule of 2026-12-02)."""
    plan = BracketPlan.build(player_count, table_size, advance, rule)
    if rule == FEEDER_GROUPS:
        check_plan(plan)
    rng = random.Random(seed)
    players = seeded_order([f"p{i}" for i in range(player_count)], f"seed-{seed}")
    bracket = Bracket(plan, players)
    log = Log(plan)
    final_winner = players[0]
    records = 0
    tables_to_play = sum(
        1 for r in range(1, plan.rounds + 1) for size in plan.table_sizes(r) if size > 1
    )
    log.take(bracket.start())
    while log.playing:
        records += 1
        assert records <= tables_to_play, "the tournament must finish"
        table = log.playing.pop(rng.randrange(len(log.playing)))  # any seated table may end
        outcome = random_outcome(table, rng)
        if table.final:
            final_winner = outcome.ranking[0]
        log.take(bracket.record(table.table, outcome))

    assert records == tables_to_play
    assert len(log.finished) == 1
    assert bracket.is_finished
    standings = log.finished[0].standings
    assert standings == bracket.standings
    assert sorted(s.player for s in standings) == sorted(players)
    assert [s.place for s in standings] == list(range(1, player_count + 1))
    assert bracket.champion == standings[0].player == final_winner
    assert standings[0].round == plan.rounds
    assert log.completed == (list(range(1, plan.rounds + 1)) if player_count > 1 else [])
    position = {player: i for i, player in enumerate(players)}
    keys = [(-s.round, s.table_place, s.measure, position[s.player]) for s in standings]
    assert keys == sorted(keys)
    for standing in standings:  # one table or bye in each round reached, none skipped
        reached = list(range(1, standing.round + 1)) if player_count > 1 else []
        assert log.rounds_of[standing.player] == reached


@settings(max_examples=100, deadline=None)
@given(
    player_count=st.integers(1, 5000),
    pair=st.sampled_from(PAIRS),
    seed=st.integers(0, 2**32 - 1),
    rule=st.sampled_from([FEEDER_GROUPS, BALANCED_PLAYERS]),
)
def test_any_tournament_finishes_with_one_champion_and_full_standings(
    player_count: int, pair: tuple[int, int], seed: int, rule: int
) -> None:
    table_size, advance = pair
    play(player_count, table_size, advance, seed, rule)


@settings(max_examples=300, deadline=None)
@given(player_count=st.integers(1, 20_000), pair=st.sampled_from(PAIRS))
def test_rounds_are_balanced_and_no_table_exceeds_the_table_size(
    player_count: int, pair: tuple[int, int]
) -> None:
    table_size, advance = pair
    check_balanced_rounds(BracketPlan.build(player_count, table_size, advance, FEEDER_GROUPS))


@pytest.mark.parametrize("rule", [FEEDER_GROUPS, BALANCED_PLAYERS])
@pytest.mark.parametrize(("table_size", "advance"), PAIRS)
def test_every_table_size_and_advance_for_edge_player_counts(
    table_size: int, advance: int, rule: int
) -> None:
    for player_count in sorted({1, 2, table_size, table_size + 1, 97, 5000}):
        play(player_count, table_size, advance, seed=player_count * 31 + table_size, rule=rule)


def test_seeded_order_is_a_permutation() -> None:
    players = [f"p{i}" for i in range(500)]
    order = seeded_order(players, "x")
    assert sorted(order) == sorted(players)
    assert order != tuple(players)
