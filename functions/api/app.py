"""The API's Lambda entry point: routes by resource, errors in one place, observability."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, CORSConfig
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.api import errors
from functions.api.body_guard import refuse_bad_body
from functions.api.routes import docs, pages, players, reconcile, tables, tournaments
from functions.api.routes.organizer import router as organizer_router
from functions.api.security_headers import secured
from functions.observability import logger, metrics, tracer
from infra.settings import Settings

# what a page of an allowed origin may send and read besides the simple headers
CORS_REQUEST_HEADERS = ["Idempotency-Key"]
CORS_READABLE_HEADERS = ["Retry-After", "Allow"]
CORS_MAX_AGE = 600


def cors_config(origins: Sequence[str]) -> CORSConfig | None:
    """CORS for pages served from `origins` (`*`: any); None (no CORS headers, and a
    preflight is a 405) without any."""
    if not origins:
        return None
    return CORSConfig(
        allow_origin=origins[0],
        extra_origins=list(origins[1:]),
        allow_headers=CORS_REQUEST_HEADERS,
        expose_headers=CORS_READABLE_HEADERS,
        max_age=CORS_MAX_AGE,
    )


def make_app(cors_origins: Sequence[str] = ()) -> APIGatewayHttpResolver:
    """The resolver with every route, its errors and docs; CORS for `cors_origins`."""
    resolver = APIGatewayHttpResolver(enable_validation=True, cors=cors_config(cors_origins))
    resolver.include_router(tournaments.router)
    resolver.include_router(players.router)
    resolver.include_router(tables.router)
    resolver.include_router(pages.router)
    resolver.include_router(reconcile.router)
    resolver.include_router(organizer_router)
    errors.register(resolver)
    docs.register(resolver)
    return resolver


app = make_app(Settings.from_env().cors_origins)


def answer(resolver: APIGatewayHttpResolver, event: dict[str, Any], context: Any) -> dict[str, Any]:
    """`resolver`'s answer to `event`, with the headers every answer carries."""
    refused = refuse_bad_body(event)
    resolved = refused if refused is not None else resolver.resolve(event, context)
    return secured(resolved, event.get("headers") or {})


@logger.inject_lambda_context(
    correlation_id_path=correlation_paths.API_GATEWAY_HTTP, clear_state=True
)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """API Gateway HTTP API (payload v2) → routes."""
    return answer(app, event, context)
