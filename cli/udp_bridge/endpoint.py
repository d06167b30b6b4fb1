"""The bridge's UDP socket: one receiving thread hands every datagram on, and any
thread may send. A datagram that is not a protocol message is counted and dropped."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import Callable

from cli.udp_bridge import protocol as p
from cli.udp_bridge.prompts import GARBAGE, OVERSIZED, Address, Tally

log = logging.getLogger("knobelcup.udp_bridge")
Handler = Callable[[p.Datagram, Address], None]
RECEIVE_BUFFER = 65_536  # the largest UDP payload: a longer one is cut, then counted


class Endpoint:
    """A bound UDP socket and the thread that reads it."""

    def __init__(self, host: str, port: int, handle: Handler, tally: Tally) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self._socket.bind((host, port))
        self._handle = handle
        self._tally = tally
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._receive, name="udp-receive", daemon=True)

    @property
    def address(self) -> Address:
        """Where the bridge listens (the port chosen, when 0 was asked for)."""
        host, port = self._socket.getsockname()[:2]
        return (host, port)

    def start(self) -> None:
        """Begin reading datagrams."""
        self._thread.start()

    def send(self, address: Address, text: str) -> None:
        """Send one message; a failure is logged and counted, never raised (UDP promises
        no delivery anyway)."""
        log.debug("→ %s:%s %s", *address, text)
        try:
            self._socket.sendto(text.encode(), address)
        except OSError as error:
            self._tally.add("send_failed")
            log.debug("could not send to %s:%s: %s", *address, error)

    def close(self) -> None:
        """Stop reading and close the socket."""
        self._closed.set()
        with contextlib.suppress(OSError):
            # wakes the blocked recvfrom on Linux; elsewhere its timeout does
            self._socket.shutdown(socket.SHUT_RDWR)
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        self._socket.close()

    def _receive(self) -> None:
        self._socket.settimeout(0.5)
        while not self._closed.is_set():
            try:
                data, sender = self._socket.recvfrom(RECEIVE_BUFFER)
            except TimeoutError:
                continue
            except OSError:
                if self._closed.is_set():
                    return
                continue  # e.g. an ICMP "port unreachable" from an earlier send
            address: Address = (sender[0], sender[1])
            if len(data) > p.MAX_DATAGRAM:
                self._tally.add(OVERSIZED)
                log.debug("← %s:%s %d bytes: too long, ignored", *address, len(data))
                continue
            datagram = p.parse(data)
            if datagram is None:
                self._tally.add(GARBAGE)
                log.debug("← %s:%s %r: not a protocol message, ignored", *address, data[:80])
                continue
            log.debug("← %s:%s %s", *address, data.decode())
            try:
                self._handle(datagram, address)
            except Exception:  # one bad datagram must never stop the bridge
                self._tally.add("handler_failed")
                log.exception("handling %r from %s:%s failed", data[:80], *address)
