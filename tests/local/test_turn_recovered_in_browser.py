"""A person's turn reaches the play page although AWS throttles every push, on the served
stack in headless Chromium: every `post_to_connection` is refused (`local.throttles`),
so no `your_turn` (nor any other message) is ever delivered; each one the retries could
not deliver closes the person's connection, and the page, reading its view whenever its
socket drops, offers the turn in time, without a reload.
"""

from __future__ import annotations

import json
import random
import time
import urllib.request
from collections.abc import Iterator

import pytest
from browser import PHONE, WAIT_MS, chromium
from playwright.sync_api import Browser
from served import open_cup, serve_in_session
from suite_dice import suite_seed
from test_play_in_browser import KEPT, _bots, _take_a_turn, _wait_for_turn_or_end

from cli.api_client import ApiClient
from local.operations import PATH
from local.throttles import ENVIRONMENT

# the person's clicks: a throw and its announcement are one turn, and a turn that comes
# while the page still reads the answer to its last action is found without a push
CLICKS = 4
TURN_SECONDS = 60  # the default turn_timeout_seconds: each turn must be offered well within


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as opened:
        yield opened


def closes(url: str) -> int:
    with urllib.request.urlopen(url + PATH, timeout=30) as answer:
        calls: dict[str, int] = json.load(answer)["calls"]
    return calls.get("apigateway:DeleteConnection", 0)


def test_a_turn_never_pushed_still_reaches_the_play_page_in_time(
    browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed = suite_seed("turn-recovered")
    monkeypatch.setenv(ENVIRONMENT, f"0,post_to_connection=1/{seed}")
    with serve_in_session("--memory", "--dice-seed", seed) as (_, url, _banner):
        api = ApiClient(url)
        tournament, organizer = open_cup(api, "Throttled cup", table_size=3, advance=1)
        context = browser.new_context(viewport=PHONE, is_mobile=True)
        context.set_default_timeout(WAIT_MS)
        phone = context.new_page()
        phone.goto(f"{url}/tournaments/{tournament}/play")
        phone.fill("#name", "Anna")
        phone.click("#join-button")
        phone.wait_for_function("() => document.getElementById('you-text').textContent.length")
        phone.evaluate(KEPT)
        _bots(url, tournament)
        api.ok("POST", f"/tournaments/{tournament}/start", {"seed": "pub"}, token=organizer)

        chance = random.Random(3)
        taken = 0
        for _ in range(200):
            started = time.monotonic()
            version = _wait_for_turn_or_end(phone)
            if version is None:
                break
            waited = time.monotonic() - started
            assert waited < TURN_SECONDS / 2, f"the turn at v{version} took {waited:.0f} s"
            _take_a_turn(phone, chance, version)
            taken += 1
            if taken == CLICKS:
                break
        assert taken > 0, "the person was never offered a turn"
        assert phone.evaluate("window.__notReloaded") is True
        # no message reached the page: it learnt of its seat and its turn only from the
        # connections closed when their `your_turn` could not be posted
        assert closes(url) >= 1
        context.close()
