"""`POST /tournaments/{id}/me/socket-ticket`: the player's token, in a header, traded for
a ticket that the socket function's `$connect` takes once, so that the play page never
puts the token in a WebSocket URL."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
from apiclient import Stack

from functions.socket import app as socket_app
from infra.bootstrap import build_sockets
from infra.settings import Settings
from local.lambda_events import LocalContext, websocket_event

NOW = 1_800_000_000.0  # the stack fixture's clock
GAME = {"game": "maexchen", "name": "Ticket cup", "table_size": 3, "advance": 1}


@pytest.fixture
def socket(stack: Stack) -> Iterator[None]:
    """The socket function on the stack's table, on the API's clock."""
    settings = Settings.from_env()  # the stack fixture's table
    socket_app.sockets.use(build_sockets(settings, client=stack.dynamodb, clock=lambda: NOW))
    yield
    socket_app.sockets.use(None)


def _connect(connection: str, **query: str) -> dict[str, Any]:
    event = websocket_event(
        "$connect", connection_id=connection, connected_at=0, query=urlencode(query)
    )
    answer: dict[str, Any] = socket_app.lambda_handler(event, LocalContext("socket"))
    return answer


def test_a_players_ticket_opens_one_connection(stack: Stack, socket: None) -> None:
    made = stack.api.call("POST", "/tournaments", GAME).body
    tournament, organizer = made["tournament_id"], made["organizer_token"]
    opened = stack.api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    assert opened.status == 200
    joined = stack.api.call("POST", f"/tournaments/{tournament}/players", {"name": "Anna"}).body
    path = f"/tournaments/{tournament}/me/socket-ticket"

    answer = stack.api.call("POST", path, token=joined["player_token"])
    assert answer.status == 201, answer.body
    assert set(answer.body) == {"tournament_id", "player", "ticket", "expires_at"}
    assert answer.body["player"] == joined["player_id"]
    assert answer.body["expires_at"] == int(NOW) + 60
    ticket = answer.body["ticket"]
    assert joined["player_token"] not in ticket

    assert _connect("c-1", tournament=tournament, ticket=ticket)["statusCode"] == 200
    again = _connect("c-2", tournament=tournament, ticket=ticket)
    assert again["statusCode"] == 401 and '"unauthorized"' in again["body"]

    for token in (None, organizer, joined["player_token"] + "x"):
        refused = stack.api.call("POST", path, token=token)
        assert refused.status == 401, (token, refused.body)
    assert stack.api.call(
        "POST", "/tournaments/t-nothere/me/socket-ticket", token=joined["player_token"]
    ).status in (401, 404)
