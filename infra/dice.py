"""Where a table's server seed comes from: `secrets` in production, a seeded derivation
in tests and demos (`--dice-seed`), marked as not secret.

Every table's dice follow from its server seed and its players' seeds by the scheme of
`core.fair_dice` (docs/dice.md); a source only makes the server seed at the seating. Its
`roll` serves the tables seated before the scheme, which have no server seed.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Sequence
from typing import Protocol

from core.fair_dice import DEFAULT_PLAYER_SEED, SERVER_SEED_BYTES


class DiceSource(Protocol):
    """Makes the server seed of each new table; `secret` is False when anyone who knows
    the source's own seed can compute it (tests, demos)."""

    @property
    def secret(self) -> bool: ...

    def server_seed(self, tournament: str, ref: str) -> bytes: ...

    def roll(self, count: int, at: str = "") -> tuple[int, ...]: ...


def seeded_server_seed(seed: int | str, tournament: str, ref: str) -> bytes:
    """The server seed a repeatable source gives table `ref` of `tournament`: SHA-256 of
    `knobelcup-seeded-dice`, the source's seed, the tournament and the table, one per
    line. Not secret: anyone who knows the source's seed can compute it."""
    return hashlib.sha256(f"knobelcup-seeded-dice\n{seed}\n{tournament}\n{ref}".encode()).digest()


class SecretDice:
    """Server seeds from the operating system's cryptographic source, fresh for every
    table: nobody can predict them, and nothing shared between tables or between
    restored Lambda environments (whose `random` state a snapshot would copy) enters."""

    secret = True

    def server_seed(self, tournament: str, ref: str) -> bytes:
        """32 bytes from `secrets`, whatever the table."""
        return secrets.token_bytes(SERVER_SEED_BYTES)

    def roll(self, count: int, at: str = "") -> tuple[int, ...]:
        """`count` faces from `secrets.randbelow`."""
        return tuple(secrets.randbelow(6) + 1 for _ in range(count))


class SeededDice:
    """Reproducible dice for tests, demos and benchmarks: the same seed, the same rolls."""

    secret = False

    def __init__(self, seed: int | str) -> None:
        self._seed = seed
        self._random = random.Random(seed).random

    def server_seed(self, tournament: str, ref: str) -> bytes:
        """`seeded_server_seed`: repeatable, not secret."""
        return seeded_server_seed(self._seed, tournament, ref)

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

    secret = False

    def __init__(self, seed: int | str) -> None:
        self._seed = seed

    def server_seed(self, tournament: str, ref: str) -> bytes:
        """`seeded_server_seed`: repeatable, not secret."""
        return seeded_server_seed(self._seed, tournament, ref)

    def roll(self, count: int, at: str = "") -> tuple[int, ...]:
        """`count` faces from a Mersenne Twister seeded by the seed and `at`."""
        rand = random.Random(f"{self._seed}/{at}").random
        return tuple(int(rand() * 6) + 1 for _ in range(count))


def seat_seeds(players: Sequence[str]) -> tuple[str, ...]:
    """Each seat's player seed as a table stores it: the player's own, or the default
    (`core.fair_dice.DEFAULT_PLAYER_SEED`) for a player who gave none."""
    return tuple(seed or DEFAULT_PLAYER_SEED for seed in players)
