"""`knobelcup udp-bridge`: classic UDP Mäxchen bots play a Knobelcup tournament.

knobelcup udp-bridge --url URL --tournament ID [--host 127.0.0.1] [--port 9000]
                     [--answer-timeout SECONDS] [--state FILE] [--poll SECONDS] [--verbose]
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import time
from pathlib import Path

from cli.options import add_url_option
from cli.udp_bridge.bridge import Bridge, BridgeError

log = logging.getLogger("knobelcup.udp_bridge")
DEFAULT_STATE = Path(".knobelcup-udp-bridge.json")
TALLY_EVERY = 30.0  # seconds between the log lines that count ignored datagrams


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `udp-bridge` subcommand and its options."""
    bridge = commands.add_parser(
        "udp-bridge",
        help="let bots of the classic Mäxchen UDP protocol play a tournament",
        description="Serve the classic Mia/Mäxchen UDP protocol on a port: each bot that "
        "registers becomes a player of the tournament (docs/udp-bridge.md).",
    )
    add_url_option(bridge)
    bridge.add_argument("--tournament", required=True, help="the tournament id")
    bridge.add_argument("--host", default="127.0.0.1", help="listen on (127.0.0.1)")
    bridge.add_argument("--port", type=int, default=9000, help="UDP port (9000)")
    bridge.add_argument(
        "--answer-timeout",
        type=float,
        metavar="SECONDS",
        help="act for a bot that has not answered after this long (the classic server "
        "waits 0.25); by default the tournament's own turn timeout decides",
    )
    bridge.add_argument(
        "--state",
        type=Path,
        default=DEFAULT_STATE,
        metavar="FILE",
        help=f"keep the bots' player tokens here, to go on after a restart ({DEFAULT_STATE})",
    )
    bridge.add_argument(
        "--poll", type=float, default=0.25, help="seconds between looks at the service (0.25)"
    )
    bridge.add_argument("--verbose", action="store_true", help="log every datagram")


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C (or SIGTERM), or until the tournament is over."""
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(message)s",
        stream=sys.stderr,
    )
    if args.answer_timeout is not None and args.answer_timeout <= 0:
        print("error: --answer-timeout must be more than 0", file=sys.stderr)
        return 2
    try:
        bridge = Bridge(
            args.url,
            args.tournament,
            host=args.host,
            port=args.port,
            state=args.state,
            answer_timeout=args.answer_timeout,
            poll=args.poll,
        )
    except OSError as error:  # the port is taken, or the state file cannot be read
        print(f"error: {error}", file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"error: {args.state} is not a bridge's state file: {error}", file=sys.stderr)
        return 1
    try:
        bridge.start()
    except (BridgeError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        bridge.stop()
        return 1
    host, port = bridge.address
    print(
        f"UDP bridge for tournament {args.tournament} on {host}:{port} "
        f"(service {args.url}); Ctrl-C stops it.",
        flush=True,
    )
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    logged: dict[str, int] = {}
    last_logged = time.monotonic()
    try:
        while not bridge.finished.is_set() and not stopped.wait(0.5):
            tally = bridge.tally.snapshot()
            if time.monotonic() - last_logged >= TALLY_EVERY and tally != logged:
                log.info("datagrams: %s", _summary(tally))
                logged, last_logged = tally, time.monotonic()
    except KeyboardInterrupt:
        pass
    finally:
        bridge.stop()
    print(f"Stopped. Datagrams: {_summary(bridge.tally.snapshot())}", flush=True)
    return 0


def _summary(tally: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in sorted(tally.items())) or "none"
