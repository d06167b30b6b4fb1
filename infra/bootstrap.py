"""Wires the adapters into the services: the one place that picks boto3, dice and clock.

Tests and the local stack pass their own dice and clock; production gets `SecretDice`
(a fresh secret server seed for every table) and the wall clock.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from infra.dice import DiceSource, SecretDice
from infra.retry import Budget, Retrier, RetryingClient, RetryPolicy
from infra.services.admission import Admission
from infra.services.bracket_reader import BracketReader
from infra.services.organizer import OrganizerService
from infra.services.socket_tickets import SocketTicketService
from infra.services.tournaments import Clock, TournamentService
from infra.services.turns import TurnService
from infra.settings import Settings
from infra.store.rate_limits import RateLimiter
from infra.store.stores import Stores

# What the stream readers retry when AWS throttles them (docs/operations.md, "When AWS
# says slow down"): each call up to 5 times, waits of 50 ms doubling up to 1 s with full
# jitter; all of a batch's retries inside a budget well within the functions' 60 s
# Timeout (the publisher's leaves room for a finished tournament's 20 s fan-out).
THROTTLE_POLICY = RetryPolicy(attempts=5, first_wait=0.05, max_wait=1.0, budget=5.0)
PUSH_RETRY_SECONDS = 15.0
TIMER_RETRY_SECONDS = 20.0

if TYPE_CHECKING:  # each function imports only what it runs: shorter cold starts
    from infra.jobs.runner import JobRunner
    from infra.outbox.publisher import EventPublisher
    from infra.outbox.push import Pusher
    from infra.outbox.timers import TurnTimers
    from infra.services.progression import ProgressionService
    from infra.services.reconcile import Reconciler
    from infra.services.sockets import SocketService
    from infra.services.sweeper import DeadlineSweeper


@dataclass(frozen=True, slots=True)
class Services:
    """What the Lambda handlers call."""

    tournaments: TournamentService
    turns: TurnService
    organizer: OrganizerService
    brackets: BracketReader
    admission: Admission = field(default_factory=Admission)  # none: no key, no limits
    public_url: str = ""  # `Settings.public_url`: where links and QR codes point
    origin_secret: str = ""  # `Settings.origin_secret`: the site's distribution's mark
    socket_tickets: SocketTicketService | None = None  # None: the API issues none


def aws_client(service: str, endpoint_url: str | None = None) -> Any:
    """A client with short timeouts: a turn should fail fast, not hang.

    Made with botocore directly: boto3 adds only its resource layer, which nothing here
    uses, and importing it would lengthen every cold start. Each client gets a session of
    its own (its own credentials and connections) but all share one loader of botocore's
    service models, which are read-only: a client built again after a SnapStart restore
    (`functions.wiring.renew`) finds them parsed already.
    """
    from botocore.config import Config  # noqa: PLC0415  # deferred: tests pass clients
    from botocore.session import get_session  # noqa: PLC0415

    config = Config(
        connect_timeout=2, read_timeout=5, retries={"mode": "standard", "max_attempts": 3}
    )
    session = get_session()
    session.register_component("data_loader", _service_models())
    return session.create_client(service, config=config, endpoint_url=endpoint_url)


@functools.cache
def _service_models() -> Any:
    """botocore's loader of service models and endpoint rules, one per process."""
    from botocore.loaders import create_loader  # noqa: PLC0415

    return create_loader()


def build_services(
    settings: Settings,
    *,
    client: Any = None,
    dice: DiceSource | None = None,
    clock: Clock = time.time,
    tournament_ids: Callable[[str], str] | None = None,
) -> Services:
    """The services over `client` (a fresh DynamoDB client when None); `tournament_ids`
    makes the ids of new tournaments (random ones when None)."""
    dynamodb = client if client is not None else aws_client("dynamodb")
    stores = _stores(settings, dynamodb)
    ids = {} if tournament_ids is None else {"tournament_ids": tournament_ids}
    limiter = RateLimiter(dynamodb, settings.table_name, clock)
    tournaments = TournamentService(
        tournaments=stores.tournaments,
        players=stores.players,
        tables=stores.tables,
        progress=stores.progress,
        jobs=stores.jobs,
        clock=clock,
        retention_seconds=settings.retention_seconds,
        capacity=stores.capacity,
        **ids,
    )
    turns = _turns(stores, dice, clock)
    organizer = OrganizerService(
        store=stores.organizer,
        players=stores.players,
        tables=stores.tables,
        tournaments=tournaments,
        turns=turns,
        clock=clock,
        audit=stores.audit,
    )
    return Services(
        tournaments=tournaments,
        turns=turns,
        organizer=organizer,
        brackets=BracketReader(tournaments, stores.tables, stores.players),
        admission=Admission.from_settings(settings, limiter),
        public_url=settings.public_url,
        origin_secret=settings.origin_secret,
        socket_tickets=_socket_tickets(stores, clock),
    )


def _stores(settings: Settings, client: Any) -> Stores:
    """The stores over `client` (DynamoDB; a fresh client when None)."""
    return Stores.over(
        client if client is not None else aws_client("dynamodb"),
        settings.table_name,
        settings.tables_in_play,
        settings.table_seconds,
    )


def _socket_tickets(stores: Stores, clock: Clock) -> SocketTicketService:
    return SocketTicketService(stores.players, stores.tournaments, stores.socket_tickets, clock)


def _turns(stores: Stores, dice: DiceSource | None, clock: Clock) -> TurnService:
    return TurnService(
        stores.tables,
        stores.players,
        dice if dice is not None else SecretDice(),
        clock,
        capacity=stores.capacity,
    )


