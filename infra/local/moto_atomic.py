"""moto's server, one request at a time: DynamoDB's atomic conditional writes, locally.

DynamoDB checks a write's condition and applies it atomically. moto's threaded server
does not: two requests can both pass `version = :loaded` before either writes, and both
"win". Serving one request at a time restores the guarantee the service relies on;
concurrency still happens where it does on AWS, in the callers.

It also answers DynamoDB and DynamoDB Streams reads without moto's generic response
serializer, which walks botocore's shape model for every attribute of every item: 4 ms
per stream record, most of the local service's time. Their JSON protocol's answer is
the result itself, with times as epoch seconds.

Run: `python -m infra.local.moto_atomic --port 5000` (the tests and the local stack start it).
"""

from __future__ import annotations

import argparse
import functools
import json
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from moto.core.responses import ActionResult
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import run_simple

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


JSON_PROTOCOL_SERVICES = frozenset({"dynamodb", "dynamodbstreams"})
_SERIALIZE_BY_SHAPE = ActionResult.execute_result


def _wire_value(value: object) -> object:
    if isinstance(value, datetime):
        return value.timestamp()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _execute_result(self: ActionResult, context: Any) -> Any:
    """A JSON-protocol result as it is; anything else as moto serializes it."""
    if context.service_model.service_name in JSON_PROTOCOL_SERVICES and isinstance(
        self.result, dict
    ):
        headers = {"Content-Type": "application/x-amz-json-1.0"}
        return 200, headers, json.dumps(self.result, default=_wire_value)
    return _SERIALIZE_BY_SHAPE(self, context)


def atomic_app() -> Wsgi:
    """moto's WSGI application behind a lock held until the response is complete."""
    ActionResult.execute_result = _execute_result  # type: ignore[method-assign]
    app = DomainDispatcherApplication(create_backend_app)
    # moto lists its own package directory on every request to find the service
    app.get_backend_for_host = functools.lru_cache(maxsize=64)(app.get_backend_for_host)  # type: ignore[method-assign]
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
