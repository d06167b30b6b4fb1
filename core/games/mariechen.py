"""Mariechen von vorn / von hinten: six throws of one die, each aiming at its own target.

Rules: docs/rules.md §2 (Mariechen) and the timeouts of §4. Throw i aims at
i ("von vorn") or 7 - i ("von hinten"); a hit scores its target. Equal scores are split by
the hits, highest first; players still tied across a place that matters throw off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import groupby
from typing import Literal, NamedTuple, TypeAlias, TypeVar

from core.actions import Action, Forfeit, Throw, Timeout, action_name, action_to_dict
from core.checks import check_dice, check_seating, check_turn
from core.errors import IllegalAction, InvalidDice, MatchNotOver
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
from core.options import TableOptions, options_dict, parse_options
from core.outcome import Outcome

NAME = "mariechen"
THROWS = 6  # throws in a player's turn
TARGETS: dict[str, tuple[int, ...]] = {"vorn": (1, 2, 3, 4, 5, 6), "hinten": (6, 5, 4, 3, 2, 1)}
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class MariechenOptions(TableOptions):
    """Mariechen's rule options: "von vorn", no Schikanen by default (docs/rules.md §2.2, §2.3)."""

    direction: Literal["vorn", "hinten"] = "vorn"
    schikanen: bool = False


class Stage(StrEnum):
    """What the table is doing."""

    TURNS = "turns"  # players take their six throws in seat order
    THROW_OFF = "throw_off"  # a tie group throws one die each
    OVER = "over"


class MariechenState(NamedTuple):
    """One Mariechen table. Seats are indices into `seats`; -1 means nobody.

    `standings` is empty until every player has thrown six times; then it holds the
    non-forfeited seats in tie blocks, best first, each block in seat order. `throw_off`
    is the index of the block throwing off (-1: none) and `throw_off_faces` the faces its
    players have thrown so far in this round, in seat order.
    """

    options: MariechenOptions
    seats: tuple[PlayerId, ...]
    survivors: int
    throws: tuple[tuple[int, ...], ...]  # faces thrown, per seat
    hits: tuple[tuple[int, ...], ...]  # targets hit, per seat, in throw order
    scores: tuple[int, ...]
    timeouts: tuple[int, ...]
    forfeited: tuple[int, ...]  # seats in the order they forfeited
    turn: int  # seat to act, -1 once over
    stage: Stage
    standings: tuple[tuple[int, ...], ...]
    throw_off: int
    throw_off_faces: tuple[int, ...]
    version: int


Events: TypeAlias = tuple[Event, ...]
Step: TypeAlias = tuple[MariechenState, Events]


class TurnStarted(NamedTuple):
    """`player` begins their six throws."""

    player: PlayerId


class ThrowCounted(NamedTuple):
    """`player`'s throw number `throw` aimed at `target`; `score` is their total after it."""

    player: PlayerId
    throw: int
    target: int
    hit: bool
    score: int


class ThrowOffStarted(NamedTuple):
    """`players`, tied for places `first_place`..`last_place`, throw one die each."""

    players: tuple[PlayerId, ...]
    first_place: int
    last_place: int


_THROW: tuple[Action, ...] = (Throw(),)


