"""One-use socket tickets on moto: a player's token traded for a ticket over HTTP opens
one WebSocket connection, once, within a minute, for its own tournament only; and what
that costs in DynamoDB calls."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws
from test_publisher import SEATS, T
from test_push import NOW, _add_player, _tournament

from infra.errors import NotFound, Unauthorized
from infra.services.socket_tickets import SocketTicketService
from infra.services.sockets import ConnectRequest, SocketService
from infra.store.socket_tickets import TICKET_SECONDS
from infra.store.stores import Stores
from local.provision import create_tables


class Counting:
    """A DynamoDB client that counts the calls made through it."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.client, name)
        if not callable(method) or name.startswith("_") or name == "exceptions":
            return method

        def counted(**kwargs: Any) -> Any:
            self.calls[name] += 1
            return method(**kwargs)

        return counted


class Clock:
    def __init__(self) -> None:
        self.now = float(NOW)

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def wired(aws_env: None) -> Iterator[tuple[SocketTicketService, SocketService, Counting, Clock]]:
    with mock_aws():
        raw = boto3.client("dynamodb")
        name = create_tables(raw, names={"KnobelcupTable": "ticket-test"})["KnobelcupTable"]
        setup = Stores.over(raw, name)
        setup.tournaments.create_tournament(_tournament())
        for player in SEATS:
            _add_player(setup.connections, player)
        client, clock = Counting(raw), Clock()
        stores = Stores.over(client, name)
        tickets = SocketTicketService(
            stores.players, stores.tournaments, stores.socket_tickets, clock
        )
        sockets = SocketService(
            stores.connections, stores.tournaments, stores.players, clock, tickets
        )
        yield tickets, sockets, client, clock


def test_a_ticket_opens_one_connection_once(
    wired: tuple[SocketTicketService, SocketService, Counting, Clock],
) -> None:
    tickets, sockets, client, _ = wired
    ticket, granted = tickets.issue(T, "p-anna.secret")
    assert (granted.player, granted.expires_at) == ("p-anna", NOW + TICKET_SECONDS)
    assert dict(client.calls) == {"get_item": 1, "put_item": 1}  # the player; the ticket
    client.calls.clear()
    anna = sockets.connect("c-anna", ConnectRequest(T, ticket=ticket))
    assert anna.player == "p-anna"
    # the ticket's DeleteItem in place of the player's GetItem a token costs; then the
    # connection's own writes, as for a token
    ticketed = dict(client.calls)
    assert ticketed.pop("delete_item") == 1 and "get_item" not in ticketed
    client.calls.clear()
    sockets.connect("c-anna-2", ConnectRequest(T, token="p-anna.secret"))
    tokened = dict(client.calls)
    assert tokened.pop("get_item") == 1 and tokened == ticketed
    with pytest.raises(Unauthorized):  # used once already
        sockets.connect("c-again", ConnectRequest(T, ticket=ticket))
    with pytest.raises(Unauthorized):
        sockets.connect("c-made-up", ConnectRequest(T, ticket="made-up"))


def test_an_expired_ticket_or_another_tournaments_is_refused(
    wired: tuple[SocketTicketService, SocketService, Counting, Clock],
) -> None:
    tickets, sockets, _, clock = wired
    late, _ = tickets.issue(T, "p-anna.secret")
    clock.now += TICKET_SECONDS  # TTL deletes late: the condition refuses it
    with pytest.raises(Unauthorized):
        sockets.connect("c-late", ConnectRequest(T, ticket=late))
    elsewhere, _ = tickets.issue(T, "p-anna.secret")
    with pytest.raises(Unauthorized):
        sockets.connect("c-other", ConnectRequest("t-other", ticket=elsewhere))
    with pytest.raises(Unauthorized):  # taken by the refused connect: no second try
        sockets.connect("c-other", ConnectRequest(T, ticket=elsewhere))


def test_only_a_players_token_gets_a_ticket(
    wired: tuple[SocketTicketService, SocketService, Counting, Clock],
) -> None:
    tickets, _, _, _ = wired
    for token in ("p-anna.wrong", "organizer.secret", "nonsense"):
        with pytest.raises(Unauthorized):
            tickets.issue(T, token)
    with pytest.raises(NotFound):
        tickets.issue("t-nothere", "p-anna.secret")
