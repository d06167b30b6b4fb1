"""The API's Lambda entry point: routes by resource, errors in one place, observability."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.openapi.models import HTTPBearer
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.api import errors
from functions.api.observability import logger, metrics, tracer
from functions.api.routes import players, tables, tournaments

app = APIGatewayHttpResolver(enable_validation=True)
app.include_router(tournaments.router)
app.include_router(players.router)
app.include_router(tables.router)
errors.register(app)

_OPENAPI: dict[str, Any] = {
    "title": "Knobelcup",
    "version": "1",
    "description": "Tournaments of Mäxchen, Mariechen and 42 muss kommen, turn by turn.",
    "security_schemes": {"bearerAuth": HTTPBearer(description="organizer or player token")},
}
app.enable_swagger(path="/docs", **_OPENAPI)


@app.get("/openapi.json", include_in_schema=False)
def openapi_document() -> Response[str]:
    """The OpenAPI 3.1 document generated from the routes."""
    return Response(200, content_types.APPLICATION_JSON, app.get_openapi_json_schema(**_OPENAPI))


@logger.inject_lambda_context(
    correlation_id_path=correlation_paths.API_GATEWAY_HTTP, clear_state=True
)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """API Gateway HTTP API (payload v2) → routes."""
    return app.resolve(event, context)
