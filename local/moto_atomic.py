"""moto's server, one request at a time: DynamoDB's atomic conditional writes, locally.

DynamoDB checks a write's condition and applies it atomically. moto's threaded server
does not: two requests can both pass `version = :loaded` before either writes, and both
"win". Serving one request at a time restores the guarantee the service relies on;
concurrency still happens where it does on AWS, in the callers.

Three of moto's costs grow with the data, which a tournament of a thousand players
feels: before every transaction moto deep-copies each table it touches, every item and
the whole stream, to roll back on failure; here only the items the transaction names are
copied, and the stream is cut back to its length before. A Query of the table walks and
sorts every item of the table (0.5 s at 20,000 players); here it reads the key's
partition, as DynamoDB does. And it answers DynamoDB and DynamoDB Streams reads without
moto's generic response serializer, which walks botocore's shape model for every
attribute of every item: 4 ms per stream record, most of the local service's time.
Their JSON protocol's answer is the result itself, with times as epoch seconds.

It is served by waitress, which keeps connections alive: werkzeug's development server,
moto's own, closes each after one answer, so every boto3 call opened a new TCP
connection and the server a new thread (5.3 ms a call against 2.1 ms kept alive).

With `--state FILE` it loads moto's state from FILE at its start, saves it there every
`SAVE_SECONDS` while requests change it, and once more when it is stopped or its parent
goes (`local.moto_state`).

Run: `python -m local.moto_atomic --port 5000` (the tests and the local stack start it).
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.core.responses import ActionResult
from moto.core.utils import camelcase_to_underscores
from moto.dynamodb import models as dynamodb_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    create_backend_app,
)
from moto.sqs.models import Queue
from waitress import serve

from local import moto_state, operations

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
STOP_SECONDS = 5.0  # how long the server may take to exit when terminated
SAVE_STOP_SECONDS = 120.0  # ... when it saves its state first (a big tournament's takes seconds)
PARENT_CHECK_SECONDS = 1.0
# Waitress, not werkzeug's development server: that one closes the connection after
# every answer, so each boto3 call paid a new TCP connection and a new thread.
SERVER_THREADS = 16  # requests served at once (moto itself mostly holds the GIL)
CONNECTION_LIMIT = 2_000  # kept-alive connections: every client's pool, every worker
IDLE_SECONDS = 600  # an idle kept-alive connection is closed after this
SAVE_SECONDS = 5.0  # a crash of the server loses at most the last few seconds' changes
# Requests that change nothing worth saving: reads, and a queue's receive (a message
# received but not deleted is visible again after a restart anyway).
_SCOPE = re.compile(r"Credential=[^/]+/[^/]+/([^/]+)/")
READ_ONLY = ("Get", "List", "Describe", "Query", "Scan", "BatchGet", "Receive")


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


_QUERY_WHOLE_TABLE = Table.query


class _Partition:
    """A table as moto's Query sees it, holding only one partition's items."""

    def __init__(self, table: Table, hash_key: DynamoType) -> None:
        self._table = table
        self._items = list(table.items.get(hash_key, {}).values())

    def all_items(self) -> list[Any]:
        return self._items  # moto sorts the results by sort key itself

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)


def _query(self: Table, hash_key: DynamoType | None, *args: Any, **kwargs: Any) -> Any:
    """moto's Query of the table (no index) over the key's partition only: moto walks
    and sorts every item of the table for each Query."""
    index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
    if index_name or hash_key is None or not self.range_key_attr:
        return _QUERY_WHOLE_TABLE(self, hash_key, *args, **kwargs)
    return _QUERY_WHOLE_TABLE(_Partition(self, hash_key), hash_key, *args, **kwargs)  # type: ignore[arg-type]


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


_EVERY_QUEUE_ATTRIBUTE = Queue.attributes  # moto's own, for the tests to compare with


class _QueueAttributes(Mapping[str, Any]):
    """A queue's attributes as moto's `Queue.attributes` gives them, each computed when
    read. moto builds them all on every SendMessage to read one FIFO flag, and three of
    them walk every message in the queue: sending n messages to a queue nobody has read
    yet cost O(n²) (a round of 16,667 finished tables stalled the 100,000-player bench)."""

    def __init__(self, queue: Queue) -> None:
        self._queue = queue
        names = list(queue.BASE_ATTRIBUTES)
        if queue.fifo_queue:
            names += queue.FIFO_ATTRIBUTES
        if getattr(queue, "kms_master_key_id", None):
            names += queue.KMS_ATTRIBUTES
        self._names = names

    def __getitem__(self, name: str) -> Any:
        if name not in self._names:
            raise KeyError(name)
        queue = self._queue
        if name == "RedrivePolicy" and queue.redrive_policy:
            return json.dumps(queue.redrive_policy)
        value = getattr(queue, camelcase_to_underscores(name))
        return str(value).lower() if isinstance(value, bool) else value

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def _queue_attributes(queue: Queue) -> Mapping[str, Any]:
    return _QueueAttributes(queue)


def serve_faster() -> None:
    """The shortcuts above, for this process's moto (its server, or `mock_aws` in a
    benchmark that registers tens of thousands of players)."""
    dynamodb_models.copy = _NoTableCopies  # type: ignore[assignment,attr-defined]
    DynamoDBBackend.transact_write_items = _transact_write_items  # type: ignore[method-assign]
    ActionResult.execute_result = _execute_result  # type: ignore[method-assign]
    Table.query = _query  # type: ignore[method-assign]
    Queue.attributes = property(_queue_attributes)  # type: ignore[assignment,method-assign]


# what `serve_faster` replaces, as (owner, attribute name)
_SHORTCUT_PLACES = (
    (dynamodb_models, "copy"),
    (DynamoDBBackend, "transact_write_items"),
    (ActionResult, "execute_result"),
    (Table, "query"),
    (Queue, "attributes"),
)


@contextmanager
def faster() -> Iterator[None]:
    """`serve_faster` for the time of the block, moto's own code back afterwards: for a
    test's `mock_aws`, so that the tests after it in the process get moto unchanged."""
    saved = [(owner, name, vars(owner)[name]) for owner, name in _SHORTCUT_PLACES]
    serve_faster()
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


