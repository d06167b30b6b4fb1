"""Mäxchen: two dice under a cup, announcements that must climb, and doubt.

Rules: docs/rules.md §1 (Mäxchen) and the timeouts of §4. Values are
written higher die first ("21" is Mäxchen); `RANKING` orders them lowest to highest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from core.actions import (
    Action,
    Announce,
    BlindReroll,
    Doubt,
    Forfeit,
    Throw,
    Timeout,
    action_name,
    action_to_dict,
)
from core.checks import check_dice, check_seating, check_turn
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
from core.options import TableOptions, options_dict, parse_options, require_range
from core.outcome import Outcome

NAME = "maexchen"
MAEXCHEN = 21
RANKING: tuple[int, ...] = (
    31, 32, 41, 42, 43, 51, 52, 53, 54, 61, 62, 63, 64, 65, 11, 22, 33, 44, 55, 66, 21,
)  # fmt: skip
RANK: dict[int, int] = {value: rank for rank, value in enumerate(RANKING)}
NO_VALUE = 0  # no announcement yet in this round / no throw in hand


@dataclass(frozen=True, slots=True)
class MaexchenOptions(TableOptions):
    """Mäxchen's rule options; both variants are off by default (docs/rules.md §1.2, §1.8, §1.9)."""

    penalty_limit: int = 3
    allow_equal: bool = False
    blind_reroll: bool = False

    def validate(self) -> None:
        """Raise `InvalidOption` for a value out of its range."""
        TableOptions.validate(self)
        require_range(self, "penalty_limit", 1, 100)


class Stage(StrEnum):
    """Where the player to act stands in their turn."""

    OPENING = "opening"  # starts the round: must throw, nothing to doubt
    RESPONSE = "response"  # doubt the announcement, or believe it and throw
    ANNOUNCE = "announce"  # has thrown and looked: announce (or reroll blind)
    ANNOUNCE_BLIND = "announce_blind"  # rerolled without looking: must announce
    OVER = "over"


class MaexchenState(NamedTuple):
    """One Mäxchen table. Seats are indices into `seats`; -1 means nobody.

    `under_cup` is the announcer's last throw and `in_hand` the current player's throw;
    both are secrets that only `view` and `core.audit` decide who may see.
    """

    options: MaexchenOptions
    seats: tuple[PlayerId, ...]
    survivors: int
    penalty_points: tuple[int, ...]
    timeouts: tuple[int, ...]
    eliminated: tuple[int, ...]  # seats in the order they were eliminated
    turn: int  # seat to act, -1 once over
    stage: Stage
    announcement: int  # last announced value this round, NO_VALUE before the first
    announcer: int  # seat of the last announcer, -1 before the first
    under_cup: int  # the announcer's last throw
    under_cup_seen: bool  # False when the announcer rerolled blind
    in_hand: int  # the acting player's current throw, NO_VALUE before they throw
    round: int
    version: int
    forfeited: tuple[int, ...] = ()  # seats out by a forfeit (§4.3, §4.4), in that order


class RoundStarted(NamedTuple):
    """A new round begins with `starter` throwing first."""

    round: int
    starter: PlayerId


class Announced(NamedTuple):
    """`player` announced `value` and passed the cup on."""

    player: PlayerId
    value: int


class Doubted(NamedTuple):
    """`player` doubted; the cup was lifted and `revealed` shown to all."""

    player: PlayerId
    announcer: PlayerId
    announcement: int
    revealed: int
    announcement_held: bool


class PenaltyGiven(NamedTuple):
    """`player` was in the wrong and received `points`; `total` is their new count."""

    player: PlayerId
    points: int
    total: int


class PlayerEliminated(NamedTuple):
    """`player` reached the penalty limit and left the table."""

    player: PlayerId


def _announcement_allowed(announcement: int, value: int, allow_equal: bool) -> bool:
    if announcement == NO_VALUE:
        return True
    if announcement == MAEXCHEN:  # nothing ranks higher: only "einstellen" (21 again)
        return value == MAEXCHEN
    rank, previous = RANK[value], RANK[announcement]
    return rank > previous or (allow_equal and rank == previous)


