"""Mariechen rules (docs/rules.md §2, §4): one test per rule and decision, with scripted dice."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pytest

import core.registry
from core.actions import Action, Announce, Doubt, Stop, Throw, Timeout
from core.audit import LogEntry, log_records, verify
from core.errors import (
    IllegalAction,
    InvalidDice,
    InvalidOption,
    MatchNotOver,
    MatchOver,
    NotYourTurn,
    UnknownOption,
)
from core.events import (
    DiceThrown,
    Event,
    MatchFinished,
    PlayerForfeited,
    TurnTimedOut,
    Visibility,
)
from core.games.mariechen import (
    GAME,
    MariechenState,
    ThrowCounted,
    ThrowOffStarted,
    TurnStarted,
)

MISS_VORN = (6, 1, 1, 1, 1, 1)  # no face equals its target von vorn
ALL_VORN = (1, 2, 3, 4, 5, 6)


def seat(
    players: Sequence[str] = ("ann", "bob"),
    survivors: int = 1,
    **options: object,
) -> MariechenState:
    state, _ = GAME.seat(players, options, survivors)
    return state


def roll(state: MariechenState, faces: Sequence[int]) -> tuple[MariechenState, list[Event]]:
    """Whoever is to act throws each face in turn."""
    events: list[Event] = []
    for face in faces:
        player = GAME.to_act(state)
        assert player is not None
        version = state.version
        state, new = GAME.apply(state, player, Throw(), (face,))
        assert state.version == version + 1
        events.extend(new)
    return state, events


def counted(events: Sequence[Event]) -> list[ThrowCounted]:
    return [e for e in events if isinstance(e, ThrowCounted)]


def ranking(state: MariechenState) -> tuple[str, ...]:
    return GAME.outcome(state).ranking


def turns(*faces: int) -> tuple[int, ...]:
    """Six faces per player, given as six-digit numbers: turns(123456, 611111)."""
    return tuple(int(d) for number in faces for d in str(number))


def rejected(state: MariechenState, player: str, action: Action, dice: Sequence[int]) -> None:
    """Apply must raise and leave the state as it was."""
    before = state
    snapshot = tuple(state)
    with pytest.raises((IllegalAction, InvalidDice)):
        GAME.apply(state, player, action, dice)
    assert state is before and tuple(state) == snapshot


# Targets and hits ------------------------------------------------------------


def test_von_vorn_throw_i_targets_i() -> None:
    state = seat()
    assert GAME.view(state, None)["target"] == 1
    state, events = roll(state, turns(123456, 654321))
    assert [c.target for c in counted(events)[:6]] == [1, 2, 3, 4, 5, 6]
    assert all(c.hit for c in counted(events)[:6])
    assert not any(c.hit for c in counted(events)[6:])
    assert state.scores == (21, 0) and state.hits == ((1, 2, 3, 4, 5, 6), ())


def test_von_hinten_throw_i_targets_seven_minus_i() -> None:
    state = seat(direction="hinten")
    assert GAME.view(state, None)["target"] == 6
    state, events = roll(state, turns(123456, 654321))
    assert [c.target for c in counted(events)[:6]] == [6, 5, 4, 3, 2, 1]
    assert state.scores == (0, 21) and state.hits == ((), (6, 5, 4, 3, 2, 1))
    assert ranking(state) == ("bob", "ann")


def test_miss_scores_nothing() -> None:
    state, events = roll(seat(), turns(111111))
    assert [c.hit for c in counted(events)] == [True, False, False, False, False, False]
    assert [c.score for c in counted(events)] == [1, 1, 1, 1, 1, 1]
    assert state.scores[0] == 1 and state.hits[0] == (1,)


def test_schikanen_credits_the_face_on_the_table() -> None:
    # Decision: the bottom face (7 - top) counts automatically; it scores the target.
    state, events = roll(seat(schikanen=True), (6,))
    assert counted(events) == [ThrowCounted("ann", 1, 1, True, 1)]
    state, events = roll(state, (5, 4, 3, 2, 1))
    assert all(c.hit for c in counted(events))
    assert state.scores[0] == 21 and state.hits[0] == (1, 2, 3, 4, 5, 6)


def test_without_schikanen_bottom_face_is_no_hit() -> None:
    state, events = roll(seat(), turns(654321))
    assert not any(c.hit for c in counted(events))
    assert state.scores[0] == 0


def test_every_throw_is_public_and_the_turn_passes_after_six() -> None:
    state, events = roll(seat(), turns(123456))
    thrown = [e for e in events if isinstance(e, DiceThrown)]
    assert len(thrown) == 6 and all(e.visibility is Visibility.PUBLIC for e in thrown)
    assert events[-1] == TurnStarted("bob") and GAME.to_act(state) == "bob"


# Ranking and ties ------------------------------------------------------------


def test_highest_score_wins() -> None:
    # bob's 9 (hits 5 and 4) beats ann's 6 although ann's single hit is higher.
    state, events = roll(seat(("ann", "bob", "cid")), turns(611116, 611451, 121111))
    assert ranking(state) == ("bob", "ann", "cid")
    assert events[-1] == MatchFinished(("bob", "ann", "cid"))
    assert {p.player: p.measure for p in GAME.outcome(state).placements} == {
        "ann": 6,
        "bob": 9,
        "cid": 3,
    }


def test_tie_broken_by_highest_single_hit() -> None:
    # ann hits 2 and 4, bob hits 1 and 5: both score 6, bob's 5 is the highest single hit.
    state, _ = roll(seat(), turns(621411, 111151))
    assert state.scores == (6, 6)
    assert GAME.is_over(state) and ranking(state) == ("bob", "ann")


def test_tie_broken_by_next_highest_hit() -> None:
    # ann hits 6, 3, 2; bob hits 6, 4, 1: both 11 with a 6; bob's next-highest 4 beats 3.
    state, _ = roll(seat(), turns(623116, 111416))
    assert state.scores == (11, 11)
    assert GAME.is_over(state) and ranking(state) == ("bob", "ann")


def test_identical_hits_tied_for_the_win_throw_off() -> None:
    state, events = roll(seat(), turns(123111, 123111))
    assert events[-1] == ThrowOffStarted(("ann", "bob"), 1, 2)
    assert not GAME.is_over(state) and GAME.to_act(state) == "ann"
    assert GAME.legal_actions(state) == (Throw(),)
    assert GAME.dice_needed(state, Throw()) == 1
    state, events = roll(state, (2, 5))
    assert events[-1] == MatchFinished(("bob", "ann"))
    assert state.scores == (6, 6)  # a throw-off decides the place, not the score


def test_throw_off_repeats_among_those_still_tied() -> None:
    state, _ = roll(seat(("ann", "bob", "cid")), turns(123111, 123111, 123111))
    state, events = roll(state, (4, 4, 2))
    assert events[-1] == ThrowOffStarted(("ann", "bob"), 1, 2)
    state, events = roll(state, (3, 3))
    assert events[-1] == ThrowOffStarted(("ann", "bob"), 1, 2)
    state, events = roll(state, (3, 5))
    assert events[-1] == MatchFinished(("bob", "ann", "cid"))


def test_throw_off_does_not_repeat_for_a_tie_no_longer_at_stake() -> None:
    state, _ = roll(seat(("ann", "bob", "cid")), turns(123111, 123111, 123111))
    state, events = roll(state, (2, 6, 2))  # ann and cid stay tied for places 2..3
    assert events[-1] == MatchFinished(("bob", "ann", "cid"))


def test_tie_across_the_advance_cut_throws_off() -> None:
    players = ("ann", "bob", "cid", "dan")
    state, events = roll(seat(players, 2), turns(123456, 123111, 123111, 111111))
    assert events[-1] == ThrowOffStarted(("bob", "cid"), 2, 3)
    state, events = roll(state, (1, 4))
    assert events[-1] == MatchFinished(("ann", "cid", "bob", "dan"))


def test_tie_spanning_no_place_that_matters_keeps_seat_order() -> None:
    # survivors=1: bob and dan tie for places 3..4; no throw-off, seat order stands.
    players = ("ann", "bob", "cid", "dan")
    state, events = roll(seat(players), turns(123456, 111111, 123111, 111111))
    assert GAME.is_over(state)
    assert not any(isinstance(e, ThrowOffStarted) for e in events)
    assert events[-1] == MatchFinished(("ann", "cid", "bob", "dan"))


def test_several_tie_groups_throw_off_top_group_first() -> None:
    players = ("ann", "bob", "cid", "dan")
    state, events = roll(seat(players, 3), turns(111111, 123111, 111111, 123111))
    assert events[-1] == ThrowOffStarted(("bob", "dan"), 1, 2)
    state, events = roll(state, (1, 2))
    assert events[-1] == ThrowOffStarted(("ann", "cid"), 3, 4)
    state, events = roll(state, (3, 6))
    assert events[-1] == MatchFinished(("dan", "bob", "cid", "ann"))


# Timeouts and forfeits (docs/rules.md §4) -----------------------------------------


def test_timeout_throws_the_remaining_throws_and_they_count() -> None:
    state, _ = roll(seat(), (1, 1))
    assert GAME.dice_needed(state, Timeout()) == 4
    state, events = GAME.apply(state, "ann", Timeout(), (3, 4, 5, 6))
    assert events[0] == TurnTimedOut("ann", 1)
    assert [c.throw for c in counted(events)] == [3, 4, 5, 6]
    assert state.scores[0] == 1 + 3 + 4 + 5 + 6 and state.timeouts == (1, 0)
    assert state.version == 3 and events[-1] == TurnStarted("bob")


def test_timeout_in_a_throw_off() -> None:
    state, _ = roll(seat(), turns(123111, 123111))
    assert GAME.dice_needed(state, Timeout()) == 1
    state, events = GAME.apply(state, "ann", Timeout(), (6,))
    assert events == (TurnTimedOut("ann", 1), DiceThrown("ann", (6,), Visibility.PUBLIC))
    state, last = roll(state, (5,))
    assert last[-1] == MatchFinished(("ann", "bob"))


def test_forfeit_after_timeouts_ranks_last_among_remaining() -> None:
    # forfeit_after_timeouts=2: ann's first timeout throws for her, her second puts her out,
    # and she ranks below cid although she scored more.
    state = seat(("ann", "bob", "cid"), forfeit_after_timeouts=2)
    assert GAME.dice_needed(state, Timeout()) == 6
    state, _ = GAME.apply(state, "ann", Timeout(), (1, 2, 3, 1, 1, 1))
    state, last = roll(state, turns(123111, 111111))
    assert last[-1] == ThrowOffStarted(("ann", "bob"), 1, 2)
    assert GAME.dice_needed(state, Timeout()) == 0
    state, events = GAME.apply(state, "ann", Timeout(), ())
    finished = MatchFinished(("bob", "cid", "ann"))
    assert events == (TurnTimedOut("ann", 2), PlayerForfeited("ann"), finished)
    assert state.scores == (6, 6, 1)

    # Later forfeits rank above earlier ones, all below everyone still playing.
    state = seat(("ann", "bob", "cid", "dan"), forfeit_after_timeouts=1)
    state, events = GAME.apply(state, "ann", Timeout(), ())
    assert events == (TurnTimedOut("ann", 1), PlayerForfeited("ann"), TurnStarted("bob"))
    state, _ = roll(state, ALL_VORN)
    state, _ = roll(state, (1, 2))
    state, _ = GAME.apply(state, "cid", Timeout(), ())  # cid scored 3, still out
    state, last = roll(state, MISS_VORN)  # dan scores 0 and still ranks above cid
    assert last[-1] == MatchFinished(("bob", "dan", "cid", "ann"))
    assert state.forfeited == (0, 2) and state.scores == (0, 21, 3, 0)
    assert '"forfeited": true' in json.dumps(GAME.view(state, None)["seats"])


def test_forfeit_throws_no_dice() -> None:
    state, _ = roll(seat(forfeit_after_timeouts=1), (1, 2))
    assert GAME.dice_needed(state, Timeout()) == 0
    rejected(state, "ann", Timeout(), (3, 4, 5, 6))
    state, events = GAME.apply(state, "ann", Timeout(), ())
    assert not any(isinstance(e, DiceThrown) for e in events)
    assert state.throws[0] == (1, 2) and state.forfeited == (0,)
    assert GAME.to_act(state) == "bob"


def test_forfeit_in_a_throw_off_leaves_the_group() -> None:
    # Decision: the others go on; faces already thrown in the round stand.
    state, _ = roll(seat(("ann", "bob", "cid"), forfeit_after_timeouts=1), turns(*[123111] * 3))
    state, _ = roll(state, (3,))
    state, events = GAME.apply(state, "bob", Timeout(), ())
    assert events == (TurnTimedOut("bob", 1), PlayerForfeited("bob"))
    assert GAME.to_act(state) == "cid"
    state, last = roll(state, (2,))
    assert last[-1] == MatchFinished(("ann", "cid", "bob"))


def test_forfeit_ending_a_tie_ends_its_throw_off() -> None:
    state, _ = roll(seat(forfeit_after_timeouts=1), turns(123111, 123111))
    state, events = GAME.apply(state, "ann", Timeout(), ())
    assert events[-1] == MatchFinished(("bob", "ann"))


def test_table_ends_normally_when_every_player_forfeits() -> None:
    state = seat(forfeit_after_timeouts=1)
    state, _ = GAME.apply(state, "ann", Timeout(), ())
    state, events = GAME.apply(state, "bob", Timeout(), ())
    assert events[-1] == MatchFinished(("bob", "ann")) and GAME.is_over(state)


# Errors: rejected actions never change the state -----------------------------


def test_not_your_turn() -> None:
    state = seat()
    with pytest.raises(NotYourTurn):
        GAME.apply(state, "bob", Throw(), (1,))
    rejected(state, "bob", Timeout(), (1,) * 6)


def test_match_over() -> None:
    state, _ = roll(seat(), turns(111111, 222222))
    assert GAME.legal_actions(state) == () and GAME.to_act(state) is None
    with pytest.raises(MatchOver):
        GAME.apply(state, "ann", Throw(), (1,))
    rejected(state, "bob", Timeout(), ())


def test_wrong_dice_count() -> None:
    state, _ = roll(seat(), (1, 2))
    for dice in ((), (1, 2)):
        with pytest.raises(InvalidDice):
            GAME.apply(state, "ann", Throw(), dice)
    rejected(state, "ann", Timeout(), (3, 4, 5))
    rejected(state, "ann", Timeout(), (3, 4, 5, 6, 1))


def test_face_seven_is_invalid_dice() -> None:
    state = seat()
    for face in (7, 0, True):
        with pytest.raises(InvalidDice):
            GAME.apply(state, "ann", Throw(), (face,))
    rejected(state, "ann", Timeout(), (1, 2, 3, 4, 5, 7))


def test_doubt_is_illegal() -> None:
    state = seat()
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, "ann", Doubt(), ())
    assert raised.value.rule == "rules §2.1 turn" and "doubt" in str(raised.value)
    rejected(state, "ann", Announce(21), ())
    rejected(state, "ann", Stop(), ())


def test_unknown_option() -> None:
    with pytest.raises(UnknownOption, match="penalty_limit"):
        seat(penalty_limit=3)


@pytest.mark.parametrize(
    "options",
    [{"direction": "rückwärts"}, {"direction": 1}, {"schikanen": "yes"}, {"schikanen": 1}],
)
def test_invalid_direction_value(options: Mapping[str, object]) -> None:
    with pytest.raises(InvalidOption):
        GAME.seat(("ann", "bob"), options)


def test_outcome_before_the_end_raises_match_not_over() -> None:
    with pytest.raises(MatchNotOver):
        GAME.outcome(seat())


# Views and the audit log -------------------------------------------------------


def test_view_lists_legal_actions_only_for_the_player_to_act() -> None:
    state, _ = roll(seat(), (1, 5))
    view = GAME.view(state, "ann")
    assert view["legal_actions"] == [{"kind": "throw"}]
    assert "legal_actions" not in GAME.view(state, "bob")
    assert "legal_actions" not in GAME.view(state, None)
    assert view["throw"] == 3 and view["target"] == 3 and view["to_act"] == "ann"
    assert view["seats"] == [
        {"player": "ann", "throws": [1, 5], "hits": [1], "score": 1, "timeouts": 0,
         "forfeited": False},
        {"player": "bob", "throws": [], "hits": [], "score": 0, "timeouts": 0,
         "forfeited": False},
    ]  # fmt: skip
    assert "ranking" not in view
    json.dumps(view)


def test_view_shows_the_throw_off_and_the_ranking_once_over() -> None:
    state, _ = roll(seat(), turns(123111, 123111, 4))
    view = GAME.view(state, None)
    assert view["throw_off"] == {
        "players": ["ann", "bob"],
        "first_place": 1,
        "last_place": 2,
        "faces": [4],
    }
    assert view["throw"] is None and view["to_act"] == "bob"
    state, _ = roll(state, (1,))
    view = GAME.view(state, "ann")
    assert view["ranking"] == ["ann", "bob"] and "legal_actions" not in view
    json.dumps(view)


def test_audit_log_verifies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core.registry, "_GAMES", {**core.registry._GAMES, "mariechen": GAME})
    options = {"direction": "hinten", "schikanen": True, "forfeit_after_timeouts": 2}
    state, events = GAME.seat(("ann", "bob", "cid"), options, 1)
    entries = [LogEntry(0, None, None, (), events)]
    script: list[tuple[Action, tuple[int, ...]]] = [
        (Throw(), (6,)),
        (Timeout(), (2, 3, 4, 5, 6)),
        *[(Throw(), (face,)) for face in (6, 2, 3, 4, 5, 6, 6, 2, 3, 4, 5, 6)],
        (Throw(), (3,)),  # throw-off: all three scored 21 with every hit
        (Throw(), (3,)),
        (Throw(), (3,)),  # still tied: they throw again
        (Timeout(), ()),  # ann's second timeout: she forfeits
        (Throw(), (2,)),
        (Throw(), (5,)),
    ]
    for action, dice in script:
        player = GAME.to_act(state)
        assert player is not None
        state, events = GAME.apply(state, player, action, dice)
        entries.append(LogEntry(state.version, player, action, dice, events))
    assert GAME.is_over(state) and ranking(state) == ("cid", "bob", "ann")
    records = json.loads(json.dumps(log_records(entries, None, True)))
    assert verify(records) == GAME.outcome(state)
