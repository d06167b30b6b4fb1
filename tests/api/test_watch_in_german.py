"""A table's watch page in German, as the server draws it before its script runs: the
facts and the seats' columns in the catalogue's words (never a raw key such as "stage"),
the rules with the games' own words, and the story's German sentences handed over for
story.js."""

from __future__ import annotations

from apiclient import Stack
from test_pages import embedded, page, play, start_cup


def test_the_watch_page_names_its_facts_in_german(stack: Stack) -> None:
    cup = start_cup(stack)
    play(stack, cup, "R1-1", actions=3)
    html = page(stack, f"/tournaments/{cup.id}/tables/R1-1/watch", query="lang=de")
    assert "<dt>Phase</dt>" in html and "<dt>stage</dt>" not in html
    assert "Strafpunkte bis zum Ausscheiden: 3" in html and "penalty limit" not in html
    assert "gleiche Ansage erlaubt: nein" in html
    words = embedded(html, "words")
    assert words["story.announced"] == "{name} sagt {value} an."
    assert words["story.threw_pasch.you"] == "du würfelst {value}, einen Pasch."
    assert words["fact.stage.response"] == "glauben oder anzweifeln"
    english = page(stack, f"/tournaments/{cup.id}/tables/R1-1/watch", query="lang=en")
    assert "<dt>stage</dt>" in english and "penalty points until out: 3" in english
