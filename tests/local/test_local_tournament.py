"""The in-process tournament: every game from registration to champion, reproducibly."""

from __future__ import annotations

import pytest

from core.bracket import ByeGiven, Decision, SeatTable
from core.registry import game_names
from infra.dice import SecretDice, SeededDice
from local.tournament import RandomBot, TournamentRun, run_tournament

PLAYERS = [f"p{i:03d}" for i in range(150)]


def _run(game: str, seed: str = "s", **kwargs: object) -> TournamentRun:
    return run_tournament(
        game,
        PLAYERS,
        table_size=6,
        advance=2,
        seed=seed,
        options=None,
        dice=SeededDice(seed),
        bot=RandomBot(seed),
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("game", game_names())
def test_a_tournament_runs_to_one_champion_who_won_the_final(game: str) -> None:
    run = _run(game)
    assert run.bracket.is_finished
    assert run.final is not None and run.final.seating.final
    assert run.bracket.champion == run.final.outcome.ranking[0]
    standings = run.bracket.standings
    assert sorted(s.player for s in standings) == sorted(PLAYERS)
    assert [s.place for s in standings] == list(range(1, len(PLAYERS) + 1))
    assert run.tables == run.bracket.plan.tables_in(1) + sum(
        run.bracket.plan.tables_in(r) for r in range(2, run.bracket.plan.rounds + 1)
    )


def test_the_same_seed_gives_the_same_tournament() -> None:
    first, second = _run("maexchen", "x"), _run("maexchen", "x")
    assert first.bracket.standings == second.bracket.standings
    assert _run("maexchen", "y").bracket.standings != first.bracket.standings


def test_every_seated_player_reaches_the_callback_once_per_round() -> None:
    seen: dict[int, list[str]] = {}

    def note(decision: Decision) -> None:
        if isinstance(decision, SeatTable):
            seen.setdefault(decision.table.round, []).extend(decision.players)
        elif isinstance(decision, ByeGiven):
            seen.setdefault(decision.table.round, []).append(decision.player)

    _run("maexchen", on_decision=note)
    assert sorted(seen[1]) == sorted(PLAYERS)
    for players in seen.values():
        assert len(players) == len(set(players))


def test_secret_dice_are_fair_faces() -> None:
    rolls = SecretDice().roll(600)
    assert len(rolls) == 600
    assert set(rolls) == {1, 2, 3, 4, 5, 6}
