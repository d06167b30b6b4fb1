"""42 muss kommen: two dice in the open, a limit set by the starter, and sticks.

Rules: RULES.md §3 (from seeds/zweiundvierzig.txt) and the timeout rule of §4, with the
decisions that §3 leaves open marked "decision" where they apply. A match is a Hinrunde
(each round's worst takes a stick from the pot), then a play-off for the players who left
together while they straddle the advance cut, then a Rückrunde (each round's best passes
a stick to its worst). Throw values and the comparison of turns are in
`core.games.zweiundvierzig_ranking`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from core.actions import Action, Concede, Stop, Throw, Timeout, action_to_dict
from core.dice import read_two_dice
from core.errors import IllegalAction, MatchNotOver
from core.events import (
    DiceThrown,
    Event,
    MatchFinished,
    PlayerForfeited,
    PlayerId,
    TableSeated,
    TurnTimedOut,
    Visibility,
)
from core.games.zweiundvierzig_ranking import (
    NO_THROW,
    TurnResult,
    best_position,
    table_ranking,
    top_places_known,
    worst_and_best,
)
from core.options import TableOptions, options_dict, parse_options, require_range
from core.outcome import Outcome
from core.table import check_dice, check_seating, check_turn

NAME = "zweiundvierzig"
COVERED_THROW = 5  # a player's fifth throw stays covered, even for them, until scored
CONCEDE_VALUE = 32  # the worst throw: on the last allowed throw the player may concede


@dataclass(frozen=True, slots=True)
class ZweiundvierzigOptions(TableOptions):
    """42's rule options: the pot of sticks (decision: 13) and the starter's throw limit."""

    sticks: int = 13
    max_throws: int = 5

    def validate(self) -> None:
        """Raise `InvalidOption` for a value out of its range."""
        TableOptions.validate(self)
        require_range(self, "sticks", 1, 99)
        require_range(self, "max_throws", 1, 5)


class Phase(StrEnum):
    """The part of the match being played."""

    HINRUNDE = "hinrunde"  # sticks from the pot to each round's worst
    PLAYOFF = "playoff"  # orders the players who left together after the Hinrunde
    RUECKRUNDE = "rueckrunde"  # each round's best passes a stick to its worst
    OVER = "over"


class ZweiundvierzigState(NamedTuple):
    """One 42 table. Seats are indices into `seats`; -1 means nobody.

    Places are fixed from the top by `group` (Hinrunde leavers, places 1..len(group),
    order open), `group_placed` (placed by the play-off, lowest place first) and `left`
    (Rückrunde leavers), and from the bottom by `bottom` (last place first). Everyone else
    is still at the table. A covered fifth throw sits in `results` until the round is
    scored; only `view` and `core.audit` decide who may see it.
    """

    options: ZweiundvierzigOptions
    seats: tuple[PlayerId, ...]
    survivors: int
    phase: Phase
    pot: int
    sticks: tuple[int, ...]  # held per seat; a forfeiter's go to `sticks_removed`
    sticks_removed: int  # sticks that left the game with forfeiters (decision)
    timeouts: tuple[int, ...]
    forfeited: tuple[int, ...]  # seats in the order they forfeited
    group: tuple[int, ...]  # seat order
    group_placed: tuple[int, ...]
    left: tuple[int, ...]
    bottom: tuple[int, ...]
    round: int
    starter: int
    order: tuple[int, ...]  # this round's players: the starter, then seat order
    results: tuple[TurnResult, ...]  # finished turns of this round, in playing order
    in_hand: tuple[int, ...]  # the values thrown so far by the player to act
    limit: int  # max_throws until the starter finishes, then the throws they used
    turn: int  # seat to act, -1 once over
    version: int


class RoundStarted(NamedTuple):
    """A round of `phase` begins; `players` throw in this order, `starter` first."""

    round: int
    phase: Phase
    starter: PlayerId
    players: tuple[PlayerId, ...]


class TurnEnded(NamedTuple):
    """`player` finished their turn (stopped, reached the limit or timed out)."""

    player: PlayerId
    throws: int


class RoundScored(NamedTuple):
    """Every turn of the round in playing order (covered throws revealed), worst and best.

    `last_throws` holds None for a turn without a throw; `best` is None when a concede
    ended the round before anyone else finished.
    """

    round: int
    phase: Phase
    players: tuple[PlayerId, ...]
    last_throws: tuple[int | None, ...]
    throws: tuple[int, ...]
    worst: PlayerId
    best: PlayerId | None
    conceded: bool


class StickTaken(NamedTuple):
    """Hinrunde: `player` took a stick from the pot; `sticks` is theirs now, `pot` is left."""

    player: PlayerId
    sticks: int
    pot: int


class StickPassed(NamedTuple):
    """Rückrunde: the round's best passed one of their sticks to the round's worst."""

    giver: PlayerId
    receiver: PlayerId
    giver_sticks: int
    receiver_sticks: int


class PlayersLeft(NamedTuple):
    """After the Hinrunde, `players` (no stick) left together, sharing places first..last."""

    players: tuple[PlayerId, ...]
    first_place: int
    last_place: int


class PlayerPlaced(NamedTuple):
    """`player`'s place is fixed: left in the Rückrunde, placed by the play-off, forfeited,
    or the last one whose place was open."""

    player: PlayerId
    place: int


_THROW: tuple[Action, ...] = (Throw(),)
_THROW_OR_STOP: tuple[Action, ...] = (Throw(), Stop())
_CONCEDE_OR_STOP: tuple[Action, ...] = (Concede(), Stop())


class Zweiundvierzig:
    """The game "42 muss kommen" behind the common `Game` protocol."""

    name = NAME
    title = "42 muss kommen"
    min_players = 2

    def parse_options(self, raw: Mapping[str, object] | None) -> ZweiundvierzigOptions:
        """Validate 42's rule options by name."""
        return parse_options(ZweiundvierzigOptions, raw, NAME)

    def seat(
        self,
        players: Sequence[PlayerId],
        options: Mapping[str, object] | None = None,
        survivors: int = 1,
    ) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
        """Seat a table with a full pot; decision: seat 0 starts the first round."""
        parsed = self.parse_options(options)
        seats = check_seating(NAME, players, survivors, self.min_players)
        zeros = (0,) * len(seats)
        order = tuple(range(len(seats)))
        state = ZweiundvierzigState(
            options=parsed, seats=seats, survivors=survivors, phase=Phase.HINRUNDE,
            pot=parsed.sticks, sticks=zeros, sticks_removed=0, timeouts=zeros, forfeited=(),
            group=(), group_placed=(), left=(), bottom=(), round=1, starter=0, order=order,
            results=(), in_hand=(), limit=parsed.max_throws, turn=0, version=0,
        )  # fmt: skip
        return state, (
            TableSeated(NAME, seats, options_dict(parsed), survivors),
            RoundStarted(1, Phase.HINRUNDE, seats[0], seats),
        )

    def to_act(self, state: ZweiundvierzigState) -> PlayerId | None:
        """The player to act, or None once the table is over."""
        return None if state.turn < 0 else state.seats[state.turn]

    def legal_actions(self, state: ZweiundvierzigState) -> tuple[Action, ...]:
        """Throw to open a turn; then throw again or stop; concede or stop at the courtesy."""
        if state.turn < 0:
            return ()
        thrown = len(state.in_hand)
        if thrown == 0:
            return _THROW
        if thrown < state.limit:
            return _THROW_OR_STOP
        return _CONCEDE_OR_STOP  # at the limit the turn only waits when a concede is offered

    def dice_needed(self, state: ZweiundvierzigState, action: Action) -> int:
        """Two dice for a throw, none otherwise."""
        return 2 if type(action) is Throw else 0

    def apply(
        self,
        state: ZweiundvierzigState,
        player: PlayerId,
        action: Action,
        dice: Sequence[int] = (),
    ) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
        """Apply one action of the player to act (RULES.md §3 and §4)."""
        seat = state.turn
        if seat < 0 or state.seats[seat] != player:
            check_turn(NAME, self.to_act(state), player)
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise IllegalAction(f"42 muss kommen has no action '{action.kind}'", rule="RULES.md §3")
        if dice and handler is not _throw:
            check_dice(dice, 0)
        return handler(state, player, dice)

    def view(self, state: ZweiundvierzigState, viewer: PlayerId | None) -> dict[str, object]:
        """What `viewer` may see: every open throw, never a covered fifth before scoring."""
        to_act = self.to_act(state)
        seats = state.seats
        over = state.phase is Phase.OVER
        view: dict[str, object] = {
            "game": NAME,
            "version": state.version,
            "options": options_dict(state.options),
            "survivors": state.survivors,
            "phase": state.phase.value,
            "pot": state.pot,
            "seats": [
                {
                    "player": player,
                    "sticks": state.sticks[seat],
                    "status": _status(state, seat),
                    "timeouts": state.timeouts[seat],
                }
                for seat, player in enumerate(seats)
            ],
            "round": None
            if over
            else {
                "number": state.round,
                "starter": seats[state.starter],
                "throw_limit": state.limit,
                "finished": [
                    {
                        "player": seats[result.seat],
                        "last_throw": None
                        if result.throws == COVERED_THROW or result.value == NO_THROW
                        else result.value,
                        "throws": result.throws,
                    }
                    for result in state.results
                ],
                "throws": list(state.in_hand),
            },
            "to_act": to_act,
        }
        if viewer is not None and viewer == to_act:
            view["legal_actions"] = [action_to_dict(a) for a in self.legal_actions(state)]
        if over:
            view["ranking"] = list(_ranking(state))
        return view

    def is_over(self, state: ZweiundvierzigState) -> bool:
        """True once the set of the top `survivors` places is known."""
        return state.phase is Phase.OVER

    def outcome(self, state: ZweiundvierzigState) -> Outcome:
        """Earlier departures first, forfeits last; the measure is sticks held at the end."""
        if state.phase is not Phase.OVER:
            raise MatchNotOver("the 42 table is still being played")
        return Outcome.from_ranking(
            _ranking(state),
            dict(zip(state.seats, state.sticks, strict=True)),
            "sticks",
            lower_measure_is_better=True,
        )


