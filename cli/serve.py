"""`make serve`: the whole service on http://127.0.0.1:3000 until Ctrl-C.

python -m cli.serve [--host 127.0.0.1] [--port 3000] [--dice-seed S] [--verbose]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stdout

from infra.local.service import running_service


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The options of `serve`; every one has a default."""
    parser = argparse.ArgumentParser(
        prog="knobelcup serve",
        description="Run Knobelcup locally: the API, its event consumers and timeouts, "
        "on moto's server. No Docker, no AWS account.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3000)
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
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until interrupted; the process exit code."""
    args = parse_args(argv)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    # A shell starts background jobs with SIGINT ignored; Ctrl-C must stop us anyway.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    print("Starting Knobelcup (moto's server, the template's resources, the functions)…")
    try:
        with running_service(
            args.host,
            args.port,
            dice_seed=args.dice_seed,
            verbose=args.verbose,
            api_workers=args.api_workers,
        ) as service:
            print(
                f"\nKnobelcup is serving:\n"
                f"  API            {service.url}\n"
                f"  Swagger UI     {service.docs_url}\n"
                f"  Bracket pages  {service.bracket_url()}"
                f"  (a tournament's: {service.url}/tournaments/<id>/bracket)\n"
                f"  moto (AWS)     {service.aws_endpoint}\n"
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
                    while not stopped.wait(0.5):
                        pass
                except KeyboardInterrupt:
                    pass
            print("\nStopping…", flush=True)
    except OSError as error:
        print(f"error: cannot serve on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 1
    print("Stopped.")
    return 0


@contextmanager
def serving_in_background(port: int = 0, *extra: str) -> Iterator[str]:
    """`serve` in a process of its own (so it has a core and an interpreter lock of its
    own); its URL once it answers. Stopped, as by Ctrl-C, on exit."""
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.serve", "--port", str(port), *extra],
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
