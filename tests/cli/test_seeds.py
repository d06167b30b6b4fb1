"""A client's default player seed for the dice (docs/dice.md)."""

from __future__ import annotations

import json
from typing import Any

from cli.seeds import random_player_seed, registration_body
from cli.session import register
from core.fair_dice import check_player_seed
from local.lambda_events import HttpAnswer


def test_a_client_s_default_seed_is_random_short_and_valid() -> None:
    seeds = {random_player_seed() for _ in range(100)}
    assert len(seeds) == 100
    assert all(len(seed) == 12 and check_player_seed(seed) == seed for seed in seeds)
    assert registration_body("Anna", "mine") == {"name": "Anna", "seed": "mine"}
    assert registration_body("Anna")["seed"] not in seeds


class Recording:
    """A transport that registers anyone and keeps what it was sent."""

    def __init__(self) -> None:
        self.sent: list[Any] = []

    def call(self, method: str, path: str, body: object = None, **request: Any) -> HttpAnswer:
        self.sent.append(body)
        answer = {"player_id": "p-1", "player_token": "tok"}
        return HttpAnswer(201, answer, json.dumps(answer), {})

    def close(self) -> None:
        pass


def test_the_bot_kit_and_the_console_register_with_a_seed_of_their_own() -> None:
    transport = Recording()
    register(transport, "t-1", "Anna")
    register(transport, "t-1", "Bernd")
    first, second = transport.sent
    assert first["name"] == "Anna" and check_player_seed(first["seed"]) == first["seed"]
    assert first["seed"] != second["seed"]
