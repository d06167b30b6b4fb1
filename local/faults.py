"""Crashes on purpose, for tests: a client that dies just before or just after a write.

A Lambda function can die between any two of its calls (timeout, out of memory, a lost
container), and AWS then delivers the same input again. `CrashingClient` wraps a boto3
client and raises `SimulatedCrash` around the writes a `CrashPlan` picks: the first time
each write site is met it crashes before the write, the second time after it, and from
then on at random. `SimulatedCrash` is a `BaseException`, so, like a real crash, it gets
past Powertools' batch processor, which would report an ordinary error per record.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

WRITES = frozenset(
    {
        "put_item",
        "update_item",
        "batch_write_item",
        "transact_write_items",
        "put_events",
        "create_schedule",
        "delete_schedule",
    }
)


class SimulatedCrash(BaseException):
    """The function died here; whatever delivered its input will deliver it again."""


class CrashPlan:
    """Which writes crash: each site before and after once, then at `rate` either way."""

    def __init__(self, seed: int | str, rate: float) -> None:
        self._random = random.Random(seed)
        self._rate = rate
        self._seen: Counter[str] = Counter()
        self.crashed: Counter[tuple[str, str]] = Counter()  # (site, "before"|"after") → n

    def decide(self, site: str) -> str | None:
        """ "before", "after" or None for this call at `site`."""
        self._seen[site] += 1
        seen = self._seen[site]
        if seen == 1:
            moment: str | None = "before"
        elif seen == 2:
            moment = "after"
        elif self._random.random() < self._rate:
            moment = self._random.choice(("before", "after"))
        else:
            moment = None
        if moment is not None:
            self.crashed[site, moment] += 1
        return moment

    @property
    def sites(self) -> set[str]:
        """Every write site met so far."""
        return set(self._seen)


class CrashingClient:
    """`client`, except that the writes `plan` picks crash; `who` names the function."""

    def __init__(self, client: Any, plan: CrashPlan, who: str) -> None:
        self._client = client
        self._plan = plan
        self._who = who

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if name not in WRITES:
            return attribute

        def write(**kwargs: Any) -> Any:
            moment = self._plan.decide(f"{self._who}:{name}:{write_site(kwargs)}")
            if moment == "before":
                raise SimulatedCrash(f"{self._who} died before {name}")
            result = attribute(**kwargs)
            if moment == "after":
                raise SimulatedCrash(f"{self._who} died after {name}")
            return result

        return write


def write_site(kwargs: dict[str, Any]) -> str:
    """What a write is for, such as `T#/P#:exit_round` or `TABLE#`: the item kind from its
    key, and for an update the attributes it sets."""
    if "Entries" in kwargs:  # put_events
        return ",".join(sorted({e["DetailType"] for e in kwargs["Entries"]}))
    if "Name" in kwargs:  # schedules
        return "schedule"
    if "RequestItems" in kwargs:
        return "batch"
    key = kwargs.get("Key") or kwargs.get("Item") or {}
    pk = key.get("pk", {}).get("S", "")
    kind = next((k for k in ("TABLE", "ROUND", "STANDINGS", "PLACES") if f"#{k}#" in pk + "#"), "T")
    kind += "/" + key.get("sk", {}).get("S", "").split("#")[0]
    values = sorted(kwargs.get("ExpressionAttributeValues", {}))
    return f"{kind}:{','.join(values)}"
