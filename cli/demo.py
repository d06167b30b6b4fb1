"""`make demo`: a whole tournament of bots, over HTTP, on the local service.

    python -m cli.demo --game maexchen --players 1000 --table-size 6 --advance 2

Starts the local service (`make serve`'s), or uses a running one (`--url`), then plays
the way an organizer and a thousand players would: the organizer creates and starts
the tournament, every bot registers and acts through the HTTP API only. Prints a
progress bar per round, the final table, the top 10 and the champion, checks the
final's audit log by replaying it, and writes the bracket picture.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cli.api_client import ApiClient, ApiError
from cli.botkit import BotLoadError, load_decider
from cli.demo_bots import Decide, DemoBots, bot_names, random_legal_action
from cli.progress import RoundProgress
from cli.serve import serving_in_background
from core.bracket import BracketPlan
from core.dice_proof import prove_table
from core.errors import KnobelcupError
from core.registry import game_names, get_game

DEFAULT_PORT = 3000


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The demo's options; every one has a default."""
    parser = argparse.ArgumentParser(
        prog="make demo DEMO_ARGS=...",
        description="Play a Knobelcup tournament of bots over HTTP on the local service.",
    )
    parser.add_argument("--game", default="maexchen", choices=game_names())
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--table-size", type=int, default=6)
    parser.add_argument("--advance", type=int, default=2)
    parser.add_argument(
        "--seed", help="seeds the bracket and the dice (default: fresh secret ones)"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="a rule option, e.g. --option blind_reroll=true (repeatable)",
    )
    parser.add_argument("--url", help="play on a running service instead of starting one")
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"where the started service listens (default {DEFAULT_PORT}; 0: any free port)",
    )
    parser.add_argument("--bracket", default="bracket.svg", help="where to write the picture")
    parser.add_argument("--workers", type=int, default=8, help="bot threads (default 8)")
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="each bot waits this long before each action, so the tournament can be watched"
        " at human speed on the bracket pages (default 0: as fast as it goes)",
    )
    parser.add_argument(
        "--keep-serving",
        action="store_true",
        help="keep the started service running afterwards, until Ctrl-C",
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


@contextmanager
def _service(args: argparse.Namespace) -> Iterator[str]:
    """The URL of the service to play on: the one given, or one started here."""
    if args.url:
        yield args.url.rstrip("/")
        return
    print("Starting the local service (moto's server, the template's resources)…", flush=True)
    extra = ["--dice-seed", f"dice:{args.seed}"] if args.seed else []
    try:
        started = serving_in_background(args.port, *extra)
        url = started.__enter__()
    except RuntimeError:  # the port is taken, most likely by `make serve`
        print(f"Port {args.port} is busy: using a free one (or pass --url).", flush=True)
        started = serving_in_background(0, *extra)
        url = started.__enter__()
    try:
        yield url
        if args.keep_serving:
            print(f"\nStill serving at {url} (Ctrl-C stops it).", flush=True)
            try:
                while True:
                    time.sleep(1)
            except KeyboardInterrupt:
                print()
    finally:
        started.__exit__(None, None, None)


EXAMPLE_BOTS = {
    "maexchen": ("examples.bots.maexchen_honest", "examples.bots.maexchen_bluffer"),
    "mariechen": ("examples.bots.mariechen_simple",),
    "zweiundvierzig": ("examples.bots.zweiundvierzig_simple",),
}


def _example_bots(game: str) -> tuple[Decide, ...]:
    """The example bots' `decide` for `game` (Mäxchen: honest and bluffing bots in
    turn), or random legal actions where the examples are not importable."""
    try:
        return tuple(load_decider(module) for module in EXAMPLE_BOTS[game])
    except BotLoadError:
        print("(examples/ not found: the bots play random legal actions)", flush=True)
        return (random_legal_action,)


def _measure(name: str, value: int) -> str:
    """A table measure in words: "1 penalty point", "score 12", "3 sticks"."""
    if name == "score":
        return f"score {value}"
    noun = {"penalty_points": "penalty point", "sticks": "stick"}.get(name, name)
    return f"{value} {noun}{'' if value == 1 else 's'}"


def _ordinal(place: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")


def _print_results(
    api: ApiClient, bots: DemoBots, tournament: dict[str, Any], plan: BracketPlan
) -> str:
    """The final table, the top 10 and the verified final log; the final's reference."""
    tid = tournament["tournament_id"]
    final = api.ok("GET", f"/tournaments/{tid}/rounds/{plan.rounds}")["tables"][0]
    log = api.ok("GET", f"/tournaments/{tid}/tables/{final['table']}/log")
    proof = prove_table(log)  # what `knobelcup verify` does: every die, then every rule
    outcome = proof.outcome
    print(f"\nFinal table {final['table']}:")
    for placement in outcome.placements:
        name = bots.name_of(placement.player)
        print(
            f"  {placement.place:>2}. {name:<8} {_measure(outcome.measure_name, placement.measure)}"
        )
    check = "verified" if [p.player for p in outcome.placements] == final["ranking"] else "WRONG"
    print(f"Final table's audit log: {len(log['records'])} entries, replayed and {check}.")
    print(
        f"Final table's dice: all {proof.throws} throws verified against the commitment"
        f" (knobelcup verify {api.base_url}/tournaments/{tid}/tables/{final['table']})."
    )
    print("\nTop 10:")
    for row in tournament["standings"][:10]:
        where = "the final" if row["round"] == plan.rounds else f"round {row['round']}"
        print(
            f"  {row['place']:>2}. {bots.name_of(row['player']):<8} "
            f"{_ordinal(row['table_place'])} in {where}"
        )
    return str(final["table"])


def _write_bracket(api: ApiClient, tournament_id: str, path: Path) -> bool:
    answer = api.call("GET", f"/tournaments/{tournament_id}/bracket.svg")
    if answer.status != 200:
        print(f"The bracket picture is not available ({answer.status}).", file=sys.stderr)
        return False
    path.write_text(answer.raw, encoding="utf-8")
    return True


def run(args: argparse.Namespace, url: str, options: dict[str, object], plan: BracketPlan) -> int:
    """Organize and play the tournament on the service at `url`."""
    api = ApiClient(url)
    created = api.ok(
        "POST",
        "/tournaments",
        {
            "game": args.game,
            "name": f"Knobelcup demo: {get_game(args.game).title}",
            "table_size": args.table_size,
            "advance": args.advance,
            "options": options,
        },
    )
    tid, organizer = created["tournament_id"], created["organizer_token"]
    print(f"Tournament {tid}: watch it at {url}/tournaments/{tid}/bracket", flush=True)
    api.ok("POST", f"/tournaments/{tid}/registration/open", token=organizer)
    bots = DemoBots(
        url,
        tid,
        args.game,
        workers=args.workers,
        deciders=_example_bots(args.game),
        pace=max(0.0, args.pace),
    )
    started = time.perf_counter()
    bots.register(bot_names(args.players))
    print(
        f"{args.players:,} bots registered over HTTP in {time.perf_counter() - started:.1f} s",
        flush=True,
    )
    start = {"seed": args.seed} if args.seed else None
    api.ok("POST", f"/tournaments/{tid}/start", start, token=organizer)
    _wait_until_seated(api, tid, args.players)
    progress = RoundProgress(plan, sys.stdout)
    started = time.perf_counter()
    tournament = bots.play(plan, progress.table_finished)
    progress.close()
    elapsed = time.perf_counter() - started
    _print_results(api, bots, tournament, plan)
    picture = Path(args.bracket)
    drawn = _write_bracket(api, tid, picture)
    print(
        f"\nChampion: {bots.name_of(tournament['champion'])} "
        f"({sum(map(plan.tables_in, range(1, plan.rounds + 1))):,} tables, "
        f"{bots.actions:,} actions over HTTP in {elapsed:.1f} s)"
    )
    if drawn:
        print(f"Bracket picture: {picture} (live page: {url}/tournaments/{tid}/bracket)")
    return 0


def _wait_until_seated(api: ApiClient, tournament: str, players: int) -> None:
    """The start answers at once; round 1 is seated in the background: wait for it."""
    started = time.perf_counter()
    while True:
        view = api.ok("GET", f"/tournaments/{tournament}")
        if view["status"] != "starting":
            break
        time.sleep(0.2)
    print(f"Round 1 seated: {players:,} players in {time.perf_counter() - started:.1f} s")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the demo; returns the process exit code."""
    args = parse_args(argv)
    options = _options(args.option)
    try:
        plan = BracketPlan.build(args.players, args.table_size, args.advance)
        get_game(args.game).parse_options(options)
    except KnobelcupError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(
        f"Knobelcup: {get_game(args.game).title}, {args.players:,} bots, tables of "
        f"{args.table_size}, top {args.advance} go on, {plan.rounds} rounds"
        + (f", seed {args.seed!r}" if args.seed else "")
    )
    signal.signal(signal.SIGTERM, _interrupt)  # stop the service it started, as on Ctrl-C
    try:
        with _service(args) as url:
            return run(args, url, options, plan)
    except ApiError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        return 130


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
