"""The stream readers when AWS throttles them: a throttled post, socket-set read or
Scheduler call is retried with backoff inside the batch's budget and counted; a
`your_turn` still refused closes the connection (so the client reads again); a
CreateSchedule still refused fails its record; and without throttling nothing is
called twice."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from botocore.exceptions import ClientError
from test_publisher import SEATS, T, insert, played, table
from test_push import Management, _sockets, store  # noqa: F401
from test_timers import SETTINGS, FakeScheduler, change
from test_timers import table as timer_table

from functions.observability import metrics, report_throttles
from infra.bootstrap import THROTTLE_POLICY, build_pusher, build_timers
from infra.errors import Throttled
from infra.outbox.push import Pusher
from infra.outbox.timers import TurnTimers
from infra.retry import Budget, Retrier, RetryingClient, RetryPolicy, Tally
from infra.services.sockets import ConnectRequest
from infra.store.connections import ConnectionStore
from local.lambda_events import LocalContext
from local.throttles import ThrottlePlan, ThrottlingClient


class Waits:
    """Sleep and clock for a `Retrier`: sleeping moves the clock, nothing waits."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def retrier(waits: Waits, budget: float = 15.0) -> Retrier:
    return Retrier(
        THROTTLE_POLICY,
        budget=Budget(budget, waits.clock),
        sleep=waits.sleep,
        clock=waits.clock,
    )


def connected(listening: ConnectionStore) -> str:
    """Everyone seated at a new table listens; the connection of the player to act."""
    sockets = _sockets(listening)
    for player in SEATS:
        sockets.connect(f"c-{player}", ConnectRequest(T, token=f"{player}.secret"))
    seating, _, _ = played(seed=11)
    pusher = Pusher(listening, Management())
    report = pusher.push(insert(table(seating, [])), [])
    assert not report.failures
    return next(c for c in pusher._client.posts if "your_turn" in c[1])[0]  # type: ignore[attr-defined]


class CountingManagement(Management):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def post_to_connection(self, *, ConnectionId: str, Data: bytes) -> None:  # noqa: N803
        self.calls += 1
        super().post_to_connection(ConnectionId=ConnectionId, Data=Data)


def new_table() -> Any:
    seating, _, _ = played(seed=11)
    return insert(table(seating, []))


def test_throttled_posts_are_retried_until_every_message_is_delivered(
    store: ConnectionStore,  # noqa: F811
) -> None:
    to_act = connected(store)
    waits = Waits()
    management = CountingManagement()
    plan = ThrottlePlan(0.5, seed="posts")
    throttled = ThrottlingClient(management, plan, "apigatewaymanagementapi")
    pusher = Pusher(store, throttled, retrier=retrier(waits))
    pusher.prepare([new_table()])
    report = pusher.push(new_table(), [], 0)
    assert report.failures == [] and report.undelivered == []
    assert report.throttled == plan.refused["post_to_connection"] > 0
    assert report.sent == management.calls == 4  # one each, seated, one with the turn
    [message] = management.to(to_act)
    assert message["seated"] and "your_turn" in message
    assert len(waits.slept) == report.throttled  # one wait before each retry
    throttled_count, failed = pusher.retrier.tally.drain()
    assert throttled_count == {"Push": report.throttled} and failed == {}


def test_without_throttling_no_call_is_made_twice_and_nothing_waits(
    store: ConnectionStore,  # noqa: F811
) -> None:
    connected(store)
    waits = Waits()
    management = CountingManagement()
    pusher = Pusher(store, management, retrier=retrier(waits))
    pusher.prepare([new_table()])
    report = pusher.push(new_table(), [], 0)
    assert management.calls == report.sent and management.closed == []
    assert waits.slept == [] and pusher.retrier.tally.drain() == ({}, {})


def test_a_your_turn_refused_past_its_retries_closes_that_connection(
    store: ConnectionStore,  # noqa: F811
) -> None:
    to_act = connected(store)
    waits = Waits()
    management = Management()
    plan = ThrottlePlan(0.0, only=frozenset({"post_to_connection"}))
    pusher = Pusher(
        store, ThrottlingClient(management, plan, "apigatewaymanagementapi"), retrier=retrier(waits)
    )
    report = pusher.push(new_table(), [])
    assert report.sent == 0
    assert report.undelivered == [f"{to_act}: R2-5 v0"]
    assert management.closed == [to_act]  # its client connects again and reads its view
    posts = plan.calls["post_to_connection"]
    assert posts == 4 * THROTTLE_POLICY.attempts  # each player's message, every try
    assert report.throttled == posts
    _, failed = pusher.retrier.tally.drain()
    assert failed == {"Push": 4}  # the close went through


def test_the_budget_bounds_a_whole_batch_and_each_batch_gets_it_anew(
    store: ConnectionStore,  # noqa: F811
) -> None:
    connected(store)
    waits = Waits()
    plan = ThrottlePlan(0.0, only=frozenset({"post_to_connection"}))
    pusher = Pusher(
        store,
        ThrottlingClient(Management(), plan, "apigatewaymanagementapi"),
        threads=1,
        retrier=retrier(waits, budget=0.3),
    )
    pusher.prepare([new_table()])
    pusher.push(new_table(), [], 0)
    assert sum(waits.slept) <= 0.3
    spent = len(waits.slept)
    pusher.prepare([new_table()])  # the next batch
    pusher.push(new_table(), [], 0)
    assert len(waits.slept) > spent


