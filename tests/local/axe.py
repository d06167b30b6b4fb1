"""axe-core (Deque's accessibility engine, MPL-2.0) for the pages' browser tests: fetched
once with `npm pack` at a pinned version into `.test-cache/` (gitignored), then injected
into a page; `violations(page)` lists what it finds that is serious or critical.

CI installs npm beside Chromium (.ci/run). Without npm and without the cached copy a test
is skipped, unless KNOBELCUP_REQUIRE_BROWSER is set: there it fails instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

VERSION = "4.14.1"
CACHE = Path(__file__).resolve().parents[2] / ".test-cache" / f"axe-core-{VERSION}"
# every rule of WCAG 2.0, 2.1 and 2.2 at levels A and AA, and axe's best practices
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def axe_source() -> str:
    """axe.min.js, fetched into the cache the first time."""
    script = CACHE / "axe.min.js"
    if not script.exists():
        npm = shutil.which("npm")
        if npm is None:
            if os.environ.get("KNOBELCUP_REQUIRE_BROWSER"):
                pytest.fail("npm is required here to fetch axe-core (Debian: apt-get install npm)")
            pytest.skip("npm is not installed: no axe-core for the accessibility checks")
        CACHE.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "pack", f"axe-core@{VERSION}", "--silent"],
            cwd=CACHE,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        packed = CACHE / done.stdout.strip().splitlines()[-1]
        with tarfile.open(packed) as archive:
            for name in ("axe.min.js", "LICENSE"):
                member = archive.extractfile(f"package/{name}")
                assert member is not None, name
                (CACHE / f"{name}.part").write_bytes(member.read())
        (CACHE / "LICENSE.part").replace(CACHE / "LICENSE")
        (CACHE / "axe.min.js.part").replace(script)
        packed.unlink()
    return script.read_text(encoding="utf-8")


def violations(page: Page) -> list[dict[str, Any]]:
    """axe's serious and critical violations on `page` as it stands: rule, impact, and
    the first elements each one names."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe_source())  # over the DevTools protocol: the page's CSP stays on
    found: list[dict[str, Any]] = page.evaluate(
        """async (tags) => {
          const result = await axe.run(document, { runOnly: { type: "tag", values: tags } });
          return result.violations.filter(v => v.impact === "serious" || v.impact === "critical")
            .map(v => ({ rule: v.id, impact: v.impact, help: v.help,
                         nodes: v.nodes.slice(0, 5).map(n => n.target.join(" ") + " :: " +
                           (n.failureSummary || "").split("\\n").slice(1, 2).join("")) }));
        }""",
        TAGS,
    )
    return found
