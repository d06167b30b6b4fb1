"""Dice anyone can verify: a committed server seed, the players' seeds, HMAC-SHA256.

The scheme is specified in docs/dice.md, which a verifier in any language can follow;
this module is the one implementation the service draws with and `knobelcup verify`
checks with. A table's server seed is drawn at its seating, and its SHA-256, the
commitment, is shown from then on; the seed itself only once the table is over. Each
die of the action that made version `version` is the first byte below 252 of
HMAC-SHA256(server seed, message), taken modulo 6 plus 1 (no modulo bias: 252 = 6 × 42).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from core.errors import KnobelcupError

SCHEME = "knobelcup-dice-1"
SERVER_SEED_BYTES = 32
PLAYER_SEED_MAX = 32  # characters
DEFAULT_PLAYER_SEED = "-"  # a player who gave none adds nothing of their own
_ACCEPTED_BELOW = 252  # the largest multiple of 6 a byte can hold; bytes from here are rejected
PLAYER_SEED_RULE = "player seed"


class InvalidPlayerSeed(KnobelcupError):
    """A player seed that is not 1 to 32 printable ASCII characters without spaces."""

    code = "invalid_seed"
    field = "seed"


class DiceMismatch(KnobelcupError):
    """A log whose dice do not follow from its committed server seed."""

    code = "dice_mismatch"


def check_player_seed(seed: str) -> str:
    """`seed` unchanged if it is 1 to 32 characters from `!` to `~` (printable ASCII, no
    space), else `InvalidPlayerSeed` naming what is wrong."""
    if not 1 <= len(seed) <= PLAYER_SEED_MAX:
        raise InvalidPlayerSeed(
            f"a seed has 1 to {PLAYER_SEED_MAX} characters, not {len(seed)}",
            rule=PLAYER_SEED_RULE,
        )
    for character in seed:
        if not "!" <= character <= "~":
            raise InvalidPlayerSeed(
                f"a seed holds printable ASCII characters other than space (! to ~), "
                f"not U+{ord(character):04X}",
                rule=PLAYER_SEED_RULE,
            )
    return seed


def commitment(server_seed: bytes) -> str:
    """The commitment to a server seed: its SHA-256, in lowercase hex."""
    return hashlib.sha256(server_seed).hexdigest()


def die_message(
    *,
    tournament: str,
    table: str,
    version: int,
    index: int,
    attempt: int,
    player_seeds: Sequence[str],
) -> bytes:
    """What is signed for one die: the scheme, tournament, table, version, die index,
    attempt and every seat's seed, one per line (docs/dice.md)."""
    lines = [SCHEME, tournament, table, str(version), str(index), str(attempt), *player_seeds]
    return "\n".join(lines).encode()


def die(
    server_seed: bytes,
    *,
    tournament: str,
    table: str,
    version: int,
    index: int,
    seeds: Sequence[str],
) -> int:
    """Die number `index` (from 0) of the action that made `version`: 1 to 6."""
    attempt = 0
    while True:
        message = die_message(
            tournament=tournament,
            table=table,
            version=version,
            index=index,
            attempt=attempt,
            player_seeds=seeds,
        )
        for byte in hmac.digest(server_seed, message, "sha256"):
            if byte < _ACCEPTED_BELOW:
                return byte % 6 + 1
        attempt += 1  # all 32 bytes rejected: (4/256)^32, but the rule is complete


def dice(
    server_seed: bytes,
    *,
    tournament: str,
    table: str,
    version: int,
    count: int,
    seeds: Sequence[str],
) -> tuple[int, ...]:
    """The `count` dice of the action that made `version`."""
    return tuple(
        die(server_seed, tournament=tournament, table=table, version=version, index=i, seeds=seeds)
        for i in range(count)
    )


class TableDice(NamedTuple):
    """What a table shows of its dice: `server_seed` is hex, or None while it is played."""

    commitment: str
    player_seeds: tuple[str, ...]
    server_seed: str | None
    secret: bool

    def as_dict(self) -> dict[str, object]:
        """The `dice` object of views and logs (docs/dice.md)."""
        return {
            "scheme": SCHEME,
            "commitment": self.commitment,
            "player_seeds": list(self.player_seeds),
            "server_seed": self.server_seed,
            "secret": self.secret,
        }


def table_dice(
    server_seed: bytes, player_seeds: Sequence[str], over: bool, secret: bool
) -> TableDice:
    """A table's dice as anyone may see them: the seed only once `over`."""
    shown = server_seed.hex() if over else None
    return TableDice(commitment(server_seed), tuple(player_seeds), shown, secret)


def verify_dice(
    tournament: str, table: str, head: Mapping[str, Any], records: Sequence[Mapping[str, Any]]
) -> int:
    """Check a finished table's dice against its `head` (the log's `dice` object) and
    return how many throws (records with dice) were checked. `DiceMismatch` names the
    first thing that does not follow: the scheme, the commitment, a die."""
    if head.get("scheme") != SCHEME:
        raise DiceMismatch(f"unknown dice scheme {head.get('scheme')!r}, expected {SCHEME}")
    revealed = head.get("server_seed")
    if not isinstance(revealed, str):
        raise DiceMismatch("the server seed is not revealed: the table is not over")
    try:
        server_seed = bytes.fromhex(revealed)
    except ValueError:
        raise DiceMismatch(f"the server seed {revealed!r} is not hex") from None
    if commitment(server_seed) != head.get("commitment"):
        raise DiceMismatch(
            f"the server seed's SHA-256 is {commitment(server_seed)}, "
            f"the commitment shown from the seating is {head.get('commitment')}"
        )
    seeds = [check_player_seed(seed) for seed in head.get("player_seeds", [])]
    seats = records[0]["events"][0].get("seats", []) if records else []
    if len(seeds) != len(seats):
        raise DiceMismatch(f"{len(seeds)} player seeds for {len(seats)} seats")
    throws = 0
    for record in records[1:]:
        drawn = record.get("dice")
        if drawn is None:
            raise DiceMismatch(f"version {record.get('version')}: dice not revealed")
        version = int(record["version"])
        for index, face in enumerate(drawn):
            expected = die(
                server_seed,
                tournament=tournament,
                table=table,
                version=version,
                index=index,
                seeds=seeds,
            )
            if face != expected:
                raise DiceMismatch(
                    f"throw at version {version} ({record.get('player')}): die {index + 1} "
                    f"shows {face}, the seeds give {expected}"
                )
        throws += 1 if drawn else 0
    return throws
