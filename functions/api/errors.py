"""Every error becomes JSON `{code, message, field|rule, current_version}` here, and only here."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from core.bracket import InvalidBracket
from core.errors import KnobelcupError
from functions.api.routes.docs import allowed_methods
from functions.observability import logger
from infra.errors import (
    Forbidden,
    NameTaken,
    NotFound,
    PlayerLimitReached,
    StaleVersion,
    Throttled,
    TurnConflict,
    Unauthorized,
    WrongStatus,
)

_STATUS: tuple[tuple[type[KnobelcupError], int], ...] = (
    (Unauthorized, 401),
    (Forbidden, 403),
    (NotFound, 404),
    (StaleVersion, 409),
    (TurnConflict, 409),
    (WrongStatus, 409),
    (PlayerLimitReached, 409),
    (NameTaken, 409),
    (Throttled, 429),
    (InvalidBracket, 422),
)


def status_of(error: KnobelcupError) -> int:
    """The HTTP status of a domain error: 422 for anything that breaks a rule."""
    for kind, status in _STATUS:
        if isinstance(error, kind):
            return status
    return 422


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None, **context: Any
) -> Response[str]:
    """The JSON error body every failure uses."""
    body = {"code": code, "message": message} | {k: v for k, v in context.items() if v is not None}
    if status == 429:
        headers = {"Retry-After": "1", **(headers or {})}
    return Response(status, content_types.APPLICATION_JSON, json.dumps(body), headers=headers)


def register(app: APIGatewayHttpResolver) -> None:
    """Install the handlers on `app` (Powertools re-raises anything unhandled)."""

    @app.exception_handler(KnobelcupError)
    def domain_error(error: KnobelcupError) -> Response[str]:
        wait = getattr(error, "retry_after", None)  # a rate limit's window: its real wait
        return error_response(
            status_of(error),
            error.code,
            str(error),
            None if wait is None else {"Retry-After": str(wait)},
            field=getattr(error, "field", None),
            rule=error.rule or None,
            current_version=getattr(error, "current_version", None),
        )

    @app.exception_handler(RequestValidationError)
    def invalid_request(error: RequestValidationError) -> Response[str]:
        first = error.errors()[0]
        location = [str(part) for part in first.get("loc", ()) if part != "body"]
        field = ".".join(location) or "body"
        if first.get("type") == "json_invalid":
            return error_response(400, "malformed_json", "the body is not valid JSON", field="body")
        if first.get("type") == "model_attributes_type" and not location:
            return error_response(400, "bad_body", "the body must be a JSON object", field="body")
        message = f"field '{field}': {first.get('msg', 'is invalid')}"
        return error_response(422, "invalid_field", message, field=field)

    @app.not_found
    def no_route(error: Exception) -> Response[str]:
        method, path = app.current_event.http_method, app.current_event.path
        allowed = allowed_methods(app, path)
        if allowed:
            listed = ", ".join(sorted(allowed))
            message = f"{path} takes {listed}, not {method}"
            return error_response(405, "method_not_allowed", message, {"Allow": listed})
        return error_response(404, "no_route", f"no route {method} {path}")

    @app.exception_handler(Exception)
    def unexpected(error: Exception) -> Response[str]:
        logger.exception("unhandled error")
        return error_response(500, "internal_error", "something went wrong on our side")
