"""The live bracket page in a real browser: headless Chromium against the served stack
after a finished tournament. The screenshot is kept under `test-artifacts/`.

Needs Debian's `chromium` (`.ci/run` installs it). Without it the test is skipped,
unless KNOBELCUP_REQUIRE_BROWSER is set, as CI sets it: there it fails instead.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from browser import FLAGS, chromium_path
from served import play_tournament

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def _browse(chromium: str, *action: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [chromium, "--headless", *FLAGS, f"--user-data-dir={profile}", *action],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    return done.stdout


def test_the_bracket_page_shows_every_round_and_the_champion(service_url: str) -> None:
    chromium = chromium_path()
    finished, bots = play_tournament(service_url, 20)
    page = f"{service_url}/tournaments/{finished['tournament_id']}/bracket"

    dom = _browse(chromium, "--virtual-time-budget=3000", "--dump-dom", page)

    champion = bots.name_of(finished["champion"])
    crowned = re.search(r'<section class="champion">.*?class="who">([^<]*)<', dom, re.S)
    assert crowned is not None and crowned[1] == champion
    rounds = len(finished["rounds"])
    assert rounds >= 3
    for number in range(1, rounds):
        assert f"Round {number}" in dom
    assert "Final" in dom
    assert 'http-equiv="refresh"' not in dom  # finished: the page stops refreshing

    ARTIFACTS.mkdir(exist_ok=True)
    screenshot = ARTIFACTS / "bracket.png"
    screenshot.unlink(missing_ok=True)
    _browse(chromium, f"--screenshot={screenshot}", "--window-size=1400,1000", page)
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
