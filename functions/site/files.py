"""The site's files, rendered from the pages' code: the play page's shell in each
language and the pages' scripts, each with its type and how long caches keep it."""

from __future__ import annotations

from pathlib import Path

from core.words import LANGUAGES
from functions.pages.play import play_shell
from infra.site_bucket import SiteFile

ASSETS = Path(__file__).resolve().parents[1] / "pages" / "assets"
HTML = "text/html; charset=utf-8"
SCRIPT = "text/javascript; charset=utf-8"
# A deploy's new shell and scripts reach every browser within minutes; a CDN keeps them
# as long, so the bucket is asked about once per edge location every five minutes.
KEPT = "public, max-age=300"


def shell_key(lang: str) -> str:
    """The play page's shell in `lang`, by its key in the bucket."""
    return f"play.{lang}.html"


def site_files(socket: str = "") -> dict[str, SiteFile]:
    """Every file of the site by its key (its path without the leading `/`); the shells
    name `socket` as the WebSocket API's URL ('': `/ws` beside the page)."""
    files = {
        shell_key(lang): SiteFile(play_shell(lang, socket).encode(), HTML, KEPT)
        for lang in LANGUAGES
    }
    for script in sorted(ASSETS.glob("*.js")):
        files[f"assets/{script.name}"] = SiteFile(script.read_bytes(), SCRIPT, KEPT)
    return files
