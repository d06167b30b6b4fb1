"""A player waiting for the start reads the service slowly, and the slower the more
players the tournament has: all waiting phones together ask the API for about 20
requests a second at any size (every 5 s per phone was 200,000 a second for a million).
The page runs on Playwright's fake clock, so ten minutes pass in seconds; the service
and its answers are real, except the player count where a test says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from browser import PHONE, WAIT_MS, chromium
from playwright.sync_api import Browser, Page, Route
from served import open_cup

from cli.api_client import ApiClient

MINUTES = 10
STEP_MS = 2_500
WAITING_READS = 20  # play.js: requests a second all waiting players make together
SHORTEST_PAUSE = 15 * 0.75  # seconds: play.js's floor, less its jitter
LONGEST_PAUSE = 15 * 1.25


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as opened:
        yield opened


def _waiting_phone(
    browser: Browser, service_url: str, players: int | None
) -> tuple[Page, list[str]]:
    """A phone registered in an open tournament, on the fake clock, and the list its
    reads of the tournament are counted into from now on. `players`: what the
    tournament's read says its player count is (None: the real count)."""
    api = ApiClient(service_url)
    tournament, _ = open_cup(api, "Waiting room", table_size=3, advance=1)
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.clock.install()
    if players is not None:

        def many(route: Route) -> None:
            answer = route.fetch()
            body = answer.json()
            route.fulfill(response=answer, body=json.dumps({**body, "player_count": players}))

        page.route(f"**/tournaments/{tournament}", many)
    page.goto(f"{service_url}/tournaments/{tournament}/play")
    page.fill("#name", "Wartende")
    page.click("#join-button")
    page.wait_for_function("() => document.getElementById('you-text').textContent.length > 0")
    reads: list[str] = []
    page.on(
        "request",
        lambda request: reads.append(request.url) if request.method == "GET" else None,
    )
    return page, reads


def _let_minutes_pass(page: Page, minutes: int) -> None:
    """`minutes` on the page's clock, a step at a time, each step's reads answered
    before the next (a read's answer schedules the next read)."""
    for _ in range(minutes * 60_000 // STEP_MS):
        page.clock.run_for(STEP_MS)
        page.wait_for_timeout(30)  # real time for the fetches the step started


def test_a_player_waiting_in_a_small_tournament_reads_every_15_seconds_or_so(
    browser: Browser, service_url: str
) -> None:
    page, reads = _waiting_phone(browser, service_url, players=None)
    _let_minutes_pass(page, MINUTES)
    seconds = MINUTES * 60
    # each wait ends in two reads: where the player is (/me) and the tournament (header);
    # the next wait begins when they are answered, up to a step of the clock later
    longest_wait = LONGEST_PAUSE + STEP_MS / 1000
    assert 2 * int(seconds / longest_wait) - 2 <= len(reads) <= 2 * (seconds / SHORTEST_PAUSE + 1)


def test_waiting_players_of_a_large_tournament_ask_for_20_requests_a_second_together(
    browser: Browser, service_url: str
) -> None:
    players = 200_000
    page, reads = _waiting_phone(browser, service_url, players=players)
    _let_minutes_pass(page, MINUTES)
    seconds = MINUTES * 60
    # one phone's share of the together-rate, with the jitter's longest pause
    allowed = 2 * WAITING_READS / players * seconds / 0.75
    assert len(reads) <= max(2, allowed), reads
    assert len(reads) <= 2  # a pause of ~10,000 s: at most one wait ended in ten minutes
