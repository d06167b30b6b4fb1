"""Where dice come from: `secrets` in production, a seeded generator in tests and demos.

The core never draws dice; the caller asks the game how many an action needs and hands
over what one of these sources rolled.
"""

from __future__ import annotations

import random
import secrets
from typing import Protocol


class DiceSource(Protocol):
    """Rolls `count` fair six-sided dice; `at` names where they fall (`<table>@<version>`),
    which only a reproducible source for tests uses."""

    def roll(self, count: int, at: str = "") -> tuple[int, ...]: ...


class SecretDice:
    """Dice from the operating system's cryptographic source: nobody can predict them."""

    def roll(self, count: int, at: str = "") -> tuple[int, ...]:
        """`count` faces from `secrets.randbelow`."""
        return tuple(secrets.randbelow(6) + 1 for _ in range(count))


class SeededDice:
    """Reproducible dice for tests, demos and benchmarks: the same seed, the same rolls."""

    def __init__(self, seed: int | str) -> None:
        self._random = random.Random(seed).random

    def roll(self, count: int, at: str = "") -> tuple[int, ...]:
        """`count` faces from a seeded Mersenne Twister (never use for real play)."""
        rand = self._random
        if count == 2:
            return (int(rand() * 6) + 1, int(rand() * 6) + 1)
        return tuple(int(rand() * 6) + 1 for _ in range(count))


class PlaceSeededDice:
    """Reproducible dice that depend only on the seed and where they fall, not on the
    order in which tables happen to be played: two runs of a tournament whose deliveries
    came in different orders roll the same dice at the same table and version."""

    def __init__(self, seed: int | str) -> None:
        self._seed = seed

    def roll(self, count: int, at: str = "") -> tuple[int, ...]:
        """`count` faces from a Mersenne Twister seeded by the seed and `at`."""
        rand = random.Random(f"{self._seed}/{at}").random
        return tuple(int(rand() * 6) + 1 for _ in range(count))
