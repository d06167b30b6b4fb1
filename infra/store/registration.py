"""Registration without a hot item: the count is kept in shards (docs/data-model.md).

Every registration used to add one to the tournament item, so that one item took a
write per player and capped registration at what one item can take. Now each
registration counts on one of `SHARDS` shard items, the less full of two its id names
(one read of both before the write), and each
shard holds its own share of `player_limit` and its own copy of "registration open".
Closing registration (by the organizer or the start) flips every shard and the
tournament in one transaction, so no registration can count after it and the sum of
the shards is exact from then on.

A name is claimed in the same transaction: one item per name in use
(`T#<t>#NAME#<name key>`), put only if it does not exist, so two players cannot take
one name however close together they register, and no item is written by more than
the one registration that claims it.
"""

from __future__ import annotations

import zlib
from typing import Any

from infra.store.tournament_items import tournament_pk

SHARDS = 64  # one transaction closes them all with the tournament: at most 99
SHARD_SK = "REG"
NAME_SK = "NAME"


def shard_key(tournament: str, shard: int) -> dict[str, Any]:
    """The key of registration shard `shard` (0 ≤ shard < SHARDS): a partition each."""
    return {"pk": {"S": f"{tournament_pk(tournament)}#REG#{shard:02d}"}, "sk": {"S": SHARD_SK}}


def shard_capacity(player_limit: int, shard: int) -> int:
    """Shard `shard`'s share of `player_limit`; the shares add up to the limit exactly."""
    share, rest = divmod(player_limit, SHARDS)
    return share + (1 if shard < rest else 0)


def shard_choices(player: str) -> tuple[int, int]:
    """Two shards a registration may count on, from two hashes of the player's id. The
    registration takes the less full of the two ("the power of two choices"): one
    random shard would leave the fullest about two standard deviations above N/SHARDS,
    two choices keep it within a few."""
    first = zlib.crc32(player.encode()) % SHARDS
    other = zlib.adler32(player.encode()) % (SHARDS - 1)
    return first, other if other < first else other + 1


def shards_for(player: str, taken: dict[int, int]) -> list[int]:
    """The shards a registration tries, in order: the less full of its two choices
    (`taken` holds their counts), the other, then the rest (a full shard passes the
    registration on, so the limit is reached only when all are full)."""
    choices = sorted(shard_choices(player), key=lambda shard: taken.get(shard, 0))
    rest = [shard for shard in range(SHARDS) if shard not in choices]
    return [*choices, *rest]


def shard_item(tournament: str, shard: int, player_limit: int, expires_at: int) -> dict[str, Any]:
    """A new shard: closed, nothing counted."""
    return {
        **shard_key(tournament, shard),
        "kind": {"S": "registration_shard"},
        "open": {"BOOL": False},
        "taken": {"N": "0"},
        "capacity": {"N": str(shard_capacity(player_limit, shard))},
        "expires_at": {"N": str(expires_at)},
    }


def name_claim_key(tournament: str, key: str) -> dict[str, Any]:
    """The key of the item claiming the name whose comparison key is `key`
    (`core.names.name_key`): a partition each."""
    return {"pk": {"S": f"{tournament_pk(tournament)}#NAME#{key}"}, "sk": {"S": NAME_SK}}


def name_claim_item(tournament: str, key: str, player: str, expires_at: int) -> dict[str, Any]:
    """The claim of a name by `player`."""
    return {
        **name_claim_key(tournament, key),
        "kind": {"S": "name_claim"},
        "player": {"S": player},
        "expires_at": {"N": str(expires_at)},
    }
