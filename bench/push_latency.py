"""How soon a bot hears over the WebSocket that it is its turn, on the served stack.

    .venv/bin/python bench/push_latency.py                          # 60 players, a fresh service
    .venv/bin/python bench/push_latency.py --players 300
    .venv/bin/python bench/push_latency.py --think 0.5                # bots that think a bit
    .venv/bin/python bench/push_latency.py --url http://127.0.0.1:3000   # a running make serve

Bots register and play a Mäxchen tournament (tables of 6, 2 go on) to its champion with
no polling at all: each connects to the WebSocket API with its token, and acts when it
hears `your_turn` (on the view it brings, then on each answer's view, until another
player is to act), after `--think` seconds a step, as a player would take. For
every `your_turn` that hands the table to another player, the latency is the time from
the moment the previous action's answer (its acceptance) reached the player who took it
to the moment `your_turn` reached the next one. All bots run in this one process on one
clock (asyncio; HTTP through aiohttp, WebSocket through websockets), beside the service.

The script prints the figures; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from cli.push import bearer, connect_url, socket_url  # noqa: E402
from cli.serve import serving_in_background  # noqa: E402

TARGET_MS = 100.0


@dataclass
class Race:
    """What the bots share: when each action was accepted, and the latencies heard."""

    session: aiohttp.ClientSession
    url: str
    tournament: str
    # (table, version) → who acted to it and when its answer came / who heard it when
    accepted: dict[tuple[str, int], tuple[str, float]] = field(default_factory=dict)
    heard: dict[tuple[str, int], tuple[str, float]] = field(default_factory=dict)
    think: float = 0.0  # seconds a bot waits before each action
    actions: int = 0
    elapsed: float = 0.0
    finished: asyncio.Event = field(default_factory=asyncio.Event)

    def latencies(self) -> list[float]:
        """Seconds from an action's acceptance to `your_turn` at the next player (a push
        may even come before the answer: then it is negative)."""
        return [
            at - self.accepted[key][1]
            for key, (player, at) in self.heard.items()
            if key in self.accepted and self.accepted[key][0] != player
        ]

    async def call(self, method: str, path: str, body: Any = None, token: str = "") -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with self.session.request(
            method, self.url + path, json=body, headers=headers
        ) as answer:
            payload = await answer.json()
            if answer.status >= 400:
                return {"refused": answer.status, **payload}
            return payload


async def bot(race: Race, player: str, token: str, seed: int, ready: asyncio.Event) -> None:
    """One player: connected until the tournament finishes, acting on `your_turn`."""
    rng = random.Random(seed)
    acted_to: dict[str, int] = {}  # table → the version its last own action made
    socket = connect_url(socket_url(race.url), race.tournament)
    async with connect(socket, additional_headers=bearer(token), open_timeout=30) as connection:
        ready.set()
        async for frame in connection:
            heard = time.perf_counter()
            message = json.loads(frame)
            if message["type"] == "tournament_finished":
                race.finished.set()
                return
            if message["type"] == "eliminated":
                return
            if "your_turn" not in message:  # a table_events that hands you the turn
                continue
            table, version = message["table"], message["version"]
            if version <= acted_to.get(table, -1):
                continue  # known from our own action's answer
            race.heard.setdefault((table, version), (player, heard))
            view = message["your_turn"]["view"]
            acted_to[table] = await take_turn(race, player, token, table, view, rng=rng)


async def take_turn(
    race: Race, player: str, token: str, table: str, view: Any, *, rng: random.Random
) -> int:
    """Act at `table` from `view` until another player is to act; the last version
    acted to."""
    path = f"/tournaments/{race.tournament}/tables/{table}"
    version = int(view["version"])
    while view is not None and view["version"] == version and view["to_act"] == player:
        if race.think:
            await asyncio.sleep(race.think)
        action = rng.choice(view["legal_actions"])
        answer = await race.call(
            "POST", path + "/actions", {"version": version, "action": action}, token
        )
        if "refused" in answer:  # a deadline moved the table on: the next push says more
            return version
        version += 1
        race.accepted[(table, version)] = (player, time.perf_counter())
        race.actions += 1
        if answer["over"]:
            return version
        view = answer["view"]
    return version


async def race_on(url: str, players: int, seed: int, think: float) -> Race:
    """Register `players` bots, start, and play to the champion; the measurements."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=32)) as session:
        race = Race(session, url, "", think=think)
        created = await race.call(
            "POST",
            "/tournaments",
            {"game": "maexchen", "name": "Push race", "table_size": 6, "advance": 2},
        )
        race.tournament, organizer = created["tournament_id"], created["organizer_token"]
        await race.call("POST", f"/tournaments/{race.tournament}/registration/open", {}, organizer)
        registered = await asyncio.gather(
            *(
                race.call("POST", f"/tournaments/{race.tournament}/players", {"name": f"b{n}"})
                for n in range(players)
            )
        )
        ready = [asyncio.Event() for _ in registered]
        bots = [
            asyncio.create_task(bot(race, r["player_id"], r["player_token"], seed + n, ready[n]))
            for n, r in enumerate(registered)
        ]
        await asyncio.gather(*(event.wait() for event in ready))
        started = time.perf_counter()
        start = f"/tournaments/{race.tournament}/start"
        await race.call("POST", start, {"seed": str(seed)}, organizer)
        await race.finished.wait()
        race.elapsed = time.perf_counter() - started
        for task in bots:
            task.cancel()
        await asyncio.gather(*bots, return_exceptions=True)
        return race


def report(race: Race, players: int) -> None:
    latencies = sorted(1000 * s for s in race.latencies())
    quantiles = statistics.quantiles(latencies, n=100, method="inclusive")
    p50, p95, p99 = quantiles[49], quantiles[94], quantiles[98]
    rate = race.actions / race.elapsed
    print(
        f"players {players}, think {race.think:g} s, actions {race.actions}"
        f" ({rate:.0f}/s), play {race.elapsed:.1f} s"
    )
    print(f"your_turn to another player, {len(latencies)} measured:")
    print(f"  p50 {p50:.1f} ms   p95 {p95:.1f} ms   p99 {p99:.1f} ms   max {latencies[-1]:.1f} ms")
    print(f"  target p95 <= {TARGET_MS:.0f} ms: {'met' if p95 <= TARGET_MS else 'missed'}")
    load = os.getloadavg()
    print(f"  host: {platform.python_version()}, load average {load[0]:.1f} {load[1]:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--url", help="a running service (default: start a fresh one)")
    parser.add_argument(
        "--think", type=float, default=0.0, help="seconds a bot waits before each action (0)"
    )
    options = parser.parse_args()
    with ExitStack() as stack:
        url = options.url or stack.enter_context(serving_in_background(0, "--dice-seed", "race"))
        race = asyncio.run(race_on(url, options.players, options.seed, options.think))
    report(race, options.players)
    return 0


if __name__ == "__main__":
    sys.exit(main())
