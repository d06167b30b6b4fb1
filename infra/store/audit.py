"""The organizer's audit trail: who (the organizer, by token generation) did what, when.

Entries: partition `T#<tournament>#AUDIT`, sort key `A#<epoch ms, 13 digits>#<6 hex>`,
append-only (each Put is conditional on `attribute_not_exists(pk)`), read oldest first
by a key-range Query. No index is involved. An action that changes the tournament
writes its entry in the same transaction as the change (`audit_put`).
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from infra.store.table import TableStore
from infra.store.tournament_items import TournamentRecord

AUDIT_PREFIX = "A#"
AUDIT_CURSOR = re.compile(r"^A#[0-9]{13}#[0-9a-f]{6}$")


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One organizer action: who (the organizer, by token generation), what, when."""

    at_ms: int
    action: str
    token_generation: int
    detail: dict[str, Any] = field(default_factory=dict)
    actor: str = "organizer"
    key: str = ""  # the sort key: the next page's cursor

    def item(self, tournament: str, expires_at: int) -> dict[str, Any]:
        """The DynamoDB item of this entry (a fresh key unless it has one)."""
        key = self.key or f"{AUDIT_PREFIX}{self.at_ms:013d}#{secrets.token_hex(3)}"
        return {
            "pk": {"S": audit_pk(tournament)},
            "sk": {"S": key},
            "kind": {"S": "audit_entry"},
            "at_ms": {"N": str(self.at_ms)},
            "actor": {"S": self.actor},
            "token_generation": {"N": str(self.token_generation)},
            "action": {"S": self.action},
            "detail": {"S": json.dumps(self.detail, separators=(",", ":"))},
            "expires_at": {"N": str(expires_at)},
        }

    @classmethod
    def of(
        cls, tournament: TournamentRecord, action: str, detail: dict[str, Any], now: float
    ) -> AuditEntry:
        """The organizer's `action` on `tournament` at `now` (epoch seconds)."""
        return cls(
            at_ms=int(now * 1000),
            action=action,
            token_generation=tournament.organizer_generation,
            detail=detail,
        )

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> AuditEntry:
        """The inverse of `item`."""
        return cls(
            at_ms=int(item["at_ms"]["N"]),
            action=item["action"]["S"],
            token_generation=int(item["token_generation"]["N"]),
            detail=json.loads(item["detail"]["S"]),
            actor=item["actor"]["S"],
            key=item["sk"]["S"],
        )


class Audited(NamedTuple):
    """An entry to write with a change, and when it expires (with its tournament)."""

    entry: AuditEntry
    expires_at: int


def audit_pk(tournament: str) -> str:
    """The partition of a tournament's audit trail."""
    return f"T#{tournament}#AUDIT"


def audit_put(table: str, tournament: str, entry: AuditEntry, expires_at: int) -> dict[str, Any]:
    """The transaction item that adds `entry` to the trail (never overwriting one)."""
    return {
        "Put": {
            "TableName": table,
            "Item": entry.item(tournament, expires_at),
            "ConditionExpression": "attribute_not_exists(pk)",
        }
    }


class AuditStore(TableStore):
    """The trail's own reads and writes, for what is audited on its own."""

    def append_audit(self, tournament: str, entry: AuditEntry, expires_at: int) -> None:
        """Add `entry` to the trail (never overwriting one)."""
        self._call(
            self._client.put_item,
            TableName=self._table,
            Item=entry.item(tournament, expires_at),
            ConditionExpression="attribute_not_exists(pk)",
        )

    def audit_page(
        self, tournament: str, after: str | None, limit: int
    ) -> tuple[list[AuditEntry], str | None]:
        """Up to `limit` entries after the cursor `after`, oldest first, and the next cursor."""
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {
                ":pk": {"S": audit_pk(tournament)},
                ":prefix": {"S": AUDIT_PREFIX},
            },
            "ConsistentRead": True,
            "Limit": limit,
        }
        if after is not None:
            kwargs["ExclusiveStartKey"] = {"pk": {"S": audit_pk(tournament)}, "sk": {"S": after}}
        page = self._call(self._client.query, **kwargs)
        entries = [AuditEntry.from_item(item) for item in page["Items"]]
        following = page.get("LastEvaluatedKey", {}).get("sk", {}).get("S")
        return entries, following
