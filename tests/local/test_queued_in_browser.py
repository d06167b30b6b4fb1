"""A phone whose table waits for a slot says so, and plays once it starts: the served
stack with a budget of one table in play (`KNOBELCUP_TABLES_IN_PLAY=1`), two round-1
tables, the person at the second. The page shows the table's place in the queue and
when it should start, opens no table meanwhile, and offers the person's turn once the
first table is over and theirs is seated, without a reload."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from browser import PHONE, WAIT_MS, chromium, page_errors, screenshot
from playwright.sync_api import Browser
from served import open_cup

from cli.api_client import ApiClient
from cli.botkit import run_bot
from cli.serve import serving_in_background
from cli.session import Seat
from examples.bots.maexchen_honest import decide

BOTS = ["Bernd", "Carla", "Dora"]
KEPT = "window.__notReloaded = true"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as opened:
        yield opened


@pytest.fixture(scope="module")
def paced_url() -> Iterator[str]:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("KNOBELCUP_TABLES_IN_PLAY", "1")
        with serving_in_background(0) as url:
            yield url


def test_a_queued_table_shows_its_place_and_starts_on_the_page(
    browser: Browser, paced_url: str
) -> None:
    api = ApiClient(paced_url)
    tournament, organizer = open_cup(api, "Warteschlange", table_size=2, advance=1)
    context = browser.new_context(viewport=PHONE, is_mobile=True, locale="en-US")
    context.set_default_timeout(WAIT_MS)
    phone = context.new_page()
    errors = page_errors(phone)
    phone.goto(f"{paced_url}/tournaments/{tournament}/play")
    phone.fill("#name", "Anna")
    phone.click("#join-button")
    phone.wait_for_function("() => document.getElementById('you-text').textContent.length > 0")
    phone.evaluate(KEPT)
    anna = phone.evaluate("Object.values(localStorage).map(JSON.parse)[0].player")

    seats: dict[str, str] = {}
    joined = threading.Semaphore(0)

    def play(name: str) -> None:
        def registered(seat: Seat) -> None:
            seats[name] = seat.player_id
            joined.release()

        run_bot(ApiClient(paced_url), tournament, name, decide, poll_seconds=0.2,
                on_registered=registered)  # fmt: skip

    for name in BOTS:
        threading.Thread(target=play, args=(name,), daemon=True).start()
    for _ in BOTS:
        assert joined.acquire(timeout=WAIT_MS / 1000)
    order = [seats["Bernd"], seats["Carla"], seats["Dora"], anna]  # Anna at R1-2
    api.ok("POST", f"/tournaments/{tournament}/start", {"order": order}, token=organizer)

    phone.wait_for_function(
        "() => document.getElementById('notice').textContent.includes('in the queue')"
    )
    notice = phone.text_content("#notice") or ""
    assert "Your table R1-2 waits for a free slot: number 1 in the queue" in notice
    assert phone.is_hidden("#table-card")  # nothing to play at a queued table
    assert phone.text_content("header .badge") == "running"  # heard with the queue's push
    screenshot(phone, "play-phone-375-queued.png")

    # Bernd and Carla play R1-1 to its end; R1-2 starts and the page seats Anna there
    phone.wait_for_selector("#table-card:not([hidden])", timeout=WAIT_MS)
    assert phone.text_content("#cup-table") == "R1-2"
    phone.wait_for_function(
        "() => document.querySelector('#actions button:enabled')"
        " || document.getElementById('story').textContent.length > 0"
    )
    assert "in the queue" not in (phone.text_content("#notice") or "")
    assert phone.evaluate("window.__notReloaded") is True
    assert errors == []
