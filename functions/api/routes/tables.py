"""Table routes: the player's view and actions, the spectator view, the event feed, the
audit log."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Header, Query
from aws_lambda_powertools.metrics import MetricUnit

from functions.api.auth import BEARER_SECURITY, OPTIONAL_BEARER, bearer_token, optional_bearer_token
from functions.api.contract import AUTH, BODY, answers
from functions.api.models import AuditLog, SubmitAction, TableEvents, TableView
from functions.observability import logger, metrics
from functions.wiring import services

router = Router()
TABLE = "/tournaments/<tournament_id>/tables/<table>"


@router.get(
    TABLE, tags=["public"], summary="Spectator view", responses=answers(TableView, 404, 409)
)
def spectator_view(tournament_id: str, table: str) -> TableView:
    """The table as anyone may see it: scores, turn, announcements, never a hidden throw."""
    return TableView.model_validate(services().turns.spectator_view(tournament_id, table))


@router.get(
    TABLE + "/me",
    tags=["player"],
    summary="My view",
    security=BEARER_SECURITY,
    responses=answers(TableView, *AUTH, 404, 409),
)
def player_view(tournament_id: str, table: str) -> TableView:
    """The table as the token holder may see it, their own throw included when allowed."""
    token = bearer_token(router.current_event.headers)
    return TableView.model_validate(services().turns.player_view(tournament_id, table, token))


@router.post(
    TABLE + "/actions",
    tags=["player"],
    summary="Act",
    security=BEARER_SECURITY,
    responses=answers(TableView, *BODY, *AUTH, 404, 409),
)
def submit_action(
    tournament_id: str,
    table: str,
    body: SubmitAction,
    idempotency_key: Annotated[str | None, Header(alias="idempotency-key", max_length=255)] = None,
) -> TableView:
    """Take an action on the table's `version`; a retry (same Idempotency-Key, or the same
    version and action) answers as the first attempt did and is never applied twice."""
    token = bearer_token(router.current_event.headers)
    logger.append_keys(tournament=tournament_id, table=table, version=body.version)
    action = body.action.model_dump(exclude_none=True)
    answer = services().turns.submit(
        tournament_id,
        table,
        token,
        version=body.version,
        action_data=action,
        idempotency_key=idempotency_key,
    )
    metrics.add_metric(name="ActionsAccepted", unit=MetricUnit.Count, value=1)
    if answer["over"]:
        metrics.add_metric(name="TablesFinished", unit=MetricUnit.Count, value=1)
    return TableView.model_validate(answer)


@router.get(
    TABLE + "/events",
    tags=["public", "player"],
    summary="Event feed",
    security=OPTIONAL_BEARER,
    responses=answers(TableEvents, *AUTH, 404, 409, 422),
)
def table_events(
    tournament_id: str,
    table: str,
    after: Annotated[
        int, Query(ge=-1, description="the last version already seen; -1: from the seating on")
    ] = -1,
) -> TableEvents:
    """Every step after version `after`, with its events as the caller may see them: with
    a player's token, that seated player's view (their own dice under the cup); without
    one, a spectator's. A doubt shows what was under the cup. Poll with `after` set to the
    answer's `version`; an answer with no `records` has nothing new."""
    token = optional_bearer_token(router.current_event.headers)
    return TableEvents.model_validate(
        services().turns.feed(tournament_id, table, after=after, token=token)
    )


@router.get(
    TABLE + "/log", tags=["public"], summary="Audit log", responses=answers(AuditLog, 404, 409)
)
def audit_log(tournament_id: str, table: str) -> AuditLog:
    """Every step; hidden dice are null until the table is over, then all are revealed."""
    return AuditLog.model_validate(services().turns.audit_log(tournament_id, table))
