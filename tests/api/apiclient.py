"""A test client that calls the real Lambda handler with API Gateway HTTP API events."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from functions.api.app import lambda_handler
from infra.jobs.cancel import CancelJob
from infra.jobs.finish import FinishJob
from infra.jobs.runner import Job, JobRunner
from infra.jobs.start import StartJob
from infra.store.stores import Stores
from local.lambda_events import HttpAnswer, invoke_http

Answer = HttpAnswer


@dataclass
class ApiClient:
    """Sends requests through `lambda_handler`; remembers every answer for leak scans.

    With `jobs`, a start or a cancellation that answers 202 is followed by its job, run
    here to the end, as the job function would on AWS (these stacks have no stream or
    queue)."""

    answers: list[tuple[str | None, HttpAnswer]] = field(default_factory=list)
    jobs: JobRunner | None = None

    def call(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        viewer: str | None = None,
        **request: Any,
    ) -> HttpAnswer:
        """One request (`token`, `headers`, `query` as `invoke_http` takes them); `viewer`
        labels whose eyes the answer is for (None: anyone)."""
        answer = invoke_http(lambda_handler, method, path, body, **request)
        self.answers.append((viewer, answer))
        if self.jobs is not None and answer.status == 202 and path.endswith(("/start", "/cancel")):
            self.jobs.run_to_end(answer.body["tournament_id"])
        return answer


@dataclass
class Stack:
    """The API over a moto table, and the raw client for looking behind it (the `stack`
    fixture; defined here because test modules cannot import a conftest reliably when
    several directories have one)."""

    api: ApiClient
    dynamodb: Any
    table_name: str

    def stores(self) -> Stores:
        """Stores over the same table (not the API's own instances)."""
        return Stores.over(self.dynamodb, self.table_name)


def start_job(stores: Stores, clock: Any, **options: Any) -> StartJob:
    """The start job over `stores`, with `options` (how many tables a step seats…)."""
    return StartJob(
        tournaments=stores.tournaments,
        players=stores.players,
        tables=stores.tables,
        jobs=stores.jobs,
        clock=clock,
        **options,
    )


def cancel_job(stores: Stores, **options: Any) -> CancelJob:
    return CancelJob(tables=stores.tables, jobs=stores.jobs, **options)


def finish_job(stores: Stores, **options: Any) -> FinishJob:
    return FinishJob(players=stores.players, progress=stores.progress, jobs=stores.jobs, **options)


def job_runner(stores: Stores, jobs: dict[str, Job]) -> JobRunner:
    return JobRunner(stores.tournaments, stores.jobs, jobs)
