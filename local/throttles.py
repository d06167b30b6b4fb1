"""Throttling on purpose, for tests: a client that AWS answers "slow down" now and then.

AWS refuses a call it will not take now with an error at once: API Gateway's
management API with LimitExceededException (HTTP 429), Scheduler with
ThrottlingException, DynamoDB with ProvisionedThroughputExceededException. Off AWS
nothing ever throttles, so `ThrottlingClient` wraps a boto3 client (as
`local.faults.CrashingClient` does) and refuses the operations a `ThrottlePlan` picks,
before they reach the service, as AWS would: the call did nothing.

The served stack throttles its stream readers' calls when `KNOBELCUP_LOCAL_THROTTLE`
holds a rate (`0.1`: one call in ten), optionally with rates of single operations and a
seed (`0.1,post_to_connection=0.6/seed`); a post's rate may depend on the message's type
(`post_to_connection:your_turn=0.5`; a `table_events` that carries a player's turn
counts as `your_turn`, since it is that post whose refusal closes a connection). Every
refusal is counted as `local:throttled:<operation>` in `GET /_local/operations`.
"""

from __future__ import annotations

import json
import os
import random
import threading
from collections import Counter
from typing import Any

from botocore.exceptions import ClientError

from local.operations import COUNTER

ENVIRONMENT = "KNOBELCUP_LOCAL_THROTTLE"
# what each service answers when it throttles: (code, HTTP status)
REFUSALS = {
    "apigatewaymanagementapi": ("LimitExceededException", 429),
    "scheduler": ("ThrottlingException", 400),
    "dynamodb": ("ProvisionedThroughputExceededException", 400),
}
# the stream readers' calls that AWS may throttle (the pusher's and the timers')
OPERATIONS = frozenset(
    {
        "post_to_connection",
        "delete_connection",
        "create_schedule",
        "delete_schedule",
        "batch_get_item",
        "get_item",
        "query",
        "update_item",
        "delete_item",
    }
)


class ThrottlePlan:
    """Which calls are refused: each at `rate` (or its operation's own, of `rates`), from
    one seeded stream shared by every client it wraps (safe between threads); `only`
    names operations to refuse always."""

    def __init__(
        self,
        rate: float,
        seed: int | str = 0,
        *,
        only: frozenset[str] = frozenset(),
        rates: dict[str, float] | None = None,
    ) -> None:
        self.rate = rate
        self.only = only
        self.rates = dict(rates or {})
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self.refused: Counter[str] = Counter()  # operation → refusals
        self.calls: Counter[str] = Counter()  # operation → calls seen (refused or not)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> ThrottlePlan | None:
        """The plan `KNOBELCUP_LOCAL_THROTTLE` asks for, None when unset."""
        value = (os.environ if env is None else env).get(ENVIRONMENT, "").strip()
        if not value:
            return None
        spec, _, seed = value.partition("/")
        rate, *own = spec.split(",")
        rates = {name: float(share) for name, share in (part.split("=") for part in own)}
        return cls(float(rate), seed or 0, rates=rates)

    def refuses(self, operation: str, kind: str = "") -> bool:
        """Whether this call of `operation` (carrying a message of `kind`) is throttled
        (and counts it)."""
        with self._lock:
            self.calls[operation] += 1
            rate = self.rates.get(f"{operation}:{kind}", self.rates.get(operation, self.rate))
            refused = operation in self.only or self._random.random() < rate
            if refused:
                self.refused[operation] += 1
        if refused:
            COUNTER.count(f"local:throttled:{operation}")
        return refused


class ThrottlingClient:
    """`client`, except that the stream readers' operations `plan` picks are refused
    with `service`'s throttling error."""

    def __init__(self, client: Any, plan: ThrottlePlan, service: str) -> None:
        self._client = client
        self._plan = plan
        self._code, self._status = REFUSALS[service]

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if name not in OPERATIONS:
            return attribute

        def operation(**kwargs: Any) -> Any:
            if self._plan.refuses(name, _kind(kwargs)):
                raise ClientError(
                    {
                        "Error": {"Code": self._code, "Message": "Rate exceeded"},
                        "ResponseMetadata": {"HTTPStatusCode": self._status},
                    },
                    name,
                )
            return attribute(**kwargs)

        return operation


def _kind(kwargs: dict[str, Any]) -> str:
    """The type of the message a post carries ('' for any other call): `your_turn` for
    one that carries a turn (see the module)."""
    data = kwargs.get("Data")
    if not isinstance(data, bytes | str):
        return ""
    try:
        message = json.loads(data)
    except ValueError:
        return ""
    if not isinstance(message, dict):
        return ""
    return "your_turn" if "your_turn" in message else str(message.get("type", ""))
