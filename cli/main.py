"""`knobelcup`: play in a terminal, run bots, serve the API locally, or run the demo.

knobelcup play --url URL --tournament ID --name Anna     (or --token TOKEN to resume)
knobelcup bot examples/bots/maexchen_honest.py --url URL --tournament ID --count 5
knobelcup serve ...  /  knobelcup demo ...               (their own options)
knobelcup admin redrive|reconcile ...   (operator repairs, see cli/admin.py)
knobelcup udp-bridge --url URL --tournament ID [--port 9000]   (classic UDP bots play)
knobelcup verify LOG.json | TABLE-URL | TOURNAMENT-URL   (prove finished tables, docs/dice.md)
knobelcup organize create|list|open|close|start|status|standings|disqualify|cancel|rotate-token|log
knobelcup plan --players N [--pace people|bots] ...   (AWS quotas, duration, cost: docs/capacity.md)

Every command that talks to the service takes `--url`; without it, `$KNOBELCUP_URL`,
else the local service's http://127.0.0.1:3000.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import threading
from collections.abc import Sequence

from cli import admin, organize, plan, verify
from cli.api_client import (
    ApiClient,
    ApiError,
    RetriesExhausted,
    RetryPolicy,
    ServiceUnreachable,
)
from cli.botkit import (
    BotLoadError,
    BotResult,
    BotStopped,
    Seat,
    bot_name,
    load_decider,
    run_bot,
)
from cli.options import add_url_option
from cli.play import console_language, organizer_language, play
from cli.push_watch import connector
from cli.udp_bridge import command as udp_bridge
from core.words import LANGUAGES, count, say

FORWARDED = {"serve": "cli.serve", "demo": "cli.demo"}  # take every argument after them
CLOSED_PIPE = 141  # 128 + SIGPIPE: how a shell reports a writer whose reader went away


def build_parser() -> argparse.ArgumentParser:
    """The command line: one subcommand per use."""
    parser = argparse.ArgumentParser(prog="knobelcup", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    player = commands.add_parser("play", help="play a tournament yourself, in this terminal")
    _add_service(player)
    who = player.add_mutually_exclusive_group(required=True)
    who.add_argument("--name", help="register under this name")
    who.add_argument("--token", help="resume with the token printed when you registered")
    _add_no_push(player)
    _add_retry_budget(player)
    _add_language(player)

    bot = commands.add_parser("bot", help="run bots that play with a decide(view) function")
    bot.add_argument(
        "module", help="a dotted module name (from the current folder) or a path to a .py file"
    )
    _add_service(bot)
    bot.add_argument("--name", help="bot names are NAME-1..NAME-N (default: the module's name)")
    _add_no_push(bot)
    bot.add_argument("--count", type=int, default=1, help="how many bots (default 1)")
    bot.add_argument(
        "--poll", type=float, default=0.5, help="seconds between looks at the table's feed (0.5)"
    )
    bot.add_argument(
        "--think",
        type=_seconds,
        default=0.0,
        metavar="SECONDS",
        help="pause this long before each action, so people can follow the tournament on"
        " the projector or with `organize status --watch` (default 0: as fast as it goes)",
    )
    _add_retry_budget(bot)
    _add_language(bot)

    admin.add_admin_parser(commands)
    udp_bridge.add_parser(commands)
    verify.add_parser(commands)
    organize.add_parser(commands)
    plan.add_parser(commands)
    for name, module in FORWARDED.items():
        commands.add_parser(name, help=f"run {module} (every further argument is its own)")
    return parser


def _add_service(parser: argparse.ArgumentParser) -> None:
    add_url_option(parser)
    parser.add_argument("--tournament", required=True, help="the tournament id")
    parser.add_argument(
        "--join-code",
        metavar="CODE",
        help="the tournament's join code, where its organizer set one (not needed to resume)",
    )


def _add_language(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--language",
        choices=LANGUAGES,
        help="what the terminal says, German or English (default: the organizer's choice for "
        "the tournament, else the locale: LANG=de_DE... speaks German, else English)",
    )


def _seconds(text: str) -> float:
    """A number of seconds, 0 or more (an argparse type)."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not seconds >= 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, not {text}")
    return seconds


def _add_no_push(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-push",
        action="store_true",
        help="poll the table's feed instead of waiting on the service's WebSocket pushes",
    )


