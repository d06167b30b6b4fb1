"""A client's default player seed for the dice (docs/dice.md): random, chosen here.

A registration sends one, so the player adds an input of their own to their tables'
dice; `knobelcup verify` later shows it in every finished table's log.
"""

from __future__ import annotations

import secrets

from core.fair_dice import check_player_seed


def random_player_seed() -> str:
    """9 random bytes (72 bits, beyond any guessing before the table) as 12 URL-safe
    base64 characters: a valid player seed, short, as every table item carries it."""
    return check_player_seed(secrets.token_urlsafe(9))


def registration_body(
    name: str, seed: str | None = None, join_code: str | None = None
) -> dict[str, str]:
    """`POST /tournaments/{id}/players`'s body: the name, a seed (a random one when
    None) and the tournament's join code, where it has one."""
    body = {"name": name, "seed": random_player_seed() if seed is None else seed}
    if join_code:
        body["join_code"] = join_code
    return body
