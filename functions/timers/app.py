"""DynamoDB stream → EventBridge Scheduler: each table version in play gets its deadline.

A separate reader of the stream from the publisher, so that a slow Scheduler never holds
back the bracket's events, and the other way round.
"""

from __future__ import annotations

from typing import Any

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
from infra.bootstrap import build_timers
from infra.publisher import change_from_record
from infra.timers import TurnTimers

timers: Wired[TurnTimers] = Wired(build_timers)
processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


def record_handler(record: DynamoDBRecord) -> None:
    """Schedule or cancel for one table change (Powertools requires the name `record`)."""
    timers().on_table_change(change_from_record(record.raw_event))


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    """A batch of stream records → schedules; failures reported per record."""
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
