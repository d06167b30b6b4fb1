"""The local stack's cost per bot action, variants side by side in one run.

    .venv/bin/python bench/local_actions.py                       # 150 players, 2 repeats
    .venv/bin/python bench/local_actions.py --players 300 --repeats 3 --variants before after

Each sample starts the local service (what `make serve` runs, in a process of its own,
as `make demo` starts it) in one variant, lets the demo's bots play a Mäxchen tournament
over HTTP to its champion, and reports the wall time of play per bot action and the AWS
calls the service's own process made (the timers, the Scheduler stand-in, the stream
and queue pollers, progression; the API workers' calls, a GetItem and a conditional
PutItem per action and a GetItem per turn for the bot's view, are the same in every
variant). The variants run interleaved, so that the shared machine's slow and fast
phases fall on all of them alike; compare ratios from one run, not figures across runs.

- `before`: the timers as they were, one deadline per table version (a CreateSchedule
  and a DeleteSchedule for every action a stream batch does not fold away), and the
  delivery runner's old cadence, stream and queues polled every 0.1 s;
- `per-turn`: one deadline per turn (a Mäxchen throw and its announcement share one),
  the old cadence;
- `after`: one deadline per turn and the runner's cadence as it is (every 0.25 s, as
  Lambda polls a stream shard);
- `after-3-workers`: `after` with three API worker processes instead of `make serve`'s
  two (not run unless named: `--variants after after-3-workers`).

The script prints figures; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from infra.outbox.publisher import StreamChange  # noqa: E402
from infra.outbox.timers import TurnTimers  # noqa: E402
from infra.store.table_item import from_item  # noqa: E402

VARIANTS = ("before", "per-turn", "after", "after-3-workers")
OLD_POLL_SECONDS = 0.1  # the runner's stream and queue cadence before


# --- the service's side: one variant, its AWS calls counted -----------------------------


def serve(variant: str) -> None:
    """Run the local service in `variant` until stdin closes; print its URL first and
    its AWS calls (`service.operation` → count) last, as JSON lines."""
    import boto3  # noqa: PLC0415

    calls: Counter[str] = Counter()

    def count(model: Any, **_: Any) -> None:
        calls[f"{model.service_model.service_name}.{model.name}"] += 1

    boto3.setup_default_session()
    boto3.DEFAULT_SESSION.events.register("before-call", count)

    from local import service  # noqa: PLC0415

    if variant in ("before", "per-turn"):
        service.POLL_SECONDS = OLD_POLL_SECONDS
    workers = 3 if variant == "after-3-workers" else 2
    with service.running_service(port=0, api_workers=workers) as running:
        # imported once the service has set the environment the functions read
        from functions.timers import app as timers_app  # noqa: PLC0415

        if variant == "before":
            current = timers_app.timers()
            timers_app.timers.use(PerVersionTimers(current._client, current._settings))
        calls.clear()  # provisioning is not play
        print(json.dumps({"url": running.url}), flush=True)
        sys.stdin.read()  # until the bench closes it
        print(json.dumps({"calls": dict(calls)}), flush=True)


class PerVersionTimers(TurnTimers):
    """The timers before one deadline per turn: every version in play its own schedule."""

    def on_table_change(self, change: StreamChange, replaces: int | None = -1) -> None:
        if change.new is None or change.new.get("kind", {}).get("S") != "table":
            return
        table = from_item(change.new)
        if table.bye:
            return
        previous = replaces
        if previous == -1:
            previous = int(change.old["version"]["N"]) if change.old is not None else None
        if previous == table.version:
            return
        if not table.over:
            self.schedule_turn(table, table.version, None, change.at)
        if previous is not None:
            self.cancel(table.tournament, table.ref, previous)


# --- the bench's side: start a service per sample, play, collect ------------------------


def sample(variant: str, players: int, seed: str, workers: int) -> dict[str, Any]:
    """One tournament on a fresh service in `variant`: play time, actions, AWS calls."""
    from cli.api_client import ApiClient  # noqa: PLC0415
    from cli.demo import _example_bots  # noqa: PLC0415
    from cli.demo_bots import DemoBots, bot_names  # noqa: PLC0415
    from core.bracket import BracketPlan  # noqa: PLC0415

    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", variant],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        url = _line_with(process.stdout, "url")
        api = ApiClient(url)
        created = api.ok(
            "POST",
            "/tournaments",
            {"game": "maexchen", "table_size": 6, "advance": 2, "options": {}},
        )
        tid, organizer = created["tournament_id"], created["organizer_token"]
        api.ok("POST", f"/tournaments/{tid}/registration/open", token=organizer)
        bots = DemoBots(url, tid, "maexchen", workers=workers, deciders=_example_bots("maexchen"))
        bots.register(bot_names(players))
        api.ok("POST", f"/tournaments/{tid}/start", {"seed": seed}, token=organizer)
        while api.ok("GET", f"/tournaments/{tid}")["status"] == "starting":
            time.sleep(0.1)
        plan = BracketPlan.build(players, 6, 2)
        cpu_before = process_tree_cpu(process.pid)
        started = time.perf_counter()
        bots.play(plan, lambda _round: None)
        elapsed = time.perf_counter() - started
        cpu = process_tree_cpu(process.pid)
        cpu = {kind: seconds - cpu_before.get(kind, 0.0) for kind, seconds in cpu.items()}
        process.stdin.close()
        calls = _line_with(process.stdout, "calls")
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait(timeout=60)
    return {
        "variant": variant,
        "seconds": elapsed,
        "actions": bots.actions,
        "calls": calls,
        "cpu": cpu,
    }


def process_tree_cpu(pid: int) -> dict[str, float]:
    """CPU seconds (user + system) of the service process and its children by kind:
    `service` (HTTP front, delivery runner, the handlers it runs), `moto`, `api workers`.
    From /proc (Linux); empty where there is none."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[str, float] = {}
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            stat = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            command = Path(f"/proc/{current}/cmdline").read_bytes().replace(b"\0", b" ")
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        kind = (
            "moto"
            if b"moto_atomic" in command
            else "api workers"
            if b"multiprocessing" in command
            else "service"
        )
        # fields 14 and 15 of stat (utime, stime), counted after the command's ")"
        found[kind] = found.get(kind, 0.0) + (int(stat[11]) + int(stat[12])) / tick
        pending.extend(int(child) for child in children)
    return found


