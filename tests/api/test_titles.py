"""A game's title is written once, in its module: the pages, the terminal and the
pages' scripts show that one."""

from __future__ import annotations

from cli.table_story import Narrator
from core.registry import game_names, get_game
from functions.pages.titles import STORY_JS, titles_line, written


def test_story_js_carries_the_titles_of_the_game_modules() -> None:
    script = STORY_JS.read_text(encoding="utf-8")
    assert written(script) == script, "run: python -m functions.pages.titles"
    for name in game_names():
        assert f'{name}: "{get_game(name).title}"' in titles_line()


def test_the_terminal_names_a_game_by_its_title() -> None:
    seated = {"type": "TableSeated", "game": "zweiundvierzig", "seats": ["a", "b"], "survivors": 1}
    assert Narrator(None).lines({"events": [seated]}) == ["42 muss kommen: a and b; 1 goes on."]