def test_throttled_socket_set_reads_are_retried(store: ConnectionStore) -> None:  # noqa: F811
    to_act = connected(store)
    plan = ThrottlePlan(1.0)  # the first read refused, then none
    waits = Waits()
    shared = retrier(waits)

    def refused_once(operation: str, kind: str = "") -> bool:
        refused = ThrottlePlan.refuses(plan, operation, kind)
        plan.rate = 0.0
        return refused

    plan.refuses = refused_once  # type: ignore[method-assign]
    reads = ThrottlingClient(store._client, plan, "dynamodb")
    throttled_store = ConnectionStore(RetryingClient(reads, shared, "DynamoDB"), store._table)
    management = Management()
    pusher = Pusher(throttled_store, management, retrier=shared)
    pusher.prepare([new_table()])
    report = pusher.push(new_table(), [], 0)
    assert plan.refused == {"batch_get_item": 1} and plan.calls == {"batch_get_item": 2}
    assert report.failures == [] and any("your_turn" in m for m in management.to(to_act))
    assert shared.tally.drain() == ({"DynamoDB": 1}, {})


def test_build_pusher_retries_the_posts_and_the_reads_alike(
    store: ConnectionStore,  # noqa: F811
) -> None:
    plan = ThrottlePlan(0.0, only=frozenset({"query"}))
    pusher = build_pusher(
        replace(SETTINGS, table_name=store._table),
        client=ThrottlingClient(store._client, plan, "dynamodb"),
        management=Management(),
    )
    assert pusher is not None
    with pytest.raises(Throttled):  # retried, then the store says the table is busy
        list(pusher._store.tournament_connections(T))
    assert plan.calls["query"] == THROTTLE_POLICY.attempts
    assert pusher.retrier.tally.drain()[1] == {"DynamoDB": 1}


# --- the timers ----------------------------------------------------------------------------


class ThrottledScheduler(FakeScheduler):
    """Refuses the first `refusals` calls of each kind with ThrottlingException."""

    def __init__(self, refusals: int) -> None:
        super().__init__()
        self.refusals = {"create": refusals, "delete": refusals}

    def _refuse(self, kind: str) -> None:
        if self.refusals[kind] > 0:
            self.refusals[kind] -= 1
            raise ClientError(
                {"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}}, kind
            )

    def create_schedule(self, **request: Any) -> dict[str, Any]:
        self.calls.append(("try-create", request))
        self._refuse("create")
        return super().create_schedule(**request)

    def delete_schedule(self, **request: Any) -> dict[str, Any]:
        self.calls.append(("try-delete", request))
        self._refuse("delete")
        return super().delete_schedule(**request)


def test_throttled_scheduler_calls_are_retried_and_counted() -> None:
    waits = Waits()
    scheduler = ThrottledScheduler(refusals=2)
    timers = TurnTimers(scheduler, SETTINGS, retrier(waits))
    timers.on_table_change(change(timer_table(3), timer_table(4)))
    kinds = [kind for kind, _ in scheduler.calls]
    assert kinds.count("create") == 1 and kinds.count("delete") == 1
    assert kinds.count("try-create") == 3 and kinds.count("try-delete") == 3
    assert timers.retrier.tally.drain() == ({"Scheduler": 4}, {})


def test_a_create_refused_past_its_retries_fails_the_record_a_delete_is_let_be() -> None:
    waits = Waits()
    scheduler = ThrottledScheduler(refusals=100)
    timers = TurnTimers(scheduler, SETTINGS, retrier(waits))
    with pytest.raises(ClientError):  # Lambda delivers the record again
        timers.on_table_change(change(timer_table(3), timer_table(4)))
    assert [k for k, _ in scheduler.calls].count("try-create") == THROTTLE_POLICY.attempts
    timers.on_table_change(change(timer_table(6), timer_table(7, over=True)))  # no raise
    assert timers.retrier.tally.drain()[1] == {"Scheduler": 2}


def test_build_timers_retries_within_a_budget_renewed_per_batch() -> None:
    timers = build_timers(SETTINGS, client=FakeScheduler())
    assert timers.retrier.policy == THROTTLE_POLICY
    assert timers.retrier.budget is not None and timers.retrier.budget.seconds <= 30
    timers.begin_batch()


def test_the_production_policy_fits_the_functions_timeouts() -> None:
    policy: RetryPolicy = THROTTLE_POLICY
    longest = sum(policy.backoff(n, 1.0) for n in range(1, policy.attempts))
    assert longest <= policy.budget < 60


# --- the metrics ---------------------------------------------------------------------------


def test_an_invocations_throttles_become_its_metrics(
    aws_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    tally = Tally()
    tally.count("Push", throttled=3, failed=1)
    tally.count("DynamoDB", throttled=1)

    @metrics.log_metrics
    def handler(event: dict[str, Any], context: Any) -> None:
        report_throttles(tally)

    capsys.readouterr()
    handler({}, LocalContext())
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines() if "_aws" in line]
    values = {k: v for blob in printed for k, v in blob.items() if not k.startswith("_")}
    assert values["PushThrottled"] == [3.0] and values["PushThrottledFailed"] == [1.0]
    assert values["DynamoDBThrottled"] == [1.0] and "DynamoDBThrottledFailed" not in values
    assert tally.drain() == ({}, {})  # drained: the next invocation counts from zero
