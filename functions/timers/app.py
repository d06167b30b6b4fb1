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

from functions.observability import logger, metrics, report_throttles, tracer
from functions.wiring import Wired
from infra.bootstrap import build_timers
from infra.outbox.publisher import change_from_record
from infra.outbox.timers import TurnTimers, last_changes

timers: Wired[TurnTimers] = Wired(build_timers)
processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    """A batch of stream records → schedules; failures reported per record.

    Only each table's last change in the batch is scheduled, replacing the deadline the
    table had before the batch. If that fails and Lambda retries from the failed record,
    the deadline from before the batch may be left behind: when it fires, its version is
    gone and it does nothing (then deletes itself).
    """
    changes = [change_from_record(r) for r in event.get("Records", [])]
    last = last_changes(changes)
    sequence = {r["dynamodb"]["SequenceNumber"]: i for i, r in enumerate(event.get("Records", []))}

    timers().begin_batch()

    def record_handler(record: DynamoDBRecord) -> None:
        index = sequence[record.dynamodb.sequence_number]  # type: ignore[union-attr]
        if index in last:
            timers().on_table_change(changes[index], replaces=last[index])

    try:
        return process_partial_response(
            event=event, record_handler=record_handler, processor=processor, context=context
        )
    finally:
        report_throttles(timers().retrier.tally)
