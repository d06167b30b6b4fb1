"""Concurrent execution environments for the API function (and the WebSocket API's
socket function), as Lambda scales them out.

Each worker is a process of its own with the handlers imported and their services wired
to the same table, so requests are handled side by side (one at a time per worker, as
in Lambda) while moto's server works on another core. A worker that dies fails only
the request it was serving and is replaced, as Lambda replaces a crashed environment;
`revive` replaces the idle ones that died, and says how many are ready to serve.
The service stops the workers itself: they ignore the Ctrl-C the terminal sends to the
whole process group, and exit when the service goes away.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
import traceback
from contextlib import suppress
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.synchronize import Event
from typing import Any

from botocore.exceptions import EndpointConnectionError

from infra.dice import DiceSource, PlaceSeededDice, SecretDice
from infra.settings import Settings
from local.lambda_events import LocalContext

API, SOCKET = "api", "socket"  # the functions a worker runs
STOP_SECONDS = 5.0  # how long a worker may take to finish its request when stopped
KILL_SECONDS = 2.0  # how long a terminated worker may take to go before it is killed


class WorkerDied(RuntimeError):
    """The worker serving a request died before answering."""


def dice_for(seed: str | None) -> DiceSource:
    """Cryptographic dice, or dice fixed by the seed, the table and the version (the same
    whichever worker rolls them)."""
    return PlaceSeededDice(seed) if seed else SecretDice()


def _serve(
    requests: Connection, ready: Event, settings: Settings, dice_seed: str | None, quiet: bool
) -> None:
    """A worker's life: import the handlers once, say it is `ready`, then answer
    (function, event) pairs until told to stop (None) or the service is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the service to act on
    if quiet:  # Powertools prints metrics to stdout even when they are disabled
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (for the process's lifetime)
    # Imported in the worker, once the environment is set: the handler reads it at import.
    from functions.api.app import lambda_handler  # noqa: PLC0415
    from functions.api.routes.reconcile import reconciler  # noqa: PLC0415
    from functions.socket import app as socket_app  # noqa: PLC0415
    from functions.wiring import use_services  # noqa: PLC0415
    from infra.bootstrap import (  # noqa: PLC0415
        aws_client,
        build_reconciler,
        build_services,
        build_sockets,
    )

    use_services(build_services(settings, client=aws_client("dynamodb"), dice=dice_for(dice_seed)))
    reconciler.use(
        build_reconciler(settings, client=aws_client("dynamodb"), dice=dice_for(dice_seed))
    )
    socket_app.sockets.use(build_sockets(settings, client=aws_client("dynamodb")))
    handlers = {API: lambda_handler, SOCKET: socket_app.lambda_handler}
    ready.set()
    while True:
        try:
            request = requests.recv()
        except (EOFError, OSError):  # the service is gone
            return
        if request is None:
            return
        function, event = request
        try:
            answer: tuple[bool, Any] = (True, handlers[function](event, LocalContext(function)))
        except EndpointConnectionError as error:  # moto's server is gone: the service says so
            answer = (False, str(error))
        except Exception as error:  # the function failed: API Gateway answers 500
            traceback.print_exc()  # to the service's terminal, as Lambda logs it
            answer = (False, f"{type(error).__name__}: {error}")
        requests.send(answer)


@dataclass
class _Worker:
    process: BaseProcess
    requests: Connection
    ready: Event  # set once the handler is imported and wired


class ApiWorkers:
    """`count` API execution environments; `invoke` runs an event on a free one."""

    def __init__(
        self, count: int, settings: Settings, dice_seed: str | None, *, quiet: bool
    ) -> None:
        self._context = multiprocessing.get_context("spawn")  # never fork a threaded process
        self._args = (settings, dice_seed, quiet)
        self._lock = threading.Lock()
        self._closed = False
        self._all: list[_Worker] = []
        self._idle: queue.Queue[_Worker] = queue.Queue()
        for _ in range(count):
            self._idle.put(self._start())

    def _start(self) -> _Worker:
        mine, theirs = self._context.Pipe()
        ready = self._context.Event()
        process = self._context.Process(
            target=_serve, args=(theirs, ready, *self._args), name="api-worker", daemon=True
        )
        process.start()
        theirs.close()  # the worker's end: only the worker holds it, so its death is EOF
        worker = _Worker(process, mine, ready)
        with self._lock:
            self._all.append(worker)
        return worker

    def wait_ready(self, seconds: float) -> bool:
        """Wait until every worker has imported its handlers (on a loaded machine that
        takes many seconds): a service that says it serves should answer at once.
        Whether all were ready in time."""
        deadline = time.monotonic() + seconds
        with self._lock:
            workers = list(self._all)
        for worker in workers:
            while not worker.ready.wait(0.1):
                if not worker.process.is_alive() or time.monotonic() > deadline:
                    return False
        return True

    def invoke(self, event: dict[str, Any], function: str = API) -> dict[str, Any]:
        """`function`'s answer to `event` (API: the HTTP API's, SOCKET: the WebSocket
        API's); `WorkerDied` if its worker died meanwhile (a new one takes its place)."""
        if self._closed:
            raise WorkerDied("the service is stopping")
        worker = self._idle.get()
        while not worker.process.is_alive():  # died while idle: nothing of ours is lost
            worker = self._replace(worker)
        try:
            worker.requests.send((function, event))
            ok, answer = worker.requests.recv()
        except (EOFError, OSError) as error:
            pid = worker.process.pid
            self._idle.put(self._replace(worker))
            what = event.get("rawPath") or event["requestContext"].get("routeKey")
            raise WorkerDied(f"API worker {pid} died serving {what}") from error
        self._idle.put(worker)
        if not ok:
            raise RuntimeError(f"the {function} function failed: {answer}")
        result: dict[str, Any] = answer
        return result

    def invoke_socket(self, event: dict[str, Any]) -> dict[str, Any]:
        """The socket function's answer to a WebSocket API event."""
        return self.invoke(event, SOCKET)

    def revive(self) -> int:
        """Replace the idle workers that died (not waiting for a request to find them);
        how many workers are alive and ready to serve."""
        idle: list[_Worker] = []
        with suppress(queue.Empty):
            while True:
                idle.append(self._idle.get_nowait())
        try:
            idle = [w if w.process.is_alive() else self._replace(w) for w in idle]
        except WorkerDied:  # stopping: put back what is left, replaced or not
            pass
        finally:
            for worker in idle:
                self._idle.put(worker)
        with self._lock:
            workers = list(self._all)
        return sum(w.ready.is_set() and w.process.is_alive() for w in workers)

    def _replace(self, dead: _Worker) -> _Worker:
        self._retire(dead)
        if self._closed:
            raise WorkerDied("the service is stopping")
        return self._start()

    def _retire(self, worker: _Worker) -> None:
        worker.requests.close()
        _stop(worker.process, 0)
        with self._lock:
            self._all.remove(worker)

    def close(self) -> None:
        """Stop every worker: each finishes its request (for up to `STOP_SECONDS`) and
        exits; one still running then is terminated, and killed if that is not enough."""
        self._closed = True
        with self._lock:
            workers = list(self._all)
        for _ in workers:  # a worker comes back idle once its request is answered
            try:
                idle = self._idle.get(timeout=STOP_SECONDS)
            except queue.Empty:
                break
            with suppress(OSError):  # gone already
                idle.requests.send(None)
        for worker in workers:
            _stop(worker.process, STOP_SECONDS)
            worker.requests.close()


def _stop(process: BaseProcess, grace: float) -> None:
    """Let `process` exit within `grace` seconds, then terminate it, then kill it."""
    process.join(grace)
    if process.exitcode is None:
        process.terminate()
        process.join(KILL_SECONDS)
    if process.exitcode is None:
        process.kill()
        process.join()
