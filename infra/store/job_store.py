"""The items of the lifecycle jobs (`infra.jobs.runner`): their state on the tournament item,
and lists of player ids kept in chunks (docs/data-model.md). The players' exits and the
tables in play, which the jobs read too, are read through `infra.store.players` and
`infra.store.game_tables`.

- the job's state (`job`, `job_step`, `job_phase`, `job_cursor`, `job_done`) lives on
  the tournament item; a step is done when its write moves `job_step` on, conditional on
  the step it started from, so a step run twice is recorded once;
- `T#<t>#ROSTER` / `C#<n>`: the registered players' ids as the start found them, a
  query page per chunk;
- `T#<t>#ORDER` / `C#<n>`: the seeded (or the organizer's) order, `ORDER_CHUNK` ids a
  chunk, so seating a page of round 1 reads only the chunks that hold its seats, and
  the finish job goes through the players in seeding order the same way;
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from infra.errors import WrongStatus
from infra.store.table import TableStore
from infra.store.tournament_items import META, JobState, tournament_pk

ORDER_CHUNK = 10_000  # about 130 KB of ids: well under DynamoDB's 400 KB an item
_JOB_ATTRIBUTES = ("job", "job_step", "job_phase", "job_cursor", "job_done")


class JobStore(TableStore):
    """What the lifecycle jobs keep: their state on the tournament item, lists of ids."""

    # --- the job's state ---------------------------------------------------------------

    def advance_job(
        self, tournament: str, done: JobState, following: JobState, *, player_count: int | None
    ) -> bool:
        """Record that step `done.step` is done and `following` comes next (and the player
        count, if given); False if that step was recorded already (a repeated step)."""
        attributes = following.attributes()
        update = "SET " + ", ".join(f"{name} = :{name}" for name in attributes)
        values = {f":{name}": value for name, value in attributes.items()}
        if player_count is not None:
            update += ", player_count = :count"
            values[":count"] = {"N": str(player_count)}
        return self._write_if(
            self._client.update_item,
            TableName=self._table,
            Key=_meta(tournament),
            UpdateExpression=update,
            ConditionExpression="job = :name AND job_step = :done",
            ExpressionAttributeValues={
                **values,
                ":name": {"S": done.name},
                ":done": {"N": str(done.step)},
            },
        )

    def end_job(
        self,
        tournament: str,
        done: JobState,
        status: str,
        extra: dict[str, Any] | None = None,
    ) -> bool:
        """Remove the job and set `status` (and `extra` attributes) in one write, if the
        job is still at step `done.step`; False if it ended already."""
        extra = extra or {}
        update = "SET #status = :status" + "".join(f", #{name} = :{name}" for name in extra)
        return self._write_if(
            self._client.update_item,
            TableName=self._table,
            Key=_meta(tournament),
            UpdateExpression=f"{update} REMOVE {', '.join(_JOB_ATTRIBUTES)}",
            ConditionExpression="job = :name AND job_step = :done",
            ExpressionAttributeNames={"#status": "status", **{f"#{n}": n for n in extra}},
            ExpressionAttributeValues={
                ":status": {"S": status},
                ":name": {"S": done.name},
                ":done": {"N": str(done.step)},
                **{f":{name}": value for name, value in extra.items()},
            },
        )

    def begin_job(self, tournament: str, status: str, job: JobState) -> None:
        """Start `job` on a tournament in `status` that runs no job; `WrongStatus` if
        it is not in that status or a job runs already."""
        started = self._write_if(
            self._client.update_item,
            TableName=self._table,
            Key=_meta(tournament),
            UpdateExpression="SET " + ", ".join(f"{n} = :{n}" for n in job.attributes()),
            ConditionExpression="#status = :status AND attribute_not_exists(job)",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues={
                ":status": {"S": status},
                **{f":{name}": value for name, value in job.attributes().items()},
            },
        )
        if not started:
            raise WrongStatus(
                f"a {job.name} job needs the tournament {status} and no other job running",
                rule="jobs",
            )

    def put_id_chunks(
        self,
        tournament: str,
        list_name: str,
        first: int,
        chunks: Sequence[Sequence[str]],
        expires_at: int,
    ) -> None:
        """Store `chunks` as chunks `first`, `first + 1`, … of the list `list_name`, gone
        with the tournament at `expires_at`."""
        self._batch_write(
            {
                **_chunk_key(tournament, list_name, first + offset),
                "kind": {"S": "id_chunk"},
                "ids": {"S": " ".join(chunk)},
                "expires_at": {"N": str(expires_at)},
            }
            for offset, chunk in enumerate(chunks)
        )

    def id_chunks(self, tournament: str, list_name: str, indexes: Sequence[int]) -> list[str]:
        """The ids of chunks `indexes` of the list, in that order; `KeyError` if one is
        missing."""
        keys = [_chunk_key(tournament, list_name, index) for index in indexes]
        found = {item["sk"]["S"]: item["ids"]["S"] for item in self._batch_get_keys(keys)}
        ids: list[str] = []
        for key in keys:
            text = found[key["sk"]["S"]]
            ids.extend(text.split(" ") if text else [])
        return ids


def chunked(ids: Sequence[str], size: int = ORDER_CHUNK) -> Iterator[Sequence[str]]:
    """`ids` cut into chunks of `size`."""
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _meta(tournament: str) -> dict[str, Any]:
    return {"pk": {"S": tournament_pk(tournament)}, "sk": {"S": META}}


def _chunk_key(tournament: str, list_name: str, index: int) -> dict[str, Any]:
    return {
        "pk": {"S": f"{tournament_pk(tournament)}#{list_name}"},
        "sk": {"S": f"C#{index:06d}"},
    }
