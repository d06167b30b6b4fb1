"""The UDP bridge: rounds per second, and the latency it adds to each turn, against the
classic server with the same bots.

    .venv/bin/python bench/udp_bridge.py                              # the bridge only
    .venv/bin/python bench/udp_bridge.py --classic 127.0.0.1:9001     # and the classic server

The bots are `examples/udp_bot.py`, in this process, one socket each; every message they
send or receive is stamped with one monotonic clock, so a turn's latency is read off
their merged timeline:

- roll: a bot's `ROLL` to its `ROLLED`;
- announce: a bot's `ANNOUNCE` to the next `YOUR TURN` that any bot receives;
- see: a bot's `SEE` to the next `YOUR TURN` (a new round has begun by then);
- turn: what one turn waits on the server, roll plus announce, or see.

The bridge (`knobelcup udp-bridge`, a process of its own) plays Mäxchen finals of
`--bots` players on the served stack (`make serve`, a process of its own, memory only),
one after another, with a high penalty limit for long tables. `--classic` names an
original Mia server that is already running (started with `startRoundsEarly` true, so a
round begins once every bot has joined, as the bridge's do); the bots play it for as
long as the bridge took. Both games count their rounds from `SCORE`, which both servers
send once at the end of every round. The script prints figures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cli.api_client import ApiClient  # noqa: E402
from cli.serve import serving_in_background  # noqa: E402
from examples.udp_bot import ALL_DICE, Heard, MiaBot, rank  # noqa: E402

Address = tuple[str, int]
TABLE_SECONDS = 600  # a final that takes longer has gone wrong


@dataclass
class Figures:
    """What one server did with the bots."""

    server: str
    seconds: float
    rounds: int
    turns: int
    roll: list[float]
    announce: list[float]
    see: list[float]
    turn: list[float]

    def row(self) -> str:
        """One line of the table."""
        rounds = self.rounds / self.seconds if self.seconds else 0.0
        turns = self.turns / self.seconds if self.seconds else 0.0
        return (
            f"| {self.server} | {self.rounds} | {self.turns} | {self.seconds:.1f} | "
            f"{rounds:.1f} | {turns:.1f} | "
            f"{_ms(self.roll)} | {_ms(self.announce)} | {_ms(self.see)} | {_ms(self.turn)} |"
        )


def _ms(samples: list[float]) -> str:
    if not samples:
        return "–"
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"{1000 * statistics.median(ordered):.1f} / {1000 * p90:.1f}"


def timeline(bots: Sequence[MiaBot]) -> list[tuple[Heard, str]]:
    """Every message of every bot, in time order, with the bot's name."""
    merged = [(heard, bot.name) for bot in bots for heard in bot.log]
    return sorted(merged, key=lambda item: item[0].at)


def measure(server: str, bots: Sequence[MiaBot], seconds: float) -> Figures:
    """Turn latencies from the bots' merged timeline; rounds from the first bot's SCORE."""
    events = timeline(bots)
    roll: list[float] = []
    announce: list[float] = []
    see: list[float] = []
    turn: list[float] = []
    rolled_in: dict[str, float] = {}  # a bot's ROLL → ROLLED time, until its ANNOUNCE
    for index, (heard, name) in enumerate(events):
        if not heard.sent:
            continue
        command = heard.text.split(";")[0]
        if command == "ROLL":
            answer = _next(events, index, "ROLLED", name)
            if answer is not None:
                rolled_in[name] = answer - heard.at
                roll.append(rolled_in[name])
        elif command in ("ANNOUNCE", "SEE"):
            after = _next(events, index, "YOUR TURN")
            if after is None:
                continue  # the table's last turn
            waited = after - heard.at
            (announce if command == "ANNOUNCE" else see).append(waited)
            turn.append(waited + (rolled_in.pop(name, 0.0) if command == "ANNOUNCE" else 0.0))
    rounds = len(bots[0].heard("SCORE;"))
    turns = sum(len(bot.heard("YOUR TURN;")) for bot in bots)
    return Figures(server, seconds, rounds, turns, roll, announce, see, turn)


