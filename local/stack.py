"""The whole service off AWS: the template's table and messaging on moto, every handler
wired to them, and `LocalDelivery` playing Lambda's and Scheduler's part (the deadline
sweeper's `rate(1 minute)` included).

Works against in-process moto (`mock_aws`) and moto's server alike: the clients go
wherever the environment points boto3. `crash` makes the publisher, timer, progression,
timeout, sweeper and job functions die around their writes (see `local.faults`);
`throttle` makes AWS refuse some of the stream readers' calls with its throttling
errors: the pusher's posts and DynamoDB reads, the timers' Scheduler calls (see
`local.throttles`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import boto3

from functions.api.routes import reconcile as reconcile_route
from functions.jobs import app as jobs_app
from functions.progression import app as progression_app
from functions.publisher import app as publisher_app
from functions.sweeper import app as sweeper_app
from functions.timeout import app as timeout_app
from functions.timers import app as timers_app
from functions.wiring import use_services
from infra.bootstrap import (
    Services,
    build_jobs,
    build_progression,
    build_publisher,
    build_pusher,
    build_reconciler,
    build_services,
    build_sweeper,
    build_timers,
)
from infra.dice import DiceSource
from infra.services.tournaments import Clock
from infra.settings import Settings
from local.delivery import (
    Deliveries,
    LocalDelivery,
    QueueReader,
    RateSchedule,
    ScheduleFirer,
    StreamTap,
)
from local.event_filters import stream_filters
from local.faults import CrashingClient, CrashPlan
from local.operations import emulation_config
from local.provision import create_messaging, create_tables, function_timeout
from local.throttles import ThrottlePlan, ThrottlingClient
from local.write_counter import WriteCounter

ACCOUNT = "123456789012"
# the template's rate(1 minute); counting a tournament's own calls sets it to "inf"
# (`cli.calibrate.counted_alone`): the sweeper's writes go by the clock, not by the play
SWEEP_SECONDS = float(os.environ.get("KNOBELCUP_LOCAL_SWEEP_SECONDS", "60"))
REGION = "eu-central-1"
OBSERVER_PATTERN = {"source": ["knobelcup"]}


@dataclass
class LocalStack:
    """The clients, settings and deliveries of one local deployment."""

    dynamodb: Any
    sqs: Any
    settings: Settings
    delivery: LocalDelivery
    api: Services
    observer_queue: str  # gets every domain event, as an outside subscriber would
    stream: StreamTap
    throttle: ThrottlePlan | None = None  # what AWS refuses of the stream readers' calls

    def observed(self) -> list[dict[str, Any]]:
        """The events that reached the outside subscriber since the last call."""
        events: list[dict[str, Any]] = []
        while True:
            messages = self.sqs.receive_message(
                QueueUrl=self.observer_queue, MaxNumberOfMessages=10
            ).get("Messages", [])
            if not messages:
                return events
            for message in messages:
                events.append(json.loads(message["Body"]))
                self.sqs.delete_message(
                    QueueUrl=self.observer_queue, ReceiptHandle=message["ReceiptHandle"]
                )


def start_local_stack(
    prefix: str,
    *,
    dice: DiceSource,
    clock: Clock,
    crash: CrashPlan | None = None,
    deliveries: Deliveries | None = None,
    writes: WriteCounter | None = None,
    observer: bool = True,
    stream_at: int | None = None,
    tournament_ids: Callable[[str], str] | None = None,
    throttle: ThrottlePlan | None = None,
    tables_in_play: int = 0,
) -> LocalStack:
    """Provision the template's resources under `prefix` (keeping those a restored state
    has) and wire every handler to them; `writes` counts every function's DynamoDB
    writes per item. `observer` adds a queue that hears every event, as an outside
    subscriber would. The stream is read from its start, or from the record numbered
    `stream_at` (where a previous run stopped). `tournament_ids` makes the ids of new
    tournaments: two runs that must roll the same dice need the same ids, as a table's
    dice depend on its tournament's id (docs/dice.md). `tables_in_play` is the
    deployment's budget of tables in play (0: unpaced; docs/capacity.md#pacing)."""
    dynamodb = boto3.client("dynamodb")
    sqs = boto3.client("sqs")
    events = boto3.client("events")
    scheduler = boto3.client("scheduler")
    table = create_tables(dynamodb, names={"KnobelcupTable": f"{prefix}-table"}, exist_ok=True)
    messaging = create_messaging(events, sqs, scheduler, prefix, exist_ok=True)
    settings = Settings(
        table_name=table["KnobelcupTable"],
        event_bus=messaging.bus,
        schedule_group=messaging.schedule_group,
        timeout_function_arn=f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{prefix}-timeout",
        scheduler_role_arn=f"arn:aws:iam::{ACCOUNT}:role/{prefix}-scheduler",
        tables_in_play=tables_in_play,
    )

    counted = dynamodb if writes is None else writes.wrap(dynamodb)

    def faulty(client: Any, who: str) -> Any:
        return client if crash is None else CrashingClient(client, crash, who)

    def throttled(client: Any, service: str) -> Any:
        return client if throttle is None else ThrottlingClient(client, throttle, service)

    api = build_services(
        settings, client=counted, dice=dice, clock=clock, tournament_ids=tournament_ids
    )
    use_services(api)
    reconcile_route.reconciler.use(
        build_reconciler(settings, client=counted, clock=clock, dice=dice)
    )
    publisher_app.publisher.use(build_publisher(settings, client=faulty(events, "publisher")))
    timers_app.timers.use(
        build_timers(settings, client=throttled(faulty(scheduler, "timers"), "scheduler"))
    )
    progression_app.progression.use(
        build_progression(settings, client=faulty(counted, "progression"), clock=clock, dice=dice)
    )
    timeout_app.services.use(
        build_services(settings, client=faulty(counted, "timeout"), dice=dice, clock=clock)
    )
    jobs_app.jobs.use(build_jobs(settings, client=faulty(counted, "jobs"), clock=clock, dice=dice))
    sweeper_app.sweeper.use(
        build_sweeper(settings, client=faulty(counted, "sweeper"), dice=dice, clock=clock)
    )
    stream_arn = dynamodb.describe_table(TableName=settings.table_name)["Table"]["LatestStreamArn"]
    # what Lambda's event source mappings and Scheduler do inside AWS: not the service's calls
    own = emulation_config()
    tap = StreamTap(boto3.client("dynamodbstreams", config=own), stream_arn, stream_at)
    pollers = boto3.client("sqs", config=own)
    delivery = LocalDelivery(
        stream_readers=[
            tap.reader(
                publisher_app.lambda_handler,
                "publisher",
                stream_filters("PublisherFunction"),
            ),
            tap.reader(timers_app.lambda_handler, "timers", stream_filters("TimerFunction")),
        ],
        queue_readers=[
            QueueReader(
                pollers,
                messaging.queues["ProgressionQueue"],
                progression_app.lambda_handler,
                "progression",
                deliveries,
            ),
            QueueReader(
                pollers, messaging.queues["JobQueue"], jobs_app.lambda_handler, "jobs", deliveries
            ),
        ],
        schedules=ScheduleFirer(
            boto3.client("scheduler", config=own),
            messaging.schedule_group,
            timeout_app.lambda_handler,
            "timeout",
            deliveries,
        ),
        sweeps=RateSchedule(
            sweeper_app.lambda_handler,
            "sweeper",
            SWEEP_SECONDS,
            timeout_seconds=function_timeout("SweeperFunction"),
        ),
    )
    observer_queue = _observe(events, sqs, messaging.bus, prefix) if observer else ""
    return LocalStack(dynamodb, sqs, settings, delivery, api, observer_queue, tap, throttle)


