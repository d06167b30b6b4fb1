"""A small client for Knobelcup's HTTP API, on the standard library only.

One `ApiClient` keeps one keep-alive connection, so it belongs to one thread. `call`
returns every answer as it came (status, JSON body, raw text); `ok` raises `ApiError`
for anything but success, with the service's error code and message. `Retrying` sends
through a client and retries what is worth retrying (429, 5xx, a lost connection) with
exponential backoff and jitter, honouring Retry-After, until its budget runs out (the
loop is the service's own, `infra.retry.retry`); a
service that never answered (nothing listens there, an unknown host) is given up on
within seconds, with the address tried and how to start one (`ServiceUnreachable`).
"""

from __future__ import annotations

import email.utils
import errno
import http.client
import json
import math
import random
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any, Protocol
from urllib.parse import urlencode, urlsplit

from infra import retry as shared  # the retry loop the functions use too
from local.lambda_events import HttpAnswer

DEFAULT_URL = "http://127.0.0.1:3000"
THROTTLED = 429
HOW_TO_START = (
    "is the service running? Start it with `make serve` (or `knobelcup serve`), "
    "or give its address with --url or KNOBELCUP_URL"
)


class ApiError(RuntimeError):
    """The service refused a request; `code` and `message` are its own words."""

    def __init__(self, method: str, path: str, answer: HttpAnswer) -> None:
        body = answer.body if isinstance(answer.body, dict) else {}
        self.status = answer.status
        self.code = str(body.get("code", "http_error"))
        self.message = str(body.get("message", answer.raw[:200]))
        self.answer = answer
        super().__init__(f"{method} {path}: {answer.status} {self.code}: {self.message}")


@dataclass
class ApiClient:
    """Requests to one Knobelcup service, e.g. `ApiClient("http://127.0.0.1:3000")`."""

    base_url: str = DEFAULT_URL
    timeout: float = 30.0

    def __post_init__(self) -> None:
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {self.base_url!r}")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._connection: http.client.HTTPConnection | None = None
        self.answered = False  # whether the service has answered once: it exists

    def call(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        token: str | None = None,
        query: str | dict[str, Any] = "",
        headers: dict[str, str] | None = None,
    ) -> HttpAnswer:
        """One request; a dropped keep-alive connection is reopened once."""
        sent = {"Accept": "application/json", **(headers or {})}
        data: bytes | None = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        target = self._prefix + path
        encoded = urlencode(query) if isinstance(query, dict) else query
        if encoded:
            target += "?" + encoded
        for attempt in (1, 2):
            connection = self._open()
            try:
                connection.request(method, target, body=data, headers=sent)
                response = connection.getresponse()
                raw = response.read().decode()
                self.answered = True
                break
            except (ConnectionError, http.client.RemoteDisconnected, http.client.BadStatusLine):
                self.close()
                if attempt == 2:
                    raise
        answered = {name.lower(): value for name, value in response.getheaders()}
        is_json = answered.get("content-type", "").startswith("application/json")
        return HttpAnswer(
            response.status, json.loads(raw) if raw and is_json else None, raw, answered
        )

    def ok(self, method: str, path: str, body: object = None, **request: Any) -> Any:
        """The JSON body of a successful request; `ApiError` for any other status."""
        answer = self.call(method, path, body, **request)
        if not 200 <= answer.status < 300:
            raise ApiError(method, path, answer)
        return answer.body

    def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _open(self) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._connection = kind(self._host, self._port, timeout=self.timeout)
        return self._connection


# --- retries -----------------------------------------------------------------------------


class Transport(Protocol):
    """What `Retrying` sends through: an `ApiClient`, or a fake in tests."""

    def call(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        token: str | None = None,
        query: str | dict[str, Any] = "",
        headers: dict[str, str] | None = None,
    ) -> HttpAnswer:
        """One request, answered as it came."""
        ...

    def close(self) -> None:
        """Drop the connection; the next request opens a new one."""
        ...


class RetriesExhausted(RuntimeError):
    """A request kept failing in a way worth retrying until the retry budget ran out."""


class ServiceUnreachable(RetriesExhausted):
    """Nothing answered at the service's address, and nothing ever had: no service runs
    there (a refused connection), or the host is unknown or out of reach."""

    def __init__(self, url: str, error: BaseException) -> None:
        self.url = url
        super().__init__(f"cannot reach {url} ({_failure(error)}): {HOW_TO_START}")


def never_reached(error: BaseException) -> bool:
    """Whether a failed request surely never reached any service: the connection was
    refused, or the host has no address or no route to it (nothing was sent)."""
    return isinstance(error, ConnectionRefusedError | socket.gaierror) or (
        isinstance(error, OSError) and error.errno in _NO_ROUTE
    )


_NO_ROUTE = {errno.ENETUNREACH, errno.EHOSTUNREACH}


