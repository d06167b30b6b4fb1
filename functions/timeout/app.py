"""EventBridge Scheduler → a turn's deadline has come (docs/rules.md §4).

The schedule's input names the table, the version the turn began at and whose turn it
is; the turn service applies the timeout only if that turn is still in play.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.parser import BaseModel, parse
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import ConfigDict, Field

from functions.observability import logger, metrics, tracer
from functions.wiring import Wired
from infra.bootstrap import Services, build_services

# its own services, not the API's: the two are separate functions with separate clients
services: Wired[Services] = Wired(build_services)


class TurnDeadline(BaseModel):
    """A schedule's input (`infra.outbox.timers.timeout_input`)."""

    model_config = ConfigDict(extra="forbid")

    tournament: str = Field(min_length=1)
    table: str = Field(min_length=1)
    version: int = Field(ge=0)  # the version the turn began at
    player: str | None = Field(default=None, min_length=1)  # absent in older schedules


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Time the turn out if it is still the one the schedule was made for."""
    deadline = parse(event=event, model=TurnDeadline)
    logger.append_keys(tournament=deadline.tournament, table=deadline.table)
    applied = services().turns.time_out(
        deadline.tournament, deadline.table, deadline.version, deadline.player
    )
    logger.info("deadline", version=deadline.version, applied=applied)
    if applied:
        metrics.add_metric(name="TurnsTimedOut", unit=MetricUnit.Count, value=1)
    return {"applied": applied}
