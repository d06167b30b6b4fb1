"""A schedule every minute → time out the tables whose deadline was lost (docs/rules.md §4).

The backstop behind Scheduler and TimeoutFunction: it finds overdue tables through the
sparse index `deadlines`, never by a scan, and plays their timeouts through the same
version check as TimeoutFunction (`infra.services.sweeper`). It stops short of its own timeout
and leaves what it did not reach for the next run.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.observability import logger, metrics, tracer
from functions.wiring import Wired
from infra.bootstrap import build_sweeper
from infra.services.sweeper import DeadlineSweeper

sweeper: Wired[DeadlineSweeper] = Wired(build_sweeper)


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """One sweep of every shard of the deadline index, within this invocation's time."""
    report = sweeper().sweep(time_left=lambda: context.get_remaining_time_in_millis() / 1000)
    logger.info("sweep", **report.as_dict())
    metrics.add_metric(name="TurnsTimedOutBySweeper", unit=MetricUnit.Count, value=report.timed_out)
    metrics.add_metric(name="SweptTables", unit=MetricUnit.Count, value=report.visited)
    if not report.complete:
        metrics.add_metric(name="SweepsCutShort", unit=MetricUnit.Count, value=1)
    return report.as_dict()
