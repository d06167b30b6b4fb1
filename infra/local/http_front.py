"""API Gateway's part off AWS: a real HTTP server that hands each request to the API's
Lambda handler as an HTTP API (payload v2.0) event and sends back what it answers.

`sam local start-api` does the same but needs a container runtime; this needs none.
Requests are served on threads; `invoke` decides where the function runs (see
`infra.local.api_workers`).
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from infra.local.lambda_events import http_api_event

Invoke = Callable[[dict[str, Any]], dict[str, Any]]  # an event → the function's answer
MAX_BODY = 10 * 1024 * 1024  # API Gateway's payload limit
JSON = {"content-type": "application/json"}
log = logging.getLogger(__name__)


class HttpFront(ThreadingHTTPServer):
    """Serves the function `invoke` runs on `address` ((host, port); port 0: any free)."""

    daemon_threads = True

    def __init__(
        self, address: tuple[str, int], invoke: Invoke, *, access_log: bool = False
    ) -> None:
        self.invoke = invoke
        self.access_log = access_log
        super().__init__(address, _RequestHandler)

    @property
    def url(self) -> str:
        """The base URL, e.g. http://127.0.0.1:3000."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: clients reuse their connection
    server: HttpFront

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PUT(self) -> None:
        self._serve()

    def do_PATCH(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def do_OPTIONS(self) -> None:
        self._serve()

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._send(
                413, {"content-type": "application/json"}, b'{"message":"Request too large"}'
            )
            return
        raw = self.rfile.read(length) if length else b""
        target = urlsplit(self.path)
        headers = dict(self.headers.items())  # repeated headers: API Gateway joins them
        for name in set(self.headers.keys()):
            values = self.headers.get_all(name) or []
            if len(values) > 1:
                headers[name] = ",".join(values)
        body: str | bytes | None = None
        if raw:
            try:
                body = raw.decode()
            except UnicodeDecodeError:
                body = raw
        event = http_api_event(
            self.command,
            target.path,
            body=body,
            headers=headers,
            query=target.query,
            source_ip=self.client_address[0],
        )
        try:
            result = self.server.invoke(event)
        except Exception:  # API Gateway answers 500 when the function fails
            log.exception("the API function failed on %s %s", self.command, self.path)
            self._send(500, JSON, b'{"message":"Internal Server Error"}')
            return
        self._answer(result)

    def _answer(self, result: dict[str, Any]) -> None:
        text = result.get("body") or ""
        payload = base64.b64decode(text) if result.get("isBase64Encoded") else text.encode()
        headers = {
            name.lower(): str(value) for name, value in (result.get("headers") or {}).items()
        }
        cookies = list(result.get("cookies") or [])
        self._send(int(result.get("statusCode", 200)), headers, payload, cookies)

    def _send(
        self,
        status: int,
        headers: dict[str, str],
        payload: bytes,
        cookies: list[str] | None = None,
    ) -> None:
        self.send_response(status)
        for name, value in headers.items():
            if name not in ("content-length", "connection"):
                self.send_header(name, value)
        for cookie in cookies or []:
            self.send_header("set-cookie", cookie)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.access_log:
            super().log_message(format, *args)
