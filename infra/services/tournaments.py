"""Organizer and player use cases: create, open and close registration, register, start.

Starting closes registration and records how the players are ordered — by a seed (the
organizer's, or a secret drawn at that moment) or in the organizer's order — in one
transaction (published, so anyone can check the seating); the start job
(`infra.jobs.start`) then seats round 1 page by page and makes the tournament `running`.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.bracket import (
    CURRENT_RULE,
    BracketPlan,
    InvalidBracket,
    Standing,
    TableRef,
    organizer_order,
)
from core.fair_dice import check_player_seed
from core.names import display_name
from core.options import options_dict
from core.registry import get_game
from infra.bounded import Bounded
from infra.errors import Forbidden, NotFound, RegistrationChanged, Unauthorized, WrongStatus
from infra.jobs import start as start_job
from infra.services.join_codes import check_join_code, join_code_hash
from infra.store.audit import Audited
from infra.store.capacity import QUEUED, CapacityStore
from infra.store.game_tables import GameTableStore
from infra.store.job_store import JobStore, chunked
from infra.store.plans import plan_of
from infra.store.player_seeds import replace_player_seed
from infra.store.players import PlayerStore
from infra.store.progress_store import ProgressStore
from infra.store.table_item import TableRecord
from infra.store.tournament_items import PlayerRecord, Status, TournamentRecord
from infra.store.tournaments import TournamentStore
from infra.tokens import (
    hash_token,
    new_id,
    new_token,
    plausible_id,
    shown,
    token_matches,
    token_owner,
)

ORGANIZER = "organizer"
JOIN_CODES_KEPT = 10_000
# tables a container knows will never wait for a slot again (`_queue_place`), the least
# recently asked dropped first: some 100 bytes each
NOT_WAITING_KEPT = 50_000
SEEDING_RULE = "rules §5.2 seeding"
Clock = Callable[[], float]
# the organizer's audit entry for a change to a tournament, with its detail (`OrganizerService`)
Audit = Callable[[TournamentRecord, dict[str, Any]], Audited]


class TournamentService:
    """Everything about a tournament except playing its tables."""

    def __init__(
        self,
        *,
        tournaments: TournamentStore,
        players: PlayerStore,
        tables: GameTableStore,
        progress: ProgressStore,
        jobs: JobStore,
        clock: Clock,
        retention_seconds: int,
        tournament_ids: Callable[[str], str] = new_id,
        capacity: CapacityStore | None = None,
    ) -> None:
        # paced: a player's table may wait for a slot (infra.store.capacity)
        self._capacity = capacity if capacity is not None and capacity.paced else None
        self._tournaments = tournaments
        self._players = players
        self._tables = tables
        self._progress = progress
        self._jobs = jobs
        self._clock = clock
        self._retention = retention_seconds
        self._tournament_ids = tournament_ids  # `new_id`; a seeded sequence in test stacks
        self._join_codes: Bounded[str, str] = Bounded(JOIN_CODES_KEPT)  # tournament → hash
        self._not_waiting: Bounded[tuple[str, str], bool] = Bounded(NOT_WAITING_KEPT)

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
        join_code: str | None = None,
        language: str | None = None,
        audit: Audit | None = None,
    ) -> tuple[TournamentRecord, str]:
        """A new tournament in `draft` and its organizer token (shown only now); with a
        `join_code`, registering needs it (stored only as a hash); `language` ("de",
        "en"): the pages' language the organizer chose, none: each browser's own."""
        rules = get_game(game)
        raw = dict(options)
        if turn_timeout_seconds is not None:
            raw["turn_timeout_seconds"] = turn_timeout_seconds
        parsed = options_dict(rules.parse_options(raw))
        if table_size < rules.min_players:
            raise InvalidBracket(
                f"table_size must be at least {rules.min_players} for {game}",
                rule="rules §5.1 table_size",
            )
        BracketPlan.build(table_size, table_size, advance)  # checks table_size and advance
        now = int(self._clock())
        token = new_token(ORGANIZER)
        tournament = TournamentRecord(
            id=self._tournament_ids("t"),
            name=name,
            game=rules.name,
            options=parsed,
            table_size=table_size,
            advance=advance,
            player_limit=player_limit,
            organizer_hash=hash_token(token),
            created_at=now,
            expires_at=now + self._retention,
            join_code_hash=join_code_hash(join_code) if join_code else "",
            language=language or "",
            bracket_rule=CURRENT_RULE,  # kept for good: a later rule never changes its plan
        )
        detail = {"name": tournament.name, "game": tournament.game}
        entry = None if audit is None else audit(tournament, detail).entry
        self._tournaments.create_tournament(tournament, entry)
        return tournament, token

    def get(self, tournament: str) -> TournamentRecord:
        """The tournament, or `NotFound`; until the start job has counted them, the
        players are counted from the registration shards."""
        found = self._read(tournament)
        if found.status in (Status.DRAFT, Status.OPEN, Status.CLOSED) or (
            found.job is not None and found.job.name == "start" and found.job.phase == "roster"
        ):
            found.player_count = sum(self._tournaments.registration_counts(tournament))
        return found

    def _read(self, tournament: str) -> TournamentRecord:
        """The tournament item as stored, or `NotFound`: for callers that need no player
        count, so that a player polling `/me` before the start reads no shard."""
        found = self._tournaments.get_tournament(tournament) if plausible_id(tournament) else None
        if found is None:
            raise NotFound(f"no tournament {shown(tournament)}", rule="tournament")
        return found

    def set_registration(
        self, tournament: str, token: str, *, open: bool, audit: Audit | None = None
    ) -> TournamentRecord:
        """Open or close registration (organizer only), the organizer's `audit` entry in
        the same write."""
        found = self._read(tournament)
        self._authorize_organizer(found, token)
        if open:
            self._tournaments.change_status(
                tournament,
                [Status.DRAFT, Status.CLOSED],
                Status.OPEN,
                registration=True,
                audit=audit and audit(found, {}),
            )
        else:
            self._tournaments.change_status(
                tournament,
                [Status.OPEN],
                Status.CLOSED,
                registration=False,
                audit=audit and audit(found, {}),
            )
        return self.get(tournament)

    def register(
        self,
        tournament: str,
        name: str,
        seed: str | None = None,
        join_code: str | None = None,
    ) -> tuple[PlayerRecord, str]:
        """A new player and their token (shown only now, stored as a hash). `name` is
        stored as `core.names.display_name` makes it, and must be free (`NameTaken`);
        `seed` is their seed for the dice (docs/dice.md), none: the default; `join_code`
        must be the tournament's where it has one (`JoinCodeRequired`, `WrongJoinCode`)."""
        name = display_name(name)
        seed = "" if seed is None else check_player_seed(seed)
        check_join_code(self._join_code_hash(tournament), join_code)
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
            player_seed=seed,
        )
        self._players.add_player(player)
        return player, token

    def _join_code_hash(self, tournament: str) -> str:
        """The tournament's join code hash ("" for none); a join code never changes, so
        each container reads it once per tournament, not once per registration."""
        known = self._join_codes.get(tournament)
        if known is None:
            found = (
                self._tournaments.get_tournament(tournament) if plausible_id(tournament) else None
            )
            if found is None:
                return ""  # registering then fails as for any unknown tournament
            known = found.join_code_hash
            self._join_codes.keep(tournament, known)
        return known

    def replace_seed(self, tournament: str, token: str, seed: str) -> dict[str, Any]:
        """Replace the token holder's seed for the dice (docs/dice.md): for every table
        seated from now on, and their current table while nobody has acted there."""
        seed = check_player_seed(seed)
        found = self._read(tournament)
        player = self._authenticate_player(found, token)
        if found.status == Status.FINISHED:
            raise WrongStatus("the tournament is finished", rule="player seed")
        table = replace_player_seed(self._players, self._tables, player, seed)
        return {"tournament": tournament, "player": player.id, "seed": seed, "table": table}

    def start(
        self,
        tournament: str,
        token: str,
        *,
        seed: str | None = None,
        order: Sequence[str] | None = None,
        audit: Audit | None = None,
    ) -> TournamentRecord:
        """Close registration and begin seating round 1 (organizer only): the start job
        (`infra.jobs.start`) does the seating and makes the tournament `running`.

        The players are shuffled by `seed` (a fresh secret when None) or, with `order`,
        seated in the organizer's order (docs/rules.md §5.2). Either is recorded and published.
        Asked again while starting, with the same seeding, it answers as the first time.
        The organizer's `audit` entry is written with the change (asked again, there is
        none to write it with: `audit` is not called).
        """
        if seed is not None and order is not None:
            raise InvalidBracket("give a seed or an order, not both", rule=SEEDING_RULE)
        found = self.get(tournament)
        self._authorize_organizer(found, token)
        if found.status == Status.STARTING:
            _check_resumed_like_begun(found, seed, order)
            return found
        if found.status not in (Status.OPEN, Status.CLOSED):
            raise WrongStatus(f"the tournament is already {found.status}", rule="start")
        counts = self._tournaments.registration_counts(tournament)
        _check_enough(sum(counts))
        allowed = [Status.OPEN, Status.CLOSED]
        if order is None:
            # registration closes with the status; the start job counts the shards after
            # that, when no registration can count any more
            self._tournaments.change_status(
                tournament,
                allowed,
                Status.STARTING,
                seeding=("seed", seed or secrets.token_hex(16)),
                registration=False,
                job=start_job.begin("seed"),
                audit=audit and audit(found, {"seeding": "seed"}),
            )
            return self.get(tournament)
        registered = self._registered_ids(tournament)
        if len(registered) != sum(counts):
            raise RegistrationChanged(
                "a player registered while the start was being prepared; start again",
                rule="registration",
            )
        _check_order(order, registered)
        self._jobs.put_id_chunks(
            tournament, start_job.ORDER, 0, list(chunked(order)), found.expires_at
        )
        # the order names every player counted: the close fails if anyone registered since
        self._tournaments.change_status(
            tournament,
            allowed,
            Status.STARTING,
            seeding=("order", order_digest(order)),
            registration=False,
            expected_counts=counts,
            player_count=len(order),
            job=start_job.begin("order"),
            audit=audit and audit(found, {"seeding": "order"}),
        )
        return self.get(tournament)

    def whereabouts(self, tournament: str, token: str) -> dict[str, Any]:
        """Where the token's player plays now: their table, or that they wait."""
        found = self._read(tournament)
        player = self._authenticate_player(found, token)
        finished = found.status == Status.FINISHED
        # while starting, a player's table may be pointed at before it is written
        table = None if found.status == Status.STARTING else player.table or None
        return {
            "tournament": tournament,
            "player": player.id,
            "name": player.name,
            "tournament_status": found.status,
            "table": table,
            "eliminated": player.exit is not None and player.exit.eliminated,
            "place": (
                self._progress.place_of(tournament, player.seed_position) if finished else None
            ),
            "queue": self._queue_place(tournament, table) if table and not finished else None,
        }

    def _queue_place(self, tournament: str, ref: str) -> dict[str, int] | None:
        """Where the player's table stands in the queue, if it waits for a slot: only on a
        paced deployment, one read (two while it waits) the first time a container is
        asked about the table, and none once the table is known not to wait.

        A table `/me` names is seated or queued already (round 1's are hidden until the
        start has seated them all; a later round's players are moved after their table
        is seated), and a table in play never waits again: without a queued twin it was
        seated directly, and a twin once started or cancelled stays so."""
        if self._capacity is None:
            return None
        known = (tournament, ref)
        if self._not_waiting.get(known):
            return None
        waiting = self._capacity.queued_table(tournament, ref)
        placed = None if waiting is None else self._capacity.placed(waiting, self._clock())
        if placed is None or placed.status != QUEUED:
            self._not_waiting.keep(known, True)
            return None
        if not placed.place:
            return None
        return {"place": placed.place, "expected_start": placed.expected_start}

    def standings(
        self, tournament: str, offset: int, limit: int
    ) -> tuple[list[Standing], int | None]:
        """A page of the final standings and the offset of the next page."""
        found = self._read(tournament)
        if found.status != Status.FINISHED:
            raise WrongStatus(
                f"the standings are known once the final is over; the tournament is {found.status}",
                rule="rules §5.9 standings",
            )
        rows = self._progress.standings_page(tournament, offset, limit)
        following = offset + limit if offset + limit < found.player_count else None
        return rows, following

    def plan(self, tournament: TournamentRecord) -> BracketPlan | None:
        """The bracket once the players are known (from the start on), else None."""
        if tournament.status in (Status.DRAFT, Status.OPEN, Status.CLOSED):
            return None
        if tournament.status == Status.CANCELLED and not tournament.seed:
            return None  # cancelled before its start: never seeded
        return plan_of(tournament)

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
        return self._tables.get_tables(tournament, refs), following

    def authorize(self, tournament: str, token: str) -> TournamentRecord:
        """The tournament, if `token` is its organizer's; else `Unauthorized` (or
        `Forbidden` for one of its players), `NotFound` for an unknown id."""
        found = self.get(tournament)
        self._authorize_organizer(found, token)
        return found

    # --- helpers ---------------------------------------------------------------------

    def _authorize_organizer(self, tournament: TournamentRecord, token: str) -> None:
        if token_matches(token, tournament.organizer_hash):
            return
        if token_owner(token) not in ("", ORGANIZER):
            player = self._players.get_player(tournament.id, token_owner(token))
            if player is not None and token_matches(token, player.token_hash):
                raise Forbidden("only the organizer may do this", rule="organizer token")
        raise Unauthorized("the organizer token does not match", rule="Authorization")

    def _registered_ids(self, tournament: str) -> list[str]:
        ids: list[str] = []
        after: dict[str, Any] | None = None
        while True:
            page, after = self._players.player_ids(tournament, after, start_job.ROSTER_PAGE)
            ids.extend(page)
            if after is None:
                return ids

    def _authenticate_player(self, tournament: TournamentRecord, token: str) -> PlayerRecord:
        player_id = token_owner(token)
        player = self._players.get_player(tournament.id, player_id) if player_id else None
        if player is None or not token_matches(token, player.token_hash):
            raise Unauthorized("the player token does not match", rule="Authorization")
        return player


def order_digest(order: Sequence[str]) -> str:
    """What is recorded of an organizer's order: SHA-256 of the ids, one per line."""
    return hashlib.sha256("\n".join(order).encode()).hexdigest()


def _check_enough(players: int) -> None:
    if players < 2:
        raise WrongStatus(
            f"a tournament needs at least 2 players, {players} registered",
            rule="rules §5.1 players",
        )


def _check_order(order: Sequence[str], players: Sequence[str]) -> None:
    """The order must name every registered player exactly once."""
    organizer_order(order)  # no one twice
    registered = set(players)
    unknown = [p for p in order if p not in registered]
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
