"""Turn deadlines: one schedule per version still in play, the previous one dropped.

A fake Scheduler client shows what is created and deleted for each table change; one
test runs the same against moto's Scheduler to check the requests are well formed.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from core.match import Move, Seating
from core.registry import get_game
from infra.publisher import StreamChange
from infra.settings import Settings
from infra.table_item import TableRecord, bye_table, to_item
from infra.timers import TurnTimers, schedule_name, timeout_input
from infra.tokens import new_id

SETTINGS = Settings(
    table_name="t",
    event_bus="b",
    schedule_group="g",
    timeout_function_arn="arn:aws:lambda:eu-central-1:123456789012:function:f",
    scheduler_role_arn="arn:aws:iam::123456789012:role/r",
)
T = "t-abc234"
REF = "R2-5"
AT = 1_800_000_000.25  # 2027-01-15T08:00:00.25Z
SEATS = ("p-anna", "p-ben", "p-cem")


def moves_of(count: int, seed: int = 5) -> list[Move]:
    """The first `count` moves of a real Mäxchen table (not over yet)."""
    game = get_game("maexchen")
    state, _ = game.seat(SEATS, {}, 1)
    rng, moves = random.Random(seed), []
    while len(moves) < count:
        assert not game.is_over(state)
        action = rng.choice(game.legal_actions(state))
        dice = tuple(rng.randint(1, 6) for _ in range(game.dice_needed(state, action)))
        state, _ = game.apply(state, game.to_act(state), action, dice)
        moves.append(Move(action, dice))
    return moves


def table(
    version: int, *, over: bool = False, options: dict[str, object] | None = None
) -> dict[str, Any]:
    """The item of table R2-5 at `version`."""
    return to_item(
        TableRecord(
            tournament=T,
            ref=REF,
            seating=Seating("maexchen", SEATS, options or {}, 1),
            token_hashes=("h0", "h1", "h2"),
            moves=moves_of(version),
            ranking=SEATS if over else (),
            expires_at=1_900_000_000,
        )
    )


def change(old: dict[str, Any] | None, new: dict[str, Any] | None) -> StreamChange:
    name = "INSERT" if old is None else "REMOVE" if new is None else "MODIFY"
    return StreamChange(name, old, new, AT)


class FakeScheduler:
    """Records `create_schedule` and `delete_schedule`; raises the errors it is given."""

    def __init__(self, create_error: str | None = None, delete_error: str | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.create_error, self.delete_error = create_error, delete_error

    def create_schedule(self, **request: Any) -> dict[str, Any]:
        self.calls.append(("create", request))
        if self.create_error:
            raise client_error(self.create_error, "CreateSchedule")
        return {"ScheduleArn": "arn"}

    def delete_schedule(self, **request: Any) -> dict[str, Any]:
        self.calls.append(("delete", request))
        if self.delete_error:
            raise client_error(self.delete_error, "DeleteSchedule")
        return {}

    def names(self) -> list[tuple[str, str]]:
        return [(kind, request["Name"]) for kind, request in self.calls]


def client_error(code: str, operation: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": f"{code}!"}}, operation)


def expected_create(version: int, when: str) -> dict[str, Any]:
    return {
        "Name": f"{T}.{REF}.v{version}",
        "GroupName": "g",
        "ScheduleExpression": f"at({when})",
        "ScheduleExpressionTimezone": "UTC",
        "FlexibleTimeWindow": {"Mode": "OFF"},
        "Target": {
            "Arn": SETTINGS.timeout_function_arn,
            "RoleArn": SETTINGS.scheduler_role_arn,
            "Input": json.dumps({"tournament": T, "table": REF, "version": version}),
            "RetryPolicy": {"MaximumRetryAttempts": 10, "MaximumEventAgeInSeconds": 3600},
        },
        "ActionAfterCompletion": "DELETE",
    }


def test_a_seated_table_gets_its_first_deadline() -> None:
    client = FakeScheduler()
    TurnTimers(client, SETTINGS).on_table_change(change(None, table(0)))
    # 60 s by default after the write, rounded up to the next whole second
    assert client.calls == [("create", expected_create(0, "2027-01-15T08:01:01"))]
    request = client.calls[0][1]
    assert request["Name"] == schedule_name(T, REF, 0)
    assert json.loads(request["Target"]["Input"]) == timeout_input(T, REF, 0)
    assert timeout_input(T, REF, 0) == {"tournament": T, "table": REF, "version": 0}


@pytest.mark.parametrize(
    ("at", "seconds", "when"),
    [
        (1_800_000_000.0, 45, "2027-01-15T08:00:45"),  # whole seconds stay as they are
        (1_800_000_000.001, 45, "2027-01-15T08:00:46"),
        (1_800_000_000.999, 1, "2027-01-15T08:00:02"),
        (1_800_000_000.5, 86_400, "2027-01-16T08:00:01"),
    ],
)
def test_the_deadline_follows_the_tables_timeout(at: float, seconds: int, when: str) -> None:
    client = FakeScheduler()
    item = table(0, options={"turn_timeout_seconds": seconds})
    TurnTimers(client, SETTINGS).on_table_change(StreamChange("INSERT", None, item, at))
    [(kind, request)] = client.calls
    assert kind == "create"
    assert request["ScheduleExpression"] == f"at({when})"
    assert request["ScheduleExpressionTimezone"] == "UTC"


def test_a_move_replaces_the_deadline() -> None:
    client = FakeScheduler()
    TurnTimers(client, SETTINGS).on_table_change(change(table(3), table(4)))
    assert client.calls == [
        ("create", expected_create(4, "2027-01-15T08:01:01")),
        ("delete", {"Name": f"{T}.{REF}.v3", "GroupName": "g"}),
    ]


def test_the_last_move_only_drops_the_deadline() -> None:
    client = FakeScheduler()
    TurnTimers(client, SETTINGS).on_table_change(change(table(6), table(7, over=True)))
    assert client.calls == [("delete", {"Name": f"{T}.{REF}.v6", "GroupName": "g"})]


@pytest.mark.parametrize(("version", "over"), [(0, False), (4, False), (7, True)])
def test_a_repeated_write_changes_no_schedule(version: int, over: bool) -> None:
    client = FakeScheduler()
    item = table(version, over=over)
    TurnTimers(client, SETTINGS).on_table_change(change(item, item))
    assert client.calls == []


def test_a_bye_has_no_deadline() -> None:
    client = FakeScheduler()
    bye = to_item(bye_table(T, "R3-2", "p-eve", 1_900_000_000, "maexchen"))
    timers = TurnTimers(client, SETTINGS)
    timers.on_table_change(change(None, bye))
    timers.on_table_change(change(bye, bye))
    assert client.calls == []


def test_items_that_are_not_tables_and_removals_are_ignored() -> None:
    client = FakeScheduler()
    timers = TurnTimers(client, SETTINGS)
    timers.on_table_change(change(table(2), None))
    player = {"pk": {"S": f"T#{T}"}, "sk": {"S": "P#p-anna"}, "kind": {"S": "player"}}
    timers.on_table_change(change(None, player))
    timers.on_table_change(change(player, player))
    assert client.calls == []


def test_a_dead_letter_queue_is_named_when_set() -> None:
    client = FakeScheduler()
    dlq = "arn:aws:sqs:eu-central-1:123456789012:timeouts-dlq"
    settings = replace(SETTINGS, timeout_dead_letter_arn=dlq)
    TurnTimers(client, settings).on_table_change(change(None, table(0)))
    [(_, request)] = client.calls
    assert request["Target"]["DeadLetterConfig"] == {"Arn": dlq}


def test_a_schedule_made_before_is_tolerated() -> None:
    client = FakeScheduler(create_error="ConflictException")
    TurnTimers(client, SETTINGS).on_table_change(change(table(3), table(4)))
    assert client.names() == [("create", f"{T}.{REF}.v4"), ("delete", f"{T}.{REF}.v3")]


def test_a_schedule_gone_before_is_tolerated() -> None:
    client = FakeScheduler(delete_error="ResourceNotFoundException")
    TurnTimers(client, SETTINGS).on_table_change(change(table(3), table(4)))
    TurnTimers(client, SETTINGS).on_table_change(change(table(6), table(7, over=True)))
    assert client.names() == [
        ("create", f"{T}.{REF}.v4"),
        ("delete", f"{T}.{REF}.v3"),
        ("delete", f"{T}.{REF}.v6"),
    ]


@pytest.mark.parametrize(
    "code", ["ThrottlingException", "ValidationException", "AccessDeniedException"]
)
def test_other_errors_propagate(code: str) -> None:
    creating = FakeScheduler(create_error=code)
    with pytest.raises(ClientError) as raised:
        TurnTimers(creating, SETTINGS).on_table_change(change(table(3), table(4)))
    assert raised.value.response["Error"]["Code"] == code
    assert creating.names() == [("create", f"{T}.{REF}.v4")]  # the old one stays for a retry

    deleting = FakeScheduler(delete_error=code)
    with pytest.raises(ClientError):
        TurnTimers(deleting, SETTINGS).on_table_change(change(table(6), table(7, over=True)))

    # a conflict on delete or a missing resource on create is no repeat: it propagates
    with pytest.raises(ClientError):
        TurnTimers(FakeScheduler(create_error="ResourceNotFoundException"), SETTINGS).schedule(
            T, REF, 1, AT
        )
    with pytest.raises(ClientError):
        TurnTimers(FakeScheduler(delete_error="ConflictException"), SETTINGS).cancel(T, REF, 1)


def test_schedule_names_fit_schedulers_rules() -> None:
    """1 to 64 characters of [0-9a-zA-Z-_.], even for a long round and table number."""
    for tournament in (T, new_id("t"), new_id("t")):
        name = schedule_name(tournament, "R20-170000", 99_999)
        assert re.fullmatch(r"[0-9a-zA-Z\-_.]{1,64}", name), name
    assert schedule_name(T, REF, 17) == f"{T}.{REF}.v17"
    assert len({schedule_name(T, REF, v) for v in range(100)}) == 100


# --- against moto's Scheduler ----------------------------------------------------------


@pytest.fixture
def scheduler(aws_env: None) -> Iterator[Any]:
    """A Scheduler client talking to moto, with fake credentials in a fixed region."""
    with mock_aws():
        client = boto3.client("scheduler")
        client.create_schedule_group(Name="g")
        yield client


def test_schedules_on_scheduler(scheduler: Any) -> None:
    timers = TurnTimers(scheduler, SETTINGS)
    first = change(None, table(0, options={"turn_timeout_seconds": 90}))
    timers.on_table_change(first)

    schedule = scheduler.get_schedule(Name=schedule_name(T, REF, 0), GroupName="g")
    assert schedule["ScheduleExpression"] == "at(2027-01-15T08:01:31)"
    assert schedule["ScheduleExpressionTimezone"] == "UTC"
    assert schedule["FlexibleTimeWindow"] == {"Mode": "OFF"}
    assert schedule["ActionAfterCompletion"] == "DELETE"
    assert schedule["Target"]["Arn"] == SETTINGS.timeout_function_arn
    assert schedule["Target"]["RoleArn"] == SETTINGS.scheduler_role_arn
    assert json.loads(schedule["Target"]["Input"]) == timeout_input(T, REF, 0)

    timers.on_table_change(first)  # the same change delivered again: no error
    listed = scheduler.list_schedules(GroupName="g")["Schedules"]
    assert [s["Name"] for s in listed] == [schedule_name(T, REF, 0)]

    # the next version replaces it; its deadline runs from the new write
    second = table(1, options={"turn_timeout_seconds": 90})
    moved = StreamChange("MODIFY", first.new, second, AT + 10)
    timers.on_table_change(moved)
    timers.on_table_change(moved)  # again: the create conflicts, the delete finds nothing
    listed = scheduler.list_schedules(GroupName="g")["Schedules"]
    assert [s["Name"] for s in listed] == [schedule_name(T, REF, 1)]
    schedule = scheduler.get_schedule(Name=schedule_name(T, REF, 1), GroupName="g")
    assert schedule["ScheduleExpression"] == "at(2027-01-15T08:01:41)"
    with pytest.raises(ClientError) as gone:
        scheduler.get_schedule(Name=schedule_name(T, REF, 0), GroupName="g")
    assert gone.value.response["Error"]["Code"] == "ResourceNotFoundException"
