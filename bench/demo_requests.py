"""HTTP requests of polling bots against pushing bots, in the same tournament.

    .venv/bin/python bench/demo_requests.py --players 1000

Starts the local service (repeatable dice) twice, and each time plays the demo's
tournament (Mäxchen, tables of 6, 2 go on, the same seed) with one bot-kit bot per
player (`cli.botkit.run_bot`, the example bots' `decide`), each on a thread of its own:
first polling the table's feed and `/me` every `--poll` seconds, then waiting on the
service's WebSocket pushes. Every HTTP request a bot sends is counted at the client
(a wrapped transport). Prints both counts and how many fewer the pushing bots made.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cli.api_client import ApiClient, RetryPolicy
from cli.botkit import BotResult, load_decider, run_bot
from cli.demo_bots import bot_names
from cli.push_watch import connector
from cli.serve import serving_in_background
from local.lambda_events import HttpAnswer


@dataclass
class Counted:
    """An `ApiClient` whose requests are counted by kind (the path's last part)."""

    client: ApiClient
    counts: Counter[str]
    lock: threading.Lock

    def call(self, method: str, path: str, body: object = None, **request: Any) -> HttpAnswer:
        kind = path.rsplit("/", 1)[-1] if "/tables/" in path or path.endswith("/me") else path
        kind = "round/tournament" if "/tables/" not in path and kind == path else kind
        with self.lock:
            self.counts[f"{method} {kind}"] += 1
        return self.client.call(method, path, body, **request)

    def close(self) -> None:
        self.client.close()


@dataclass
class Run:
    """One tournament's outcome and its bots' requests."""

    seconds: float
    champion: str | None
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def requests(self) -> int:
        return sum(self.counts.values())


def play(args: argparse.Namespace, push: bool) -> Run:
    """A fresh service; the tournament played by `args.players` bots, polling or pushing."""
    seed = ("--dice-seed", f"dice:{args.seed}")
    with serving_in_background(0, *seed) as url:
        organizer_api = ApiClient(url)
        created = organizer_api.ok(
            "POST",
            "/tournaments",
            {"game": "maexchen", "name": "requests", "table_size": 6, "advance": 2},
        )
        tid, organizer = created["tournament_id"], created["organizer_token"]
        organizer_api.ok("POST", f"/tournaments/{tid}/registration/open", token=organizer)
        decide = load_decider("examples.bots.maexchen_honest")
        counts: Counter[str] = Counter()
        lock = threading.Lock()
        results: list[BotResult] = []
        registered = threading.Semaphore(0)

        def bot(name: str) -> None:
            client = Counted(ApiClient(url), counts, lock)
            try:
                results.append(
                    run_bot(
                        client,
                        tid,
                        name,
                        decide,
                        args.poll,
                        on_registered=lambda _: registered.release(),
                        retry=RetryPolicy(budget=600.0),
                        push=connector(url, tid) if push else None,
                    )
                )
            finally:
                client.close()

        threads = [
            threading.Thread(target=bot, args=(n,), daemon=True) for n in bot_names(args.players)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for _ in threads:
            registered.acquire()
        organizer_api.ok("POST", f"/tournaments/{tid}/start", {"seed": args.seed}, token=organizer)
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - started
        final = organizer_api.ok("GET", f"/tournaments/{tid}")
        return Run(seconds, final.get("champion"), counts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--poll", type=float, default=0.5, help="the polling bots' interval")
    args = parser.parse_args(argv)
    runs = {}
    for label, push in (("polling", False), ("pushing", True)):
        run = runs[label] = play(args, push)
        print(
            f"{label}: {run.requests:,} HTTP requests in {run.seconds:.1f} s, "
            f"champion {run.champion}",
            flush=True,
        )
        for kind, count in run.counts.most_common():
            print(f"    {count:>9,}  {kind}")
    polled, pushed = runs["polling"].requests, runs["pushing"].requests
    print(f"pushing / polling: {pushed / polled:.3f} ({1 - pushed / polled:.1%} fewer requests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
