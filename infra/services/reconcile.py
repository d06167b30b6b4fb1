"""Reconcile: do from the items alone what a lost event should have made happen.

A `TableFinished` can be lost for good: its stream record given up past the stream's
24 hours, or its queue message dropped. The tournament then waits forever, although the
table items say what must follow. Progression does, per finished table: exits → report
to the round's counting tree → its players into their slot of the successor's arrivals
→ (the last feeder) the successor seated, its players moved to it; after the final, the
finish. Each step comes after the ones it depends on, so a later step's item proves the
earlier ones were made. Reconcile reads, for each table the bracket plan says can exist,
round by round:

- a table over (or a bye) whose slot in its successor's arrivals is missing: its
  `TableFinished` never got through;
- a successor whose slots are all filled but that is not seated, or seated with a
  player not moved to it: progression died on its last steps and was not retried;
- the final over and the tournament not finished, with no job under way;

and replays `ProgressionService.table_finished` with the event the publisher makes from
the item (`infra.outbox.publisher.table_finished_event`): every repair is the progression's own
idempotent steps, so reconcile is safe at any time, racing progression or itself.

Work is bounded: a page checks at most `budget` tables and repairs at most
`max_repairs`, and the cursor (the next table's ref) lets a caller go on page by page.
A job under way (the start seating round 1) is reported, not run: an operator pushes a
stuck one along with `JobRunner.run_to_end`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from core.bracket import BracketPlan, Route, TableRef
from infra.errors import NotFound
from infra.outbox.publisher import table_finished_event
from infra.services.progression import ProgressionService
from infra.store.game_tables import GameTableStore
from infra.store.plans import plan_of
from infra.store.players import PlayerStore
from infra.store.progress_store import ProgressStore
from infra.store.table_item import TableRecord
from infra.store.tournament_items import Status, TournamentRecord
from infra.store.tournaments import TournamentStore

PAGE_TABLES = 100  # one BatchGetItem of tables
MAX_REPAIRS = 10  # replays a page makes at most
MARGIN_SECONDS = 3.0  # no replay starts with less time than this left


@dataclass
class ReconcileReport:
    """What one page found and did."""

    tournament: str
    status: str
    checked: int = 0  # tables of the plan looked at (seated or not)
    in_play: int = 0  # of those, seated and not over: they wait for players or deadlines
    repaired: list[str] = field(default_factory=list)  # tables whose TableFinished was replayed
    job: dict[str, Any] | None = None  # the job under way: name, step, phase

    def as_dict(self) -> dict[str, Any]:
        """For the API's answer and logs."""
        return asdict(self)


