"""SQS (fed by the bus's JobStepRule) → one step of a tournament's lifecycle job.

Each message asks for one step (`infra.jobs.runner`); the queue hands them over one at a time
(batch size 1), so one invocation does one bounded step. A step that fails goes back
to the queue and is run again; a copy of a message whose step is done does nothing.
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
from infra.bootstrap import build_jobs
from infra.jobs.runner import JobRunner
from infra.outbox.events import JobStepReady

jobs: Wired[JobRunner] = Wired(build_jobs)
processor = BatchProcessor(event_type=EventType.SQS)


def record_handler(record: SQSRecord) -> None:
    """One JobStepReady event (Powertools requires the parameter name `record`)."""
    ready = JobStepReady.model_validate(json.loads(record.body)["detail"])
    logger.append_keys(tournament=ready.tournament, job=ready.job, step=ready.step)
    outcome = jobs().run(ready)
    logger.info("job step", outcome=outcome)
    metrics.add_metric(name="JobSteps", unit=MetricUnit.Count, value=1)


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    """A batch of queue messages; the failed ones go back to the queue."""
    return process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
