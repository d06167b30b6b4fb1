"""No token in an access log: a person plays a whole table on the play page in headless
Chromium against two bots that follow the service's pushes, on the served stack with
its access log on (`--verbose`); no player's or organizer's token appears in any line
of it. The play page's WebSocket connects with one-use tickets, the bots' with an
`Authorization` header, every HTTP call carries its token in a header."""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Iterator
from typing import IO

import pytest
from browser import PHONE, WAIT_MS, chromium, page_errors
from playwright.sync_api import Page
from served import open_cup, serve_in_session

from cli.api_client import ApiClient
from cli.botkit import BotResult, run_bot
from cli.push_watch import connector
from cli.session import Seat
from examples.bots.maexchen_honest import decide

SECONDS = WAIT_MS // 1000
# what any token looks like (infra.tokens.new_token): an owner, a dot, 43 random characters
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}")


def _drain(stream: IO[str], lines: list[str]) -> threading.Thread:
    """Read `stream` into `lines` on a thread, so that a full pipe never stalls the service."""

    def read() -> None:
        for line in stream:
            lines.append(line)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


@pytest.fixture(scope="module")
def verbose_service() -> Iterator[tuple[str, list[str]]]:
    """A local service with its access log on; its URL and what it wrote to stderr."""
    with serve_in_session("--memory", "--verbose") as (process, url, _):
        assert process.stdout is not None and process.stderr is not None
        logged: list[str] = []
        _drain(process.stdout, [])
        _drain(process.stderr, logged)
        yield url, logged


def _bots(url: str, tournament: str, seats: list[Seat]) -> list[BotResult]:
    results: list[BotResult] = []
    joined = threading.Semaphore(0)

    def registered(seat: Seat) -> None:
        seats.append(seat)
        joined.release()

    def play(name: str) -> None:
        results.append(
            run_bot(
                ApiClient(url),
                tournament,
                name,
                decide,
                poll_seconds=0.2,
                on_registered=registered,
                push=connector(url, tournament),
            )
        )

    for name in ("Bernd", "Carla"):
        threading.Thread(target=play, args=(name,), daemon=True).start()
    for _ in range(2):
        assert joined.acquire(timeout=SECONDS)
    return results


def test_a_whole_table_played_leaves_no_token_in_the_access_log(
    verbose_service: tuple[str, list[str]],
) -> None:
    url, logged = verbose_service
    api = ApiClient(url)
    tournament, organizer = open_cup(api, "Quiet cup", table_size=3, advance=1)
    seats: list[Seat] = []
    with chromium() as browser:
        context = browser.new_context(viewport=PHONE, is_mobile=True)
        context.set_default_timeout(WAIT_MS)
        phone = context.new_page()
        errors = page_errors(phone)
        phone.goto(f"{url}/tournaments/{tournament}/play")
        phone.fill("#name", "Anna")
        phone.click("#join-button")
        phone.wait_for_function("() => document.getElementById('you-text').textContent")
        token = phone.evaluate("Object.values(localStorage).map(JSON.parse)[0].token")
        results = _bots(url, tournament, seats)
        api.ok("POST", f"/tournaments/{tournament}/start", {"seed": "quiet"}, token=organizer)
        _play_to_the_end(phone)
        phone.wait_for_function(
            "() => document.getElementById('notice').textContent.includes('tournament is over')"
        )
        assert errors == []
        context.close()
    deadline = time.monotonic() + 30
    while len(results) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [r.error for r in results] == [None, None]

    time.sleep(2)  # the last lines of the access log
    access = [line for line in logged if re.search(r'"(GET|POST|PUT|DELETE|HEAD) /', line)]
    tokens = [token, organizer, *(seat.token for seat in seats)]
    assert len(tokens) == 4 and all(tokens)
    assert any('/play"' in line for line in access), "the access log is not on"
    for line in access:
        assert not any(t in line for t in tokens), line
        assert not TOKEN_SHAPE.search(line), line
    # the play page connected with tickets, each used once; the bots with a header
    connects = [line for line in access if '"GET /ws?' in line]
    tickets = [re.search(r"ticket=([A-Za-z0-9_-]+)", line) for line in connects]
    used = [m.group(1) for m in tickets if m]
    assert used and len(used) == len(set(used))
    assert any(" 101 " in line for line in connects if "ticket=" in line)
    assert sum("ticket=" not in line for line in connects) >= 2  # the bots


def _play_to_the_end(phone: Page) -> None:
    """Click a legal action at each of the person's turns until their table is over."""
    chance = random.Random(11)
    ends = time.monotonic() + SECONDS
    while time.monotonic() < ends:
        found = phone.wait_for_function(
            """() => document.getElementById('prompt').textContent.includes('at this table')
            ? {over: true}
            : document.querySelector('#actions button:enabled')
              && {version: Number(document.getElementById('actions').dataset.version)}""",
            timeout=SECONDS * 1000,
        ).json_value()
        if found.get("over"):
            return
        here = f'#actions[data-version="{found["version"]}"]'
        buttons = phone.locator(f"{here} button:enabled")
        doubt = phone.locator(f'{here} button[data-kind="doubt"]:enabled')
        truth = phone.locator(f"{here} button.truth:enabled")
        if doubt.count() and chance.random() < 0.35:
            doubt.click()
        elif truth.count():
            truth.first.click()
        else:
            buttons.first.click()
        phone.wait_for_function(
            """version => document.getElementById('actions').dataset.version !== String(version)
                || document.getElementById('prompt').textContent.includes('at this table')""",
            arg=found["version"],
            timeout=SECONDS * 1000,
        )
    pytest.fail(f"the table did not end within {SECONDS} s")
