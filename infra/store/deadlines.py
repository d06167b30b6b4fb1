"""Turn deadlines on the table item, and the sparse index the sweeper finds lost ones by.

A table in play carries `deadline`: when the turn in play times out (epoch seconds,
rounded up). The write that begins a turn sets it: the seating, an action after which
another player is to act or a new round begins, every timeout; an action within a turn
(a Mäxchen throw before its announcement) keeps it (`core.match.same_turn`). It is a
plain attribute, in no index, so it costs a turn nothing beyond its bytes.

The index `deadlines` (docs/data-model.md) is keyed on `due_shard` and `due_at` and
holds only the items that carry both: tables, from their seating on. A turn copies both
unchanged, so no turn ever writes the index; only the seating (one index write) and the
sweeper (`infra.services.sweeper`) do. `due_at` is therefore never later than `deadline`: at the
seating they are equal, and a deadline only moves on. The sweeper, finding a table whose
`due_at` has passed, times it out if its `deadline` has passed too, moves `due_at` on to
the `deadline` if not, and takes a finished table out of the index.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from core.options import TableOptions
from infra.store.table import TableStore
from infra.store.table_item import DUE_SHARDS, TableRecord, table_key, table_of

INDEX = "deadlines"
SHARDS = [f"D#{n}" for n in range(DUE_SHARDS)]  # the index's partition keys
# How long past its deadline a table waits before the sweeper acts: Scheduler fires at
# the deadline, and the sweeper is the backstop for a firing that never came
GRACE_SECONDS = 60
DEFAULT_TURN_TIMEOUT = TableOptions().turn_timeout_seconds  # docs/rules.md §4.1
PAGE_SIZE = 100  # index keys per Query


def turn_timeout(options: Mapping[str, object]) -> int:
    """A table's seconds per turn, from its stored options (the default if absent)."""
    seconds = options.get("turn_timeout_seconds")
    return seconds if isinstance(seconds, int) else DEFAULT_TURN_TIMEOUT


def deadline_after(now: float, options: Mapping[str, object]) -> int:
    """The deadline of a version written at `now`, rounded up to the next whole second."""
    return math.ceil(now + turn_timeout(options))


def seated_at(table: TableRecord, now: float) -> TableRecord:
    """`table` as seated at `now`: its first deadline, and in the index from then on. A
    bye has no turn and stays out of the index."""
    if table.bye or table.over:
        return table
    deadline = deadline_after(now, table.seating.options)
    return replace(table, deadline=deadline, due_at=deadline)


class DeadlineStore(TableStore):
    """The deadline index's query and the sweeper's two writes."""

    def overdue(
        self, shard: str, cutoff: int, start: dict[str, Any] | None = None
    ) -> tuple[list[tuple[str, str, int]], dict[str, Any] | None]:
        """One page of the shard's tables with `due_at <= cutoff`, as (tournament, ref,
        due_at), and where the next page starts (None: none)."""
        request: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": INDEX,
            "KeyConditionExpression": "due_shard = :shard AND due_at <= :cutoff",
            "ExpressionAttributeValues": {":shard": {"S": shard}, ":cutoff": {"N": str(cutoff)}},
            "Limit": PAGE_SIZE,
        }
        if start is not None:
            request["ExclusiveStartKey"] = start
        page = self._call(self._client.query, **request)
        found = [(*table_of(item["pk"]["S"]), int(item["due_at"]["N"])) for item in page["Items"]]
        return found, page.get("LastEvaluatedKey")

    def move_due(self, table: TableRecord, due_at: int) -> bool:
        """Set the table's `due_at`, if it is still at the version read; False if not."""
        return self._write_if(
            self._client.update_item,
            TableName=self._table,
            Key=table_key(table.tournament, table.ref),
            UpdateExpression="SET due_at = :due",
            ConditionExpression="version = :version",
            ExpressionAttributeValues={
                ":due": {"N": str(due_at)},
                ":version": {"N": str(table.version)},
            },
        )

    def leave_index(self, table: TableRecord) -> bool:
        """Take a finished table out of the index (REMOVE its keys); False if it moved."""
        return self._write_if(
            self._client.update_item,
            TableName=self._table,
            Key=table_key(table.tournament, table.ref),
            UpdateExpression="REMOVE due_shard, due_at",
            ConditionExpression="version = :version",
            ExpressionAttributeValues={":version": {"N": str(table.version)}},
        )
