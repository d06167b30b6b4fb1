"""API Gateway's part off AWS: one server for the HTTP API and the WebSocket API.

- HTTP: each request becomes an HTTP API (payload v2.0) event for the API's handler, and
  its answer goes back.
- WebSocket, at `/ws` (the WebSocket API's stage is named `ws`, so its URL ends the
  same on AWS): the handshake becomes a `$connect` event for the socket function, which
  may refuse it with its status code; each text frame a `$default` event, whose answer's
  body goes back as a frame; the socket closing a `$disconnect` event. As API Gateway
  does, it closes a socket (1001, "Going away") idle for 10 minutes (no frame from its
  client) and any 2 hours old; `KNOBELCUP_LOCAL_SOCKET_IDLE_SECONDS` and
  `KNOBELCUP_LOCAL_SOCKET_MAX_SECONDS` shorten that, to try the clients' keep-alive and
  renewal in seconds.
- The static site (`functions.site`), as CloudFront serves it from its bucket: the play
  page's shells and the pages' scripts, chosen by the same routing
  (`functions.site.routing`), with the headers the distribution adds; never the API's.
- API Gateway's management API, at `/ws/@connections/{id}`: POST sends a frame to that
  socket, DELETE closes it, GET describes it, and an unknown id is 410 `GoneException`.
  So the publisher's boto3 client, pointed at `socket_url`, pushes through the same code
  as on AWS. Only signed (SigV4) requests are served, as API Gateway serves only them,
  and only at a loopback address: the signature is not checked, and a front listening
  on a pub's Wi-Fi must not let a phone post to another player's socket.

`sam local start-api` needs a container runtime and has no WebSocket API; this needs
neither. The HTTP is aiohttp's (a development dependency only): a listen backlog of
1,024, keep-alive, a request's body read before a thread takes it, connections idle or
stalled mid-request closed after `read_timeout`, a 400 for a malformed request and a 413
past API Gateway's 10 MB, both closing the connection so no unread body is taken for a
request. `invoke` and `sockets` decide where the functions run (see `local.api_workers`).
"""

from __future__ import annotations

import asyncio
import base64
import ipaddress
import json
import logging
import os
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import unquote, urlsplit

from aiohttp import WSMsgType, web
from multidict import CIMultiDict

from functions.api.security_headers import secured
from functions.site.routing import site_key
from infra.site_bucket import SiteFile
from local import operations as counted
from local.lambda_events import http_api_event, websocket_event

Invoke = Callable[[dict[str, Any]], dict[str, Any]]  # an event → the function's answer
MAX_BODY = 10 * 1024 * 1024  # API Gateway's payload limit
MAX_FRAME = 128 * 1024  # a WebSocket message, either way
BACKLOG = 1024  # connections the kernel holds until they are accepted
READ_TIMEOUT = 30  # seconds a connection may idle, or stall mid-request
# Threads calling the functions; each waits for a free worker, so more of them only
# move the queue from here to the workers'.
THREADS = 8
STOP_SECONDS = 5.0  # how long requests in flight may take to finish when it stops
SOCKET_PATH = "/ws"
# API Gateway closes a WebSocket idle this long (no frame from its client) and any this
# old; the environment shortens them, for tests of the clients' keep-alive and renewal
IDLE_ENVIRONMENT, IDLE_SECONDS = "KNOBELCUP_LOCAL_SOCKET_IDLE_SECONDS", 600.0
LIFETIME_ENVIRONMENT, LIFETIME_SECONDS = "KNOBELCUP_LOCAL_SOCKET_MAX_SECONDS", 7200.0
LOOPBACK = "127.0.0.1"
MANAGEMENT_PREFIX = SOCKET_PATH + "/@connections/"
JSON = "application/json"
READS = frozenset({"GET", "HEAD", "OPTIONS"})
MANAGEMENT_CALLS = {
    "POST": "PostToConnection",
    "GET": "GetConnection",
    "DELETE": "DeleteConnection",
}
# the connection's own headers: the server sets them
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
# what aiohttp says of clients that send no HTTP (answered 400) or go away early: theirs
_clients = logging.getLogger(__name__ + ".clients")