def _observe(events: Any, sqs: Any, bus: str, prefix: str) -> str:
    """A queue that gets every domain event on `bus`; its URL."""
    observer = sqs.create_queue(QueueName=f"{prefix}-observer")["QueueUrl"]
    observer_arn = sqs.get_queue_attributes(QueueUrl=observer, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    events.put_rule(
        Name=f"{prefix}-observer",
        EventBusName=bus,
        EventPattern=json.dumps(OBSERVER_PATTERN),
    )
    events.put_targets(
        Rule=f"{prefix}-observer",
        EventBusName=bus,
        Targets=[{"Id": "observer", "Arn": observer_arn}],
    )
    return str(observer)


def push_to(stack: LocalStack, endpoint: str, *, client: Any = None) -> None:
    """Let the publisher push to the WebSocket API whose management API is at
    `endpoint` (the local front's), through boto3 as on AWS; `client` reads the
    connections (the stack's own DynamoDB client when None). Both are throttled as the
    stack's `throttle` plans."""
    management: Any = boto3.client("apigatewaymanagementapi", endpoint_url=endpoint)
    reads = client if client is not None else stack.dynamodb
    if stack.throttle is not None:
        management = ThrottlingClient(management, stack.throttle, "apigatewaymanagementapi")
        reads = ThrottlingClient(reads, stack.throttle, "dynamodb")
    publisher_app.pusher.use(build_pusher(stack.settings, client=reads, management=management))


def stop_local_stack() -> None:
    """Put every handler back on the environment's services."""
    use_services(None)
    reconcile_route.reconciler.use(None)
    publisher_app.publisher.use(None)
    publisher_app.pusher.use(None)
    timers_app.timers.use(None)
    progression_app.progression.use(None)
    timeout_app.services.use(None)
    jobs_app.jobs.use(None)
    sweeper_app.sweeper.use(None)