def _add_retry_budget(parser: argparse.ArgumentParser) -> None:
    budget = RetryPolicy().budget
    parser.add_argument(
        "--retry-budget",
        type=float,
        default=budget,
        metavar="SECONDS",
        help="how long to keep retrying a request the service is too busy for, or that"
        f" could not reach it, before giving up (default {budget:g})",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; returns the process exit code. A reader that went away (`|
    head`) ends it quietly with 141, as SIGPIPE ends other Unix tools."""
    try:
        return _main(argv)
    except BrokenPipeError:
        _no_more_output()
        return CLOSED_PIPE


def _no_more_output() -> None:
    """Point stdout at /dev/null: the exit's flush must not fail on the closed pipe."""
    nowhere = os.open(os.devnull, os.O_WRONLY)
    os.dup2(nowhere, sys.stdout.fileno())
    os.close(nowhere)


def _main(argv: Sequence[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in FORWARDED:
        return _forward(args[0], args[1:])
    parsed = build_parser().parse_args(args)
    if parsed.command == "admin":
        return admin.run(parsed)
    if parsed.command == "udp-bridge":
        return udp_bridge.run(parsed)
    if parsed.command == "verify":
        return verify.run(parsed)
    if parsed.command == "organize":
        return organize.run(parsed)
    if parsed.command == "plan":
        return plan.run(parsed)
    try:
        if parsed.command == "play":
            client = ApiClient(parsed.url)
            retry = RetryPolicy(budget=parsed.retry_budget)
            push = None if parsed.no_push else connector(parsed.url, parsed.tournament)
            return play(
                client,
                parsed.tournament,
                name=parsed.name,
                token=parsed.token,
                join_code=parsed.join_code,
                retry=retry,
                push=push,
                language=parsed.language,
            )
        return _bots(parsed)
    except (ApiError, RetriesExhausted) as error:
        print(say(_said_language(parsed), "console.error", error=error), file=sys.stderr)
        return 1
    except BrokenPipeError:
        raise
    except OSError as error:
        lang = _said_language(parsed)
        print(say(lang, "console.unreachable", url=parsed.url, error=error), file=sys.stderr)
        return 1


def _forward(command: str, argv: Sequence[str]) -> int:
    """`main(argv)` of the command's module, imported only now."""
    module = importlib.import_module(FORWARDED[command])
    return int(module.main(list(argv)))


def _said_language(args: argparse.Namespace) -> str:
    """The language of a last word (an error) when the tournament may not be reachable:
    `--language`, else the locale's."""
    return console_language(args.language)


def _tournament_language(url: str, tournament: str) -> str:
    """What the bots' lines say to a person: the organizer's language, else the locale's."""
    client = ApiClient(url)
    try:
        return console_language(None, organizer_language(client, tournament))
    finally:
        client.close()


def _bots(args: argparse.Namespace) -> int:
    """Run `--count` bots, a thread and a client each; one line per bot at the end."""
    if os.getcwd() not in sys.path:  # dotted names import from here, as with `python -m`
        sys.path.insert(0, os.getcwd())
    try:
        decide = load_decider(args.module)
    except BotLoadError as error:
        print(say(_said_language(args), "console.error", error=error), file=sys.stderr)
        return 2
    if args.count < 1:
        print(say(_said_language(args), "console.count_at_least_one"), file=sys.stderr)
        return 2
    base = args.name or bot_name(args.module)
    lang = args.language or _tournament_language(args.url, args.tournament)
    names = [f"{base}-{n}" for n in range(1, args.count + 1)]
    results: dict[str, BotResult | str | ServiceUnreachable] = {}  # str: the line to print
    stop = threading.Event()

    def registered(seat: Seat) -> None:
        print(say(lang, "console.bot_registered", name=seat.name, id=seat.player_id), flush=True)

    def bot(name: str) -> None:
        client = ApiClient(args.url)
        try:
            results[name] = run_bot(
                client, args.tournament, name, decide, args.poll, stop=stop,
                join_code=args.join_code, think=args.think,
                on_registered=registered, retry=RetryPolicy(budget=args.retry_budget),
                push=None if args.no_push else connector(args.url, args.tournament),
            )  # fmt: skip
        except BotStopped:
            results[name] = say(lang, "console.bot_stopped", name=name)
        except ServiceUnreachable as error:
            results[name] = error
        except (ApiError, OSError, RetriesExhausted) as error:
            results[name] = say(lang, "console.bot_stopped_by", name=name, error=error)
        finally:
            client.close()

    threads = [threading.Thread(target=bot, args=(name,), name=name, daemon=True) for name in names]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(timeout=0.5)
    except KeyboardInterrupt:
        stop.set()
        print("\n" + say(lang, "console.stopping_bots"), file=sys.stderr)
        return 130
    unreachable = [r for r in results.values() if isinstance(r, ServiceUnreachable)]
    if unreachable:  # said once, not once a bot
        print(say(lang, "console.error", error=unreachable[0]), file=sys.stderr)
        return 1
    for name in names:
        result = results.get(name, say(lang, "console.bot_no_result", name=name))
        print(_bot_line(result, lang) if isinstance(result, BotResult) else result)
    return 0 if all(isinstance(r, BotResult) and r.error is None for r in results.values()) else 1


def _bot_line(result: BotResult, lang: str) -> str:
    """A bot's end in one line: its place, or why it stopped."""
    if result.error is not None:
        return say(lang, "console.bot_stopped_by", name=result.name, error=result.error)
    done = {
        "tables": count(lang, result.tables, "tables"),
        "actions": count(lang, result.actions, "actions"),
    }
    if result.place is None:
        return say(lang, "console.bot_place_unknown", name=result.name, **done)
    return say(lang, "console.bot_place", name=result.name, place=result.place, **done)


if __name__ == "__main__":
    sys.exit(main())
