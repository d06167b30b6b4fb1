"""A client's default player seed for the dice (docs/dice.md)."""

from __future__ import annotations

from cli.seeds import random_player_seed, registration_body
from core.fair_dice import check_player_seed


def test_a_client_s_default_seed_is_random_short_and_valid() -> None:
    seeds = {random_player_seed() for _ in range(100)}
    assert len(seeds) == 100
    assert all(len(seed) == 12 and check_player_seed(seed) == seed for seed in seeds)
    assert registration_body("Anna", "mine") == {"name": "Anna", "seed": "mine"}
    assert registration_body("Anna")["seed"] not in seeds
