"""The local service as `make serve` runs it, in a process of its own, for the tests
that talk to it over real HTTP; and a small bot tournament played on it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from suite_dice import suite_seed

from cli.api_client import ApiClient
from cli.demo_bots import DemoBots, bot_names
from cli.serve import serving_in_background
from core.bracket import BracketPlan


def served() -> Iterator[str]:
    """A fresh local service with repeatable dice; its URL."""
    with serving_in_background(0, "--dice-seed", suite_seed("tests")) as url:
        yield url


def play_tournament(
    url: str, players: int, *, table_size: int = 4, advance: int = 2, game: str = "maexchen"
) -> tuple[dict[str, Any], DemoBots]:
    """Create, fill and start a tournament over HTTP and let bots play it to the end;
    the finished tournament and its bots."""
    api = ApiClient(url)
    tid, organizer = open_cup(api, "Served cup", table_size, advance, game)
    bots = DemoBots(url, tid, game, workers=4)
    bots.register(bot_names(players))
    api.ok("POST", f"/tournaments/{tid}/start", {"seed": "served"}, token=organizer)
    finished = bots.play(BracketPlan.build(players, table_size, advance), lambda _round: None)
    return finished, bots


def open_cup(
    api: ApiClient, name: str, table_size: int, advance: int, game: str = "maexchen"
) -> tuple[str, str]:
    """A new tournament open for registration: its id and the organizer's token."""
    created = api.ok(
        "POST",
        "/tournaments",
        {"game": game, "name": name, "table_size": table_size, "advance": advance},
    )
    tournament, organizer = created["tournament_id"], created["organizer_token"]
    api.ok("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    return tournament, organizer


@contextmanager
def serve_in_session(
    *args: str, port: str | None = "0"
) -> Iterator[tuple[subprocess.Popen[str], str, str]]:
    """`make serve --port PORT` (any free port; None: no --port) with `args` in a session
    of its own, as a terminal runs it; (process, its URL, what it printed) once it prints
    that Ctrl-C stops it. Killed with everything it started, if still running at the end."""
    ports = [] if port is None else ["--port", port]
    serve = subprocess.Popen(
        [sys.executable, "-m", "cli.serve", *ports, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    try:
        assert serve.stdout is not None
        lines = []
        for line in serve.stdout:
            lines.append(line)
            if "Ctrl-C" in line:
                break
        url = next(line.split()[-1] for line in lines if line.strip().startswith("API "))
        yield serve, url, "".join(lines)
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
        serve.communicate()


def lan_address() -> str:
    """This machine's address on its network (where a phone on the same Wi-Fi would
    reach it): the source of its default route, found without sending anything."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("198.51.100.1", 9))  # TEST-NET-2; connect() sends nothing
        address: str = probe.getsockname()[0]
    assert not address.startswith("127."), "these tests need an address beside loopback"
    return address
