"""A small client for Knobelcup's HTTP API, on the standard library only.

One `ApiClient` keeps one keep-alive connection, so it belongs to one thread. `call`
returns every answer as it came (status, JSON body, raw text); `ok` raises `ApiError`
for anything but success, with the service's error code and message.
"""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from local.lambda_events import HttpAnswer

DEFAULT_URL = "http://127.0.0.1:3000"


class ApiError(RuntimeError):
    """The service refused a request; `code` and `message` are its own words."""

    def __init__(self, method: str, path: str, answer: HttpAnswer) -> None:
        body = answer.body if isinstance(answer.body, dict) else {}
        self.status = answer.status
        self.code = str(body.get("code", "http_error"))
        self.message = str(body.get("message", answer.raw[:200]))
        self.answer = answer
        super().__init__(f"{method} {path}: {answer.status} {self.code}: {self.message}")


@dataclass
class ApiClient:
    """Requests to one Knobelcup service, e.g. `ApiClient("http://127.0.0.1:3000")`."""

    base_url: str = DEFAULT_URL
    timeout: float = 30.0

    def __post_init__(self) -> None:
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {self.base_url!r}")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._connection: http.client.HTTPConnection | None = None

    def call(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        token: str | None = None,
        query: str | dict[str, Any] = "",
        headers: dict[str, str] | None = None,
    ) -> HttpAnswer:
        """One request; a dropped keep-alive connection is reopened once."""
        sent = {"Accept": "application/json", **(headers or {})}
        data: bytes | None = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        target = self._prefix + path
        encoded = urlencode(query) if isinstance(query, dict) else query
        if encoded:
            target += "?" + encoded
        for attempt in (1, 2):
            connection = self._open()
            try:
                connection.request(method, target, body=data, headers=sent)
                response = connection.getresponse()
                raw = response.read().decode()
                break
            except (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine):
                self.close()
                if attempt == 2:
                    raise
        answered = {name.lower(): value for name, value in response.getheaders()}
        is_json = answered.get("content-type", "").startswith("application/json")
        return HttpAnswer(
            response.status, json.loads(raw) if raw and is_json else None, raw, answered
        )

    def ok(self, method: str, path: str, body: object = None, **request: Any) -> Any:
        """The JSON body of a successful request; `ApiError` for any other status."""
        answer = self.call(method, path, body, **request)
        if not 200 <= answer.status < 300:
            raise ApiError(method, path, answer)
        return answer.body

    def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _open(self) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._connection = kind(self._host, self._port, timeout=self.timeout)
        return self._connection
