"""Properties every game keeps, checked through the common protocol only.

Random legal play (a seeded `random.Random`, so play is random rather than adversarial:
two Mäxchen players could otherwise announce 21 against each other forever) must end,
never raise, rank every player once, keep each game's counters consistent, never let an
eliminated player act, and never show a viewer a throw hidden from them.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.actions import Action, Timeout
from core.audit import event_record, may_see
from core.events import DiceThrown, Event, PlayerId, event_to_dict
from core.protocol import Game
from core.registry import game_names, get_game

MAX_STEPS = 20_000
TIMEOUT_CHANCE = 0.03

# Options worth exploring per game; each key's values are drawn independently.
OPTION_CHOICES: dict[str, dict[str, list[object]]] = {
    "maexchen": {
        "allow_equal": [False, True],
        "blind_reroll": [False, True],
        "penalty_limit": [1, 3, 5],
        "forfeit_after_timeouts": [0, 1, 3],
    },
    "mariechen": {
        "direction": ["vorn", "hinten"],
        "schikanen": [False, True],
        "forfeit_after_timeouts": [0, 1, 2],
    },
    "zweiundvierzig": {
        "sticks": [1, 5, 13],
        "max_throws": [1, 3, 5],
        "forfeit_after_timeouts": [0, 1, 3],
    },
}

# Events after which a secret is legitimately public (the cup is lifted, a round scored).
REVEALING_EVENTS = {"Doubted", "RoundScored", "MatchFinished"}
ELIMINATING_EVENTS = {"PlayerEliminated", "PlayerForfeited"}

Step = tuple[PlayerId, Action, tuple[int, ...]]


def _check_maexchen(state: Any, events: list[Event]) -> None:
    given_points = [0] * len(state.seats)
    for event in events:
        if type(event).__name__ == "PenaltyGiven":
            seat = state.seats.index(event.player)  # type: ignore[attr-defined]
            given_points[seat] += event.points  # type: ignore[attr-defined]
            assert event.total == given_points[seat]  # type: ignore[attr-defined]
    assert list(state.penalty_points) == given_points
    limit = state.options.penalty_limit
    for seat, points in enumerate(state.penalty_points):
        if points >= limit:
            assert seat in state.eliminated


def _check_sticks(state: Any, events: list[Event]) -> None:
    del events
    held = sum(state.sticks)
    assert state.pot >= 0
    assert all(count >= 0 for count in state.sticks)
    assert state.pot + held + state.sticks_removed == state.options.sticks


def _check_scores(state: Any, events: list[Event]) -> None:
    del events
    for seat, throws in enumerate(state.throws):
        assert len(throws) <= 6
        assert 0 <= state.scores[seat] <= 21


CONSISTENCY: dict[str, Callable[[Any, list[Event]], None]] = {
    "maexchen": _check_maexchen,
    "zweiundvierzig": _check_sticks,
    "mariechen": _check_scores,
}


def _draw_options(name: str, rng: random.Random) -> dict[str, object]:
    return {key: rng.choice(values) for key, values in OPTION_CHOICES.get(name, {}).items()}


def _random_play(
    game: Game[Any], seed: int, players: int, survivors: int
) -> tuple[Any, list[Step], list[tuple[Any, tuple[Event, ...]]]]:
    """Play a table to its end; return the first state, the steps and (state, events)."""
    rng = random.Random(seed)
    options = _draw_options(game.name, rng)
    seats = [f"p{i}" for i in range(players)]
    first, _ = game.seat(seats, options, survivors)
    state = first
    steps: list[Step] = []
    history: list[tuple[Any, tuple[Event, ...]]] = []
    for _ in range(MAX_STEPS):
        player = game.to_act(state)
        if player is None:
            break
        legal = game.legal_actions(state)
        assert legal, "a player to act always has a legal action"
        action: Action = Timeout() if rng.random() < TIMEOUT_CHANCE else rng.choice(legal)
        dice = tuple(rng.randint(1, 6) for _ in range(game.dice_needed(state, action)))
        state, events = game.apply(state, player, action, dice)
        steps.append((player, action, dice))
        history.append((state, events))
    assert game.is_over(state), f"no end after {MAX_STEPS} actions"
    return first, steps, history


tables = st.tuples(
    st.sampled_from(game_names()),
    st.integers(min_value=0, max_value=2**32),
    st.integers(min_value=2, max_value=8),
    st.integers(min_value=1, max_value=7),
)


@settings(max_examples=150, deadline=None)
@given(tables)
def test_random_play_ends_ranks_everyone_once_and_keeps_counts(
    table: tuple[str, int, int, int],
) -> None:
    name, seed, players, survivors = table
    game = get_game(name)
    survivors = min(survivors, players - 1)
    first, steps, history = _random_play(game, seed, players, survivors)

    all_events: list[Event] = []
    out: set[PlayerId] = set()
    version = first.version
    for (player, _, _), (state, events) in zip(steps, history, strict=True):
        assert player not in out, f"{player} acted after being eliminated"
        version += 1
        assert state.version == version
        all_events.extend(events)
        out |= {e.player for e in events if type(e).__name__ in ELIMINATING_EVENTS}  # type: ignore[attr-defined]
        CONSISTENCY[name](state, all_events)

    final = history[-1][0] if history else first
    outcome = game.outcome(final)
    assert sorted(outcome.ranking) == sorted(first.seats)
    assert [p.place for p in outcome.placements] == list(range(1, players + 1))
    assert type(all_events[-1]).__name__ == "MatchFinished"
    json.dumps(game.view(final, None))


@settings(max_examples=60, deadline=None)
@given(tables, st.integers(min_value=1, max_value=2**16))
def test_a_table_ends_even_when_some_players_never_act(
    table: tuple[str, int, int, int], absent_mask: int
) -> None:
    """Timeouts alone must finish a table: forfeits are off by default (docs/rules.md §4.3)."""
    name, seed, players, survivors = table
    game = get_game(name)
    rng = random.Random(seed)
    seats = [f"p{i}" for i in range(players)]
    absent = {seat for i, seat in enumerate(seats) if absent_mask >> i & 1}
    state, _ = game.seat(seats, None, min(survivors, players - 1))
    for _ in range(MAX_STEPS):
        player = game.to_act(state)
        if player is None:
            break
        action = Timeout() if player in absent else rng.choice(game.legal_actions(state))
        dice = tuple(rng.randint(1, 6) for _ in range(game.dice_needed(state, action)))
        state, _ = game.apply(state, player, action, dice)
    assert game.is_over(state), f"{name} did not end with {sorted(absent)} never acting"


def _hidden_from(event: Event, viewer: PlayerId | None) -> bool:
    return isinstance(event, DiceThrown) and not may_see(event, viewer, revealed=False)


def _other_faces(dice: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(face % 6 + 1 for face in dice)


@settings(max_examples=150, deadline=None)
@given(tables, st.integers(min_value=0, max_value=200), st.integers(min_value=-1, max_value=7))
def test_no_view_or_event_shows_a_viewer_a_throw_hidden_from_them(
    table: tuple[str, int, int, int], start: int, viewer_seat: int
) -> None:
    """Change every throw hidden from the viewer: until a reveal, they see no difference."""
    name, seed, players, survivors = table
    game = get_game(name)
    first, steps, history = _random_play(game, seed, players, min(survivors, players - 1))
    viewer = None if viewer_seat < 0 or viewer_seat >= players else first.seats[viewer_seat]
    start = min(start, len(steps))

    twin = first
    for state, _ in history[:start]:
        twin = state
    for (player, action, dice), (state, events) in zip(steps[start:], history[start:], strict=True):
        secret = any(_hidden_from(e, viewer) for e in events)
        twin_dice = _other_faces(dice) if secret else dice
        twin, twin_events = game.apply(twin, player, action, twin_dice)
        if any(type(e).__name__ in REVEALING_EVENTS for e in events):
            break  # from here on the viewer may rightly know what was hidden
        seen = [event_record(e, viewer, revealed=False) for e in events]
        twin_seen = [event_record(e, viewer, revealed=False) for e in twin_events]
        assert seen == twin_seen, f"{viewer or 'a spectator'} can tell hidden dice apart"
        assert game.view(twin, viewer) == game.view(state, viewer), (
            f"{viewer or 'a spectator'} can tell hidden dice apart in the view"
        )


def test_every_registered_game_is_exercised() -> None:
    assert set(game_names()) <= set(CONSISTENCY)
    for name in game_names():
        assert get_game(name).name == name


def test_full_event_dicts_keep_the_dice_for_the_audit_log() -> None:
    game = get_game("maexchen")
    state, _ = game.seat(["a", "b"])
    _, events = game.apply(state, "a", game.legal_actions(state)[0], (6, 5))
    assert event_to_dict(events[0])["dice"] == [6, 5]
