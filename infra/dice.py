"""Where a table's dice come from: a server seed from `secrets` in production, a seeded
derivation in tests and demos (`--dice-seed`), marked as not secret; and, for a test
that needs a situation, faces written down beforehand (`ScriptedDice`).

Every table's dice follow from its server seed and its players' seeds by the scheme of
`core.fair_dice` (docs/dice.md): a source makes the server seed at the seating and
draws the faces of each action with `faces`, which all but `ScriptedDice` take from the
scheme. Its `roll` serves the tables seated before the scheme, which have no server seed.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Mapping, Sequence
from typing import Protocol

from core import fair_dice
from core.fair_dice import DEFAULT_PLAYER_SEED, SERVER_SEED_BYTES


class DiceSource(Protocol):
    """Makes the server seed of each new table; `secret` is False when anyone who knows
    the source's own seed can compute it (tests, demos)."""

    @property
    def secret(self) -> bool: ...

    def server_seed(self, tournament: str, ref: str) -> bytes: ...

    def faces(
        self,
        server_seed: bytes,
        *,
        tournament: str,
        table: str,
        version: int,
        count: int,
        seeds: Sequence[str],
    ) -> tuple[int, ...]: ...

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

    faces = staticmethod(fair_dice.dice)  # the committed scheme

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

    faces = staticmethod(fair_dice.dice)  # the committed scheme

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

    faces = staticmethod(fair_dice.dice)  # the committed scheme

    def server_seed(self, tournament: str, ref: str) -> bytes:
        """`seeded_server_seed`: repeatable, not secret."""
        return seeded_server_seed(self._seed, tournament, ref)

    def roll(self, count: int, at: str = "") -> tuple[int, ...]:
        """`count` faces from a Mersenne Twister seeded by the seed and `at`."""
        rand = random.Random(f"{self._seed}/{at}").random
        return tuple(int(rand() * 6) + 1 for _ in range(count))


class ScriptedDice:
    """Faces written down beforehand, for a test about a situation (a covered throw, a
    doubt that fails) that must not wait for dice that happen to produce it.

    `script` maps a table (`R1-2`) to the faces of its throws, in the order they are
    thrown; a table's throws past its script, and every table it does not name, follow
    from the server seed as usual. Each version's faces are kept, so an action retried
    at the same version gets the same dice. The server seeds come from `base` and are
    committed and revealed as any (not secret); a scripted face does not follow from its
    seed, so `knobelcup verify` rightly refuses a scripted table's log. One process only.
    """

    secret = False

    def __init__(
        self, script: Mapping[str, Sequence[Sequence[int]]], base: DiceSource | None = None
    ) -> None:
        self._script = {
            table: [tuple(throw) for throw in throws] for table, throws in script.items()
        }
        self._base = base if base is not None else SeededDice("scripted")
        self._thrown: dict[tuple[str, str, int], tuple[int, ...]] = {}
        self._used: dict[tuple[str, str], int] = {}

    def server_seed(self, tournament: str, ref: str) -> bytes:
        """The base source's seed: committed at the seating, revealed once over."""
        return self._base.server_seed(tournament, ref)

    def faces(
        self,
        server_seed: bytes,
        *,
        tournament: str,
        table: str,
        version: int,
        count: int,
        seeds: Sequence[str],
    ) -> tuple[int, ...]:
        """The table's next scripted throw (the same again for the same version)."""
        at = (tournament, table, version)
        if at in self._thrown:
            return self._thrown[at]
        throws, used = self._script.get(table, []), self._used.get((tournament, table), 0)
        if used < len(throws):
            faces = throws[used]
            if len(faces) != count or not all(1 <= face <= 6 for face in faces):
                raise ValueError(
                    f"{table}'s throw {used + 1} is {faces}: {count} faces of 1-6 asked"
                )
            self._used[(tournament, table)] = used + 1
        else:
            faces = fair_dice.dice(
                server_seed,
                tournament=tournament,
                table=table,
                version=version,
                count=count,
                seeds=seeds,
            )
        self._thrown[at] = faces
        return faces

    def roll(self, count: int, at: str = "") -> tuple[int, ...]:
        """The base source's faces (tables seated before the scheme are not scripted)."""
        return self._base.roll(count, at)


def seat_seeds(players: Sequence[str]) -> tuple[str, ...]:
    """Each seat's player seed as a table stores it: the player's own, or the default
    (`core.fair_dice.DEFAULT_PLAYER_SEED`) for a player who gave none."""
    return tuple(seed or DEFAULT_PLAYER_SEED for seed in players)
