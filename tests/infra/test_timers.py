"""Turn deadlines: one schedule per turn still in play, the previous turn's dropped.

A turn is a run of actions by one player within a round (a Mäxchen throw and its
announcement): its schedule is made when it begins and stands until the next turn
begins. A fake Scheduler client shows what is created and deleted for each table
change; one test runs the same against moto's Scheduler to check the requests are well
formed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from core.actions import Announce, Doubt, Throw, Timeout
from core.match import Move, Seating
from infra.outbox.publisher import StreamChange
from infra.outbox.timers import TurnTimers, schedule_name, timeout_input
from infra.settings import Settings
from infra.store.table_item import TableRecord, bye_table, to_item
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


# A Mäxchen table of three, move by move: who acts, and the version their turn began at
SCRIPT = [
    Move(Throw(), (5, 3)),  # v0 → 1: anna throws (her turn began at 0)
    Move(Announce(53), ()),  # v1 → 2: anna announces; ben's turn begins at 2
    Move(Throw(), (6, 2)),  # v2 → 3: ben throws
    Move(Announce(62), ()),  # v3 → 4: ben announces; cem's turn begins at 4
    Move(Doubt(), ()),  # v4 → 5: cem doubts and loses; he begins round 2: a new turn at 5
    Move(Throw(), (4, 1)),  # v5 → 6: cem throws
    Move(Timeout(), ()),  # v6 → 7: cem times out; he begins round 3: a new turn at 7
    Move(Throw(), (3, 1)),  # v7 → 8
]
TURN_AT = [0, 0, 2, 2, 4, 5, 5, 7, 7]  # per version: the version its turn began at
TO_ACT = ["p-anna", "p-anna", "p-ben", "p-ben", "p-cem", "p-cem", "p-cem", "p-cem", "p-cem"]


def table(
    version: int,
    *,
    over: bool = False,
    options: dict[str, object] | None = None,
    deadline: int = 0,
) -> dict[str, Any]:
    """The item of table R2-5 at `version` of `SCRIPT`."""
    return to_item(
        TableRecord(
            tournament=T,
            ref=REF,
            seating=Seating("maexchen", SEATS, options or {}, 1),
            token_hashes=("h0", "h1", "h2"),
            moves=SCRIPT[:version],
            ranking=SEATS if over else (),
            expires_at=1_900_000_000,
            deadline=deadline,
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
    """The schedule of the turn that began at `version`, due at `when`."""
    player = TO_ACT[version]
    return {
        "Name": f"{T}.{REF}.v{version}",
        "GroupName": "g",
        "ScheduleExpression": f"at({when})",
        "ScheduleExpressionTimezone": "UTC",
        "FlexibleTimeWindow": {"Mode": "OFF"},
        "Target": {
            "Arn": SETTINGS.timeout_function_arn,
            "RoleArn": SETTINGS.scheduler_role_arn,
            "Input": json.dumps(
                {"tournament": T, "table": REF, "version": version, "player": player}
            ),
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
    assert json.loads(request["Target"]["Input"]) == timeout_input(T, REF, 0, "p-anna")
    assert timeout_input(T, REF, 0, "p-anna") == {
        "tournament": T,
        "table": REF,
        "version": 0,
        "player": "p-anna",
    }


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


def test_the_script_is_what_the_engine_plays() -> None:
    """The turns the tests below rely on, as the rules make them."""
    from core.match import turns  # noqa: PLC0415

    seating = Seating("maexchen", SEATS, {}, 1)
    for version in range(len(SCRIPT) + 1):
        played = turns(seating, SCRIPT[:version])
        assert (played.starts[-1], played.to_act) == (TURN_AT[version], TO_ACT[version])


def test_a_throw_keeps_the_turns_deadline() -> None:
    """Anna throws, then announces: her one turn has the one schedule made at its start."""
    client = FakeScheduler()
    TurnTimers(client, SETTINGS).on_table_change(change(table(0), table(1)))
    assert client.calls == []


def test_the_next_player_gets_a_new_deadline() -> None:
    client = FakeScheduler()
    TurnTimers(client, SETTINGS).on_table_change(change(table(1), table(2)))
    assert client.calls == [
        ("create", expected_create(2, "2027-01-15T08:01:01")),
        ("delete", {"Name": f"{T}.{REF}.v0", "GroupName": "g"}),  # anna's, from version 0
    ]


@pytest.mark.parametrize(
    ("before", "after", "begun", "ended"),
    [
        (4, 5, 5, 4),  # cem's doubt ends round 1; he begins round 2: a new turn
        (6, 7, 7, 5),  # cem times out; he begins round 3: a new turn, a new deadline
    ],
)
def test_a_new_round_or_a_timeout_begins_a_new_turn(
    before: int, after: int, begun: int, ended: int
) -> None:
    client = FakeScheduler()
    TurnTimers(client, SETTINGS).on_table_change(change(table(before), table(after)))
    assert TO_ACT[before] == TO_ACT[after], "the same player acts on"
    assert client.calls == [
        ("create", expected_create(begun, "2027-01-15T08:01:01")),
        ("delete", {"Name": f"{T}.{REF}.v{ended}", "GroupName": "g"}),
    ]


def test_a_turn_is_due_at_the_tables_deadline() -> None:
    """The write that began the turn set the item's `deadline`: the schedule is due then,
    not `turn_timeout_seconds` after the change the timer happens to see last."""
    client = FakeScheduler()
    began = int(AT) - 20  # ben's turn began 20 s before this batch's last change
    TurnTimers(client, SETTINGS).on_table_change(
        change(table(1), table(3, deadline=began + 60)), replaces=1
    )
    assert client.calls == [
        ("create", expected_create(2, "2027-01-15T08:00:40")),
        ("delete", {"Name": f"{T}.{REF}.v0", "GroupName": "g"}),
    ]


def test_a_batch_within_one_turn_changes_nothing() -> None:
    client = FakeScheduler()
    TurnTimers(client, SETTINGS).on_table_change(change(table(2), table(3)), replaces=2)
    assert client.calls == []


def test_the_last_move_only_drops_the_deadline() -> None:
    client = FakeScheduler()
    TurnTimers(client, SETTINGS).on_table_change(change(table(6), table(7, over=True)))
    assert client.calls == [("delete", {"Name": f"{T}.{REF}.v5", "GroupName": "g"})]


@pytest.mark.parametrize(("version", "over"), [(0, False), (4, False), (7, True)])
def test_a_repeated_write_changes_no_schedule(version: int, over: bool) -> None:
    client = FakeScheduler()
    item = table(version, over=over)
    TurnTimers(client, SETTINGS).on_table_change(change(item, item))
    assert client.calls == []


def test_a_bye_has_no_deadline() -> None:
    client = FakeScheduler()
    bye = to_item(bye_table(T, "R3-2", "p-eve", 1_900_000_000, "maexchen", name="Eve"))
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
    assert client.names() == [("create", f"{T}.{REF}.v4"), ("delete", f"{T}.{REF}.v2")]


def test_a_schedule_gone_before_is_tolerated() -> None:
    client = FakeScheduler(delete_error="ResourceNotFoundException")
    TurnTimers(client, SETTINGS).on_table_change(change(table(3), table(4)))
    TurnTimers(client, SETTINGS).on_table_change(change(table(6), table(7, over=True)))
    assert client.names() == [
        ("create", f"{T}.{REF}.v4"),
        ("delete", f"{T}.{REF}.v2"),
        ("delete", f"{T}.{REF}.v5"),
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
    if code == "ThrottlingException":  # a stale schedule does no harm: let be
        TurnTimers(deleting, SETTINGS).on_table_change(change(table(6), table(7, over=True)))
    else:
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
    assert json.loads(schedule["Target"]["Input"]) == timeout_input(T, REF, 0, "p-anna")

    timers.on_table_change(first)  # the same change delivered again: no error
    listed = scheduler.list_schedules(GroupName="g")["Schedules"]
    assert [s["Name"] for s in listed] == [schedule_name(T, REF, 0)]

    # anna's throw keeps her turn's schedule
    thrown = table(1, options={"turn_timeout_seconds": 90})
    timers.on_table_change(StreamChange("MODIFY", first.new, thrown, AT + 5))
    listed = scheduler.list_schedules(GroupName="g")["Schedules"]
    assert [s["Name"] for s in listed] == [schedule_name(T, REF, 0)]

    # ben's turn replaces it; its deadline runs from the write that began it
    second = table(2, options={"turn_timeout_seconds": 90})
    moved = StreamChange("MODIFY", thrown, second, AT + 10)
    timers.on_table_change(moved)
    timers.on_table_change(moved)  # again: the create conflicts, the delete finds nothing
    listed = scheduler.list_schedules(GroupName="g")["Schedules"]
    assert [s["Name"] for s in listed] == [schedule_name(T, REF, 2)]
    schedule = scheduler.get_schedule(Name=schedule_name(T, REF, 2), GroupName="g")
    assert json.loads(schedule["Target"]["Input"]) == timeout_input(T, REF, 2, "p-ben")
    assert schedule["ScheduleExpression"] == "at(2027-01-15T08:01:41)"
    with pytest.raises(ClientError) as gone:
        scheduler.get_schedule(Name=schedule_name(T, REF, 0), GroupName="g")
    assert gone.value.response["Error"]["Code"] == "ResourceNotFoundException"
