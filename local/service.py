"""The whole service on one machine, without Docker or an AWS account (`make serve`).

- moto's server, in a process of its own, stands in for DynamoDB, EventBridge, SQS and
  Scheduler (one request at a time, so conditional writes are atomic: `moto_atomic`);
- the template's table, bus, queues, rule and schedule group are provisioned on it;
- `HttpFront` turns HTTP requests into API Gateway events for the API's handler, and
  serves the WebSocket API (`/ws`) and its management API, which the publisher pushes
  through;
- `DeliveryRunner` plays Lambda's event source mappings and Scheduler: it hands stream
  records, queue messages and due schedules (on the real clock) to the same handlers,
  and runs the deadline sweeper every minute; it applies no deadline while no API
  worker could take a player's turn. The front wakes it as soon as a request may have
  written, so a push follows the write it reports within milliseconds.

Given a state directory, moto's server loads its state from there at the start and
saves it there while serving and when it stops (`moto_state`); the runner's position
on the stream is saved with it (`checkpoint`). Without one, state lives in moto's
memory and is gone when the service stops.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import time
import warnings
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from functions.site.files import site_files
from local.api_workers import ApiWorkers, dice_for
from local.fake_aws import fake_aws
from local.http_front import HttpFront
from local.moto_atomic import MotoServer, running_moto

if TYPE_CHECKING:
    from local.checkpoint import Checkpoint
    from local.delivery import LocalDelivery, StreamReader
    from local.stack import LocalStack


PREFIX = "knobelcup"
LOOPBACK = "127.0.0.1"
# Powertools warns on every invocation that records no metric: noise in a terminal
NO_METRICS = "ignore:No application metrics to publish:UserWarning"
# Lambda polls a stream shard four times a second, and so does the runner: each poll
# costs moto three calls even when idle, and a longer batch lets the timers skip a table's
# turns that came and went within it. A request that may have written wakes it earlier
# (`DeliveryRunner.wake`): a player waits for the push of the move before theirs.
POLL_SECONDS = 0.25
# Deadlines are at least a second away; most are cancelled by the next action long
# before they are due, and looking less often means not even reading those.
SCHEDULE_POLL_SECONDS = 2.0
CHECKPOINT_SECONDS = 1.0  # how often the runner's position is written when it moved
MOTO_STATE_FILE = "moto.pickle"  # in the state directory
SWITCH_SECONDS = 0.001
log = logging.getLogger(__name__)


@dataclass
class LocalService:
    """A running local service: where to reach it and what runs it."""

    url: str
    aws_endpoint: str
    stack: LocalStack
    moto: MotoServer
    socket_url: str = ""  # the WebSocket API (ws://…/ws)
    public_url: str = ""  # what phones open (`--lan`, `--public-url`); '' : `url`

    def failure(self) -> str | None:
        """Why the service cannot go on (moto's server is gone), None while it can."""
        code = self.moto.exit_code()
        return None if code is None else f"moto's server (the local AWS) exited with code {code}"

    @property
    def docs_url(self) -> str:
        """Swagger UI."""
        return f"{self.url}/docs"

    def bracket_url(self, tournament_id: str | None = None) -> str:
        """The live bracket page of a tournament (the landing page without one)."""
        return (
            f"{self.url}/tournaments/{tournament_id}/bracket" if tournament_id else self.url + "/"
        )


def _always() -> bool:
    return True


class DeliveryRunner(threading.Thread):
    """Delivers stream records and queue messages as they come, fires schedules when
    they are due by `clock` and runs the deadline sweeper every minute, until stopped.

    No deadline is applied while `can_serve` says no API worker could take a player's
    turn: schedules wait and the sweeper skips its runs. `checkpoint` gets the runner's
    position now and then and at the end; once `healthy` says moto's server is gone the
    runner stops quietly (the service reports it)."""

    def __init__(
        self,
        delivery: LocalDelivery,
        clock: Callable[[], float] = time.time,
        *,
        can_serve: Callable[[], bool] = _always,
        healthy: Callable[[], bool] = _always,
        checkpoint: Callable[[], object] | None = None,
        elsewhere: Collection[StreamReader] = (),
    ) -> None:
        super().__init__(name="local-delivery", daemon=True)
        self._delivery = delivery
        self._elsewhere = elsewhere
        self._clock = clock
        self._can_serve = can_serve
        self._healthy = healthy
        self._checkpoint = checkpoint
        self._stopping = threading.Event()
        self._woken = threading.Event()

    def wake(self) -> None:
        """Deliver now, not at the next poll: something was written."""
        self._woken.set()

    def run(self) -> None:
        next_schedules = next_checkpoint = 0.0
        serving = False
        while True:
            self._woken.wait(POLL_SECONDS)
            self._woken.clear()
            if self._stopping.is_set():
                break
            try:
                if self._delivery.poll(self._elsewhere):  # which may have written more
                    self._woken.set()
                now = self._clock()
                if now >= next_schedules:
                    was_serving, serving = serving, self._can_serve()
                    if was_serving and not serving:
                        log.warning("no API worker can serve: turn deadlines wait until one can")
                    if serving:
                        self._delivery.schedules.fire_due(now)
                    next_schedules = now + SCHEDULE_POLL_SECONDS
                if serving:
                    self._delivery.sweep_due(now)  # the deadline sweeper, once a minute
                if self._checkpoint is not None and now >= next_checkpoint:
                    self._checkpoint()
                    next_checkpoint = now + CHECKPOINT_SECONDS
            except Exception:  # moto hiccups: Lambda's pollers keep polling, so do we
                if not self._healthy():
                    return  # moto's server is gone: nothing to deliver, nowhere to save
                log.exception("local delivery failed; retrying")
        if self._checkpoint is not None and self._healthy():
            self._checkpoint()  # where the next run goes on

    def stop(self) -> None:
        """Finish the current delivery and stop."""
        self._stopping.set()
        self._woken.set()
        self.join(timeout=30)


class ReaderLane(threading.Thread):
    """One stream reader delivering on a thread of its own, as each event source
    mapping polls on its own on AWS: the publisher's pushes wait for no Scheduler call
    of the timers and no queue poll. Woken like the runner; stopped before it, so the
    runner's last checkpoint comes after this reader's last delivery."""

    def __init__(self, reader: StreamReader, *, healthy: Callable[[], bool] = _always) -> None:
        super().__init__(name=f"local-{reader.name}", daemon=True)
        self._reader = reader
        self._healthy = healthy
        self._stopping = threading.Event()
        self._woken = threading.Event()

    def wake(self) -> None:
        """Deliver now: something was written."""
        self._woken.set()

    def run(self) -> None:
        while True:
            self._woken.wait(POLL_SECONDS)
            self._woken.clear()
            if self._stopping.is_set():
                return
            try:
                if self._reader.deliver():
                    self._woken.set()
            except Exception:
                if not self._healthy():
                    return
                log.exception("local delivery to %s failed; retrying", self._reader.name)

    def stop(self) -> None:
        """Finish the current delivery and stop."""
        self._stopping.set()
        self._woken.set()
        self.join(timeout=30)


@contextmanager
def running_service(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    dice_seed: str | None = None,
    verbose: bool = False,
    api_workers: int = 2,
    state: Path | None = None,
    public_url: str = "",
    lan: bool = False,
) -> Iterator[LocalService]:
    """Start everything; stop everything on exit. The front listens on `host` and
    `port` (0 picks a free port); moto's server and the WebSocket management API answer
    on loopback only, whatever `host` says. Dice are
    cryptographic unless `dice_seed` makes them repeatable; `verbose` shows the
    functions' logs and metrics, moto's requests and an access log. The API function
    runs in `api_workers` processes, as concurrent Lambda execution environments.
    With a `state` directory, everything goes on from where the last run in it stopped
    (its caller makes sure no other service uses it). Every QR code and join link is
    built on `public_url`; with `lan` and none given, on this machine's LAN address and
    the port the front got (`lan_address`)."""
    saved = None if state is None else state / MOTO_STATE_FILE
    # The front, the runner, the publisher's lane and its posts share this process: a
    # thread woken by I/O (moto's answer, a post's) waits for the interpreter lock up to
    # the switch interval, 5 ms by default, at every hop of a push.
    sys.setswitchinterval(SWITCH_SECONDS)
    # moto's server holds every table, token and queue and checks no credentials: it
    # listens on loopback whatever `host` the front is given (a pub's Wi-Fi must not
    # reach it)
    with running_moto(LOOPBACK, verbose=verbose, state=saved) as moto:
        aws_endpoint = moto.url
        quiet = {} if verbose else {"POWERTOOLS_LOG_LEVEL": "WARNING", "PYTHONWARNINGS": NO_METRICS}
        if not verbose:
            warnings.filterwarnings("ignore", NO_METRICS.split(":")[1], UserWarning)
        with (
            fake_aws(aws_endpoint, POWERTOOLS_METRICS_DISABLED=str(not verbose).lower(), **quiet),
            _serving(
                (host, port),
                moto,
                dice_seed=dice_seed,
                verbose=verbose,
                api_workers=api_workers,
                public_url=public_url,
                lan=lan,
            ) as service,
        ):
            yield service


WORKERS_READY_SECONDS = 120  # a loaded machine takes ~20 s to import the handlers


@contextmanager
def _serving(
    address: tuple[str, int],
    moto: MotoServer,
    *,
    dice_seed: str | None,
    verbose: bool,
    api_workers: int,
    public_url: str,
    lan: bool,
) -> Iterator[LocalService]:
    # Imported here, once the environment is set: the functions read it at import.
    import boto3  # noqa: PLC0415

    from local import operations  # noqa: PLC0415
    from local.checkpoint import Checkpoint  # noqa: PLC0415
    from local.operations import emulation_config  # noqa: PLC0415
    from local.stack import push_to, start_local_stack, stop_local_stack  # noqa: PLC0415
    from local.throttles import ThrottlePlan  # noqa: PLC0415

    checkpoint = Checkpoint.open(boto3.client("dynamodb", config=emulation_config()), PREFIX)
    stack = start_local_stack(
        PREFIX,
        dice=dice_for(dice_seed),
        clock=time.time,
        observer=False,
        stream_at=checkpoint.at_sequence,
        throttle=ThrottlePlan.from_env(),  # only tests set it (`local.throttles`)
        # a deployment's budget of tables in play, as the functions read it on AWS
        tables_in_play=int(os.environ.get("KNOBELCUP_TABLES_IN_PLAY", "") or 0),
    )
    checkpoint.restore_dead_letters(stack.delivery)
    # The front listens first, so that the public address knows its port (0: any free);
    # it serves nothing before `serve_forever`, by when the workers are there.
    workers: ApiWorkers | None = None

    def changed() -> None:
        lane.wake()
        runner.wake()

    try:
        front = HttpFront(
            address,
            lambda event: _ready(workers).invoke(event),
            sockets=lambda event: _ready(workers).invoke_socket(event),
            changed=changed,
            access_log=verbose,
            operations=lambda: operations.counted_everywhere(moto.url),
            site=site_files(),  # what the deployment's bucket holds, behind CloudFront
        )
    except BaseException:
        stop_local_stack()
        raise
    port = urlsplit(front.url).port
    public = public_url.rstrip("/") or (f"http://{lan_address()}:{port}" if lan else "")
    settings = replace(stack.settings, public_url=public)
    try:
        workers = ApiWorkers(api_workers, settings, dice_seed, quiet=not verbose)
    except BaseException:
        front.server_close()
        stop_local_stack()
        raise
    if not workers.wait_ready(WORKERS_READY_SECONDS):  # a dead one is replaced on first use
        log.warning("API workers not ready in %d s: serving anyway", WORKERS_READY_SECONDS)

    def healthy() -> bool:
        return moto.exit_code() is None

    [publisher] = [r for r in stack.delivery.stream_readers if r.name == "publisher"]
    lane = ReaderLane(publisher, healthy=healthy)
    runner = DeliveryRunner(
        stack.delivery,
        can_serve=lambda: _ready(workers).revive() > 0,
        healthy=healthy,
        checkpoint=lambda: _save_position(checkpoint, stack),
        elsewhere=[publisher],
    )
    # the publisher posts to the front's management API, as on AWS to API Gateway's
    push_to(stack, front.management_url)
    server = threading.Thread(target=front.serve_forever, name="http-front", daemon=True)
    lane.start()
    runner.start()
    server.start()
    try:
        yield LocalService(front.url, moto.url, stack, moto, front.socket_url, public)
    finally:
        # Outside in: no new requests, then no new deliveries, then the functions; moto's
        # server goes last (`moto_server`), once nothing calls it any more.
        front.shutdown()
        front.server_close()
        lane.stop()
        runner.stop()
        workers.close()
        stop_local_stack()


def _ready(workers: ApiWorkers | None) -> ApiWorkers:
    """The workers, which exist before the front serves anything."""
    assert workers is not None, "the front served before the API workers started"
    return workers


def lan_address() -> str:
    """This machine's address on its network, where a phone on the same Wi-Fi reaches
    it: the source address of the outgoing interface, found by connecting a UDP socket,
    which sends nothing; loopback on a machine with no network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("198.51.100.1", 9))  # TEST-NET-2: never routed anywhere real
        except OSError:
            return LOOPBACK
        address: str = probe.getsockname()[0]
    return address


def _save_position(checkpoint: Checkpoint, stack: LocalStack) -> None:
    with stack.stream.lock:  # no fetch between the tap's position and the readers'
        checkpoint.save(stack.delivery, stack.stream.next_sequence)
