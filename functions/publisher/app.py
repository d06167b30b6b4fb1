"""DynamoDB stream → EventBridge, and → WebSocket connections: puts the domain events
each item change means, and pushes the change to whoever listens (`infra.outbox.push`).

Records are handled in order with Powertools' batch processor; a record that fails is
reported, and Lambda retries the batch from that record on, so events are put in the
order their changes were made and none is skipped (RULES for retries: template.yaml).
A push never fails a record: a client's socket must not hold back the bracket.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.observability import logger, metrics, report_throttles, tracer
from functions.wiring import Wired
from infra.bootstrap import build_publisher, build_pusher
from infra.outbox.publisher import EventPublisher, change_from_record, events_of
from infra.outbox.push import Pusher

publisher: Wired[EventPublisher] = Wired(build_publisher)
pusher: Wired[Pusher | None] = Wired(build_pusher)  # None: no WebSocket API to push to
processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


_batch: dict[str, int] = {}  # the batch's sequence numbers → their places in it


def record_handler(record: DynamoDBRecord) -> None:
    """Put the events of one item change, then push it (Powertools requires the name
    `record`)."""
    change = change_from_record(record.raw_event)
    events = events_of(change)
    if events:
        publisher().publish(events)
        for event in events:
            logger.info("published", detail_type=event.detail_type, event_id=event.event_id)
        metrics.add_metric(name="EventsPublished", unit=MetricUnit.Count, value=len(events))
    push = pusher()
    if push is None:
        return
    report = push.push(change, events, _batch.get(record.raw_event["dynamodb"]["SequenceNumber"]))
    if report.sent:
        metrics.add_metric(name="PushesSent", unit=MetricUnit.Count, value=report.sent)
    if report.gone:
        metrics.add_metric(name="ConnectionsGone", unit=MetricUnit.Count, value=report.gone)
    if report.failures or report.skipped:
        metrics.add_metric(
            name="PushesFailed",
            unit=MetricUnit.Count,
            value=len(report.failures) + report.skipped,
        )
        logger.warning("push failed", failures=report.failures[:10], skipped=report.skipped)
    if report.undelivered:  # their connections were closed: the clients read again
        metrics.add_metric(
            name="TurnsUndelivered", unit=MetricUnit.Count, value=len(report.undelivered)
        )
        logger.warning("your_turn undelivered", turns=report.undelivered[:10])


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    """A batch of stream records → events on the bus and pushes; failures reported per
    record."""
    push = pusher()
    if push is not None:  # each table pushed once a batch; the listeners read in one go
        records = event.get("Records", [])
        _batch.clear()
        _batch.update((r["dynamodb"]["SequenceNumber"], i) for i, r in enumerate(records))
        push.prepare([change_from_record(r) for r in records])
    try:
        return process_partial_response(
            event=event, record_handler=record_handler, processor=processor, context=context
        )
    finally:
        if push is not None:
            report_throttles(push.retrier.tally)
