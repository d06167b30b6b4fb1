"""moto's server, one request at a time: DynamoDB's atomic conditional writes, locally.

DynamoDB checks a write's condition and applies it atomically. moto's threaded server
does not: two requests can both pass `version = :loaded` before either writes, and both
"win". Serving one request at a time restores the guarantee the service relies on;
concurrency still happens where it does on AWS, in the callers.

Run: `python -m infra.local.moto_atomic --port 5000` (the tests and the local stack start it).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import run_simple

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def atomic_app() -> Wsgi:
    """moto's WSGI application behind a lock held until the response is complete."""
    app = DomainDispatcherApplication(create_backend_app)
    lock = threading.Lock()

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        with lock:
            return list(app(environ, start_response))

    return serve


def main(argv: Sequence[str] | None = None) -> None:
    """Serve on `--host`/`--port` until SIGINT or SIGTERM."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    options = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    run_simple(
        options.host,
        options.port,
        atomic_app(),
        threaded=True,
        request_handler=MotoRequestHandler,
    )


if __name__ == "__main__":
    main()
