"""A turn's deadline when Scheduler throttles its CreateSchedule past the retries: the
timer record fails, so Lambda delivers it again and the schedule is made on time once
Scheduler takes calls again; if it never does, the deadline sweeper times the turn out
`GRACE_SECONDS` after its deadline. Counted as the TimerFunction's metrics both ways.

The local stack on in-process moto, its timers' Scheduler client refusing every
CreateSchedule (`local.throttles`), with a clock the test moves.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from moto import mock_aws
from suite_dice import suite_seed
from test_sweeper import NOW, TIMEOUT, Clock, Cup, http

from core.actions import Timeout
from functions.timers import app as timers_app
from infra.bootstrap import THROTTLE_POLICY
from infra.dice import PlaceSeededDice
from infra.retry import Retrier
from infra.store.deadlines import GRACE_SECONDS
from local.bots import BotTournament
from local.delivery import StreamReader
from local.stack import start_local_stack, stop_local_stack
from local.throttles import ThrottlePlan


class Throttled(Cup):
    """A started tournament of four absent players, Scheduler refusing CreateSchedule."""

    plan: ThrottlePlan

    @property
    def timers(self) -> StreamReader:
        [reader] = [r for r in self.stack.delivery.stream_readers if r.name == "timers"]
        return reader

    def settle_all_but_the_timers(self) -> None:
        delivery = self.stack.delivery
        for _ in range(1_000):
            if not delivery.poll(skip=[self.timers]) and all(
                r.idle for r in delivery.queue_readers
            ):
                return
        raise AssertionError("did not settle")


@pytest.fixture
def cup(aws_env: None) -> Iterator[Throttled]:
    with mock_aws():
        clock = Clock()
        plan = ThrottlePlan(0.0, only=frozenset({"create_schedule"}))
        stack = start_local_stack(
            "th", dice=PlaceSeededDice(suite_seed("throttled")), clock=clock, throttle=plan
        )
        # the production policy, without waiting for real
        timers_app.timers().retrier = Retrier(THROTTLE_POLICY, sleep=lambda _: None)
        run = BotTournament(http, stack, "bots")
        run.create("maexchen", table_size=4, advance=1, turn_timeout_seconds=TIMEOUT)
        names = [f"bot {n}" for n in range(4)]
        run.register(names, absent=names)
        run.start()
        made = Throttled(stack, clock, run)
        made.plan = plan
        made.settle_all_but_the_timers()
        yield made
        plan.only = frozenset()
        stack.delivery.settle()
        stop_local_stack()


def metrics_printed(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().out


def test_a_refused_create_fails_its_record_and_is_made_on_time_once_scheduler_takes_calls(
    cup: Throttled, capsys: pytest.CaptureFixture[str]
) -> None:
    deadline = int(NOW) + TIMEOUT
    assert cup.table().deadline == deadline
    capsys.readouterr()
    assert cup.timers.deliver() == 0  # the record failed: Lambda delivers it again
    assert cup.plan.calls["create_schedule"] == THROTTLE_POLICY.attempts
    assert not cup.stack.delivery.schedules.pending()
    printed = metrics_printed(capsys)
    assert '"SchedulerThrottledFailed"' in printed and '"SchedulerThrottled"' in printed

    cup.plan.only = frozenset()  # Scheduler takes calls again
    assert cup.timers.deliver() > 0
    [(due, turn)] = cup.stack.delivery.schedules.pending().values()
    assert (due, turn["version"]) == (deadline, 0)  # on time: at the turn's own deadline
    cup.clock.now = deadline
    assert cup.stack.delivery.fire_next()
    assert cup.table().moves[0].action == Timeout()
    assert cup.sweep()["timed_out"] == 0  # nothing left for the backstop


def test_a_create_never_taken_leaves_the_turn_to_the_sweeper_a_minute_late(
    cup: Throttled,
) -> None:
    deadline = int(NOW) + TIMEOUT
    for _ in range(3):  # every delivery refused
        assert cup.timers.deliver() == 0
    assert not cup.stack.delivery.schedules.pending()
    cup.clock.now = deadline + GRACE_SECONDS - 1
    assert cup.sweep()["timed_out"] == 0
    assert cup.table().version == 0
    cup.clock.now = deadline + GRACE_SECONDS
    assert cup.sweep()["timed_out"] == 1
    timed_out: Any = cup.table()
    assert timed_out.version == 1 and timed_out.moves[0].action == Timeout()