@dataclass
class _Socket:
    """A connected WebSocket, as the management API describes it."""

    response: web.WebSocketResponse
    connected_at: float
    source_ip: str
    user_agent: str
    last_active: float = field(default_factory=time.time)
    cut: str = ""  # why the front closed it as API Gateway would, if it did


class HttpFront:
    """Serves the functions `invoke` (HTTP) and `sockets` (WebSocket, if given) run, on
    `address` ((host, port); port 0: any free), from `serve_forever` (on a thread of its
    own) until `shutdown`. `changed` is called after each HTTP request that may have
    written (any method but GET, HEAD and OPTIONS), as soon as it is answered."""

    def __init__(
        self,
        address: tuple[str, int],
        invoke: Invoke,
        *,
        sockets: Invoke | None = None,
        changed: Callable[[], None] | None = None,
        access_log: bool = False,
        read_timeout: int = READ_TIMEOUT,
        threads: int = THREADS,
        operations: Callable[[], dict[str, Any]] | None = None,
        socket_idle: float | None = None,
        socket_lifetime: float | None = None,
        site: dict[str, SiteFile] | None = None,
    ) -> None:
        self.invoke = invoke
        self.site = site  # the static site's files by key (None: every path is the API's)
        # the cuts API Gateway makes (the environment's, or AWS's, unless given)
        self.socket_idle = _seconds(socket_idle, IDLE_ENVIRONMENT, IDLE_SECONDS)
        self.socket_lifetime = _seconds(socket_lifetime, LIFETIME_ENVIRONMENT, LIFETIME_SECONDS)
        self.operations = operations  # what `GET /_local/operations` answers (loopback)
        self.sockets = sockets
        self.changed = changed
        self.access_log = access_log
        self._read_timeout = read_timeout
        self._listener = socket.create_server(address, backlog=BACKLOG)
        port = self._listener.getsockname()[1]
        # the management API is served only to connections that arrive at loopback: a
        # front bound to one LAN address gets a loopback listener of its own for it
        self._listeners = [self._listener]
        if not _reaches_loopback(self._listener.getsockname()[0]):
            self._listeners.append(socket.create_server((LOOPBACK, port), backlog=BACKLOG))
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="http-front")
        self._connected: dict[str, _Socket] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._stop_asked = False
        self._stopped = threading.Event()
        _clients.setLevel(logging.INFO if access_log else logging.CRITICAL)

    @property
    def url(self) -> str:
        """The base URL, e.g. http://127.0.0.1:3000."""
        host, port = self._listener.getsockname()[:2]
        return f"http://{host}:{port}"

    @property
    def socket_url(self) -> str:
        """The WebSocket API's URL (ws://…/ws), also the management API's endpoint when
        written with http:// (`management_url`)."""
        return "ws" + self.url.removeprefix("http") + SOCKET_PATH

    @property
    def management_url(self) -> str:
        """Where API Gateway's management API is served: `post_to_connection`'s endpoint,
        on loopback (the only address it answers at)."""
        return f"http://{LOOPBACK}:{self._listener.getsockname()[1]}{SOCKET_PATH}"

    def serve_forever(self) -> None:
        """Serve until `shutdown`."""
        try:
            asyncio.run(self._serve())
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        """Take no more connections, tell every WebSocket the server goes away, let the
        requests in flight finish (for up to `STOP_SECONDS`), close every connection and
        stop."""
        self._stop_asked = True
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and not self._stopped.is_set():
            loop.call_soon_threadsafe(stopping.set)
            self._stopped.wait(4 * STOP_SECONDS)

    def server_close(self) -> None:
        """Close what `shutdown` left open (nothing once it returned)."""
        for listener in self._listeners:
            listener.close()
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def _serve(self) -> None:
        stopping = asyncio.Event()
        self._stopping, self._loop = stopping, asyncio.get_running_loop()
        app = web.Application(client_max_size=MAX_BODY)
        # every path goes to the API, as API Gateway's $default route sends it: `.*` alone
        # would leave a path holding an encoded line break (%0A) to aiohttp's plain 404
        app.router.add_route("*", r"/{path:[\s\S]*}", self._handle)
        runner = web.AppRunner(
            app,
            handle_signals=False,
            shutdown_timeout=STOP_SECONDS,
            access_log=None,
            logger=_clients,
            keepalive_timeout=self._read_timeout,  # idle, or before a request is whole
            lingering_time=0,  # an unread body is dropped with its connection
        )
        await runner.setup()
        sites = [web.SockSite(runner, listener, backlog=BACKLOG) for listener in self._listeners]
        for site in sites:
            await site.start()
        if self._stop_asked:
            stopping.set()
        await stopping.wait()
        for site in sites:
            await site.stop()
        await asyncio.gather(
            *(s.response.close(code=1001, message=b"going away") for s in self._connected.values()),
            return_exceptions=True,
        )
        await runner.cleanup()

    async def _call(self, function: Invoke, event: dict[str, Any]) -> dict[str, Any]:
        """`function`'s answer to `event`, from a thread of the pool (it blocks)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, function, event)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        started = time.monotonic()
        path = urlsplit(request.raw_path).path or "/"
        response: web.StreamResponse
        operations = self.operations
        if path == counted.PATH and operations is not None and _arrived_at_loopback(request):
            response = _json(200, await self._call(lambda _: operations(), {}))
        elif path.startswith(MANAGEMENT_PREFIX) and self.sockets is not None:
            response = await self._manage(request, unquote(path[len(MANAGEMENT_PREFIX) :]))
        elif path == SOCKET_PATH and self.sockets is not None:
            response = await self._socket(request)
        elif (key := self._site_key(request, path)) is not None:
            response = await self._site_file(request, path, key)
        else:
            response = await self._http(request)
        if self.access_log:
            print(
                f'{request.remote or "-"} "{request.method} {request.raw_path}" '
                f"{response.status} {response.body_length} {time.monotonic() - started:.3f}s",
                file=sys.stderr,
            )
        return response

    # --- the static site ---------------------------------------------------------------

    def _site_key(self, request: web.Request, path: str) -> str | None:
        """The site's file `request` asks for, None for the API's paths."""
        if self.site is None or request.method not in ("GET", "HEAD"):
            return None
        return site_key(
            path,
            request.query,
            request.cookies,
            request.headers.get("accept-language", ""),
        )

    async def _site_file(self, request: web.Request, path: str, key: str) -> web.Response:
        """The file `key` as CloudFront answers it from the bucket (404: none such)."""
        counted.COUNTER.count("cdn" + counted.http_route(request.method, path).removeprefix("http"))
        found = (self.site or {}).get(key)
        if found is None:
            return web.Response(status=404, text="Not Found", content_type="text/plain")
        headers = secured({"headers": {"content-type": found.content_type}}, request.headers)
        headers["headers"]["cache-control"] = found.cache_control
        response = web.Response(body=found.body, headers=headers["headers"])
        response.enable_compression()
        return response

    # --- the HTTP API ------------------------------------------------------------------

    async def _http(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        if isinstance(body, web.StreamResponse):
            return body
        event = _event(request, body)
        counted.COUNTER.count(counted.http_route(request.method, event["rawPath"]))
        counted.COUNTER.count("lambda:ApiFunction")
        try:
            result = await self._call(self.invoke, event)
        except Exception as error:  # API Gateway answers 500; the worker showed the traceback
            log.error("%s %s failed: %s", request.method, event["rawPath"], error)
            result = {
                "statusCode": 500,
                "headers": {"content-type": JSON},
                "body": '{"message":"Internal Server Error"}',
            }
        if self.changed is not None and request.method not in READS:
            self.changed()
        return _answer(result)

    async def _body(self, request: web.Request) -> bytes | web.StreamResponse:
        """The whole body; or the answer for a request whose body is too large (413) or
        stalls past the read timeout (none: the connection is just closed)."""
        if (request.content_length or 0) > MAX_BODY:
            return _closing(web.Response(status=413, text="Request Entity Too Large"))
        try:
            async with asyncio.timeout(self._read_timeout):
                return await request.read()
        except web.HTTPRequestEntityTooLarge:  # a chunked body past the limit
            return _closing(web.Response(status=413, text="Request Entity Too Large"))
        except TimeoutError:
            request.protocol.force_close()
            return web.Response(status=408)  # never sent: the connection is closed

    # --- the WebSocket API -------------------------------------------------------------

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        assert self.sockets is not None
        # no per-message compression: API Gateway offers none, and it costs a deflate a frame
        websocket = web.WebSocketResponse(max_msg_size=MAX_FRAME, autoping=True, compress=False)
        if not websocket.can_prepare(request).ok:
            return _json(426, {"message": "connect with a WebSocket client (Upgrade: websocket)"})
        connection = base64.urlsafe_b64encode(secrets.token_bytes(11)).decode()
        connected_at = time.time()
        headers, source_ip = dict(request.headers), request.remote or "127.0.0.1"

        def event(route: str, **what: Any) -> dict[str, Any]:
            return websocket_event(
                route,
                connection_id=connection,
                connected_at=connected_at,
                headers=headers,
                source_ip=source_ip,
                **what,
            )

        counted.COUNTER.count("apigateway:$connect")
        counted.COUNTER.count("lambda:SocketFunction")
        try:
            answer = await self._call(self.sockets, event("$connect", query=request.query_string))
        except Exception as error:
            log.error("$connect failed: %s", error)
            return _json(500, {"message": "Internal Server Error"})
        if not 200 <= int(answer.get("statusCode", 200)) < 300:
            return _answer(answer)
        await websocket.prepare(request)
        self._connected[connection] = _Socket(
            websocket, connected_at, source_ip, headers.get("User-Agent", "")
        )
        status, reason = 1000, "Client closed the connection"
        cut = asyncio.ensure_future(self._cut(connection, websocket))
        try:
            async for message in websocket:
                self._connected[connection].last_active = time.time()
                if message.type is WSMsgType.BINARY:  # API Gateway takes text frames only
                    status, reason = 1003, "Binary frames are not supported"
                    await websocket.close(code=1003, message=b"text frames only")
                    break
                if message.type is not WSMsgType.TEXT:
                    continue
                counted.COUNTER.count("apigateway:$default")
                counted.COUNTER.count("lambda:SocketFunction")
                try:
                    answered = await self._call(self.sockets, event("$default", body=message.data))
                except Exception as error:  # API Gateway drops the message, not the socket
                    log.error("$default failed: %s", error)
                    continue
                if answered.get("body"):
                    await websocket.send_str(answered["body"])
        except ConnectionError as error:  # the client went away mid-send
            log.info("socket %s lost: %s", connection, error)
        finally:
            cut.cancel()
            known = self._connected.pop(connection, None)
            if known is not None and known.cut:
                status, reason = 1001, known.cut
            seconds = time.time() - connected_at
            counted.COUNTER.count("apigateway:$disconnect", ConnectionSeconds=seconds)
            counted.COUNTER.count("lambda:SocketFunction")
            try:
                await self._call(self.sockets, event("$disconnect", disconnect=(status, reason)))
            except Exception as error:  # the items expire; pushes to it find it gone
                log.warning("$disconnect of %s failed: %s", connection, error)
        return websocket

    async def _cut(self, connection: str, websocket: web.WebSocketResponse) -> None:
        """Close the socket as API Gateway would (1001, "Going away"): once idle for
        `socket_idle`, or `socket_lifetime` after it connected."""
        while not websocket.closed:
            known = self._connected.get(connection)
            if known is None:
                return
            now = time.time()
            idle_ends = known.last_active + self.socket_idle
            lifetime_ends = known.connected_at + self.socket_lifetime
            if now >= min(idle_ends, lifetime_ends):
                known.cut = "Connection idle" if now >= idle_ends else "Connection too old"
                await websocket.close(code=1001, message=b"Going away")
                return
            await asyncio.sleep(min(idle_ends, lifetime_ends) - now + 0.01)

    async def _manage(self, request: web.Request, connection: str) -> web.StreamResponse:
        """API Gateway's management API for one connection."""
        if not _arrived_at_loopback(request):
            return _error(403, "ForbiddenException", "The management API answers on loopback only")
        if not request.headers.get("Authorization", "").startswith("AWS4-HMAC-SHA256 "):
            return _error(403, "ForbiddenException", "Missing Authentication Token")
        counted.COUNTER.count(f"apigateway:{MANAGEMENT_CALLS.get(request.method, request.method)}")
        found = self._connected.get(connection)
        if found is None or found.response.closed:
            return _error(410, "GoneException", None)
        if request.method == "POST":
            data = await request.read()
            if len(data) > MAX_FRAME:
                return _error(413, "PayloadTooLargeException", "Message too long")
            try:
                await found.response.send_str(data.decode())
            except UnicodeDecodeError:
                await found.response.send_bytes(data)
            except ConnectionError:
                return _error(410, "GoneException", None)
            return web.Response(status=200)
        if request.method == "DELETE":
            await found.response.close(code=1000, message=b"closed by the service")
            return web.Response(status=204)
        if request.method == "GET":
            return _json(
                200,
                {
                    "connectedAt": _iso(found.connected_at),
                    "identity": {"sourceIp": found.source_ip, "userAgent": found.user_agent},
                    "lastActiveAt": _iso(found.last_active),
                },
            )
        return _error(405, "MethodNotAllowedException", f"{request.method} is not served")


