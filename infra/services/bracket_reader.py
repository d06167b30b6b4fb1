"""What the bracket pages read: the tables a picture draws and the names at them.

Bounded whatever the tournament's size: at most `per_round` tables a round, in one batch
read per round, and no table of a round whose feeders were found still playing. Names
come from the table items, which carry their seats' names from the seating on; players
who sit at no table read (the top standings) or at a table seated before names were
stored are read in one batch and kept, since a name never changes once registered.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.bracket import BracketPlan, InvalidBracket, TableRef
from infra.bounded import Bounded
from infra.errors import NotFound
from infra.services.tournaments import TournamentService
from infra.store.game_tables import GameTableStore
from infra.store.players import PlayerStore
from infra.store.table_item import TableRecord
from infra.store.tournament_items import TournamentRecord

NAMES_KEPT = 100_000  # (tournament, player) → name pairs a warm container keeps: a few MB


class BracketReader:
    """The reads of the bracket and projector pages."""

    def __init__(
        self,
        tournaments: TournamentService,
        tables: GameTableStore,
        players: PlayerStore,
        names_kept: int = NAMES_KEPT,
    ) -> None:
        self._tournaments = tournaments
        self._tables = tables
        self._players = players
        self._names: Bounded[tuple[str, str], str] = Bounded(names_kept)

    def plan(self, tournament: TournamentRecord) -> BracketPlan | None:
        """The bracket once the players are known (from the start on), else None."""
        return self._tournaments.plan(tournament)

    def table_in(self, tournament: TournamentRecord, table: str) -> tuple[BracketPlan, TableRef]:
        """The bracket and the table named `table` in it; `NotFound` if there is none."""
        plan = self.plan(tournament)
        try:
            ref = TableRef.parse(table)
        except InvalidBracket:
            ref = None
        if plan is None or ref is None or ref not in plan:
            raise NotFound(f"tournament {tournament.id} has no table {table}", rule="table")
        return plan, ref

    def drawn_tables(
        self, tournament: str, plan: BracketPlan, per_round: int
    ) -> list[dict[int, TableRecord]]:
        """Per round, the seated ones among its first `per_round` tables, by index.

        A table is seated only once all its feeders are over, so a table with a feeder
        that was read and found playing (or not seated) is not asked for: the later
        rounds of a running tournament cost next to nothing.
        """
        rounds: list[dict[int, TableRecord]] = []
        unfinished: set[int] = set()  # drawn tables of the round before known not over
        for round in range(1, plan.rounds + 1):
            shown = min(plan.tables_in(round), per_round)
            wanted = [
                index
                for index in range(shown)
                if round == 1 or unfinished.isdisjoint(plan.feeders(TableRef(round, index)))
            ]
            found: dict[int, TableRecord] = {}
            if wanted:
                refs = [str(TableRef(round, index)) for index in range(wanted[0], wanted[-1] + 1)]
                found = {
                    TableRef.parse(t.ref).index: t
                    for t in self._tables.get_tables(tournament, refs)
                }
            unfinished = {i for i in range(shown) if i not in found or not found[i].over}
            rounds.append(found)
        return rounds

    def names(
        self, tournament: str, tables: Iterable[TableRecord], others: Iterable[str] = ()
    ) -> dict[str, str]:
        """Player id → name for everyone seated at `tables` and for `others`."""
        asked = set(others)
        for table in tables:
            asked.update(table.seating.seats)
            if len(table.names) == len(table.seating.seats):
                for player, name in zip(table.seating.seats, table.names, strict=True):
                    self._keep(tournament, player, name)
        wanted = sorted(p for p in asked if (tournament, p) not in self._names)
        if wanted:
            for registered in self._players.get_players(tournament, wanted):
                self._keep(tournament, registered.id, registered.name)
        found = {p: self._names.get((tournament, p)) for p in asked}
        return {p: name for p, name in found.items() if name is not None}

    def _keep(self, tournament: str, player: str, name: str) -> None:
        self._names.keep((tournament, player), name)