def _next(
    events: list[tuple[Heard, str]], index: int, prefix: str, bot: str | None = None
) -> float | None:
    """When the first message after `index` that starts with `prefix` was received (by
    `bot`, or by any bot)."""
    for heard, name in events[index + 1 :]:
        if not heard.sent and heard.text.startswith(prefix) and bot in (None, name):
            return heard.at
    return None


def free_udp_port() -> int:
    """A UDP port nobody listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def new_final(api: ApiClient, bots: int, penalty_limit: int) -> tuple[str, str]:
    """A Mäxchen tournament that is one final of `bots`, open for registration."""
    made = api.ok(
        "POST",
        "/tournaments",
        {
            "game": "maexchen",
            "name": "UDP bench",
            "table_size": bots,
            "advance": 1,
            "options": {"penalty_limit": penalty_limit},
        },
    )
    tid, organizer = made["tournament_id"], made["organizer_token"]
    api.ok("POST", f"/tournaments/{tid}/registration/open", token=organizer)
    return tid, organizer


def play_bridge(url: str, bots: int, penalty_limit: int, state: Path) -> Figures:
    """One final of `bots` classic bots through `knobelcup udp-bridge`."""
    api = ApiClient(url)
    tid, organizer = new_final(api, bots, penalty_limit)
    port = free_udp_port()
    command = ["udp-bridge", "--url", url, "--tournament", tid, "--port", str(port)]
    bridge = subprocess.Popen(
        [sys.executable, "-m", "cli.main", *command, "--state", str(state)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    played: list[MiaBot] = []
    try:
        assert bridge.stdout is not None
        bridge.stdout.readline()  # it listens
        played = [MiaBot(f"b{n}", ("127.0.0.1", port)).start() for n in range(bots)]
        for bot in played:
            bot.registered.wait(10)
        api.ok("POST", f"/tournaments/{tid}/start", token=organizer)
        bridge.wait(timeout=TABLE_SECONDS)
    finally:
        if bridge.poll() is None:
            bridge.kill()
            bridge.wait()
        for bot in played:
            bot.stop()
    first = min(h.at for h in played[0].log if h.text.startswith("ROUND STARTED"))
    last = max(h.at for h in played[0].log if h.text.startswith("SCORE"))
    return measure("bridge", played, last - first)


def play_direct(url: str, bots: int, penalty_limit: int) -> Figures:
    """One final of `bots` players with the same strategy, over the HTTP API directly:
    each turn's latency is the time of its POSTs (no polling: every answer says who is
    next, and a throw's answer holds the dice)."""
    api = ApiClient(url)
    tid, organizer = new_final(api, bots, penalty_limit)
    tokens = {}
    for n in range(bots):
        made = api.ok("POST", f"/tournaments/{tid}/players", {"name": f"h{n}"})
        tokens[made["player_id"]] = made["player_token"]
    api.ok("POST", f"/tournaments/{tid}/start", token=organizer)
    anyone = next(iter(tokens.values()))
    deadline = time.monotonic() + TABLE_SECONDS
    while (table := api.ok("GET", f"/tournaments/{tid}/me", token=anyone)["table"]) is None:
        if time.monotonic() > deadline:
            raise SystemExit(f"tournament {tid} was not seated in {TABLE_SECONDS} s")
        time.sleep(0.05)
    path = f"/tournaments/{tid}/tables/{table}"
    answer = api.ok("GET", path)
    roll: list[float] = []
    announce: list[float] = []
    see: list[float] = []
    turn: list[float] = []
    rounds = 0
    began = time.monotonic()
    while not answer["over"]:
        view = answer["view"]
        action = decide(view)
        sent = time.monotonic()
        answer = api.ok(
            "POST",
            path + "/actions",
            {"version": view["version"], "action": action},
            token=tokens[view["to_act"]],
        )
        took = time.monotonic() - sent
        if action["kind"] == "throw":
            roll.append(took)
        elif action["kind"] == "announce":
            announce.append(took)
            turn.append(took + roll[-1])
        else:
            see.append(took)
            turn.append(took)
        rounds += sum(event["type"] == "PenaltyGiven" for event in answer["events"])
    return Figures(
        "HTTP API, no bridge",
        time.monotonic() - began,
        rounds,
        len(turn),
        roll,
        announce,
        see,
        turn,
    )


