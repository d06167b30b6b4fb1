"""Connecting to and leaving the WebSocket API: who may listen to what.

A player connects with a one-use ticket (`?ticket=`, from `POST .../me/socket-ticket`:
`infra.services.socket_tickets`), or with their token (an `Authorization` header, or
`?token=` for clients that have nothing better: the token then lands in access logs),
and hears their own tables (their own dice where the rules show them); a spectator
connects to a table, or to the tournament alone, and hears what any spectator may see.
Everyone connected to a tournament hears when it finishes.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.bracket import InvalidBracket, TableRef
from infra.errors import NotFound
from infra.services.socket_tickets import SocketTicketService, player_of
from infra.services.tournaments import Clock
from infra.store.connections import CONNECTION_SECONDS, Connection, ConnectionStore
from infra.store.players import PlayerStore
from infra.store.tournaments import TournamentStore
from infra.tokens import MAX_ID_LENGTH, plausible_id, shown


class BadConnect(ValueError):
    """The connect request names no tournament, or both a token and a table, or a table
    that is no bracket position."""


@dataclass(frozen=True, slots=True)
class ConnectRequest:
    """What a client asks for in the `$connect` query string (or header, for the token)."""

    tournament: str
    token: str = ""
    table: str = ""
    ticket: str = ""


class SocketService:
    """Checks and records connections (the socket function's whole work)."""

    def __init__(
        self,
        connections: ConnectionStore,
        tournaments: TournamentStore,
        players: PlayerStore,
        clock: Clock,
        tickets: SocketTicketService | None = None,
    ) -> None:
        self._connections = connections
        self._tournaments = tournaments
        self._players = players
        self._clock = clock
        self._tickets = tickets

    def connect(self, connection_id: str, request: ConnectRequest) -> Connection:
        """Record the connection if `request` may be served: `Unauthorized` for a token
        that is not a player's of this tournament, `NotFound` for an unknown tournament,
        `BadConnect` for a request that makes no sense, `TooManyWatchers` for a full
        table."""
        if not request.tournament:
            raise BadConnect("say which tournament: ?tournament=<id>")
        if (request.token or request.ticket) and request.table:
            raise BadConnect(
                "a player hears their own tables: give a ticket (or token) or a table, not both"
            )
        if request.table and _table_ref(request.table) != request.table:
            raise BadConnect(f"no table {shown(request.table)}: tables are named like R1-3")
        player = ""
        if request.ticket and self._tickets is not None:
            player = self._tickets.take(request.tournament, request.ticket)
        elif request.ticket:
            raise BadConnect("this socket takes no tickets: connect with a token")
        elif request.token:
            player = player_of(self._players, self._tournaments, request.tournament, request.token)
        elif not plausible_id(request.tournament) or (
            self._tournaments.get_tournament(request.tournament) is None
        ):
            raise NotFound(f"no tournament {shown(request.tournament)}", rule="tournament")
        now = int(self._clock())
        connection = Connection(
            id=connection_id,
            tournament=request.tournament,
            player=player,
            table=request.table,
            connected_at=now,
            expires_at=now + CONNECTION_SECONDS,
        )
        self._connections.add(connection)
        return connection

    def disconnect(self, connection_id: str) -> None:
        """Forget the connection (again, if it was forgotten already)."""
        self._connections.remove(connection_id)


def _table_ref(value: str) -> str:
    """`value` as the bracket writes it ('' if it names no table)."""
    try:
        return str(TableRef.parse(value)) if len(value) <= MAX_ID_LENGTH else ""
    except InvalidBracket:
        return ""