def _status(state: ZweiundvierzigState, seat: int) -> str:
    if seat in state.forfeited:
        return "forfeited"
    if seat in state.group or seat in state.group_placed or seat in state.left:
        return "left"
    return "left" if seat in state.bottom else "playing"


def _unplaced(state: ZweiundvierzigState) -> tuple[int, ...]:
    placed = {*state.group, *state.group_placed, *state.left, *state.bottom}
    return tuple(seat for seat in range(len(state.seats)) if seat not in placed)


def _top_known(state: ZweiundvierzigState) -> bool:
    above = len(state.group) + len(state.group_placed) + len(state.left)
    unplaced = len(state.seats) - above - len(state.bottom)
    return top_places_known(state.survivors, len(state.group), above, unplaced)


def _ranking(state: ZweiundvierzigState) -> tuple[PlayerId, ...]:
    seats = table_ranking(
        group=state.group,
        group_placed=state.group_placed,
        left=state.left,
        unplaced=_unplaced(state),
        bottom=state.bottom,
        sticks=state.sticks,
    )
    return tuple(state.seats[seat] for seat in seats)


def _bump(values: tuple[int, ...], seat: int, by: int) -> tuple[int, ...]:
    return (*values[:seat], values[seat] + by, *values[seat + 1 :])


def _concede_offered(state: ZweiundvierzigState, value: int, thrown: int) -> bool:
    """RULES.md §3 courtesy: 32 on the last allowed throw, seen by the thrower (not a
    covered fifth). Decision: in the Rückrunde only once someone else has finished, since
    the round's best, who passes the stick, is chosen among those who finished; without
    the offer, Stop is the only choice left, so the turn ends at the limit by itself."""
    return (
        value == CONCEDE_VALUE
        and thrown == state.limit
        and thrown != COVERED_THROW
        and (state.phase is not Phase.RUECKRUNDE or bool(state.results))
    )


