"""The game tables' items: seated in batches or once each, read one (a turn's one read)
or in batches, written by a turn only at the version it was read at, stopped with a
cancelled tournament, and projected to what the cancel job and the live status need.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from infra.errors import StaleVersion
from infra.store.table import TableStore
from infra.store.table_item import CANCELLED, TableRecord, from_item, table_key, to_item

_STATE_PROJECTION = "#ref, #status, deadline, version"


@dataclass(frozen=True, slots=True)
class TableState:
    """What the live status needs of a table: projected, a few bytes a table."""

    ref: str
    status: str  # playing, over, bye, cancelled
    deadline: int
    version: int


class GameTableStore(TableStore):
    """The game tables of the single table."""

    def put_new_tables(self, tables: Iterable[TableRecord]) -> None:
        """Store freshly seated tables, in batches."""
        self._batch_write(to_item(table) for table in tables)

    def existing_tables(self, tournament: str, refs: Sequence[str]) -> set[str]:
        """Which of `refs` are already stored (for resuming an interrupted start)."""
        items = self._batch_get(
            tournament,
            refs,
            {"ProjectionExpression": "#ref", "ExpressionAttributeNames": {"#ref": "ref"}},
        )
        return {item["ref"]["S"] for item in items}

    def get_tables(self, tournament: str, refs: Sequence[str]) -> list[TableRecord]:
        """The stored tables among `refs`, in the order of `refs`."""
        found = {item["ref"]["S"]: from_item(item) for item in self._batch_get(tournament, refs)}
        return [found[ref] for ref in refs if ref in found]

    def get_table(self, tournament: str, ref: str) -> TableRecord | None:
        """One table, read strongly consistent: the one read of a turn."""
        item = self._get(table_key(tournament, ref))
        return None if item is None else from_item(item)

    def save_table(
        self, table: TableRecord, loaded_version: int, loaded: TableRecord | None = None
    ) -> None:
        """Write `table` only if the stored one is still at `loaded_version`: a turn's write.
        Nor if it was cancelled, or its disqualified players are no longer those of
        `loaded` (the table as read; by default `table`'s).

        Raises `StaleVersion` if another request got there first; nothing is written then.
        """
        same_players, players = _disqualified_as(loaded or table)
        saved = self._write_if(
            self._client.put_item,
            TableName=self._table,
            Item=to_item(table),
            # neither cancelled nor given a disqualification since it was loaded
            ConditionExpression=f"version = :loaded AND #status <> :cancelled AND {same_players}",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues={
                ":loaded": {"N": str(loaded_version)},
                ":cancelled": {"S": CANCELLED},
                **players,
            },
        )
        if not saved:
            raise StaleVersion(
                f"table {table.ref} moved on from version {loaded_version}",
                current_version=-1,  # unknown here; the caller re-reads to tell
            )

    def mark_disqualified(self, marked: TableRecord, loaded: TableRecord) -> None:
        """Store `marked`'s disqualified players if the table is still as `loaded` was
        (same version, in play, the same players disqualified); else `StaleVersion`."""
        same_players, players = _disqualified_as(loaded)
        saved = self._write_if(
            self._client.update_item,
            TableName=self._table,
            Key=table_key(loaded.tournament, loaded.ref),
            UpdateExpression="SET disqualified = :new",
            ConditionExpression=f"version = :version AND #status = :playing AND {same_players}",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues={
                ":new": {"S": " ".join(marked.disqualified)},
                ":version": {"N": str(loaded.version)},
                ":playing": {"S": "playing"},
                **players,
            },
        )
        if not saved:
            raise StaleVersion(
                f"table {loaded.ref} moved on from version {loaded.version}", current_version=-1
            )

    def cancel_table(self, tournament: str, ref: str) -> bool:
        """Stop a table in play with its cancelled tournament: status `cancelled`, no
        deadline, out of the deadline index. False if it is over, a bye or not seated."""
        return self._write_if(
            self._client.update_item,
            TableName=self._table,
            Key=table_key(tournament, ref),
            UpdateExpression="SET #status = :cancelled REMOVE deadline, due_shard, due_at",
            ConditionExpression="#status = :playing",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues={
                ":cancelled": {"S": CANCELLED},
                ":playing": {"S": "playing"},
            },
        )

    def seat_table(self, table: TableRecord) -> bool:
        """Store a newly seated table unless it exists (then it may be in play already)."""
        return self._write_if(
            self._client.put_item,
            TableName=self._table,
            Item=to_item(table),
            ConditionExpression="attribute_not_exists(pk)",
        )

    def set_seat_seeds(self, table: TableRecord, seeds: Sequence[str]) -> bool:
        """Replace the player seeds of `table` as read, only while no one has acted there
        (version 0) and no other seat changed its seed since: False if either did."""
        return self._write_if(
            self._client.update_item,
            TableName=self._table,
            Key=table_key(table.tournament, table.ref),
            UpdateExpression="SET player_seeds = :seeds",
            ConditionExpression="version = :zero AND player_seeds = :read",
            ExpressionAttributeValues={
                ":seeds": {"S": " ".join(seeds)},
                ":zero": {"N": "0"},
                ":read": {"S": " ".join(table.player_seeds)},
            },
        )

    def table_statuses(self, tournament: str, refs: Sequence[str]) -> dict[str, str]:
        """The status of each of `refs` that is seated (`playing`, `over`, `bye` or
        `cancelled`)."""
        extra = {
            "ProjectionExpression": "#ref, #status",
            "ExpressionAttributeNames": {"#ref": "ref", "#status": "status"},
        }
        return {
            item["ref"]["S"]: item["status"]["S"]
            for item in self._batch_get(tournament, refs, extra)
        }

    def table_states(self, tournament: str, refs: Sequence[str]) -> list[TableState]:
        """The seated tables among `refs`, projected to what the live status needs."""
        extra = {
            "ProjectionExpression": _STATE_PROJECTION,
            "ExpressionAttributeNames": {"#ref": "ref", "#status": "status"},
        }
        return [
            TableState(
                ref=item["ref"]["S"],
                status=item["status"]["S"],
                deadline=int(item["deadline"]["N"]) if "deadline" in item else 0,
                version=int(item["version"]["N"]),
            )
            for item in self._batch_get(tournament, refs, extra)
        ]


def _disqualified_as(table: TableRecord) -> tuple[str, dict[str, Any]]:
    """The condition that the stored table has the disqualified players `table` has (none:
    no such attribute), and its value."""
    if not table.disqualified:
        return "attribute_not_exists(disqualified)", {}
    return "disqualified = :disqualified", {":disqualified": {"S": " ".join(table.disqualified)}}
