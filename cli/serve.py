"""`make serve`: the whole service on http://127.0.0.1:3000 until Ctrl-C.

python -m cli.serve [--host 127.0.0.1] [--port 3000] [--dice-seed S] [--verbose]
                    [--state DIR | --memory] [--fresh] [--lan] [--public-url URL]

State is kept in DIR (default `.knobelcup/`): stopped and started again, the service
goes on where it was, on the port it had (every client keeps its URL) unless `--port`
says otherwise. `--fresh` starts empty; `--memory` keeps nothing.

In a pub (README, "Run an evening in the pub"): `--lan` listens on every address, so
phones on the same Wi-Fi reach it, and builds every QR code and join link on this
machine's LAN address; `--public-url URL` names that address when the detected one is
not it (another interface, a name, a port forwarded). The internal endpoints (moto's
server, the WebSocket management API) stay on loopback either way.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from urllib.parse import urlsplit

from local.moto_atomic import MotoFailed
from local.service import MOTO_STATE_FILE, running_service

DEFAULT_STATE = Path(".knobelcup")
DEFAULT_PORT = 3000
PORT_FILE = "port"  # in the state directory: where the last run listened


class StateInUse(RuntimeError):
    """Another service keeps its state in the same directory."""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The options of `serve`; every one has a default."""
    parser = argparse.ArgumentParser(
        prog="knobelcup serve",
        description="Run Knobelcup locally: the API, its event consumers and timeouts, "
        "on moto's server. No Docker, no AWS account.",
    )
    parser.add_argument(
        "--host", help="where to listen (default 127.0.0.1; with --lan, 0.0.0.0: every address)"
    )
    parser.add_argument(
        "--lan",
        action="store_true",
        help="for phones on this network: listen on every address, and build QR codes and"
        " join links on this machine's LAN address",
    )
    parser.add_argument(
        "--public-url",
        metavar="URL",
        help="the address phones open (e.g. http://192.168.1.20:3000): every QR code and"
        " join link is built on it (default: the LAN address with --lan, else the host"
        " each browser asked)",
    )
    parser.add_argument(
        "--port",
        type=int,
        help=f"where to listen (default: the last run's port with this --state, else"
        f" {DEFAULT_PORT}; 0: any free port)",
    )
    parser.add_argument(
        "--dice-seed", help="repeatable dice (default: a cryptographic source, as in production)"
    )
    parser.add_argument(
        "--api-workers",
        type=int,
        default=2,
        help="API execution environments running side by side (default 2)",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="show the functions' logs and an access log"
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--state",
        type=Path,
        default=DEFAULT_STATE,
        metavar="DIR",
        help="keep the state here, to go on after a stop (default .knobelcup)",
    )
    where.add_argument(
        "--memory", action="store_true", help="keep the state in memory only: gone on stop"
    )
    parser.add_argument(
        "--fresh", action="store_true", help="start empty, throwing away the saved state"
    )
    args = parser.parse_args(argv)
    if args.public_url is not None:
        scheme, netloc = urlsplit(args.public_url)[:2]
        if scheme not in ("http", "https") or not netloc:
            parser.error(f"--public-url {args.public_url}: give an http:// or https:// URL")
    if args.host is None:
        args.host = "0.0.0.0" if args.lan else "127.0.0.1"  # --lan: the Wi-Fi
    return args


