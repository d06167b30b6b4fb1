"""SQS (fed by the bus's TableFinished rule) → the bracket moves on.

Messages are independent (each concerns one table), so a failed one is reported and
retried alone while the rest of the batch is done. The bodies are EventBridge events;
only the `detail` is read, validated against the published contract.
"""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.observability import logger, metrics, tracer
from functions.wiring import Wired
from infra.bootstrap import build_progression
from infra.outbox.events import TableFinished
from infra.services.progression import ProgressionService

progression: Wired[ProgressionService] = Wired(build_progression)
processor = BatchProcessor(event_type=EventType.SQS)


def record_handler(record: SQSRecord) -> None:
    """One TableFinished event (Powertools requires the parameter name `record`)."""
    envelope = json.loads(record.body)
    finished = TableFinished.model_validate(envelope["detail"])
    logger.append_keys(tournament=finished.tournament, table=finished.table)
    progression().table_finished(finished)
    metrics.add_metric(name="TablesProgressed", unit=MetricUnit.Count, value=1)


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    """A batch of queue messages; the failed ones go back to the queue."""
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
