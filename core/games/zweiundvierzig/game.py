"""42 behind the common `Game` protocol: seating, whose turn, legal actions, views, outcome."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.actions import Action, Concede, Stop, Throw, action_name, action_to_dict
from core.checks import check_dice, check_seating, check_turn
from core.errors import IllegalAction, MatchNotOver
from core.events import Event, PlayerId, TableSeated
from core.games.zweiundvierzig.events import RoundStarted
from core.games.zweiundvierzig.ranking import NO_THROW
from core.games.zweiundvierzig.state import (
    COVERED_THROW,
    NAME,
    Phase,
    ZweiundvierzigOptions,
    ZweiundvierzigState,
    players_ranked,
)
from core.games.zweiundvierzig.turns import HANDLERS, throw
from core.options import options_dict, parse_options
from core.outcome import Outcome

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
        """Apply one action of the player to act (docs/rules.md §3 and §4)."""
        seat = state.turn
        if seat < 0 or state.seats[seat] != player:
            check_turn(NAME, self.to_act(state), player)
        handler = HANDLERS.get(type(action))
        if handler is None:
            name = action_name(action)
            raise IllegalAction(f"42 muss kommen has no action '{name}'", rule="rules §3.3 round")
        if dice and handler is not throw:
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
            view["ranking"] = list(players_ranked(state))
        return view

    def is_over(self, state: ZweiundvierzigState) -> bool:
        """True once the set of the top `survivors` places is known."""
        return state.phase is Phase.OVER

    def outcome(self, state: ZweiundvierzigState) -> Outcome:
        """Earlier departures first, forfeits last; the measure is sticks held at the end."""
        if state.phase is not Phase.OVER:
            raise MatchNotOver("the 42 table is still being played")
        return Outcome.from_ranking(
            players_ranked(state),
            dict(zip(state.seats, state.sticks, strict=True)),
            "sticks",
            lower_measure_is_better=True,
            forfeited={state.seats[seat] for seat in state.forfeited},
        )


def _status(state: ZweiundvierzigState, seat: int) -> str:
    if seat in state.forfeited:
        return "forfeited"
    if seat in state.group or seat in state.group_placed or seat in state.left:
        return "left"
    return "left" if seat in state.bottom else "playing"


GAME = Zweiundvierzig()
