"""`make demo`: the main job starts the local service, plays over HTTP to a champion and
writes the bracket picture."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from cli.demo import main


def test_the_demo_plays_over_http_to_a_champion_and_draws_the_bracket(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = tmp_path / "bracket.svg"
    code = main(["--players", "30", "--seed", "t", "--port", "0", "--bracket", str(picture)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "30 bots registered over HTTP" in out
    for bar in ("Round 1 ", "Round 2 ", "Final "):
        assert bar in out
    assert "replayed and verified" in out
    dice = re.search(r"Final table's dice: all (\d+) throws verified against the commitment", out)
    assert dice is not None and int(dice[1]) > 0, out
    champion = re.search(r"Champion: (bot\d+) ", out)
    assert champion is not None, out
    assert f"1. {champion[1]}" in out
    drawing = ElementTree.parse(picture).getroot()
    assert drawing.tag.endswith("svg")
    assert champion[1] in picture.read_text()


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["--advance", "6"], "advance must be between 1 and 5"),
        (["--option", "penalty_limt=3"], "no option 'penalty_limt'"),
        (["--players", "0"], "player_count must be at least 1"),
    ],
)
def test_bad_demo_options_are_named_before_anything_starts(
    args: list[str], text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    assert text in capsys.readouterr().err
