"""Count every AWS operation of a bot tournament on the served stack, and write the
per-unit figures the capacity model reads (core/capacity/calibration.json).

`make calibrate` (or `python -m cli.calibrate --players 300`) starts the local service
as `make serve` runs it, registers the bots with a WebSocket each (as players' phones
have), plays the tournament to its champion, and reads what the stack counted
(`GET /_local/operations`, local/operations.py) after registration and at the end:
registration's calls per player, play's calls per action (every table change), the
progression's per table, and how many actions and turns a table took.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp

from cli.api_client import ApiClient
from cli.calibrate_phones import count_phones
from cli.demo_bots import DemoBots, bot_names
from cli.push import bearer, connect_url, socket_url
from cli.serve import serving_in_background
from cli.stack_counts import settled
from core.bracket import BracketPlan
from core.capacity.calibration import CALIBRATION_FILE, calibrate

CONNECTS_AT_ONCE = 16
# one record a batch and one message a batch; no deadline sweeper
COUNTED_ALONE = {
    "KNOBELCUP_LOCAL_STREAM_BATCH": "1",
    "KNOBELCUP_LOCAL_QUEUE_BATCH": "1",
    "KNOBELCUP_LOCAL_SWEEP_SECONDS": "inf",
}
BOT_WORKERS = 8  # tables moved at once (each a thread taking turns over HTTP)
CONNECT_SECONDS = 600.0


@contextmanager
def counted_alone() -> Iterator[None]:
    """Services started inside hand their stream readers one record a batch and their
    queue consumers one message a batch: a table's changes are never merged in a batch
    (`infra/outbox/timers.py: last_changes`) nor a round's events in one invocation, as
    at people's pace on AWS, so the counts per action do not depend on how busy the host
    is; and run no deadline sweeper (it moves the `due_at` of every table in play once a
    minute: writes by the clock, which the model counts apart, docs/capacity.md)."""
    saved = {name: os.environ.get(name) for name in COUNTED_ALONE}
    os.environ.update(COUNTED_ALONE)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


@contextmanager
def sockets_open(url: str, tournament: str, tokens: Sequence[str]) -> Iterator[list[int]]:
    """A WebSocket per token, each message read and dropped, on a thread of its own;
    yields the list of messages heard per socket (filled as they come)."""
    heard = [0] * len(tokens)
    ready = threading.Event()
    stop: asyncio.Event | None = None
    loop = asyncio.new_event_loop()

    async def run() -> None:
        nonlocal stop
        stop = asyncio.Event()
        socket = socket_url(url)
        # no cap on connections: each socket holds one for the whole tournament
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            at_once = asyncio.Semaphore(CONNECTS_AT_ONCE)

            async def connect(token: str) -> aiohttp.ClientWebSocketResponse:
                async with at_once:
                    return await session.ws_connect(
                        connect_url(socket, tournament), headers=bearer(token)
                    )

            sockets = await asyncio.gather(*(connect(token) for token in tokens))

            async def drain(number: int, ws: aiohttp.ClientWebSocketResponse) -> None:
                async for _message in ws:
                    heard[number] += 1

            readers = [asyncio.create_task(drain(n, ws)) for n, ws in enumerate(sockets)]
            ready.set()
            await stop.wait()
            for ws in sockets:
                await ws.close()
            await asyncio.gather(*readers, return_exceptions=True)

    thread = threading.Thread(target=loop.run_until_complete, args=(run(),), daemon=True)
    thread.start()
    if not ready.wait(CONNECT_SECONDS):
        raise TimeoutError("the sockets did not connect")
    try:
        yield heard
    finally:
        assert stop is not None
        loop.call_soon_threadsafe(stop.set)
        thread.join(30)


def play_counted(
    url: str, players: int, *, game: str = "maexchen", table_size: int = 6, advance: int = 2
) -> dict[str, Any]:
    """Play a bot tournament of `players` with a socket each; the counts after
    registration and at the end, and the tournament's shape."""
    api = ApiClient(url)
    before = settled(url)
    created = api.ok(
        "POST",
        "/tournaments",
        {"game": game, "name": "Calibration", "table_size": table_size, "advance": advance},
    )
    tournament, organizer = created["tournament_id"], created["organizer_token"]
    api.ok("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    bots = DemoBots(url, tournament, game, workers=BOT_WORKERS)
    bots.register(bot_names(players))
    with sockets_open(url, tournament, [seat.token for seat in bots.seats.values()]) as heard:
        registered = settled(url)
        started = time.monotonic()
        api.ok("POST", f"/tournaments/{tournament}/start", {"seed": "calibration"}, token=organizer)
        plan = BracketPlan.build(players, table_size, advance)
        bots.play(plan, lambda _round: None)
        finished = settled(url)
        seconds = time.monotonic() - started
    return {
        "game": game,
        "players": players,
        "table_size": table_size,
        "advance": advance,
        "before": before,
        "registered": registered,
        "finished": finished,
        "seconds": round(seconds, 1),
        "messages_heard": sum(heard),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Play, count, write the calibration file; then count people's phones into it."""
    parser = argparse.ArgumentParser(prog="calibrate", description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--game", default="maexchen")
    parser.add_argument("--table-size", type=int, default=6)
    parser.add_argument("--advance", type=int, default=2)
    parser.add_argument("--dice-seed", default="calibration")
    parser.add_argument("--out", type=Path, default=CALIBRATION_FILE)
    parser.add_argument(
        "--phones-only",
        action="store_true",
        help="count only the phones (needs Chromium) and keep the file's tournament figures",
    )
    args = parser.parse_args(argv)
    with counted_alone(), serving_in_background(0, "--dice-seed", args.dice_seed) as url:
        if args.phones_only:
            calibration = json.loads(args.out.read_text(encoding="utf-8"))
        else:
            run = play_counted(
                url, args.players, game=args.game, table_size=args.table_size, advance=args.advance
            )
            calibration = calibrate(run)
            print(f"{args.out}: {args.players} players in {run['seconds']} s", file=sys.stderr)
        calibration.update(count_phones(url))
    args.out.write_text(json.dumps(calibration, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
