"""API Gateway's part off AWS: a real HTTP server that hands each request to the API's
Lambda handler as an HTTP API (payload v2.0) event and sends back what it answers.

`sam local start-api` does the same but needs a container runtime; this needs none.
The HTTP itself is waitress's (a pure-Python WSGI server, a development dependency
only): a listen backlog of 1,024, keep-alive, a request read in full before a thread
takes it, connections idle or stalled mid-request closed after `read_timeout`, a 400
for a malformed request (a Content-Length that is no number) and a 413 past API
Gateway's 10 MB, each closing the connection so no unread body is taken for a request.
`invoke` decides where the function runs (see `local.api_workers`).
"""

from __future__ import annotations

import base64
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from waitress import wasyncore
from waitress.server import create_server

from local.lambda_events import http_api_event

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

Invoke = Callable[[dict[str, Any]], dict[str, Any]]  # an event → the function's answer
MAX_BODY = 10 * 1024 * 1024  # API Gateway's payload limit
BACKLOG = 1024  # connections the kernel holds until they are accepted
READ_TIMEOUT = 30  # seconds a connection may idle, or stall mid-request
# Threads taking whole requests off the connections; each waits for a free API worker,
# so more of them only move the queue from waitress's to the workers'.
THREADS = 8
STOP_SECONDS = 5.0  # how long requests in flight may take to finish when it stops
JSON = "application/json"
# the connection's own headers: WSGI leaves them to the server
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "content-length",
    }
)
log = logging.getLogger(__name__)


class HttpFront:
    """Serves the function `invoke` runs on `address` ((host, port); port 0: any free),
    from `serve_forever` (on a thread of its own) until `shutdown`."""

    def __init__(
        self,
        address: tuple[str, int],
        invoke: Invoke,
        *,
        access_log: bool = False,
        read_timeout: int = READ_TIMEOUT,
        threads: int = THREADS,
    ) -> None:
        self.invoke = invoke
        self.access_log = access_log
        host, port = address
        self._server: Any = create_server(
            self._app,
            host=host,
            port=port,
            threads=threads,
            backlog=BACKLOG,
            channel_timeout=read_timeout,
            cleanup_interval=max(1, min(30, read_timeout // 2)),  # how often it looks
            max_request_body_size=MAX_BODY,
            clear_untrusted_proxy_headers=True,
            ident="knobelcup-local",
        )
        if not access_log:  # "Task queue depth": requests waiting for a worker, as they may
            logging.getLogger("waitress.queue").setLevel(logging.ERROR)
        self._stopped = threading.Event()

    @property
    def url(self) -> str:
        """The base URL, e.g. http://127.0.0.1:3000."""
        return f"http://{self._server.effective_host}:{self._server.effective_port}"

    def serve_forever(self) -> None:
        """Serve until `shutdown`."""
        try:
            self._server.run()
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        """Take no more connections, let the requests in flight finish (for up to
        `STOP_SECONDS`), close every connection and stop."""
        self._in_loop(lambda: wasyncore.dispatcher.close(self._server))  # the listening socket
        self._server.task_dispatcher.shutdown(cancel_pending=True, timeout=STOP_SECONDS)
        self._in_loop(self._close_all)
        self._stopped.wait(STOP_SECONDS)

    def server_close(self) -> None:
        """Close what `shutdown` left open (nothing once it returned)."""
        if not self._stopped.is_set():
            self._close_all()

    def _in_loop(self, action: Callable[[], object]) -> None:
        """Run `action` on the server's own thread (its connections are not shared)."""
        done = threading.Event()

        def run() -> None:
            try:
                action()
            finally:
                done.set()

        if self._stopped.is_set():
            run()
            return
        self._server.trigger.pull_trigger(run)
        done.wait(STOP_SECONDS)

    def _close_all(self) -> None:
        for dispatcher in list(self._server._map.values()):
            dispatcher.close()  # the server's loop ends once none is left

    def _app(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        started = time.monotonic()
        method = environ["REQUEST_METHOD"]
        event = _event(environ)
        try:
            result = self.invoke(event)
        except Exception as error:  # API Gateway answers 500; the worker showed the traceback
            log.error("%s %s failed: %s", method, event["rawPath"], error)
            result = {
                "statusCode": 500,
                "headers": {"content-type": JSON},
                "body": '{"message":"Internal Server Error"}',
            }
        status, headers, payload = _answer(result)
        start_response(status, headers)
        if self.access_log:
            print(
                f'{environ.get("REMOTE_ADDR", "-")} "{method} {environ.get("REQUEST_URI", "")}" '
                f"{status.split()[0]} {len(payload)} {time.monotonic() - started:.3f}s",
                file=sys.stderr,
            )
        return [] if method == "HEAD" else [payload]


def _event(environ: WSGIEnvironment) -> dict[str, Any]:
    """The payload-v2 event for the request `environ` describes (its body read whole)."""
    headers: dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            headers[key[5:].replace("_", "-").lower()] = value
        elif key in ("CONTENT_TYPE", "CONTENT_LENGTH") and value:
            headers[key.replace("_", "-").lower()] = value
    raw = environ["wsgi.input"].read()
    body: str | bytes | None = None
    if raw:
        try:
            body = raw.decode()
        except UnicodeDecodeError:  # sent base64-encoded, as API Gateway sends binary
            body = raw
    target = urlsplit(environ.get("REQUEST_URI") or environ.get("PATH_INFO") or "/")
    return http_api_event(
        environ["REQUEST_METHOD"],
        target.path or "/",
        body=body,
        headers=headers,
        query=environ.get("QUERY_STRING", ""),
        source_ip=environ.get("REMOTE_ADDR", "127.0.0.1"),
    )


def _answer(result: dict[str, Any]) -> tuple[str, list[tuple[str, str]], bytes]:
    """The function's answer as WSGI's status line, headers and body."""
    text = result.get("body") or ""
    payload = base64.b64decode(text) if result.get("isBase64Encoded") else text.encode()
    code = int(result.get("statusCode", 200))
    try:
        status = f"{code} {HTTPStatus(code).phrase}"
    except ValueError:
        status = f"{code} Unknown"
    headers = [
        (name.lower(), str(value))
        for name, value in (result.get("headers") or {}).items()
        if name.lower() not in HOP_BY_HOP
    ]
    headers += [("set-cookie", cookie) for cookie in result.get("cookies") or []]
    headers.append(("content-length", str(len(payload))))
    return status, headers, payload