_ALLOWED: dict[tuple[int, bool], frozenset[int]] = {
    (announcement, allow_equal): frozenset(
        value for value in RANKING if _announcement_allowed(announcement, value, allow_equal)
    )
    for announcement in (NO_VALUE, *RANKING)
    for allow_equal in (False, True)
}
_ANNOUNCE = {value: Announce(value) for value in RANKING}
_OPENING_CHOICES: tuple[Action, ...] = (Throw(),)
_RESPONSE_CHOICES: tuple[Action, ...] = (Doubt(), Throw())
# Announcements allowed after each announcement, by `allow_equal`, then by `blind_reroll`
# (a blind reroll is offered beside the announcements until it has been used).
_ANNOUNCE_CHOICES: dict[bool, dict[bool, dict[int, tuple[Action, ...]]]] = {
    allow_equal: {
        with_reroll: {
            announcement: (
                *(_ANNOUNCE[value] for value in RANKING if value in allowed),
                *((BlindReroll(),) if with_reroll else ()),
            )
            for (announcement, equal), allowed in _ALLOWED.items()
            if equal == allow_equal
        }
        for with_reroll in (False, True)
    }
    for allow_equal in (False, True)
}
_DICE_ACTIONS = frozenset({Throw, BlindReroll})


class Maexchen:
    """The Mäxchen game behind the common `Game` protocol."""

    name = NAME
    title = "Mäxchen"
    min_players = 2

    def parse_options(self, raw: Mapping[str, object] | None) -> MaexchenOptions:
        """Validate Mäxchen's rule options by name."""
        return parse_options(MaexchenOptions, raw, NAME)

    def seat(
        self,
        players: Sequence[PlayerId],
        options: Mapping[str, object] | None = None,
        survivors: int = 1,
    ) -> tuple[MaexchenState, tuple[Event, ...]]:
        """Seat a table; the first seat starts the first round."""
        parsed = self.parse_options(options)
        seats = check_seating(NAME, players, survivors, self.min_players)
        zeros = (0,) * len(seats)
        state = MaexchenState(
            options=parsed, seats=seats, survivors=survivors, penalty_points=zeros,
            timeouts=zeros, eliminated=(), turn=0, stage=Stage.OPENING,
            announcement=NO_VALUE, announcer=-1, under_cup=NO_VALUE, under_cup_seen=False,
            in_hand=NO_VALUE, round=1, version=0,
        )  # fmt: skip
        return state, (
            TableSeated(NAME, seats, options_dict(parsed), survivors),
            RoundStarted(1, seats[0]),
        )

    def to_act(self, state: MaexchenState) -> PlayerId | None:
        """The player to act, or None once the table is over."""
        return None if state.turn < 0 else state.seats[state.turn]

    def legal_actions(self, state: MaexchenState) -> tuple[Action, ...]:
        """Throw to open; doubt or throw in response; then the announcements allowed."""
        stage = state.stage
        if stage is Stage.RESPONSE:
            return _RESPONSE_CHOICES
        if stage is Stage.OPENING:
            return _OPENING_CHOICES
        if stage is Stage.OVER:
            return ()
        options = state.options
        reroll = options.blind_reroll and stage is Stage.ANNOUNCE
        return _ANNOUNCE_CHOICES[options.allow_equal][reroll][state.announcement]

    def dice_needed(self, state: MaexchenState, action: Action) -> int:
        """Two dice for a throw or a blind reroll, none otherwise."""
        return 2 if type(action) in _DICE_ACTIONS else 0

    def apply(
        self, state: MaexchenState, player: PlayerId, action: Action, dice: Sequence[int] = ()
    ) -> tuple[MaexchenState, tuple[Event, ...]]:
        """Apply one action of the player to act (docs/rules.md §1 and §4)."""
        seat = state.turn
        if seat < 0 or state.seats[seat] != player:
            check_turn(NAME, self.to_act(state), player)
        handler = _HANDLERS.get(type(action))
        if handler is None:
            name = action_name(action)
            raise IllegalAction(f"Mäxchen has no action '{name}'", rule="rules §1.3 turn")
        return handler(state, player, action, dice)

    def view(self, state: MaexchenState, viewer: PlayerId | None) -> dict[str, object]:
        """What `viewer` may see: public table facts plus only their own throw."""
        to_act = self.to_act(state)
        view: dict[str, object] = {
            "game": NAME,
            "version": state.version,
            "round": state.round,
            "stage": state.stage.value,
            "options": options_dict(state.options),
            "survivors": state.survivors,
            "seats": [
                {
                    "player": player,
                    "penalty_points": state.penalty_points[seat],
                    "timeouts": state.timeouts[seat],
                    "eliminated": seat in state.eliminated,
                }
                for seat, player in enumerate(state.seats)
            ],
            "to_act": to_act,
            "announcement": state.announcement or None,
            "announcer": state.seats[state.announcer] if state.announcer >= 0 else None,
        }
        if viewer is not None and viewer == to_act:
            view["legal_actions"] = [action_to_dict(a) for a in self.legal_actions(state)]
            if state.stage is Stage.ANNOUNCE:
                view["your_throw"] = state.in_hand
        if (
            viewer is not None
            and state.announcer >= 0
            and viewer == state.seats[state.announcer]
            and state.under_cup_seen
        ):
            view["your_throw_under_cup"] = state.under_cup
        if state.stage is Stage.OVER:
            view["ranking"] = list(self.outcome(state).ranking)
        return view

    def is_over(self, state: MaexchenState) -> bool:
        """True once at most `survivors` players are left."""
        return state.stage is Stage.OVER

    def outcome(self, state: MaexchenState) -> Outcome:
        """Active players by fewer penalty points then seat; then later eliminations first."""
        if state.stage is not Stage.OVER:
            raise MatchNotOver("the Mäxchen table is still being played")
        return Outcome.from_ranking(
            _ranking(state),
            dict(zip(state.seats, state.penalty_points, strict=True)),
            "penalty_points",
            lower_measure_is_better=True,
            forfeited={state.seats[seat] for seat in state.forfeited},
        )


