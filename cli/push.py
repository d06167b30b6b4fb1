"""Pushes from a Knobelcup service over its WebSocket API, for bots and consoles.

    with subscribe(socket_url(api), tournament, token=token) as messages:
        for message in messages:          # dicts, as docs/api.md lists them
            if "your_turn" in message: ...   # a table_events telling you to act

`subscribe` is synchronous (a thread per subscription is fine); `listen` is the same as an
async iterator. Both send `{"action": "ping"}` when the line has been quiet for
`PING_SECONDS` (API Gateway closes a connection idle for 10 minutes) and never yield the
pongs. The local service serves the socket at `<its URL>/ws` (`socket_url`); a deployed
stack names it in its `SocketUrl` output.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import Any
from urllib.parse import urlencode, urlsplit

from websockets.asyncio.client import connect as connect_async
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as connect_sync

Message = dict[str, Any]
PING_SECONDS = 300.0
_PING = json.dumps({"action": "ping"})


def socket_url(api_url: str) -> str:
    """The local service's WebSocket URL for its HTTP URL: http://host:port → ws://host:port/ws."""
    parts = urlsplit(api_url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}{parts.path.rstrip('/')}/ws"


def connect_url(socket: str, tournament: str, *, table: str | None = None) -> str:
    """Where to connect: as a table's spectator (`table`), or as a spectator of the
    tournament's own messages, or as a player (with `bearer`'s header)."""
    query = {"tournament": tournament}
    if table:
        query["table"] = table
    return f"{socket}?{urlencode(query)}"


def bearer(token: str | None) -> dict[str, str] | None:
    """The handshake's `Authorization` header for a player's `token`: in a header, not
    the URL, the token stays out of access logs."""
    return {"Authorization": f"Bearer {token}"} if token else None


class Subscription:
    """An open connection's messages; iterate, or take them one by one with `next`."""

    def __init__(self, connection: ClientConnection, ping_seconds: float = PING_SECONDS) -> None:
        self.connection = connection
        self._ping_seconds = ping_seconds

    def next(self, timeout: float | None = None) -> Message:
        """The next message (`TimeoutError` after `timeout` seconds of nothing)."""
        waited = 0.0
        while True:
            step = self._ping_seconds if timeout is None else min(self._ping_seconds, timeout)
            try:
                message: Message = json.loads(self.connection.recv(timeout=step))
            except TimeoutError:
                waited += step
                if timeout is not None and waited >= timeout:
                    raise
                self.connection.send(_PING)
                continue
            if message.get("type") != "pong":
                return message

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()

    def __iter__(self) -> Iterator[Message]:
        while True:
            yield self.next()

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.connection.close()


def subscribe(
    socket: str,
    tournament: str,
    *,
    token: str | None = None,
    table: str | None = None,
    open_timeout: float = 10.0,
) -> Subscription:
    """Connect (`websockets.exceptions.InvalidStatus` if refused: 401 for a bad token,
    404 for an unknown tournament) and return the subscription."""
    url = connect_url(socket, tournament, table=table)
    # entered at once: the subscription is the context manager that closes it
    connection = connect_sync(url, additional_headers=bearer(token), open_timeout=open_timeout)
    return Subscription(connection.__enter__())


async def listen(
    socket: str,
    tournament: str,
    *,
    token: str | None = None,
    table: str | None = None,
    ping_seconds: float = PING_SECONDS,
) -> AsyncIterator[Message]:
    """The messages as an async iterator, until the service closes the connection."""
    url = connect_url(socket, tournament, table=table)
    async with connect_async(url, additional_headers=bearer(token)) as conn:
        while True:
            try:
                message: Message = json.loads(
                    await asyncio.wait_for(conn.recv(), timeout=ping_seconds)
                )
            except TimeoutError:
                await conn.send(_PING)
                continue
            if message.get("type") != "pong":
                yield message
