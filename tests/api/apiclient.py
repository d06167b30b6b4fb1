"""A test client that calls the real Lambda handler with API Gateway HTTP API events."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from functions.api.app import lambda_handler
from infra.local.lambda_events import LocalContext, http_api_event


@dataclass(frozen=True)
class Answer:
    """One response: status, decoded JSON body, the raw body, the request's viewer."""

    status: int
    body: Any
    raw: str
    headers: dict[str, str]


@dataclass
class ApiClient:
    """Sends requests through `lambda_handler`; remembers every answer for leak scans."""

    answers: list[tuple[str | None, Answer]] = field(default_factory=list)

    def call(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        query: str = "",
        viewer: str | None = None,
    ) -> Answer:
        """One request; `viewer` labels whose eyes the answer is for (None: anyone)."""
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        event = http_api_event(method, path, body=body, headers=sent, query=query)
        result = lambda_handler(event, LocalContext())
        raw = result.get("body") or ""
        headers = {k.lower(): v for k, v in (result.get("headers") or {}).items()}
        is_json = headers.get("content-type", "").startswith("application/json")
        answer = Answer(
            result["statusCode"], json.loads(raw) if raw and is_json else None, raw, headers
        )
        self.answers.append((viewer, answer))
        return answer
