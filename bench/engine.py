"""Engine benchmark: Mäxchen turns/s, tables/s per game, and a million-player tournament.

    .venv/bin/python bench/engine.py                  # everything (about two minutes)
    .venv/bin/python bench/engine.py --players 100000 # a smaller tournament

Everything runs on one core, with seeded random bots and seeded dice. A turn is a run
of actions by one player (Mäxchen: throw and announce, or doubt). The tournament runs
in a child process so that its peak memory (max RSS) is its own.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time

from core.bracket import SeatTable, TableRef
from core.registry import game_names, get_game
from infra.dice import SeededDice
from local.tournament import RandomBot, play_table, run_tournament

TABLE = SeatTable(TableRef(1, 0), tuple(f"p{i}" for i in range(6)), survivors=2, final=False)


def _noop(value: int) -> int:
    return value


def reference_calls_per_second(calls: int = 300_000) -> float:
    """A yardstick of the machine's speed right now: plain Python function calls per second.

    Shared hosts run the same code at very different speeds from minute to minute; the
    ratio turns/s : calls/s stays put, so the two are printed side by side.
    """
    started = time.perf_counter()
    for value in range(calls):
        _noop(value)
    return calls / (time.perf_counter() - started)


def measure_tables(game_name: str, tables: int, seed: int) -> tuple[float, int, int]:
    """Seconds, actions and turns for `tables` six-player tables (two go on)."""
    game, dice, bot = get_game(game_name), SeededDice(seed), RandomBot(seed)
    actions = turns = 0
    started = time.perf_counter()
    for _ in range(tables):
        played = play_table(game, TABLE, None, dice, bot)
        actions += played.actions
        turns += played.turns
    return time.perf_counter() - started, actions, turns


def bench_games(repeats: int, tables: int) -> None:
    """Print turns/s and tables/s per game: the median of `repeats` runs, and the best."""
    print(f"Random play at tables of 6 (2 go on), {tables:,} tables, median/best of {repeats}:")
    yardstick: list[float] = []
    for name in game_names():
        runs = []
        for seed in range(repeats):
            yardstick.append(reference_calls_per_second())
            runs.append(measure_tables(name, tables, seed))
        seconds = [run[0] for run in runs]
        actions = sum(run[1] for run in runs) / repeats
        turns = sum(run[2] for run in runs) / repeats
        median, best = statistics.median(seconds), min(seconds)
        print(
            f"  {name:<15} {turns / median:>9,.0f} turns/s (best {turns / best:,.0f})  "
            f"{actions / median:>9,.0f} actions/s  {tables / median:>7,.0f} tables/s  "
            f"({turns / tables:.1f} turns, {actions / tables:.1f} actions per table)"
        )
    print(
        f"  machine speed during these runs: {min(yardstick) / 1e6:.1f} to "
        f"{max(yardstick) / 1e6:.1f} million plain function calls/s"
    )


def tournament(players: int) -> None:
    """Play a whole Mäxchen tournament turn by turn; print wall time and peak memory."""
    names = [f"p{i}" for i in range(players)]
    before = reference_calls_per_second()
    started = time.perf_counter()
    run = run_tournament(
        "maexchen",
        names,
        table_size=6,
        advance=2,
        seed="bench",
        options=None,
        dice=SeededDice(1),
        bot=RandomBot(1),
    )
    elapsed = time.perf_counter() - started
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"  {players:,} players: champion {run.bracket.champion}, {run.bracket.plan.rounds} rounds,"
        f" {run.tables:,} tables, {run.turns:,} turns, {run.actions:,} actions"
    )
    after = reference_calls_per_second()
    print(
        f"  wall time {elapsed:.1f} s ({run.turns / elapsed:,.0f} turns/s), "
        f"peak memory {peak_mib:,.0f} MiB (max RSS of the process)"
    )
    print(
        f"  machine speed before/after: {before / 1e6:.1f} / {after / 1e6:.1f} million plain "
        "function calls/s"
    )


def main() -> None:
    """Run the benchmark parts asked for."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1_000_000)
    parser.add_argument("--tables", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=["games", "tournament"])
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]} on {sys.platform}, one process, one core")
    if args.only != "tournament":
        bench_games(args.repeats, args.tables)
    if args.only == "tournament":
        tournament(args.players)
    elif args.only is None:
        print("Mäxchen tournament (tables of 6, top 2 go on), in a child process:")
        subprocess.run(
            [sys.executable, __file__, "--only", "tournament", "--players", str(args.players)],
            check=True,
        )


if __name__ == "__main__":
    main()
