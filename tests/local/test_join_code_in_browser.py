"""A tournament with a join code, on the served stack in headless Chromium: the play page
asks for the code, a wrong one is told and lets the person try again, and the projector's
link (`play?code=…`) fills it in, all under the pages' Content-Security-Policy."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser import PHONE, WAIT_MS, chromium, page_errors
from playwright.sync_api import Browser

from cli.api_client import ApiClient

CODE = "KNEIPE-7"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as opened:
        yield opened


def test_the_play_page_asks_for_the_join_code_and_the_qr_link_brings_it(
    browser: Browser, service_url: str
) -> None:
    api = ApiClient(service_url)
    created = api.ok(
        "POST",
        "/tournaments",
        {"game": "maexchen", "name": "Closed cup", "table_size": 3, "join_code": CODE},
    )
    tournament, organizer = created["tournament_id"], created["organizer_token"]
    api.ok("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    site = f"{service_url}/tournaments/{tournament}"
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    context.set_default_timeout(WAIT_MS)

    typed = context.new_page()
    errors = page_errors(typed)
    typed.goto(f"{site}/play")
    typed.wait_for_selector("#join-code:not([hidden])")  # the tournament's view asks for it
    typed.fill("#name", "Anna")
    typed.fill("#join-code", "falsch-1")
    typed.click("#join-button")
    typed.wait_for_function(
        "() => document.getElementById('notice').textContent.includes('join code')"
    )
    assert typed.evaluate("document.activeElement.id") == "join-code"
    typed.fill("#join-code", CODE.lower())
    typed.click("#join-button")
    typed.wait_for_function("() => document.getElementById('you-text').textContent.length > 0")
    assert typed.text_content("#you-text") == "You play as Anna."

    projector = context.new_page()
    projector.goto(f"{site}/bracket?projector=1&code={CODE}")
    link = projector.text_content(".url") or ""
    assert link.endswith(f"/play?code={CODE}")

    scanned = browser.new_context(viewport=PHONE, is_mobile=True).new_page()
    scanned.set_default_timeout(WAIT_MS)
    scan_errors = page_errors(scanned)
    scanned.goto(link)
    # the shell asks for the code once the tournament's view says it needs one
    scanned.wait_for_selector("#join-code:not([hidden])")
    assert scanned.input_value("#join-code") == CODE
    scanned.fill("#name", "Bernd")
    scanned.click("#join-button")
    scanned.wait_for_function("() => document.getElementById('you-text').textContent.length > 0")
    assert api.ok("GET", f"/tournaments/{tournament}")["player_count"] == 2
    assert errors == [] and scan_errors == []
