"""Player routes: register, find out where to play, get a ticket for the WebSocket."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.metrics import MetricUnit

from functions.api.auth import BEARER_SECURITY, bearer_token
from functions.api.caller import admit_registration
from functions.api.contract import AUTH, BODY, answers
from functions.api.models import (
    PlayerRegistered,
    Registration,
    ReplaceSeed,
    SeedReplaced,
    SocketTicketIssued,
    Whereabouts,
)
from functions.observability import metrics
from functions.wiring import services
from infra.errors import NotFound

router = Router()


@router.post(
    "/tournaments/<tournament_id>/players",
    tags=["player"],
    summary="Register",
    responses=answers(PlayerRegistered, *BODY, 401, 404, 409, status=201),
)
def register(tournament_id: str, body: Registration) -> tuple[dict[str, Any], int]:
    """Register while registration is open; the player token is shown only once.
    Registrations per tournament and per source address are limited (429 `rate_limited`
    with Retry-After)."""
    admit_registration(router.current_event, tournament_id)
    player, token = services().tournaments.register(
        tournament_id, body.name, body.seed, join_code=body.join_code
    )
    metrics.add_metric(name="PlayersRegistered", unit=MetricUnit.Count, value=1)
    registered = PlayerRegistered(
        tournament_id=tournament_id, player_id=player.id, player_token=token
    )
    return registered.model_dump(), 201


@router.get(
    "/tournaments/<tournament_id>/me",
    tags=["player"],
    summary="Where do I play now",
    security=BEARER_SECURITY,
    responses=answers(Whereabouts, *AUTH, 404),
)
def whereabouts(tournament_id: str) -> Whereabouts:
    """The token holder's current table (none before the start)."""
    token = bearer_token(router.current_event.headers)
    return Whereabouts(**services().tournaments.whereabouts(tournament_id, token))


@router.put(
    "/tournaments/<tournament_id>/me/seed",
    tags=["player"],
    summary="Replace my seed for the dice",
    security=BEARER_SECURITY,
    responses=answers(SeedReplaced, *BODY, *AUTH, 404, 409),
)
def replace_seed(tournament_id: str, body: ReplaceSeed) -> SeedReplaced:
    """The token holder's seed for the dice (docs/dice.md) from now on: every table they
    are seated at later, and their current table while nobody has acted there."""
    token = bearer_token(router.current_event.headers)
    return SeedReplaced(**services().tournaments.replace_seed(tournament_id, token, body.seed))


@router.post(
    "/tournaments/<tournament_id>/me/socket-ticket",
    tags=["player"],
    summary="A ticket for the WebSocket",
    security=BEARER_SECURITY,
    responses=answers(SocketTicketIssued, *AUTH, 404, status=201),
)
def socket_ticket(tournament_id: str) -> tuple[dict[str, Any], int]:
    """A one-use ticket that opens one WebSocket connection as the token holder within a
    minute (`wss://…?tournament=<id>&ticket=<ticket>`): a browser cannot set headers on
    a WebSocket, and a token in its URL would land in access logs. Ask again for each
    connect; a ticket used, expired or of another tournament is refused with 401."""
    tickets = services().socket_tickets
    if tickets is None:
        raise NotFound("this deployment issues no socket tickets", rule="socket ticket")
    token = bearer_token(router.current_event.headers)
    ticket, granted = tickets.issue(tournament_id, token)
    issued = SocketTicketIssued(
        tournament_id=tournament_id,
        player=granted.player,
        ticket=ticket,
        expires_at=granted.expires_at,
    )
    return issued.model_dump(), 201