class Mariechen:
    """The Mariechen game behind the common `Game` protocol."""

    name = NAME
    title = "Mariechen"
    min_players = 2

    def parse_options(self, raw: Mapping[str, object] | None) -> MariechenOptions:
        """Validate Mariechen's rule options by name."""
        return parse_options(MariechenOptions, raw, NAME)

    def seat(
        self,
        players: Sequence[PlayerId],
        options: Mapping[str, object] | None = None,
        survivors: int = 1,
    ) -> Step:
        """Seat a table; the first seat throws first."""
        parsed = self.parse_options(options)
        seats = check_seating(NAME, players, survivors, self.min_players)
        zeros = (0,) * len(seats)
        empty: tuple[tuple[int, ...], ...] = ((),) * len(seats)
        state = MariechenState(
            options=parsed, seats=seats, survivors=survivors, throws=empty, hits=empty,
            scores=zeros, timeouts=zeros, forfeited=(), turn=0, stage=Stage.TURNS,
            standings=(), throw_off=-1, throw_off_faces=(), version=0,
        )  # fmt: skip
        return state, (
            TableSeated(NAME, seats, options_dict(parsed), survivors),
            TurnStarted(seats[0]),
        )

    def to_act(self, state: MariechenState) -> PlayerId | None:
        """The player to act, or None once the table is over."""
        return None if state.turn < 0 else state.seats[state.turn]

    def legal_actions(self, state: MariechenState) -> tuple[Action, ...]:
        """Throw, in a turn and in a throw-off alike; nothing once over."""
        return () if state.turn < 0 else _THROW

    def dice_needed(self, state: MariechenState, action: Action) -> int:
        """One die per throw; a timeout throws the turn's remaining throws (docs/rules.md §4.2)."""
        if type(action) is Throw:
            return 1
        if type(action) is not Timeout or state.turn < 0:
            return 0
        limit = state.options.forfeit_after_timeouts
        if limit > 0 and state.timeouts[state.turn] + 1 >= limit:
            return 0  # decision: a forfeiting player is out at once, nothing is thrown
        if state.stage is Stage.THROW_OFF:
            return 1
        return THROWS - len(state.throws[state.turn])

    def apply(
        self, state: MariechenState, player: PlayerId, action: Action, dice: Sequence[int] = ()
    ) -> Step:
        """Apply one action of the player to act (docs/rules.md §2 and §4)."""
        seat = state.turn
        if seat < 0 or state.seats[seat] != player:
            check_turn(NAME, self.to_act(state), player)
        kind = type(action)
        if kind is Throw:
            face = _one_die(dice)
            if state.stage is Stage.THROW_OFF:
                return _throw_off_throw(state, player, face, ())
            return _turn_throws(state, player, (face,), ())
        if kind is Timeout:
            return _timeout(state, player, dice)
        if kind is Forfeit:  # disqualified: out at once, as on a forfeiting timeout
            if dice:
                check_dice(dice, 0)
            return _forfeit(state, player, ())
        raise IllegalAction(
            f"Mariechen has no action '{action_name(action)}': every move is a throw",
            rule="rules §2.1 turn",
        )

    def view(self, state: MariechenState, viewer: PlayerId | None) -> dict[str, object]:
        """What `viewer` may see: everything, since every throw is public (docs/rules.md §2.1)."""
        to_act = self.to_act(state)
        view: dict[str, object] = {
            "game": NAME,
            "version": state.version,
            "stage": state.stage.value,
            "options": options_dict(state.options),
            "survivors": state.survivors,
            "seats": [
                {
                    "player": player,
                    "throws": list(state.throws[seat]),
                    "hits": list(state.hits[seat]),
                    "score": state.scores[seat],
                    "timeouts": state.timeouts[seat],
                    "forfeited": seat in state.forfeited,
                }
                for seat, player in enumerate(state.seats)
            ],
            "to_act": to_act,
            "throw": None,
            "target": None,
            "throw_off": None,
        }
        if state.stage is Stage.TURNS:
            number = len(state.throws[state.turn]) + 1
            view["throw"] = number
            view["target"] = TARGETS[state.options.direction][number - 1]
        elif state.stage is Stage.THROW_OFF:
            block = state.standings[state.throw_off]
            first = 1 + sum(len(b) for b in state.standings[: state.throw_off])
            view["throw_off"] = {
                "players": [state.seats[seat] for seat in block],
                "first_place": first,
                "last_place": first + len(block) - 1,
                "faces": list(state.throw_off_faces),
            }
        if viewer is not None and viewer == to_act:
            view["legal_actions"] = [action_to_dict(a) for a in self.legal_actions(state)]
        if state.stage is Stage.OVER:
            view["ranking"] = list(_ranking(state))
        return view

    def is_over(self, state: MariechenState) -> bool:
        """True once everyone has thrown and no throw-off is pending."""
        return state.stage is Stage.OVER

    def outcome(self, state: MariechenState) -> Outcome:
        """Score, hits and throw-offs decide; forfeits last, later forfeits first."""
        if state.stage is not Stage.OVER:
            raise MatchNotOver("the Mariechen table is still being played")
        return Outcome.from_ranking(
            _ranking(state),
            dict(zip(state.seats, state.scores, strict=True)),
            "score",
            lower_measure_is_better=False,
            forfeited={state.seats[seat] for seat in state.forfeited},
        )


