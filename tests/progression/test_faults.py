"""Fault injection: every function that moves a tournament on dies before and after each
of its writes and is retried; queue messages come twice, late and out of order; deadlines
fire twice. The tournament must end exactly as the run without faults did."""

from __future__ import annotations

from typing import Any

from suite_dice import suite_seed
from tournament_kit import StackFactory, bot_tournament

from local.delivery import Deliveries
from local.faults import CrashPlan

PLAYERS = 60
NAMES = [f"bot {n}" for n in range(PLAYERS)]
ABSENT = NAMES[::10]  # so that the timeout handler is in the run too


def play(stack_factory: StackFactory, prefix: str, **faults: Any) -> tuple[list[Any], Any]:
    stack = stack_factory(prefix, dice_seed=suite_seed("same dice"), **faults)
    run = bot_tournament(stack, seed="same bots")
    run.create("maexchen", table_size=6, advance=2, turn_timeout_seconds=30)
    run.register(NAMES, absent=ABSENT)
    run.start(in_registration_order=True)  # ids differ between runs, names do not
    final = run.run()
    assert final["status"] == "finished"
    return run.standings(), stack


def test_crashes_and_bad_deliveries_end_in_the_same_standings(
    local_stack: StackFactory,
) -> None:
    expected, _ = play(local_stack, "calm")

    crash = CrashPlan(seed=4, rate=0.02)
    # Each write site crashes the first two times it is met, so the first messages fail
    # again and again (a crash fails the whole batch): more receives than the template's
    # dead-letter limit of 10 allows, which production's rare crashes never reach.
    deliveries = Deliveries(seed=4, duplicate=0.25, hold_back=0.25, max_receives=100)
    standings, stack = play(local_stack, "faulty", crash=crash, deliveries=deliveries)

    assert standings == expected
    sites = crash.sites
    for who in ("publisher", "progression", "timers", "timeout", "jobs"):
        assert any(site.startswith(who + ":") for site in sites), who
    for site in sites:
        assert crash.crashed[site, "before"] >= 1, site
        assert crash.crashed[site, "after"] >= 1, site
    progression_writes = {site.split(":")[2] for site in sites if site.startswith("progression")}
    # exits and moves (T/P), arrivals, round nodes, seated tables, the finish job's
    # beginning (T/META); the standings are the finish job's
    assert len(progression_writes) >= 5 and "T/META" in progression_writes, progression_writes
    job_writes = {site.split(":")[2] for site in sites if site.startswith("jobs")}
    assert {"batch", "T/META"} <= job_writes, job_writes  # items, then each step's record
    assert any(site.startswith("jobs:") and ":champion" in site for site in sites), "finished"
    queue = stack.delivery.queue_readers[0]
    assert queue.failures > 0 and not queue.dead_letters
    assert all(reader.failures > 0 for reader in stack.delivery.stream_readers)
