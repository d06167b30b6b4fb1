"""Ids and bearer tokens. Tokens are shown once and stored only as a SHA-256 hash.

A token is `<owner id>.<32 random bytes>`: the owner id says whose hash to compare
against without a lookup, and the random part is what proves possession. The tokens
are long random secrets, so a plain (fast) hash is enough; a password hash would only
slow every turn down.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import random
import secrets
from collections.abc import Callable

_ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o, 1/l: ids get read aloud


MAX_ID_LENGTH = 64  # far above any id or table name the service makes


def plausible_id(value: str) -> bool:
    """Whether `value` could name something the service made: short, printable ASCII. A
    key of 2,048 bytes or more is refused by DynamoDB itself (a 500, not a 404)."""
    return 0 < len(value) <= MAX_ID_LENGTH and value.isascii() and value.isprintable()


def shown(value: str) -> str:
    """`value` as an error message may quote it: cut short if it is long."""
    return value if len(value) <= MAX_ID_LENGTH else value[:MAX_ID_LENGTH] + "…"


def new_id(prefix: str, length: int = 10) -> str:
    """A random id such as `t-k3x9...`, safe in URLs and DynamoDB keys."""
    body = "".join(secrets.choice(_ID_ALPHABET) for _ in range(length))
    return f"{prefix}-{body}"


def seeded_ids(seed: str) -> Callable[[str], str]:
    """Ids like `new_id`'s, the same sequence for the same seed: for test stacks that
    compare two runs of a tournament, whose dice depend on its id (docs/dice.md).
    Never in a service where two processes make ids: their sequences would collide."""
    choose = random.Random(f"ids/{seed}").choice

    def next_id(prefix: str) -> str:
        return f"{prefix}-{''.join(choose(_ID_ALPHABET) for _ in range(10))}"

    return next_id


def new_token(owner: str) -> str:
    """A fresh bearer token for `owner` (a player id, or `organizer`)."""
    return f"{owner}.{secrets.token_urlsafe(32)}"


def token_owner(token: str) -> str:
    """The owner part of a token ('' when the token has none); proves nothing by itself."""
    owner, dot, _ = token.partition(".")
    return owner if dot and plausible_id(owner) else ""


def hash_token(token: str) -> str:
    """What is stored instead of the token: the first 128 bits of its SHA-256, base64url.

    128 bits keep a preimage out of reach; a table item stores one per seat, and every
    byte of it is paid for on every turn.
    """
    digest = hashlib.sha256(token.encode()).digest()[:16]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def token_matches(token: str, stored_hash: str) -> bool:
    """Whether `token` hashes to `stored_hash`, compared in constant time."""
    return hmac.compare_digest(hash_token(token), stored_hash)
