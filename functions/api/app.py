"""The API's Lambda entry point: routes by resource, errors in one place, observability."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.api import errors
from functions.api.body_guard import refuse_bad_body
from functions.api.routes import docs, pages, play, players, reconcile, tables, tournaments
from functions.api.routes.organizer import router as organizer_router
from functions.observability import logger, metrics, tracer

app = APIGatewayHttpResolver(enable_validation=True)
app.include_router(tournaments.router)
app.include_router(players.router)
app.include_router(tables.router)
app.include_router(pages.router)
app.include_router(play.router)
app.include_router(reconcile.router)
app.include_router(organizer_router)
errors.register(app)
docs.register(app)


@logger.inject_lambda_context(
    correlation_id_path=correlation_paths.API_GATEWAY_HTTP, clear_state=True
)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """API Gateway HTTP API (payload v2) → routes."""
    refused = refuse_bad_body(event)
    if refused is not None:
        return refused
    return app.resolve(event, context)