def _ranking(state: MaexchenState) -> tuple[PlayerId, ...]:
    active = sorted(
        (seat for seat in range(len(state.seats)) if seat not in state.eliminated),
        key=lambda seat: (state.penalty_points[seat], seat),
    )
    return tuple(state.seats[seat] for seat in (*active, *reversed(state.eliminated)))


# The hot transitions (throw, reroll, announce) build states with tuple.__new__ directly:
# the generated NamedTuple constructor is a Python-level call, and skipping it gains about
# 10% in turns/s (bench/engine.py). test_fast_state_construction_keeps_every_field guards
# the field order.
_new_state = tuple.__new__


def _next_active(state: MaexchenState, seat: int) -> int:
    count = len(state.seats)
    candidate = (seat + 1) % count
    if not state.eliminated:
        return candidate
    while candidate in state.eliminated:
        candidate = (candidate + 1) % count
    return candidate


def _throw(
    state: MaexchenState, player: PlayerId, action: Action, dice: Sequence[int]
) -> tuple[MaexchenState, tuple[Event, ...]]:
    if state.stage is not Stage.OPENING and state.stage is not Stage.RESPONSE:
        raise IllegalAction(
            "you have thrown already: announce a value now", rule="rules §1.5 believe and throw"
        )
    value, faces = read_two_dice(dice)
    new = _new_state(MaexchenState, (
        state.options, state.seats, state.survivors, state.penalty_points, state.timeouts,
        state.eliminated, state.turn, Stage.ANNOUNCE, state.announcement, state.announcer,
        state.under_cup, state.under_cup_seen, value, state.round, state.version + 1,
        state.forfeited,
    ))  # fmt: skip
    return new, (DiceThrown(player, faces, Visibility.THROWER),)


def _blind_reroll(
    state: MaexchenState, player: PlayerId, action: Action, dice: Sequence[int]
) -> tuple[MaexchenState, tuple[Event, ...]]:
    if not state.options.blind_reroll:
        raise IllegalAction(
            "blind rerolls are not allowed at this table", rule="rules §1.9 blind_reroll"
        )
    if state.stage is not Stage.ANNOUNCE:
        raise IllegalAction(
            "a blind reroll comes once, after looking at your throw",
            rule="rules §1.9 blind_reroll",
        )
    value, faces = read_two_dice(dice)
    new = _new_state(MaexchenState, (
        state.options, state.seats, state.survivors, state.penalty_points, state.timeouts,
        state.eliminated, state.turn, Stage.ANNOUNCE_BLIND, state.announcement, state.announcer,
        state.under_cup, state.under_cup_seen, value, state.round, state.version + 1,
        state.forfeited,
    ))  # fmt: skip
    return new, (DiceThrown(player, faces, Visibility.NOBODY),)


def _announce(
    state: MaexchenState, player: PlayerId, action: Action, dice: Sequence[int]
) -> tuple[MaexchenState, tuple[Event, ...]]:
    assert isinstance(action, Announce)
    if dice:
        check_dice(dice, 0)
    value = action.value
    if type(value) is not int:
        raise IllegalAction(
            f"an announcement is a whole number, got {value!r}", rule="rules §1.1 ranking"
        )
    stage = state.stage
    if stage is not Stage.ANNOUNCE and stage is not Stage.ANNOUNCE_BLIND:
        raise IllegalAction("throw before you announce", rule="rules §1.3 turn")
    if value not in _ALLOWED[state.announcement, state.options.allow_equal]:
        if value not in RANK:
            raise IllegalAction(
                f"{value} is not a Mäxchen value; values are {', '.join(map(str, RANKING))}",
                rule="rules §1.1 ranking",
            )
        if state.announcement == MAEXCHEN:
            message = "after an announced 21 the only announcement is 21"
            rule = "rules §1.7 einstellen"
        else:
            relation = "at least" if state.options.allow_equal else "higher than"
            message = f"announcement {value} must rank {relation} {state.announcement}"
            rule = (
                "rules §1.8 allow_equal" if state.options.allow_equal else "rules §1.6 announcement"
            )
        raise IllegalAction(message, rule=rule)
    seat = state.turn
    new = _new_state(MaexchenState, (
        state.options, state.seats, state.survivors, state.penalty_points, state.timeouts,
        state.eliminated, _next_active(state, seat), Stage.RESPONSE, value, seat,
        state.in_hand, stage is Stage.ANNOUNCE, NO_VALUE, state.round, state.version + 1,
        state.forfeited,
    ))  # fmt: skip
    return new, (Announced(player, value),)


