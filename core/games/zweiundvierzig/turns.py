"""A turn of 42: the Throw, Stop, Concede and Timeout handlers, and passing the turn on."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.actions import Concede, Forfeit, Stop, Throw, Timeout
from core.dice import read_two_dice
from core.errors import IllegalAction
from core.events import DiceThrown, Event, PlayerForfeited, PlayerId, TurnTimedOut, Visibility
from core.games.zweiundvierzig.events import PlayerPlaced, TurnEnded
from core.games.zweiundvierzig.phases import finish, place_lone_player, score_round
from core.games.zweiundvierzig.ranking import NO_THROW, TurnResult
from core.games.zweiundvierzig.state import (
    CONCEDE_VALUE,
    COVERED_THROW,
    Phase,
    ZweiundvierzigState,
    bump,
    top_known,
)


def _concede_offered(state: ZweiundvierzigState, value: int, thrown: int) -> bool:
    """docs/rules.md §3.6 courtesy: 32 on the last allowed throw, seen by the thrower (not a
    covered fifth). Decision: in the Rückrunde only once someone else has finished, since
    the round's best, who passes the stick, is chosen among those who finished; without
    the offer, Stop is the only choice left, so the turn ends at the limit by itself."""
    return (
        value == CONCEDE_VALUE
        and thrown == state.limit
        and thrown != COVERED_THROW
        and (state.phase is not Phase.RUECKRUNDE or bool(state.results))
    )


def throw(
    state: ZweiundvierzigState, player: PlayerId, dice: Sequence[int]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """Throw two dice; at the limit the turn ends, unless an open 32 offers a concede."""
    thrown = len(state.in_hand) + 1
    if thrown > state.limit:
        raise IllegalAction(
            f"you have used all {state.limit} throws allowed in this round: stop or concede",
            rule="rules §3.3 round",
        )
    value, faces = read_two_dice(dice)
    # docs/rules.md §3.4: a fifth throw stays covered, even for its thrower, until scored.
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


def stop(
    state: ZweiundvierzigState, player: PlayerId, dice: Sequence[int]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """End the turn with the last throw in hand."""
    if not state.in_hand:
        raise IllegalAction("throw at least once before you stop", rule="rules §3.3 round")
    return _end_turn(state, state.in_hand[-1], len(state.in_hand), ())


def concede(
    state: ZweiundvierzigState, player: PlayerId, dice: Sequence[int]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """Take an offered 32 as the round's worst at once (docs/rules.md §3.6 courtesy)."""
    thrown = len(state.in_hand)
    if not thrown or not _concede_offered(state, state.in_hand[-1], thrown):
        raise IllegalAction(
            "you may concede only with an open 32 on your last allowed throw"
            + (" once someone has finished" if state.phase is Phase.RUECKRUNDE else ""),
            rule="rules §3.6 courtesy",
        )
    # The conceder is the round's worst at once; nobody after them throws.
    conceder = TurnResult(state.turn, CONCEDE_VALUE, thrown)
    return score_round(state, (*state.results, conceder), (), conceded=True)


def timeout(
    state: ZweiundvierzigState, player: PlayerId, dice: Sequence[int]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """docs/rules.md §4.2: the turn ends with the last throw, none thrown being the worst result."""
    seat = state.turn
    timeouts = bump(state.timeouts, seat, 1)
    events: tuple[Event, ...] = (TurnTimedOut(player, timeouts[seat]),)
    state = state._replace(timeouts=timeouts)
    forfeit_after = state.options.forfeit_after_timeouts
    if forfeit_after and timeouts[seat] >= forfeit_after:
        return _forfeit(state, seat, events)
    in_hand = state.in_hand
    return _end_turn(state, in_hand[-1] if in_hand else NO_THROW, len(in_hand), events)


def forfeit(
    state: ZweiundvierzigState, player: PlayerId, dice: Sequence[int]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """Disqualified: out at once, as on the forfeiting timeout (docs/rules.md §4.3, §4.4)."""
    return _forfeit(state, state.turn, ())


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
        return score_round(state, results, events, conceded=False)
    s = state
    new = ZweiundvierzigState(
        s.options, s.seats, s.survivors, s.phase, s.pot, s.sticks, s.sticks_removed,
        s.timeouts, s.forfeited, s.group, s.group_placed, s.left, s.bottom, s.round,
        s.starter, order, results, (), limit, order[len(results)], s.version + 1,
    )  # fmt: skip
    return new, events


def _forfeit(
    state: ZweiundvierzigState, seat: int, events: tuple[Event, ...]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """docs/rules.md §4.3: out at once, ranked last among those whose place is open; the round
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
    state, events = place_lone_player(state, events)
    if top_known(state):
        return finish(state, events)  # decision: an unfinished round is dropped
    limit = state.limit
    if seat == state.starter:
        limit = len(state.in_hand) or state.options.max_throws  # as for a timeout
    order = tuple(member for member in state.order if member != seat)
    return _next_turn(state, order, state.results, limit, events)


Handler = Callable[
    [ZweiundvierzigState, PlayerId, Sequence[int]],
    tuple[ZweiundvierzigState, tuple[Event, ...]],
]
HANDLERS: dict[type, Handler] = {
    Throw: throw,
    Stop: stop,
    Concede: concede,
    Timeout: timeout,
    Forfeit: forfeit,
}