def _ranking(state: MariechenState) -> tuple[PlayerId, ...]:
    ranked = [seat for block in state.standings for seat in block]
    return tuple(state.seats[seat] for seat in (*ranked, *reversed(state.forfeited)))


def _one_die(dice: Sequence[int]) -> int:
    if (type(dice) is tuple or type(dice) is list) and len(dice) == 1:
        face = dice[0]
        if type(face) is int and 0 < face < 7:
            return face
    check_dice(dice, 1)  # raises with the precise complaint
    raise InvalidDice("unreachable")  # pragma: no cover


def _put(values: tuple[_T, ...], seat: int, value: _T) -> tuple[_T, ...]:
    return (*values[:seat], value, *values[seat + 1 :])


def _next_seat(state: MariechenState, seat: int) -> int:
    """The seat after `seat`, -1 after the last: each seat takes one turn, in seat order.

    Only the player to act can forfeit, so no later seat has forfeited yet.
    """
    return seat + 1 if seat + 1 < len(state.seats) else -1


def _turn_throws(
    state: MariechenState, player: PlayerId, faces: Sequence[int], events: Events
) -> Step:
    """Count `faces` as the acting player's next throws; after the sixth, the next seat."""
    seat, options = state.turn, state.options
    thrown, hits, score = state.throws[seat], state.hits[seat], state.scores[seat]
    targets = TARGETS[options.direction]
    for face in faces:
        target = targets[len(thrown)]
        # Decision (docs/rules.md §2.3 schikanen): the bottom face (7 - top) counts automatically.
        hit = face == target or (options.schikanen and face == 7 - target)
        thrown = (*thrown, face)
        if hit:
            hits, score = (*hits, target), score + target
        counted = ThrowCounted(player, len(thrown), target, hit, score)
        events = (*events, DiceThrown(player, (face,), Visibility.PUBLIC), counted)
    all_hits, scores = state.hits, state.scores
    if score != scores[seat]:  # only a hit changes them
        all_hits, scores = _put(all_hits, seat, hits), _put(scores, seat, score)
    turn = seat if len(thrown) < THROWS else _next_seat(state, seat)
    new = MariechenState(
        options, state.seats, state.survivors, _put(state.throws, seat, thrown), all_hits,
        scores, state.timeouts, state.forfeited, turn, Stage.TURNS, (), -1, (),
        state.version + 1,
    )  # fmt: skip
    if turn == seat:
        return new, events
    if turn >= 0:
        return new, (*events, TurnStarted(state.seats[turn]))
    return _end_of_turns(new, events)


def _end_of_turns(state: MariechenState, events: Events) -> Step:
    """Rank by score, then hits highest first; equal players form a tie block in seat order."""
    scores, hits = state.scores, state.hits

    def key(seat: int) -> tuple[int, list[int]]:
        return scores[seat], sorted(hits[seat], reverse=True)

    playing = [seat for seat in range(len(state.seats)) if seat not in state.forfeited]
    playing.sort(key=key, reverse=True)  # stable: equal players keep seat order
    standings = tuple(tuple(block) for _, block in groupby(playing, key=key))
    return _next_throw_off(state._replace(standings=standings), events)


def _pending(standings: tuple[tuple[int, ...], ...], survivors: int) -> tuple[int, int]:
    """The top tie block spanning the winner's place or the advance cut, and its first place.

    Decision (docs/rules.md §2.5): a block at places a..b throws off only if a <= k < b for k in
    {1, survivors}; any other block keeps seat order. Returns (-1, 0) when none does.
    """
    first = 1
    for index, block in enumerate(standings):
        if first > survivors:
            break
        last = first + len(block) - 1
        if first <= 1 < last or first <= survivors < last:
            return index, first
        first = last + 1
    return -1, 0


