"""A person plays a whole Mäxchen table with the keyboard alone (Tab, typing, Enter), in
headless Chromium against two bots: every control is reachable and works without a
pointer, and the focused one shows a ring of at least 2 px; every button is a tap target
of at least 24 px. The story is an aria-live log.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest
from browser import PHONE, WAIT_MS, chromium, page_errors, screenshot
from playwright.sync_api import Browser, Page
from test_play_in_browser import BOTS, _bots, _cup, _joined, _wait_for_turn_or_end

from cli.api_client import ApiClient

SECONDS = WAIT_MS // 1000
FOCUSED = """() => {
  const a = document.activeElement;
  if (!a || a === document.body) return null;
  const style = getComputedStyle(a);
  return { id: a.id, kind: a.dataset.kind || "", truth: a.classList.contains("truth"),
           version: a.closest("#actions") ? a.closest("#actions").dataset.version : null,
           ring: parseFloat(style.outlineWidth) || 0, style: style.outlineStyle };
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as opened:
        yield opened


def _tab_to(page: Page, wanted: str, arg: object = None, presses: int = 80) -> dict[str, object]:
    """Press Tab until the focused element satisfies `wanted` (a JS predicate over what
    FOCUSED reports); what is focused then. Its focus ring must show."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused and page.evaluate(f"([f, arg]) => ({wanted})(f, arg)", [focused, arg]):
            assert focused["ring"] >= 2 and focused["style"] != "none", focused
            return dict(focused)
    pytest.fail(f"Tab never reached {wanted}")


def test_a_person_plays_a_whole_table_with_the_keyboard_alone(
    browser: Browser, service_url: str
) -> None:
    api = ApiClient(service_url)
    tournament, organizer = _cup(api)
    site = f"{service_url}/tournaments/{tournament}"
    page = browser.new_page(viewport=PHONE)
    page.set_default_timeout(WAIT_MS)
    errors = page_errors(page)
    page.goto(f"{site}/play")
    page.wait_for_selector("#join:not([hidden])")
    _tab_to(page, "f => f.id === 'name'")
    page.keyboard.type("Tastatur")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.getElementById('you-text').textContent.length > 0")
    assert page.get_attribute("#story-log", "role") == "log"
    assert page.get_attribute("#story-log", "aria-live") == "polite"

    results = _bots(service_url, tournament)
    api.ok("POST", f"/tournaments/{tournament}/start", {"seed": "keys"}, token=organizer)
    page.wait_for_selector("#cup-card:not([hidden])", timeout=WAIT_MS)

    chance = random.Random(11)
    pressed: list[str] = []
    ends = time.monotonic() + SECONDS
    while time.monotonic() < ends:
        version = _wait_for_turn_or_end(page)
        if version is None:
            break
        small = page.eval_on_selector_all(
            "button:not([hidden]), a.lang-switch",
            "els => els.filter(e => e.offsetParent).map(e => e.getBoundingClientRect())"
            ".filter(r => r.width < 24 || r.height < 24).length",
        )
        assert small == 0, "a tap target under 24 px"
        kinds = page.eval_on_selector_all(
            f'#actions[data-version="{version}"] button:enabled',
            "bs => bs.map(b => b.dataset.kind)",
        )
        if "doubt" in kinds and chance.random() < 0.35:
            wanted = "(f, v) => f.version === v && f.kind === 'doubt'"
        elif "throw" in kinds:
            wanted = "(f, v) => f.version === v && f.kind === 'throw'"
        else:
            wanted = "(f, v) => f.version === v && f.kind === 'announce' && f.truth"
            if not page.locator(f'#actions[data-version="{version}"] button.truth').count():
                wanted = "(f, v) => f.version === v && f.kind === 'announce'"
        focused = _tab_to(page, wanted, str(version))
        if not pressed:
            screenshot(page, "play-keyboard-focus-375.png")
        page.keyboard.press("Enter")
        pressed.append(str(focused["kind"]))
        page.wait_for_function(
            """version => document.getElementById('actions').dataset.version !== String(version)
                || document.getElementById('prompt').textContent.includes('at this table')""",
            arg=version,
            timeout=SECONDS * 1000,
        )
    else:
        pytest.fail(f"the table did not end within {SECONDS} s; pressed {pressed}")
    assert "announce" in pressed and "throw" in pressed
    assert "at this table" in (page.text_content("#prompt") or "")
    for result in _joined(results):
        assert result.error is None, result.describe()
    assert len(BOTS) == 2
    assert errors == []
    page.close()
