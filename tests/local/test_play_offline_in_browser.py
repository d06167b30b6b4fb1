"""A tap during a signal drop, on the served stack in headless Chromium: the play page
sends the action again with the same Idempotency-Key until the service answers, the
action lands once, and the page never ends with a dead button.

Two people play a table of two on two phones; whoever is to act loses the network
mid-tap (Chromium's offline emulation), or has their first request dropped on the way.
Screenshots: `test-artifacts/play-phone-offline-*.png`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from browser import PHONE, WAIT_MS, chromium, page_errors, screenshot
from playwright.sync_api import Browser, BrowserContext, Page, Route
from served import open_cup

from cli.api_client import ApiClient

SECONDS = WAIT_MS // 1000


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as opened:
        yield opened


def _phones(browser: Browser, api: ApiClient, site: str) -> list[tuple[BrowserContext, Page]]:
    phones = []
    for name in ("Anna", "Bernd"):
        context = browser.new_context(viewport=PHONE, is_mobile=True)
        context.set_default_timeout(WAIT_MS)
        page = context.new_page()
        page.goto(f"{site}/play")
        page.fill("#name", name)
        page.click("#join-button")
        page.wait_for_function("() => document.getElementById('you-text').textContent")
        phones.append((context, page))
    return phones


def _to_act(phones: list[tuple[BrowserContext, Page]]) -> tuple[BrowserContext, Page, int]:
    """The phone whose player is to act, once it offers a throw; the state's version."""
    ends = time.monotonic() + SECONDS
    while time.monotonic() < ends:
        for context, page in phones:
            version = page.evaluate(
                """() => document.querySelector('#actions button[data-kind="throw"]:enabled')
                    ? Number(document.getElementById('actions').dataset.version) : null"""
            )
            if version is not None:
                return context, page, version
        time.sleep(0.1)
    pytest.fail("no phone offered a throw")


def _moved_past(page: Page, version: int) -> None:
    page.wait_for_function(
        "v => Number(document.getElementById('actions').dataset.version) > v"
        " && document.querySelector('#actions button:enabled')",
        arg=version,
    )


def _actions_at(api: ApiClient, site_path: str, table: str, version: int) -> list[dict[str, Any]]:
    log = api.ok("GET", f"{site_path}/tables/{table}/log")
    return [r for r in log["records"] if r["version"] == version + 1]


@pytest.fixture
def table(browser: Browser, service_url: str) -> Iterator[tuple[ApiClient, str, Any]]:
    api = ApiClient(service_url)
    tournament, organizer = open_cup(api, "Funkloch cup", table_size=2, advance=1)
    site = f"{service_url}/tournaments/{tournament}"
    phones = _phones(browser, api, site)
    api.ok("POST", f"/tournaments/{tournament}/start", {"seed": "offline"}, token=organizer)
    yield api, f"/tournaments/{tournament}", phones
    for context, _ in phones:
        context.close()


def _seconds_left(page: Page) -> int:
    text = page.text_content("#countdown") or ""
    assert text.startswith("Your turn: ") and text.endswith(" seconds left"), text
    return int(text.split(": ")[1].split()[0])


def test_the_player_to_act_sees_their_turn_counted_down_from_the_servers_deadline(
    table: tuple[ApiClient, str, list[tuple[BrowserContext, Page]]],
) -> None:
    api, path, phones = table
    _, page, _ = _to_act(phones)
    assert page.title().startswith("▶ Your turn")  # seen from another tab too
    table_ref = page.text_content("#cup-table") or ""
    deadline = api.ok("GET", f"{path}/tables/{table_ref}")["deadline"]
    left = _seconds_left(page)
    assert abs((deadline - time.time()) - left) <= 2, (deadline - time.time(), left)
    page.wait_for_function(
        "s => Number(document.getElementById('countdown').textContent.split(': ')[1]"
        ".split(' ')[0]) < s",
        arg=left,
    )
    [other] = [p for _, p in phones if p is not page]
    assert not other.title().startswith("▶")
    assert (other.text_content("#countdown") or "").endswith("seconds left")


@pytest.mark.parametrize("offline_seconds", [6, 25])
def test_a_throw_tapped_offline_lands_once_when_the_signal_is_back(
    table: tuple[ApiClient, str, list[tuple[BrowserContext, Page]]], offline_seconds: int
) -> None:
    api, path, phones = table
    context, page, version = _to_act(phones)
    errors = page_errors(page)
    sent: list[str] = []
    page.on(
        "request",
        lambda request: (
            sent.append(request.headers.get("idempotency-key", ""))
            if request.method == "POST" and request.url.endswith("/actions")
            else None
        ),
    )
    context.set_offline(True)
    page.locator(f'#actions[data-version="{version}"] button[data-kind="throw"]').click()
    page.wait_for_function(
        "() => document.getElementById('notice').textContent.includes('trying again')"
    )
    assert page.is_visible("#link-state")  # "Offline: retrying"
    time.sleep(offline_seconds)
    screenshot(page, f"play-phone-offline-{offline_seconds}s.png")
    assert page.locator("#actions button:enabled").count() == 0  # on its way, not lost
    context.set_offline(False)

    _moved_past(page, version)  # the throw landed: its announcement buttons are alive
    assert page.locator('#actions button[data-kind="announce"]:enabled').count() > 0
    assert page.is_hidden("#notice")
    assert page.is_hidden("#link-state")
    assert len(sent) >= 2 and len(set(sent)) == 1, "every attempt with the same key"
    table_ref = page.text_content("#cup-table") or ""
    [landed] = _actions_at(api, path, table_ref, version)
    assert landed["action"]["kind"] == "throw"
    assert [e for e in errors if "Failed to fetch" in e or "pageerror" in e] == []


def test_a_dropped_request_is_sent_again_and_no_button_stays_dead(
    table: tuple[ApiClient, str, list[tuple[BrowserContext, Page]]],
) -> None:
    api, path, phones = table
    _, page, version = _to_act(phones)
    errors = page_errors(page)
    keys: list[str] = []

    def drop_the_first(route: Route) -> None:
        keys.append(route.request.headers.get("idempotency-key", ""))
        if len(keys) == 1:
            route.abort("connectionreset")  # sent, never answered
        else:
            route.continue_()

    page.route("**/actions", drop_the_first)
    page.locator(f'#actions[data-version="{version}"] button[data-kind="throw"]').click()
    _moved_past(page, version)
    assert len(keys) == 2 and keys[0] == keys[1]
    table_ref = page.text_content("#cup-table") or ""
    assert len(_actions_at(api, path, table_ref, version)) == 1
    assert errors == []
