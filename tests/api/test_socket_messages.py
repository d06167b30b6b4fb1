"""What the socket function answers to a message a client sends: `{"action": "ping"}`
gets a pong; anything else a typed error answer, whatever its size or depth, never an
exception (on AWS an exception is a `SocketFunctionErrors` alarm, and the client hears
nothing)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from functions.socket import app as socket_app
from local.lambda_events import LocalContext, websocket_event


def _send(body: str) -> dict[str, Any]:
    event = websocket_event("$default", connection_id="AbCd=", connected_at=0, body=body)
    answer = socket_app.lambda_handler(event, LocalContext(function_name="socket"))
    assert answer["statusCode"] == 200
    return dict(json.loads(answer["body"]))


def test_a_ping_gets_a_pong(aws_env: None) -> None:
    assert _send('{"action": "ping"}') == {"type": "pong"}


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ('{"action": "shout"}', "unknown_action"),
        ("{}", "unknown_action"),
        ("not json", "bad_message"),
        ('["ping"]', "bad_message"),
        ('"ping"', "bad_message"),
        ("[" * 1000 + "]" * 1000, "bad_message"),  # deeper than the parser recurses
        ('{"a":' * 400 + "1" + "}" * 400, "bad_message"),  # deep, and too long
        (json.dumps({"action": "ping", "pad": "x" * socket_app.MAX_MESSAGE}), "bad_message"),
    ],
    ids=["unknown", "no-action", "not-json", "array", "string", "deep", "deep-object", "large"],
)
def test_any_other_message_gets_a_typed_error(aws_env: None, body: str, code: str) -> None:
    answer = _send(body)
    assert answer["type"] == "error"
    assert answer["code"] == code
    assert answer["message"]
