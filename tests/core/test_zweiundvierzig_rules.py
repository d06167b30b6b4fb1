"""One test per rule and decision of docs/rules.md §3 (42 muss kommen) and §4, scripted dice."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import pytest

from core import registry
from core.actions import Action, Announce, BlindReroll, Concede, Doubt, Stop, Throw, Timeout
from core.audit import AuditMismatch, LogEntry, event_record, log_records, verify
from core.dice import throw_value
from core.errors import (
    IllegalAction,
    InvalidDice,
    InvalidOption,
    InvalidSeating,
    MatchNotOver,
    MatchOver,
    NotYourTurn,
    UnknownOption,
)
from core.events import DiceThrown, Event, MatchFinished, PlayerForfeited, TurnTimedOut, Visibility
from core.games.zweiundvierzig import (
    GAME,
    PlayerPlaced,
    PlayersLeft,
    RoundScored,
    RoundStarted,
    StickPassed,
    StickTaken,
    TurnEnded,
    ZweiundvierzigState,
)
from core.games.zweiundvierzig.ranking import (
    RANKING,
    TurnResult,
    top_places_known,
    worst_and_best,
)

FOUR = ("ann", "bob", "cem", "dan")
D42, D22, D31, D61, D64, D32 = (4, 2), (2, 2), (3, 1), (6, 1), (6, 4), (3, 2)


def seat(
    players: Sequence[str] = ("ann", "bob", "cem"), survivors: int = 1, **options: object
) -> ZweiundvierzigState:
    state, _ = GAME.seat(players, options, survivors)
    return state


def act(
    state: ZweiundvierzigState, action: Action, dice: tuple[int, ...] = ()
) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    player = GAME.to_act(state)
    assert player is not None
    return GAME.apply(state, player, action, dice)


def throws(
    state: ZweiundvierzigState, *dice: tuple[int, int]
) -> tuple[ZweiundvierzigState, list[Event]]:
    """The player to act throws each pair in turn (a pair per action)."""
    events: list[Event] = []
    for pair in dice:
        state, new = act(state, Throw(), pair)
        events.extend(new)
    return state, events


def turns(
    state: ZweiundvierzigState, *dice: tuple[int, int]
) -> tuple[ZweiundvierzigState, list[Event]]:
    """One-throw turns (max_throws=1): each player to act throws once, keeping a 32."""
    events: list[Event] = []
    for pair in dice:
        state, new_events = throws(state, pair)
        events.extend(new_events)
        if GAME.to_act(state) is not None and GAME.legal_actions(state) == (Concede(), Stop()):
            state, new = act(state, Stop())
            events.extend(new)
    return state, events


def stop(state: ZweiundvierzigState) -> tuple[ZweiundvierzigState, tuple[Event, ...]]:
    return act(state, Stop())


def sticks(state: ZweiundvierzigState) -> dict[str, int]:
    return dict(zip(state.seats, state.sticks, strict=True))


def scored(events: Sequence[Event]) -> RoundScored:
    return next(e for e in events if isinstance(e, RoundScored))


def stick_invariant(state: ZweiundvierzigState) -> None:
    at_table = sum(n for seat, n in enumerate(state.sticks) if seat not in state.forfeited)
    assert state.pot + at_table + state.sticks_removed == state.options.sticks
    assert state.pot >= 0 and min(state.sticks) >= 0


def rueckrunde_table() -> ZweiundvierzigState:
    """ann and bob left after the Hinrunde; cem holds 2 sticks, dan 1; cem starts."""
    state = seat(FOUR, survivors=3, sticks=3, max_throws=1)
    state, _ = turns(state, D42, D31, D22, D32)  # dan takes a stick, starts round 2
    state, _ = turns(state, D22, D42, D31, D32)  # dan, ann, bob, cem: cem takes one
    state, _ = turns(state, D32, D61, D42, D22)  # cem, dan, ann, bob: cem takes the last
    return state


# --- ranking and the round -----------------------------------------------------------


def test_ranking_order_42_best_32_worst() -> None:
    assert RANKING[0] == 42 and RANKING[1] == 22 and RANKING[-1] == 32
    all_values = {throw_value(a, b) for a in range(1, 7) for b in range(1, 7)}
    assert set(RANKING) == all_values and len(RANKING) == 21
    results = [TurnResult(0, 32, 1), TurnResult(1, 42, 1), TurnResult(2, 66, 1)]
    assert worst_and_best(results) == (0, 1)


def test_throw_value_is_written_higher_die_first() -> None:
    assert throw_value(2, 4) == 42 and throw_value(3, 2) == 32 and throw_value(5, 5) == 55


def test_seat_zero_starts() -> None:
    state, events = GAME.seat(["bob", "ann", "cem"])
    assert GAME.to_act(state) == "bob"
    assert events[-1] == RoundStarted(1, state.phase, "bob", ("bob", "ann", "cem"))
    assert GAME.legal_actions(state) == (Throw(),)
    assert (state.pot, state.limit, state.version) == (13, 5, 0)


def test_starter_sets_the_throw_limit() -> None:
    state, _ = throws(seat(), D61, D61, D61)
    assert state.limit == 5 and GAME.legal_actions(state) == (Throw(), Stop())
    state, _ = stop(state)
    assert GAME.to_act(state) == "bob" and state.limit == 3
    state, events = throws(state, D61, D61, D61)  # the third throw ends bob's turn
    assert TurnEnded("bob", 3) in events
    assert GAME.to_act(state) == "cem" and state.in_hand == ()


def test_starter_may_use_all_five_throws() -> None:
    state, events = throws(seat(), D61, D61, D61, D61, D61)
    assert TurnEnded("ann", 5) in events
    assert GAME.to_act(state) == "bob" and state.limit == 5


def test_decision_starter_timed_out_before_throwing_leaves_others_max_throws() -> None:
    state, _ = act(seat(max_throws=4), Timeout())
    assert GAME.to_act(state) == "bob" and state.limit == 4


def test_starter_timed_out_after_throwing_sets_the_limit_to_their_throws() -> None:
    state, _ = throws(seat(), D61, D61)
    state, _ = act(state, Timeout())
    assert state.limit == 2


def test_others_may_stop_early() -> None:
    state, _ = throws(seat(), D61, D61, D61)
    state, _ = stop(state)
    state, _ = throws(state, D42)
    state, events = stop(state)
    assert events == (TurnEnded("bob", 1),)
    assert GAME.to_act(state) == "cem"


def test_throw_beyond_limit_rejected() -> None:
    state, _ = throws(seat(max_throws=2), D61, D32)  # 32 on the last throw: may concede
    assert GAME.legal_actions(state) == (Concede(), Stop())
    with pytest.raises(IllegalAction, match="all 2 throws") as error:
        GAME.apply(state, "ann", Throw(), D42)
    assert error.value.rule == "rules §3.3 round"
    assert state.in_hand == (61, 32) and GAME.to_act(state) == "ann"


def test_fifth_throw_is_covered_even_for_the_thrower() -> None:
    state, events = throws(seat(), D61, D61, D61, D61)
    assert all(isinstance(e, DiceThrown) and e.visibility is Visibility.PUBLIC for e in events)
    state, events = throws(state, D42)
    fifth = events[0]
    assert isinstance(fifth, DiceThrown) and fifth.visibility is Visibility.NOBODY
    for viewer in ("ann", "bob", None):
        assert event_record(fifth, viewer, revealed=False)["dice"] is None
    assert event_record(fifth, "ann", revealed=True)["dice"] == [4, 2]
    round_view = GAME.view(state, "ann")["round"]
    assert isinstance(round_view, dict)
    assert round_view["finished"] == [{"player": "ann", "last_throw": None, "throws": 5}]
    assert "42" not in json.dumps(GAME.view(state, "ann"))


def test_covered_throw_revealed_when_round_scored() -> None:
    state, _ = throws(seat(), D61, D61, D61, D61, D42)
    state, _ = throws(state, D61, D61, D61, D61, D22)
    state, _ = throws(state, D61)
    state, events = stop(state)
    result = scored(events)
    assert result.players == ("ann", "bob", "cem")
    assert result.last_throws == (42, 22, 61) and result.throws == (5, 5, 1)
    assert (result.worst, result.best, result.conceded) == ("cem", "ann", False)


def test_more_throws_is_worse_on_equal_value() -> None:
    state, _ = throws(seat(("ann", "bob")), D61, D64)
    state, _ = stop(state)
    state, _ = throws(state, D64)
    state, events = stop(state)
    assert scored(events).worst == "ann" and sticks(state) == {"ann": 1, "bob": 0}


def test_mit_ist_schitt_later_thrower_worse() -> None:
    state, _ = throws(seat(("ann", "bob")), (5, 1))
    state, _ = stop(state)
    state, events = throws(state, (1, 5))  # bob's one allowed throw ends his turn
    assert scored(events).worst == "bob" and scored(events).best == "ann"


def test_worst_takes_a_stick_from_the_pot() -> None:
    state, events = turns(seat(sticks=3, max_throws=1), D42, D32, D22)
    assert StickTaken("bob", 1, 2) in events
    assert state.pot == 2 and sticks(state) == {"ann": 0, "bob": 1, "cem": 0}


def test_loser_starts_next_round() -> None:
    state, events = turns(seat(sticks=3, max_throws=1), D42, D32, D22)
    assert events[-1] == RoundStarted(2, state.phase, "bob", ("bob", "cem", "ann"))
    assert GAME.to_act(state) == "bob" and state.starter == 1


# --- the courtesy concede ------------------------------------------------------------


def test_concede_on_32_with_last_allowed_throw() -> None:
    state, _ = throws(seat(sticks=3), D61)
    state, _ = stop(state)
    state, _ = throws(state, D32)  # bob's one allowed throw
    assert GAME.legal_actions(state) == (Concede(), Stop())
    state, events = act(state, Concede())
    result = scored(events)
    assert result.conceded and result.worst == "bob" and result.best == "ann"
    assert result.players == ("ann", "bob")  # cem did not have to throw
    assert sticks(state)["bob"] == 1 and GAME.to_act(state) == "bob"


def test_stop_instead_of_concede_keeps_the_32() -> None:
    state, _ = throws(seat(sticks=3), D61)
    state, _ = stop(state)
    state, _ = throws(state, D32)
    state, _ = stop(state)
    assert GAME.to_act(state) == "cem" and state.results[-1] == TurnResult(1, 32, 1)


def test_no_concede_before_the_last_allowed_throw() -> None:
    state, _ = throws(seat(), D32)
    assert GAME.legal_actions(state) == (Throw(), Stop())
    with pytest.raises(IllegalAction, match="concede only") as error:
        GAME.apply(state, "ann", Concede())
    assert error.value.rule == "rules §3.6 courtesy"


def test_no_concede_on_covered_fifth_throw() -> None:
    state, events = throws(seat(), D61, D61, D61, D61, D32)
    assert TurnEnded("ann", 5) in events
    assert GAME.to_act(state) == "bob" and state.results[0] == TurnResult(0, 32, 5)


def test_decision_rueckrunde_concede_only_once_someone_finished() -> None:
    state = rueckrunde_table()
    assert state.phase == "rueckrunde" and GAME.to_act(state) == "cem"
    state, events = throws(state, D32)  # nobody finished yet: the turn simply ends
    assert TurnEnded("cem", 1) in events and GAME.to_act(state) == "dan"
    state, _ = throws(state, D32)  # cem finished: dan may concede
    assert GAME.legal_actions(state) == (Concede(), Stop())
    state, conceded = act(state, Concede())
    assert scored(conceded).conceded and StickPassed("cem", "dan", 1, 2) in conceded


# --- Hinrunde, play-off, Rückrunde ---------------------------------------------------


def test_players_without_sticks_leave_after_hinrunde() -> None:
    state = seat(FOUR, survivors=3, sticks=3, max_throws=1)
    state, _ = turns(state, D42, D31, D22, D32)
    state, _ = turns(state, D22, D42, D31, D32)
    state, events = turns(state, D32, D61, D42, D22)
    assert PlayersLeft(("ann", "bob"), 1, 2) in events
    assert events[-1] == RoundStarted(4, state.phase, "cem", ("cem", "dan"))
    assert state.phase == "rueckrunde" and state.pot == 0
    statuses = [s["status"] for s in GAME.view(state, None)["seats"]]  # type: ignore[attr-defined]
    assert statuses == ["left", "left", "playing", "playing"]


def test_decision_rueckrunde_starts_with_the_last_hinrunde_loser() -> None:
    state = rueckrunde_table()
    assert GAME.to_act(state) == "cem" and state.starter == 2


def test_rueckrunde_best_passes_a_stick_to_worst() -> None:
    state, events = turns(rueckrunde_table(), D42, D32)
    assert StickPassed("cem", "dan", 1, 2) in events
    assert sticks(state) == {"ann": 0, "bob": 0, "cem": 1, "dan": 2}
    assert GAME.to_act(state) == "dan"  # the round's worst starts the next


def test_rueckrunde_player_without_stick_leaves() -> None:
    state, events = turns(rueckrunde_table(), D32, D42)
    assert StickPassed("dan", "cem", 0, 3) in events
    assert PlayerPlaced("dan", 3) in events
    assert GAME.outcome(state).ranking == ("ann", "bob", "dan", "cem")


def test_holder_of_all_sticks_is_last() -> None:
    state, events = turns(rueckrunde_table(), D32, D42)
    assert PlayerPlaced("cem", 4) in events
    outcome = GAME.outcome(state)
    assert outcome.placements[-1].player == "cem" and outcome.placements[-1].measure == 3


def test_single_holder_after_hinrunde_is_last() -> None:
    state = seat(sticks=2, max_throws=1, survivors=2)
    state, _ = turns(state, D42, D31, D32)
    state, events = turns(state, D32, D42, D31)
    assert PlayersLeft(("ann", "bob"), 1, 2) in events and PlayerPlaced("cem", 3) in events
    assert GAME.outcome(state).ranking == ("ann", "bob", "cem")


def test_play_off_orders_simultaneous_leavers() -> None:
    state = seat(("ann", "bob", "cem", "dan", "eve"), sticks=2, max_throws=1)
    state, _ = turns(state, D42, D22, D31, D61, D32)  # eve takes a stick
    state, events = turns(state, D42, D22, D31, D61, D32)  # eve, ann, bob, cem, dan
    assert PlayersLeft(("ann", "bob", "cem"), 1, 3) in events
    assert events[-1] == RoundStarted(3, state.phase, "ann", ("ann", "bob", "cem"))
    assert state.phase == "playoff"
    state, events = turns(state, D42, D32, D22)  # bob is worst: place 3
    assert PlayerPlaced("bob", 3) in events
    assert events[-1] == RoundStarted(4, state.phase, "cem", ("cem", "ann"))  # after bob
    state, events = turns(state, D32, D42)
    assert PlayerPlaced("cem", 2) in events and isinstance(events[-1], MatchFinished)
    assert GAME.outcome(state).ranking == ("ann", "cem", "bob", "dan", "eve")


def test_decision_unresolved_group_keeps_seat_order() -> None:
    state = seat(FOUR, survivors=2, sticks=2, max_throws=1)
    state, _ = turns(state, D61, D42, D22, D32)
    state, events = turns(state, D42, D61, D22, D32)  # dan, ann, bob, cem
    assert PlayersLeft(("ann", "bob"), 1, 2) in events
    assert GAME.outcome(state).top(2) == ("ann", "bob")


def test_match_stops_once_top_places_known() -> None:
    state = seat(FOUR, survivors=2, sticks=3, max_throws=1)
    state, _ = turns(state, D42, D22, D32, D31)  # cem
    state, _ = turns(state, D32, D31, D42, D22)  # cem, dan, ann, bob: cem
    state, events = turns(state, D42, D32, D22, D31)  # cem, dan, ann, bob: dan
    assert GAME.is_over(state) and GAME.to_act(state) is None
    assert not any(isinstance(e, RoundStarted) for e in events)
    assert sticks(state) == {"ann": 0, "bob": 0, "cem": 2, "dan": 1}
    # players still at the table rank below the leavers, fewer sticks first
    assert GAME.outcome(state).ranking == ("ann", "bob", "dan", "cem")
    with pytest.raises(MatchOver):
        GAME.apply(state, "cem", Throw(), D42)


def test_top_places_known_only_when_the_cut_splits_no_open_block() -> None:
    assert not top_places_known(survivors=1, group=2, above=2, unplaced=2)
    assert top_places_known(survivors=2, group=2, above=2, unplaced=2)
    assert not top_places_known(survivors=3, group=2, above=2, unplaced=2)
    assert top_places_known(survivors=3, group=2, above=2, unplaced=1)


# --- timeouts and forfeits -----------------------------------------------------------


def test_timeout_ends_turn_with_last_throw() -> None:
    state, _ = throws(seat(("ann", "bob"), sticks=2), D42, D32)
    state, events = act(state, Timeout())
    assert events == (TurnTimedOut("ann", 1), TurnEnded("ann", 2))
    assert state.results == (TurnResult(0, 32, 2),) and state.limit == 2
    assert GAME.view(state, None)["seats"][0]["timeouts"] == 1  # type: ignore[index]


def test_timeout_at_the_concede_choice_keeps_the_32() -> None:
    state, _ = throws(seat(max_throws=1), D32)
    state, _ = act(state, Timeout())
    assert state.results == (TurnResult(0, 32, 1),)


def test_timeout_without_throw_is_worst() -> None:
    state, _ = act(seat(("ann", "bob")), Timeout())
    state, _ = throws(state, D32)
    state, events = stop(state)
    result = scored(events)
    assert result.last_throws == (None, 32) and result.worst == "ann"


def test_timeout_without_throw_later_is_worse() -> None:
    state, _ = act(seat(("ann", "bob")), Timeout())
    state, events = act(state, Timeout())
    assert scored(events).worst == "bob"


def test_decision_without_throws_more_sticks_is_worse_before_later() -> None:
    state = seat(("ann", "bob"), sticks=3)
    state, _ = throws(state, D32)  # ann throws, bob waits it out: bob takes a stick
    state, _ = stop(state)
    state, events = act(state, Timeout())
    assert scored(events).worst == "bob" and sticks(state) == {"ann": 0, "bob": 1}
    state, _ = act(state, Timeout())  # bob starts and waits, then ann waits too
    state, events = act(state, Timeout())
    assert scored(events).worst == "bob"  # bob holds more sticks, though ann was later


def test_decision_two_players_who_never_act_still_finish() -> None:
    state = seat(("ann", "bob"))
    for _ in range(200):
        if GAME.is_over(state):
            break
        state, _ = act(state, Timeout())
    assert GAME.is_over(state)
    assert sorted(GAME.outcome(state).ranking) == ["ann", "bob"]


def test_forfeit_after_timeouts() -> None:
    state = seat(FOUR, forfeit_after_timeouts=2, sticks=5)
    state, _ = act(state, Timeout())  # ann's first timeout: turn ends
    assert GAME.to_act(state) == "bob"
    for pair in (D32, D42, D42):  # bob, cem, dan throw once and stop
        state, _ = throws(state, pair)
        state, _ = stop(state)
    # ann's turn without a throw is the worst: ann takes a stick and starts
    assert GAME.to_act(state) == "ann" and sticks(state)["ann"] == 1
    state, events = act(state, Timeout())
    assert PlayerForfeited("ann") in events and PlayerPlaced("ann", 4) in events
    assert GAME.to_act(state) == "bob" and state.order == (1, 2, 3)
    assert state.sticks_removed == 1 and state.pot == 4  # the pot is not refilled
    stick_invariant(state)
    statuses = [s["status"] for s in GAME.view(state, None)["seats"]]  # type: ignore[attr-defined]
    assert statuses == ["forfeited", "playing", "playing", "playing"]


def test_decision_forfeiting_starter_sets_the_limit_like_a_timeout() -> None:
    state, _ = throws(seat(FOUR, forfeit_after_timeouts=1), D61, D61)
    state, events = act(state, Timeout())
    assert PlayerForfeited("ann") in events and PlayerPlaced("ann", 4) in events
    assert GAME.to_act(state) == "bob" and state.limit == 2 and state.order == (1, 2, 3)
    state, _ = throws(state, D42, D61)  # bob's second throw ends his turn
    assert GAME.to_act(state) == "cem"


def test_later_forfeits_rank_above_earlier_ones() -> None:
    state = seat(FOUR, forfeit_after_timeouts=1)
    state, _ = act(state, Timeout())
    state, events = act(state, Timeout())
    assert PlayerPlaced("bob", 3) in events
    state, _ = act(state, Timeout())
    assert GAME.is_over(state)
    assert GAME.outcome(state).ranking == ("dan", "cem", "bob", "ann")


def test_lone_player_takes_the_best_free_place() -> None:
    state, events = act(seat(("ann", "bob"), forfeit_after_timeouts=1), Timeout())
    assert PlayerPlaced("bob", 1) in events and isinstance(events[-1], MatchFinished)
    assert GAME.outcome(state).ranking == ("bob", "ann")


def test_decision_forfeit_stops_the_match_once_top_places_known() -> None:
    state, _ = throws(seat(survivors=2, forfeit_after_timeouts=1), D42)
    state, _ = stop(state)
    state, events = act(state, Timeout())  # bob out: ann and cem are the top two
    assert isinstance(events[-1], MatchFinished)  # the unfinished round is dropped
    assert GAME.is_over(state) and GAME.outcome(state).ranking == ("ann", "cem", "bob")


def test_decision_forfeit_in_the_play_off_takes_the_group_bottom() -> None:
    players = ("ann", "bob", "cem", "dan", "eve")
    state = seat(players, sticks=2, max_throws=1, forfeit_after_timeouts=1)
    state, _ = turns(state, D42, D22, D31, D61, D32)
    state, _ = turns(state, D42, D22, D31, D61, D32)
    assert state.phase == "playoff" and GAME.to_act(state) == "ann"
    state, events = act(state, Timeout())
    assert PlayerPlaced("ann", 3) in events
    assert GAME.to_act(state) == "bob" and state.order == (1, 2)
    state, _ = turns(state, D42, D32)
    assert GAME.outcome(state).ranking == ("bob", "cem", "ann", "dan", "eve")


def test_stick_count_invariant() -> None:
    state = seat(FOUR, sticks=4, max_throws=1, forfeit_after_timeouts=1, survivors=1)
    state, _ = turns(state, D42, D22, D31, D32)  # dan
    state, _ = turns(state, D32, D22, D31, D42)  # dan
    stick_invariant(state)
    state, _ = act(state, Timeout())  # dan forfeits with 2 sticks
    assert state.sticks_removed == 2 and sticks(state)["dan"] == 0
    stick_invariant(state)
    while not GAME.is_over(state):
        state, _ = turns(state, D42, D32, D31)
        stick_invariant(state)
    assert state.pot == 0


# --- errors --------------------------------------------------------------------------


def test_stop_before_any_throw_rejected() -> None:
    state = seat()
    with pytest.raises(IllegalAction, match="throw at least once"):
        GAME.apply(state, "ann", Stop())
    assert state == seat()


@pytest.mark.parametrize("action", [Announce(42), Doubt(), BlindReroll()])
def test_maexchen_actions_rejected(action: Action) -> None:
    state, _ = throws(seat(), D42)
    with pytest.raises(IllegalAction, match="no action") as error:
        GAME.apply(state, "ann", action, ())
    assert error.value.rule == "rules §3.3 round"
    assert GAME.to_act(state) == "ann" and state.version == 1


def test_wrong_player_is_not_your_turn() -> None:
    state = seat()
    with pytest.raises(NotYourTurn):
        GAME.apply(state, "bob", Throw(), D42)
    with pytest.raises(NotYourTurn):
        GAME.apply(state, "zoe", Timeout())
    assert state == seat()


@pytest.mark.parametrize("dice", [(), (4,), (4, 2, 1), (7, 1), (0, 2), (True, 2), ("4", 2)])
def test_bad_dice_rejected(dice: tuple[int, ...]) -> None:
    state = seat()
    with pytest.raises(InvalidDice):
        GAME.apply(state, "ann", Throw(), dice)
    assert state == seat()


def test_dice_with_a_stop_rejected() -> None:
    state, _ = throws(seat(), D42)
    with pytest.raises(InvalidDice):
        GAME.apply(state, "ann", Stop(), (1, 1))
    assert state.in_hand == (42,)


def test_dice_needed_two_for_a_throw_only() -> None:
    state = seat()
    assert [GAME.dice_needed(state, a) for a in (Throw(), Stop(), Concede(), Timeout())] == [
        2,
        0,
        0,
        0,
    ]


def test_options_defaults_and_ranges() -> None:
    options = GAME.parse_options(None)
    assert (options.sticks, options.max_throws, options.forfeit_after_timeouts) == (13, 5, 0)
    for bad in ({"sticks": 0}, {"sticks": 100}, {"max_throws": 0}, {"max_throws": 6}):
        with pytest.raises(InvalidOption):
            GAME.parse_options(bad)
    with pytest.raises(InvalidOption):
        GAME.parse_options({"sticks": True})
    with pytest.raises(UnknownOption, match="penalty_limit"):
        GAME.parse_options({"penalty_limit": 3})


def test_seating_needs_two_players_and_fewer_survivors() -> None:
    with pytest.raises(InvalidSeating):
        GAME.seat(["ann"])
    with pytest.raises(InvalidSeating):
        GAME.seat(["ann", "bob"], None, 2)


def test_outcome_before_the_end_raises() -> None:
    with pytest.raises(MatchNotOver):
        GAME.outcome(seat())


def test_game_identity() -> None:
    assert (GAME.name, GAME.title, GAME.min_players) == ("zweiundvierzig", "42 muss kommen", 2)


# --- views and the audit log ---------------------------------------------------------


def test_view_hides_covered_throw() -> None:
    state, _ = throws(seat(), D61, D61, D61, D61, D42)
    state, _ = throws(state, D22)
    bob = GAME.view(state, "bob")
    ann = GAME.view(state, "ann")
    assert bob["to_act"] == "bob" and bob["legal_actions"] == [
        {"kind": "throw"},
        {"kind": "stop"},
    ]
    assert "legal_actions" not in ann and "legal_actions" not in GAME.view(state, None)
    assert bob["round"] == {
        "number": 1,
        "starter": "ann",
        "throw_limit": 5,
        "finished": [{"player": "ann", "last_throw": None, "throws": 5}],
        "throws": [22],
    }
    twin, _ = throws(seat(), D61, D61, D61, D61, D32)
    twin, _ = throws(twin, D22)
    for viewer in ("ann", "bob", "cem", None):
        assert GAME.view(twin, viewer) == GAME.view(state, viewer)


def test_view_is_a_whitelist_and_shows_the_ranking_once_over() -> None:
    state = seat(("ann", "bob"))
    view = GAME.view(state, "ann")
    assert set(view) == {
        "game",
        "version",
        "options",
        "survivors",
        "phase",
        "pot",
        "seats",
        "round",
        "to_act",
        "legal_actions",
    }
    assert view["phase"] == "hinrunde" and view["pot"] == 13
    over, _ = act(seat(("ann", "bob"), forfeit_after_timeouts=1), Timeout())
    final = GAME.view(over, None)
    assert final["ranking"] == ["bob", "ann"] and final["to_act"] is None
    json.dumps(final)


def _log(seed: int) -> tuple[list[LogEntry], ZweiundvierzigState]:
    rng = random.Random(seed)
    state, events = GAME.seat(FOUR, {"sticks": 4, "forfeit_after_timeouts": 2}, 2)
    entries = [LogEntry(0, None, None, (), events)]
    while (player := GAME.to_act(state)) is not None:
        legal = GAME.legal_actions(state)
        action = Throw() if Throw() in legal and rng.random() < 0.7 else rng.choice(legal)
        action = Timeout() if rng.random() < 0.05 else action
        dice = tuple(rng.randint(1, 6) for _ in range(GAME.dice_needed(state, action)))
        state, events = GAME.apply(state, player, action, dice)
        entries.append(LogEntry(state.version, player, action, dice, events))
    return entries, state


def test_audit_log_verifies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_GAMES", {**registry._GAMES, "zweiundvierzig": GAME})
    entries, final = _log(7)
    records = json.loads(json.dumps(log_records(entries, None, revealed=True)))
    assert verify(records) == GAME.outcome(final)
    during = json.loads(json.dumps(log_records(entries, "ann", revealed=False)))
    covered = [e for r in during for e in r["events"] if e.get("visibility") == "nobody"]
    assert covered and all(e["dice"] is None for e in covered)
    tampered = json.loads(json.dumps(records))
    first_throw = next(r for r in tampered if r["action"] == {"kind": "throw"})
    first_throw["dice"] = [7 - first_throw["dice"][0], first_throw["dice"][1] % 6 + 1]
    with pytest.raises(AuditMismatch):
        verify(tampered)


# --- random play ---------------------------------------------------------------------


def test_random_play_terminates_and_keeps_the_stick_invariant() -> None:
    for seed in range(400):
        rng = random.Random(seed)
        players = [f"p{i}" for i in range(rng.randint(2, 8))]
        options = {
            "sticks": rng.choice([1, 2, 5, 13]),
            "max_throws": rng.randint(1, 5),
            "forfeit_after_timeouts": rng.choice([0, 1, 3]),
        }
        state, _ = GAME.seat(players, options, rng.randint(1, len(players) - 1))
        for _ in range(20_000):
            player = GAME.to_act(state)
            if player is None:
                break
            legal = GAME.legal_actions(state)
            assert legal and Timeout() not in legal
            action = Timeout() if rng.random() < 0.04 else rng.choice(legal)
            dice = tuple(rng.randint(1, 6) for _ in range(GAME.dice_needed(state, action)))
            version = state.version
            state, _ = GAME.apply(state, player, action, dice)
            assert state.version == version + 1
            stick_invariant(state)
        assert GAME.is_over(state), f"seed {seed} did not end"
        outcome = GAME.outcome(state)
        assert sorted(outcome.ranking) == sorted(players)
        assert [p.place for p in outcome.placements] == list(range(1, len(players) + 1))
