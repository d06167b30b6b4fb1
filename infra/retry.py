"""Retrying what AWS refuses for now: exponential backoff with full jitter, within a budget.

AWS throttles by answering at once ("slow down"); asking again at once is refused again,
and every caller asking again at the same moment is refused together. So each retry
waits a random share of an exponentially growing wait ("full jitter", as AWS's
Architecture Blog advises), and stops once its attempts or its time are used up: a
stream batch must finish inside its function's timeout, or Lambda retries it whole.

`retry` is the loop, for any call and any notion of what is worth retrying; `Retrier`
is that loop bound to one policy, one shared `Budget` (the time an invocation may spend
waiting in all) and one `Tally` (what the handler reports as metrics), and
`RetryingClient` puts a boto3 client's operations through a `Retrier`. Sleep, jitter
and clock are injected, so that tests run the waits without waiting.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from botocore.exceptions import ClientError

T = TypeVar("T")

# What AWS answers when it throttles: API Gateway's management API (LimitExceededException,
# HTTP 429), Scheduler (ThrottlingException), DynamoDB (ProvisionedThroughputExceeded,
# ThrottlingException, RequestLimitExceeded), and the codes other services use for it.
THROTTLED = frozenset(
    {
        "LimitExceededException",
        "TooManyRequestsException",
        "ThrottlingException",
        "Throttling",
        "ThrottledException",
        "ProvisionedThroughputExceededException",
        "RequestLimitExceeded",
        "RequestThrottled",
        "SlowDown",
    }
)


def is_throttled(error: BaseException) -> bool:
    """Whether `error` is AWS saying "slow down" (a code of `THROTTLED`, or HTTP 429)."""
    if not isinstance(error, ClientError):
        return False
    code = str(error.response.get("Error", {}).get("Code", ""))
    status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return code in THROTTLED or status == 429


@dataclass(frozen=True)
class RetryPolicy:
    """How long to wait between attempts, and how long to keep trying one call.

    The wait before retry n is a random share of `first_wait * 2**(n-1)`, at most
    `max_wait`; a call is tried at most `attempts` times, and not again once the wait
    would pass `budget` seconds since its first attempt."""

    attempts: int = 5
    first_wait: float = 0.05
    max_wait: float = 1.0
    budget: float = 5.0

    def backoff(self, retry: int, jitter: float) -> float:
        """The wait before retry number `retry` (from 1), `jitter` drawn from [0, 1)."""
        return jitter * min(self.max_wait, self.first_wait * 2.0 ** min(retry - 1, 60))


NO_RETRY = RetryPolicy(attempts=1)


class Budget:
    """The time every retry of one invocation may use together: renewed when a batch
    begins, spent by the clock, shared between threads. A retry whose wait would end
    past it is not made."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._ends = clock() + seconds

    def renew(self) -> None:
        """A new invocation: the whole budget again."""
        self._ends = self._clock() + self.seconds

    def allows(self, wait: float) -> bool:
        """Whether a retry after `wait` seconds still ends inside the budget."""
        return self._clock() + wait <= self._ends


class Tally:
    """Per name (an operation's, such as `post_to_connection`): the throttled answers
    and the calls that still failed after their retries; safe to share between threads.
    The handler drains it into metrics once per invocation."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.throttled: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()

    def count(self, name: str, *, throttled: int = 0, failed: int = 0) -> None:
        """Add to `name`'s counts."""
        with self._lock:
            self.throttled[name] += throttled
            self.failed[name] += failed

    def drain(self) -> tuple[Counter[str], Counter[str]]:
        """(throttled, failed) since the last drain, and start again from zero."""
        with self._lock:
            counts = (+self.throttled, +self.failed)
            self.throttled, self.failed = Counter(), Counter()
        return counts


def retry(
    call: Callable[[], T],
    *,
    policy: RetryPolicy,
    retryable: Callable[[BaseException], bool] = is_throttled,
    sleep: Callable[[float], None] = time.sleep,
    jitter: Callable[[], float] = random.random,
    clock: Callable[[], float] = time.monotonic,
    budget: Budget | None = None,
    wait_hint: Callable[[BaseException], float | None] | None = None,
    on_retry: Callable[[BaseException], None] | None = None,
    budget_of: Callable[[BaseException], float] | None = None,
) -> T:
    """`call()`'s answer, retried while it raises what `retryable` picks, as `policy`
    and `budget` allow; then its last error is raised as it was. `wait_hint` may name
    the wait an error asks for (a Retry-After), which is then waited as asked;
    `on_retry` hears every error that is retried; `budget_of` may give an error a
    budget of its own, in place of the policy's (seconds since the first attempt)."""
    started = clock()
    attempt = 0
    while True:
        attempt += 1
        try:
            return call()
        except Exception as error:
            if not retryable(error) or attempt >= policy.attempts:
                raise
            hinted = wait_hint(error) if wait_hint is not None else None
            wait = policy.backoff(attempt, jitter()) if hinted is None else hinted
            allowed = policy.budget if budget_of is None else budget_of(error)
            if clock() + wait - started > allowed:
                raise
            if budget is not None and not budget.allows(wait):
                raise
            if on_retry is not None:
                on_retry(error)
        sleep(wait)


class Retrier:
    """`retry` with one policy, budget and tally: what a function retries its AWS calls
    by. The default retries nothing (a plain call), so code built without one behaves as
    it did before retries existed."""

    def __init__(
        self,
        policy: RetryPolicy = NO_RETRY,
        *,
        budget: Budget | None = None,
        tally: Tally | None = None,
        retryable: Callable[[BaseException], bool] = is_throttled,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.policy = policy
        self.budget = budget
        self.tally = tally if tally is not None else Tally()
        self._retryable = retryable
        self._sleep = sleep
        self._jitter = jitter
        self._clock = clock

    def call(
        self,
        name: str,
        operation: Callable[..., T],
        /,
        *,
        on_retry: Callable[[BaseException], None] | None = None,
        **kwargs: Any,
    ) -> T:
        """`operation(**kwargs)`, retried; every throttled answer and a call still
        throttled after its retries are counted under `name`."""

        def heard(error: BaseException) -> None:
            self.tally.count(name, throttled=1)
            if on_retry is not None:
                on_retry(error)

        try:
            return retry(
                lambda: operation(**kwargs),
                policy=self.policy,
                retryable=self._retryable,
                sleep=self._sleep,
                jitter=self._jitter,
                clock=self._clock,
                budget=self.budget,
                on_retry=heard,
            )
        except Exception as error:
            if self._retryable(error):  # the last answer, refused still
                self.tally.count(name, throttled=1, failed=1)
            raise

    def renew(self) -> None:
        """A new invocation: its budget whole again."""
        if self.budget is not None:
            self.budget.renew()


# attributes of a boto3 client that are no operation of its service
_NOT_OPERATIONS = frozenset(
    {"can_paginate", "close", "generate_presigned_url", "get_paginator", "get_waiter"}
)


class RetryingClient:
    """A boto3 client whose operations go through `retrier`, counted under `name`
    (such as `DynamoDB`); everything else is the client's own. For code that takes a
    client and should not know about retries (the stores)."""

    def __init__(self, client: Any, retrier: Retrier, name: str) -> None:
        self._client = client
        self._retrier = retrier
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        found = getattr(self._client, attribute)
        if attribute.startswith("_") or attribute in _NOT_OPERATIONS or not callable(found):
            return found

        def operation(**kwargs: Any) -> Any:
            return self._retrier.call(self._name, found, **kwargs)

        return operation
