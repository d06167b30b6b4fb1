"""API Gateway WebSocket API → who listens to what. `$connect` checks and records a
connection (refusing it with 400, 401, 404 or 429), `$disconnect` forgets it, and
`$default` answers `{"action": "ping"}` with `{"type": "pong"}`. A player connects with
`?ticket=` (one use, from `POST /tournaments/{id}/me/socket-ticket`), or a token in an
`Authorization` header, or, for old clients, `?token=` (which lands in access logs).

This function only keeps the list of listeners; what they hear is posted by the
publisher as the table's changes come off the stream (`infra.outbox.push`).
"""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.parser import parse
from aws_lambda_powertools.utilities.parser.models import (
    APIGatewayWebSocketConnectEventModel,
    APIGatewayWebSocketDisconnectEventModel,
    APIGatewayWebSocketMessageEventModel,
)
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import Field

from core.errors import KnobelcupError
from functions.observability import logger, metrics, tracer
from functions.wiring import Wired
from infra.bootstrap import build_sockets
from infra.errors import Forbidden, NotFound, Throttled, Unauthorized
from infra.services.sockets import BadConnect, ConnectRequest, SocketService

sockets: Wired[SocketService] = Wired(build_sockets)
_STATUS: tuple[tuple[type[KnobelcupError], int], ...] = (
    (Unauthorized, 401),
    (Forbidden, 403),
    (NotFound, 404),
    (Throttled, 429),
)


class ConnectEvent(APIGatewayWebSocketConnectEventModel):
    """`$connect`, with the query string Powertools' model leaves out."""

    query_string_parameters: dict[str, str] | None = Field(None, alias="queryStringParameters")


@logger.inject_lambda_context(correlation_id_path="requestContext.requestId", clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """One of the WebSocket API's three routes."""
    route = event.get("requestContext", {}).get("routeKey")
    if route == "$connect":
        return _connect(parse(event=event, model=ConnectEvent))
    if route == "$disconnect":
        gone = parse(event=event, model=APIGatewayWebSocketDisconnectEventModel)
        sockets().disconnect(gone.request_context.connection_id)
        logger.info("disconnected", connection=gone.request_context.connection_id)
        return {"statusCode": 200}
    message = parse(event=event, model=APIGatewayWebSocketMessageEventModel)
    return {"statusCode": 200, "body": json.dumps(_answer(message.body))}


def _connect(event: ConnectEvent) -> dict[str, Any]:
    query = event.query_string_parameters or {}
    connection_id = event.request_context.connection_id
    request = ConnectRequest(
        tournament=query.get("tournament", ""),
        token=query.get("token", "") or _bearer(event.headers),
        table=query.get("table", ""),
        ticket=query.get("ticket", ""),
    )
    try:
        connection = sockets().connect(connection_id, request)
    except BadConnect as error:
        return _refused(400, "bad_connect", str(error))
    except KnobelcupError as error:
        status = next((code for kind, code in _STATUS if isinstance(error, kind)), 400)
        return _refused(status, error.code, str(error))
    logger.info(
        "connected",
        connection=connection_id,
        tournament=connection.tournament,
        player=connection.player or None,
        table=connection.table or None,
    )
    metrics.add_metric(name="Connections", unit=MetricUnit.Count, value=1)
    return {"statusCode": 200}


def _refused(status: int, code: str, message: str) -> dict[str, Any]:
    logger.info("connect refused", status=status, code=code)
    metrics.add_metric(name="ConnectsRefused", unit=MetricUnit.Count, value=1)
    return {
        "statusCode": status,
        "headers": {"content-type": "application/json"},
        "body": json.dumps({"code": code, "message": message}),
    }


def _bearer(headers: dict[str, str]) -> str:
    """The token of an `Authorization: Bearer` header ('' without one): for clients that
    can set headers, so that the token stays out of URLs and their logs."""
    for name, value in headers.items():
        if name.lower() == "authorization":
            scheme, _, token = value.partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return ""


MAX_MESSAGE = 1024  # characters: a ping is 18; API Gateway would carry up to 128 KB
_PING_ONLY = 'the only message a client sends is {"action": "ping"}'


def _answer(body: object) -> dict[str, Any]:
    """The answer to a message a client sent: a pong, or a typed error, never an
    exception (a frame nested deeper than the JSON parser recurses is a RecursionError)."""
    if not isinstance(body, str) or len(body) > MAX_MESSAGE:
        return _error("bad_message", f"a message is JSON of at most {MAX_MESSAGE} characters")
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return _error("bad_message", f"a message is a JSON object: {_PING_ONLY}")
    if not isinstance(message, dict):
        return _error("bad_message", f"a message is a JSON object: {_PING_ONLY}")
    if message.get("action") == "ping":
        return {"type": "pong"}
    return _error("unknown_action", _PING_ONLY)


def _error(code: str, message: str) -> dict[str, Any]:
    metrics.add_metric(name="BadMessages", unit=MetricUnit.Count, value=1)
    return {"type": "error", "code": code, "message": message}
