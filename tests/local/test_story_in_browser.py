"""The pages tell a table in the terminal client's words: `assets/story.js`, run in
headless Chromium with the catalogue's words as a page hands them over, says sentence for
sentence what `cli.table_story.Narrator` says, in English and in German, over random
whole tables of every game (timeouts and forfeits included), for a spectator and for each
seated player."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser import WAIT_MS, chromium
from playwright.sync_api import Page

from cli.table_story import Narrator
from core.actions import Forfeit, Timeout
from core.audit import records_after
from core.match import Move, Seating, replay_log
from core.registry import get_game
from core.words import LANGUAGES, for_scripts
from functions.pages.html import json_data

ASSETS = Path(__file__).resolve().parents[2] / "functions/pages/assets"
SEATS = ("p-anna", "p-bernd", "p-carla", "p-dieter")
NAMES = {"p-anna": "Anna", "p-bernd": 'Bernd <i>"B"</i>', "p-carla": "Carla"}  # Dieter: id
OPTIONS: dict[str, list[dict[str, object]]] = {
    "maexchen": [{}, {"blind_reroll": True, "allow_equal": True, "forfeit_after_timeouts": 2}],
    "mariechen": [{}, {"direction": "hinten", "schikanen": True}],
    "zweiundvierzig": [{}, {"sticks": 5, "forfeit_after_timeouts": 1}],
}
TELL_JS = """([me, table, names, records]) => {
  const narrator = new Knobelcup.Narrator(me, table, names);
  return records.flatMap(record => narrator.lines(record));
}"""


@pytest.fixture(scope="module")
def browser_pages() -> Iterator[dict[str, Page]]:
    """A page per language with live.js (K.say) and story.js, and the words as a page of
    the service embeds them."""
    with chromium() as browser:
        pages = {}
        for lang in LANGUAGES:
            opened = browser.new_page()
            opened.set_default_timeout(WAIT_MS)
            opened.set_content(
                f'<!doctype html><html lang="{lang}"><title>story</title>'
                f"<body>{json_data('words', for_scripts(lang))}</body></html>"
            )
            for name in ("live.js", "story.js"):
                opened.add_script_tag(content=(ASSETS / name).read_text(encoding="utf-8"))
            pages[lang] = opened
        yield pages


def random_table(game_name: str, options: dict[str, object], seed: int) -> Any:
    """A whole table of random legal actions (now and then a timeout, rarely a
    disqualified player's forfeit); its log."""
    game, chance = get_game(game_name), random.Random(seed)
    seating = Seating(game_name, SEATS, options, 1)
    state, _ = game.seat(seating.seats, options, seating.survivors)
    moves: list[Move] = []
    while game.to_act(state) is not None and len(moves) < 2_000:
        draw = chance.random()
        action = (
            Forfeit()  # the organizer disqualified the player to act
            if draw < 0.04
            else Timeout()
            if draw < 0.10
            else chance.choice(game.legal_actions(state))
        )
        dice = tuple(chance.randint(1, 6) for _ in range(game.dice_needed(state, action)))
        state, _ = game.apply(state, game.to_act(state), action, dice)
        moves.append(Move(action, dice))
    assert game.to_act(state) is None, "the table should end"
    return replay_log(seating, moves)[1]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_the_browser_tells_a_table_as_the_terminal_does(
    browser_pages: dict[str, Page], game: str, lang: str
) -> None:
    page = browser_pages[lang]
    disqualified = {"en": "disqualified: out of", "de": "disqualifiziert und scheide"}[lang]
    told_disqualified = False
    for variant, options in enumerate(OPTIONS[game]):
        entries = random_table(game, options, seed=variant)
        for viewer in (None, *SEATS):
            for over in (False, True):
                records = records_after(entries, -1, viewer, revealed=over)
                narrator = Narrator(viewer, table="R1-1", names=dict(NAMES), lang=lang)
                expected = [line for record in records for line in narrator.lines(record)]
                told = page.evaluate(TELL_JS, [viewer, "R1-1", NAMES, records])
                assert told == expected, (game, options, viewer, over)
                told_disqualified |= any(disqualified in line for line in told)
        assert len(expected) > 20
    assert told_disqualified, "a forfeit is told as a disqualification"
