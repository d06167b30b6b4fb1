"""The tournament item and what is written with it: its registration shards (opened
and closed with the status, counted at the start) and its entry in the public list.

Conditional writes carry the invariants: a status moves only from the statuses allowed
to precede it, and the organizer's audit entry (`infra.store.audit`) goes in the same
write as the change it records.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from infra.errors import RegistrationChanged, WrongStatus
from infra.store.audit import Audited, AuditEntry, audit_put
from infra.store.registration import SHARDS, shard_item, shard_key
from infra.store.table import TableStore
from infra.store.tournament_items import META, JobState, TournamentRecord, tournament_pk


class TournamentStore(TableStore):
    """The tournament items of the single table."""

    def create_tournament(
        self, tournament: TournamentRecord, audit: AuditEntry | None = None
    ) -> None:
        """Store a new tournament, its closed registration shards and the organizer's
        `audit` entry (when given); ids are random, so an existing one is a bug."""
        shards = [
            {"Put": {"TableName": self._table, "Item": item}}
            for item in (
                shard_item(tournament.id, shard, tournament.player_limit, tournament.expires_at)
                for shard in range(SHARDS)
            )
        ]
        meta = {
            "Put": {
                "TableName": self._table,
                "Item": tournament.to_item(),
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        }
        listed = {"Put": {"TableName": self._table, "Item": listing_item(tournament)}}
        entries = (
            []
            if audit is None
            else [audit_put(self._table, tournament.id, audit, tournament.expires_at)]
        )
        self._call(
            self._client.transact_write_items, TransactItems=[meta, listed, *shards, *entries]
        )

    def get_tournament(self, tournament: str) -> TournamentRecord | None:
        """The tournament, read strongly consistent, or None."""
        item = self._get({"pk": {"S": tournament_pk(tournament)}, "sk": {"S": META}})
        return None if item is None else TournamentRecord.from_item(item)

    def change_status(
        self,
        tournament: str,
        allowed: Sequence[str],
        status: str,
        *,
        seeding: tuple[str, str] | None = None,
        registration: bool | None = None,
        expected_counts: Sequence[int] | None = None,
        player_count: int | None = None,
        job: JobState | None = None,
        audit: Audited | None = None,
    ) -> None:
        """Move to `status` if the current status is one of `allowed`, else `WrongStatus`.

        `seeding` records how the players are ordered: ("seed" or "order", the value);
        `registration` opens or closes every registration shard in the same transaction,
        and `expected_counts` (per shard) makes it fail if anyone registered meanwhile
        (`RegistrationChanged`); `player_count` and `job` are stored with the status, the
        organizer's `audit` entry in the same transaction.
        """
        names = {":" + s: {"S": s} for s in allowed}
        update = "SET #status = :new"
        values: dict[str, Any] = {":new": {"S": status}, **names}
        if seeding is not None:
            update += ", seeding = :seeding, seed = :seed"
            values[":seeding"], values[":seed"] = {"S": seeding[0]}, {"S": seeding[1]}
        if player_count is not None:
            update += ", player_count = :count"
            values[":count"] = {"N": str(player_count)}
        if job is not None:
            attributes = job.attributes()
            update += "".join(f", {name} = :{name}" for name in attributes)
            values.update({f":{name}": value for name, value in attributes.items()})
        meta = {
            "TableName": self._table,
            "Key": {"pk": {"S": tournament_pk(tournament)}, "sk": {"S": META}},
            "UpdateExpression": update,
            "ConditionExpression": f"#status IN ({', '.join(names)})",
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": values,
        }
        refused = WrongStatus(
            f"the tournament must be {' or '.join(allowed)} to become {status}",
            rule="tournament status",
        )
        entries = [] if audit is None else [audit_put(self._table, tournament, *audit)]
        if registration is None and not entries:
            if not self._write_if(self._client.update_item, **meta):
                raise refused
            return
        shards = (
            []
            if registration is None
            else [
                self._shard_flip(tournament, shard, registration, expected_counts)
                for shard in range(SHARDS)
            ]
        )
        reasons = self._transact_if([{"Update": meta}, *shards, *entries])
        if reasons is None:
            return
        if reasons[0] == "ConditionalCheckFailed":
            raise refused
        raise RegistrationChanged(
            "a player registered while the start was being prepared; start again",
            rule="registration",
        )

    def registration_counts(self, tournament: str) -> list[int]:
        """How many players each registration shard counted (read strongly consistent)."""
        keys = [shard_key(tournament, shard) for shard in range(SHARDS)]
        found = {item["pk"]["S"]: int(item["taken"]["N"]) for item in self._batch_get_keys(keys)}
        return [found.get(key["pk"]["S"], 0) for key in keys]

    def _shard_flip(
        self, tournament: str, shard: int, open: bool, expected: Sequence[int] | None
    ) -> dict[str, Any]:
        update: dict[str, Any] = {
            "TableName": self._table,
            "Key": shard_key(tournament, shard),
            "UpdateExpression": "SET #open = :open",
            "ConditionExpression": "attribute_exists(pk)",
            "ExpressionAttributeNames": {"#open": "open"},
            "ExpressionAttributeValues": {":open": {"BOOL": open}},
        }
        if expected is not None:
            update["ConditionExpression"] += " AND taken = :taken"
            update["ExpressionAttributeValues"][":taken"] = {"N": str(expected[shard])}
        return {"Update": update}


def listing_item(tournament: TournamentRecord) -> dict[str, Any]:
    """The tournament's entry in the public list, newest first (`GET /tournaments`): one
    partition per month of creation, sorted by the time of creation (docs/data-model.md)."""
    key = listing_key(tournament.created_at, tournament.id)
    return {
        **key,
        "kind": {"S": "listing"},
        "id": {"S": tournament.id},
        "name": {"S": tournament.name},
        "game": {"S": tournament.game},
        "created_at": {"N": str(tournament.created_at)},
        "expires_at": {"N": str(tournament.expires_at)},
    }


def listing_key(created_at: int, tournament: str) -> dict[str, Any]:
    """`LIST#<yyyy-mm>` / `C#<epoch seconds, 10 digits>#<tournament id>`."""
    month = time.strftime("%Y-%m", time.gmtime(created_at))
    return {"pk": {"S": f"LIST#{month}"}, "sk": {"S": f"C#{created_at:010d}#{tournament}"}}
