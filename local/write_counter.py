"""Counts the writes each DynamoDB item receives, to find hot items (tests, benchmarks).

A DynamoDB partition takes about 1,000 writes a second: an item that every table of a
round writes would cap how fast a large round can finish. Wrapping every function's
client in one `WriteCounter` shows which item is written most, and by whom.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

Key = tuple[str, str]


class WriteCounter:
    """Writes per item key (pk, sk), and per item kind (the key with ids taken out)."""

    def __init__(self) -> None:
        self.by_item: Counter[Key] = Counter()

    def wrap(self, client: Any) -> Any:
        """`client`, counting its writes here."""
        return _CountingClient(client, self)

    def count(self, key: dict[str, Any]) -> None:
        """One write of the item with `key` (attribute-value format)."""
        self.by_item[key["pk"]["S"], key["sk"]["S"]] += 1

    def hottest(self, kind: str | None = None) -> tuple[Key, int]:
        """The most written item (of `kind`, as `item_kind` names it) and its count."""
        candidates = [
            (key, n) for key, n in self.by_item.items() if kind is None or item_kind(key) == kind
        ]
        return max(candidates, key=lambda pair: pair[1], default=(("", ""), 0))

    def kinds(self) -> dict[str, tuple[int, int]]:
        """Per kind of item: (how many items, most writes to one of them)."""
        found: dict[str, tuple[int, int]] = {}
        for key, writes in self.by_item.items():
            kind = item_kind(key)
            items, most = found.get(kind, (0, 0))
            found[kind] = (items + 1, max(most, writes))
        return found


def item_kind(key: Key) -> str:
    """What an item is, from its key: `table`, `arrivals`, `round node`, `player`,
    `registration shard`, `name claim`, ..."""
    pk, sk = key
    if "#NAME#" in pk:  # first: a name may hold anything (case folded: no `#TABLE#`)
        return "name claim"
    if "#TABLE#" in pk:
        return "table" if sk == "TABLE" else "arrivals"
    if "#ROUND#" in pk:
        return "round node"
    if "#REG#" in pk:
        return "registration shard"
    if pk.endswith(("#ROSTER", "#ORDER")):
        return "id chunk"
    if pk.endswith("#STANDINGS"):
        return "standings"
    if "#PLACES#" in pk:
        return "places"
    return "player" if sk.startswith("P#") else "tournament"


class _CountingClient:
    def __init__(self, client: Any, counter: WriteCounter) -> None:
        self._client = client
        self._counter = counter

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        count = self._counter.count
        if name == "put_item":
            return lambda **kw: (count(kw["Item"]), attribute(**kw))[1]
        if name == "update_item":
            return lambda **kw: (count(kw["Key"]), attribute(**kw))[1]
        if name == "batch_write_item":

            def batch_write_item(**kw: Any) -> Any:
                response = attribute(**kw)
                unprocessed = response.get("UnprocessedItems") or {}
                for table, requests in kw["RequestItems"].items():
                    left = unprocessed.get(table, [])
                    for request in requests:
                        if request not in left:
                            count(request["PutRequest"]["Item"])
                return response

            return batch_write_item
        if name == "transact_write_items":

            def transact_write_items(**kw: Any) -> Any:
                response = attribute(**kw)
                for action in kw["TransactItems"]:
                    for kind in ("Put", "Update"):
                        if kind in action:
                            count(action[kind].get("Item") or action[kind]["Key"])
                return response

            return transact_write_items
        return attribute
