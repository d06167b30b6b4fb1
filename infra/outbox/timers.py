"""Turn deadlines as one-time EventBridge Scheduler schedules (docs/rules.md §4.1).

Each turn of a table in play gets one schedule, named after the table and the version
the turn began at, due at the table's `deadline` (`turn_timeout_seconds` after the write
that began the turn). A turn is a run of actions by one player within a round: a Mäxchen
throw and its announcement are one turn (`core.match.same_turn`), so the schedule made at
the throw stands through the announcement, which costs no Scheduler call. When the next
turn begins (another player is to act, or the timeout was applied) the old schedule is
deleted; one that fires anyway finds another turn in play and does nothing. A fired
schedule deletes itself (`ActionAfterCompletion: DELETE`).

A Scheduler call AWS throttles is retried with backoff and jitter within the batch's
retry budget (`infra.retry`). A CreateSchedule still throttled after that fails its
record, so Lambda delivers it again (and the deadline sweeper times the turn out within
a minute or two of its deadline if no delivery ever gets through); a DeleteSchedule still
throttled is let be, since a stale schedule that fires finds another turn in play and
does nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

from core.match import turns
from infra.outbox.publisher import StreamChange
from infra.retry import Retrier, is_throttled
from infra.settings import Settings
from infra.store.deadlines import turn_timeout
from infra.store.table import code_of
from infra.store.table_item import TableRecord, from_item

_GONE = {"ResourceNotFoundException"}
_THERE = {"ConflictException"}


def schedule_name(tournament: str, ref: str, version: int) -> str:
    """`t-abc.R2-5.v17`: unique per turn (the version it began at), within Scheduler's
    64 characters and alphabet."""
    return f"{tournament}.{ref}.v{version}"


def timeout_input(
    tournament: str, ref: str, version: int, player: str | None = None
) -> dict[str, Any]:
    """What a schedule hands the timeout handler: the turn, by the version it began at,
    and the player whose turn it is."""
    made: dict[str, Any] = {"tournament": tournament, "table": ref, "version": version}
    if player is not None:
        made["player"] = player
    return made


class TurnTimers:
    """Creates and deletes the schedules that time turns out; `retrier` retries what
    Scheduler throttles (the default retries nothing)."""

    def __init__(self, client: Any, settings: Settings, retrier: Retrier | None = None) -> None:
        self._client = client
        self._settings = settings
        self.retrier = retrier if retrier is not None else Retrier()

    def begin_batch(self) -> None:
        """A new batch of changes: the retries' budget whole again."""
        self.retrier.renew()

    def on_table_change(self, change: StreamChange, replaces: int | None = -1) -> None:
        """Schedule the deadline of the turn in play after `change`, unless it is the
        turn that was in play at the version `change` replaces (`replaces`; by default
        the version in the change's old image), whose schedule stands; drop that turn's
        schedule when another turn has begun or the table is over."""
        if change.new is None or change.new.get("kind", {}).get("S") != "table":
            return
        table = from_item(change.new)
        if table.bye:
            return
        if table.cancelled:  # its tournament was cancelled: the turn in play times out never
            played = turns(table.seating, table.moves)
            self.cancel(table.tournament, table.ref, played.starts[table.version])
            return
        previous = replaces
        if previous == -1:
            previous = int(change.old["version"]["N"]) if change.old is not None else None
        if previous == table.version:
            return  # a repeated write: its schedule exists already
        played = turns(table.seating, table.moves)
        turn = played.starts[table.version]
        replaced = None if previous is None else played.starts[min(previous, table.version)]
        if not table.over:
            if turn == replaced:
                return  # the same player's turn goes on: its deadline stands
            self.schedule_turn(table, turn, played.to_act, change.at)
        if replaced is not None:
            self.cancel(table.tournament, table.ref, replaced)

    def schedule_turn(self, table: TableRecord, turn: int, player: str | None, at: float) -> None:
        """The schedule of `player`'s turn, which began at version `turn`: due at the
        table's `deadline` (set by the write that began the turn), or, for an item
        without one, `turn_timeout_seconds` after `at`."""
        due = table.deadline or at + turn_timeout(table.seating.options)
        self.schedule(table.tournament, table.ref, turn, due, player)

    def schedule(
        self, tournament: str, ref: str, version: int, due: float, player: str | None = None
    ) -> None:
        """A one-time schedule that times out the turn that began at `version` (`player`'s)
        at `due` (epoch s)."""
        when = datetime.fromtimestamp(math.ceil(due), UTC).strftime("%Y-%m-%dT%H:%M:%S")
        target: dict[str, Any] = {
            "Arn": self._settings.timeout_function_arn,
            "RoleArn": self._settings.scheduler_role_arn,
            "Input": json.dumps(timeout_input(tournament, ref, version, player)),
            "RetryPolicy": {"MaximumRetryAttempts": 10, "MaximumEventAgeInSeconds": 3600},
        }
        if self._settings.timeout_dead_letter_arn:
            target["DeadLetterConfig"] = {"Arn": self._settings.timeout_dead_letter_arn}
        try:
            self.retrier.call(
                "Scheduler",
                self._client.create_schedule,
                Name=schedule_name(tournament, ref, version),
                GroupName=self._settings.schedule_group,
                ScheduleExpression=f"at({when})",
                ScheduleExpressionTimezone="UTC",
                FlexibleTimeWindow={"Mode": "OFF"},
                Target=target,
                ActionAfterCompletion="DELETE",
            )
        except ClientError as error:
            if code_of(error) not in _THERE:  # made by an earlier delivery of this change
                raise

    def cancel(self, tournament: str, ref: str, version: int) -> None:
        """Delete the schedule of the turn that began at `version`, if it has not fired
        (and deleted itself)."""
        try:
            self.retrier.call(
                "Scheduler",
                self._client.delete_schedule,
                Name=schedule_name(tournament, ref, version),
                GroupName=self._settings.schedule_group,
            )
        except ClientError as error:
            if code_of(error) not in _GONE and not is_throttled(error):  # see the module
                raise


def last_changes(changes: Sequence[StreamChange]) -> dict[int, int | None]:
    """For a batch of stream changes: the index of each table's last change, and the
    version before the table's first change in the batch (None if it was new).

    A table that moved several versions within one batch needs only its last turn's
    deadline: scheduling and at once deleting every turn in between would cost two
    Scheduler calls per turn for nothing. Fast players (bots) make such batches.
    """
    first_old: dict[str, int | None] = {}
    last: dict[str, int] = {}
    for index, change in enumerate(changes):
        if change.new is None or change.new.get("kind", {}).get("S") != "table":
            continue
        key = change.new["pk"]["S"]
        if key not in first_old:
            first_old[key] = int(change.old["version"]["N"]) if change.old is not None else None
        last[key] = index
    return {index: first_old[key] for key, index in last.items()}
