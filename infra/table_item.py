"""A table as one DynamoDB item: seating, token hashes, the moves as one compact string.

Storing moves instead of engine state keeps every table item small (a four-player
Mäxchen table stays under 1 KB for most of its life, so a turn costs one write unit)
and makes the item its own audit log: `core.match` replays it. Layout and sizes are in
docs/data-model.md. Attribute values are built by hand: this is the hot path, and
boto3's generic serializer costs more than the rest of a turn's Python work.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from core.actions import Action, Announce, BlindReroll, Concede, Doubt, Stop, Throw, Timeout
from core.match import Move, Seating

TABLE_SORT_KEY = "TABLE"

_CODES: dict[type, str] = {
    Throw: "t",
    BlindReroll: "b",
    Announce: "a",
    Doubt: "d",
    Stop: "s",
    Concede: "c",
    Timeout: "x",
}
_SIMPLE: dict[str, Action] = {
    "t": Throw(),
    "b": BlindReroll(),
    "d": Doubt(),
    "s": Stop(),
    "c": Concede(),
    "x": Timeout(),
}


def table_key(tournament: str, ref: str) -> dict[str, dict[str, str]]:
    """The item key of table `ref` (such as `R1-3`) of `tournament`."""
    return {"pk": {"S": f"T#{tournament}#TABLE#{ref}"}, "sk": {"S": TABLE_SORT_KEY}}


def encode_move(move: Move) -> str:
    """`<seat><code><payload>`: `2t53` is seat 2 throwing 5 and 3, `0a31` announces 31."""
    code = _CODES[type(move.action)]
    if isinstance(move.action, Announce):
        if move.dice:
            raise ValueError("an announcement takes no dice")
        return f"{move.seat}a{move.action.value}"
    return f"{move.seat}{code}{''.join(map(str, move.dice))}"


def decode_move(text: str) -> Move:
    """The inverse of `encode_move`."""
    split = 0
    while text[split].isdigit():
        split += 1
    seat, code, payload = int(text[:split]), text[split], text[split + 1 :]
    if code == "a":
        return Move(seat, Announce(int(payload)), ())
    return Move(seat, _SIMPLE[code], tuple(int(face) for face in payload))


@dataclass(slots=True)
class TableRecord:
    """Everything stored about one table. `version` always equals `len(moves)`."""

    tournament: str
    ref: str
    seating: Seating
    token_hashes: tuple[str, ...]  # per seat: hash of that player's token
    moves: list[Move] = field(default_factory=list)
    # per seat: the hash of that player's last Idempotency-Key and the version it made
    last_keys: dict[int, tuple[str, int]] = field(default_factory=dict)
    ranking: tuple[str, ...] = ()  # set once the table is over
    expires_at: int = 0

    @property
    def version(self) -> int:
        """The table's version: the number of moves applied."""
        return len(self.moves)

    @property
    def over(self) -> bool:
        """True once the table has a ranking."""
        return bool(self.ranking)


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
        "moves": {"S": " ".join(map(encode_move, record.moves))},
        "version": {"N": str(record.version)},
        "status": {"S": "over" if record.ranking else "playing"},
    }
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
    return item


def from_item(item: dict[str, Any]) -> TableRecord:
    """The inverse of `to_item`."""
    moves_text = item["moves"]["S"]
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
        moves=[decode_move(text) for text in moves_text.split(" ")] if moves_text else [],
        last_keys=last_keys,
        ranking=tuple(item["ranking"]["S"].split(" ")) if "ranking" in item else (),
        expires_at=int(item["expires_at"]["N"]) if "expires_at" in item else 0,
    )
