"""The organizer's cockpit: live status and standings, disqualification, cancellation,
the token's rotation, and the audit trail every organizer action lands in.

Disqualification (docs/api.md, "Organizer"): before the start the player is removed
(their item, their name and their count on the registration shard go, in one
transaction); once seated they forfeit through the turn path (`TurnService.disqualify`:
a `Forfeit` move, saved with the same version check as a timeout) at once if they are
to act, else the moment the turn reaches them; a player waiting for their next table
is marked, and that table is seated with them disqualified.

Cancellation flips the status (closing registration) first, then stops every table in
play; the progression stops a table it seats after the flip itself, so no table plays on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from core.bracket import TableRef
from core.names import name_key
from infra.errors import NotFound, StaleVersion, Unauthorized, WrongStatus
from infra.jobs import cancel as cancel_job
from infra.services.tournaments import ORGANIZER, TournamentService
from infra.services.turns import TurnService
from infra.store.audit import Audited, AuditEntry, AuditStore
from infra.store.game_tables import GameTableStore
from infra.store.organizer_store import OrganizerStore
from infra.store.players import PlayerStore
from infra.store.registration import name_claim_key
from infra.store.tournament_items import PlayerRecord, Status, TournamentRecord
from infra.tokens import hash_token, new_token, plausible_id, shown

BEFORE_START = (Status.DRAFT, Status.OPEN, Status.CLOSED)
CANCELLABLE = (*BEFORE_START, Status.RUNNING)
STALLED_AFTER_SECONDS = 60  # past its deadline by more than the sweeper's grace
STATUS_TABLE_BUDGET = 3000  # tables the live status reads at most (30 BatchGetItem)
SHOWN_STALLED = 50
_TABLE_RETRIES = 5
Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class LiveStanding:
    """A player whose tournament has ended, with the places that are theirs for sure:
    `place` once their round's exits are all known, else the range they will fall in."""

    player: str
    name: str
    round: int
    table: str
    table_place: int
    measure: int
    place: int | None
    place_from: int
    place_to: int
    disqualified: bool
    forfeited: bool = False  # did not play their last table to its end


class LiveStandingsPage(NamedTuple):
    """A page of the live standings: the tournament's status, the rows, how many players
    are placed so far, and the next page's offset (None: the last page)."""

    status: str
    rows: list[LiveStanding]
    placed: int
    next_offset: int | None


