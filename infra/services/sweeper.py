"""The backstop for lost turn deadlines: find overdue tables in the index, time them out.

A turn's deadline is a one-time Scheduler schedule (`infra.outbox.timers`). If it never fires
(deleted, undeliverable, or TimeoutFunction failing past Lambda's retries), the table
would wait for its absent player forever. Every minute the sweeper queries each shard of
the sparse index `deadlines` for `due_at <= now - grace`, never scanning the table, and
for each table found, after one consistent read:

- over (or a bye): takes it out of the index (REMOVE `due_shard`, `due_at`);
- in play and past `deadline + grace`: plays the timeout through
  `TurnService.apply_timeout`, the path a schedule's firing takes, conditional on the
  version just read (a player who acted in between wins and nothing is written); the
  same write moves `due_at` on to the new deadline;
- in play and not yet past it (a player acted since `due_at` was set): moves `due_at`
  on to the current `deadline`, conditional on the version.

On a paced deployment each run first puts queued tables in play while slots are free
(`CapacityStore.activate`): a lost wake-up after a release costs at most a minute.

Each run is bounded: pages of the shards in turn, until the time or visit budget is
spent; whatever is left stays overdue in the index for the next run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

from infra.services.turns import TurnService
from infra.store.capacity import CapacityStore
from infra.store.deadlines import GRACE_SECONDS, SHARDS, DeadlineStore
from infra.store.game_tables import GameTableStore

MAX_VISITS = 10_000  # tables per run, whatever time is left
MARGIN_SECONDS = 10.0  # stop when the function has less than this left
# and in any case before a step that would end past 30% of the time the run started with
# (judged by the longest step so far): a run ends within a third of its Timeout even
# when DynamoDB is slow, as every function's invocation should
RUN_SHARE = 0.3


@dataclass
class SweepReport:
    """What one run did."""

    visited: int = 0
    timed_out: int = 0
    moved_on: int = 0  # due_at moved to a later deadline
    left_index: int = 0  # finished tables taken out of the index
    unchanged: int = 0  # gone, or changed between the read and the write
    activated: int | None = None  # queued tables put in play (None: unpaced)
    complete: bool = True  # False: stopped at the budget, the rest waits for the next run

    def as_dict(self) -> dict[str, Any]:
        """For logs and the handler's answer."""
        return {key: value for key, value in asdict(self).items() if value is not None}


class DeadlineSweeper:
    """Finds tables past their deadline through the index and times them out."""

    def __init__(
        self,
        deadlines: DeadlineStore,
        tables: GameTableStore,
        turns: TurnService,
        clock: Callable[[], float],
        *,
        grace: int = GRACE_SECONDS,
        max_visits: int = MAX_VISITS,
        capacity: CapacityStore | None = None,
    ) -> None:
        self._capacity = capacity if capacity is not None and capacity.paced else None
        self._deadlines = deadlines
        self._tables = tables
        self._turns = turns
        self._clock = clock
        self._grace = grace
        self._max_visits = max_visits

    def sweep(self, time_left: Callable[[], float] = lambda: math.inf) -> SweepReport:
        """One run: every shard's overdue tables, until 30% of the time left at the
        start (`time_left()`, seconds) is used, the margin is reached, or the visit budget
        is spent."""
        now = self._clock()
        cutoff = math.floor(now) - self._grace
        report = SweepReport()
        budget = _Budget(time_left)
        if self._capacity is not None:  # a wake-up lost between a release and activation
            with budget.step():
                report.activated = self._capacity.activate(now)
        for tournament, ref, due_at in self._overdue(cutoff, budget, report):
            if report.visited >= self._max_visits or not budget.allows():
                report.complete = False
                break
            report.visited += 1
            with budget.step():
                self._visit(tournament, ref, due_at, now, report)
        return report

    def _overdue(
        self, cutoff: int, budget: _Budget, report: SweepReport
    ) -> Iterator[tuple[str, str, int]]:
        """Every shard's overdue tables, a page of each shard in turn, so that a run cut
        short by its budget has looked at every shard."""
        cursors: dict[str, dict[str, Any] | None] = dict.fromkeys(SHARDS)
        while cursors:
            for shard, start in list(cursors.items()):
                if not budget.allows():
                    report.complete = False
                    return
                with budget.step():
                    found, following = self._deadlines.overdue(shard, cutoff, start)
                yield from found
                if following is None:
                    del cursors[shard]
                else:
                    cursors[shard] = following

    def _visit(
        self, tournament: str, ref: str, due_at: int, now: float, report: SweepReport
    ) -> None:
        table = self._tables.get_table(tournament, ref)
        if table is None:  # deleted (TTL) since the index was read
            report.unchanged += 1
        elif table.over or table.bye or table.cancelled:
            changed = self._deadlines.leave_index(table)
            report.left_index += changed
            report.unchanged += not changed
        elif (table.deadline or due_at) + self._grace <= now:
            applied = self._turns.apply_timeout(table, move_due=True)
            report.timed_out += applied
            report.unchanged += not applied
        else:
            changed = self._deadlines.move_due(table, table.deadline)
            report.moved_on += changed
            report.unchanged += not changed


class _Budget:
    """The time a run may use: a step (a page of the index, a visit) begins only if one as
    long as the longest so far would end within it, so that a slow Query at the end of a
    run does not carry it past its share."""

    def __init__(self, time_left: Callable[[], float]) -> None:
        self._time_left = time_left
        self._stop_below = max(MARGIN_SECONDS, time_left() * (1 - RUN_SHARE))
        self._longest = 0.0

    def allows(self) -> bool:
        return self._time_left() - self._longest >= self._stop_below

    @contextmanager
    def step(self) -> Iterator[None]:
        before = self._time_left()
        yield
        self._longest = max(self._longest, before - self._time_left())
