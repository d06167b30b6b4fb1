"""One test per rule and decision of docs/rules.md §1 (Mäxchen) and §4, with scripted dice."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pytest

from core.actions import Action, Announce, BlindReroll, Doubt, Stop, Throw, Timeout
from core.audit import AuditMismatch, LogEntry, event_record, log_records, records_after, verify
from core.dice import throw_value
from core.errors import (
    IllegalAction,
    InvalidDice,
    InvalidOption,
    InvalidSeating,
    MatchNotOver,
    MatchOver,
    NotYourTurn,
    UnknownGame,
    UnknownOption,
)
from core.events import DiceThrown, Event, MatchFinished, PlayerForfeited
from core.games.maexchen import (
    GAME,
    NO_VALUE,
    RANKING,
    Doubted,
    MaexchenState,
    PenaltyGiven,
    PlayerEliminated,
    Stage,
)
from core.registry import get_game

Step = tuple[str, Action, tuple[int, ...]]


def seat(
    players: Sequence[str] = ("ann", "bob", "cem"),
    survivors: int = 1,
    **options: object,
) -> MaexchenState:
    state, _ = GAME.seat(players, options, survivors)
    return state


def play(state: MaexchenState, *steps: Step) -> tuple[MaexchenState, list[Event]]:
    events: list[Event] = []
    for player, action, dice in steps:
        state, new_events = GAME.apply(state, player, action, dice)
        events.extend(new_events)
    return state, events


def throw(player: str, first: int, second: int) -> Step:
    return (player, Throw(), (first, second))


def announce(player: str, value: int) -> Step:
    return (player, Announce(value), ())


def doubt(player: str) -> Step:
    return (player, Doubt(), ())


def penalties(state: MaexchenState) -> dict[str, int]:
    return dict(zip(state.seats, state.penalty_points, strict=True))


def test_ranking_runs_from_31_up_to_the_pasches_and_21() -> None:
    assert RANKING[0] == 31
    assert RANKING[13] == 65
    assert RANKING[14:20] == (11, 22, 33, 44, 55, 66)
    assert RANKING[-1] == 21
    assert len(set(RANKING)) == 21


def test_throw_is_written_higher_die_first() -> None:
    assert throw_value(1, 2) == 21
    assert throw_value(5, 5) == 55
    assert throw_value(3, 6) == 63


def test_round_starter_must_throw_there_is_nothing_to_doubt() -> None:
    state = seat()
    assert GAME.legal_actions(state) == (Throw(),)
    with pytest.raises(IllegalAction, match="no announcement to doubt"):
        GAME.apply(state, "ann", Doubt())


def test_starter_may_announce_any_value_true_or_not() -> None:
    state, _ = play(seat(), throw("ann", 3, 1), announce("ann", 21))
    assert state.announcement == 21
    assert state.under_cup == 31


def test_doubt_shows_the_throw_and_an_announcement_that_held_costs_the_doubter() -> None:
    state, events = play(seat(), throw("ann", 6, 6), announce("ann", 55), doubt("bob"))
    doubted = next(e for e in events if isinstance(e, Doubted))
    assert doubted.revealed == 66
    assert doubted.announcement_held
    assert penalties(state) == {"ann": 0, "bob": 1, "cem": 0}


def test_throw_ranking_equal_to_the_announcement_holds() -> None:
    state, _ = play(seat(), throw("ann", 4, 3), announce("ann", 43), doubt("bob"))
    assert penalties(state)["bob"] == 1


def test_throw_lower_than_announced_costs_the_announcer() -> None:
    state, _ = play(seat(), throw("ann", 3, 1), announce("ann", 44), doubt("bob"))
    assert penalties(state) == {"ann": 1, "bob": 0, "cem": 0}


def test_a_doubted_21_costs_two_points() -> None:
    state, _ = play(seat(), throw("ann", 3, 1), announce("ann", 21), doubt("bob"))
    assert penalties(state)["ann"] == 2
    held, _ = play(seat(), throw("ann", 2, 1), announce("ann", 21), doubt("bob"))
    assert penalties(held)["bob"] == 2


def test_the_one_in_the_wrong_starts_the_next_round() -> None:
    state, _ = play(seat(), throw("ann", 6, 6), announce("ann", 55), doubt("bob"))
    assert GAME.to_act(state) == "bob"
    assert state.round == 2
    assert GAME.legal_actions(state) == (Throw(),)


def test_decision_eliminated_loser_passes_the_start_to_the_next_active_player() -> None:
    state = seat(penalty_limit=1)
    state, events = play(state, throw("ann", 3, 1), announce("ann", 44), doubt("bob"))
    assert PlayerEliminated("ann") in events
    assert GAME.to_act(state) == "bob"
    state, _ = play(state, throw("bob", 6, 6), announce("bob", 66), doubt("cem"))
    assert GAME.is_over(state)


def test_believe_and_throw_must_announce_strictly_higher() -> None:
    state, _ = play(seat(), throw("ann", 5, 4), announce("ann", 54), throw("bob", 1, 3))
    with pytest.raises(IllegalAction, match="must rank higher than 54"):
        GAME.apply(state, "bob", Announce(54))
    with pytest.raises(IllegalAction, match="must rank higher than 54"):
        GAME.apply(state, "bob", Announce(53))
    state, _ = play(state, announce("bob", 61))
    assert state.announcement == 61


def test_after_21_the_only_announcement_is_21_einstellen() -> None:
    state, _ = play(seat(), throw("ann", 2, 1), announce("ann", 21), throw("bob", 6, 6))
    assert GAME.legal_actions(state) == (Announce(21),)
    with pytest.raises(IllegalAction, match="only announcement is 21"):
        GAME.apply(state, "bob", Announce(66))
    state, _ = play(state, announce("bob", 21))
    assert state.announcement == 21


def test_an_illegal_announcement_is_rejected_not_penalised() -> None:
    state, _ = play(seat(), throw("ann", 6, 5), announce("ann", 65), throw("bob", 1, 3))
    with pytest.raises(IllegalAction):
        GAME.apply(state, "bob", Announce(42))
    with pytest.raises(IllegalAction, match="not a Mäxchen value"):
        GAME.apply(state, "bob", Announce(12))
    assert penalties(state) == {"ann": 0, "bob": 0, "cem": 0}


def test_allow_equal_lets_an_announcement_equal_the_previous_one() -> None:
    state, _ = play(
        seat(allow_equal=True), throw("ann", 5, 4), announce("ann", 54), throw("bob", 1, 3)
    )
    state, _ = play(state, announce("bob", 54))
    assert state.announcement == 54
    state, _ = play(state, throw("cem", 1, 1))
    with pytest.raises(IllegalAction, match="at least 54"):
        GAME.apply(state, "cem", Announce(53))


def test_blind_reroll_is_off_by_default() -> None:
    state, _ = play(seat(), throw("ann", 3, 1))
    assert BlindReroll() not in GAME.legal_actions(state)
    with pytest.raises(IllegalAction, match="not allowed"):
        GAME.apply(state, "ann", BlindReroll(), (2, 1))


def test_blind_reroll_once_unseen_and_the_last_throw_counts() -> None:
    state, _ = play(seat(blind_reroll=True), throw("ann", 3, 1))
    assert BlindReroll() in GAME.legal_actions(state)
    state, events = play(state, ("ann", BlindReroll(), (2, 1)))
    assert BlindReroll() not in GAME.legal_actions(state)
    assert "your_throw" not in GAME.view(state, "ann")
    assert event_record(events[0], "ann", revealed=False)["dice"] is None
    with pytest.raises(IllegalAction):
        GAME.apply(state, "ann", BlindReroll(), (2, 2))
    state, events = play(state, announce("ann", 21), doubt("bob"))
    assert next(e for e in events if isinstance(e, Doubted)).revealed == 21
    assert penalties(state)["bob"] == 2


def test_reaching_the_penalty_limit_eliminates() -> None:
    state = seat(penalty_limit=2)
    state, events = play(state, throw("ann", 3, 1), announce("ann", 21), doubt("bob"))
    assert PlayerEliminated("ann") in events
    assert state.eliminated == (0,)


def test_eliminated_players_are_skipped_in_seat_order() -> None:
    state = seat(("ann", "bob", "cem", "dan"), penalty_limit=1)
    state, _ = play(state, throw("ann", 6, 6), announce("ann", 66), doubt("bob"))
    assert GAME.to_act(state) == "cem"  # bob is out: the next active player starts
    state, _ = play(state, throw("cem", 4, 1), announce("cem", 41))
    assert GAME.to_act(state) == "dan"
    state, _ = play(state, throw("dan", 4, 2), announce("dan", 42))
    assert GAME.to_act(state) == "ann"


def test_match_ends_when_at_most_survivors_remain() -> None:
    state = seat(("ann", "bob", "cem", "dan"), survivors=2, penalty_limit=1)
    state, _ = play(state, throw("ann", 6, 6), announce("ann", 66), doubt("bob"))
    assert not GAME.is_over(state)
    state, events = play(state, throw("cem", 3, 1), announce("cem", 32), doubt("dan"))
    assert GAME.is_over(state)
    assert isinstance(events[-1], MatchFinished)
    assert GAME.to_act(state) is None
    assert GAME.legal_actions(state) == ()


def test_ranking_active_by_fewer_points_then_seat_then_later_eliminations_first() -> None:
    state = seat(("ann", "bob", "cem", "dan", "eve"), survivors=2, penalty_limit=2)
    state, _ = play(
        state,
        throw("ann", 6, 6), announce("ann", 66), doubt("bob"),  # bob 1
        throw("bob", 3, 1), announce("bob", 21), doubt("cem"),  # bob 3: out first
        throw("cem", 3, 1), announce("cem", 41), doubt("dan"),  # cem 1
        throw("cem", 3, 1), announce("cem", 41), doubt("dan"),  # cem 2: out second
        throw("dan", 6, 6), announce("dan", 66), doubt("eve"),  # eve 1
    )  # fmt: skip
    assert not GAME.is_over(state)
    state, _ = play(state, throw("eve", 3, 1), announce("eve", 41), doubt("ann"))  # eve 2: out
    outcome = GAME.outcome(state)
    assert outcome.ranking == ("ann", "dan", "eve", "cem", "bob")
    assert [p.measure for p in outcome.placements] == [0, 0, 2, 2, 3]


def test_outcome_before_the_end_is_refused() -> None:
    with pytest.raises(MatchNotOver):
        GAME.outcome(seat())


def test_timeout_gives_one_point_ends_the_round_and_the_late_player_starts() -> None:
    state, _ = play(seat(), throw("ann", 2, 1), announce("ann", 21))
    state, events = play(state, ("bob", Timeout(), ()))
    assert PenaltyGiven("bob", 1, 1) in events  # 1 point even after an announced 21
    assert GAME.to_act(state) == "bob"
    assert state.round == 2
    assert state.timeouts == (0, 1, 0)


def test_timeout_after_throwing_before_announcing_counts_the_same() -> None:
    state, _ = play(seat(), throw("ann", 2, 1), ("ann", Timeout(), ()))
    assert penalties(state)["ann"] == 1
    assert GAME.to_act(state) == "ann"


def test_forfeit_after_timeouts_eliminates_at_once_ranked_last_among_remaining() -> None:
    state = seat(("ann", "bob", "cem", "dan"), forfeit_after_timeouts=2, penalty_limit=9)
    state, _ = play(state, ("ann", Timeout(), ()))
    state, events = play(state, ("ann", Timeout(), ()))
    assert PlayerForfeited("ann") in events
    assert state.eliminated == (0,)
    assert GAME.to_act(state) == "bob"
    state, _ = play(state, ("bob", Timeout(), ()), ("bob", Timeout(), ()))
    state, _ = play(state, ("cem", Timeout(), ()), ("cem", Timeout(), ()))
    assert GAME.outcome(state).ranking == ("dan", "cem", "bob", "ann")


def test_view_shows_a_player_only_their_own_throw() -> None:
    state, _ = play(seat(), throw("ann", 5, 3))
    assert GAME.view(state, "ann")["your_throw"] == 53
    for viewer in ("bob", "cem", None):
        assert "your_throw" not in GAME.view(state, viewer)
        assert "53" not in json.dumps(GAME.view(state, viewer))
    state, _ = play(state, announce("ann", 62))
    assert GAME.view(state, "ann")["your_throw_under_cup"] == 53
    assert "your_throw_under_cup" not in GAME.view(state, "bob")
    assert "legal_actions" in GAME.view(state, "bob")
    assert "legal_actions" not in GAME.view(state, "cem")


def test_rejected_action_leaves_the_state_unchanged() -> None:
    state, _ = play(seat(), throw("ann", 5, 3), announce("ann", 53), throw("bob", 1, 1))
    before = state
    for player, action, dice in [
        ("bob", Announce(52), ()),
        ("cem", Doubt(), ()),
        ("bob", Throw(), (1, 2)),
        ("bob", Stop(), ()),
    ]:
        with pytest.raises(IllegalAction):
            GAME.apply(state, player, action, dice)
    assert state == before
    assert state.version == 3


@pytest.mark.parametrize(
    ("player", "action", "dice", "error", "text"),
    [
        ("bob", Throw(), (1, 2), NotYourTurn, "ann's turn"),
        ("ann", Throw(), (1,), InvalidDice, "needs 2 dice"),
        ("ann", Throw(), (1, 7), InvalidDice, "1 to 6"),
        ("ann", Stop(), (), IllegalAction, "no action 'stop'"),
    ],
)
def test_errors_name_the_rule(
    player: str, action: Action, dice: tuple[int, ...], error: type[Exception], text: str
) -> None:
    with pytest.raises(error, match=text):
        GAME.apply(seat(), player, action, dice)


def test_a_finished_table_accepts_no_action() -> None:
    state = seat(("ann", "bob"), penalty_limit=1)
    state, _ = play(state, throw("ann", 6, 6), announce("ann", 66), doubt("bob"))
    with pytest.raises(MatchOver):
        GAME.apply(state, "bob", Throw(), (1, 1))


@pytest.mark.parametrize(
    ("options", "error", "text"),
    [
        ({"penalty_limt": 3}, UnknownOption, "no option 'penalty_limt'"),
        ({"penalty_limit": "3"}, InvalidOption, "'penalty_limit' must be an integer"),
        ({"penalty_limit": 0}, InvalidOption, "'penalty_limit' must be between"),
        ({"allow_equal": 1}, InvalidOption, "'allow_equal' must be true or false"),
        ({"turn_timeout_seconds": True}, InvalidOption, "'turn_timeout_seconds'"),
    ],
)
def test_bad_options_are_named(
    options: Mapping[str, object], error: type[Exception], text: str
) -> None:
    with pytest.raises(error, match=text):
        GAME.seat(["ann", "bob"], options)


def test_bad_seatings_are_refused() -> None:
    with pytest.raises(InvalidSeating, match="got 1"):
        GAME.seat(["ann"])
    with pytest.raises(InvalidSeating, match="one seat"):
        GAME.seat(["ann", "ann"])
    with pytest.raises(InvalidSeating, match="survivors"):
        GAME.seat(["ann", "bob"], survivors=2)


def test_unknown_game_is_named() -> None:
    with pytest.raises(UnknownGame, match="'skat'"):
        get_game("skat")


def _scripted_log() -> list[LogEntry]:
    state, events = GAME.seat(["ann", "bob"], {"penalty_limit": 1})
    entries = [LogEntry(0, None, None, (), events)]
    for player, action, dice in [throw("ann", 3, 1), announce("ann", 43), doubt("bob")]:
        state, events = GAME.apply(state, player, action, dice)
        entries.append(LogEntry(state.version, player, action, dice, events))
    assert GAME.is_over(state)
    return entries


def test_audit_log_reveals_every_throw_once_over_and_verifies() -> None:
    entries = _scripted_log()
    during = log_records(entries, "bob", revealed=False)
    assert all("dice" not in record for record in during)
    assert during[1]["events"] == [
        {"type": "DiceThrown", "player": "ann", "dice": None, "visibility": "thrower"}
    ]
    records = json.loads(json.dumps(log_records(entries, None, revealed=True)))
    assert records[1]["dice"] == [3, 1]
    assert verify(records).ranking == ("bob", "ann")


def test_the_feed_after_a_version_shows_a_doubt_with_what_was_under_the_cup() -> None:
    entries = _scripted_log()
    for viewer, own_dice in (("ann", [3, 1]), ("bob", None), (None, None)):
        feed = records_after(entries, 1, viewer, revealed=False)
        assert [record["version"] for record in feed] == [2, 3]
        assert all("dice" not in record for record in feed)
        doubt = next(e for e in feed[1]["events"] if e["type"] == "Doubted")
        assert doubt["revealed"] == 31 and doubt["announcement"] == 43
        thrown = records_after(entries, 0, viewer, revealed=False)[0]["events"][0]
        assert thrown["dice"] == own_dice
    assert records_after(entries, 3, "ann", revealed=True) == []


def test_audit_log_that_was_tampered_with_fails_verification() -> None:
    records = json.loads(json.dumps(log_records(_scripted_log(), None, revealed=True)))
    records[1]["dice"] = [4, 4]  # 44 would have held: bob, not ann, was in the wrong
    with pytest.raises(AuditMismatch, match="version 1"):
        verify(records)


def test_dice_thrown_under_the_cup_is_seen_by_the_thrower_only() -> None:
    _, events = play(seat(), throw("ann", 5, 3))
    (thrown,) = events
    assert isinstance(thrown, DiceThrown)
    assert event_record(thrown, "ann", revealed=False)["dice"] == [5, 3]
    assert event_record(thrown, "bob", revealed=False)["dice"] is None
    assert event_record(thrown, None, revealed=True)["dice"] == [5, 3]


def test_fast_state_construction_keeps_every_field() -> None:
    state = seat(blind_reroll=True)
    thrown, _ = GAME.apply(state, "ann", Throw(), (5, 3))
    assert type(thrown) is MaexchenState
    assert thrown == state._replace(stage=Stage.ANNOUNCE, in_hand=53, version=1)
    rerolled, _ = GAME.apply(thrown, "ann", BlindReroll(), (2, 1))
    assert rerolled == thrown._replace(stage=Stage.ANNOUNCE_BLIND, in_hand=21, version=2)
    announced, _ = GAME.apply(rerolled, "ann", Announce(53), ())
    assert type(announced) is MaexchenState
    assert announced == rerolled._replace(
        turn=1,
        stage=Stage.RESPONSE,
        announcement=53,
        announcer=0,
        under_cup=21,
        under_cup_seen=False,
        in_hand=NO_VALUE,
        version=3,
    )
