"""Headless Chromium for the pages' tests, driven by Playwright: Debian's `chromium`,
launched by its path (Playwright's own browser download is never used).

Without Chromium a test is skipped, unless KNOBELCUP_REQUIRE_BROWSER is set, as CI sets
it: there it fails instead. Screenshots are kept under `test-artifacts/`.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# how long a page may take to show what a test waits for: generous, since a busy machine
# runs the service, the bots and the browser at once (a passing test never waits it out)
WAIT_MS = 120_000
PHONE = {"width": 375, "height": 812}
SCREEN = {"width": 1920, "height": 1080}
# Without the background-networking flags Chromium keeps calling home, which a closed
# network refuses, slowly.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def chromium_path() -> str:
    """Debian's Chromium, or a skip (a failure where the browser is required)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("KNOBELCUP_REQUIRE_BROWSER"):
            pytest.fail("Chromium is required here but not installed (Debian: chromium)")
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    return found


@contextmanager
def chromium() -> Iterator[Browser]:
    """One headless Chromium for a test module."""
    path = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


def screenshot(page: Page, name: str) -> Path:
    """A screenshot of the whole page in `test-artifacts/`; its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    path.unlink(missing_ok=True)
    page.screenshot(path=str(path), full_page=True)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return path


def sideways_scroll(page: Page) -> int:
    """How many pixels the page is wider than the window (0: no sideways scrolling)."""
    width: int = page.evaluate(
        "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
        " - window.innerWidth"
    )
    return max(0, width)


def page_errors(page: Page) -> list[str]:
    """Collects the page's uncaught script errors, what its Content-Security-Policy
    refused, and the answers of 400 and above it got (but 401 and 409: a page shows
    those to the person), from now on."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: (
            errors.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.on(
        "response",
        lambda answer: (
            errors.append(f"{answer.status} {answer.url}")
            if answer.status >= 400 and answer.status not in (401, 409)
            else None
        ),
    )
    return errors
