"""The pages speak German or English (core/words.py): `?lang=` first, then the choice the
switch remembered (a cookie), then the organizer's `language` for the tournament, then
the browser's `Accept-Language`, else English; `<html lang>` says which."""

from __future__ import annotations

import re

from apiclient import Stack

from functions.pages.language import accepted, choose, switch_href

SITE = {"Host": "knobelcup.example", "X-Forwarded-Proto": "https"}


def _cup(stack: Stack, **extra: object) -> str:
    body = {"game": "maexchen", "name": "Zum Würfel", "table_size": 4, "advance": 1, **extra}
    created = stack.api.call("POST", "/tournaments", body)
    assert created.status == 201, created.body
    tournament, organizer = created.body["tournament_id"], created.body["organizer_token"]
    stack.api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    return str(tournament)


def _lang(html: str) -> str:
    found = re.search(r'<html lang="(\w+)">', html)
    assert found, html[:200]
    return found[1]


def test_the_order_of_the_choices() -> None:
    assert choose() == "en"
    assert choose(accept="de-DE,de;q=0.9,en;q=0.8") == "de"
    assert choose(accept="fr-FR, en;q=0.5, de;q=0.7") == "de"
    assert choose(organizer="de", accept="en") == "de"
    assert choose(remembered="en", organizer="de") == "en"
    assert choose(asked="de", remembered="en") == "de"
    assert choose(asked="xx", remembered="zz", organizer="", accept="fr") == "en"
    assert accepted("de;q=abc, en;q=0.1") == "en"
    assert switch_href("en", "projector=1&code=X&lang=en") == "?projector=1&lang=de"
    assert switch_href("de", "code=X&x=<b>", ("code",)) == "?code=X&lang=en"


def test_every_page_follows_accept_language_and_says_so(stack: Stack) -> None:
    tournament = _cup(stack)
    german = {**SITE, "Accept-Language": "de-DE,de;q=0.9"}
    for path in ("bracket", "tables/R1-1/watch"):  # the play page is the site's (tests/site)
        english = stack.api.call("GET", f"/tournaments/{tournament}/{path}", headers=SITE).raw
        deutsch = stack.api.call("GET", f"/tournaments/{tournament}/{path}", headers=german).raw
        assert _lang(english) == "en" and _lang(deutsch) == "de", path
        assert 'class=lang-switch href="?lang=de"' in english
        assert 'class=lang-switch href="?lang=en"' in deutsch
    projector = stack.api.call(
        "GET", f"/tournaments/{tournament}/bracket", headers=german, query="projector=1"
    ).raw
    assert _lang(projector) == "de" and "Scannen und mitspielen" in projector
    assert 'href="?projector=1&amp;lang=en"' in projector  # the switch keeps the projector
    assert _lang(stack.api.call("GET", "/", headers=german).raw) == "de"


def test_the_organizer_chooses_german_and_the_switch_is_remembered(stack: Stack) -> None:
    tournament = _cup(stack, language="de")
    shown = stack.api.call("GET", f"/tournaments/{tournament}").body
    assert shown["language"] == "de"
    bracket = f"/tournaments/{tournament}/bracket"
    page = stack.api.call("GET", bracket, headers=SITE).raw
    assert _lang(page) == "de" and "Noch nicht begonnen" in page
    asked = stack.api.call("GET", bracket, headers=SITE, query="lang=en")
    assert _lang(asked.raw) == "en" and "Not started yet" in asked.raw
    back = {**SITE, "Cookie": "other=1; knobelcup_lang=en"}
    remembered = stack.api.call("GET", bracket, headers=back).raw
    assert _lang(remembered) == "en"


def test_a_tournament_without_a_language_says_none_and_a_wrong_one_is_refused(
    stack: Stack,
) -> None:
    tournament = _cup(stack)
    assert stack.api.call("GET", f"/tournaments/{tournament}").body["language"] is None
    body = {"game": "maexchen", "language": "fr"}
    assert stack.api.call("POST", "/tournaments", body).status == 422
