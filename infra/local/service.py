"""The whole service on one machine, without Docker or an AWS account (`make serve`).

- moto's server, in a process of its own, stands in for DynamoDB, EventBridge, SQS and
  Scheduler (one request at a time, so conditional writes are atomic: `moto_atomic`);
- the template's table, bus, queues, rule and schedule group are provisioned on it;
- `HttpFront` turns HTTP requests into API Gateway events for the API's handler;
- `DeliveryRunner` plays Lambda's event source mappings and Scheduler: it hands stream
  records, queue messages and due schedules (on the real clock) to the same handlers,
  and runs the deadline sweeper every minute.

State lives in moto's memory and is gone when the service stops.
"""

from __future__ import annotations

import logging
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from infra.local.api_workers import ApiWorkers, dice_for
from infra.local.fake_aws import fake_aws
from infra.local.http_front import HttpFront
from infra.local.moto_atomic import moto_server

if TYPE_CHECKING:
    from infra.local.delivery import LocalDelivery
    from infra.local.stack import LocalStack


PREFIX = "knobelcup"
# Powertools warns on every invocation that records no metric: noise in a terminal
NO_METRICS = "ignore:No application metrics to publish:UserWarning"
# Lambda polls a stream shard four times a second, and so does the runner: each poll
# costs moto three calls even when idle, and a longer batch lets the timers skip a table's
# turns that came and went within it.
POLL_SECONDS = 0.25
# Deadlines are at least a second away; most are cancelled by the next action long
# before they are due, and looking less often means not even reading those.
SCHEDULE_POLL_SECONDS = 2.0
log = logging.getLogger(__name__)


@dataclass
class LocalService:
    """A running local service: where to reach it and what runs it."""

    url: str
    aws_endpoint: str
    stack: LocalStack

    @property
    def docs_url(self) -> str:
        """Swagger UI."""
        return f"{self.url}/docs"

    def bracket_url(self, tournament_id: str | None = None) -> str:
        """The live bracket page of a tournament (the landing page without one)."""
        return (
            f"{self.url}/tournaments/{tournament_id}/bracket" if tournament_id else self.url + "/"
        )


class DeliveryRunner(threading.Thread):
    """Delivers stream records and queue messages as they come, fires schedules when
    they are due by `clock` and runs the deadline sweeper every minute, until stopped."""

    def __init__(self, delivery: LocalDelivery, clock: Callable[[], float] = time.time) -> None:
        super().__init__(name="local-delivery", daemon=True)
        self._delivery = delivery
        self._clock = clock
        self._stopping = threading.Event()

    def run(self) -> None:
        next_schedules = 0.0
        while not self._stopping.wait(POLL_SECONDS):
            try:
                self._delivery.poll()
                now = self._clock()
                if now >= next_schedules:
                    self._delivery.schedules.fire_due(now)
                    next_schedules = now + SCHEDULE_POLL_SECONDS
                self._delivery.sweep_due(now)  # the deadline sweeper, once a minute
            except Exception:  # moto hiccups: Lambda's pollers keep polling, so do we
                log.exception("local delivery failed; retrying")

    def stop(self) -> None:
        """Finish the current delivery and stop."""
        self._stopping.set()
        self.join(timeout=30)


@contextmanager
def running_service(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    dice_seed: str | None = None,
    verbose: bool = False,
    api_workers: int = 2,
) -> Iterator[LocalService]:
    """Start everything; stop everything on exit. `port` 0 picks a free port. Dice are
    cryptographic unless `dice_seed` makes them repeatable; `verbose` shows the
    functions' logs and metrics, moto's requests and an access log. The API function
    runs in `api_workers` processes, as concurrent Lambda execution environments."""
    with moto_server(host, verbose=verbose) as aws_endpoint:
        quiet = {} if verbose else {"POWERTOOLS_LOG_LEVEL": "WARNING", "PYTHONWARNINGS": NO_METRICS}
        if not verbose:
            warnings.filterwarnings("ignore", NO_METRICS.split(":")[1], UserWarning)
        with (
            fake_aws(aws_endpoint, POWERTOOLS_METRICS_DISABLED=str(not verbose).lower(), **quiet),
            _serving(
                (host, port),
                aws_endpoint,
                dice_seed=dice_seed,
                verbose=verbose,
                api_workers=api_workers,
            ) as service,
        ):
            yield service


@contextmanager
def _serving(
    address: tuple[str, int],
    aws_endpoint: str,
    *,
    dice_seed: str | None,
    verbose: bool,
    api_workers: int,
) -> Iterator[LocalService]:
    # Imported here, once the environment is set: the functions read it at import.
    from infra.local.stack import start_local_stack, stop_local_stack  # noqa: PLC0415

    stack = start_local_stack(PREFIX, dice=dice_for(dice_seed), clock=time.time, observer=False)
    workers = ApiWorkers(api_workers, stack.settings, dice_seed, quiet=not verbose)
    try:
        front = HttpFront(address, workers.invoke, access_log=verbose)
    except BaseException:
        workers.close()
        stop_local_stack()
        raise
    runner = DeliveryRunner(stack.delivery)
    server = threading.Thread(target=front.serve_forever, name="http-front", daemon=True)
    runner.start()
    server.start()
    try:
        yield LocalService(front.url, aws_endpoint, stack)
    finally:
        # Outside in: no new requests, then no new deliveries, then the functions; moto's
        # server goes last (`moto_server`), once nothing calls it any more.
        front.shutdown()
        front.server_close()
        runner.stop()
        workers.close()
        stop_local_stack()
