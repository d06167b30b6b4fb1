"""What a person's phone asks of AWS to take part: the play page and its scripts (from
the site's CloudFront distribution: `cdn:` counts, and the bytes it sent), the
registration, the reads on entering, the socket's one-use ticket, its connect and, in the
end, its disconnect. Counted on the served stack with Chromium opening the page as a
phone does (Playwright, driving Debian's `chromium`), one phone after another, each
settled before the next; the capacity model plans people with these figures, bots with
the bots' registration (`core/capacity/calibration.py: Calibration.per_person`).
"""

from __future__ import annotations

import shutil
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Browser, ViewportSize, sync_playwright

from cli.api_client import ApiClient
from cli.stack_counts import settled
from core.capacity.calibration import per_unit
from functions.site.routing import site_key

PHONES = 3
PHONE: ViewportSize = {"width": 375, "height": 812}
WAIT_MS = 60_000


def count_phones(url: str, phones: int = PHONES) -> dict[str, Any]:
    """Per phone joining a tournament on the served stack at `url` (registered, its
    socket connected, then closed): each operation's count (`per_phone`) and the
    DynamoDB units (`per_phone_units`)."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise SystemExit("counting phones needs Chromium (Debian: apt-get install chromium)")
    api = ApiClient(url)
    created = api.ok("POST", "/tournaments", {"game": "maexchen", "name": "Phones"})
    tournament, organizer = created["tournament_id"], created["organizer_token"]
    api.ok("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    before = settled(url)
    site_bytes = 0
    with sync_playwright() as playwright:
        for number in range(phones):  # a browser each: nothing cached from another phone
            browser = playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])
            try:
                play = f"{url}/tournaments/{tournament}/play"
                site_bytes += _join(browser, url, play, f"Phone {number + 1}")
            finally:
                browser.close()
    calls, units = per_unit(settled(url), before, phones)
    return {
        "per_phone": calls,
        "per_phone_units": units,
        "per_phone_site_bytes": site_bytes // phones,
    }


def _join(browser: Browser, url: str, play_url: str, name: str) -> int:
    """One phone: open the play page, join, wait until its socket is connected (the
    counts settle), then close it and wait for its disconnect; the bytes the site sent
    it (headers and the compressed bodies), which CloudFront bills."""
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    from_site = []
    page.on(
        "requestfinished",
        lambda request: from_site.append(request) if site_key(urlsplit(request.url).path) else None,
    )
    page.goto(play_url)
    page.fill("#name", name)
    page.click("#join-button")
    page.wait_for_function("() => document.getElementById('you-text').textContent.length > 0")
    settled(url)  # its socket connected...
    page.wait_for_load_state("networkidle")  # ...and what it reads then, read
    sizes = [request.sizes() for request in from_site]
    context.close()
    return sum(size["responseBodySize"] + size["responseHeadersSize"] for size in sizes)
