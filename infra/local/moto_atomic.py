"""moto's server, one request at a time: DynamoDB's atomic conditional writes, locally.

DynamoDB checks a write's condition and applies it atomically. moto's threaded server
does not: two requests can both pass `version = :loaded` before either writes, and both
"win". Serving one request at a time restores the guarantee the service relies on;
concurrency still happens where it does on AWS, in the callers.

Two of moto's costs grow with the data, which a tournament of a thousand players feels:
before every transaction moto deep-copies each table it touches, every item and the
whole stream, to roll back on failure; here only the items the transaction names are
copied, and the stream is cut back to its length before. And it answers DynamoDB and
DynamoDB Streams reads without moto's generic response
serializer, which walks botocore's shape model for every attribute of every item: 4 ms
per stream record, most of the local service's time. Their JSON protocol's answer is
the result itself, with times as epoch seconds.

Run: `python -m infra.local.moto_atomic --port 5000` (the tests and the local stack start it).
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from moto.core.responses import ActionResult
from moto.dynamodb import models as dynamodb_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import run_simple

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
STOP_SECONDS = 5.0  # how long the server may take to exit when terminated
PARENT_CHECK_SECONDS = 1.0


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


class _NoTableCopies:
    """moto's `copy` module for its DynamoDB backend, minus the whole-table backups."""

    @staticmethod
    def deepcopy(value: Any, memo: Any = None) -> Any:
        return value if isinstance(value, Table) else copy.deepcopy(value, memo)


_TRANSACT_WITH_TABLE_BACKUPS = DynamoDBBackend.transact_write_items


def _transact_write_items(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
    """moto's transaction, rolled back by the items it names instead of whole tables."""
    saved: list[tuple[Table, DynamoType, DynamoType | None, Any]] = []
    for entry in transact_items:
        operation = next(iter(entry.values()))
        table = self.tables.get(operation.get("TableName", ""))
        key = operation.get("Key") or operation.get("Item")
        if table is None or not key or table.hash_key_attr not in key:
            continue  # moto rejects it before changing anything
        hash_value = DynamoType(key[table.hash_key_attr])
        range_attr = table.range_key_attr
        range_value = DynamoType(key[range_attr]) if range_attr and range_attr in key else None
        item = table.get_item(hash_value, range_value)
        saved.append((table, hash_value, range_value, copy.deepcopy(item)))
    streams = {
        id(table): (table.stream_shard, len(table.stream_shard.items))
        for table, *_ in saved
        if table.stream_shard is not None
    }
    try:
        _TRANSACT_WITH_TABLE_BACKUPS(self, transact_items)
    except Exception:
        for table, hash_value, range_value, item in reversed(saved):
            _restore(table, hash_value, range_value, item)
        for shard, length in streams.values():
            del shard.items[length:]
        raise


def _restore(
    table: Table, hash_value: DynamoType, range_value: DynamoType | None, item: Any
) -> None:
    if range_value is None:
        table.items.pop(hash_value, None)
        if item is not None:
            table.items[hash_value] = item
        return
    table.items[hash_value].pop(range_value, None)
    if item is not None:
        table.items[hash_value][range_value] = item


def serve_faster() -> None:
    """The two shortcuts above, for this process's moto (its server, or `mock_aws` in a
    benchmark that registers tens of thousands of players)."""
    dynamodb_models.copy = _NoTableCopies  # type: ignore[assignment,attr-defined]
    DynamoDBBackend.transact_write_items = _transact_write_items  # type: ignore[method-assign]
    ActionResult.execute_result = _execute_result  # type: ignore[method-assign]


def atomic_app() -> Wsgi:
    """moto's WSGI application behind a lock held until the response is complete."""
    serve_faster()
    app = DomainDispatcherApplication(create_backend_app)
    # moto lists its own package directory on every request to find the service
    app.get_backend_for_host = functools.lru_cache(maxsize=64)(app.get_backend_for_host)  # type: ignore[method-assign]
    lock = threading.Lock()

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        with lock:
            return list(app(environ, start_response))

    return serve


@contextmanager
def moto_server(host: str = "127.0.0.1", *, verbose: bool = False) -> Iterator[str]:
    """This server in a process of its own on a free port (a real process boundary, as
    DynamoDB's); its URL once it listens. Stopped on exit: terminated, and killed if it
    has not gone within `STOP_SECONDS`. It leaves Ctrl-C to its parent, which stops it
    after the last call to it, and exits by itself if its parent is gone."""
    port = _free_port(host)
    quiet = None if verbose else subprocess.DEVNULL
    process = subprocess.Popen(
        [sys.executable, "-m", __name__, "--host", host, "--port", str(port), "--child"],
        stdout=quiet,
        stderr=quiet,
    )
    try:
        _wait_until_listening(host, port, process)
        yield f"http://{host}:{port}"
    finally:
        stop_process(process)


def stop_process(process: subprocess.Popen[bytes], grace: float = STOP_SECONDS) -> int:
    """Terminate `process`, give it `grace` seconds, then kill it; its exit code."""
    if process.poll() is None:
        process.terminate()
        try:
            return process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
    return process.wait()


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_until_listening(
    host: str, port: int, process: subprocess.Popen[bytes], seconds: float = 30.0
) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"moto's server exited with {process.returncode}")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"moto's server did not listen on {host}:{port} in {seconds:.0f} s")


def _exit_now(*_: object) -> None:
    """Stop at once: the state is in memory and goes with the process anyway, and the
    interpreter's orderly teardown of a big tournament's items takes seconds."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _exit_with_parent() -> None:
    """Exit when the process that started this one is gone (killed, say), so no server
    is left behind."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    _exit_now()


def main(argv: Sequence[str] | None = None) -> None:
    """Serve on `--host`/`--port` until SIGTERM (or SIGINT unless `--child`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    parser.add_argument(
        "--child",
        action="store_true",
        help="started by another process, which stops it: ignore Ctrl-C, exit with it",
    )
    options = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _exit_now)
    if options.child:
        # Ctrl-C reaches every process of the terminal's group; the parent still needs
        # this server until it has stopped its own callers.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        threading.Thread(target=_exit_with_parent, name="parent-watch", daemon=True).start()
    run_simple(
        options.host,
        options.port,
        atomic_app(),
        threaded=True,
        request_handler=MotoRequestHandler,
    )


if __name__ == "__main__":
    main()
