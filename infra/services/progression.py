"""The progression consumer's use case: a table finished, so move the bracket on.

For each `TableFinished` (docs/rules.md §5, through the pure `core.bracket` functions):
1. record the exit of every player whose tournament ends at that table;
2. report the table to its round's counting tree (`core.bracket.completion`);
3. put its advancers in their slot at the next table; once every feeder has sent its
   players, seat that table (or give a bye, stored as a table that is over at once);
4. on a paced deployment (`infra.store.capacity`), free the table's slot first and put
   queued tables in play while slots are free; a table seated in step 3 waits in the
   queue if none is free;
5. after the final, begin the finish job (`infra.jobs.finish`), which stores the standings
   a bounded step at a time and then marks the tournament finished.

Each step is idempotent and comes before the steps that depend on it, so a consumer
that dies anywhere and is retried, or gets the event twice or late, ends in the same
items. The events for outside subscribers come from those items through the stream.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from core.bracket import (
    BracketPlan,
    ByeGiven,
    InvalidBracket,
    SeatTable,
    TableRef,
    advancing,
    check_outcome,
    exits,
    seat_next,
)
from core.bracket.completion import completion_path
from core.bracket.progression import Exit
from core.match import Seating, forfeit_disqualified, replay
from core.outcome import Outcome, Placement
from core.registry import get_game
from infra.dice import DiceSource, SecretDice, seat_seeds
from infra.errors import NotFound, WrongStatus
from infra.jobs import finish as finish_job
from infra.outbox.events import TableFinished
from infra.store.capacity import CapacityStore
from infra.store.deadlines import seated_at
from infra.store.game_tables import GameTableStore
from infra.store.job_store import JobStore
from infra.store.plans import plan_of
from infra.store.players import PlayerStore
from infra.store.progress_store import ProgressStore
from infra.store.table_item import TableRecord, bye_table
from infra.store.tournament_items import PlayerExit, Status, TournamentRecord
from infra.store.tournaments import TournamentStore


class StartNotFinished(InvalidBracket):
    """The final ended while an interrupted start was not yet resumed: retry later."""


class ProgressionService:
    """Moves a running tournament on, one finished table at a time."""

    def __init__(
        self,
        *,
        tournaments: TournamentStore,
        players: PlayerStore,
        tables: GameTableStore,
        progress: ProgressStore,
        jobs: JobStore,
        clock: Callable[[], float] = time.time,
        dice: DiceSource | None = None,
        capacity: CapacityStore | None = None,
    ) -> None:
        self._tournaments = tournaments
        # the deployment's table slots (None or unpaced: every table in play at once)
        self._capacity = capacity if capacity is not None and capacity.paced else None
        self._players = players
        self._tables = tables
        self._progress = progress
        self._jobs = jobs
        self._clock = clock  # a seated table's first deadline runs from its seating
        self._dice = dice if dice is not None else SecretDice()  # each table's server seed
        # what progression reads of a tournament never changes once it runs
        self._running: dict[str, TournamentRecord] = {}

    def table_finished(self, finished: TableFinished) -> None:
        """Everything that follows from one finished table; safe to repeat."""
        if self._capacity is not None and not finished.bye:
            # first, whatever the tournament's state: a slot is never kept by a table over
            self._capacity.release(finished.tournament, finished.table)
            self._capacity.activate(self._clock())
        tournament = self._tournament(finished.tournament)
        if tournament is None:
            return  # finished already: nothing is left to move
        plan = plan_of(tournament)
        ref = plan.check(TableRef.parse(finished.table))
        if finished.bye:
            going_on: tuple[str, ...] = (finished.players[0],)
        else:
            outcome = _outcome(finished)
            check_outcome(ref, finished.players, outcome)
            going_on = advancing(plan, ref, outcome)
            for leaving in exits(plan, ref, outcome):
                self._players.record_exit(
                    tournament.id, leaving.player, _player_exit(plan, str(ref), leaving)
                )
        self._report_to_round(tournament, plan, ref)
        routes = plan.routes(ref)
        if not routes:
            self._finish(tournament)
            return
        for route in routes:  # one table, or (rule 2) the next tables its advancers fill
            successor = route.table
            sent = going_on[route.first : route.first + route.seats]
            arrived = self._progress.add_arrival(
                tournament.id, str(successor), route.slot, sent, tournament.expires_at
            )
            feeders = len(plan.feeders(successor))
            if len(arrived) == feeders:
                decision = seat_next(plan, successor, [arrived[slot] for slot in range(feeders)])
                self._seat(tournament, decision, finished)

    # --- steps -----------------------------------------------------------------------

    def _tournament(self, tournament_id: str) -> TournamentRecord | None:
        """The running tournament (cached), None once finished; `NotFound` if unknown."""
        cached = self._running.get(tournament_id)
        if cached is not None:
            return cached
        tournament = self._tournaments.get_tournament(tournament_id)
        if tournament is None:
            raise NotFound(f"no tournament {tournament_id}", rule="tournament")
        if tournament.status in (Status.FINISHED, Status.CANCELLED):
            return None
        if tournament.status not in (Status.STARTING, Status.RUNNING):
            raise InvalidBracket(
                f"tournament {tournament_id} is {tournament.status}, not running",
                rule="tables",
            )
        self._running[tournament_id] = tournament
        return tournament

    def _report_to_round(
        self, tournament: TournamentRecord, plan: BracketPlan, ref: TableRef
    ) -> None:
        tables = plan.tables_in(ref.round)
        for step in completion_path(tables, ref.index):
            complete = self._progress.report_finished(
                tournament.id, ref.round, tables, step, tournament.expires_at
            )
            if not complete:
                return

    def _seat(
        self,
        tournament: TournamentRecord,
        decision: SeatTable | ByeGiven,
        finished: TableFinished,
    ) -> None:
        if isinstance(decision, ByeGiven):
            # a lone player has one feeder, the table that just finished: its event
            # names them (an event from before names were carries none: the id stands in)
            names = dict(zip(finished.players, finished.names, strict=False))
            self._tables.seat_table(
                bye_table(
                    tournament.id,
                    str(decision.table),
                    decision.player,
                    tournament.expires_at,
                    tournament.game,
                    name=names.get(decision.player, decision.player),
                )
            )
            self._players.move_player(
                tournament.id, decision.player, str(decision.table), decision.table.round
            )
            return
        ref = str(decision.table)
        players = {p.id: p for p in self._players.get_players(tournament.id, decision.players)}
        table = TableRecord(
            tournament=tournament.id,
            ref=ref,
            seating=Seating(
                tournament.game, decision.players, tournament.options, decision.survivors
            ),
            token_hashes=tuple(players[p].token_hash for p in decision.players),
            names=tuple(players[p].name for p in decision.players),
            expires_at=tournament.expires_at,
            final=decision.final,
            server_seed=self._dice.server_seed(tournament.id, ref),
            player_seeds=seat_seeds([players[p].player_seed for p in decision.players]),
            dice_secret=self._dice.secret,
            # disqualified while waiting for this table: they forfeit at their first turn
            disqualified=tuple(p for p in decision.players if players[p].disqualified),
        )
        if self._seat_table(_forfeits_owed(table)):
            self._stop_if_cancelled(tournament.id, ref)
        for player in decision.players:
            self._players.move_player(tournament.id, player, ref, decision.table.round)

    def _seat_table(self, table: TableRecord) -> bool:
        """Seat `table` unless it exists; paced, in play if a slot is free and none is
        queued, else queued. False if it was seated (or queued) already."""
        now = self._clock()
        if self._capacity is None or table.over:
            return self._tables.seat_table(seated_at(table, now))
        return self._capacity.seat([table], now)[table.ref] != "exists"

    def _stop_if_cancelled(self, tournament: str, ref: str) -> None:
        """A table seated while its tournament was being cancelled is stopped here: the
        cancellation flips the status before it stops the tables it finds, and this reads
        the status after the seating, so one of the two stops every table."""
        found = self._tournaments.get_tournament(tournament)
        if found is not None and found.status == Status.CANCELLED:
            self._running.pop(tournament, None)
            if self._capacity is None:
                self._tables.cancel_table(tournament, ref)
                return
            stopped = self._capacity.cancel_in_play(tournament, ref)
            if not stopped and not self._tables.cancel_table(tournament, ref):
                for queued, seq in self._capacity.queued_refs(tournament, [ref]).items():
                    self._capacity.cancel_queued(tournament, queued, seq)

    def _finish(self, tournament: TournamentRecord) -> None:
        """After the final: begin the finish job, which writes the standings a page at a
        time and then marks the tournament finished (`infra.jobs.finish`). A repeated
        final finds the job begun or done, and that is enough."""
        try:
            self._jobs.begin_job(tournament.id, Status.RUNNING, finish_job.begin())
        except WrongStatus:
            current = self._tournaments.get_tournament(tournament.id)
            if current is not None and current.status == Status.STARTING:
                # a start interrupted before `running` must be resumed first; until then
                # the event goes back to the queue and comes again
                raise StartNotFinished(
                    f"tournament {tournament.id} is still starting", rule="start"
                ) from None
            finishing = current is not None and (
                current.status == Status.FINISHED
                or (current.job is not None and current.job.name == "finish")
            )
            if not finishing:
                raise
        self._running.pop(tournament.id, None)


def _forfeits_owed(table: TableRecord) -> TableRecord:
    """`table` with a forfeit for each disqualified player its first turns fall to
    (docs/rules.md §4.4): it never waits a turn's deadline for one of them."""
    if not table.disqualified:
        return table
    game = get_game(table.seating.game)
    state = replay(table.seating, table.moves)
    state, forfeits = forfeit_disqualified(game, state, table.disqualified)
    if not forfeits:
        return table
    over = game.is_over(state)
    ranking = game.outcome(state).ranking if over else ()
    return replace(table, moves=[*table.moves, *forfeits], ranking=ranking)


def _outcome(finished: TableFinished) -> Outcome:
    return Outcome(
        tuple(Placement(p.player, p.place, p.measure, p.forfeited) for p in finished.placements),
        finished.measure_name,
        finished.lower_measure_is_better,
    )


def _player_exit(plan: BracketPlan, ref: str, leaving: Exit) -> PlayerExit:
    champion = leaving.round == plan.rounds and leaving.table_place == 1
    return PlayerExit(
        leaving.round, ref, leaving.table_place, leaving.measure, not champion, leaving.forfeited
    )
