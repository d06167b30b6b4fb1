"""After a round of 42: score it, then the Hinrunde, play-off or Rückrunde step and stop."""

from __future__ import annotations

from core.events import Event, MatchFinished
from core.games.zweiundvierzig.events import (
    PlayerPlaced,
    PlayersLeft,
    RoundScored,
    RoundStarted,
    StickPassed,
    StickTaken,
)
from core.games.zweiundvierzig.ranking import TurnResult, best_position, worst_and_best
from core.games.zweiundvierzig.state import (
    Phase,
    ZweiundvierzigState,
    bump,
    players_ranked,
    top_known,
    unplaced,
)


def score_round(
    state: ZweiundvierzigState,
    results: tuple[TurnResult, ...],
    events: tuple[Event, ...],
    *,
    conceded: bool,
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """Reveal every turn, find the worst and best, and settle the round by its phase."""
    if conceded:  # the conceder, last in `results`, is the worst at once
        worst, best = len(results) - 1, best_position(results[:-1], state.sticks)
    else:
        worst, best = worst_and_best(results, state.sticks)
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
    sticks = bump(state.sticks, worst, 1)
    pot = state.pot - 1
    events = (*events, StickTaken(state.seats[worst], sticks[worst], pot))
    state = state._replace(sticks=sticks, pot=pot)
    if pot:
        return _start_round(state, Phase.HINRUNDE, unplaced(state), worst, events)
    # The Hinrunde is over: everyone without a stick leaves as a winner at the same moment.
    leavers = tuple(seat for seat in unplaced(state) if not sticks[seat])
    if leavers:
        state = state._replace(group=leavers)
        names = tuple(state.seats[seat] for seat in leavers)
        events = (*events, PlayersLeft(names, 1, len(leavers)))
    state, events = place_lone_player(state, events)  # a single holder is last
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
    sticks = bump(bump(state.sticks, best, -1), worst, 1)
    seats = state.seats
    events = (*events, StickPassed(seats[best], seats[worst], sticks[best], sticks[worst]))
    state = state._replace(sticks=sticks)
    if not sticks[best]:
        left = (*state.left, best)
        place = len(state.group) + len(state.group_placed) + len(left)
        state = state._replace(left=left)
        events = (*events, PlayerPlaced(seats[best], place))
        state, events = place_lone_player(state, events)  # holds all the sticks: last
    return _next_round(state, events, rueckrunde_starter=worst, playoff_after=-1)


def place_lone_player(
    state: ZweiundvierzigState, events: tuple[Event, ...]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """A single player left at the table takes the one free place (the last holder)."""
    at_table = unplaced(state)
    if len(at_table) != 1:
        return state, events
    place = len(state.seats) - len(state.bottom)
    state = state._replace(bottom=(*state.bottom, at_table[0]))
    return state, (*events, PlayerPlaced(state.seats[at_table[0]], place))


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
    if top_known(state):
        return finish(state, events)
    holders = unplaced(state)
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


def finish(
    state: ZweiundvierzigState, events: tuple[Event, ...]
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    """End the match: nobody acts any more, and every player is ranked."""
    over = state._replace(phase=Phase.OVER, turn=-1, version=state.version + 1)
    return over, (*events, MatchFinished(players_ranked(over)))
