"""The local service as `make serve` runs it, in a process of its own, for the tests
that talk to it over real HTTP; and a small bot tournament played on it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cli.api_client import ApiClient
from cli.demo_bots import DemoBots, bot_names
from cli.serve import serving_in_background
from core.bracket import BracketPlan


def served() -> Iterator[str]:
    """A fresh local service with repeatable dice; its URL."""
    with serving_in_background(0, "--dice-seed", "tests") as url:
        yield url


def play_tournament(
    url: str, players: int, *, table_size: int = 4, advance: int = 2, game: str = "maexchen"
) -> tuple[dict[str, Any], DemoBots]:
    """Create, fill and start a tournament over HTTP and let bots play it to the end;
    the finished tournament and its bots."""
    api = ApiClient(url)
    created = api.ok(
        "POST",
        "/tournaments",
        {"game": game, "name": "Served cup", "table_size": table_size, "advance": advance},
    )
    tid, organizer = created["tournament_id"], created["organizer_token"]
    api.ok("POST", f"/tournaments/{tid}/registration/open", token=organizer)
    bots = DemoBots(url, tid, game, workers=4)
    bots.register(bot_names(players))
    api.ok("POST", f"/tournaments/{tid}/start", {"seed": "served"}, token=organizer)
    finished = bots.play(BracketPlan.build(players, table_size, advance), lambda _round: None)
    return finished, bots
