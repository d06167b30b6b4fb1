"""Request limits that hold across every Lambda instance: fixed-window counters in the
table.

A limit is COUNT requests per SECONDS. Each window of a key is one counter item,
`ADD hits :one` under the condition `hits < COUNT`, so two instances never both take
the last place; the refused request learns how long until the window ends (its
Retry-After). An item expires (TTL) a minute after its window. A key that may be hot
(every registration of a big tournament) is spread over `shards` items, each allowing
its share of COUNT: one item takes at most 1,000 writes a second.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from infra.errors import RateLimited, Throttled

_THROTTLING = {"ProvisionedThroughputExceededException", "ThrottlingException"}
KEPT_AFTER_WINDOW = 60  # seconds an item outlives its window before the TTL may delete it


@dataclass(frozen=True, slots=True)
class Limit:
    """At most `count` requests every `seconds`, counted on `shards` items."""

    count: int
    seconds: int
    shards: int = 1

    @classmethod
    def parse(cls, text: str, *, shards: int = 1) -> Limit | None:
        """`"COUNT/SECONDS"` (`"30/60"`); None for no limit (empty, or a COUNT of 0)."""
        text = text.strip()
        if not text or text == "0":
            return None
        count, _, seconds = text.partition("/")
        limit = cls(int(count), int(seconds or "1"), max(1, min(shards, int(count))))
        if limit.count < 0 or limit.seconds < 1:
            raise ValueError(f"a limit is COUNT/SECONDS with SECONDS at least 1, not {text!r}")
        return None if limit.count == 0 else limit

    @property
    def per_shard(self) -> int:
        """How many requests one shard's item takes in a window."""
        return math.ceil(self.count / self.shards)


class RateLimiter:
    """Counts requests per (kind, key) on the table `table` of `client` (DynamoDB)."""

    def __init__(self, client: Any, table: str, clock: Callable[[], float]) -> None:
        self._client = client
        self._table = table
        self._clock = clock

    def spend(self, kind: str, key: str, limit: Limit | None, what: str) -> None:
        """Count one request of `kind` for `key`; `RateLimited` (naming `what`) when the
        window has had its `limit` already. No limit: nothing is counted."""
        if limit is None:
            return
        now = self._clock()
        window = int(now // limit.seconds) * limit.seconds
        shard = random.randrange(limit.shards)  # spreading load, not a secret
        try:
            self._client.update_item(
                TableName=self._table,
                Key={
                    "pk": {"S": f"LIMIT#{kind}#{_digest(key)}#{shard}"},
                    "sk": {"S": f"WINDOW#{window}"},
                },
                UpdateExpression="ADD hits :one SET expires_at = :expires",
                ConditionExpression="attribute_not_exists(hits) OR hits < :limit",
                ExpressionAttributeValues={
                    ":one": {"N": "1"},
                    ":limit": {"N": str(limit.per_shard)},
                    ":expires": {"N": str(window + limit.seconds + KEPT_AFTER_WINDOW)},
                },
            )
        except ClientError as error:
            code = error.response.get("Error", {}).get("Code")
            if code in _THROTTLING:
                raise Throttled("the table is busy; retry after a short wait") from error
            if code != "ConditionalCheckFailedException":
                raise
            wait = max(1, math.ceil(window + limit.seconds - now))
            raise RateLimited(
                f"too many {what}: at most {limit.count} every {limit.seconds} s;"
                f" try again in {wait} s",
                rule=f"rate limit: {what}",
                retry_after=wait,
            ) from error


def _digest(key: str) -> str:
    """The counter's key: a hash, so no source address is stored as such."""
    return hashlib.sha256(key.encode()).hexdigest()[:32]
