"""The cancellation as a job (`infra.jobs.runner`): a cancelled tournament's tables in play
stopped a page at a time, at any size.

`POST .../cancel` marks the tournament `cancelled` and begins this job in the same
transaction, then answers 202: stopping the tables of a tournament of 100,000 players
(some 25,000 tables) does not fit in an API request. Each step reads the states of
`STOP_TABLES` tables of the bracket, in round order (BatchGetItem), and stops those in
play (`GameTableStore.cancel_table`, conditional on `playing`: a step run again after a
crash stops nothing twice); the cursor is the number of tables looked at, `done` the
number of them found stopped. The completion removes the job and keeps that number on
the tournament (`tables_stopped`). A table seated after a step went past its place is
stopped by the progression itself, which reads the status after it seats
(`ProgressionService`). On a paced deployment a stopped table's slot is freed in the
same transaction, and a queued table leaves the queue (the page's tables not seated
are looked for among the queued ones: one more BatchGetItem per 100 of them).
"""

from __future__ import annotations

from core.bracket import BracketPlan, TableRef
from infra.jobs.runner import NextStep
from infra.store.capacity import CapacityStore
from infra.store.game_tables import GameTableStore
from infra.store.job_store import JobStore
from infra.store.plans import plan_of
from infra.store.table_item import CANCELLED
from infra.store.tournament_items import JobState, Status, TournamentRecord

STOP_TABLES = 500  # tables a step looks at: 5 BatchGetItems, at most 500 updates


def begin() -> JobState:
    """The cancel job's first state."""
    return JobState("cancel", 0, "stop", "0", 0)


class CancelJob:
    """Stops a cancelled tournament's tables (see the module's docstring)."""

    name = "cancel"

    def __init__(
        self,
        *,
        tables: GameTableStore,
        jobs: JobStore,
        stop_tables: int = STOP_TABLES,
        capacity: CapacityStore | None = None,
    ) -> None:
        self._tables = tables
        self._capacity = capacity if capacity is not None and capacity.paced else None
        self._jobs = jobs
        self._stop_tables = stop_tables

    def step(self, tournament: TournamentRecord, state: JobState) -> NextStep | None:
        if not tournament.seed:
            return None  # cancelled before its start: no table was ever seated
        plan = plan_of(tournament)
        first = int(state.cursor)
        refs = table_refs(plan, first, self._stop_tables)
        if not refs:
            return None
        statuses = self._tables.table_statuses(tournament.id, refs)
        for ref, status in statuses.items():
            if status == "playing" and self._stop(tournament.id, ref):
                statuses[ref] = CANCELLED
        if self._capacity is not None:  # a queued table has no table item yet
            unseated = [ref for ref in refs if ref not in statuses]
            for ref, seq in self._capacity.queued_refs(tournament.id, unseated).items():
                if self._capacity.cancel_queued(tournament.id, ref, seq):
                    statuses[ref] = CANCELLED
        # counted as found, not as stopped now: a step run again after a crash counts
        # the tables its first run stopped
        stopped = sum(status == CANCELLED for status in statuses.values())
        following = JobState(
            "cancel", state.step + 1, "stop", str(first + len(refs)), state.done + stopped
        )
        return NextStep(following)

    def _stop(self, tournament: str, ref: str) -> bool:
        """Stop a table in play; on a paced deployment its slot is freed with it."""
        if self._capacity is None:
            return self._tables.cancel_table(tournament, ref)
        return self._capacity.cancel_in_play(tournament, ref) or self._tables.cancel_table(
            tournament, ref
        )

    def complete(self, tournament: TournamentRecord, state: JobState) -> bool:
        return self._jobs.end_job(
            tournament.id, state, Status.CANCELLED, {"tables_stopped": {"N": str(state.done)}}
        )


def table_refs(plan: BracketPlan, first: int, count: int) -> list[str]:
    """Up to `count` of the bracket's tables, round after round, from the `first`th (0:
    round 1's first table)."""
    refs: list[str] = []
    skipped = 0
    for round_number in range(1, plan.rounds + 1):
        tables = plan.tables_in(round_number)
        start = max(first - skipped, 0)
        skipped += tables
        for index in range(start, tables):
            if len(refs) == count:
                return refs
            refs.append(str(TableRef(round_number, index)))
    return refs
