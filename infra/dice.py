"""Where dice come from: `secrets` in production, a seeded generator in tests and demos.

The core never draws dice; the caller asks the game how many an action needs and hands
over what one of these sources rolled.
"""

from __future__ import annotations

import random
import secrets
from typing import Protocol


class DiceSource(Protocol):
    """Rolls `count` fair six-sided dice."""

    def roll(self, count: int) -> tuple[int, ...]: ...


class SecretDice:
    """Dice from the operating system's cryptographic source: nobody can predict them."""

    def roll(self, count: int) -> tuple[int, ...]:
        """`count` faces from `secrets.randbelow`."""
        return tuple(secrets.randbelow(6) + 1 for _ in range(count))


class SeededDice:
    """Reproducible dice for tests, demos and benchmarks: the same seed, the same rolls."""

    def __init__(self, seed: int | str) -> None:
        self._random = random.Random(seed).random

    def roll(self, count: int) -> tuple[int, ...]:
        """`count` faces from a seeded Mersenne Twister (never use for real play)."""
        rand = self._random
        if count == 2:
            return (int(rand() * 6) + 1, int(rand() * 6) + 1)
        return tuple(int(rand() * 6) + 1 for _ in range(count))
