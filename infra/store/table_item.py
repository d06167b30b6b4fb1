"""A table as one DynamoDB item: seating, token hashes, the moves as one compact string.

Storing moves instead of engine state keeps every table item small (a Mäxchen
table stays under 1 KB all its life, so a turn costs one write unit)
and makes the item its own audit log: `core.match` replays it. Layout and sizes are in
docs/data-model.md. Attribute values are built by hand: this is the hot path, and
boto3's generic serializer costs more than the rest of a turn's Python work.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.actions import (
    Action,
    Announce,
    BlindReroll,
    Concede,
    Doubt,
    Forfeit,
    Stop,
    Throw,
    Timeout,
)
from core.match import Move, Seating

TABLE_SORT_KEY = "TABLE"
CANCELLED = "cancelled"  # a table's status once its tournament was cancelled
DUE_SHARDS = 16  # partition keys of the deadline index (infra.store.deadlines)
_MOVE = re.compile(r"([a-z])([0-9]*)")

_CODES: dict[type, str] = {
    Throw: "t",
    BlindReroll: "b",
    Announce: "a",
    Doubt: "d",
    Stop: "s",
    Concede: "c",
    Timeout: "x",
    Forfeit: "f",
}
_SIMPLE: dict[str, Action] = {
    "t": Throw(),
    "b": BlindReroll(),
    "d": Doubt(),
    "s": Stop(),
    "c": Concede(),
    "x": Timeout(),
    "f": Forfeit(),
}


def table_key(tournament: str, ref: str) -> dict[str, dict[str, str]]:
    """The item key of table `ref` (such as `R1-3`) of `tournament`."""
    return {"pk": {"S": f"T#{tournament}#TABLE#{ref}"}, "sk": {"S": TABLE_SORT_KEY}}


def table_of(pk: str) -> tuple[str, str]:
    """(tournament, ref) from a table item's `pk`: the inverse of `table_key`."""
    parts = pk.split("#", 3)
    if len(parts) != 4 or parts[0] != "T" or parts[2] != "TABLE":
        raise ValueError(f"not a table key: {pk}")
    return parts[1], parts[3]


def due_shard(tournament: str, ref: str) -> str:
    """The table's partition in the deadline index, fixed for its life: `D#0` to `D#15`.
    From SHA-256 rather than Python's `hash`, which is salted per process."""
    digest = hashlib.sha256(f"{tournament}#{ref}".encode()).digest()
    return f"D#{int.from_bytes(digest[:4], 'big') % DUE_SHARDS}"


def encode_moves(moves: Sequence[Move]) -> str:
    """Each move as its action letter and then its digits: `t53a53t21d` is a throw of 5
    and 3, an announced 53, a throw of 2 and 1, a doubt. The player is not stored: it is
    always the one whose turn it was (see `core.match`)."""
    parts = []
    for move in moves:
        if isinstance(move.action, Announce):
            if move.dice:
                raise ValueError("an announcement takes no dice")
            parts.append(f"a{move.action.value}")
        else:
            parts.append(_CODES[type(move.action)] + "".join(map(str, move.dice)))
    return "".join(parts)


def decode_moves(text: str) -> list[Move]:
    """The inverse of `encode_moves`."""
    moves: list[Move] = []
    for match in _MOVE.finditer(text):
        code, digits = match[1], match[2]
        if code == "a":
            moves.append(Move(Announce(int(digits)), ()))
        else:
            moves.append(Move(_SIMPLE[code], tuple(int(face) for face in digits)))
    return moves


@dataclass(slots=True)
class TableRecord:
    """Everything stored about one table. `version` always equals `len(moves)`."""

    tournament: str
    ref: str
    seating: Seating
    token_hashes: tuple[str, ...]  # per seat: hash of that player's token
    moves: list[Move] = field(default_factory=list)
    # per seat: the player's display name, stored at the seating so that no view needs
    # a player read; () on tables seated before names were stored
    names: tuple[str, ...] = ()
    # per seat: the hash of that player's last Idempotency-Key and the version it made
    last_keys: dict[int, tuple[str, int]] = field(default_factory=dict)
    ranking: tuple[str, ...] = ()  # set once the table is over
    expires_at: int = 0
    final: bool = False
    bye: bool = False  # a lone player's table: over from the start, nothing to play
    # when this version times out (epoch s); 0 once over (infra.store.deadlines)
    deadline: int = 0
    # the deadline index's sort key: set at the seating, then moved only by the sweeper
    # (0: not in the index)
    due_at: int = 0
    # the dice (core.fair_dice, docs/dice.md): the secret drawn at the seating (b'' on
    # tables seated before the scheme), each seat's seed, and whether the server seed
    # came from a source nobody can predict (False: repeatable dice for tests and demos)
    server_seed: bytes = b""
    player_seeds: tuple[str, ...] = ()
    dice_secret: bool = True
    # the organizer's doing (infra.services.organizer): players disqualified at this table, who
    # forfeit whenever they are to act; and a table stopped with its tournament
    disqualified: tuple[str, ...] = ()
    cancelled: bool = False
    # pacing (infra.store.capacity): `held` while the table holds one of the deployment's
    # slots, `released` once freed; empty on an unpaced deployment
    slot: str = ""

    @property
    def version(self) -> int:
        """The table's version: the number of moves applied."""
        return len(self.moves)

    @property
    def over(self) -> bool:
        """True once the table has a ranking."""
        return bool(self.ranking)

    def seat_names(self) -> tuple[str, ...]:
        """Each seat's display name; the player's id where none is stored."""
        if len(self.names) == len(self.seating.seats):
            return self.names
        return self.seating.seats

    def name_of(self, player: str) -> str:
        """The display name of `player`, who sits here; their id where none is stored."""
        return self.seat_names()[self.seating.seats.index(player)]