class OrganizerService:
    """What the organizer's token may do beyond creating, registration and the start."""

    def __init__(
        self,
        *,
        store: OrganizerStore,
        players: PlayerStore,
        tables: GameTableStore,
        tournaments: TournamentService,
        turns: TurnService,
        clock: Clock,
        audit: AuditStore,
    ) -> None:
        self._store = store
        self._players = players
        self._tables = tables
        self._audit = audit
        self._tournaments = tournaments
        self._turns = turns
        self._clock = clock

    # --- what the tournament service changes, audited in the same write ----------------

    def create(self, **settings: Any) -> tuple[TournamentRecord, str]:
        """A new tournament (`TournamentService.create`), its "create" entry with it."""
        return self._tournaments.create(**settings, audit=self._audit_of("create"))

    def set_registration(self, tournament: str, token: str, *, open: bool) -> TournamentRecord:
        """Open or close registration, the entry with the change."""
        action = "open_registration" if open else "close_registration"
        return self._tournaments.set_registration(
            tournament, token, open=open, audit=self._audit_of(action)
        )

    def start(
        self,
        tournament: str,
        token: str,
        *,
        seed: str | None = None,
        order: Sequence[str] | None = None,
    ) -> TournamentRecord:
        """Begin the start, the entry with the change; asked again while starting (nothing
        changes), the entry on its own."""
        made: list[Audited] = []
        audit = self._audit_of("start")

        def kept(tournament: TournamentRecord, detail: dict[str, Any]) -> Audited:
            made.append(audit(tournament, detail))
            return made[-1]

        started = self._tournaments.start(tournament, token, seed=seed, order=order, audit=kept)
        if not made:
            self.record(started, "start", seeding=started.seeding)
        return started

    def _audit_of(self, action: str) -> Callable[[TournamentRecord, dict[str, Any]], Audited]:
        def audit(tournament: TournamentRecord, detail: dict[str, Any]) -> Audited:
            return Audited(self._entry(tournament, action, detail), tournament.expires_at)

        return audit

    # --- the audit trail -----------------------------------------------------------------

    def record(self, tournament: TournamentRecord, action: str, **detail: Any) -> None:
        """Add an organizer action that another service just did to the trail."""
        self._audit.append_audit(
            tournament.id, self._entry(tournament, action, detail), tournament.expires_at
        )

    def audit_trail(
        self, tournament: str, token: str, after: str | None, limit: int
    ) -> tuple[list[AuditEntry], str | None]:
        """A page of the trail, oldest first, and the cursor of the next page."""
        self._tournaments.authorize(tournament, token)
        return self._audit.audit_page(tournament, after, limit)

    def recent_tournaments(
        self, before: str | None, limit: int
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of the public list of tournaments, newest first, and the next cursor."""
        return self._store.recent_tournaments(before, limit, self._clock())

    # --- the token ---------------------------------------------------------------------

    def rotate_token(self, tournament: str, token: str) -> tuple[TournamentRecord, str]:
        """A new organizer token (shown only now); the old one stops working with the
        same conditional write."""
        found = self._tournaments.authorize(tournament, token)
        fresh = new_token(ORGANIZER)
        generation = found.organizer_generation + 1
        entry = self._entry(found, "rotate_token", {"new_generation": generation})
        rotated = self._store.rotate_organizer(
            found.id,
            old_hash=found.organizer_hash,
            new_hash=hash_token(fresh),
            generation=generation,
            entry=entry,
            expires_at=found.expires_at,
        )
        if not rotated:
            raise Unauthorized(
                "the organizer token was rotated meanwhile: it no longer matches",
                rule="Authorization",
            )
        found.organizer_hash, found.organizer_generation = hash_token(fresh), generation
        return found, fresh

    # --- cancellation -------------------------------------------------------------------

    def cancel(self, tournament: str, token: str) -> TournamentRecord:
        """Cancel the tournament: registration closes and nothing more is seated at once;
        the cancel job it begins stops the tables in play (`infra.jobs.cancel`). Not while
        starting (wait for `running`) or once over."""
        found = self._tournaments.authorize(tournament, token)
        if found.status not in CANCELLABLE:
            raise WrongStatus(
                f"a tournament {found.status} cannot be cancelled"
                + (": wait until it is running" if found.status == Status.STARTING else ""),
                rule="cancel",
            )
        entry = self._entry(found, "cancel", {"was": found.status})
        job = cancel_job.begin()
        self._store.cancel_tournament(found.id, CANCELLABLE, entry, found.expires_at, job)
        found.status, found.job = Status.CANCELLED, job
        return found

    # --- disqualification -------------------------------------------------------------

    def disqualify(
        self, tournament: str, token: str, player_id: str, *, reason: str = ""
    ) -> dict[str, Any]:
        """Remove (before the start) or disqualify (while running) a player; `reason`
        goes into the audit trail."""
        found = self._tournaments.authorize(tournament, token)
        player = self._players.get_player(found.id, player_id) if plausible_id(player_id) else None
        if player is None:
            raise NotFound(f"tournament {found.id} has no player {shown(player_id)}", rule="player")
        if found.status in BEFORE_START:
            return self._remove(found, player, reason)
        if found.status != Status.RUNNING:
            raise WrongStatus(
                f"the tournament is {found.status}: players can be disqualified while it runs",
                rule="disqualify",
            )
        if player.exit is not None:
            raise WrongStatus(
                f"player {player.id} is out of the tournament already", rule="disqualify"
            )
        if not self._store.mark_player_disqualified(found.id, player.id):
            raise WrongStatus(
                f"player {player.id} is out of the tournament already", rule="disqualify"
            )
        current = self._players.get_player(found.id, player.id) or player  # their latest table
        at_table = self._forfeit_at_table(found.id, current)
        if at_table == "already" or (at_table == "between tables" and player.disqualified):
            raise WrongStatus(f"player {player.id} is disqualified already", rule="disqualify")
        answer = {
            "player": player.id,
            "name": player.name,
            "outcome": "forfeited" if at_table == "forfeited" else "disqualified",
            "table": current.table or None,
        }
        self.record(found, "disqualify", **answer, reason=reason)
        return answer

    def _remove(
        self, tournament: TournamentRecord, player: PlayerRecord, reason: str
    ) -> dict[str, Any]:
        if player.registration_shard < 0:
            raise WrongStatus(
                f"player {player.id} registered before removals were possible: start the"
                " tournament and disqualify them",
                rule="disqualify",
            )
        answer = {"player": player.id, "name": player.name, "outcome": "removed", "table": None}
        claim = name_claim_key(tournament.id, name_key(player.name))
        entry = self._entry(tournament, "disqualify", {**answer, "reason": reason})
        self._store.remove_player(player, claim, BEFORE_START, entry)
        return answer

    def _forfeit_at_table(self, tournament: str, player: PlayerRecord) -> str:
        """Disqualify `player` at the table they sit at: "forfeited" (they were to act and
        are out now), "marked" (they forfeit when the turn reaches them), "already"
        (marked before), or "between tables" (their table is over: the next one is
        seated with them disqualified, from their player item)."""
        for _ in range(_TABLE_RETRIES):
            table = self._tables.get_table(tournament, player.table) if player.table else None
            if table is None or table.over or table.bye or table.cancelled:
                return "between tables"
            if player.id not in table.seating.seats:
                return "between tables"
            if player.id in table.disqualified:
                return "already"
            try:
                played = self._turns.disqualify(table, player.id)
            except StaleVersion:
                continue  # someone acted meanwhile: read the table again
            return "forfeited" if played.version > table.version else "marked"
        raise StaleVersion(
            f"table {player.table} kept moving; disqualify again", current_version=-1
        )

    # --- live status and standings ------------------------------------------------------

    def status(self, tournament: str, token: str) -> dict[str, Any]:
        """Per round, its tables playing, waiting (not yet seated), over and cancelled;
        and the tables past their deadline by more than a minute (stalled)."""
        found = self._tournaments.authorize(tournament, token)
        plan = self._tournaments.plan(found)
        now = int(self._clock())
        rounds: list[dict[str, Any]] = []
        stalled: list[dict[str, Any]] = []
        stalled_count = 0
        budget = STATUS_TABLE_BUDGET
        for number in range(1, (plan.rounds if plan else 0) + 1):
            assert plan is not None
            count = plan.tables_in(number)
            refs = [str(TableRef(number, i)) for i in range(min(count, budget))]
            budget -= len(refs)
            states = self._tables.table_states(found.id, refs) if refs else []
            by_status = Counter(s.status for s in states)
            for s in states:
                overdue = now - s.deadline
                if s.status == "playing" and s.deadline and overdue > STALLED_AFTER_SECONDS:
                    stalled_count += 1
                    if len(stalled) < SHOWN_STALLED:
                        stalled.append(
                            {"table": s.ref, "version": s.version, "overdue_seconds": overdue}
                        )
            rounds.append(
                {
                    "round": number,
                    "tables": count,
                    "counted": len(refs),
                    "playing": by_status["playing"],
                    "waiting": len(refs) - len(states),
                    "over": by_status["over"] + by_status["bye"],
                    "cancelled": by_status["cancelled"],
                    "final": number == plan.rounds,
                }
            )
        return {
            "tournament_id": found.id,
            "name": found.name,
            "status": found.status,
            "player_count": found.player_count,
            "token_generation": found.organizer_generation,
            "rounds": rounds,
            "stalled_count": stalled_count,
            "stalled": stalled,
            "complete": budget >= 0 and all(r["counted"] == r["tables"] for r in rounds),
        }

    def live_standings(
        self, tournament: str, token: str, offset: int, limit: int
    ) -> LiveStandingsPage:
        """The places already decided, best first (docs/rules.md §5.9): a player out
        in round r places below everyone who reached round r + 1 and above everyone out
        earlier; their exact place is known once all of round r's exits are."""
        found = self._tournaments.authorize(tournament, token)
        plan = self._tournaments.plan(found)
        if plan is None:
            return LiveStandingsPage(found.status, [], 0, None)
        # entering[r - 1]: players who play round r (byes included); 0 after the final
        entering = [sum(plan.table_sizes(r)) for r in range(1, plan.rounds + 1)] + [0]
        out_in: dict[int, list[PlayerRecord]] = {}
        for player in self._players.players(found.id):
            if player.exit is not None:
                out_in.setdefault(player.exit.round, []).append(player)
        rows: list[LiveStanding] = []
        for number in sorted(out_in, reverse=True):
            first, last = entering[number] + 1, entering[number - 1]
            group = sorted(out_in[number], key=_standing_order)
            decided = len(group) == last - first + 1
            for index, p in enumerate(group):
                assert p.exit is not None
                rows.append(
                    LiveStanding(
                        player=p.id,
                        name=p.name,
                        round=number,
                        table=p.exit.table,
                        table_place=p.exit.table_place,
                        measure=p.exit.measure,
                        place=first + index if decided else None,
                        place_from=first,
                        place_to=last,
                        disqualified=p.disqualified,
                        forfeited=p.exit.forfeited,
                    )
                )
        following = offset + limit if offset + limit < len(rows) else None
        return LiveStandingsPage(found.status, rows[offset : offset + limit], len(rows), following)

    # --- helpers -----------------------------------------------------------------------

    def _entry(
        self, tournament: TournamentRecord, action: str, detail: dict[str, Any]
    ) -> AuditEntry:
        return AuditEntry.of(tournament, action, detail, self._clock())


def _standing_order(player: PlayerRecord) -> tuple[int, bool, int, int]:
    """Within a round's exits: place at the table, played it to the end before forfeited
    (docs/rules.md §5.9), the game's measure, the seeding."""
    assert player.exit is not None
    exit = player.exit
    return (exit.table_place, exit.forfeited, exit.measure, player.seed_position)
