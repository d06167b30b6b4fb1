"""Where the local runner is, kept in moto beside the data it refers to.

Lambda keeps each event source mapping's position on the stream in the service, not in
the function; the runner does the same: a table of its own on moto's server (no stream,
so it feeds nothing) holds the sequence number of the first stream record that some
reader has not taken yet, and the progression messages set aside as dead letters (which
live only in the runner). moto's state is saved with it in one snapshot, so after a
restart, even from a snapshot a crash left behind, the position is never ahead of the
records it counts: the runner goes on from there, handing a few records over again at
worst (every consumer is idempotent), and none is lost. Queue messages need nothing:
one is deleted only once handled, and moto makes the received ones visible again.
"""

from __future__ import annotations

import json
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from local.delivery import LocalDelivery

KEY = {"name": {"S": "runner"}}


@dataclass
class Checkpoint:
    """The runner's position in one table on moto; `save` writes it when it moved."""

    dynamodb: Any
    table: str
    at_sequence: int | None  # of the first record some reader still needs; None: start
    dead_letters: list[list[dict[str, Any]]]  # per queue reader, in the stack's order
    _saved: tuple[int | None, str] | None = None

    @classmethod
    def open(cls, dynamodb: Any, prefix: str) -> Checkpoint:
        """The checkpoint a previous run left (an empty one the first time)."""
        table = f"{prefix}-local-runner"
        with suppress(dynamodb.exceptions.ResourceInUseException):  # a restored state's
            dynamodb.create_table(
                TableName=table,
                KeySchema=[{"AttributeName": "name", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "name", "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST",
            )
        item = dynamodb.get_item(TableName=table, Key=KEY, ConsistentRead=True).get("Item")
        if item is None:
            return cls(dynamodb, table, None, [])
        at = int(item["at_sequence"]["N"]) if "at_sequence" in item else None
        letters = json.loads(item["dead_letters"]["S"])
        checkpoint = cls(dynamodb, table, at, letters)
        checkpoint._saved = (at, item["dead_letters"]["S"])
        return checkpoint

    def restore_dead_letters(self, delivery: LocalDelivery) -> None:
        """Give each queue reader back the dead letters it had set aside."""
        for reader, letters in zip(delivery.queue_readers, self.dead_letters, strict=False):
            reader.dead_letters[:0] = letters

    def save(self, delivery: LocalDelivery, next_sequence: int | None) -> bool:
        """Write where the runner is, if that changed; whether it wrote. `next_sequence`
        is the stream tap's first record not fetched yet."""
        firsts = [r.pending[:1] for r in delivery.stream_readers]  # a reader may be delivering
        waiting = [int(first[0]["dynamodb"]["SequenceNumber"]) for first in firsts if first]
        at = min(waiting, default=next_sequence)
        letters = json.dumps([reader.dead_letters for reader in delivery.queue_readers])
        if (at, letters) == self._saved:
            return False
        item: dict[str, Any] = {**KEY, "dead_letters": {"S": letters}}
        if at is not None:
            item["at_sequence"] = {"N": str(at)}
        self.dynamodb.put_item(TableName=self.table, Item=item)
        self._saved = (at, letters)
        return True
