"""Calling Lambda handlers outside Lambda: API Gateway HTTP API and WebSocket API
events, and a context.

The tests and the local stack build the same events (HTTP: payload version 2.0) that API
Gateway sends to the function, so the handler under test is the one that runs on AWS.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl


def http_api_event(
    method: str,
    path: str,
    *,
    body: object = None,
    headers: Mapping[str, str] | None = None,
    query: str = "",
    source_ip: str = "127.0.0.1",
) -> dict[str, Any]:
    """The payload-v2 event API Gateway sends for this request.

    `body` is sent as JSON unless it is already `str` or `bytes` (bytes go base64).
    """
    lowered = {name.lower(): value for name, value in (headers or {}).items()}
    encoded = False
    text: str | None
    if body is None:
        text = None
    elif isinstance(body, bytes):
        text, encoded = base64.b64encode(body).decode(), True
    elif isinstance(body, str):
        text = body
    else:
        text = json.dumps(body)
        lowered.setdefault("content-type", "application/json")
    now = time.time()
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": query,
        "headers": lowered,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "local",
            "domainName": "localhost",
            "domainPrefix": "localhost",
            "http": {
                "method": method.upper(),
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": source_ip,
                "userAgent": lowered.get("user-agent", ""),
            },
            "requestId": str(uuid.uuid4()),
            "routeKey": "$default",
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "isBase64Encoded": encoded,
    }
    if query:
        event["queryStringParameters"] = dict(parse_qsl(query, keep_blank_values=True))
    if text is not None:
        event["body"] = text
    return event


_EVENT_TYPES = {"$connect": "CONNECT", "$disconnect": "DISCONNECT", "$default": "MESSAGE"}


def websocket_event(
    route: str,
    *,
    connection_id: str,
    connected_at: float,
    headers: Mapping[str, str] | None = None,
    query: str = "",
    body: str | None = None,
    source_ip: str = "127.0.0.1",
    disconnect: tuple[int, str] = (1000, ""),
) -> dict[str, Any]:
    """The event API Gateway's WebSocket API sends for `route` (`$connect`,
    `$disconnect` or `$default`) of connection `connection_id`: headers and the query
    string at the connect, `body` with a message, the close code and reason at the end."""
    now = time.time()
    context: dict[str, Any] = {
        "routeKey": route,
        "eventType": _EVENT_TYPES[route],
        "extendedRequestId": str(uuid.uuid4()),
        "requestTime": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
        "messageDirection": "IN",
        "stage": "ws",
        "connectedAt": int(connected_at * 1000),
        "requestTimeEpoch": int(now * 1000),
        "identity": {"sourceIp": source_ip, "userAgent": dict(headers or {}).get("User-Agent", "")},
        "requestId": str(uuid.uuid4()),
        "domainName": "localhost",
        "connectionId": connection_id,
        "apiId": "local",
    }
    event: dict[str, Any] = {"requestContext": context, "isBase64Encoded": False}
    if route == "$default":
        context["messageId"] = str(uuid.uuid4())
        event["body"] = body
        return event
    event["headers"] = dict(headers or {})
    event["multiValueHeaders"] = {name: [value] for name, value in (headers or {}).items()}
    if route == "$disconnect":
        context["disconnectStatusCode"], context["disconnectReason"] = disconnect
    elif query:
        pairs = parse_qsl(query, keep_blank_values=True)
        event["queryStringParameters"] = dict(pairs)
        event["multiValueQueryStringParameters"] = {
            name: [v for n, v in pairs if n == name] for name, _ in pairs
        }
    return event


@dataclass
class LocalContext:
    """The parts of a Lambda context that Powertools reads."""

    function_name: str = "knobelcup-local"
    function_version: str = "$LATEST"
    memory_limit_in_mb: int = 512
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    @property
    def invoked_function_arn(self) -> str:
        """An ARN of the shape Lambda gives."""
        return f"arn:aws:lambda:eu-central-1:123456789012:function:{self.function_name}"

    timeout_seconds: float = 10.0  # the function's Timeout (template.yaml)
    invoked_at: float = field(default_factory=time.monotonic)

    def begin(self) -> None:
        """A new invocation starts now, with the whole Timeout before it."""
        self.invoked_at = time.monotonic()

    def get_remaining_time_in_millis(self) -> int:
        """What is left of the Timeout since the invocation began, as Lambda counts it."""
        left = self.timeout_seconds - (time.monotonic() - self.invoked_at)
        return max(0, int(left * 1000))


Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


@dataclass(frozen=True)
class HttpAnswer:
    """A handler's answer as a client sees it: status, JSON body (if any), raw text."""

    status: int
    body: Any
    raw: str
    headers: dict[str, str]


def invoke_http(
    handler: Handler,
    method: str,
    path: str,
    body: object = None,
    *,
    token: str | None = None,
    headers: Mapping[str, str] | None = None,
    query: str = "",
) -> HttpAnswer:
    """Call `handler` as API Gateway would for this request; `token` goes as a Bearer."""
    sent = dict(headers or {})
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    result = handler(
        http_api_event(method, path, body=body, headers=sent, query=query), LocalContext()
    )
    raw = result.get("body") or ""
    answered = {name.lower(): value for name, value in (result.get("headers") or {}).items()}
    is_json = answered.get("content-type", "").startswith("application/json")
    return HttpAnswer(
        result["statusCode"], json.loads(raw) if raw and is_json else None, raw, answered
    )
