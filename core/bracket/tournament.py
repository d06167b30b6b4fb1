"""`Bracket`: an in-memory runner of a whole tournament (demo, benchmark, tests).

It keeps progress in dicts and byte arrays and leaves every rule to the pure functions
of `core.bracket.progression` and the `BracketPlan`, so a consumer keeping the same
progress in stored items behaves identically. Rules: docs/rules.md §5.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.bracket.decisions import (
    ByeGiven,
    Decision,
    RoundCompleted,
    SeatTable,
    Standing,
    TournamentFinished,
)
from core.bracket.plan import BracketPlan, InvalidBracket, TableRef
from core.bracket.progression import (
    Exit,
    advancing,
    check_outcome,
    exits,
    first_round,
    seat_next,
    standings,
)
from core.events import PlayerId
from core.outcome import Outcome

_WAITING, _PLAYING, _DONE = 0, 1, 2


class Bracket:
    """One tournament's progress: seated tables, arrivals waiting, exits, standings."""

    def __init__(self, plan: BracketPlan, seeded_players: Sequence[PlayerId]) -> None:
        self.plan = plan
        self._first = first_round(plan, seeded_players)  # validates the players
        self._players = tuple(seeded_players)
        self._status = [bytearray(plan.tables_in(r)) for r in range(1, plan.rounds + 1)]
        self._done_in_round = [0] * plan.rounds
        self._tables_in_round = [len(sizes) for sizes in plan.sizes]
        self._playing: dict[TableRef, tuple[PlayerId, ...]] = {}
        self._arrivals: dict[TableRef, list[tuple[PlayerId, ...]]] = {}
        self._missing: dict[TableRef, int] = {}
        self._exits: list[Exit] = []
        self._standings: tuple[Standing, ...] = ()
        self._started = False

    @property
    def is_finished(self) -> bool:
        """Whether the final is over (or there was a single entrant)."""
        return bool(self._standings)

    @property
    def champion(self) -> PlayerId | None:
        """The winner of the final, None until it is over."""
        return self._standings[0].player if self._standings else None

    @property
    def standings(self) -> tuple[Standing, ...]:
        """The final standings, empty until the tournament is over."""
        return self._standings

    @property
    def playing(self) -> tuple[TableRef, ...]:
        """The tables seated and not yet recorded, in the order they were seated."""
        return tuple(self._playing)

    def start(self) -> list[Decision]:
        """Seat round 1 (byes carried on at once); a single entrant wins outright."""
        if self._started:
            raise InvalidBracket("the tournament has started already", rule="tables")
        self._started = True
        out: list[Decision] = []
        if self.plan.player_count == 1:
            self._exits.append(Exit(self._players[0], 1, 1, 0))
            self._finish(out)
            return out
        for decision in self._first:
            self._seat(decision, out)
        self._first = ()
        return out

    def record(self, ref: TableRef, outcome: Outcome) -> list[Decision]:
        """Take a finished table's outcome; return what it sets off (tables, byes, the end)."""
        status = self._status[self.plan.check(ref).round - 1][ref.index]
        if status == _DONE:
            raise InvalidBracket(f"{ref} has been recorded already", rule="tables")
        if status != _PLAYING:
            raise InvalidBracket(f"{ref} has not been seated yet", rule="tables")
        check_outcome(ref, self._playing[ref], outcome)
        going_on = advancing(self.plan, ref, outcome)
        self._exits.extend(exits(self.plan, ref, outcome))
        del self._playing[ref]
        out: list[Decision] = []
        self._done(ref, going_on, out)
        return out

    def _seat(self, decision: SeatTable | ByeGiven, out: list[Decision]) -> None:
        out.append(decision)
        if isinstance(decision, SeatTable):
            self._status[decision.table.round - 1][decision.table.index] = _PLAYING
            self._playing[decision.table] = decision.players
        else:
            self._done(decision.table, (decision.player,), out)

    def _done(self, ref: TableRef, going_on: tuple[PlayerId, ...], out: list[Decision]) -> None:
        plan = self.plan
        self._status[ref.round - 1][ref.index] = _DONE
        self._done_in_round[ref.round - 1] += 1
        if self._done_in_round[ref.round - 1] == self._tables_in_round[ref.round - 1]:
            out.append(RoundCompleted(ref.round))
        routes = plan.routes(ref)
        if not routes:
            self._finish(out)
            return
        for route in routes:
            successor = route.table
            arrivals = self._arrivals.get(successor)
            if arrivals is None:
                feeders = len(plan.feeders(successor))
                arrivals = self._arrivals[successor] = [()] * feeders
                self._missing[successor] = feeders
            arrivals[route.slot] = going_on[route.first : route.first + route.seats]
            self._missing[successor] -= 1
            if self._missing[successor] == 0:
                del self._arrivals[successor], self._missing[successor]
                self._seat(seat_next(plan, successor, arrivals), out)

    def _finish(self, out: list[Decision]) -> None:
        seed_position = {player: position for position, player in enumerate(self._players)}
        self._standings = standings(self._exits, seed_position)
        self._exits = []
        out.append(TournamentFinished(self._standings))
