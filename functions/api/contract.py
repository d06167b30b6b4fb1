"""What each route may answer, for the OpenAPI document: every error status with the
body the API really sends (`ErrorBody`), not Powertools' default 422 (`{"detail": [...]}`)
that the API never sends.

A route lists its answers with `answers(...)`; `BODY` (a request with a JSON body) and
`AUTH` (a route that needs a token) add what any such route may answer. 429 is on every
route: DynamoDB's throttling reaches the caller as a 429 with Retry-After.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from pydantic import BaseModel

from functions.api.models import ErrorBody

_SUCCESS = {
    200: "done",
    201: "created: the answer holds a token shown only this once",
    202: "accepted: it goes on in the background",
}
_MEANINGS = {
    400: "the body is not JSON, or not a JSON object (`malformed_json`, `bad_body`)",
    401: "no token, or not the token this route needs (`unauthorized`)",
    403: "the token's holder may not do this here (`forbidden`)",
    404: "no such tournament, table or route (`not_found`, `no_route`)",
    409: "the state does not allow it now: a stale version, not your turn, the wrong"
    " status, a name taken, the tournament full",
    413: "the body is larger than the API accepts",
    415: "the body is not JSON (`unsupported_media_type`)",
    422: "a field is invalid (`invalid_field`, naming it in `field`), or the request breaks"
    " a rule (naming it in `rule`)",
    429: "too many requests at once (`throttled`), or past a limit on registrations or"
    " creations (`rate_limited`): retry after the `Retry-After` seconds",
}
BODY = (400, 413, 415, 422)
AUTH = (401, 403)
# Powertools' bodies for a request or an answer that fails its model: the API sends
# neither (its own 422 and 500 bodies are `ErrorBody`), and `ResponseValidationError`
# refers to `ValidationError`, so it must go with it or its `$ref` dangles.
_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError", "ResponseValidationError")
_ERROR_REF = "#/components/schemas/ErrorBody"


def answers(
    success: type[BaseModel], *errors: int, status: int = 200
) -> dict[int, OpenAPIResponse]:
    """A route's answers: `success` with `status`, and each of `errors` with the API's
    error body; 429 always."""
    documented: dict[int, OpenAPIResponse] = {
        status: {
            "description": _SUCCESS[status],
            "content": {"application/json": {"model": success}},
        }
    }
    for error in sorted({*errors, 429}):
        documented[error] = {
            "description": _MEANINGS[error],
            "content": {"application/json": {"model": ErrorBody}},
        }
    return documented


def with_error_bodies(document: dict[str, Any]) -> dict[str, Any]:
    """`document` with Powertools' own validation error (which it puts on every route as
    422, whatever the route declared) replaced by the API's error body."""
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            answer = operation.get("responses", {}).get("422")
            if answer is not None:
                answer["description"] = _MEANINGS[422]
                answer["content"] = {"application/json": {"schema": {"$ref": _ERROR_REF}}}
    schemas = document.get("components", {}).get("schemas", {})
    for name in _VALIDATION_SCHEMAS:
        schemas.pop(name, None)
    return document
