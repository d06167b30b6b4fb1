"""Organizer and player use cases: create, open and close registration, register, start.

Starting orders the players by a seed (the organizer's, or a secret drawn at that
moment) or in the organizer's order, records which (published, so anyone can check the
seating), seats round 1 and points every player at their table. An interrupted start is
resumed by starting again the same way: tables already stored are kept as they are, so
no turn played on them is lost.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from core.bracket import (
    BracketPlan,
    ByeGiven,
    InvalidBracket,
    SeatTable,
    Standing,
    TableRef,
    first_round,
    organizer_order,
    seeded_order,
)
from core.match import Seating
from core.options import options_dict
from core.registry import get_game
from infra.deadlines import seated_at
from infra.errors import Forbidden, NotFound, Unauthorized, WrongStatus
from infra.progress_store import ProgressStore
from infra.records import PlayerRecord, Status, TournamentRecord
from infra.table_item import TableRecord, bye_table
from infra.tokens import hash_token, new_id, new_token, token_matches, token_owner

ORGANIZER = "organizer"
SEEDING_RULE = "RULES.md §5 seeding"
Clock = Callable[[], float]


class TournamentService:
    """Everything about a tournament except playing its tables."""

    def __init__(self, repository: ProgressStore, clock: Clock, retention_seconds: int) -> None:
        self._repository = repository
        self._clock = clock
        self._retention = retention_seconds

    def create(
        self,
        *,
        name: str,
        game: str,
        options: Mapping[str, object],
        table_size: int,
        advance: int,
        player_limit: int,
        turn_timeout_seconds: int | None,
    ) -> tuple[TournamentRecord, str]:
        """A new tournament in `draft` and its organizer token (shown only now)."""
        rules = get_game(game)
        raw = dict(options)
        if turn_timeout_seconds is not None:
            raw["turn_timeout_seconds"] = turn_timeout_seconds
        parsed = options_dict(rules.parse_options(raw))
        if table_size < rules.min_players:
            raise InvalidBracket(
                f"table_size must be at least {rules.min_players} for {game}",
                rule="table_size",
            )
        BracketPlan.build(table_size, table_size, advance)  # checks table_size and advance
        now = int(self._clock())
        token = new_token(ORGANIZER)
        tournament = TournamentRecord(
            id=new_id("t"),
            name=name,
            game=rules.name,
            options=parsed,
            table_size=table_size,
            advance=advance,
            player_limit=player_limit,
            organizer_hash=hash_token(token),
            created_at=now,
            expires_at=now + self._retention,
        )
        self._repository.create_tournament(tournament)
        return tournament, token

    def get(self, tournament: str) -> TournamentRecord:
        """The tournament, or `NotFound`."""
        found = self._repository.get_tournament(tournament)
        if found is None:
            raise NotFound(f"no tournament {tournament}", rule="tournament")
        return found

    def set_registration(self, tournament: str, token: str, *, open: bool) -> TournamentRecord:
        """Open or close registration (organizer only)."""
        self._authorize_organizer(self.get(tournament), token)
        if open:
            self._repository.change_status(tournament, [Status.DRAFT, Status.CLOSED], Status.OPEN)
        else:
            self._repository.change_status(tournament, [Status.OPEN], Status.CLOSED)
        return self.get(tournament)

    def register(self, tournament: str, name: str) -> tuple[PlayerRecord, str]:
        """A new player and their token (shown only now, stored as a hash)."""
        player_id = new_id("p")
        token = new_token(player_id)
        now = int(self._clock())
        player = PlayerRecord(
            tournament=tournament,
            id=player_id,
            name=name,
            token_hash=hash_token(token),
            registered_at=now,
            expires_at=now + self._retention,
        )
        self._repository.add_player(player)
        return player, token

    def start(
        self,
        tournament: str,
        token: str,
        *,
        seed: str | None = None,
        order: Sequence[str] | None = None,
    ) -> TournamentRecord:
        """Seed and seat round 1 (organizer only); safe to repeat after a failure.

        The players are shuffled by `seed` (a fresh secret when None) or, with `order`,
        seated in the organizer's order (RULES.md §5). Either is recorded and published.
        """
        if seed is not None and order is not None:
            raise InvalidBracket("give a seed or an order, not both", rule=SEEDING_RULE)
        found = self.get(tournament)
        self._authorize_organizer(found, token)
        players = {p.id: p for p in self._repository.players(tournament)}
        if found.status in (Status.OPEN, Status.CLOSED):
            if len(players) < 2:
                raise WrongStatus(
                    f"a tournament needs at least 2 players, {len(players)} registered",
                    rule="start",
                )
            if order is not None:
                _check_order(order, players)
                found.seeding, found.seed = "order", order_digest(order)
            else:
                found.seeding, found.seed = "seed", seed or secrets.token_hex(16)
            self._repository.change_status(
                tournament,
                [Status.OPEN, Status.CLOSED],
                Status.STARTING,
                seeding=(found.seeding, found.seed),
            )
        elif found.status == Status.STARTING:
            _check_resumed_like_begun(found, seed, order)
        else:
            raise WrongStatus(f"the tournament is already {found.status}", rule="start")
        seated = (
            organizer_order(order) if order is not None else seeded_order(list(players), found.seed)
        )
        self._seat_first_round(found, players, seated)
        self._repository.change_status(tournament, [Status.STARTING], Status.RUNNING)
        return self.get(tournament)

    def whereabouts(self, tournament: str, token: str) -> dict[str, Any]:
        """Where the token's player plays now: their table, or that they wait."""
        found = self.get(tournament)
        player = self._authenticate_player(found, token)
        finished = found.status == Status.FINISHED
        return {
            "tournament": tournament,
            "player": player.id,
            "name": player.name,
            "tournament_status": found.status,
            "table": player.table or None,
            "eliminated": player.exit is not None and player.exit.eliminated,
            "place": (
                self._repository.place_of(tournament, player.id, found.player_count)
                if finished
                else None
            ),
        }

    def standings(
        self, tournament: str, offset: int, limit: int
    ) -> tuple[list[Standing], int | None]:
        """A page of the final standings and the offset of the next page."""
        found = self.get(tournament)
        if found.status != Status.FINISHED:
            raise WrongStatus(
                f"the standings are known once the final is over; the tournament is {found.status}",
                rule="RULES.md §5 standings",
            )
        rows = self._repository.standings_page(tournament, offset, limit)
        following = offset + limit if offset + limit < found.player_count else None
        return rows, following

    def plan(self, tournament: TournamentRecord) -> BracketPlan | None:
        """The bracket once the players are known (from the start on), else None."""
        if tournament.status in (Status.DRAFT, Status.OPEN, Status.CLOSED):
            return None
        return bracket_plan(tournament.player_count, tournament.table_size, tournament.advance)

    def round_tables(
        self, tournament: str, round: int, offset: int, limit: int
    ) -> tuple[list[TableRecord], int | None]:
        """A page of round `round`'s seated tables, and the offset of the next page."""
        plan = self.plan(self.get(tournament))
        if plan is None or not 1 <= round <= plan.rounds:
            raise NotFound(f"tournament {tournament} has no round {round}", rule="rounds")
        count = plan.tables_in(round)
        refs = [str(TableRef(round, index)) for index in range(offset, min(offset + limit, count))]
        following = offset + limit if offset + limit < count else None
        return self._repository.get_tables(tournament, refs), following

    # --- helpers ---------------------------------------------------------------------

    def _seat_first_round(
        self,
        tournament: TournamentRecord,
        players: dict[str, PlayerRecord],
        order: Sequence[str],
    ) -> None:
        plan = bracket_plan(len(order), tournament.table_size, tournament.advance)
        decisions = first_round(plan, order)
        # Players first, tables second: a player can act, and so be moved on or out by
        # the progression, only once their table exists. Their items are therefore
        # final before anyone else writes them, and a resumed start rewrites only those
        # not yet written, never one the progression has touched.
        placed: list[PlayerRecord] = []
        position = {player_id: index for index, player_id in enumerate(order)}
        for decision in decisions:
            seated = decision.players if isinstance(decision, SeatTable) else (decision.player,)
            for player_id in seated:
                player = players[player_id]
                if player.seed_position == position[player_id] and player.table_round >= 1:
                    continue  # written by the interrupted start
                player.seed_position = position[player_id]
                player.table, player.table_round = str(decision.table), 1
                placed.append(player)
        self._repository.put_players(placed)
        stored = self._repository.existing_tables(tournament.id, [str(d.table) for d in decisions])
        now = self._clock()  # the first deadlines run from the seating
        self._repository.put_new_tables(
            seated_at(self._round_one_table(tournament, players, decision), now)
            for decision in decisions
            if str(decision.table) not in stored
        )

    @staticmethod
    def _round_one_table(
        tournament: TournamentRecord,
        players: dict[str, PlayerRecord],
        decision: SeatTable | ByeGiven,
    ) -> TableRecord:
        if isinstance(decision, ByeGiven):  # only with table_size 2 and an odd count
            return bye_table(
                tournament.id,
                str(decision.table),
                decision.player,
                tournament.expires_at,
                tournament.game,
            )
        return TableRecord(
            tournament=tournament.id,
            ref=str(decision.table),
            seating=Seating(
                tournament.game, decision.players, tournament.options, decision.survivors
            ),
            token_hashes=tuple(players[p].token_hash for p in decision.players),
            expires_at=tournament.expires_at,
            final=decision.final,
        )

    def _authorize_organizer(self, tournament: TournamentRecord, token: str) -> None:
        if token_matches(token, tournament.organizer_hash):
            return
        if token_owner(token) not in ("", ORGANIZER):
            player = self._repository.get_player(tournament.id, token_owner(token))
            if player is not None and token_matches(token, player.token_hash):
                raise Forbidden("only the organizer may do this", rule="organizer token")
        raise Unauthorized("the organizer token does not match", rule="Authorization")

    def _authenticate_player(self, tournament: TournamentRecord, token: str) -> PlayerRecord:
        player_id = token_owner(token)
        player = self._repository.get_player(tournament.id, player_id) if player_id else None
        if player is None or not token_matches(token, player.token_hash):
            raise Unauthorized("the player token does not match", rule="Authorization")
        return player