def _next_throw_off(state: MariechenState, events: Events) -> Step:
    """Start the top pending throw-off, or finish the table when none is left."""
    index, first = _pending(state.standings, state.survivors)
    if index < 0:
        over = state._replace(turn=-1, stage=Stage.OVER, throw_off=-1, throw_off_faces=())
        return over, (*events, MatchFinished(_ranking(over)))
    block = state.standings[index]
    new = state._replace(turn=block[0], stage=Stage.THROW_OFF, throw_off=index, throw_off_faces=())
    players = tuple(state.seats[seat] for seat in block)
    return new, (*events, ThrowOffStarted(players, first, first + len(block) - 1))


def _throw_off_throw(state: MariechenState, player: PlayerId, face: int, events: Events) -> Step:
    """One die of the throw-off, thrown by the block's next player in seat order."""
    events = (*events, DiceThrown(player, (face,), Visibility.PUBLIC))
    block, faces = state.standings[state.throw_off], (*state.throw_off_faces, face)
    return _throw_off_goes_on(state._replace(version=state.version + 1), block, faces, events)


def _throw_off_goes_on(
    state: MariechenState, block: tuple[int, ...], faces: tuple[int, ...], events: Events
) -> Step:
    """Go on with the throw-off `block` whose players have thrown `faces` so far this round.

    Once all have thrown: highest face first; equal faces stay a block in seat order and
    throw again while they still span a place that matters.
    """
    index = state.throw_off
    standings = _put(state.standings, index, block)
    if _pending(standings, state.survivors)[0] != index:  # a forfeit took the stake away
        return _next_throw_off(state._replace(standings=standings), events)
    if len(faces) < len(block):
        new = state._replace(turn=block[len(faces)], standings=standings, throw_off_faces=faces)
        return new, events
    order = sorted(zip(faces, block, strict=True), key=lambda pair: -pair[0])  # stable
    parts = tuple(tuple(seat for _, seat in part) for _, part in groupby(order, lambda p: p[0]))
    standings = (*standings[:index], *parts, *standings[index + 1 :])
    return _next_throw_off(state._replace(standings=standings), events)


def _timeout(state: MariechenState, player: PlayerId, dice: Sequence[int]) -> Step:
    """docs/rules.md §4.2: the remaining throws are thrown and count, or the player forfeits."""
    seat = state.turn
    timeouts = _put(state.timeouts, seat, state.timeouts[seat] + 1)
    events: Events = (TurnTimedOut(player, timeouts[seat]),)
    limit = state.options.forfeit_after_timeouts
    if limit > 0 and timeouts[seat] >= limit:
        check_dice(dice, 0)
        return _forfeit(state._replace(timeouts=timeouts), player, events)
    if state.stage is Stage.THROW_OFF:
        return _throw_off_throw(state._replace(timeouts=timeouts), player, _one_die(dice), events)
    faces = check_dice(dice, THROWS - len(state.throws[seat]))
    return _turn_throws(state._replace(timeouts=timeouts), player, faces, events)


def _forfeit(state: MariechenState, player: PlayerId, events: Events) -> Step:
    """Put the player to act out at once; they take no further part (docs/rules.md §4.3)."""
    seat = state.turn
    state = state._replace(forfeited=(*state.forfeited, seat), version=state.version + 1)
    events = (*events, PlayerForfeited(player))
    if state.stage is Stage.TURNS:
        turn = _next_seat(state, seat)
        if turn < 0:
            return _end_of_turns(state, events)
        return state._replace(turn=turn), (*events, TurnStarted(state.seats[turn]))
    # In a throw-off they leave the block; the faces already thrown this round stand.
    block = tuple(other for other in state.standings[state.throw_off] if other != seat)
    return _throw_off_goes_on(state, block, state.throw_off_faces, events)


GAME = Mariechen()
