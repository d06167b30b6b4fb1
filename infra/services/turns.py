"""Playing a table over the API: authenticate the seat, apply one action, save it.

A submitted action costs one strongly consistent read and one conditional write, and
nothing else on the way back to the player: the table item is its own audit log (see
`infra.store.table_item`). Retries are recognised from the item itself: by the player's last
`Idempotency-Key`, or, without a key, by the move already stored at that version.
"""

from __future__ import annotations

import base64
import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from core import fair_dice
from core.actions import Action, Forfeit, Timeout, action_from_dict
from core.audit import event_record, log_records, records_after
from core.checks import check_turn
from core.errors import MatchOver, NotYourTurn
from core.events import Event, PlayerId
from core.match import (
    Move,
    actor,
    forfeit_disqualified,
    replay,
    replay_log,
    replay_step,
    same_turn,
    turns,
)
from core.protocol import Game
from core.registry import get_game
from infra.bounded import Bounded
from infra.dice import DiceSource
from infra.errors import (
    Forbidden,
    IdempotencyKeyReused,
    NotFound,
    StaleVersion,
    TableQueued,
    TurnConflict,
    Unauthorized,
    WrongStatus,
)
from infra.store.capacity import CapacityStore, QueuedTable
from infra.store.deadlines import deadline_after
from infra.store.game_tables import GameTableStore
from infra.store.players import PlayerStore
from infra.store.table_item import TableRecord
from infra.tokens import plausible_id, shown, token_matches, token_owner

_CACHED_STATES = 2048


def idempotency_key_hash(key: str) -> str:
    """A short, fixed-size stand-in for a client's key (up to 255 characters)."""
    return base64.urlsafe_b64encode(hashlib.sha256(key.encode()).digest()[:12]).decode()