def _line_with(stream: Any, key: str) -> Any:
    """The value under `key` of the next JSON line that has it (logs may come between)."""
    for line in stream:
        if line.startswith("{"):
            found = json.loads(line)
            if key in found:
                return found[key]
    raise RuntimeError(f"the service ended without saying its {key}")


def report(samples: list[dict[str, Any]], variants: Sequence[str]) -> None:
    """Per variant: ms per action (median and each sample), AWS calls per action."""
    per_action: dict[str, list[float]] = {v: [] for v in variants}
    calls: dict[str, Counter[str]] = {v: Counter() for v in variants}
    actions: Counter[str] = Counter()
    for found in samples:
        per_action[found["variant"]].append(1000 * found["seconds"] / found["actions"])
        calls[found["variant"]].update(found["calls"])
        actions[found["variant"]] += found["actions"]
    base = statistics.median(per_action[variants[0]])
    print(f"\n{'variant':<20} {'ms/action median':>17} {'ratio':>6}  samples (ms/action)")
    for variant in variants:
        median = statistics.median(per_action[variant])
        each = ", ".join(f"{x:.2f}" for x in per_action[variant])
        print(f"{variant:<20} {median:>17.2f} {median / base:>6.2f}  {each}")
    cpu: dict[str, Counter[str]] = {v: Counter() for v in variants}
    for found in samples:
        cpu[found["variant"]].update(found["cpu"])
    kinds = sorted({kind for counted in cpu.values() for kind in counted})
    if kinds:
        print(
            f"\nCPU ms per action (the bots, in this process, not counted)\n{'process':<36}", end=""
        )
        print("".join(f"{v:>20}" for v in variants))
        for kind in [*kinds, "total"]:
            print(f"{kind:<36}", end="")
            for variant in variants:
                value = sum(cpu[variant].values()) if kind == "total" else cpu[variant][kind]
                print(f"{1000 * value / max(actions[variant], 1):>20.2f}", end="")
            print()
    operations = sorted({name for counted in calls.values() for name in counted})
    print(f"\nservice-process AWS calls per action\n{'operation':<36}", end="")
    print("".join(f"{v:>20}" for v in variants))
    for name in [*operations, "total"]:
        print(f"{name:<36}", end="")
        for variant in variants:
            counted = calls[variant]
            value = sum(counted.values()) if name == "total" else counted[name]
            print(f"{value / max(actions[variant], 1):>20.3f}", end="")
        print()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the samples, interleaved; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=150)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--workers", type=int, default=8, help="bot threads, as the demo's")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS[:3]), choices=VARIANTS)
    parser.add_argument("--seed", default="bench", help="bracket seed (the dice stay random)")
    parser.add_argument("--serve", choices=VARIANTS, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.serve:
        serve(options.serve)
        return 0
    print(
        f"{date_line()}; {options.players} players, {options.repeats} repeats, "
        f"variants {', '.join(options.variants)} interleaved"
    )
    samples: list[dict[str, Any]] = []
    for repeat in range(options.repeats):
        order = options.variants if repeat % 2 == 0 else list(reversed(options.variants))
        for variant in order:
            found = sample(variant, options.players, options.seed, options.workers)
            samples.append(found)
            print(
                f"  {variant:<20} {found['actions']:>6} actions in {found['seconds']:6.1f} s: "
                f"{1000 * found['seconds'] / found['actions']:.2f} ms each",
                flush=True,
            )
    report(samples, options.variants)
    return 0


def date_line() -> str:
    """When and where: the figures mean little without it."""
    return (
        f"{time.strftime('%Y-%m-%d %H:%M')}, Python {platform.python_version()}, "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    sys.exit(main())