def _doubt(
    state: MaexchenState, player: PlayerId, action: Action, dice: Sequence[int]
) -> tuple[MaexchenState, tuple[Event, ...]]:
    if dice:
        check_dice(dice, 0)
    if state.stage is not Stage.RESPONSE:
        raise IllegalAction(
            "there is no announcement to doubt yet"
            if state.stage is Stage.OPENING
            else "you have thrown already: announce a value now",
            rule="rules §1.4 doubt",
        )
    held = RANK[state.under_cup] >= RANK[state.announcement]
    in_the_wrong = state.turn if held else state.announcer
    points = 2 if state.announcement == MAEXCHEN else 1
    doubted = Doubted(
        player, state.seats[state.announcer], state.announcement, state.under_cup, held
    )
    return _end_round(state, in_the_wrong, points, (doubted,), forfeits=False)


def _timeout(
    state: MaexchenState, player: PlayerId, action: Action, dice: Sequence[int]
) -> tuple[MaexchenState, tuple[Event, ...]]:
    if dice:
        check_dice(dice, 0)
    seat = state.turn
    timeouts = _bump(state.timeouts, seat, 1)
    limit = state.options.forfeit_after_timeouts
    timed_out = TurnTimedOut(player, timeouts[seat])
    state = state._replace(timeouts=timeouts)
    return _end_round(state, seat, 1, (timed_out,), forfeits=limit > 0 and timeouts[seat] >= limit)


def _forfeit(
    state: MaexchenState, player: PlayerId, action: Action, dice: Sequence[int]
) -> tuple[MaexchenState, tuple[Event, ...]]:
    """Disqualified: out at once, as on the forfeiting timeout (docs/rules.md §4.3, §4.4) (the round
    ends against them with 1 penalty point and they leave; the next active player starts)."""
    if dice:
        check_dice(dice, 0)
    return _end_round(state, state.turn, 1, (), forfeits=True)


def _bump(values: tuple[int, ...], seat: int, by: int) -> tuple[int, ...]:
    return (*values[:seat], values[seat] + by, *values[seat + 1 :])


def _end_round(
    state: MaexchenState,
    in_the_wrong: int,
    points: int,
    events: tuple[Event, ...],
    *,
    forfeits: bool,
) -> tuple[MaexchenState, tuple[Event, ...]]:
    """Give the penalty, eliminate if due, and either finish the table or start a round."""
    penalty_points = _bump(state.penalty_points, in_the_wrong, points)
    loser = state.seats[in_the_wrong]
    events = (*events, PenaltyGiven(loser, points, penalty_points[in_the_wrong]))
    eliminated, forfeited = state.eliminated, state.forfeited
    if forfeits:
        eliminated = (*eliminated, in_the_wrong)
        forfeited = (*forfeited, in_the_wrong)
        events = (*events, PlayerForfeited(loser))
    elif penalty_points[in_the_wrong] >= state.options.penalty_limit:
        eliminated = (*eliminated, in_the_wrong)
        events = (*events, PlayerEliminated(loser))
    new = MaexchenState(
        state.options, state.seats, state.survivors, penalty_points, state.timeouts,
        eliminated, in_the_wrong, Stage.OPENING, NO_VALUE, -1, NO_VALUE, False, NO_VALUE,
        state.round + 1, state.version + 1, forfeited,
    )  # fmt: skip
    if len(state.seats) - len(eliminated) <= state.survivors:
        over = new._replace(turn=-1, stage=Stage.OVER)
        return over, (*events, MatchFinished(_ranking(over)))
    if in_the_wrong in eliminated:  # decision: the next active player after them starts
        new = new._replace(turn=_next_active(new, in_the_wrong))
    return new, (*events, RoundStarted(new.round, new.seats[new.turn]))


_Handler = Callable[
    [MaexchenState, PlayerId, Action, Sequence[int]], tuple[MaexchenState, tuple[Event, ...]]
]
_HANDLERS: dict[type, _Handler] = {
    Throw: _throw,
    Announce: _announce,
    Doubt: _doubt,
    BlindReroll: _blind_reroll,
    Timeout: _timeout,
    Forfeit: _forfeit,
}

GAME = Maexchen()
