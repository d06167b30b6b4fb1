"""`make demo`: the main job prints the rounds, the final table, the top 10 and a champion."""

from __future__ import annotations

import pytest

from cli.demo import main


def test_the_demo_plays_to_a_champion_and_verifies_the_final_log(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--players", "120", "--seed", "t"]) == 0
    out = capsys.readouterr().out
    assert "Round 1" in out and "Final " in out
    assert "Final table R" in out and "Top 10:" in out
    assert "replayed and verified" in out
    champion = out.rsplit("Champion: ", 1)[1].split()[0]
    assert f"1. {champion}" in out


@pytest.mark.parametrize("game", ["mariechen", "zweiundvierzig"])
def test_the_demo_plays_every_game(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--game", game, "--players", "40", "--seed", "t", "--advance", "3"]) == 0
    assert "Champion: bot" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["--advance", "6"], "advance must be between 1 and 5"),
        (["--option", "penalty_limt=3"], "no option 'penalty_limt'"),
        (["--players", "0"], "player_count must be at least 1"),
    ],
)
def test_bad_demo_options_are_named(
    args: list[str], text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    assert text in capsys.readouterr().err
