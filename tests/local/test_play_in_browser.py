"""A person plays a whole Mäxchen table on the play page, on a 375 px phone in headless
Chromium, against two bots of the bot kit, on the served stack. Meanwhile a spectator
watches the table and the bracket in other tabs: both follow it in place, never
reloading, and the spectator never sees the person's dice under the cup.

Screenshots (`test-artifacts/play-*.png`) are kept.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from browser import PHONE, SCREEN, WAIT_MS, chromium, page_errors, screenshot, sideways_scroll
from playwright.sync_api import Browser, Page
from served import open_cup

from cli.api_client import ApiClient
from cli.botkit import BotResult, run_bot
from examples.bots.maexchen_honest import decide

PERSON = 'Anna <b>&"Co"'  # any markup in a name must show as text
BOTS = ["Bernd", "Carla"]
SECONDS = WAIT_MS // 1000
KEPT = "window.__notReloaded = true"  # gone if the page reloads


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as opened:
        yield opened


def _cup(api: ApiClient) -> tuple[str, str]:
    return open_cup(api, "Pub cup", table_size=3, advance=1)


def _bots(url: str, tournament: str) -> list[BotResult]:
    """The bots, registered and playing on threads; their results once they are done."""
    results: list[BotResult] = []
    joined = threading.Semaphore(0)

    def play(name: str) -> None:
        results.append(
            run_bot(
                ApiClient(url),
                tournament,
                name,
                decide,
                poll_seconds=0.2,
                on_registered=lambda _seat: joined.release(),
            )
        )

    threads = [threading.Thread(target=play, args=(name,), daemon=True) for name in BOTS]
    for thread in threads:
        thread.start()
    for _ in BOTS:
        assert joined.acquire(timeout=SECONDS)
    return results


def _take_a_turn(page: Page, chance: random.Random, version: int) -> str:
    """Click one of the legal actions the page offers at `version`, then wait for the
    page to move past that state; the kind clicked. The buttons are found by the state
    they act on, never by a node a re-render may have replaced."""
    here = f'#actions[data-version="{version}"]'
    kinds = page.eval_on_selector_all(f"{here} button:enabled", "bs => bs.map(b => b.dataset.kind)")
    if "doubt" in kinds and chance.random() < 0.35:
        kind = "doubt"
    elif "throw" in kinds:
        kind = "throw"
    else:
        kind = "announce"
    if kind == "announce":
        truth = page.locator(f"{here} button.truth")
        (truth if truth.count() else page.locator(f"{here} button:enabled").first).click()
    else:
        page.locator(f'{here} button[data-kind="{kind}"]').click()
    page.wait_for_function(
        """version => document.getElementById('actions').dataset.version !== String(version)
            || document.getElementById('prompt').textContent.includes('at this table')""",
        arg=version,
        timeout=SECONDS * 1000,
    )
    return kind


def _wait_for_turn_or_end(page: Page) -> int | None:
    """The version at which the page offers the person's actions; None once the table is
    over for them."""
    version: int | None = (
        page.wait_for_function(
            """() => document.getElementById('prompt').textContent.includes('at this table')
            ? {over: true}
            : document.querySelector('#actions button:enabled')
              && {version: Number(document.getElementById('actions').dataset.version)}""",
            timeout=SECONDS * 1000,
        )
        .json_value()
        .get("version")
    )
    return version


def test_a_person_plays_a_whole_table_on_a_phone_against_bots(
    browser: Browser, service_url: str
) -> None:
    api = ApiClient(service_url)
    tournament, organizer = _cup(api)
    site = f"{service_url}/tournaments/{tournament}"
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    context.set_default_timeout(WAIT_MS)
    phone = context.new_page()
    errors = page_errors(phone)

    phone.goto(f"{site}/play")
    phone.fill("#name", PERSON)
    phone.click("#join-button")
    phone.wait_for_function("() => document.getElementById('you-text').textContent.length > 0")
    assert phone.text_content("#you-text") == f"You play as {PERSON}."
    assert phone.locator("#you b, #story b").count() == 0  # the name stayed text
    token = phone.evaluate("Object.values(localStorage).map(JSON.parse)[0].token")
    assert token and token in (phone.get_attribute("#resume-link", "href") or "")

    spectator = browser.new_context(viewport=SCREEN)
    spectator.set_default_timeout(WAIT_MS)
    bracket = spectator.new_page()
    bracket.goto(f"{site}/bracket")
    bracket.evaluate(KEPT)

    results = _bots(service_url, tournament)
    api.ok("POST", f"/tournaments/{tournament}/start", {"seed": "pub"}, token=organizer)

    phone.wait_for_selector("#cup-card:not([hidden])", timeout=WAIT_MS)
    # the header read when the page opened said "1 player · open"; seated, it is current
    phone.wait_for_function(
        "() => document.querySelector('header .badge').textContent === 'running'"
        " && document.querySelector('header .players').textContent === '3 players'"
    )
    table = phone.text_content("#cup-table")
    watch = spectator.new_page()
    watch.goto(f"{site}/tables/{table}/watch")
    watch.evaluate(KEPT)

    clicks = _play_to_the_end(phone, watch, api, site, token)
    assert "announce" in clicks and "throw" in clicks
    prompt = phone.text_content("#prompt") or ""
    assert prompt.startswith("You placed ") and " of 3 at this table" in prompt
    # the result's prompt may come from the action's answer before the story's last push
    phone.wait_for_function(
        "() => document.getElementById('story').textContent.includes('The table is over:')"
    )
    phone.wait_for_function(
        "() => document.getElementById('notice').textContent.includes('tournament is over')",
        timeout=WAIT_MS,
    )
    finished = api.ok("GET", f"/tournaments/{tournament}")
    assert f"Champion: {finished['champion_name']}." in (phone.text_content("#notice") or "")
    screenshot(phone, "play-phone-375-over.png")
    assert sideways_scroll(phone) == 0

    watch.wait_for_function(
        "() => document.getElementById('story').textContent.includes('The table is over:')"
    )
    assert watch.evaluate("window.__notReloaded") is True
    assert watch.text_content("#state") == "over"
    bracket.wait_for_selector(".champion .who", timeout=WAIT_MS)
    assert bracket.text_content(".champion .who") == finished["champion_name"]
    assert bracket.evaluate("window.__notReloaded") is True

    for result in _joined(results):
        assert result.error is None, result.describe()
    assert errors == []
    context.close()
    spectator.close()


def _play_to_the_end(phone: Page, watch: Page, api: ApiClient, site: str, token: str) -> list[str]:
    """Click legal actions at every turn of the person until the table is over (checking
    the secrecy of their dice at their first announcement); the kinds clicked."""
    chance = random.Random(7)
    clicks: list[str] = []
    checked_secrecy = False
    ends = time.monotonic() + SECONDS
    while time.monotonic() < ends:
        version = _wait_for_turn_or_end(phone)
        if version is None:
            assert checked_secrecy
            return clicks
        if not checked_secrecy and phone.locator("#actions button.announce").count():
            _my_throw_is_mine_alone(phone, watch, api, site, token)
            screenshot(phone, "play-phone-375.png")
            assert sideways_scroll(phone) == 0
            checked_secrecy = True
        clicks.append(_take_a_turn(phone, chance, version))
    pytest.fail(f"the table did not end within {SECONDS} s; clicked {clicks}")


def _my_throw_is_mine_alone(
    phone: Page, watch: Page, api: ApiClient, site: str, token: str
) -> None:
    """The person's throw shows under their cup as pips, as /me tells it; the spectator's
    page tells the same throw as hidden under the cup, with no dice drawn for it."""
    table = phone.text_content("#cup-table")
    mine = _view(api, site, str(table), token)
    shown = phone.eval_on_selector_all("#my-dice .die", "dice => dice.map(d => d.dataset.value)")
    dice = [int(value) for value in shown]
    assert dice and dice[0] * 10 + dice[1] == mine["your_throw"]
    told = f"{PERSON} threw under the cup."
    watch.wait_for_function(
        "told => [...document.querySelectorAll('#story li')]"
        ".some(li => li.textContent.includes(told))",
        arg=told,
    )
    latest = watch.locator("#story li", has_text=told).first
    assert latest.locator(".die").count() == 0
    assert str(mine["your_throw"]) not in (latest.text_content() or "")


def _view(api: ApiClient, site: str, table: str, token: str) -> dict[str, Any]:
    path = site.split("://", 1)[1].split("/", 1)[1]
    view: dict[str, Any] = api.ok("GET", f"/{path}/tables/{table}/me", token=token)["view"]
    return view


def _joined(results: list[BotResult]) -> list[BotResult]:
    deadline = time.monotonic() + 30
    while len(results) < len(BOTS) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(results) == len(BOTS), "a bot did not finish"
    return results