@contextmanager
def state_directory(directory: Path, *, fresh: bool) -> Iterator[bool]:
    """`directory` made and locked for this service while it runs (`StateInUse` if
    another has it); whether it holds a saved state to go on from."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "lock").open("a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            raise StateInUse(
                f"{directory} is in use by another running service (process "
                f"{lock.read().strip() or '?'}): stop it, or pass another --state"
            ) from None
        lock.truncate(0)
        lock.write(str(os.getpid()))
        lock.flush()
        saved = directory / MOTO_STATE_FILE
        if fresh:
            saved.unlink(missing_ok=True)
        yield saved.exists()


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until interrupted; the process exit code."""
    args = parse_args(argv)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    # A shell starts background jobs with SIGINT ignored; Ctrl-C must stop us anyway.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    print("Starting Knobelcup (moto's server, the template's resources, the functions)…")
    state = None if args.memory else args.state
    port, kept_port = _port(args.port, state)
    failure = None
    try:
        with (
            state_directory(state, fresh=args.fresh) if state else _no_state() as going_on,
            running_service(
                args.host,
                port,
                dice_seed=args.dice_seed,
                verbose=args.verbose,
                api_workers=args.api_workers,
                state=state,
                public_url=args.public_url or "",
                lan=args.lan,
            ) as service,
        ):
            if state is not None:
                _remember_port(state, service.url)
            kept = (
                "in memory only: gone on stop"
                if state is None
                else f"{state}/ ({'going on from the last run' if going_on else 'new'})"
            )
            phones = (
                f"  Phones open    {service.public_url}  (every QR code and join link)\n"
                if service.public_url
                else ""
            )
            print(
                f"\nKnobelcup is serving:\n"
                f"  API            {service.url}\n"
                f"  WebSocket      {service.socket_url}  (pushes: docs/api.md)\n"
                f"  Swagger UI     {service.docs_url}\n"
                f"  Bracket pages  {service.bracket_url()}"
                f"  (a tournament's: {service.url}/tournaments/<id>/bracket)\n"
                f"{phones}"
                f"  moto (AWS)     {service.aws_endpoint}\n"
                f"  State          {kept}\n"
                f"\nCtrl-C stops everything.",
                flush=True,
            )
            # Powertools prints metrics to stdout even when they are disabled, once a
            # hundred are buffered: only --verbose shows them.
            with (
                open(os.devnull, "w") as nowhere,
                redirect_stdout(sys.stdout if args.verbose else nowhere),
            ):
                try:
                    while not stopped.wait(0.5) and not (failure := service.failure()):
                        pass
                except KeyboardInterrupt:
                    pass
            if failure:
                print(f"\nerror: {failure}; the service cannot go on and stops.", file=sys.stderr)
            print("\nStopping…", flush=True)
    except OSError as error:
        print(f"error: cannot serve on {args.host}:{port}: {error}", file=sys.stderr)
        if kept_port:
            print(
                f"(port {port} is where the last run with {state}/ listened: stop what"
                " uses it, or choose another with --port)",
                file=sys.stderr,
            )
        return 1
    except StateInUse as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except MotoFailed as error:
        print(
            f"error: {error}"
            + ("" if state is None else f"; to start empty instead, add --fresh (state: {state})"),
            file=sys.stderr,
        )
        return 1
    if failure:
        if state is not None:
            print(
                f"Stopped. Start it again to go on from the state last saved in {state}/ "
                "(the last few seconds may be lost).",
                file=sys.stderr,
            )
        return 1
    print("Stopped.")
    return 0


def _port(given: int | None, state: Path | None) -> tuple[int, bool]:
    """The port to listen on: `given`, else the one the last run with `state` listened
    on, else `DEFAULT_PORT`; and whether it is the last run's."""
    if given is not None:
        return given, False
    saved = None if state is None else state / PORT_FILE
    if saved is not None and saved.is_file():
        text = saved.read_text(encoding="utf-8").strip()
        if text.isdigit() and 0 < int(text) < 65536:
            return int(text), True
    return DEFAULT_PORT, False


def _remember_port(state: Path, url: str) -> None:
    """Keep the port `url` listens on, for the next run with `state`."""
    port = urlsplit(url).port
    if port is not None:
        (state / PORT_FILE).write_text(f"{port}\n", encoding="utf-8")


@contextmanager
def _no_state() -> Iterator[bool]:
    yield False


@contextmanager
def serving_in_background(port: int = 0, *extra: str, state: Path | None = None) -> Iterator[str]:
    """`serve` in a process of its own (so it has a core and an interpreter lock of its
    own); its URL once it answers. Its state is kept in `state`, else in memory only.
    Stopped, as by Ctrl-C, on exit."""
    keep = ["--memory"] if state is None else ["--state", str(state)]
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.serve", "--port", str(port), *keep, *extra],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = None
        for line in process.stdout:
            if line.strip().startswith("API "):
                url = line.split()[-1]
                break
        if url is None:
            raise RuntimeError(f"the local service did not start (exit code {process.wait()})")
        # keep reading, so that a full pipe never stalls the service
        threading.Thread(target=process.stdout.read, daemon=True).start()
        yield url
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


if __name__ == "__main__":
    sys.exit(main())