def decide(view: dict[str, Any]) -> dict[str, Any]:
    """The UDP bot's strategy (examples/udp_bot.py) on a table view."""
    last = view["announcement"]
    last_dice = None if last is None else (last // 10, last % 10)
    if view["stage"] == "response" and last_dice is not None and rank(last_dice) >= rank((6, 1)):
        return {"kind": "doubt"}
    if view["stage"] in ("opening", "response"):
        return {"kind": "throw"}
    thrown = view["your_throw"]
    value = thrown
    if last_dice is not None and rank((thrown // 10, thrown % 10)) <= rank(last_dice):
        higher = [dice for dice in ALL_DICE if rank(dice) > rank(last_dice)]
        value = 10 * higher[0][0] + higher[0][1] if higher else last
    return {"kind": "announce", "value": value}


def combined(server: str, samples: list[Figures]) -> Figures:
    """The figures of several runs as one."""
    return Figures(
        server,
        sum(f.seconds for f in samples),
        sum(f.rounds for f in samples),
        sum(f.turns for f in samples),
        [x for f in samples for x in f.roll],
        [x for f in samples for x in f.announce],
        [x for f in samples for x in f.see],
        [x for f in samples for x in f.turn],
    )


def play_classic(server: Address, bots: int, seconds: float) -> Figures:
    """The same bots on a running classic server for `seconds`."""
    played = [MiaBot(f"b{n}", server).start() for n in range(bots)]
    try:
        for bot in played:
            if not bot.registered.wait(10) or bot.rejected is not None:
                raise SystemExit(f"the classic server at {server} did not register {bot.name}")
        time.sleep(seconds)
    finally:
        for bot in played:
            bot.stop()
    heard = [h.at for h in played[0].log if h.text.startswith(("ROUND STARTED", "SCORE"))]
    return measure("classic server", played, heard[-1] - heard[0] if heard else 0.0)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the bridge (and the classic server, if named) and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, default=4, help="players at the table (4)")
    parser.add_argument("--tables", type=int, default=3, help="finals through the bridge (3)")
    parser.add_argument("--penalty-limit", type=int, default=20, help="for long tables (20)")
    parser.add_argument("--classic", metavar="HOST:PORT", help="a running classic server")
    args = parser.parse_args(argv)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    state = Path(tempfile.gettempdir()) / f"udp-bench-{os.getpid()}.json"
    through_bridge: list[Figures] = []
    direct: list[Figures] = []
    try:
        with serving_in_background(0, "--dice-seed", "udp-bench") as url:
            for _ in range(args.tables):  # interleaved, so both see the host alike
                through_bridge.append(play_bridge(url, args.bots, args.penalty_limit, state))
                direct.append(play_direct(url, args.bots, args.penalty_limit))
    finally:
        state.unlink(missing_ok=True)
        state.with_name(state.name + ".partial").unlink(missing_ok=True)
    bridge = combined("bridge on the served stack", through_bridge)
    api = combined("HTTP API, no bridge", direct)
    rows = [api, bridge]
    if args.classic:
        host, _, port = args.classic.rpartition(":")
        rows.insert(0, play_classic((host, int(port)), args.bots, bridge.seconds))
    print(f"{args.bots} bots at one table; Python {platform.python_version()}, ", end="")
    print(f"{os.cpu_count()} cores, load average before the run {load}")
    print()
    print(
        "| server | rounds | turns | seconds | rounds/s | turns/s "
        "| roll ms | announce ms | see ms | turn ms |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print(row.row())
    print("\n(latencies: median / 90th percentile)")
    for other in rows[:-1]:
        if bridge.turn and other.turn:
            added = statistics.median(bridge.turn) - statistics.median(other.turn)
            print(f"the bridge's median turn against the {other.server}: {1000 * added:+.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
