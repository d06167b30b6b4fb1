"""DynamoDB stream → EventBridge: puts the domain events each item change means.

Records are handled in order with Powertools' batch processor; a record that fails is
reported, and Lambda retries the batch from that record on, so events are put in the
order their changes were made and none is skipped (RULES for retries: template.yaml).
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

from functions.observability import logger, metrics, tracer
from functions.wiring import Wired
from infra.bootstrap import build_publisher
from infra.publisher import EventPublisher, change_from_record, events_of

publisher: Wired[EventPublisher] = Wired(build_publisher)
processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


def record_handler(record: DynamoDBRecord) -> None:
    """Put the events of one item change (Powertools requires the name `record`)."""
    events = events_of(change_from_record(record.raw_event))
    if events:
        publisher().publish(events)
        for event in events:
            logger.info("published", detail_type=event.detail_type, event_id=event.event_id)
        metrics.add_metric(name="EventsPublished", unit=MetricUnit.Count, value=len(events))


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    """A batch of stream records → events on the bus; failures reported per record."""
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