def _reaches_loopback(bound: str) -> bool:
    """Whether a server bound to the address `bound` takes connections made to loopback."""
    address = ipaddress.ip_address(bound)
    return address.is_unspecified or address.is_loopback


def _arrived_at_loopback(request: web.Request) -> bool:
    """Whether the request reached this server at a loopback address, which only this
    machine can send to (the kernel drops packets for 127/8 that come from outside)."""
    local = request.transport.get_extra_info("sockname") if request.transport else None
    if not local:
        return False
    address = ipaddress.ip_address(local[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def _event(request: web.Request, raw: bytes) -> dict[str, Any]:
    """The payload-v2 event for `request`, its body read whole."""
    headers: dict[str, str] = {}
    for name, value in request.headers.items():
        key = name.lower()
        headers[key] = f"{headers[key]},{value}" if key in headers else value
    body: str | bytes | None = None
    if raw:
        try:
            body = raw.decode()
        except UnicodeDecodeError:  # sent base64-encoded, as API Gateway sends binary
            body = raw
    target = urlsplit(request.raw_path)
    return http_api_event(
        request.method,
        target.path or "/",
        body=body,
        headers=headers,
        query=target.query,
        source_ip=request.remote or "127.0.0.1",
    )


def _answer(result: dict[str, Any]) -> web.Response:
    """A function's answer as the HTTP response."""
    text = result.get("body") or ""
    payload = base64.b64decode(text) if result.get("isBase64Encoded") else text.encode()
    code = int(result.get("statusCode", 200))
    try:
        reason = HTTPStatus(code).phrase
    except ValueError:
        reason = "Unknown"
    headers: CIMultiDict[str] = CIMultiDict()
    for name, value in (result.get("headers") or {}).items():
        if name.lower() not in HOP_BY_HOP:
            headers.add(name.lower(), str(value))
    for cookie in result.get("cookies") or []:
        headers.add("set-cookie", cookie)
    return web.Response(status=code, reason=reason, body=payload, headers=headers)


def _closing(response: web.Response) -> web.Response:
    response.force_close()
    return response


def _json(status: int, body: object) -> web.Response:
    return web.Response(status=status, text=json.dumps(body), content_type=JSON)


def _error(status: int, kind: str, message: str | None) -> web.Response:
    """An error as API Gateway's management API answers it (boto3 reads the type)."""
    response = _json(status, {"message": message})
    response.headers["x-amzn-ErrorType"] = kind
    return response


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat().replace("+00:00", "Z")


def _seconds(given: float | None, environment: str, default: float) -> float:
    """`given`, or the environment's figure, or `default`."""
    if given is not None:
        return given
    return float(os.environ.get(environment) or default)