class Reconciler:
    """Finds and replays what progression should have done (see the module docstring)."""

    def __init__(
        self,
        *,
        tournaments: TournamentStore,
        players: PlayerStore,
        tables: GameTableStore,
        progress: ProgressStore,
        progression: Callable[[], ProgressionService],
        max_repairs: int = MAX_REPAIRS,
    ) -> None:
        self._tournaments = tournaments
        self._players = players
        self._tables = tables
        self._progress = progress
        self._progression = progression  # a fresh service for each page (it replays there)
        self._max_repairs = max_repairs

    def reconcile_page(
        self,
        tournament: str,
        cursor: str | None = None,
        budget: int = PAGE_TABLES,
        time_left: Callable[[], float] = lambda: math.inf,
    ) -> tuple[ReconcileReport, str | None]:
        """Check up to `budget` tables from `cursor` (a table's ref; None: the first) and
        repair what is missing; the report and the cursor of the next page (None: done)."""
        record = self._tournaments.get_tournament(tournament)
        if record is None:
            raise NotFound(f"no tournament {tournament}", rule="tournament")
        report = ReconcileReport(tournament, record.status)
        if record.job is not None:
            job = record.job
            report.job = {"name": job.name, "step": job.step, "phase": job.phase}
        if record.status not in (Status.STARTING, Status.RUNNING):
            return report, None  # nothing seated yet, or finished: nothing can be missing
        plan = plan_of(record)
        start = plan.check(TableRef.parse(cursor)) if cursor else TableRef(1, 0)
        page = _page(plan, start, max(1, budget))
        # a fresh service: its cache of running tournaments must not outlive the page
        progression = self._progression()
        seen = self._seen(record, plan, page)
        for ref in page:
            if len(report.repaired) >= self._max_repairs or time_left() < MARGIN_SECONDS:
                return report, str(ref)  # the rest waits for the next page
            report.checked += 1
            table = seen.tables.get(str(ref))
            if table is None:
                continue  # not seated: its feeders are checked, or the start job seats it
            if not (table.over or table.bye):
                report.in_play += 1
                continue
            if self._missing(record, plan, ref, seen):
                progression.table_finished(table_finished_event(table))
                report.repaired.append(str(ref))
                seen.repaired.update(str(route.table) for route in plan.routes(ref))
        following = _after(plan, page[-1])
        return report, None if following is None else str(following)

    def _seen(self, record: TournamentRecord, plan: BracketPlan, page: Sequence[TableRef]) -> _Seen:
        """What progression left of the tables of `page` and the tables they feed."""
        tables = {t.ref: t for t in self._tables.get_tables(record.id, [str(ref) for ref in page])}
        successors = sorted(
            {
                route.table
                for ref in page
                if (table := tables.get(str(ref))) is not None and (table.over or table.bye)
                for route in plan.routes(ref)
            }
        )
        names = [str(s) for s in successors]
        arrivals = self._progress.arrivals(record.id, names) if names else {}
        complete = [s for s in successors if len(arrivals.get(str(s), {})) == len(plan.feeders(s))]
        seated = (
            self._tables.existing_tables(record.id, [str(s) for s in complete])
            if complete
            else set()
        )
        players = {  # one player may be in two successors: a bye's and the next
            player: None
            for s in complete
            if str(s) in seated
            for slot in arrivals[str(s)].values()
            for player in slot
        }
        rounds = self._players.player_rounds(record.id, list(players)) if players else {}
        return _Seen(tables, arrivals, seated, rounds)

    def _missing(
        self, record: TournamentRecord, plan: BracketPlan, ref: TableRef, seen: _Seen
    ) -> bool:
        """Whether progression's work for the finished table `ref` is incomplete."""
        routes = plan.routes(ref)
        if not routes:  # the final: the finish, unless a job does it already
            return record.status == Status.RUNNING and record.job is None
        return any(self._route_missing(plan, route, seen) for route in routes)

    def _route_missing(self, plan: BracketPlan, route: Route, seen: _Seen) -> bool:
        """Whether the players a finished table sends along `route` are not all moved on."""
        successor = route.table
        slots = seen.arrivals.get(str(successor), {})
        if route.slot not in slots:
            return True
        if str(successor) in seen.repaired or len(slots) < len(plan.feeders(successor)):
            return False  # repaired on this page already, or other feeders still play
        if str(successor) not in seen.seated:
            return True
        return any(
            seen.rounds.get(player, 0) < successor.round
            for players in slots.values()
            for player in players
        )


@dataclass
class _Seen:
    """What a page read: its tables, their successors' arrivals and seating, and the round
    of the players of the successors that every feeder reached."""

    tables: dict[str, TableRecord]
    arrivals: dict[str, dict[int, list[str]]]
    seated: set[str]
    rounds: dict[str, int]
    repaired: set[str] = field(default_factory=set)  # successors repaired on this page


def _page(plan: BracketPlan, start: TableRef, budget: int) -> list[TableRef]:
    """Up to `budget` tables of the plan from `start` on, round after round."""
    refs: list[TableRef] = []
    current: TableRef | None = start
    while current is not None and len(refs) < budget:
        refs.append(current)
        current = _after(plan, current)
    return refs


def _after(plan: BracketPlan, ref: TableRef) -> TableRef | None:
    """The table after `ref` in reconcile's order; None after the final."""
    if ref.index + 1 < plan.tables_in(ref.round):
        return TableRef(ref.round, ref.index + 1)
    if ref.round < plan.rounds:
        return TableRef(ref.round + 1, 0)
    return None
