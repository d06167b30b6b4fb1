"""The local front on its own, with stand-in functions: the payload-v2 event it builds,
the answer it sends back, how it copes with what real clients send; the WebSocket API's
events, and the management API a boto3 client posts to."""

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

import boto3
import pytest
from aws_lambda_powertools.utilities.parser import parse
from aws_lambda_powertools.utilities.parser.models import (
    APIGatewayWebSocketConnectEventModel,
    APIGatewayWebSocketDisconnectEventModel,
    APIGatewayWebSocketMessageEventModel,
)
from served import lan_address
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

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


def _status(answer: bytes) -> int:
    """The status code of the first answer in `answer`."""
    return int(answer.split(b"\r\n", 1)[0].split()[1])


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
    assert _status(answer) == 400
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
    assert _status(answer) == 413
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


# --- the WebSocket API and its management API ---------------------------------------------


class SocketFunction:
    """Keeps every WebSocket event; refuses a connect without `?tournament=`, answers a
    message with its body reversed, fails on the message `fail`."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.disconnected = threading.Event()

    def __call__(self, event: dict[str, Any]) -> dict[str, Any]:
        self.events.append(event)
        route = event["requestContext"]["routeKey"]
        if route == "$connect" and "tournament" not in (event.get("queryStringParameters") or {}):
            return {"statusCode": 404, "body": '{"code": "not_found"}'}
        if route == "$disconnect":
            self.disconnected.set()
        if route == "$default" and event["body"] == "fail":
            raise RuntimeError("the function failed")
        if route == "$default":
            return {"statusCode": 200, "body": event["body"][::-1]}
        return {"statusCode": 200}


@pytest.fixture
def sockets() -> SocketFunction:
    return SocketFunction()


@pytest.fixture
def served(function: Function, sockets: SocketFunction) -> Iterator[HttpFront]:
    front = HttpFront(("127.0.0.1", 0), function, sockets=sockets, read_timeout=READ_TIMEOUT)
    thread = threading.Thread(target=front.serve_forever, daemon=True)
    thread.start()
    yield front
    front.shutdown()
    front.server_close()
    thread.join(timeout=10)
    assert not thread.is_alive()


def test_a_message_the_function_fails_on_is_dropped_and_the_socket_stays_open(
    served: HttpFront, sockets: SocketFunction, aws_env: None
) -> None:
    """As on API Gateway: a failed invocation loses that message's answer, not the
    connection."""
    with connect(served.socket_url + "?tournament=t-1", open_timeout=10) as socket:
        socket.send("fail")
        socket.send("ping")
        assert socket.recv(timeout=10) == "gnip"
    assert sockets.disconnected.wait(10)


def _management(front: HttpFront) -> Any:
    """boto3's client of API Gateway's management API, as the publisher makes it."""
    return boto3.client("apigatewaymanagementapi", endpoint_url=front.management_url)


def test_a_socket_gets_connect_message_and_disconnect_events_and_the_answers(
    served: HttpFront, sockets: SocketFunction, aws_env: None
) -> None:
    with connect(served.socket_url + "?tournament=t-1&table=R1-2", open_timeout=10) as socket:
        socket.send('{"action": "ping"}')
        assert socket.recv(timeout=10) == '}"gnip" :"noitca"{'
    assert sockets.disconnected.wait(10)
    connected, message, disconnected = sockets.events
    assert connected["requestContext"]["routeKey"] == "$connect"
    assert connected["queryStringParameters"] == {"tournament": "t-1", "table": "R1-2"}
    assert connected["headers"]["Upgrade"].lower() == "websocket"
    assert message["body"] == '{"action": "ping"}'
    assert disconnected["requestContext"]["disconnectStatusCode"] == 1000
    ids = {event["requestContext"]["connectionId"] for event in sockets.events}
    assert len(ids) == 1
    # the events are the ones Powertools' models of API Gateway's events accept
    parse(event=connected, model=APIGatewayWebSocketConnectEventModel)
    parse(event=message, model=APIGatewayWebSocketMessageEventModel)
    parse(event=disconnected, model=APIGatewayWebSocketDisconnectEventModel)


def test_a_refused_connect_is_answered_with_the_functions_status(
    served: HttpFront, sockets: SocketFunction
) -> None:
    with pytest.raises(InvalidStatus) as refused:
        connect(served.socket_url, open_timeout=10)
    assert refused.value.response.status_code == 404
    assert [e["requestContext"]["routeKey"] for e in sockets.events] == ["$connect"]
    plain = http.client.HTTPConnection(served.url.removeprefix("http://"), timeout=10)
    plain.request("GET", "/ws")
    assert plain.getresponse().status == 426  # no upgrade asked for


def test_the_management_api_posts_describes_and_closes_as_api_gateways_does(
    served: HttpFront, sockets: SocketFunction, aws_env: None
) -> None:
    management = _management(served)
    with connect(served.socket_url + "?tournament=t-1", open_timeout=10) as socket:
        connection = sockets.events[0]["requestContext"]["connectionId"]
        management.post_to_connection(ConnectionId=connection, Data=b'{"type": "your_turn"}')
        assert socket.recv(timeout=10) == '{"type": "your_turn"}'  # a text frame
        described = management.get_connection(ConnectionId=connection)
        assert described["Identity"]["SourceIp"] == "127.0.0.1"
        with pytest.raises(management.exceptions.PayloadTooLargeException):
            management.post_to_connection(ConnectionId=connection, Data=b"x" * (129 * 1024))
        management.delete_connection(ConnectionId=connection)
        with pytest.raises(ConnectionClosed):
            socket.recv(timeout=10)
    assert sockets.disconnected.wait(10)
    with pytest.raises(management.exceptions.GoneException):
        management.post_to_connection(ConnectionId=connection, Data=b"{}")
    unsigned = http.client.HTTPConnection(served.url.removeprefix("http://"), timeout=10)
    unsigned.request("POST", f"/ws/@connections/{connection}", body=b"{}")
    assert unsigned.getresponse().status == 403


def test_stopping_tells_every_socket_and_disconnects_it(
    function: Function, sockets: SocketFunction
) -> None:
    front = HttpFront(("127.0.0.1", 0), function, sockets=sockets)
    thread = threading.Thread(target=front.serve_forever, daemon=True)
    thread.start()
    with connect(front.socket_url + "?tournament=t-1", open_timeout=10) as socket:
        front.shutdown()
        front.server_close()
        thread.join(timeout=10)
        with pytest.raises(ConnectionClosed):
            socket.recv(timeout=10)
        assert socket.close_code == 1001  # going away
    assert sockets.disconnected.is_set()  # before the front stopped


@pytest.mark.parametrize("host", ["0.0.0.0", "lan"])
def test_the_management_api_answers_at_loopback_only_wherever_the_front_listens(
    function: Function, sockets: SocketFunction, aws_env: None, host: str
) -> None:
    lan = lan_address()
    front = HttpFront((lan if host == "lan" else host, 0), function, sockets=sockets)
    thread = threading.Thread(target=front.serve_forever, daemon=True)
    thread.start()
    try:
        port = int(front.management_url.rsplit(":", 1)[1].split("/")[0])
        with connect(f"ws://{lan}:{port}/ws?tournament=t-1", open_timeout=10):
            connection = sockets.events[0]["requestContext"]["connectionId"]
            signed = {"Authorization": "AWS4-HMAC-SHA256 Credential=made/up"}
            from_lan = http.client.HTTPConnection(lan, port, timeout=10)
            from_lan.request("POST", f"/ws/@connections/{connection}", b"{}", signed)
            refused = from_lan.getresponse()
            assert refused.status == 403, "a phone on the Wi-Fi may not post to a socket"
            assert b"loopback only" in refused.read()
            # the publisher's own client, at the management URL, still posts
            _management(front).post_to_connection(ConnectionId=connection, Data=b"{}")
            assert front.management_url.startswith("http://127.0.0.1:")
        # the HTTP API answers at the LAN address
        plain = http.client.HTTPConnection(lan, port, timeout=10)
        plain.request("GET", "/anything")
        assert plain.getresponse().status == 200
    finally:
        front.shutdown()
        front.server_close()
        thread.join(timeout=10)


@pytest.mark.parametrize("cut", ["idle", "lifetime"])
def test_a_socket_is_cut_as_api_gateway_cuts_it_idle_or_too_old(
    function: Function, sockets: SocketFunction, cut: str
) -> None:
    """AWS's 10 minutes idle and 2 hours in any case, shortened: the clients' keep-alive
    and renewal are tried against these."""
    idle, lifetime = (1.0, 60.0) if cut == "idle" else (60.0, 1.5)
    front = HttpFront(
        ("127.0.0.1", 0), function, sockets=sockets, socket_idle=idle, socket_lifetime=lifetime
    )
    thread = threading.Thread(target=front.serve_forever, daemon=True)
    thread.start()
    try:
        opened = time.monotonic()
        with connect(front.socket_url + "?tournament=t-1", open_timeout=10) as socket:
            if cut == "lifetime":  # pinging keeps it from idling, not from ageing
                for _ in range(4):
                    socket.send('{"action": "ping"}')
                    socket.recv(timeout=10)
                    time.sleep(0.3)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    socket.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
        assert 1.0 <= time.monotonic() - opened < 5.0
        assert sockets.disconnected.wait(10)
        disconnected = sockets.events[-1]["requestContext"]
        assert disconnected["disconnectStatusCode"] == 1001
    finally:
        front.shutdown()
        front.server_close()
        thread.join(timeout=10)


def test_the_cuts_default_to_aws_and_the_environment_shortens_them(
    function: Function, monkeypatch: pytest.MonkeyPatch
) -> None:
    front = HttpFront(("127.0.0.1", 0), function)
    assert (front.socket_idle, front.socket_lifetime) == (600.0, 7200.0)
    front.server_close()
    monkeypatch.setenv("KNOBELCUP_LOCAL_SOCKET_IDLE_SECONDS", "5")
    monkeypatch.setenv("KNOBELCUP_LOCAL_SOCKET_MAX_SECONDS", "9")
    front = HttpFront(("127.0.0.1", 0), function)
    assert (front.socket_idle, front.socket_lifetime) == (5.0, 9.0)
    front.server_close()
