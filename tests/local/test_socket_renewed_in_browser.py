"""The play page renews its WebSocket before API Gateway's 2-hour cut, shortened: the
front cuts every socket 6 s old (`KNOBELCUP_LOCAL_SOCKET_MAX_SECONDS`), the page renews
its own every 2 s (`?socket_renew=2`), the new socket opened before the old one is
closed, and a person plays a whole table against bots on it, without a reload and
without waiting for a turn.
"""

from __future__ import annotations

import json
import random
import time
import urllib.request
from collections.abc import Iterator

import pytest
from browser import PHONE, WAIT_MS, chromium, page_errors
from playwright.sync_api import Browser
from served import open_cup, serve_in_session
from suite_dice import suite_seed
from test_play_in_browser import KEPT, _bots, _take_a_turn, _wait_for_turn_or_end

from cli.api_client import ApiClient
from local.http_front import LIFETIME_ENVIRONMENT
from local.operations import PATH

CUT_SECONDS, RENEW_SECONDS = 6, 2
TURN_SECONDS = 10  # a turn offered by its push comes at once; a poll would be 2 s late


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as opened:
        yield opened


def calls(url: str) -> dict[str, int]:
    with urllib.request.urlopen(url + PATH, timeout=30) as answer:
        counted: dict[str, int] = json.load(answer)["calls"]
    return counted


def test_the_play_page_renews_its_socket_before_the_cut_and_plays_on(
    browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = suite_seed("socket-renewed")
    monkeypatch.setenv(LIFETIME_ENVIRONMENT, str(CUT_SECONDS))
    with serve_in_session("--memory", "--dice-seed", seed) as (_, url, _banner):
        api = ApiClient(url)
        tournament, organizer = open_cup(api, "Renewed cup", table_size=3, advance=1)
        context = browser.new_context(viewport=PHONE, is_mobile=True)
        context.set_default_timeout(WAIT_MS)
        phone = context.new_page()
        errors = page_errors(phone)
        phone.goto(f"{url}/tournaments/{tournament}/play?socket_renew={RENEW_SECONDS}")
        phone.fill("#name", "Anna")
        phone.click("#join-button")
        phone.wait_for_function("() => document.getElementById('you-text').textContent.length")
        phone.evaluate(KEPT)
        _bots(url, tournament)
        api.ok("POST", f"/tournaments/{tournament}/start", {"seed": "pub"}, token=organizer)

        chance = random.Random(5)
        began, taken = time.monotonic(), 0
        for _ in range(200):
            started = time.monotonic()
            version = _wait_for_turn_or_end(phone)
            if version is None:
                break
            waited = time.monotonic() - started
            assert waited < TURN_SECONDS, f"the turn at v{version} took {waited:.0f} s"
            _take_a_turn(phone, chance, version)
            taken += 1
        played = time.monotonic() - began
        assert taken > 0, "the person was never offered a turn"
        assert phone.evaluate("window.__notReloaded") is True
        assert errors == []
        counted = calls(url)
        # the bots (polling) open none: every connect is the page's, one each renewal
        assert counted.get("apigateway:$connect", 0) >= 1 + int(played // (RENEW_SECONDS + 1))
        context.close()
