"""Socket tickets: a player's token traded, over HTTP, for a one-use ticket that opens
one WebSocket connection (`infra.store.socket_tickets` says why and what it costs)."""

from __future__ import annotations

from infra.errors import NotFound, Unauthorized
from infra.services.tournaments import Clock
from infra.store.players import PlayerStore
from infra.store.socket_tickets import TICKET_SECONDS, SocketTicket, SocketTicketStore, new_ticket
from infra.store.tournaments import TournamentStore
from infra.tokens import plausible_id, shown, token_matches, token_owner


class SocketTicketService:
    """Issues tickets to players (the API) and takes them at `$connect` (the socket)."""

    def __init__(
        self,
        players: PlayerStore,
        tournaments: TournamentStore,
        tickets: SocketTicketStore,
        clock: Clock,
    ) -> None:
        self._players = players
        self._tournaments = tournaments
        self._tickets = tickets
        self._clock = clock

    def issue(self, tournament: str, token: str) -> tuple[str, SocketTicket]:
        """A fresh ticket for the player whose token `token` is, and what it grants:
        `Unauthorized` for a token that is no player's of `tournament`, `NotFound` for an
        unknown tournament. One `GetItem` (the player) and one `PutItem`."""
        player = player_of(self._players, self._tournaments, tournament, token)
        granted = SocketTicket(tournament, player, int(self._clock()) + TICKET_SECONDS)
        ticket = new_ticket()
        self._tickets.put(ticket, granted)
        return ticket, granted

    def take(self, tournament: str, ticket: str) -> str:
        """The player `ticket` speaks for in `tournament`, the ticket used up;
        `Unauthorized` if it is unknown, used, expired or another tournament's."""
        granted = self._tickets.take(ticket, int(self._clock()))
        if granted is None or granted.tournament != tournament:
            raise Unauthorized(
                "the socket ticket is unknown, used or expired: ask for a new one", rule="ticket"
            )
        return granted.player


def player_of(
    players: PlayerStore, tournaments: TournamentStore, tournament: str, token: str
) -> str:
    """The id of the player whose token `token` is (`Unauthorized`, or `NotFound` for
    an unknown tournament, otherwise)."""
    owner = token_owner(token)
    found = players.get_player(tournament, owner) if owner and plausible_id(tournament) else None
    if found is None or not token_matches(token, found.token_hash):
        if plausible_id(tournament) and tournaments.get_tournament(tournament) is None:
            raise NotFound(f"no tournament {shown(tournament)}", rule="tournament")
        raise Unauthorized("the player token does not match", rule="token")
    return found.id
