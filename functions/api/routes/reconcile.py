"""The organizer's repair: reconcile a tournament from its items, a bounded page a request
(`infra.services.reconcile`). Each request checks at most one page of tables and stops short of
the function's time, so it stays well inside API Gateway's 29 seconds."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from functions.api.auth import BEARER_SECURITY, bearer_token
from functions.api.contract import AUTH, BODY, answers
from functions.api.models import ReconcileJob, ReconcilePage, ReconcileRequest
from functions.observability import logger
from functions.wiring import Wired, services
from infra.bootstrap import build_reconciler
from infra.services.reconcile import PAGE_TABLES, Reconciler

router = Router()
reconciler: Wired[Reconciler] = Wired(build_reconciler)


@router.post(
    "/tournaments/<tournament_id>/reconcile",
    tags=["organizer"],
    summary="Repair a stalled tournament, a page at a time",
    security=BEARER_SECURITY,
    responses=answers(ReconcilePage, *BODY, *AUTH, 404),
)
def reconcile(
    tournament_id: str,
    body: ReconcileRequest | None = None,
    cursor: Annotated[str | None, Query(max_length=20)] = None,
    limit: Annotated[int, Query(ge=1, le=PAGE_TABLES)] = PAGE_TABLES,
) -> ReconcilePage:
    """Check a page of the bracket's tables from `cursor` (body or query; none: the first)
    and replay what a lost event left undone: a finished table not moved on, a next table
    not seated, the finish (organizer token). Safe at any time and to repeat: every repair
    is progression's own idempotent step. Call again with `next_cursor` until it is null."""
    services().tournaments.authorize(tournament_id, bearer_token(router.current_event.headers))
    start = (body.cursor if body is not None else None) or cursor
    context = router.lambda_context
    report, following = reconciler().reconcile_page(
        tournament_id,
        start,
        limit,
        time_left=lambda: context.get_remaining_time_in_millis() / 1000,
    )
    logger.info("reconcile", cursor=start, next_cursor=following, **report.as_dict())
    return ReconcilePage(
        tournament_id=tournament_id,
        status=report.status,
        checked=report.checked,
        in_play=report.in_play,
        repaired=report.repaired,
        job=ReconcileJob(**report.job) if report.job is not None else None,
        next_cursor=following,
    )
