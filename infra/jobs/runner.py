"""Lifecycle jobs: work too large for one invocation (seating round 1, the standings),
done a bounded step at a time (docs/architecture.md, "Jobs").

A job's state sits on the tournament item (`JobState`). Each step is run by the job
function on a `JobStepReady` event, does a bounded piece of idempotent work, and ends
with one conditional write that moves `job_step` on. That write goes through the
table's stream to the publisher, whose `JobStepReady` asks for the next step: the
record of one step and the request for the next are one write, so a crash anywhere
only repeats a step, never loses one. A repeated or late event finds the job at
another step and does nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from infra.errors import NotFound
from infra.outbox.events import JobStepReady
from infra.store.job_store import JobStore
from infra.store.tournament_items import JobState, TournamentRecord
from infra.store.tournaments import TournamentStore


@dataclass(frozen=True, slots=True)
class NextStep:
    """What a step leaves for the next: its state, and the player count if it found it."""

    state: JobState
    player_count: int | None = None


class Job(Protocol):
    """One kind of job: its steps, and what its completion writes."""

    name: str

    def step(self, tournament: TournamentRecord, state: JobState) -> NextStep | None:
        """Do one bounded step from `state`; what comes next (its `step` one higher), or
        None when nothing is left and the job may complete."""

    def complete(self, tournament: TournamentRecord, state: JobState) -> bool:
        """The job's last write, conditional on `state.step`; False if done already."""


class JobRunner:
    """Runs the step a `JobStepReady` asks for, once."""

    def __init__(
        self, tournaments: TournamentStore, jobs_store: JobStore, jobs: Mapping[str, Job]
    ) -> None:
        self._tournaments = tournaments
        self._jobs_store = jobs_store
        self._jobs = dict(jobs)

    def run(self, ready: JobStepReady) -> str:
        """Run the step; what happened: "stepped", "completed" or "stale"."""
        tournament = self._tournaments.get_tournament(ready.tournament)
        if tournament is None:
            raise NotFound(f"no tournament {ready.tournament}", rule="tournament")
        state = tournament.job
        if state is None or state.name != ready.job or state.step != ready.step:
            return "stale"  # a copy of an event whose step is done, or a finished job
        job = self._jobs[state.name]
        following = job.step(tournament, state)
        if following is None:
            return "completed" if job.complete(tournament, state) else "stale"
        advanced = self._jobs_store.advance_job(
            tournament.id, state, following.state, player_count=following.player_count
        )
        return "stepped" if advanced else "stale"

    def run_to_end(self, tournament: str, max_steps: int = 100_000) -> int:
        """Run the tournament's job here, step after step, until it is complete (an
        operator pushing a stuck job along, or a stack that has no job queue); how many
        steps ran."""
        for steps in range(max_steps):
            found = self._tournaments.get_tournament(tournament)
            if found is None or found.job is None:
                return steps
            job = found.job
            self.run(
                JobStepReady(
                    event_id=f"JobStepReady:{tournament}:{job.name}:{job.step}",
                    tournament=tournament,
                    job=job.name,
                    step=job.step,
                )
            )
        raise RuntimeError(f"the job of {tournament} did not end in {max_steps} steps")