def to_item(record: TableRecord) -> dict[str, Any]:
    """The DynamoDB item (attribute values) of `record`."""
    seating = record.seating
    item: dict[str, Any] = {
        **table_key(record.tournament, record.ref),
        "kind": {"S": "table"},
        "tournament": {"S": record.tournament},
        "ref": {"S": record.ref},
        "game": {"S": seating.game},
        "seats": {"S": " ".join(seating.seats)},
        "options": {"S": json.dumps(seating.options, separators=(",", ":"))},
        "survivors": {"N": str(seating.survivors)},
        "token_hashes": {"S": " ".join(record.token_hashes)},
        "moves": {"S": encode_moves(record.moves)},
        "version": {"N": str(record.version)},
        "status": {"S": _status(record)},
    }
    if record.names:
        item["names"] = {"S": json.dumps(record.names, ensure_ascii=False, separators=(",", ":"))}
    if record.final:
        item["final"] = {"BOOL": True}
    if record.last_keys:
        item["last_keys"] = {
            "M": {
                str(seat): {"S": f"{key} {version}"}
                for seat, (key, version) in record.last_keys.items()
            }
        }
    if record.ranking:
        item["ranking"] = {"S": " ".join(record.ranking)}
    if record.expires_at:
        item["expires_at"] = {"N": str(record.expires_at)}
    if record.deadline and not record.over:
        item["deadline"] = {"N": str(record.deadline)}
    if record.due_at:
        item["due_shard"] = {"S": due_shard(record.tournament, record.ref)}
        item["due_at"] = {"N": str(record.due_at)}
    if record.slot:
        item["slot"] = {"S": record.slot}
    if record.disqualified:
        item["disqualified"] = {"S": " ".join(record.disqualified)}
    if record.server_seed:
        # base64 text rather than a binary attribute: 12 bytes more, but every reader of
        # an image (boto3, a stream event's JSON, the local stand-ins) reads it alike
        item["server_seed"] = {"S": base64.b64encode(record.server_seed).decode()}
        item["player_seeds"] = {"S": " ".join(record.player_seeds)}
        if not record.dice_secret:
            item["repeatable_dice"] = {"BOOL": True}
    return item


def from_item(item: dict[str, Any]) -> TableRecord:
    """The inverse of `to_item`."""
    last_keys: dict[int, tuple[str, int]] = {}
    for seat, value in item.get("last_keys", {}).get("M", {}).items():
        key, _, version = value["S"].rpartition(" ")
        last_keys[int(seat)] = (key, int(version))
    return TableRecord(
        tournament=item["tournament"]["S"],
        ref=item["ref"]["S"],
        seating=Seating(
            game=item["game"]["S"],
            seats=tuple(item["seats"]["S"].split(" ")),
            options=json.loads(item["options"]["S"]),
            survivors=int(item["survivors"]["N"]),
        ),
        token_hashes=tuple(item["token_hashes"]["S"].split(" ")),
        moves=decode_moves(item["moves"]["S"]),
        names=tuple(json.loads(item["names"]["S"])) if "names" in item else (),
        last_keys=last_keys,
        ranking=tuple(item["ranking"]["S"].split(" ")) if "ranking" in item else (),
        expires_at=int(item["expires_at"]["N"]) if "expires_at" in item else 0,
        final="final" in item,
        bye=item["status"]["S"] == "bye",
        deadline=int(item["deadline"]["N"]) if "deadline" in item else 0,
        due_at=int(item["due_at"]["N"]) if "due_at" in item else 0,
        server_seed=base64.b64decode(item["server_seed"]["S"]) if "server_seed" in item else b"",
        player_seeds=tuple(item["player_seeds"]["S"].split(" ")) if "player_seeds" in item else (),
        dice_secret="repeatable_dice" not in item,
        disqualified=tuple(item["disqualified"]["S"].split(" ")) if "disqualified" in item else (),
        cancelled=item["status"]["S"] == CANCELLED,
        slot=item["slot"]["S"] if "slot" in item else "",
    )


def _status(record: TableRecord) -> str:
    if record.cancelled:
        return CANCELLED
    if record.bye:
        return "bye"
    return "over" if record.ranking else "playing"


def bye_table(
    tournament: str, ref: str, player: str, expires_at: int, game: str, *, name: str
) -> TableRecord:
    """The table of a player who would sit alone: over at once, the player going on."""
    return TableRecord(
        tournament=tournament,
        ref=ref,
        seating=Seating(game, (player,), {}, 1),
        token_hashes=("-",),
        names=(name,),
        ranking=(player,),
        expires_at=expires_at,
        bye=True,
    )
