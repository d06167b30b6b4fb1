"""Organizer routes (create, registration, start) and the public tournament read."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from functions.api.auth import BEARER_SECURITY, OPTIONAL_BEARER, bearer_token
from functions.api.caller import admit_creation
from functions.api.contract import AUTH, BODY, answers
from functions.api.models import (
    CancelProgress,
    CreateTournament,
    RoundSummary,
    RoundTables,
    Standing,
    StandingsPage,
    StartProgress,
    StartTournament,
    TableSummary,
    TournamentCreated,
    TournamentView,
)
from functions.api.routes.pages import site_url
from functions.wiring import services
from infra.store.tournament_items import Status, TournamentRecord

router = Router()


@router.post(
    "/tournaments",
    tags=["organizer"],
    summary="Create a tournament",
    security=OPTIONAL_BEARER,
    responses=answers(TournamentCreated, *BODY, 401, status=201),
)
def create_tournament(body: CreateTournament) -> tuple[dict[str, Any], int]:
    """Create a tournament in `draft`; the organizer token in the answer is shown only once.
    Where the deployment has an organizer key, send it as `Authorization: Bearer <key>`
    (401 `unauthorized` without it); where it has none, creations per source address
    are limited (429 `rate_limited`)."""
    admit_creation(router.current_event)
    tournament, token = services().organizer.create(
        name=body.name,
        game=body.game,
        options=body.options,
        table_size=body.table_size,
        advance=body.advance,
        player_limit=body.player_limit,
        turn_timeout_seconds=body.turn_timeout_seconds,
        join_code=body.join_code,
        language=body.language,
    )
    created = TournamentCreated(
        tournament_id=tournament.id,
        organizer_token=token,
        status=tournament.status,
        play_url=site_url(f"tournaments/{quote(tournament.id, safe='')}/play") or None,
    )
    return created.model_dump(), 201


@router.get(
    "/tournaments/<tournament_id>",
    tags=["public"],
    summary="Read a tournament",
    responses=answers(TournamentView, 404),
)
def read_tournament(tournament_id: str) -> TournamentView:
    """Status, options, the bracket's rounds once started, and the standings once known."""
    return tournament_view(services().tournaments.get(tournament_id))


@router.post(
    "/tournaments/<tournament_id>/registration/open",
    tags=["organizer"],
    summary="Open registration",
    security=BEARER_SECURITY,
    responses=answers(TournamentView, *AUTH, 404, 409),
)
def open_registration(tournament_id: str) -> TournamentView:
    """Let players register (organizer token)."""
    token = bearer_token(router.current_event.headers)
    opened = services().organizer.set_registration(tournament_id, token, open=True)
    return tournament_view(opened)


@router.post(
    "/tournaments/<tournament_id>/registration/close",
    tags=["organizer"],
    summary="Close registration",
    security=BEARER_SECURITY,
    responses=answers(TournamentView, *AUTH, 404, 409),
)
def close_registration(tournament_id: str) -> TournamentView:
    """Stop registrations (organizer token); opening again is allowed until the start."""
    token = bearer_token(router.current_event.headers)
    closed = services().organizer.set_registration(tournament_id, token, open=False)
    return tournament_view(closed)


@router.post(
    "/tournaments/<tournament_id>/start",
    tags=["organizer"],
    summary="Seed and start",
    security=BEARER_SECURITY,
    responses=answers(TournamentView, *BODY, *AUTH, 404, 409, status=202),
)
def start_tournament(
    tournament_id: str, body: StartTournament | None = None
) -> tuple[dict[str, Any], int]:
    """Close registration and order the players (a fresh secret seed unless the body gives
    a seed or the organizer's order) (organizer token). Answers 202 with the status
    `starting`: round 1 is seated in the background, page by page (`start_progress` in
    the tournament read), then the status becomes `running`. Asked again while starting,
    with the same seeding, it answers the same."""
    token = bearer_token(router.current_event.headers)
    how = body or StartTournament()
    started = services().organizer.start(tournament_id, token, seed=how.seed, order=how.order)
    return tournament_view(started).model_dump(), 202


@router.get(
    "/tournaments/<tournament_id>/rounds/<round_number>",
    tags=["public"],
    summary="List a round's tables",
    responses=answers(RoundTables, 404, 422),
)
def round_tables(
    tournament_id: str,
    round_number: int,
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=100)] = 100,
) -> RoundTables:
    """A page of the round's seated tables with their players and results."""
    tables, following = services().tournaments.round_tables(
        tournament_id, round_number, offset, limit
    )
    return RoundTables(
        tournament_id=tournament_id,
        round=round_number,
        tables=[
            TableSummary(
                table=t.ref,
                players=list(t.seating.seats),
                names=list(t.seat_names()),
                version=t.version,
                over=t.over,
                ranking=list(t.ranking) if t.over else None,
            )
            for t in tables
        ],
        next_offset=following,
    )


@router.get(
    "/tournaments/<tournament_id>/standings",
    tags=["public"],
    summary="Read the final standings",
    responses=answers(StandingsPage, 404, 409, 422),
)
def read_standings(
    tournament_id: str,
    offset: Annotated[int, Query(ge=0)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 1000,
) -> StandingsPage:
    """A page of every player's final place, best first (once the tournament finished)."""
    rows, following = services().tournaments.standings(tournament_id, offset, limit)
    return StandingsPage(
        tournament_id=tournament_id,
        standings=[_standing(row._asdict()) for row in rows],
        next_offset=following,
    )


def tournament_view(tournament: TournamentRecord) -> TournamentView:
    """The tournament as anyone may see it, with the progress of a job under way."""
    plan = services().tournaments.plan(tournament)
    rounds = (
        []
        if plan is None
        else [
            RoundSummary(round=r, tables=plan.tables_in(r), final=r == plan.rounds)
            for r in range(1, plan.rounds + 1)
        ]
    )
    top = [_standing(row) for row in tournament.top_standings]
    return TournamentView(
        tournament_id=tournament.id,
        name=tournament.name,
        game=tournament.game,
        options=tournament.options,
        table_size=tournament.table_size,
        advance=tournament.advance,
        player_limit=tournament.player_limit,
        player_count=tournament.player_count,
        status=tournament.status,
        seeding=tournament.seeding if tournament.seed else None,
        seed=tournament.seed or None,
        rounds=rounds,
        champion=tournament.champion or None,
        champion_name=top[0].name if tournament.champion and top else None,
        standings=top,
        start_progress=_start_progress(tournament),
        cancel_progress=_cancel_progress(tournament),
        join_code_required=bool(tournament.join_code_hash),
        language=tournament.language or None,
    )


def _standing(row: dict[str, Any]) -> Standing:
    """A standings row; standings stored before names were keep the id as the name."""
    return Standing(**{**row, "name": row.get("name") or row["player"]})


def _start_progress(tournament: TournamentRecord) -> StartProgress | None:
    job = tournament.job
    if job is None or job.name != "start":
        return None
    return StartProgress(phase=job.phase, seated=job.done if job.phase == "seat" else 0)


def _cancel_progress(tournament: TournamentRecord) -> CancelProgress | None:
    if tournament.status != Status.CANCELLED:
        return None
    job = tournament.job
    if job is not None and job.name == "cancel":
        return CancelProgress(stopping=True, tables_stopped=job.done)
    return CancelProgress(stopping=False, tables_stopped=tournament.tables_stopped)