class AtomicApp:
    """moto's WSGI application behind a lock held until the response is complete; it
    notes whether a request may have changed moto's state since the last snapshot."""

    def __init__(self) -> None:
        serve_faster()
        app = DomainDispatcherApplication(create_backend_app)
        # moto lists its own package directory on every request to find the service
        app.get_backend_for_host = functools.lru_cache(maxsize=64)(app.get_backend_for_host)  # type: ignore[method-assign]
        self._app = app
        self.lock = threading.Lock()
        self.changed = False  # guarded by `lock`

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        if environ.get("PATH_INFO") == operations.PATH:  # what was counted (loopback only)
            start_response("200 OK", [("Content-Type", "application/json")])
            return [json.dumps(operations.COUNTER.snapshot()).encode()]
        with self.lock:
            self.changed = self.changed or _may_change(environ)
            environ["knobelcup.call"] = operations.aws_call(environ)
            answer = list(self._app(environ, start_response))
            operations.count_moto_call(environ, answer, _item_size(environ))
            return answer


def _item_size(environ: dict[str, Any]) -> Callable[[str, dict[str, Any]], int]:
    """The size in bytes of an item of the request's Region, by table name and key."""
    scope = _SCOPE.search(str(environ.get("HTTP_AUTHORIZATION", "")))
    region = scope.group(1) if scope else "us-east-1"

    def size(table_name: str, key: dict[str, Any]) -> int:
        table = dynamodb_models.dynamodb_backends[DEFAULT_ACCOUNT_ID][region].tables.get(table_name)
        if table is None or table.hash_key_attr not in key:
            return 0
        range_attr = table.range_key_attr
        range_value = DynamoType(key[range_attr]) if range_attr and range_attr in key else None
        item = table.get_item(DynamoType(key[table.hash_key_attr]), range_value)
        return int(item.size()) if item is not None else 0

    return size


def atomic_app() -> AtomicApp:
    """moto's WSGI application, one request at a time."""
    return AtomicApp()


def _may_change(environ: dict[str, Any]) -> bool:
    """Whether a request may change moto's state: not a read (REST's GET, or a JSON
    protocol's read action)."""
    if environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
        return False
    action = str(environ.get("HTTP_X_AMZ_TARGET", "")).rpartition(".")[2]
    return not action.startswith(READ_ONLY)


class StateKeeper:
    """Saves moto's state to `path`: every `SAVE_SECONDS` if it changed (from a forked
    copy, so requests wait only for the fork), and in full when the server stops."""

    def __init__(self, app: AtomicApp, path: Path) -> None:
        self._app = app
        self._path = path

    def keep_saving(self) -> None:
        """Save a changed state every `SAVE_SECONDS`, forever (a daemon thread's work);
        a big state that takes long to write is saved less often, so that writing it
        never takes more than a quarter of a core."""
        pause = SAVE_SECONDS
        while True:
            time.sleep(pause)
            with self._app.lock:
                if not self._app.changed:
                    continue
                self._app.changed = False
                child = os.fork()
                if child == 0:  # the copy: moto's state as of this instant
                    self._save_in_child()
            started = time.monotonic()
            os.waitpid(child, 0)
            pause = max(SAVE_SECONDS, 3 * (time.monotonic() - started))

    def _save_in_child(self) -> None:
        code = 0
        try:
            moto_state.save(self._path, moto_state.snapshot())
        except BaseException:  # a child must never return into the server
            code = 1
        os._exit(code)

    def save_now(self) -> None:
        """Save once no request is being served (and serve none afterwards)."""
        self._app.lock.acquire()
        moto_state.save(self._path, moto_state.snapshot())


