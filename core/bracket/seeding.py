"""Seeding: the order in which registered players fill the first round's tables.

Rules: docs/rules.md §5.2 — a seed recorded with the tournament shuffles the players
(reproducibly, so anyone can audit it), or the organizer gives the order.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence

from core.bracket.plan import InvalidBracket
from core.events import PlayerId


def organizer_order(players: Sequence[PlayerId]) -> tuple[PlayerId, ...]:
    """The organizer's order, used as is; raises `InvalidBracket` on a duplicate player."""
    order = tuple(players)
    if len(set(order)) != len(order):
        twice = sorted(player for player, count in Counter(order).items() if count > 1)
        raise InvalidBracket(
            f"each player may enter a tournament once; entered more than once: "
            f"{', '.join(twice[:5])}{', ...' if len(twice) > 5 else ''}",
            rule="rules §5.2 seeding",
        )
    return order


def seed_key(seed: str, player: PlayerId) -> bytes:
    """The sort key of `player` under `seed`: SHA-256 of the UTF-8 text "<seed>:<player>"."""
    return hashlib.sha256(f"{seed}:{player}".encode()).digest()


def seeded_order(players: Sequence[PlayerId], seed: str) -> tuple[PlayerId, ...]:
    """The players shuffled by `seed`, reproducibly and auditably.

    Formula: sort the players by `hashlib.sha256(f"{seed}:{player}".encode()).digest()`
    (bytes compared lexicographically, i.e. the hex digests compared as strings),
    ascending; equal digests (never seen in practice) are broken by the player id.
    Anyone holding the seed and the list of players can recompute the order; the order
    the players registered in plays no part. Raises `InvalidBracket` on a duplicate player.
    """
    order = organizer_order(players)
    return tuple(sorted(order, key=lambda player: (seed_key(seed, player), player)))
