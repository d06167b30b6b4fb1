"""The shared retry of what AWS throttles: full jitter, attempts, budgets and the tally."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from infra.retry import Budget, Retrier, RetryingClient, RetryPolicy, Tally, is_throttled, retry


def refusal(code: str, status: int = 400) -> ClientError:
    return ClientError(
        {"Error": {"Code": code, "Message": ""}, "ResponseMetadata": {"HTTPStatusCode": status}},
        "Operation",
    )


class Clock:
    """A clock that only sleeping moves."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def failing(times: int, error: Exception) -> Any:
    calls: list[int] = []

    def call() -> str:
        calls.append(1)
        if len(calls) <= times:
            raise error
        return "done"

    call.calls = calls  # type: ignore[attr-defined]
    return call


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("LimitExceededException", 429),  # API Gateway's management API
        ("TooManyRequestsException", 429),
        ("ThrottlingException", 400),  # Scheduler, DynamoDB
        ("ProvisionedThroughputExceededException", 400),
        ("RequestLimitExceeded", 400),
        ("Anything", 429),  # a 429 is throttling whatever its code
    ],
)
def test_what_aws_says_when_it_throttles(code: str, status: int) -> None:
    assert is_throttled(refusal(code, status))


def test_other_failures_are_no_throttling() -> None:
    assert not is_throttled(refusal("GoneException", 410))
    assert not is_throttled(refusal("ValidationException"))
    assert not is_throttled(ValueError("no client error"))


