"""The organizer's cockpit: live status and standings, disqualification, cancellation,
token rotation and the audit trail (organizer token). See docs/api.md, "Organizer"."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from functions.api.auth import BEARER_SECURITY, bearer_token
from functions.api.contract import AUTH, BODY, answers
from functions.api.models import (
    AuditEntryView,
    AuditTrail,
    Disqualification,
    DisqualifyPlayer,
    ListedTournament,
    LiveStanding,
    LiveStandingsPage,
    OrganizerStatus,
    OrganizerTokenRotated,
    TournamentList,
    TournamentView,
)
from functions.api.routes.tournaments import tournament_view
from functions.wiring import services
from infra.store.audit import AUDIT_CURSOR
from infra.store.organizer_store import LIST_CURSOR

router = Router()


def _token() -> str:
    return bearer_token(router.current_event.headers)


@router.get(
    "/tournaments/<tournament_id>/organizer/status",
    tags=["organizer"],
    summary="Follow the tournament live",
    security=BEARER_SECURITY,
    responses=answers(OrganizerStatus, *AUTH, 404),
)
def organizer_status(tournament_id: str) -> OrganizerStatus:
    """Per round, its tables playing, waiting to be seated, over and cancelled; and the
    tables stalled past their deadline (organizer token)."""
    return OrganizerStatus(**services().organizer.status(tournament_id, _token()))


@router.get(
    "/tournaments/<tournament_id>/organizer/standings",
    tags=["organizer"],
    summary="Read the places decided so far",
    security=BEARER_SECURITY,
    responses=answers(LiveStandingsPage, *AUTH, 404, 422),
)
def live_standings(
    tournament_id: str,
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 1000,
) -> LiveStandingsPage:
    """Everyone whose tournament has ended, best first, during play: a final place once
    their round's exits are all known, until then the range of places that is theirs
    (organizer token)."""
    page = services().organizer.live_standings(tournament_id, _token(), offset, limit)
    return LiveStandingsPage(
        tournament_id=tournament_id,
        status=page.status,
        placed=page.placed,
        standings=[LiveStanding(**row_fields(row)) for row in page.rows],
        next_offset=page.next_offset,
    )


@router.post(
    "/tournaments/<tournament_id>/players/<player_id>/disqualify",
    tags=["organizer"],
    summary="Disqualify or remove a player",
    security=BEARER_SECURITY,
    responses=answers(Disqualification, *BODY, *AUTH, 404, 409),
)
def disqualify(
    tournament_id: str, player_id: str, body: DisqualifyPlayer | None = None
) -> Disqualification:
    """Before the start the player is removed; while the tournament runs they forfeit at
    their table at once if it is their turn, else the moment it is (organizer token)."""
    reason = (body or DisqualifyPlayer()).reason
    done = services().organizer.disqualify(tournament_id, _token(), player_id, reason=reason)
    return Disqualification(tournament_id=tournament_id, **done)


@router.post(
    "/tournaments/<tournament_id>/cancel",
    tags=["organizer"],
    summary="Cancel the tournament",
    security=BEARER_SECURITY,
    responses=answers(TournamentView, *AUTH, 404, 409, status=202),
)
def cancel(tournament_id: str) -> tuple[dict[str, Any], int]:
    """Close registration and seat nothing more, at once; answers 202 with the status
    `cancelled`, and every table in play is stopped in the background, page by page
    (they refuse actions with 409 `wrong_status`; `cancel_progress` in the tournament
    read) (organizer token)."""
    cancelled = services().organizer.cancel(tournament_id, _token())
    return tournament_view(cancelled).model_dump(), 202


@router.post(
    "/tournaments/<tournament_id>/organizer/token",
    tags=["organizer"],
    summary="Rotate the organizer token",
    security=BEARER_SECURITY,
    responses=answers(OrganizerTokenRotated, *AUTH, 404, status=201),
)
def rotate_token(tournament_id: str) -> tuple[dict[str, Any], int]:
    """A new organizer token, shown only now; the old one stops working at once
    (organizer token: the current one)."""
    tournament, token = services().organizer.rotate_token(tournament_id, _token())
    rotated = OrganizerTokenRotated(
        tournament_id=tournament.id,
        organizer_token=token,
        token_generation=tournament.organizer_generation,
    )
    return rotated.model_dump(), 201


@router.get(
    "/tournaments/<tournament_id>/organizer/log",
    tags=["organizer"],
    summary="Read the organizer's audit trail",
    security=BEARER_SECURITY,
    responses=answers(AuditTrail, *AUTH, 404, 422),
)
def audit_trail(
    tournament_id: str,
    after: Annotated[str | None, Query(pattern=AUDIT_CURSOR.pattern)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 100,
) -> AuditTrail:
    """Every organizer action on the tournament, oldest first: who (which organizer
    token), what and when (organizer token)."""
    entries, following = services().organizer.audit_trail(tournament_id, _token(), after, limit)
    return AuditTrail(
        tournament_id=tournament_id,
        entries=[
            AuditEntryView(
                at=datetime.fromtimestamp(e.at_ms / 1000, UTC).isoformat(timespec="milliseconds"),
                actor=e.actor,
                token_generation=e.token_generation,
                action=e.action,
                detail=e.detail,
            )
            for e in entries
        ],
        next_after=following,
    )


@router.get(
    "/tournaments",
    tags=["public"],
    summary="List tournaments, newest first",
    responses=answers(TournamentList, 422),
)
def list_tournaments(
    before: Annotated[str | None, Query(pattern=LIST_CURSOR.pattern)] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> TournamentList:
    """A page of the tournaments created in the last year, newest first (for a landing
    page); `next_before` asks for the next page."""
    rows, following = services().organizer.recent_tournaments(before, limit)
    return TournamentList(
        tournaments=[ListedTournament(**{k: v for k, v in r.items() if k != "key"}) for r in rows],
        next_before=following,
    )


def row_fields(row: Any) -> dict[str, Any]:
    """A live standing's fields by name."""
    return {name: getattr(row, name) for name in LiveStanding.model_fields}
