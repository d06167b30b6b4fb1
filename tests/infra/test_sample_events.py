"""The sample events in events/ (for `sam local invoke`) are what the handlers accept,
and are exactly what events/generate.py makes, so they cannot drift from the code."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from aws_lambda_powertools.utilities.data_classes import (
    DynamoDBStreamEvent,
    EventBridgeEvent,
    SQSEvent,
)
from aws_lambda_powertools.utilities.parser import parse
from moto import mock_aws
from suite_dice import suite_seed

from functions.api.app import lambda_handler as api_handler
from functions.progression import app as progression_app
from functions.publisher import app as publisher_app
from functions.timeout import app as timeout_app
from functions.timers import app as timers_app
from infra.dice import PlaceSeededDice
from infra.outbox.events import TableFinished
from infra.outbox.publisher import change_from_record, events_of
from infra.outbox.timers import schedule_name
from local.event_filters import matches, passes, stream_filters
from local.lambda_events import LocalContext
from local.provision import load_template
from local.stack import LocalStack, start_local_stack, stop_local_stack

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
NOW = 1_718_391_600.0  # the samples' clock (events/generate.py)


def sample(name: str) -> dict[str, Any]:
    """One sample event as `sam local invoke -e` reads it."""
    event: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return event


def generator() -> ModuleType:
    """events/generate.py as a module (events/ is no package)."""
    spec = importlib.util.spec_from_file_location("events_generate", EVENTS / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def stack(aws_env: None) -> Iterator[LocalStack]:
    """The template's resources on in-process moto, every handler wired to them."""
    with mock_aws():
        yield start_local_stack(
            "samples", dice=PlaceSeededDice(suite_seed("samples")), clock=lambda: NOW, observer=True
        )
        stop_local_stack()


def test_the_committed_files_are_what_generate_py_makes() -> None:
    made = generator().render()
    committed = {path.name for path in EVENTS.glob("*.json")}
    assert committed == set(made)
    for name, text in made.items():
        assert (EVENTS / name).read_text() == text, f"events/{name}: run events/generate.py"


def test_generate_py_runs_as_a_script_and_finds_nothing_stale() -> None:
    run = subprocess.run(
        [sys.executable, str(EVENTS / "generate.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr


def test_the_readme_names_every_sample_with_its_function() -> None:
    readme = (EVENTS / "README.md").read_text()
    functions = {
        name
        for name, resource in load_template()["Resources"].items()
        if resource["Type"] == "AWS::Serverless::Function"
    }
    for path in EVENTS.glob("*.json"):
        line = next(line for line in readme.splitlines() if f"events/{path.name}" in line)
        assert any(f"sam local invoke {function} " in line for function in functions), line


def test_the_create_request_creates_a_tournament(stack: LocalStack) -> None:
    answer = api_handler(sample("api-create-tournament.json"), LocalContext())
    assert answer["statusCode"] == 201
    created = json.loads(answer["body"])
    assert created["status"] == "draft"
    # the read request, pointed at the tournament just made, reads it
    read = sample("api-read-tournament.json")
    path = f"/tournaments/{created['tournament_id']}"
    read["rawPath"] = read["requestContext"]["http"]["path"] = path
    answer = api_handler(read, LocalContext())
    assert answer["statusCode"] == 200
    assert json.loads(answer["body"])["table_size"] == 3


def test_the_read_request_is_routed_and_answers_404_for_an_unknown_tournament(
    stack: LocalStack,
) -> None:
    answer = api_handler(sample("api-read-tournament.json"), LocalContext())
    assert answer["statusCode"] == 404
    assert json.loads(answer["body"])["code"] == "not_found"


def test_the_finished_table_passes_the_publishers_filter_and_is_published(
    stack: LocalStack,
) -> None:
    event = sample("publisher-table-finished.json")
    for record in DynamoDBStreamEvent(event).records:
        assert record.dynamodb is not None and record.dynamodb.new_image["status"] == "over"
        assert passes(stream_filters("PublisherFunction"), record.raw_event)
    answer = publisher_app.lambda_handler(event, LocalContext(function_name="publisher"))
    assert answer["batchItemFailures"] == []
    published = stack.observed()
    assert [e["detail-type"] for e in published] == ["TableFinished"]
    assert published[0]["detail"]["final"] is True


def test_the_table_in_play_passes_the_timers_filter_and_gets_its_deadline(
    stack: LocalStack,
) -> None:
    event = sample("timers-table-changed.json")
    (record,) = DynamoDBStreamEvent(event).records
    assert record.dynamodb is not None and record.dynamodb.new_image["status"] == "playing"
    assert passes(stream_filters("TimerFunction"), record.raw_event)
    # the publisher hears of it too, to push it, but it is no domain event
    assert passes(stream_filters("PublisherFunction"), record.raw_event)
    assert events_of(change_from_record(record.raw_event)) == []
    answer = timers_app.lambda_handler(event, LocalContext(function_name="timers"))
    assert answer["batchItemFailures"] == []
    deadline = sample("timeout-turn-deadline.json")
    found = boto3.client("scheduler").get_schedule(
        Name=schedule_name(deadline["tournament"], deadline["table"], deadline["version"]),
        GroupName=stack.settings.schedule_group,
    )
    assert json.loads(found["Target"]["Input"]) == deadline


def test_the_queue_message_is_the_rules_delivery_of_a_table_finished() -> None:
    event = sample("progression-table-finished.json")
    (record,) = SQSEvent(event).records
    envelope = EventBridgeEvent(json.loads(record.body))
    rule = load_template()["Resources"]["TableFinishedRule"]["Properties"]["EventPattern"]
    assert matches(rule, envelope.raw_event)
    # what progression's record_handler reads, validated as it validates it
    finished = TableFinished.model_validate(json.loads(record.body)["detail"])
    assert finished.final and finished.placements[0].place == 1
    assert progression_app.processor.event_type.value == "SQS"
    # the same result the publisher makes of the finished table
    stream = sample("publisher-table-finished.json")["Records"][0]
    assert events_of(change_from_record(stream)) == [finished]


def test_the_deadline_is_parsed_and_times_the_turn_out(stack: LocalStack) -> None:
    deadline = sample("timeout-turn-deadline.json")
    parsed = parse(event=deadline, model=timeout_app.TurnDeadline)
    assert parsed.version == 5
    # the table as the timers' sample left it, still at the deadline's version
    table = sample("timers-table-changed.json")["Records"][0]["dynamodb"]["NewImage"]
    stack.dynamodb.put_item(TableName=stack.settings.table_name, Item=table)
    answer = timeout_app.lambda_handler(deadline, LocalContext(function_name="timeout"))
    assert answer == {"applied": True}
    answer = timeout_app.lambda_handler(deadline, LocalContext(function_name="timeout"))
    assert answer == {"applied": False}  # a late or repeated firing does nothing
