"""The OpenAPI models of the table view match what every game's `view` really returns."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from core.actions import Timeout
from core.registry import game_names, get_game
from functions.api.game_views import GAME_VIEWS, AsSent
from functions.api.models import TableView

OPTIONS: dict[str, list[dict[str, object]]] = {
    "maexchen": [{}, {"blind_reroll": True, "allow_equal": True, "penalty_limit": 1}],
    "mariechen": [{}, {"direction": "hinten", "schikanen": True}],
    "zweiundvierzig": [{}, {"sticks": 3, "max_throws": 5}],
}


def views_of_random_tables(name: str, seed: int, options: dict[str, object]) -> list[Any]:
    """Every viewer's view (a spectator's too) after every action of a random table."""
    game = get_game(name)
    rng = random.Random(seed)
    players = [f"p{n}" for n in range(rng.randint(2, 6))]
    state, _ = game.seat(players, {**options, "forfeit_after_timeouts": 4}, survivors=1)
    views = []
    while True:
        views += [json.loads(json.dumps(game.view(state, v))) for v in [None, *players]]
        player = game.to_act(state)
        if player is None:
            return views
        action = Timeout() if rng.random() < 0.02 else rng.choice(game.legal_actions(state))
        dice = tuple(rng.randint(1, 6) for _ in range(game.dice_needed(state, action)))
        state, _ = game.apply(state, player, action, dice)


def extra_keys(model: Any, path: str = "view") -> list[str]:
    """Keys a model let through without declaring them, anywhere inside it."""
    found = [f"{path}.{key}" for key in (model.model_extra or {})]
    for name in type(model).model_fields:
        value = getattr(model, name)
        for index, inner in enumerate(value if isinstance(value, list) else [value]):
            if isinstance(inner, AsSent):
                found += extra_keys(inner, f"{path}.{name}[{index}]")
    return found


def test_every_game_has_a_view_model() -> None:
    assert set(GAME_VIEWS) == set(game_names()) == set(OPTIONS)


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_every_real_view_validates_and_is_sent_back_unchanged(name: str) -> None:
    stages: set[object] = set()
    for seed in range(12):
        for views in (views_of_random_tables(name, seed, o) for o in OPTIONS[name]):
            for view in views:
                answer = {"tournament": "t-x", "table": "R1-1", "over": False, "view": view}
                answer["players"] = []
                model = TableView.model_validate(answer)
                assert isinstance(model.view, GAME_VIEWS[name])
                assert extra_keys(model.view) == []
                assert model.model_dump(mode="json")["view"] == view
                stages.add(view.get("stage", view.get("phase")))
                stages |= {key for key in view if key.startswith("your_")}
    expected = {
        "maexchen": {"opening", "response", "announce", "announce_blind", "over", "your_throw"},
        "mariechen": {"turns", "throw_off", "over"},
        "zweiundvierzig": {"hinrunde", "playoff", "rueckrunde", "over"},
    }[name]
    assert expected <= stages, "the random tables should reach every stage"
