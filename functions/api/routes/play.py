"""The play page, and the scripts every live page loads from the service itself.

The scripts are files beside the pages (`functions/api/pages/assets/`), read once per
container; only those names are served. They stay out of the OpenAPI document.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router

from functions.api.routes.pages import (
    LIVE,
    html_answer,
    page_language,
    socket_url,
    tournament_info,
)
from functions.wiring import services
from infra.errors import NotFound

router = Router()
ASSETS = Path(__file__).resolve().parents[1] / "pages" / "assets"
SCRIPT = "text/javascript; charset=utf-8"
KEPT = "public, max-age=300"  # a deploy's new script reaches every browser within minutes


@router.get(
    "/tournaments/<tournament_id>/play", include_in_schema=False, compress=True, cache_control=LIVE
)
def play_page(tournament_id: str) -> Response[str]:
    """The page a person plays the tournament on, from a phone."""
    from functions.api.pages.play import play_page as page  # noqa: PLC0415

    def drawn() -> str:
        tournament = services().tournaments.get(tournament_id)
        needs_code = bool(tournament.join_code_hash)
        lang, switch = page_language(tournament)
        return page(
            tournament_info(tournament),
            socket_url(),
            join_code_required=needs_code,
            lang=lang,
            switch=switch,
        )

    return html_answer(drawn)


@router.get("/assets/<name>", include_in_schema=False, compress=True, cache_control=KEPT)
def asset(name: str) -> Response[str]:
    """One of the pages' scripts; 404 for any other name."""
    scripts = _scripts()
    if name not in scripts:
        raise NotFound(f"no asset {name}", rule="asset")
    return Response(200, SCRIPT, scripts[name])


@cache
def _scripts() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in ASSETS.glob("*.js")}