class MotoFailed(RuntimeError):
    """moto's server did not start (it says why on stderr)."""


@dataclass(frozen=True)
class MotoServer:
    """A running server: its URL and its process."""

    url: str
    process: subprocess.Popen[bytes]

    def exit_code(self) -> int | None:
        """None while it runs; its exit code once it has gone."""
        return self.process.poll()


@contextmanager
def moto_server(host: str = "127.0.0.1", *, verbose: bool = False) -> Iterator[str]:
    """This server in a process of its own on a free port (a real process boundary, as
    DynamoDB's); its URL once it listens. See `running_moto`."""
    with running_moto(host, verbose=verbose) as server:
        yield server.url


@contextmanager
def running_moto(
    host: str = "127.0.0.1", *, verbose: bool = False, state: Path | None = None
) -> Iterator[MotoServer]:
    """This server in a process of its own on a free port, once it listens; its state
    loaded from and saved to `state` if given (else in memory only). Stopped on exit:
    terminated, and killed if it has not gone within `STOP_SECONDS` (or, saving its
    state, `SAVE_STOP_SECONDS`). It leaves Ctrl-C to its parent, which stops it after
    the last call to it, and exits by itself (saving first) if its parent is gone."""
    port = _free_port(host)
    quiet = None if verbose else subprocess.DEVNULL
    options = [] if state is None else ["--state", str(state)]
    if not verbose:
        options.append("--quiet")
    process = subprocess.Popen(
        [sys.executable, "-m", __name__, "--host", host, "--port", str(port), "--child", *options],
        stdout=quiet,
        stderr=quiet if state is None else None,  # an unreadable state says why
    )
    try:
        _wait_until_listening(host, port, process)
        yield MotoServer(f"http://{host}:{port}", process)
    finally:
        stop_process(process, STOP_SECONDS if state is None else SAVE_STOP_SECONDS)


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
    host: str, port: int, process: subprocess.Popen[bytes], seconds: float = 120.0
) -> None:
    # A server that exits is seen at once; one that is alive is only slow to import (a
    # loaded machine took over 30 s), and is given time.
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise MotoFailed(f"moto's server exited with code {process.returncode}")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise MotoFailed(f"moto's server did not listen on {host}:{port} in {seconds:.0f} s")


_keeper: StateKeeper | None = None  # saves the state before the server exits, if set


def _exit_now(*_: object) -> None:
    """Stop at once, once the state is saved (if it is kept): the interpreter's orderly
    teardown of a big tournament's items takes seconds."""
    code = 0
    if _keeper is not None:
        try:
            _keeper.save_now()
        except Exception as error:  # say so, and still exit
            print(f"moto's server could not save its state: {error}", file=sys.stderr)
            code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


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
    parser.add_argument(
        "--state", type=Path, help="load moto's state from this file, and keep saving it there"
    )
    parser.add_argument("--quiet", action="store_true", help="no access log, no banner")
    options = parser.parse_args(argv)
    if options.quiet:
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
    app = atomic_app()
    if options.state is not None:
        try:
            moto_state.restore(options.state)
        except moto_state.StateUnreadable as error:
            print(f"moto's server: {error}", file=sys.stderr)
            sys.exit(2)
        global _keeper  # noqa: PLW0603 (the signal handler's)
        _keeper = StateKeeper(app, options.state)
        threading.Thread(target=_keeper.keep_saving, name="state-keeper", daemon=True).start()
    signal.signal(signal.SIGTERM, _exit_now)
    if options.child:
        # Ctrl-C reaches every process of the terminal's group; the parent still needs
        # this server until it has stopped its own callers.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        threading.Thread(target=_exit_with_parent, name="parent-watch", daemon=True).start()
    serve(
        app,
        host=options.host,
        port=options.port,
        threads=SERVER_THREADS,
        connection_limit=CONNECTION_LIMIT,
        channel_timeout=IDLE_SECONDS,
        asyncore_use_poll=True,
        _quiet=options.quiet,
    )


if __name__ == "__main__":
    main()