def test_waits_are_a_random_share_of_a_doubling_wait_up_to_the_cap() -> None:
    policy = RetryPolicy(attempts=10, first_wait=0.1, max_wait=1.0)
    assert [policy.backoff(n, 1.0) for n in range(1, 7)] == [0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
    assert policy.backoff(3, 0.5) == pytest.approx(0.2)
    assert policy.backoff(3, 0.0) == 0.0  # full jitter: any share, none included


def test_a_throttled_call_is_retried_until_it_goes_through() -> None:
    clock = Clock()
    call = failing(3, refusal("ThrottlingException"))
    answer = retry(
        call,
        policy=RetryPolicy(attempts=5, first_wait=0.1),
        sleep=clock.sleep,
        jitter=lambda: 0.5,
        clock=clock,
    )
    assert answer == "done" and len(call.calls) == 4
    assert clock.slept == pytest.approx([0.05, 0.1, 0.2])


def test_the_last_refusal_is_raised_once_the_attempts_are_used_up() -> None:
    clock = Clock()
    error = refusal("ThrottlingException")
    call = failing(10, error)
    with pytest.raises(ClientError) as raised:
        retry(call, policy=RetryPolicy(attempts=3), sleep=clock.sleep, clock=clock)
    assert raised.value is error and len(call.calls) == 3 and len(clock.slept) == 2


def test_what_is_not_worth_retrying_is_raised_at_once() -> None:
    clock = Clock()
    call = failing(1, refusal("ValidationException"))
    with pytest.raises(ClientError):
        retry(call, policy=RetryPolicy(), sleep=clock.sleep, clock=clock)
    assert len(call.calls) == 1 and clock.slept == []


def test_no_retry_waits_past_its_calls_budget_or_the_shared_one() -> None:
    clock = Clock()
    call = failing(10, refusal("ThrottlingException"))
    policy = RetryPolicy(attempts=100, first_wait=1.0, max_wait=1.0, budget=2.5)
    with pytest.raises(ClientError):
        retry(call, policy=policy, sleep=clock.sleep, jitter=lambda: 1.0, clock=clock)
    assert clock.slept == [1.0, 1.0]  # a third wait would end 3 s after the first try

    shared = Budget(1.5, clock)
    call = failing(10, refusal("ThrottlingException"))
    policy = RetryPolicy(attempts=100, first_wait=1.0, max_wait=1.0, budget=60)
    with pytest.raises(ClientError):
        retry(
            call, policy=policy, sleep=clock.sleep, jitter=lambda: 1.0, clock=clock, budget=shared
        )
    assert clock.slept == [1.0, 1.0, 1.0]  # one more from the shared 1.5 s
    shared.renew()
    assert shared.allows(1.5) and not shared.allows(1.6)


def test_an_error_may_carry_a_budget_of_its_own() -> None:
    clock = Clock()
    short, long = refusal("ThrottlingException"), refusal("SlowDown")
    policy = RetryPolicy(attempts=100, first_wait=1.0, max_wait=1.0, budget=60)

    def budget_of(error: BaseException) -> float:
        return 2.5 if error is short else policy.budget

    with pytest.raises(ClientError):
        retry(
            failing(10, short),
            policy=policy,
            sleep=clock.sleep,
            jitter=lambda: 1.0,
            clock=clock,
            budget_of=budget_of,
        )
    assert clock.slept == [1.0, 1.0]  # as if the policy's budget were 2.5 s
    clock.slept.clear()
    retry(
        failing(10, long),
        policy=policy,
        sleep=clock.sleep,
        jitter=lambda: 1.0,
        clock=clock,
        budget_of=budget_of,
    )
    assert clock.slept == [1.0] * 10  # the policy's 60 s


def test_a_wait_asked_for_is_waited_as_asked() -> None:
    clock = Clock()
    call = failing(1, refusal("SlowDown"))
    retry(call, policy=RetryPolicy(), sleep=clock.sleep, clock=clock, wait_hint=lambda _: 0.7)
    assert clock.slept == [0.7]


def test_the_retrier_counts_each_throttled_answer_and_each_call_it_gave_up() -> None:
    clock = Clock()
    retrier = Retrier(RetryPolicy(attempts=3), sleep=clock.sleep, clock=clock)
    heard: list[BaseException] = []
    assert retrier.call("Push", failing(2, refusal("LimitExceededException", 429))) == "done"
    with pytest.raises(ClientError):
        retrier.call(
            "Push", failing(5, refusal("LimitExceededException", 429)), on_retry=heard.append
        )
    with pytest.raises(ClientError):
        retrier.call("Push", failing(1, refusal("GoneException", 410)))
    throttled, failed = retrier.tally.drain()
    assert throttled == {"Push": 5} and failed == {"Push": 1}
    assert len(heard) == 2  # the retried ones; the last was raised
    assert retrier.tally.drain() == ({}, {})


def test_the_default_retrier_retries_nothing_and_sleeps_never() -> None:
    def never(seconds: float) -> None:
        raise AssertionError("slept")

    retrier = Retrier(sleep=never)
    call = failing(1, refusal("ThrottlingException"))
    with pytest.raises(ClientError):
        retrier.call("Scheduler", call)
    assert len(call.calls) == 1 and retrier.tally.failed == {"Scheduler": 1}


def test_a_retrying_client_retries_its_operations_only() -> None:
    class Client:
        meta = "the client's own"

        def __init__(self) -> None:
            self.calls = 0

        def query(self, **kwargs: Any) -> dict[str, Any]:
            self.calls += 1
            if self.calls == 1:
                raise refusal("ProvisionedThroughputExceededException")
            return {"Items": [], "asked": kwargs}

        def get_paginator(self, name: str) -> str:
            return f"paginator {name}"

    clock = Clock()
    tally = Tally()
    client = Client()
    wrapped: Any = RetryingClient(
        client, Retrier(RetryPolicy(), tally=tally, sleep=clock.sleep, clock=clock), "DynamoDB"
    )
    assert wrapped.query(TableName="t") == {"Items": [], "asked": {"TableName": "t"}}
    assert wrapped.meta == "the client's own"
    assert wrapped.get_paginator("query") == "paginator query"
    assert tally.drain() == ({"DynamoDB": 1}, {})
