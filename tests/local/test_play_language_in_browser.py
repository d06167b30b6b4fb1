"""The play page's shell speaks the language the person chose, else the organizer's
for the tournament (which only the API knows, so the page's script loads it again in
that one), else the browser's: in Chromium, on the served stack."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser import PHONE, WAIT_MS, chromium, page_errors
from playwright.sync_api import Browser

from cli.api_client import ApiClient


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as opened:
        yield opened


def open_tournament(url: str, **fields: str) -> str:
    api = ApiClient(url)
    created = api.ok("POST", "/tournaments", {"game": "maexchen", "name": "Stammtisch", **fields})
    api.ok(
        "POST",
        f"/tournaments/{created['tournament_id']}/registration/open",
        token=created["organizer_token"],
    )
    return str(created["tournament_id"])


def test_the_organizers_language_wins_over_the_browsers_until_the_person_chooses(
    service_url: str, browser: Browser
) -> None:
    tournament = open_tournament(service_url, language="de")
    context = browser.new_context(viewport=PHONE, is_mobile=True, locale="en-US")
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    errors = page_errors(page)
    page.goto(f"{service_url}/tournaments/{tournament}/play")
    page.wait_for_selector("html[lang=de] #join:not([hidden])")  # loaded again, in German
    assert page.text_content("#tournament-name") == "Stammtisch"
    assert page.title() == "Mitspielen · Stammtisch"
    assert "Mäxchen" in (page.text_content("header .meta") or "")
    assert "Tische zu 6, 2 kommen weiter" in (page.text_content("header .meta") or "")
    assert page.text_content("header .badge") == "Anmeldung offen"
    assert "lang=de" in page.url and "by=organizer" in page.url
    assert not [c for c in context.cookies() if c["name"] == "knobelcup_lang"]  # nobody chose

    page.click("a.lang-switch")  # the person chooses English: remembered from now on
    page.wait_for_selector("html[lang=en] #join:not([hidden])")
    assert page.text_content("header .badge") == "open"
    [kept] = [c for c in context.cookies() if c["name"] == "knobelcup_lang"]
    assert kept["value"] == "en"
    page.goto(f"{service_url}/tournaments/{tournament}/play")
    page.wait_for_selector("#join:not([hidden])")
    assert page.evaluate("document.documentElement.lang") == "en" and "by=" not in page.url
    assert errors == []


def test_without_the_organizers_choice_the_browsers_language_and_no_reload(
    service_url: str, browser: Browser
) -> None:
    tournament = open_tournament(service_url)
    context = browser.new_context(viewport=PHONE, is_mobile=True, locale="de-DE")
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.goto(f"{service_url}/tournaments/{tournament}/play")
    page.wait_for_selector("#join:not([hidden])")
    assert page.evaluate("document.documentElement.lang") == "de"
    assert page.url.endswith("/play")  # no second load
    missing = context.new_page()
    missing.goto(f"{service_url}/tournaments/t-nothing00/play")
    missing.wait_for_selector("#notice:not([hidden])")
    assert missing.text_content("#notice") == "Es gibt kein Turnier t-nothing00: prüfe den Link."
    assert missing.is_hidden("#join")
