"""How the pages look in headless Chromium, on a 375×812 phone and a 1920×1080 screen:
the play, watch and bracket pages of a running and of a finished tournament, and the
bracket's projector view. Screenshots go to `test-artifacts/` (look at them); here it is
checked that nothing scrolls sideways on the phone, that the projector view fits its
screen with no text under 14 px and carries the QR code to the play page, and that the
pages draw what they are given without script errors.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from axe import violations
from browser import PHONE, SCREEN, WAIT_MS, chromium, page_errors, screenshot, sideways_scroll
from playwright.sync_api import Browser, Page
from served import open_cup, play_tournament

from cli.api_client import ApiClient
from cli.demo_bots import bot_names
from functions.pages.qr import qr_svg

SIZES = {"375": PHONE, "1920": SCREEN}
SMALLEST_TEXT = """() => {
  let smallest = 1000;
  for (const element of document.querySelectorAll('body *')) {
    const own = [...element.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    const box = element.getBoundingClientRect();
    if (!own || box.width === 0 || box.height === 0) continue;
    smallest = Math.min(smallest, parseFloat(getComputedStyle(element).fontSize));
  }
  return smallest;
}"""
# Text that does not show whole: cut by its box (an ellipsis, hidden overflow) or by the
# screen's edge.
CUT_OFF = """() => {
  const cut = [];
  for (const element of document.querySelectorAll('body *')) {
    const own = [...element.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    const box = element.getBoundingClientRect();
    if (!own || box.width === 0 || box.height === 0) continue;
    if (element.closest('svg, .sr')) continue;
    if (element.scrollWidth > element.clientWidth + 1 && element.clientWidth > 0
        || box.right > innerWidth + 1 || box.bottom > innerHeight + 1) {
      cut.push(element.textContent.trim().slice(0, 40));
    }
  }
  return cut;
}"""
# Texts of the bracket picture that overlap one another (any two boxes intersecting).
OVERLAPS = """() => {
  const boxes = [...document.querySelectorAll('svg.bracket text')]
    .map(t => [t.textContent.trim(), t.getBoundingClientRect()]).filter(([, r]) => r.width > 0);
  const hit = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [a, r] = boxes[i], [b, q] = boxes[j];
    if (r.left < q.right - 1 && q.left < r.right - 1
        && r.top < q.bottom - 1 && q.top < r.bottom - 1) {
      hit.push(a + " / " + b);
    }
  }
  return hit;
}"""
# The round headings of the projector that take more than one line: the lines of a
# heading are the distinct tops of its text's boxes.
WRAPPED_HEADINGS = """() => [...document.querySelectorAll('.round h2')].filter(h => {
  const range = document.createRange();
  range.selectNodeContents(h);
  const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
  return tops.size > 1 || h.scrollWidth > h.clientWidth + 1;
}).map(h => h.textContent)"""
SEATS: dict[str, dict[str, str]] = {}  # tournament -> player id -> token (the running one)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as opened:
        yield opened


@pytest.fixture(scope="module")
def finished(service_url: str) -> dict[str, Any]:
    """A finished tournament of 20 bots, and a token of one of them."""
    tournament, bots = play_tournament(service_url, 20)
    seat = next(iter(bots.seats.values()))
    return {**tournament, "token": seat.token, "name": seat.name}


@pytest.fixture(scope="module")
def running(service_url: str) -> str:
    """A started tournament of 24 players at tables of 4, R1-1 some turns in."""
    api = ApiClient(service_url)
    tournament, organizer = open_cup(api, "Zum Goldenen Würfel", table_size=4, advance=2)
    tokens = {}
    for name in bot_names(24):
        player = api.ok("POST", f"/tournaments/{tournament}/players", {"name": name})
        tokens[player["player_id"]] = player["player_token"]
    SEATS[str(tournament)] = tokens
    api.ok("POST", f"/tournaments/{tournament}/start", {"seed": "looks"}, token=organizer)
    deadline = time.monotonic() + 30
    while api.ok("GET", f"/tournaments/{tournament}")["status"] != "running":
        assert time.monotonic() < deadline, "the start job did not seat round 1"
        time.sleep(0.2)
    path = f"/tournaments/{tournament}/tables/R1-1"
    chance = random.Random(5)
    for _ in range(12):
        player = api.ok("GET", path)["view"]["to_act"]
        view = api.ok("GET", path + "/me", token=tokens[player])["view"]
        action = chance.choice(view["legal_actions"])
        api.ok(
            "POST",
            path + "/actions",
            {"version": view["version"], "action": action},
            token=tokens[player],
        )
    return str(tournament)


def _open(browser: Browser, url: str, size: str) -> tuple[Page, list[str]]:
    page = browser.new_page(viewport=SIZES[size])
    page.set_default_timeout(WAIT_MS)
    errors = page_errors(page)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    return page, errors


def _looks_right(page: Page, errors: list[str], name: str, size: str) -> None:
    screenshot(page, f"{name}-{size}.png")
    if size == "375":
        assert sideways_scroll(page) == 0, f"{name} scrolls sideways on a phone"
    assert errors == [], errors
    page.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_running_tournament_looks_right(
    browser: Browser, service_url: str, running: str, size: str
) -> None:
    site = f"{service_url}/tournaments/{running}"
    page, errors = _open(browser, f"{site}/tables/R1-1/watch", size)
    story = page.locator("#story li")
    assert story.count() == 13  # the seating and 12 turns, a sentence each at least
    assert page.locator("#story li .die").count() >= 1 or "doubted" not in page.content()
    assert "Dice thrown" not in (page.text_content("#story") or "")
    _looks_right(page, errors, "watch-running", size)

    page, errors = _open(browser, f"{site}/bracket", size)
    assert page.locator(".chips a.playing").count() == 6
    assert page.evaluate("document.documentElement.dataset.live") == "in place"
    assert page.evaluate(OVERLAPS) == []
    _looks_right(page, errors, "bracket-running", size)
    page, errors = _open(browser, f"{site}/bracket?lang=de", size)
    assert page.evaluate(OVERLAPS) == []
    _looks_right(page, errors, "bracket-running-de", size)

    page, errors = _open(browser, f"{site}/play", size)
    assert page.is_visible("#join") and "closed" in (page.text_content("#notice") or "")
    _looks_right(page, errors, "play-closed", size)


def test_the_story_and_the_facts_of_a_table_speak_german(
    browser: Browser, service_url: str, running: str
) -> None:
    """The watch page in German tells the table in German (the catalogue's story.*, as
    the console tells it) and names what stands at the table in words, never raw keys."""
    site = f"{service_url}/tournaments/{running}"
    page, errors = _open(browser, f"{site}/tables/R1-1/watch?lang=de", "375")
    page.wait_for_selector("#story li")
    told = page.text_content("#story") or ""
    assert "Tisch R1-1 (Mäxchen):" in told and "kommen weiter." in told, told
    assert "Runde 1:" in told and "würfelt" in told, told
    for english in (" threw ", " announced ", " doubted ", "Round ", " starts", "Table "):
        assert english not in told, (english, told)
    facts = page.text_content(".facts") or ""
    assert "Phase" in facts and "stage" not in facts, facts
    assert not any(raw in facts for raw in ("opening", "response", "announce")), facts
    _looks_right(page, errors, "watch-running-de", "375")


@pytest.mark.parametrize("size", SIZES)
def test_a_finished_tournament_looks_right(
    browser: Browser, service_url: str, finished: dict[str, Any], size: str
) -> None:
    site = f"{service_url}/tournaments/{finished['tournament_id']}"
    page, errors = _open(browser, f"{site}/bracket", size)
    assert page.text_content(".champion .who") == finished["champion_name"]
    assert page.evaluate(OVERLAPS) == []
    _looks_right(page, errors, "bracket-finished", size)

    page, errors = _open(browser, f"{site}/tables/R1-1/watch", size)
    assert "The table is over:" in (page.text_content("#story") or "")
    assert page.locator("#story li .die").count() > 0  # every throw is revealed
    _looks_right(page, errors, "watch-finished", size)

    page, errors = _open(browser, f"{site}/play#token={finished['token']}", size)
    page.wait_for_function("() => document.getElementById('notice').textContent.includes('over')")
    assert "#token" not in page.url  # the token left the address bar
    assert page.text_content("#you-text", timeout=5000)
    told = page.text_content("#story") or ""
    assert "p-" not in told and "You " in told  # players by name, the bot itself as "you"
    _looks_right(page, errors, "play-finished", size)


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("which", ["running", "finished"])
def test_the_projector_view_fits_one_screen_in_large_type(  # noqa: PLR0917  # fixtures
    browser: Browser,
    service_url: str,
    running: str,
    finished: dict[str, Any],
    which: str,
    lang: str,
) -> None:
    tournament = running if which == "running" else finished["tournament_id"]
    site = f"{service_url}/tournaments/{tournament}"
    page, errors = _open(browser, f"{site}/bracket?projector=1&lang={lang}", "1920")
    size = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    assert size == [1920, 1080], "the projector view must fit one screen"
    assert page.evaluate(SMALLEST_TEXT) >= 14
    assert page.evaluate(CUT_OFF) == [], "text cut off on the projector"
    headings = page.locator(".round h2")
    assert headings.count() >= 3 and page.evaluate(WRAPPED_HEADINGS) == [], "a heading wraps"
    tops = page.eval_on_selector_all(".cards", "els => els.map(e => e.getBoundingClientRect().top)")
    assert len(set(tops)) == 1, "the rounds' first cards stand on one line"
    names = page.eval_on_selector_all(
        ".tbl .names span, .standings li",
        "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))",
    )
    assert names and min(names) >= 32, "player names under 32 px on the projector"
    assert page.text_content(".url") == f"{site}/play"
    modules = page.get_attribute('.qr svg path[stroke="#000"]', "d")
    assert modules and f'd="{modules}"' in qr_svg(f"{site}/play")  # the code of that address
    assert page.locator(".tbl").count() >= 1
    if which == "finished":
        assert page.text_content(".crown .who") == finished["champion_name"]
        assert page.locator(".standings li").count() == 10
    else:
        still_in = {"en": "24 of 24 players still in", "de": "24 von 24 Spieler noch dabei"}
        assert still_in[lang] in (page.text_content(".standings") or "")
    suffix = "" if lang == "en" else "-de"
    _looks_right(page, errors, f"bracket-projector-{which}{suffix}", "1920")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_pages_pass_axe_in_both_languages(
    browser: Browser, service_url: str, running: str, lang: str
) -> None:
    """axe-core finds nothing serious or critical on play (joining, and at a table),
    watch, bracket and projector, in English and in German."""
    site = f"{service_url}/tournaments/{running}"
    to_act = ApiClient(service_url).ok("GET", f"/tournaments/{running}/tables/R1-1")["view"]
    token = SEATS[running][to_act["to_act"]]
    pages = {
        "play-join": (f"{site}/play?lang={lang}", "375"),
        "play-table": (f"{site}/play?lang={lang}#token={token}", "375"),
        "watch": (f"{site}/tables/R1-1/watch?lang={lang}", "375"),
        "bracket": (f"{site}/bracket?lang={lang}", "375"),
        "projector": (f"{site}/bracket?projector=1&lang={lang}", "1920"),
    }
    found: dict[str, list[dict[str, Any]]] = {}
    for name, (url, size) in pages.items():
        page, errors = _open(browser, url, size)
        assert page.get_attribute("html", "lang") == lang
        if name == "play-table":
            page.wait_for_selector("#actions button:enabled")
            assert page.get_attribute("#story-log", "role") == "log"
        found[name] = violations(page)
        if lang == "de" and name in ("play-table", "projector"):
            picture = f"{name}-de-{size}.png"
            screenshot(page, picture)
        assert errors == [], errors
        page.close()
    bad = {name: v for name, v in found.items() if v}
    assert not bad, f"{lang}: {json.dumps(bad, indent=1, ensure_ascii=False)}"