def _progression(stores: Stores, clock: Clock, dice: DiceSource | None) -> ProgressionService:
    from infra.services.progression import ProgressionService  # noqa: PLC0415

    return ProgressionService(
        tournaments=stores.tournaments,
        players=stores.players,
        tables=stores.tables,
        progress=stores.progress,
        jobs=stores.jobs,
        clock=clock,
        dice=dice,
        capacity=stores.capacity,
    )


def build_progression(
    settings: Settings,
    *,
    client: Any = None,
    clock: Clock = time.time,
    dice: DiceSource | None = None,
) -> ProgressionService:
    """The progression consumer's service over `client` (DynamoDB); `dice` makes the
    server seeds of the tables it seats (`SecretDice` when None)."""
    return _progression(_stores(settings, client), clock, dice)


def build_jobs(
    settings: Settings,
    *,
    client: Any = None,
    clock: Clock = time.time,
    dice: DiceSource | None = None,
) -> JobRunner:
    """The lifecycle jobs' runner over `client` (DynamoDB); `dice` makes the server seeds
    of round 1's tables (`SecretDice` when None)."""
    from infra.jobs.cancel import CancelJob  # noqa: PLC0415
    from infra.jobs.finish import FinishJob  # noqa: PLC0415
    from infra.jobs.runner import Job, JobRunner  # noqa: PLC0415
    from infra.jobs.start import StartJob  # noqa: PLC0415

    stores = _stores(settings, client)
    start = StartJob(
        tournaments=stores.tournaments,
        players=stores.players,
        tables=stores.tables,
        jobs=stores.jobs,
        clock=clock,
        dice=dice,
        capacity=stores.capacity,
    )
    jobs: dict[str, Job] = {
        "start": start,
        "finish": FinishJob(players=stores.players, progress=stores.progress, jobs=stores.jobs),
        "cancel": CancelJob(tables=stores.tables, jobs=stores.jobs, capacity=stores.capacity),
    }
    return JobRunner(stores.tournaments, stores.jobs, jobs)


def build_publisher(settings: Settings, *, client: Any = None) -> EventPublisher:
    """The publisher onto the settings' bus over `client` (EventBridge)."""
    from infra.outbox.publisher import EventPublisher  # noqa: PLC0415

    return EventPublisher(
        client if client is not None else aws_client("events"), settings.event_bus
    )


def build_pusher(
    settings: Settings, *, client: Any = None, management: Any = None
) -> Pusher | None:
    """The WebSocket pusher over `client` (DynamoDB) and `management` (API Gateway's
    management API at the settings' endpoint); None where no endpoint is set. Both
    clients' throttled calls are retried within one budget per batch."""
    from infra.outbox.push import Pusher  # noqa: PLC0415
    from infra.store.connections import ConnectionStore  # noqa: PLC0415

    if management is None:
        if not settings.socket_endpoint:
            return None
        management = aws_client("apigatewaymanagementapi", settings.socket_endpoint)
    retrier = Retrier(THROTTLE_POLICY, budget=Budget(PUSH_RETRY_SECONDS))
    dynamodb = client if client is not None else aws_client("dynamodb")
    store = ConnectionStore(RetryingClient(dynamodb, retrier, "DynamoDB"), settings.table_name)
    capacity = _stores(settings, dynamodb).capacity
    return Pusher(store, management, retrier=retrier, place_of=capacity.place_of)


def build_sockets(
    settings: Settings, *, client: Any = None, clock: Clock = time.time
) -> SocketService:
    """The WebSocket API's connections over `client` (DynamoDB)."""
    from infra.services.sockets import SocketService  # noqa: PLC0415

    stores = _stores(settings, client)
    return SocketService(
        stores.connections,
        stores.tournaments,
        stores.players,
        clock,
        _socket_tickets(stores, clock),
    )


def build_timers(settings: Settings, *, client: Any = None) -> TurnTimers:
    """Turn deadlines over `client` (EventBridge Scheduler), its throttled calls retried
    within one budget per batch."""
    from infra.outbox.timers import TurnTimers  # noqa: PLC0415

    retrier = Retrier(THROTTLE_POLICY, budget=Budget(TIMER_RETRY_SECONDS))
    return TurnTimers(client if client is not None else aws_client("scheduler"), settings, retrier)


def build_sweeper(
    settings: Settings,
    *,
    client: Any = None,
    dice: DiceSource | None = None,
    clock: Clock = time.time,
) -> DeadlineSweeper:
    """The deadline sweeper over `client` (DynamoDB): the deadline index and the turn
    service that plays the timeouts it finds."""
    from infra.services.sweeper import DeadlineSweeper  # noqa: PLC0415

    stores = _stores(settings, client)
    return DeadlineSweeper(
        stores.deadlines,
        stores.tables,
        _turns(stores, dice, clock),
        clock,
        capacity=stores.capacity,
    )


def build_reconciler(
    settings: Settings,
    *,
    client: Any = None,
    clock: Clock = time.time,
    dice: DiceSource | None = None,
) -> Reconciler:
    """The reconciler over `client` (DynamoDB; a fresh client when None)."""
    from infra.services.reconcile import Reconciler  # noqa: PLC0415

    stores = _stores(settings, client)
    return Reconciler(
        tournaments=stores.tournaments,
        players=stores.players,
        tables=stores.tables,
        progress=stores.progress,
        progression=lambda: _progression(stores, clock, dice),
    )
