"""The organizer's writes and reads in the single table: the token's rotation, the
cancellation, a player's removal or disqualification, and the public list of
tournaments. Every state change is one conditional write or one
transaction together with its audit entry (`infra.store.audit`), so nothing is ever
half done.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any

from infra.errors import NotFound, WrongStatus
from infra.store.audit import AuditEntry, audit_put
from infra.store.registration import SHARDS, shard_key
from infra.store.table import TableStore
from infra.store.tournament_items import (
    META,
    PLAYER_PREFIX,
    JobState,
    PlayerRecord,
    Status,
    tournament_pk,
)

LIST_CURSOR = re.compile(r"^C#[0-9]{10}#[a-z0-9-]{1,40}$")
LIST_MONTHS = 13  # the public list looks back this many months of creation at most


def _meta_key(tournament: str) -> dict[str, Any]:
    return {"pk": {"S": tournament_pk(tournament)}, "sk": {"S": META}}


class OrganizerStore(TableStore):
    """What only the organizer's routes write and read."""

    def recent_tournaments(
        self, before: str | None, limit: int, now: float
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Up to `limit` tournaments created before the cursor `before` (the sort key of
        the last one shown), newest first, and the next cursor: a Query per month of
        creation, from the cursor's month (or this one) back, never a Scan."""
        start = int(before.split("#")[1]) if before else int(now)
        found: list[dict[str, Any]] = []
        for month in _months_back(start, LIST_MONTHS):
            kwargs: dict[str, Any] = {
                "TableName": self._table,
                "KeyConditionExpression": "pk = :pk AND sk < :before",
                "ExpressionAttributeValues": {
                    ":pk": {"S": f"LIST#{month}"},
                    ":before": {"S": before or "D"},  # "D" sorts after every "C#…"
                },
                "ScanIndexForward": False,
                "Limit": limit - len(found),
            }
            page = self._call(self._client.query, **kwargs)
            found.extend(page["Items"])
            if len(found) == limit:
                break
        rows = [
            {
                "tournament_id": item["id"]["S"],
                "name": item["name"]["S"],
                "game": item["game"]["S"],
                "created_at": int(item["created_at"]["N"]),
                "key": item["sk"]["S"],
            }
            for item in found
        ]
        following = rows[-1]["key"] if len(rows) == limit else None
        return rows, following

    def rotate_organizer(
        self,
        tournament: str,
        *,
        old_hash: str,
        new_hash: str,
        generation: int,
        entry: AuditEntry,
        expires_at: int,
    ) -> bool:
        """Replace the organizer token's hash if it is still `old_hash` (the old token
        stops working with this write), with its audit entry; False if it changed."""
        reasons = self._transact_if(
            [
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": _meta_key(tournament),
                        "UpdateExpression": "SET organizer_hash = :new, organizer_generation = :g",
                        "ConditionExpression": "organizer_hash = :old",
                        "ExpressionAttributeValues": {
                            ":new": {"S": new_hash},
                            ":old": {"S": old_hash},
                            ":g": {"N": str(generation)},
                        },
                    }
                },
                audit_put(self._table, tournament, entry, expires_at),
            ]
        )
        return reasons is None

    def cancel_tournament(
        self,
        tournament: str,
        allowed: Sequence[str],
        entry: AuditEntry,
        expires_at: int,
        job: JobState,
    ) -> None:
        """Make the tournament `cancelled` if its status is one of `allowed`, closing
        registration on all 64 shards, with its audit entry, and begin `job` (it takes
        the place of a finish job under way), in one transaction."""
        names = {f":s{i}": {"S": s} for i, s in enumerate(allowed)}
        attributes = job.attributes()
        meta = {
            "Update": {
                "TableName": self._table,
                "Key": _meta_key(tournament),
                "UpdateExpression": "SET #status = :cancelled, "
                + ", ".join(f"{name} = :{name}" for name in attributes),
                "ConditionExpression": f"#status IN ({', '.join(names)})",
                "ExpressionAttributeNames": {"#status": "status"},
                "ExpressionAttributeValues": {
                    ":cancelled": {"S": Status.CANCELLED},
                    **names,
                    **{f":{name}": value for name, value in attributes.items()},
                },
            }
        }
        shards = [
            {
                "Update": {
                    "TableName": self._table,
                    "Key": shard_key(tournament, shard),
                    "UpdateExpression": "SET #open = :closed",
                    "ConditionExpression": "attribute_exists(pk)",
                    "ExpressionAttributeNames": {"#open": "open"},
                    "ExpressionAttributeValues": {":closed": {"BOOL": False}},
                }
            }
            for shard in range(SHARDS)
        ]
        audit = audit_put(self._table, tournament, entry, expires_at)
        if self._transact_if([meta, audit, *shards]) is not None:
            raise WrongStatus(
                f"the tournament must be {' or '.join(allowed)} to be cancelled",
                rule="tournament status",
            )

    def remove_player(
        self,
        player: PlayerRecord,
        name_claim: dict[str, Any],
        before_start: Sequence[str],
        entry: AuditEntry,
    ) -> None:
        """Remove a registered player who is not seated: their item and name claim go,
        their shard counts one less, only while the tournament is still before its
        start (one of `before_start`), with the audit entry, in one transaction."""
        names = {f":s{i}": {"S": s} for i, s in enumerate(before_start)}
        tournament = player.tournament
        reasons = self._transact_if(
            [
                {
                    "ConditionCheck": {
                        "TableName": self._table,
                        "Key": _meta_key(tournament),
                        "ConditionExpression": f"#status IN ({', '.join(names)})",
                        "ExpressionAttributeNames": {"#status": "status"},
                        "ExpressionAttributeValues": names,
                    }
                },
                {
                    "Delete": {
                        "TableName": self._table,
                        "Key": {
                            "pk": {"S": tournament_pk(tournament)},
                            "sk": {"S": PLAYER_PREFIX + player.id},
                        },
                        "ConditionExpression": "attribute_exists(pk)",
                    }
                },
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": shard_key(tournament, player.registration_shard),
                        "UpdateExpression": "SET taken = taken - :one",
                        "ConditionExpression": "taken >= :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}},
                    }
                },
                {
                    "Delete": {
                        "TableName": self._table,
                        "Key": name_claim,
                        "ConditionExpression": "player = :player",
                        "ExpressionAttributeValues": {":player": {"S": player.id}},
                    }
                },
                audit_put(self._table, tournament, entry, player.expires_at),
            ]
        )
        if reasons is None:
            return
        if reasons[0] == "ConditionalCheckFailed":
            raise WrongStatus(
                "the tournament has started: a seated player is disqualified, not removed",
                rule="disqualify",
            )
        raise NotFound(f"player {player.id} is no longer registered", rule="player")

    def mark_player_disqualified(self, tournament: str, player: str) -> bool:
        """Mark a player disqualified unless they are out already (an exit); marking
        again changes nothing, so a disqualification cut short can be repeated."""
        return self._write_if(
            self._client.update_item,
            TableName=self._table,
            Key={"pk": {"S": tournament_pk(tournament)}, "sk": {"S": PLAYER_PREFIX + player}},
            UpdateExpression="SET disqualified = :true",
            ConditionExpression="attribute_exists(pk) AND attribute_not_exists(exit_round)",
            ExpressionAttributeValues={":true": {"BOOL": True}},
        )


def _months_back(epoch: int, count: int) -> list[str]:
    """`yyyy-mm` of the month of `epoch` and the `count - 1` before it."""
    moment = time.gmtime(epoch)
    year, month = moment.tm_year, moment.tm_mon
    months = []
    for _ in range(count):
        months.append(f"{year:04d}-{month:02d}")
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return months