def _throw(
    state: ZweiundvierzigState, player: PlayerId, dice: Sequence[int]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    thrown = len(state.in_hand) + 1
    if thrown > state.limit:
        raise IllegalAction(
            f"you have used all {state.limit} throws allowed in this round: stop or concede",
            rule="RULES.md §3 round",
        )
    value, faces = read_two_dice(dice)
    # RULES.md §3: a fifth throw stays covered, even for its thrower, until scored.
    covered = thrown == COVERED_THROW
    event = DiceThrown(player, faces, Visibility.NOBODY if covered else Visibility.PUBLIC)
    if thrown < state.limit or _concede_offered(state, value, thrown):
        s = state
        new = ZweiundvierzigState(
            s.options, s.seats, s.survivors, s.phase, s.pot, s.sticks, s.sticks_removed,
            s.timeouts, s.forfeited, s.group, s.group_placed, s.left, s.bottom, s.round,
            s.starter, s.order, s.results, (*s.in_hand, value), s.limit, s.turn, s.version + 1,
        )  # fmt: skip
        return new, (event,)
    return _end_turn(state, value, thrown, (event,))  # the limit ends the turn


def _stop(
    state: ZweiundvierzigState, player: PlayerId, dice: Sequence[int]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    if not state.in_hand:
        raise IllegalAction("throw at least once before you stop", rule="RULES.md §3 round")
    return _end_turn(state, state.in_hand[-1], len(state.in_hand), ())


def _concede(
    state: ZweiundvierzigState, player: PlayerId, dice: Sequence[int]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    thrown = len(state.in_hand)
    if not thrown or not _concede_offered(state, state.in_hand[-1], thrown):
        raise IllegalAction(
            "you may concede only with an open 32 on your last allowed throw"
            + (" once someone has finished" if state.phase is Phase.RUECKRUNDE else ""),
            rule="RULES.md §3 courtesy",
        )
    # The conceder is the round's worst at once; nobody after them throws.
    conceder = TurnResult(state.turn, CONCEDE_VALUE, thrown)
    return _score_round(state, (*state.results, conceder), (), conceded=True)


def _timeout(
    state: ZweiundvierzigState, player: PlayerId, dice: Sequence[int]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """RULES.md §4: the turn ends with the last throw, none thrown being the worst result."""
    seat = state.turn
    timeouts = _bump(state.timeouts, seat, 1)
    events: tuple[Event, ...] = (TurnTimedOut(player, timeouts[seat]),)
    state = state._replace(timeouts=timeouts)
    forfeit_after = state.options.forfeit_after_timeouts
    if forfeit_after and timeouts[seat] >= forfeit_after:
        return _forfeit(state, seat, events)
    in_hand = state.in_hand
    return _end_turn(state, in_hand[-1] if in_hand else NO_THROW, len(in_hand), events)


def _end_turn(
    state: ZweiundvierzigState, value: int, throws: int, events: tuple[Event, ...]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    seat = state.turn
    limit = state.limit
    if seat == state.starter:
        # The starter's throws are the others' limit; decision: a starter who timed out
        # before throwing leaves the others `max_throws`.
        limit = throws or state.options.max_throws
    results = (*state.results, TurnResult(seat, value, throws))
    return _next_turn(
        state, state.order, results, limit, (*events, TurnEnded(state.seats[seat], throws))
    )


def _next_turn(
    state: ZweiundvierzigState,
    order: tuple[int, ...],
    results: tuple[TurnResult, ...],
    limit: int,
    events: tuple[Event, ...],
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    if len(results) == len(order):
        return _score_round(state, results, events, conceded=False)
    s = state
    new = ZweiundvierzigState(
        s.options, s.seats, s.survivors, s.phase, s.pot, s.sticks, s.sticks_removed,
        s.timeouts, s.forfeited, s.group, s.group_placed, s.left, s.bottom, s.round,
        s.starter, order, results, (), limit, order[len(results)], s.version + 1,
    )  # fmt: skip
    return new, events


def _score_round(
    state: ZweiundvierzigState,
    results: tuple[TurnResult, ...],
    events: tuple[Event, ...],
    *,
    conceded: bool,
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """Reveal every turn, find the worst and best, and settle the round by its phase."""
    if conceded:  # the conceder, last in `results`, is the worst at once
        worst, best = len(results) - 1, best_position(results[:-1])
    else:
        worst, best = worst_and_best(results)
    seats = state.seats
    worst_seat = results[worst].seat
    best_seat = -1 if best is None else results[best].seat
    events = (
        *events,
        RoundScored(
            state.round,
            state.phase,
            tuple(seats[result.seat] for result in results),
            tuple(result.value or None for result in results),
            tuple(result.throws for result in results),
            seats[worst_seat],
            None if best is None else seats[best_seat],
            conceded,
        ),
    )
    if state.phase is Phase.HINRUNDE:
        return _hinrunde_scored(state, worst_seat, events)
    if state.phase is Phase.PLAYOFF:
        return _playoff_scored(state, worst_seat, events)
    return _rueckrunde_scored(state, worst_seat, best_seat, events)


def _hinrunde_scored(
    state: ZweiundvierzigState, worst: int, events: tuple[Event, ...]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """The worst takes a stick from the pot and starts the next round until it is empty."""
    sticks = _bump(state.sticks, worst, 1)
    pot = state.pot - 1
    events = (*events, StickTaken(state.seats[worst], sticks[worst], pot))
    state = state._replace(sticks=sticks, pot=pot)
    if pot:
        return _start_round(state, Phase.HINRUNDE, _unplaced(state), worst, events)
    # The Hinrunde is over: everyone without a stick leaves as a winner at the same moment.
    leavers = tuple(seat for seat in _unplaced(state) if not sticks[seat])
    if leavers:
        state = state._replace(group=leavers)
        names = tuple(state.seats[seat] for seat in leavers)
        events = (*events, PlayersLeft(names, 1, len(leavers)))
    state, events = _place_lone_player(state, events)  # a single holder is last
    return _next_round(state, events, rueckrunde_starter=worst, playoff_after=-1)


def _playoff_scored(
    state: ZweiundvierzigState, worst: int, events: tuple[Event, ...]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """The worst takes the lowest of the group's open places."""
    group = tuple(seat for seat in state.group if seat != worst)
    events = (*events, PlayerPlaced(state.seats[worst], len(group) + 1))
    state = state._replace(group=group, group_placed=(*state.group_placed, worst))
    return _next_round(state, events, rueckrunde_starter=worst, playoff_after=worst)


def _rueckrunde_scored(
    state: ZweiundvierzigState, worst: int, best: int, events: tuple[Event, ...]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """The best passes a stick to the worst; without sticks they leave from the top."""
    sticks = _bump(_bump(state.sticks, best, -1), worst, 1)
    seats = state.seats
    events = (*events, StickPassed(seats[best], seats[worst], sticks[best], sticks[worst]))
    state = state._replace(sticks=sticks)
    if not sticks[best]:
        left = (*state.left, best)
        place = len(state.group) + len(state.group_placed) + len(left)
        state = state._replace(left=left)
        events = (*events, PlayerPlaced(seats[best], place))
        state, events = _place_lone_player(state, events)  # holds all the sticks: last
    return _next_round(state, events, rueckrunde_starter=worst, playoff_after=-1)


def _place_lone_player(
    state: ZweiundvierzigState, events: tuple[Event, ...]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """A single player left at the table takes the one free place (the last holder)."""
    unplaced = _unplaced(state)
    if len(unplaced) != 1:
        return state, events
    place = len(state.seats) - len(state.bottom)
    state = state._replace(bottom=(*state.bottom, unplaced[0]))
    return state, (*events, PlayerPlaced(state.seats[unplaced[0]], place))


def _next_round(
    state: ZweiundvierzigState,
    events: tuple[Event, ...],
    *,
    rueckrunde_starter: int,
    playoff_after: int,
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """After the Hinrunde: play off while the group straddles the cut, stop once the top
    places are known (decision: the set, not its order), else play a Rückrunde round."""
    group = state.group
    if len(group) > state.survivors:
        # Decision: the play-off comes first; its first starter is the group's lowest
        # seat, later ones the next member in seat order after the player just placed.
        starter = next((seat for seat in group if seat > playoff_after), group[0])
        return _start_round(state, Phase.PLAYOFF, group, starter, events)
    if _top_known(state):
        return _finish(state, events)
    holders = _unplaced(state)
    # The round's loser starts the next; after the Hinrunde that is its last loser.
    starter = rueckrunde_starter if rueckrunde_starter in holders else holders[0]
    return _start_round(state, Phase.RUECKRUNDE, holders, starter, events)


def _start_round(
    state: ZweiundvierzigState,
    phase: Phase,
    players: tuple[int, ...],
    starter: int,
    events: tuple[Event, ...],
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    at = players.index(starter)
    order = (*players[at:], *players[:at])
    s = state
    number = s.round + 1
    new = ZweiundvierzigState(
        s.options, s.seats, s.survivors, phase, s.pot, s.sticks, s.sticks_removed,
        s.timeouts, s.forfeited, s.group, s.group_placed, s.left, s.bottom, number, starter,
        order, (), (), s.options.max_throws, starter, s.version + 1,
    )  # fmt: skip
    names = tuple(s.seats[seat] for seat in order)
    return new, (*events, RoundStarted(number, phase, s.seats[starter], names))


def _forfeit(
    state: ZweiundvierzigState, seat: int, events: tuple[Event, ...]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """RULES.md §4: out at once, ranked last among those whose place is open; the round
    goes on without them. Decisions: their sticks leave the game; a play-off player takes
    the lowest of the group's open places (the group already left above the rest)."""
    player = state.seats[seat]
    events = (*events, PlayerForfeited(player))
    forfeited = (*state.forfeited, seat)
    if state.phase is Phase.PLAYOFF:
        group = tuple(member for member in state.group if member != seat)
        place = len(group) + 1
        state = state._replace(
            forfeited=forfeited, group=group, group_placed=(*state.group_placed, seat)
        )
    else:
        place = len(state.seats) - len(state.bottom)
        state = state._replace(
            forfeited=forfeited,
            bottom=(*state.bottom, seat),
            sticks=(*state.sticks[:seat], 0, *state.sticks[seat + 1 :]),
            sticks_removed=state.sticks_removed + state.sticks[seat],
        )
    events = (*events, PlayerPlaced(player, place))
    state, events = _place_lone_player(state, events)
    if _top_known(state):
        return _finish(state, events)  # decision: an unfinished round is dropped
    limit = state.limit
    if seat == state.starter:
        limit = len(state.in_hand) or state.options.max_throws  # as for a timeout
    order = tuple(member for member in state.order if member != seat)
    return _next_turn(state, order, state.results, limit, events)


def _finish(
    state: ZweiundvierzigState, events: tuple[Event, ...]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    over = state._replace(phase=Phase.OVER, turn=-1, version=state.version + 1)
    return over, (*events, MatchFinished(_ranking(over)))


_Handler = Callable[
    [ZweiundvierzigState, PlayerId, Sequence[int]],
    tuple[ZweiundvierzigState, tuple[Event, ...]],
]
_HANDLERS: dict[type, _Handler] = {
    Throw: _throw,
    Stop: _stop,
    Concede: _concede,
    Timeout: _timeout,
}

GAME = Zweiundvierzig()