class TurnService:
    """Table reads and actions for players and spectators."""

    def __init__(
        self,
        tables: GameTableStore,
        players: PlayerStore,
        dice: DiceSource,
        clock: Callable[[], float] = time.time,
        *,
        capacity: CapacityStore | None = None,
    ) -> None:
        self._tables = tables
        # paced: a table not yet in play may wait in the queue (infra.store.capacity)
        self._capacity = capacity if capacity is not None and capacity.paced else None
        self._players = players
        self._dice = dice
        self._clock = clock  # each turn's deadline runs from the write that began it
        # (tournament, table, version) -> state: a warm function skips the replay
        self._states: Bounded[tuple[str, str, int], Any] = Bounded(_CACHED_STATES)

    def submit(
        self,
        tournament: str,
        ref: str,
        token: str,
        *,
        version: int,
        action_data: Mapping[str, object],
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """Apply the token holder's action taken on `version`; the response is their view."""
        table = self._load(tournament, ref)
        seat = self._authenticate(table, token)
        _check_not_cancelled(table)
        action = action_from_dict(action_data)
        key = idempotency_key_hash(idempotency_key) if idempotency_key else None
        repeated = _repeated_version(table, seat, version, action, key)
        if repeated is not None:
            return self._response_at(table, seat, repeated)
        if version != table.version:
            raise StaleVersion(
                f"the action was taken on version {version}, the table is at {table.version}",
                current_version=table.version,
            )
        game = get_game(table.seating.game)
        state = self._state(table)
        player = table.seating.seats[seat]
        try:  # checked before any dice are drawn
            check_turn(table.seating.game, game.to_act(state), player, table=ref)
        except (MatchOver, NotYourTurn) as cause:
            raise TurnConflict(cause, current_version=table.version) from None
        last_keys = {**table.last_keys, seat: (key, version + 1)} if key else table.last_keys
        try:
            played, state, events = self._play(
                table, game=game, state=state, player=player, action=action, last_keys=last_keys
            )
        except StaleVersion:
            return self._after_lost_race(table, seat, version, action, key)
        return _answer(played, game, state, events, player)

    def time_out(self, tournament: str, ref: str, version: int, player: str | None = None) -> bool:
        """Apply docs/rules.md §4 to whoever is to act, if the turn that began at `version`
        (`player`'s, when named) is still in play.

        A turn's deadline is scheduled for the turn, named by the version it began at: a
        throw and the announcement that follows are one turn with one deadline. A firing
        that comes late (the turn ended) or twice (the timeout was applied, which always
        ends the turn) finds another turn and does nothing. Returns whether a timeout
        was applied.
        """
        table = self._tables.get_table(tournament, ref)
        if table is None or table.over or table.version < version:
            return False
        played = turns(table.seating, table.moves)
        if played.starts[-1] != version or player not in (None, played.to_act):
            return False
        return self.apply_timeout(table)

    def apply_timeout(self, table: TableRecord, *, move_due: bool = False) -> bool:
        """docs/rules.md §4 for whoever is to act at `table` as it was just read; saved only if
        the table is still at that version. Returns whether a timeout was applied.

        The one way a timeout is played, for a schedule's firing and the sweeper alike.
        `move_due` (the sweeper) also moves the table's `due_at` in the deadline index to
        the new deadline, in the same write, so that its next run need not visit it.
        """
        if table.bye or table.over or table.cancelled:
            return False
        game = get_game(table.seating.game)
        state = self._state(table)
        player = game.to_act(state)
        if player is None:
            return False
        try:
            self._play(
                table,
                game=game,
                state=state,
                player=player,
                # a disqualified player to act forfeits (only on a table seated before
                # the progression played their forfeit at the seating)
                action=Forfeit() if player in table.disqualified else Timeout(),
                last_keys=table.last_keys,
                move_due=move_due,
            )
        except StaleVersion:
            return False  # the player acted in the meantime
        return True

    def disqualify(self, table: TableRecord, player: PlayerId) -> TableRecord:
        """Mark `player` disqualified at `table` as it was just read, and if they are to
        act, forfeit for them at once (the same conditional write as a turn, `Forfeit`
        in place of `Timeout`); otherwise they forfeit the moment the turn reaches them.
        `StaleVersion` if the table moved meanwhile (read it again and retry)."""
        marked = replace(table, disqualified=(*table.disqualified, player))
        game = get_game(table.seating.game)
        state = self._state(table)
        if game.to_act(state) != player:
            self._tables.mark_disqualified(marked, table)
            return marked
        played, _, _ = self._play(
            marked, game=game, state=state, player=player, action=Forfeit(),
            last_keys=table.last_keys, condition_from=table,
        )  # fmt: skip
        return played

    def player_view(self, tournament: str, ref: str, token: str) -> dict[str, Any]:
        """The table as the token holder may see it."""
        table, queue = self._load_or_queued(tournament, ref)
        seat = self._authenticate(table, token)
        game = get_game(table.seating.game)
        return {
            **_envelope(table),
            **_standing(table, queue),
            "view": game.view(self._state(table), table.seating.seats[seat]),
        }

    def spectator_view(self, tournament: str, ref: str) -> dict[str, Any]:
        """The table as anyone may see it: no hidden throw at all."""
        table, queue = self._load_or_queued(tournament, ref)
        game = get_game(table.seating.game)
        state = self._state(table)
        view = game.view(state, None)
        return {**_envelope(table), **_standing(table, queue), "view": view}

    def public_view(self, table: TableRecord) -> dict[str, Any]:
        """The spectator's view of a table already read (no hidden throw at all)."""
        view: dict[str, Any] = get_game(table.seating.game).view(self._state(table), None)
        return view

    def audit_log(self, tournament: str, ref: str) -> dict[str, Any]:
        """Every step of the table; hidden dice stay hidden until the table is over."""
        table = self._load(tournament, ref)
        _, log = replay_log(table.seating, table.moves)
        return {
            **_envelope(table),
            "complete": table.over,
            "records": log_records(log, None, revealed=table.over),
        }

    def feed(
        self, tournament: str, ref: str, after: int, token: str | None = None
    ) -> dict[str, Any]:
        """The table's log records after version `after` as the token's holder (None: a
        spectator) may see them: hidden dice stay hidden until the table is over. Also
        the table's current `version` (the next `after`) and who is `to_act`."""
        table = self._load(tournament, ref)
        viewer = None if token is None else table.seating.seats[self._authenticate(table, token)]
        records: list[dict[str, object]] = []
        if after < table.version:
            state, log = replay_log(table.seating, table.moves)
            self._remember(table, state)
            records = records_after(log, after, viewer, revealed=table.over)
        else:  # a poll that finds nothing new replays no log (and its state is cached)
            state = self._state(table)
        return {
            **_envelope(table),
            "deadline": turn_deadline(table),
            "version": table.version,
            "to_act": get_game(table.seating.game).to_act(state),
            "records": records,
        }

    # --- helpers ---------------------------------------------------------------------

    def _load(self, tournament: str, ref: str) -> TableRecord:
        table, queue = self._load_or_queued(tournament, ref)
        if queue is not None:
            raise TableQueued(
                f"table {ref} is {queue.status}: it has not started, no one acts there"
                + (f" (place {queue.place} in the queue)" if queue.place else ""),
                rule="pacing",
            )
        return table

    def _load_or_queued(self, tournament: str, ref: str) -> tuple[TableRecord, QueuedTable | None]:
        """The table, or, on a paced deployment, the table waiting for a slot and its
        place (one read more, only for a table that is not in play)."""
        plausible = plausible_id(tournament) and plausible_id(ref)
        table = self._tables.get_table(tournament, ref) if plausible else None
        if table is None and plausible and self._capacity is not None:
            waiting = self._capacity.queued_table(tournament, ref)
            if waiting is not None:
                return waiting.record, self._capacity.placed(waiting, self._clock())
        if table is None:
            raise NotFound(
                f"tournament {shown(tournament)} has no table {shown(ref)}", rule="table"
            )
        if table.bye:
            raise WrongStatus(
                f"table {ref} is a bye: {table.ranking[0]} goes on without playing",
                rule="rules §5.7 bye",
            )
        return table, None

    def _authenticate(self, table: TableRecord, token: str) -> int:
        """The seat of the token's holder at `table`; 401 or 403 otherwise."""
        player = token_owner(token)
        seats = table.seating.seats
        if player in seats:
            seat = seats.index(player)
            if token_matches(token, table.token_hashes[seat]):
                return seat
            raise Unauthorized("the player token does not match", rule="Authorization")
        registered = self._players.get_player(table.tournament, player) if player else None
        if registered is not None and token_matches(token, registered.token_hash):
            raise Forbidden(
                f"player {player} does not sit at table {table.ref}", rule="Authorization"
            )
        raise Unauthorized("the player token does not match", rule="Authorization")

    def _play(
        self,
        table: TableRecord,
        *,
        game: Game[Any],
        state: Any,
        player: PlayerId,
        action: Action,
        last_keys: dict[int, tuple[str, int]],
        move_due: bool = False,
        condition_from: TableRecord | None = None,
    ) -> tuple[TableRecord, Any, tuple[Event, ...]]:
        """Draw the dice, apply `action`, then a forfeit for every disqualified player the
        turn passes to (they are out the moment it reaches them, docs/rules.md §4.4), and
        save it all in one write, conditional on the loaded version.

        Returns the saved table, and the state and events right after `action`: what its
        answer tells, the same as a retry replays it.
        """
        rolled = self._roll(table, game.dice_needed(state, action))
        before = state
        acted, events = game.apply(state, player, action, rolled)
        state, forfeits = forfeit_disqualified(game, acted, table.disqualified)
        moves = [*table.moves, Move(action, rolled), *forfeits]
        over = game.is_over(state)
        if over:
            deadline = 0
        elif not forfeits and table.deadline and same_turn(game, before, acted, action):
            deadline = table.deadline  # one deadline per turn: a throw, then its announcement
        else:
            deadline = deadline_after(self._clock(), table.seating.options)
        played = replace(
            table,
            moves=moves,
            last_keys=last_keys,
            ranking=game.outcome(state).ranking if over else (),
            deadline=deadline,  # the turn's in play after this action
            # copied as loaded, so that a turn never writes the deadline index
            # (infra.store.deadlines); the sweeper's timeout moves it along (out, once over)
            due_at=deadline if move_due else table.due_at,
        )
        self._tables.save_table(
            played, loaded_version=table.version, loaded=condition_from or table
        )
        self._remember(played, state)
        return played, acted, tuple(events)

    def _roll(self, table: TableRecord, count: int) -> tuple[int, ...]:
        """The dice of the action that makes the table's next version: from its server
        and player seeds (docs/dice.md); from the source on a table seated before them."""
        if not count:
            return ()
        if table.server_seed:
            return self._dice.faces(
                table.server_seed,
                tournament=table.tournament,
                table=table.ref,
                version=table.version + 1,
                count=count,
                seeds=table.player_seeds,
            )
        return self._dice.roll(count, at=f"{table.ref}@{table.version}")

    def _state(self, table: TableRecord) -> Any:
        cached = self._states.get((table.tournament, table.ref, table.version))
        if cached is not None:
            return cached
        state = replay(table.seating, table.moves)
        self._remember(table, state)
        return state

    def _remember(self, table: TableRecord, state: Any) -> None:
        self._states.keep((table.tournament, table.ref, table.version), state)

    def _response_at(self, table: TableRecord, seat: int, version: int) -> dict[str, Any]:
        """Exactly what the request that made `version` answered: for retries."""
        state, events = replay_step(table.seating, table.moves, version)
        game = get_game(table.seating.game)
        return _answer(table, game, state, events, table.seating.seats[seat])

    def _after_lost_race(
        self, table: TableRecord, seat: int, version: int, action: Action, key: str | None
    ) -> dict[str, Any]:
        """Someone wrote first: our own duplicate (answer as it did) or a real conflict."""
        table = self._load(table.tournament, table.ref)
        repeated = _repeated_version(table, seat, version, action, key)
        if repeated is not None:
            return self._response_at(table, seat, repeated)
        _check_not_cancelled(table)
        raise StaleVersion(
            f"another action was applied to version {version} first",
            current_version=table.version,
        )


def _check_not_cancelled(table: TableRecord) -> None:
    if table.cancelled:
        raise WrongStatus(
            f"table {table.ref} was stopped: the organizer cancelled the tournament",
            rule="tournament cancelled",
        )


def _repeated_version(
    table: TableRecord, seat: int, version: int, action: Action, key: str | None
) -> int | None:
    """The version this request already made, if it is a retry; `None` if it is new.

    With an Idempotency-Key the key alone decides (reused with another body: 422);
    without one, the same seat and action stored at `version` mark a retry.
    """
    if key is not None:
        last = table.last_keys.get(seat)
        if last is None or last[0] != key:
            return None
        made = last[1]
        if version == made - 1 and table.moves[made - 1].action == action:
            return made
        raise IdempotencyKeyReused(
            "this Idempotency-Key was already used with a different version or action",
            rule="Idempotency-Key",
        )
    if (
        0 <= version < table.version
        and table.moves[version].action == action
        and actor(table.seating, table.moves, version) == table.seating.seats[seat]
    ):
        return version + 1
    return None


def _envelope(table: TableRecord) -> dict[str, Any]:
    return {
        "tournament": table.tournament,
        "table": table.ref,
        "over": table.over,
        # names come from the table item itself: a view or an action reads nothing more
        "players": [
            {"id": player, "name": name}
            for player, name in zip(table.seating.seats, table.seat_names(), strict=True)
        ],
        "dice": dice_head(table),
    }


def _standing(table: TableRecord, queue: QueuedTable | None) -> dict[str, Any]:
    """The views' `status`, `deadline` and `queue`: a queued table has no deadline,
    but its place in the queue and when it should start."""
    if queue is not None:
        place = {"place": queue.place, "expected_start": queue.expected_start}
        return {
            "status": queue.status,
            "deadline": None,
            "queue": place if queue.place else None,
        }
    status = "cancelled" if table.cancelled else "over" if table.over else "playing"
    return {"status": status, "deadline": turn_deadline(table), "queue": None}


def turn_deadline(table: TableRecord) -> int | None:
    """When the turn in play times out (epoch seconds), for a countdown; None once the
    table is over or for a bye."""
    return table.deadline if table.deadline and not table.over else None


def dice_head(table: TableRecord) -> dict[str, object] | None:
    """What the table shows of its dice (docs/dice.md): the commitment and the players'
    seeds from the seating on, the server seed only once the table is over; None on a
    table seated before the scheme."""
    if not table.server_seed:
        return None
    shown = fair_dice.table_dice(
        table.server_seed, table.player_seeds, table.over, table.dice_secret
    )
    return shown.as_dict()


def _answer(
    table: TableRecord, game: Game[Any], state: Any, events: Sequence[Event], player: PlayerId
) -> dict[str, Any]:
    """The answer to an action: the player's view after it and what it did, as they may
    see it. Built the same way for the first attempt and for every retry."""
    over = game.is_over(state)
    return {
        **_envelope(table),
        "over": over,
        "status": "over" if over else "playing",  # only a table in play takes actions
        "queue": None,
        "view": game.view(state, player),
        "events": [event_record(e, player, over) for e in events],
    }
