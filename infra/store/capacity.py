"""Pacing: at most `limit` tables in play at once across every tournament of the
deployment, the others queued first come, first served (docs/capacity.md#pacing).

Items, all over the one table:
- the capacity item (`CAPACITY`/`CAPACITY`): `in_play` (slots held), `queued` (queue
  entries), `next_seq` (the last queue sequence given) and `last_activated` (the
  sequence of the table activated last, from which a queued table's place is told);
- a queue entry per queued table (`CAPACITY#QUEUE`, its sequence zero-padded): the whole
  table item, so an activation reads nothing but the queue's head;
- the queued table itself (the table's `pk`, sort key `QUEUED`), the same item, where
  the views find it by ref; `started` once the table plays (kept until its TTL, so a
  repeated seating finds it, and no function may delete an item of a table's key:
  only queue entries are deleted). The table item proper (`TABLE`) is written only when the
  table is activated: to the stream, the timers, the sweeper and the turn path it is a
  table seated then, its deadline running from then, and nothing can act before.

Every change of a slot is one transaction with the table item it concerns: a claim with
the table's first write (`seat`, `activate`), a release with marking the table
`slot = released` on the condition that it is `held` (`release`), so a `TableFinished`
delivered twice frees one slot. A table seats directly only while nothing is queued
(`queued = 0` in the claim's condition): a new table never passes an older queued one.

The capacity item is one partition key, written by every activation and every release:
at the budget's steady state about 2 × `limit` ÷ a table's duration transactions a
second, 2 WCU each. The template's default budget (3,150 tables, people's pace, tables
of about 240 s) makes that some 26 a second, 52 WCU/s, and the queue's partition
twice that (its entries are about 1 KB): far below a key's 1,000 WCU/s. The key binds
only past some 60,000 tables in play at people's pace (7,500 at bots' 0.5 s an action).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from infra.store.deadlines import seated_at
from infra.store.table import TableStore
from infra.store.table_item import CANCELLED, TableRecord, from_item, table_key, to_item

CAPACITY_KEY = {"pk": {"S": "CAPACITY"}, "sk": {"S": "CAPACITY"}}
QUEUE_PK = "CAPACITY#QUEUE"
QUEUED_SORT_KEY = "QUEUED"
QUEUED = "queued"  # a queued table's status in its views
STARTED = "started"  # a queued table's item once the table plays: kept, never deleted
HELD, RELEASED = "held", "released"  # a table item's `slot`
# a transaction holds 100 actions: one for the capacity item, the rest tables (a claim)
# or three items per table (an enqueue: no table item yet, the queued table, its entry)
_CLAIMS_PER_WRITE = 99
_ENQUEUES_PER_WRITE = 33
_ACTIVATE_PAGE = 25  # queue entries an activation reads at a time
_SEQ_DIGITS = 12
PLACE_READ_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class Capacity:
    """The capacity item as read."""

    in_play: int = 0
    queued: int = 0
    next_seq: int = 0
    last_activated: int = 0


@dataclass(frozen=True, slots=True)
class QueuedTable:
    """A table waiting for a slot, its sequence, its place now and when it should start."""

    record: TableRecord
    seq: int
    status: str  # queued, or cancelled (stopped with its tournament while it waited)
    place: int = 0
    expected_start: int = 0


def queued_key(tournament: str, ref: str) -> dict[str, dict[str, str]]:
    """The queued table's key: beside its table item, under another sort key."""
    return {"pk": table_key(tournament, ref)["pk"], "sk": {"S": QUEUED_SORT_KEY}}


def _entry_key(seq: int) -> dict[str, dict[str, str]]:
    return {"pk": {"S": QUEUE_PK}, "sk": {"S": f"{seq:0{_SEQ_DIGITS}d}"}}


def _number(item: dict[str, Any], name: str) -> int:
    return int(item[name]["N"]) if name in item else 0