def order_digest(order: Sequence[str]) -> str:
    """What is recorded of an organizer's order: SHA-256 of the ids, one per line."""
    return hashlib.sha256("\n".join(order).encode()).hexdigest()


def _check_order(order: Sequence[str], players: Mapping[str, PlayerRecord]) -> None:
    """The order must name every registered player exactly once."""
    organizer_order(order)  # no one twice
    unknown = [p for p in order if p not in players]
    missing = [p for p in players if p not in set(order)]
    if unknown or missing:
        raise InvalidBracket(
            "the order must name every registered player once; "
            f"not registered: {', '.join(unknown[:5]) or 'none'}; "
            f"missing: {', '.join(missing[:5]) or 'none'}",
            rule=SEEDING_RULE,
        )


def _check_resumed_like_begun(
    tournament: TournamentRecord, seed: str | None, order: Sequence[str] | None
) -> None:
    """A start that was interrupted resumes only as it was begun."""
    if tournament.seeding == "order":
        if order is None or order_digest(order) != tournament.seed:
            raise WrongStatus(
                "this start began with an organizer's order: repeat it with the same order",
                rule=SEEDING_RULE,
            )
    elif order is not None or (seed is not None and seed != tournament.seed):
        raise WrongStatus(
            "this start began with another seed: repeat it without seed or order",
            rule=SEEDING_RULE,
        )


@lru_cache(maxsize=64)
def bracket_plan(player_count: int, table_size: int, advance: int) -> BracketPlan:
    """Plans are immutable and a million-player one takes about 0.2 s to build: every read
    of a running tournament and every page of its rounds would otherwise rebuild it."""
    return BracketPlan.build(player_count, table_size, advance)
