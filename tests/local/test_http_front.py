"""The local HTTP front on its own, with a stand-in function: the payload-v2 event it
builds, the answer it sends back, and how it copes with what real clients send."""

from __future__ import annotations

import base64
import http.client
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from local.http_front import MAX_BODY, HttpFront

READ_TIMEOUT = 2  # seconds, so the stalled-request test waits no longer than that


class Function:
    """Echoes the event it gets, and keeps every event."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def __call__(self, event: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.events.append(event)
        if event["rawPath"] == "/slow":
            time.sleep(0.2)
        return {
            "statusCode": 201 if event["rawPath"] == "/created" else 200,
            "headers": {"content-type": "application/json", "connection": "keep-alive"},
            "cookies": ["seen=1"],
            "body": json.dumps({"path": event["rawPath"], "body": event.get("body")}),
        }


@pytest.fixture
def function() -> Function:
    return Function()


@pytest.fixture
def front(function: Function) -> Iterator[tuple[str, int]]:
    """A front on a free port with two request threads; (host, port)."""
    served = HttpFront(("127.0.0.1", 0), function, read_timeout=READ_TIMEOUT, threads=2)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    host, port = served.url.removeprefix("http://").split(":")
    yield host, int(port)
    served.shutdown()
    served.server_close()
    thread.join(timeout=10)
    assert not thread.is_alive(), "the front stopped"


def _exchange(address: tuple[str, int], data: bytes, timeout: float = 20) -> bytes:
    """Send `data` on a new connection; everything the server sends until it closes."""
    with socket.create_connection(address, timeout=timeout) as connection:
        connection.sendall(data)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
        return received


def test_a_request_becomes_a_payload_v2_event_and_the_answer_goes_back(
    front: tuple[str, int], function: Function
) -> None:
    client = http.client.HTTPConnection(*front, timeout=10)
    client.request(
        "POST",
        "/created?limit=5&x=%C3%A4",
        body=b'{"name": "J\xc3\xbcrgen"}',
        headers={"Content-Type": "application/json", "X-Twice": "a"},
    )
    answer = client.getresponse()
    assert answer.status == 201
    assert answer.getheader("set-cookie") == "seen=1"
    assert json.loads(answer.read()) == {"path": "/created", "body": '{"name": "Jürgen"}'}
    client.request("PUT", "/binary", body=b"\xff\xfe")  # the same connection: keep-alive
    assert json.loads(client.getresponse().read())["body"] == base64.b64encode(b"\xff\xfe").decode()

    event, binary = function.events
    assert event["requestContext"]["http"]["method"] == "POST"
    assert event["rawPath"] == "/created"
    assert event["rawQueryString"] == "limit=5&x=%C3%A4"
    assert event["queryStringParameters"] == {"limit": "5", "x": "ä"}
    assert event["headers"]["content-type"] == "application/json"
    assert event["headers"]["x-twice"] == "a"
    assert event["isBase64Encoded"] is False
    assert binary["isBase64Encoded"] is True


def test_a_content_length_that_is_no_number_gets_a_400(
    front: tuple[str, int], function: Function
) -> None:
    answer = _exchange(front, b"POST /t HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}")
    assert answer.startswith(b"HTTP/1.1 400 ")
    assert not function.events


def test_a_body_shorter_than_its_content_length_times_out_without_holding_a_thread(
    front: tuple[str, int], function: Function
) -> None:
    stalled = [socket.create_connection(front, timeout=20) for _ in range(4)]  # two threads
    for connection in stalled:
        connection.sendall(b"POST /t HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{}")
    client = http.client.HTTPConnection(*front, timeout=10)
    client.request("GET", "/meanwhile")
    assert client.getresponse().status == 200  # no thread waits for the missing bytes
    for connection in stalled:  # closed by the server once idle for READ_TIMEOUT
        assert connection.recv(65536) == b""
        connection.close()
    assert [event["rawPath"] for event in function.events] == ["/meanwhile"]


def test_an_oversize_body_gets_a_413_and_is_not_read_as_the_next_request(
    front: tuple[str, int], function: Function
) -> None:
    smuggled = b"GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
    answer = _exchange(
        front,
        b"POST /t HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (MAX_BODY + 1) + smuggled,
    )
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert answer.count(b"HTTP/1.1 ") == 1  # one answer, then the connection is closed
    assert not function.events


def test_32_clients_opening_connections_at_once_are_all_answered(
    front: tuple[str, int], function: Function
) -> None:
    clients = 32
    failures: list[BaseException] = []
    statuses: list[int] = []
    start = threading.Barrier(clients)

    def client(number: int) -> None:
        start.wait()
        try:
            connection = http.client.HTTPConnection(*front, timeout=30)
            connection.request("GET", f"/client/{number}")
            statuses.append(connection.getresponse().status)
            connection.close()
        except OSError as error:  # a reset, a refused connection
            failures.append(error)

    for _ in range(3):
        threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []
    assert statuses == [200] * clients * 3


def test_a_client_that_hangs_up_before_the_answer_leaves_no_error_in_the_log(
    front: tuple[str, int], caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.INFO)
    for _ in range(5):
        with socket.create_connection(front, timeout=10) as connection:
            # closing with a reset, as a browser dropping a page does
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00" * 2)
            connection.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
    client = http.client.HTTPConnection(*front, timeout=10)
    client.request("GET", "/slow")  # served after the five, on the same two threads
    assert client.getresponse().status == 200
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert "Traceback" not in capfd.readouterr().err
