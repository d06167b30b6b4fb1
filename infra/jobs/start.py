"""The start as a job (`infra.jobs.runner`): round 1 seated a page at a time, at any size.

The API closes registration and records the seeding in one transaction, then answers
202; this job does the rest, each step bounded:
1. `roster` (seeded starts): the registered players' ids, a few query pages a step,
   kept in chunks; the first step also fixes the player count from the registration
   shards, which no registration can change any more;
2. `order`: the ids sorted by the seed (`core.bracket.seeded_order`) and kept in chunks
   of the order (an organizer's order was stored by the API and skips 1 and 2);
3. `seat`: `SEAT_TABLES` round-1 tables a step: their players pointed at their table,
   then the tables written (players first: no one can act, and so be moved on by the
   progression, before their table exists); on a paced deployment those beyond the
   free slots are queued (`infra.store.capacity`);
then the tournament becomes `running`. A step repeated after a crash writes the same
items again, except that players and tables already written are left as they are, so a
turn played on an early table is never lost to a fresh seating.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import accumulate
from typing import Any

from core.bracket import ByeGiven, InvalidBracket, SeatTable, first_round_tables, seeded_order
from core.match import Seating
from infra.dice import DiceSource, SecretDice, seat_seeds
from infra.jobs.runner import NextStep
from infra.store.capacity import CapacityStore, in_play_or_over
from infra.store.deadlines import seated_at
from infra.store.game_tables import GameTableStore
from infra.store.job_store import ORDER_CHUNK, JobStore, chunked
from infra.store.plans import plan_of
from infra.store.players import PlayerStore
from infra.store.table_item import TableRecord, bye_table
from infra.store.tournament_items import JobState, PlayerRecord, Status, TournamentRecord
from infra.store.tournaments import TournamentStore

ROSTER = "ROSTER"
ORDER = "ORDER"
ROSTER_PAGE = 5_000  # ids a query page; a step reads `ROSTER_PAGES` of them
ROSTER_PAGES = 4
SEAT_TABLES = 500  # round-1 tables a step seats: about 3,000 players at tables of 6
Clock = Callable[[], float]


def begin(seeding: str) -> JobState:
    """The start job's first state: an organizer's order is stored by the API already."""
    return JobState("start", 0, "roster" if seeding == "seed" else "seat", "", 0)


class StartJob:
    """Seats round 1 (see the module's docstring)."""

    name = "start"

    def __init__(
        self,
        *,
        tournaments: TournamentStore,
        players: PlayerStore,
        tables: GameTableStore,
        jobs: JobStore,
        clock: Clock,
        seat_tables: int = SEAT_TABLES,
        roster_page: int = ROSTER_PAGE,
        dice: DiceSource | None = None,
        capacity: CapacityStore | None = None,
    ) -> None:
        self._tournaments = tournaments
        self._capacity = capacity  # None or unpaced: every table in play at once
        self._players = players
        self._tables = tables
        self._jobs = jobs
        self._clock = clock
        self._dice = dice if dice is not None else SecretDice()  # each table's server seed
        self._seat_tables = seat_tables
        self._roster_page = roster_page

    def step(self, tournament: TournamentRecord, state: JobState) -> NextStep | None:
        if state.phase == "roster":
            return self._roster(tournament, state)
        if state.phase == "order":
            return self._order(tournament, state)
        return self._seat(tournament, state)

    def complete(self, tournament: TournamentRecord, state: JobState) -> bool:
        return self._jobs.end_job(tournament.id, state, Status.RUNNING)

    # --- phases ----------------------------------------------------------------------

    def _roster(self, tournament: TournamentRecord, state: JobState) -> NextStep:
        cursor = json.loads(state.cursor) if state.cursor else {}
        after: dict[str, Any] | None = cursor.get("after")
        chunk: int = cursor.get("chunk", 0)
        pages: list[list[str]] = []
        for _ in range(ROSTER_PAGES):
            ids, after = self._players.player_ids(tournament.id, after, self._roster_page)
            pages.append(ids)
            if after is None:
                break
        self._jobs.put_id_chunks(tournament.id, ROSTER, chunk, pages, tournament.expires_at)
        count = (
            sum(self._tournaments.registration_counts(tournament.id)) if state.step == 0 else None
        )
        listed = state.done + sum(len(page) for page in pages)
        if after is None:
            following = JobState(
                "start", state.step + 1, "order", json.dumps({"chunks": chunk + len(pages)}), 0
            )
        else:
            following = JobState(
                "start",
                state.step + 1,
                "roster",
                json.dumps({"after": after, "chunk": chunk + len(pages)}),
                listed,
            )
        return NextStep(following, player_count=count)

    def _order(self, tournament: TournamentRecord, state: JobState) -> NextStep:
        chunks = json.loads(state.cursor)["chunks"]
        players = self._jobs.id_chunks(tournament.id, ROSTER, range(chunks))
        if len(players) != tournament.player_count:
            raise InvalidBracket(
                f"{tournament.player_count} players registered, {len(players)} found",
                rule="rules §5.2 seeding",
            )
        order = seeded_order(players, tournament.seed)
        self._jobs.put_id_chunks(
            tournament.id, ORDER, 0, list(chunked(order, ORDER_CHUNK)), tournament.expires_at
        )
        return NextStep(JobState("start", state.step + 1, "seat", "", 0))

    def _seat(self, tournament: TournamentRecord, state: JobState) -> NextStep | None:
        plan = plan_of(tournament)
        first = int(state.cursor or 0)
        tables = plan.tables_in(1)
        if first >= tables or plan.player_count == 1:
            return None
        count = min(self._seat_tables, tables - first)
        offsets = list(accumulate(plan.table_sizes(1), initial=0))
        begin_at, end_at = offsets[first], offsets[first + count]
        chunks = range(begin_at // ORDER_CHUNK, (end_at - 1) // ORDER_CHUNK + 1)
        order = self._jobs.id_chunks(tournament.id, ORDER, chunks)
        skip = begin_at - chunks[0] * ORDER_CHUNK
        decisions = first_round_tables(plan, first, count, order[skip : skip + end_at - begin_at])
        self._place_players(tournament, decisions, begin_at)
        return NextStep(JobState("start", state.step + 1, "seat", str(first + count), end_at))

    def _place_players(
        self,
        tournament: TournamentRecord,
        decisions: tuple[SeatTable | ByeGiven, ...],
        first_position: int,
    ) -> None:
        seated = [
            player
            for decision in decisions
            for player in (
                decision.players if isinstance(decision, SeatTable) else (decision.player,)
            )
        ]
        position = {player: first_position + index for index, player in enumerate(seated)}
        players = {p.id: p for p in self._players.get_players(tournament.id, seated)}
        if len(players) != len(seated):
            missing = next(p for p in seated if p not in players)
            raise InvalidBracket(f"player {missing} is not registered", rule="rules §5.2 seeding")
        placed: list[PlayerRecord] = []
        for decision in decisions:
            for player_id in (
                decision.players if isinstance(decision, SeatTable) else (decision.player,)
            ):
                player = players[player_id]
                if player.seed_position == position[player_id] and player.table_round >= 1:
                    continue  # written by this step's earlier, interrupted run
                player.seed_position = position[player_id]
                player.table, player.table_round = str(decision.table), 1
                placed.append(player)
        self._players.put_players(placed)
        refs = [str(d.table) for d in decisions]
        stored = self._tables.existing_tables(tournament.id, refs)
        now = self._clock()  # the first deadlines run from the seating
        new = [
            _round_one_table(tournament, players, decision, self._dice)
            for decision in decisions
            if str(decision.table) not in stored
        ]
        if self._capacity is None or not self._capacity.paced:
            self._tables.put_new_tables(seated_at(table, now) for table in new)
            return
        paced, free = in_play_or_over(new)
        self._tables.put_new_tables(free)
        self._capacity.seat(paced, now)


def _round_one_table(
    tournament: TournamentRecord,
    players: dict[str, PlayerRecord],
    decision: SeatTable | ByeGiven,
    dice: DiceSource,
) -> TableRecord:
    if isinstance(decision, ByeGiven):  # only with table_size 2 and an odd count
        return bye_table(
            tournament.id,
            str(decision.table),
            decision.player,
            tournament.expires_at,
            tournament.game,
            name=players[decision.player].name,
        )
    return TableRecord(
        tournament=tournament.id,
        ref=str(decision.table),
        seating=Seating(tournament.game, decision.players, tournament.options, decision.survivors),
        token_hashes=tuple(players[p].token_hash for p in decision.players),
        names=tuple(players[p].name for p in decision.players),
        expires_at=tournament.expires_at,
        final=decision.final,
        server_seed=dice.server_seed(tournament.id, str(decision.table)),
        player_seeds=seat_seeds([players[p].player_seed for p in decision.players]),
        dice_secret=dice.secret,
    )