class CapacityStore(TableStore):
    """The deployment's table slots and its queue; `limit` 0: unpaced (nothing here is
    called then). `table_seconds` is a table's typical duration, for expected starts."""

    def __init__(
        self, client: Any, table_name: str, limit: int = 0, table_seconds: int = 240
    ) -> None:
        super().__init__(client, table_name)
        self.limit = limit
        self.table_seconds = table_seconds
        self._last_activated: tuple[float, int] | None = None  # (read at, value): views'

    @property
    def paced(self) -> bool:
        """Whether the deployment has a budget of tables in play."""
        return self.limit > 0

    def capacity(self) -> Capacity:
        """The capacity item, read strongly consistent (all zero before the first claim)."""
        item = self._get(CAPACITY_KEY) or {}
        return Capacity(
            in_play=_number(item, "in_play"),
            queued=_number(item, "queued"),
            next_seq=_number(item, "next_seq"),
            last_activated=_number(item, "last_activated"),
        )

    # --- seating ---------------------------------------------------------------------

    def seat(self, tables: Sequence[TableRecord], now: float) -> dict[str, str]:
        """Seat `tables` (none of them a bye or over): as many as slots are free and
        nothing is queued, seated at `now` with a slot each; the rest queued in order.
        Answers each table's status as written (`playing`, `queued`), or `exists` for a
        table that was already seated or queued (then nothing is written for it)."""
        written: dict[str, str] = {}
        pending = list(tables)
        behind_free = False  # queued while slots were free: the queue waits for a wake-up
        while pending:
            seen = self.capacity()
            behind_free = behind_free or seen.in_play < self.limit
            free = self.limit - seen.in_play if seen.queued == 0 else 0
            if free > 0:
                chunk = pending[: min(free, _CLAIMS_PER_WRITE)]
                done = self._claim(chunk, seen, now)
                status = "playing"
            else:
                chunk = pending[:_ENQUEUES_PER_WRITE]
                done = self._enqueue(chunk, seen)
                status = QUEUED
            if done is None:
                continue  # the capacity item moved on since it was read: read it again
            for table in chunk:
                written[table.ref] = status if table.ref not in done else "exists"
            pending = pending[len(chunk) :]
        if QUEUED in written.values() and behind_free:
            self.activate(now)
        return written

    def _claim(self, chunk: list[TableRecord], seen: Capacity, now: float) -> set[str] | None:
        """Claim a slot for each of `chunk` and write them in play, in one transaction.
        None if the capacity changed; else the refs left out because they exist (the
        others are written then)."""
        actions = [
            self._capacity_update(
                "ADD in_play :n",
                "(attribute_not_exists(in_play) OR in_play <= :room)"
                " AND (attribute_not_exists(queued) OR queued = :zero)",
                {
                    ":n": {"N": str(len(chunk))},
                    ":room": {"N": str(self.limit - len(chunk))},
                    ":zero": {"N": "0"},
                },
            ),
            *(self._put_in_play(table, now) for table in chunk),
        ]
        return self._settle(actions, chunk, lambda rest: self._claim(rest, self.capacity(), now))

    def _enqueue(self, chunk: list[TableRecord], seen: Capacity) -> set[str] | None:
        """Queue `chunk` behind the queue's last table, in one transaction (see `_claim`)."""
        actions: list[dict[str, Any]] = [
            self._capacity_update(
                "SET next_seq = :last ADD queued :n",
                "attribute_not_exists(next_seq) OR next_seq = :seen",
                {
                    ":last": {"N": str(seen.next_seq + len(chunk))},
                    ":n": {"N": str(len(chunk))},
                    ":seen": {"N": str(seen.next_seq)},
                },
            )
        ]
        for offset, table in enumerate(chunk, start=1):
            item = self._queued_item(table, seen.next_seq + offset)
            actions.append(
                {
                    "ConditionCheck": {
                        "TableName": self._table,
                        "Key": table_key(table.tournament, table.ref),
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                }
            )
            actions.append(
                {
                    "Put": {
                        "TableName": self._table,
                        "Item": {**item, **queued_key(table.tournament, table.ref)},
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                }
            )
            actions.append(
                {"Put": {"TableName": self._table, "Item": {**item, **_entry_key(item_seq(item))}}}
            )
        return self._settle(actions, chunk, lambda rest: self._enqueue(rest, self.capacity()))

    def _settle(
        self,
        actions: list[dict[str, Any]],
        chunk: list[TableRecord],
        again: Callable[[list[TableRecord]], set[str] | None],
    ) -> set[str] | None:
        reasons = self._transact_if(actions)
        if reasons is None:
            return set()
        if reasons[0] == "ConditionalCheckFailed":
            return None
        # a table (or its queued twin) exists: leave those out and write the others
        per_table = (len(actions) - 1) // len(chunk)
        existing = {
            chunk[(index - 1) // per_table].ref
            for index, reason in enumerate(reasons)
            if index > 0 and reason == "ConditionalCheckFailed"
        }
        if not existing:
            raise RuntimeError(f"a seating's transaction failed: {reasons}")
        rest = [t for t in chunk if t.ref not in existing]
        if not rest:
            return existing
        found = again(rest)
        return None if found is None else existing | found

    # --- the end of a table ----------------------------------------------------------

    def release(self, tournament: str, ref: str) -> bool:
        """Free the slot of a table that finished: once, however often it is asked."""
        reasons = self._transact_if(
            [
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": table_key(tournament, ref),
                        "UpdateExpression": "SET slot = :released",
                        "ConditionExpression": "slot = :held",
                        "ExpressionAttributeValues": {
                            ":released": {"S": RELEASED},
                            ":held": {"S": HELD},
                        },
                    }
                },
                self._capacity_update("ADD in_play :minus", None, {":minus": {"N": "-1"}}),
            ]
        )
        return reasons is None

    def cancel_in_play(self, tournament: str, ref: str) -> bool:
        """Stop a table in play of a cancelled tournament and free its slot, in one
        transaction; False if it is not in play holding a slot."""
        reasons = self._transact_if(
            [
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": table_key(tournament, ref),
                        "UpdateExpression": "SET #status = :cancelled, slot = :released"
                        " REMOVE deadline, due_shard, due_at",
                        "ConditionExpression": "#status = :playing AND slot = :held",
                        "ExpressionAttributeNames": {"#status": "status"},
                        "ExpressionAttributeValues": {
                            ":cancelled": {"S": CANCELLED},
                            ":playing": {"S": "playing"},
                            ":released": {"S": RELEASED},
                            ":held": {"S": HELD},
                        },
                    }
                },
                self._capacity_update("ADD in_play :minus", None, {":minus": {"N": "-1"}}),
            ]
        )
        return reasons is None

    def queued_refs(self, tournament: str, refs: Sequence[str]) -> dict[str, int]:
        """Which of `refs` wait in the queue, with their sequence (one batch read a 100)."""
        extra = {
            "ProjectionExpression": "#ref, #status, queue_seq",
            "ExpressionAttributeNames": {"#ref": "ref", "#status": "status"},
        }
        keys = [queued_key(tournament, ref) for ref in refs]
        return {
            item["ref"]["S"]: item_seq(item)
            for item in self._batch_get_keys(keys, extra)
            if item["status"]["S"] == QUEUED
        }

    def cancel_queued(self, tournament: str, ref: str, seq: int) -> bool:
        """Take a queued table of a cancelled tournament out of the queue (its queued
        item stays, `cancelled`, for the views); False if it left the queue already."""
        reasons = self._transact_if(
            [
                {
                    "Update": {
                        "TableName": self._table,
                        "Key": queued_key(tournament, ref),
                        "UpdateExpression": "SET #status = :cancelled",
                        "ConditionExpression": "#status = :queued",
                        "ExpressionAttributeNames": {"#status": "status"},
                        "ExpressionAttributeValues": {
                            ":cancelled": {"S": CANCELLED},
                            ":queued": {"S": QUEUED},
                        },
                    }
                },
                {
                    "Delete": {
                        "TableName": self._table,
                        "Key": _entry_key(seq),
                        "ConditionExpression": "attribute_exists(pk)",
                    }
                },
                self._capacity_update("ADD queued :minus", None, {":minus": {"N": "-1"}}),
            ]
        )
        return reasons is None

    # --- activation ------------------------------------------------------------------

    def activate(self, now: float) -> int:
        """Put queued tables in play from the head of the queue while slots are free,
        each seated at `now`; how many. Safe to run anywhere at any time: each
        activation is conditional on its queue entry and a free slot."""
        activated = 0
        while True:
            seen = self.capacity()
            free = self.limit - seen.in_play
            if free <= 0 or seen.queued <= 0:
                return activated
            head = self._head(min(free, _ACTIVATE_PAGE))
            if not head:
                return activated
            page = 0
            for entry in head:
                outcome = self._activate_one(entry, now)
                if outcome == "full":
                    return activated + page
                page += outcome == "activated"
            activated += page
            if page == free:
                return activated  # every slot seen free is taken: no read to tell

    def _head(self, count: int) -> list[dict[str, Any]]:
        page = self._call(
            self._client.query,
            TableName=self._table,
            KeyConditionExpression="pk = :queue",
            ExpressionAttributeValues={":queue": {"S": QUEUE_PK}},
            Limit=count,
            ConsistentRead=True,
        )
        items: list[dict[str, Any]] = page["Items"]
        return items

    def _activate_one(self, entry: dict[str, Any], now: float) -> str:
        """One queued table in play: `activated`, `full` (no slot) or `gone` (another
        activation or a cancellation took it first)."""
        seq = item_seq(entry)
        table = replace(from_item(entry), cancelled=False)
        actions = [
            self._capacity_update(
                "ADD in_play :one, queued :minus SET last_activated = :seq",
                "in_play < :limit",
                {
                    ":one": {"N": "1"},
                    ":minus": {"N": "-1"},
                    ":seq": {"N": str(seq)},
                    ":limit": {"N": str(self.limit)},
                },
            ),
            {
                "Delete": {
                    "TableName": self._table,
                    "Key": _entry_key(seq),
                    "ConditionExpression": "attribute_exists(pk)",
                }
            },
            {
                "Update": {
                    "TableName": self._table,
                    "Key": queued_key(table.tournament, table.ref),
                    "UpdateExpression": "SET #status = :started",
                    "ExpressionAttributeNames": {"#status": "status"},
                    "ExpressionAttributeValues": {":started": {"S": STARTED}},
                }
            },
            self._put_in_play(table, now),
        ]
        reasons = self._transact_if(actions)
        if reasons is None:
            return "activated"
        if reasons[0] == "ConditionalCheckFailed":
            return "full"
        if reasons[3] == "ConditionalCheckFailed":  # in play already: drop the stale entry
            self._transact_if(
                [
                    {**actions[1]},
                    actions[2],
                    self._capacity_update("ADD queued :minus", None, {":minus": {"N": "-1"}}),
                ]
            )
        return "gone"

    # --- reads for the views ---------------------------------------------------------

    def queued_table(self, tournament: str, ref: str) -> QueuedTable | None:
        """The table waiting under `ref`, if it is queued (or was, and got cancelled)."""
        item = self._get(queued_key(tournament, ref))
        if item is None or item["status"]["S"] == STARTED:
            return None
        record = replace(from_item(item), cancelled=False)
        return QueuedTable(record, item_seq(item), item["status"]["S"])

    def placed(self, waiting: QueuedTable, now: float) -> QueuedTable:
        """`waiting` with its place in the queue (1: next) and its expected start: its
        sequence less the last activated, never a count of the queue; each place ahead
        takes a slot's share of a table's time."""
        if waiting.status != QUEUED:
            return waiting
        place, start = self.place_of(waiting.seq, now)
        return replace(waiting, place=place, expected_start=start)

    def place_of(self, seq: int, now: float) -> tuple[int, int]:
        """The place (1: next) and expected start of the table queued with sequence
        `seq`, as `placed` tells them for a table still queued."""
        place = max(1, seq - self._recent_last_activated(now))
        return place, int(now + place / max(self.limit, 1) * self.table_seconds)

    def _recent_last_activated(self, now: float) -> int:
        """`last_activated`, read at most every `PLACE_READ_SECONDS` by one container:
        the views of waiting players must not make the one capacity key a hot read
        (3,000 RCU/s a key), and a place a few seconds old is as good an estimate."""
        if self._last_activated is None or now - self._last_activated[0] >= PLACE_READ_SECONDS:
            self._last_activated = (now, self.capacity().last_activated)
        return self._last_activated[1]

    # --- items -----------------------------------------------------------------------

    def _capacity_update(
        self, update: str, condition: str | None, values: dict[str, Any]
    ) -> dict[str, Any]:
        action: dict[str, Any] = {
            "TableName": self._table,
            "Key": CAPACITY_KEY,
            "UpdateExpression": update,
            "ExpressionAttributeValues": values,
        }
        if condition is not None:
            action["ConditionExpression"] = condition
        return {"Update": action}

    def _put_in_play(self, table: TableRecord, now: float) -> dict[str, Any]:
        item = to_item(replace(seated_at(table, now), slot=HELD))
        return {
            "Put": {
                "TableName": self._table,
                "Item": item,
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        }

    @staticmethod
    def _queued_item(table: TableRecord, seq: int) -> dict[str, Any]:
        item = to_item(replace(table, deadline=0, due_at=0))
        item.update(kind={"S": "queued_table"}, status={"S": QUEUED}, queue_seq={"N": str(seq)})
        return item


def item_seq(item: dict[str, Any]) -> int:
    """A queued table's (or queue entry's) sequence."""
    return int(item["queue_seq"]["N"])


def in_play_or_over(tables: Iterable[TableRecord]) -> tuple[list[TableRecord], list[TableRecord]]:
    """(tables that take a slot, tables that do not: byes and tables over at their
    seating)."""
    paced: list[TableRecord] = []
    free: list[TableRecord] = []
    for table in tables:
        (free if table.bye or table.over else paced).append(table)
    return paced, free