def _failure(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


@dataclass(frozen=True)
class RetryPolicy:
    """How long to wait between attempts, and how long to keep trying in all.

    Without a Retry-After the wait before retry n is a random share ("full jitter") of
    `first_wait` * 2^(n-1), at most `max_wait`: many clients turned away at once do not
    come back at once. A Retry-After is waited out as asked. Once the waits would pass
    `budget` seconds since the first attempt, the request fails with `RetriesExhausted`;
    while the service has never answered and cannot be reached, after `unreached_budget`
    seconds with `ServiceUnreachable`.
    """

    first_wait: float = 0.25
    max_wait: float = 8.0
    budget: float = 120.0
    # how long to retry a service that never answered once (a restart takes longer:
    # once it has answered, connection failures are retried for the whole budget)
    unreached_budget: float = 3.0

    def backoff(self, retry: int, jitter: float) -> float:
        """The wait before retry number `retry` (from 1), `jitter` drawn from [0, 1)."""
        return self.retry_policy().backoff(retry, jitter)

    def retry_policy(self) -> shared.RetryPolicy:
        """The policy for `infra.retry.retry`: as many attempts as the budget allows."""
        return shared.RetryPolicy(
            attempts=sys.maxsize,
            first_wait=self.first_wait,
            max_wait=self.max_wait,
            budget=self.budget,
        )


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """A Retry-After header in seconds from `now` (a Unix time): delta-seconds or an
    HTTP date; None when absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value.strip())
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = when.timestamp() - now
    return max(0.0, seconds) if math.isfinite(seconds) else None


def worth_retrying(status: int, idempotent: bool = True) -> bool:
    """429 always (the request was turned away, not done); a 5xx only when sending the
    request again cannot do it twice."""
    return status == THROTTLED or (idempotent and status >= 500)


class _Again(Exception):
    """A request worth sending again: what went wrong, the wait the service asked for
    (a Retry-After), and the error of a service that was never reached."""

    def __init__(
        self, failure: str, asked: float | None = None, unreached: BaseException | None = None
    ) -> None:
        super().__init__(failure)
        self.failure = failure
        self.asked = asked
        self.unreached = unreached


def _asked_wait(error: BaseException) -> float | None:
    return error.asked if isinstance(error, _Again) else None


@dataclass
class Retrying:
    """Requests through `transport`, retried by `policy`; `sleep` may raise to stop."""

    transport: Transport
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic  # measures the budget
    wall_clock: Callable[[], float] = time.time  # reads a Retry-After date
    jitter: Callable[[], float] = random.random

    def call(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        idempotent: bool = True,
        **request: Any,
    ) -> HttpAnswer:
        """The first answer not worth retrying, or `RetriesExhausted`.

        `idempotent=False` (a registration, which has no Idempotency-Key) retries only
        what surely did nothing: a 429, or a connection that reached no service.
        """

        def attempt() -> HttpAnswer:
            try:
                answer = self.transport.call(method, path, body, **request)
            except (OSError, http.client.HTTPException) as error:
                self.transport.close()
                unsent = never_reached(error)
                if not idempotent and not unsent:
                    raise
                unreached = error if unsent and not self._reached() else None
                raise _Again(_failure(error), unreached=unreached) from error
            if not worth_retrying(answer.status, idempotent):
                return answer
            asked = retry_after_seconds(answer.headers.get("retry-after"), self.wall_clock())
            raise _Again(str(ApiError(method, path, answer)), asked)

        policy = self.policy
        # a service never reached is given up on sooner (and never later than the budget)
        unreached_budget = min(policy.unreached_budget, policy.budget)

        def budget_of(error: BaseException) -> float:
            unreached = isinstance(error, _Again) and error.unreached is not None
            return unreached_budget if unreached else policy.budget

        retries = 0
        drawn = 0.0  # the last jitter drawn: the wait that was not made, when it gives up

        def heard(_: BaseException) -> None:
            nonlocal retries
            retries += 1

        def jitter() -> float:
            nonlocal drawn
            drawn = self.jitter()
            return drawn

        started = self.clock()
        try:
            return shared.retry(
                attempt,
                policy=policy.retry_policy(),
                retryable=lambda error: isinstance(error, _Again),
                sleep=self.sleep,
                jitter=jitter,
                clock=self.clock,
                wait_hint=_asked_wait,
                on_retry=heard,
                budget_of=budget_of,
            )
        except _Again as again:
            spent = self.clock() - started
            # never reached (so no Retry-After): the wait it would have made is a backoff
            waited = spent + policy.backoff(retries + 1, drawn)
            if again.unreached is not None and waited > policy.unreached_budget:
                url = str(getattr(self.transport, "base_url", "the service"))
                raise ServiceUnreachable(url, again.unreached) from again.unreached
            asked = (
                "" if again.asked is None else f"; the service asked to wait {again.asked:g} s more"
            )
            raise RetriesExhausted(
                f"{method} {path}: gave up after {retries + 1} attempts in {spent:.1f} s "
                f"(retry budget {policy.budget:g} s){asked}; last: {again.failure}"
            ) from None

    def _reached(self) -> bool:
        """Whether the service has answered this transport once (a fake without the
        flag counts as reached: it answers from a script)."""
        return bool(getattr(self.transport, "answered", True))

    def ok(self, method: str, path: str, body: object = None, **request: Any) -> Any:
        """The JSON body of a successful request, after retries; `ApiError` otherwise."""
        answer = self.call(method, path, body, **request)
        if not 200 <= answer.status < 300:
            raise ApiError(method, path, answer)
        return answer.body
