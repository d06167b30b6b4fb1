"""`make demo`: a whole tournament of random bots, played in this process.

    python -m cli.demo --game maexchen --players 1000 --table-size 6 --advance 2

Prints a progress bar per round, the final table, the top 10, and checks the final
table's audit log by replaying it.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from collections.abc import Sequence

from cli.progress import RoundProgress
from core.audit import log_records, verify
from core.bracket import BracketPlan, Standing
from core.errors import KnobelcupError
from core.registry import game_names, get_game
from infra.dice import SeededDice
from infra.local.tournament import RandomBot, TablePlayed, run_tournament


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The demo's options; every one has a default."""
    parser = argparse.ArgumentParser(
        prog="make demo DEMO_ARGS=...", description="Play a Knobelcup tournament of random bots."
    )
    parser.add_argument("--game", default="maexchen", choices=game_names())
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--table-size", type=int, default=6)
    parser.add_argument("--advance", type=int, default=2)
    parser.add_argument(
        "--seed", help="seeds the bracket, the bots and the dice (default: a fresh random seed)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="a rule option, e.g. --option blind_reroll=true (repeatable)",
    )
    return parser.parse_args(argv)


def _options(pairs: Sequence[str]) -> dict[str, object]:
    options: dict[str, object] = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        try:
            options[name] = json.loads(value)
        except json.JSONDecodeError:
            options[name] = value
    return options


def _measure(name: str, value: int) -> str:
    """A table measure in words: "1 penalty point", "score 12", "3 sticks"."""
    if name == "score":
        return f"score {value}"
    noun = {"penalty_points": "penalty point", "sticks": "stick"}.get(name, name)
    return f"{value} {noun}{'' if value == 1 else 's'}"


def _ordinal(place: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")


def _print_final(final: TablePlayed) -> None:
    print(f"\nFinal table {final.seating.table}:")
    name = final.outcome.measure_name
    for placement in final.outcome.placements:
        print(f"  {placement.place:>2}. {placement.player:<8} {_measure(name, placement.measure)}")


def _print_top(standings: Sequence[Standing], plan: BracketPlan, measure_name: str) -> None:
    print("\nTop 10:")
    for standing in standings[:10]:
        where = "the final" if standing.round == plan.rounds else f"round {standing.round}"
        print(
            f"  {standing.place:>2}. {standing.player:<8} {_ordinal(standing.table_place)}"
            f" in {where} ({_measure(measure_name, abs(standing.measure))})"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the demo; returns the process exit code."""
    args = parse_args(argv)
    seed = args.seed or secrets.token_hex(4)
    game = get_game(args.game)
    players = [f"bot{i:0{len(str(args.players))}d}" for i in range(1, args.players + 1)]
    options = _options(args.option)
    try:
        plan = BracketPlan.build(len(players), args.table_size, args.advance)
        game.parse_options(options)
    except KnobelcupError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(
        f"Knobelcup: {game.title}, {len(players):,} random bots, tables of {args.table_size}, "
        f"top {args.advance} go on, {plan.rounds} rounds, seed {seed!r}"
    )
    progress = RoundProgress(plan, sys.stdout)
    started = time.perf_counter()
    run = run_tournament(
        args.game,
        players,
        table_size=args.table_size,
        advance=args.advance,
        seed=seed,
        options=options,
        dice=SeededDice(f"dice:{seed}"),
        bot=RandomBot(f"bots:{seed}"),
        on_decision=progress.decision,
        on_table=lambda played: progress.table_finished(played.seating.table.round),
    )
    progress.close()
    elapsed = time.perf_counter() - started
    if run.final is not None:
        _print_final(run.final)
        _print_top(run.bracket.standings, plan, run.final.outcome.measure_name)
        records = json.loads(json.dumps(log_records(run.final.log, None, revealed=True)))
        replayed = verify(records)
        check = "verified" if replayed == run.final.outcome else "DOES NOT MATCH"
        print(f"\nFinal table's audit log: {len(records)} entries, replayed and {check}.")
    print(
        f"\nChampion: {run.bracket.champion} "
        f"({run.tables:,} tables, {run.turns:,} turns, {run.actions:,} actions "
        f"in {elapsed:.2f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
