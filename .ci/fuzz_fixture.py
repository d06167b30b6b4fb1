"""Tournaments for the fuzzer to reach into (`.ci/fuzz-api`): one open for registration
and one running, each with its organizer token and players; written as JSON to the path
given. Run against the served stack before the fuzzer starts."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from cli.api_client import ApiClient


def cup(api: ApiClient, name: str, players: int, *, start: bool) -> dict[str, Any]:
    """A tournament with `players` registered, started if `start`; what the hooks need."""
    made = api.ok("POST", "/tournaments", {"game": "maexchen", "name": name, "table_size": 3})
    tournament, organizer = made["tournament_id"], made["organizer_token"]
    api.ok("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    seats = [
        api.ok("POST", f"/tournaments/{tournament}/players", {"name": f"{name} {n}"})
        for n in range(players)
    ]
    if start:
        api.ok("POST", f"/tournaments/{tournament}/start", token=organizer)
        ends = time.monotonic() + 60
        while api.ok("GET", f"/tournaments/{tournament}")["status"] != "running":
            if time.monotonic() > ends:
                raise SystemExit(f"{tournament} did not start")
            time.sleep(0.2)
    return {
        "id": tournament,
        "organizer": organizer,
        "players": [{"id": s["player_id"], "token": s["player_token"]} for s in seats],
    }


def main(url: str, out: str) -> None:
    api = ApiClient(url)
    cups = [cup(api, "Open", 3, start=False), cup(api, "Running", 6, start=True)]
    Path(out).write_text(json.dumps({"cups": cups}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
