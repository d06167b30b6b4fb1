"""Cancelling answers 202 at once; the cancel job stops the tables in play page by page,
a step that dies runs again and counts what it stopped, and a finish job under way is
superseded rather than finishing a cancelled tournament."""

from __future__ import annotations

import pytest
from apiclient import Stack, cancel_job, job_runner
from apiclient import finish_job as finish_job_over

from core.bracket import BracketPlan
from functions.wiring import services
from infra.jobs import finish as finish_job
from infra.jobs.cancel import table_refs
from infra.outbox.events import JobStepReady
from infra.store.tournament_items import Status


def running(stack: Stack, players: int) -> tuple[str, str]:
    api = stack.api
    created = api.call("POST", "/tournaments", {"game": "maexchen", "table_size": 4}).body
    tournament, organizer = created["tournament_id"], created["organizer_token"]
    api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    for number in range(players):
        api.call("POST", f"/tournaments/{tournament}/players", {"name": f"p{number}"})
    assert api.call("POST", f"/tournaments/{tournament}/start", token=organizer).status == 202
    assert api.call("GET", f"/tournaments/{tournament}").body["status"] == "running"
    return tournament, organizer


def cancel_progress(stack: Stack, tournament: str) -> dict[str, object]:
    progress: dict[str, object] = stack.api.call("GET", f"/tournaments/{tournament}").body[
        "cancel_progress"
    ]
    return progress


def test_the_bracket_is_paged_round_after_round() -> None:
    plan = BracketPlan.build(16, 4, 2)  # 4 tables, then 2, then the final
    assert [plan.tables_in(r) for r in range(1, plan.rounds + 1)] == [4, 2, 1]
    assert table_refs(plan, 0, 3) == ["R1-1", "R1-2", "R1-3"]
    assert table_refs(plan, 3, 3) == ["R1-4", "R2-1", "R2-2"]
    assert table_refs(plan, 6, 3) == ["R3-1"]
    assert table_refs(plan, 7, 3) == []


def test_a_cancel_step_that_dies_runs_again_and_every_table_is_counted_once(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    tournament, organizer = running(stack, 16)  # round 1: four tables in play
    stack.api.jobs = None  # the job runs below, a table a step
    answer = stack.api.call("POST", f"/tournaments/{tournament}/cancel", token=organizer)
    assert (answer.status, answer.body["status"]) == (202, "cancelled")
    assert cancel_progress(stack, tournament) == {"stopping": True, "tables_stopped": 0}

    stores = stack.stores()
    store = stores.tables
    one_table_a_step = job_runner(stores, {"cancel": cancel_job(stores, stop_tables=1)})
    cancel_table = store.cancel_table
    stopped: list[str] = []

    def dies_after_the_second(tournament: str, ref: str) -> bool:
        done = cancel_table(tournament, ref)
        stopped.append(ref)
        if len(stopped) == 2:
            raise RuntimeError("the function died after stopping the table")
        return done

    monkeypatch.setattr(store, "cancel_table", dies_after_the_second)
    with pytest.raises(RuntimeError, match="died"):
        one_table_a_step.run_to_end(tournament)
    assert cancel_progress(stack, tournament) == {"stopping": True, "tables_stopped": 1}
    assert store.get_table(tournament, "R1-2").cancelled  # type: ignore[union-attr]

    monkeypatch.setattr(store, "cancel_table", cancel_table)
    steps = one_table_a_step.run_to_end(tournament)
    assert steps == 6 + 1  # R1-2 again and the five tables after it, a step each; the end
    assert cancel_progress(stack, tournament) == {"stopping": False, "tables_stopped": 4}
    for ref in ("R1-1", "R1-2", "R1-3", "R1-4"):
        table = store.get_table(tournament, ref)
        assert table is not None and table.cancelled and not table.deadline
    found = services().tournaments.get(tournament)
    assert (found.status, found.job) == (Status.CANCELLED, None)


def test_a_cancellation_supersedes_a_finish_job_under_way(stack: Stack) -> None:
    tournament, organizer = running(stack, 8)
    stores = stack.stores()
    stores.jobs.begin_job(tournament, Status.RUNNING, finish_job.begin())  # as after the final
    stack.api.jobs = None
    answer = stack.api.call("POST", f"/tournaments/{tournament}/cancel", token=organizer)
    assert answer.status == 202, answer.body
    found = services().tournaments.get(tournament)
    assert found.job is not None and found.job.name == "cancel"

    runner = job_runner(stores, {"finish": finish_job_over(stores), "cancel": cancel_job(stores)})
    late = JobStepReady(event_id="late", tournament=tournament, job="finish", step=0)
    assert runner.run(late) == "stale"  # the finish job's event finds the cancel job
    runner.run_to_end(tournament)
    after = services().tournaments.get(tournament)
    assert (after.status, after.job, after.champion) == (Status.CANCELLED, None, "")
