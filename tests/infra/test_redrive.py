"""The redrive on moto: a stream reader's failure pointer replays its records through the
function it names, and is deleted only once that function took them; dead letters go back
to their source queue.

The pointers are built as Lambda's OnFailure destination writes them for a DynamoDB
stream source (see infra/outbox/redrive.py for the documented shape this follows).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from suite_dice import suite_seed

from cli import admin
from cli.main import build_parser
from core.match import Seating
from infra.dice import PlaceSeededDice
from infra.outbox.lambda_invoker import LambdaInvoker
from infra.outbox.redrive import (
    HandlerFailed,
    StreamPointer,
    redrive_dead_letters,
    redrive_stream_failures,
)
from infra.store.table_item import TableRecord, to_item
from local.event_filters import passes
from local.redrive import (
    InProcessInvoker,
    local_function_arn,
    local_settings,
    logical_id_in,
    stream_reader_handlers,
)
from local.stack import LocalStack, start_local_stack, stop_local_stack

PREFIX = "kc"
T = "t-redrive"
NOW = 1_800_000_000.0


@pytest.fixture
def stack(aws_env: None) -> Iterator[LocalStack]:
    """A local stack whose deliveries never run: nothing reads the stream but the redrive."""
    with mock_aws():
        yield start_local_stack(
            PREFIX, dice=PlaceSeededDice(suite_seed("redrive")), clock=lambda: NOW
        )
        stop_local_stack()


def _url(stack: LocalStack, logical_id: str) -> str:
    return str(stack.sqs.get_queue_url(QueueName=f"{PREFIX}-{logical_id}")["QueueUrl"])


def _seat_table(stack: LocalStack, ref: str) -> None:
    record = TableRecord(
        tournament=T,
        ref=ref,
        seating=Seating("maexchen", ("p-ann", "p-ben", "p-cem"), {}, 1),
        token_hashes=("h1", "h2", "h3"),
        expires_at=1_900_000_000,
    )
    stack.dynamodb.put_item(TableName=stack.settings.table_name, Item=to_item(record))


def _register(stack: LocalStack, player: str) -> None:
    """An item the stream carries but neither reader's filters let through."""
    stack.dynamodb.put_item(
        TableName=stack.settings.table_name,
        Item={"pk": {"S": f"T#{T}"}, "sk": {"S": f"P#{player}"}, "kind": {"S": "player"}},
    )


def _stream(stack: LocalStack) -> tuple[str, str, list[dict[str, Any]]]:
    """The stream's ARN, its shard and every record in it."""
    streams = boto3.client("dynamodbstreams")
    arn = stack.dynamodb.describe_table(TableName=stack.settings.table_name)["Table"][
        "LatestStreamArn"
    ]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    return arn, shard, streams.get_records(ShardIterator=iterator)["Records"]


def _give_up(
    stack: LocalStack, function: str, first: int = 0, last: int | None = None
) -> dict[str, Any]:
    """Lambda's OnFailure record for records `first..last` of the stream, sent by the
    reader `function` (a template logical id) to StreamFailuresQueue, as Lambda does."""
    arn, shard, records = _stream(stack)
    batch = records[first : (last + 1 if last is not None else None)]
    arrival = datetime.fromtimestamp(NOW, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    pointer = {
        "requestContext": {
            "requestId": "316aa6d0-8154-4b0f-9af7-85d5f4a6bc81",
            "functionArn": local_function_arn(PREFIX, function),
            "condition": "RetryAttemptsExhausted",
            "approximateInvokeCount": 51,
        },
        "responseContext": {
            "statusCode": 200,
            "executedVersion": "$LATEST",
            "functionError": "Unhandled",
        },
        "version": "1.0",
        "timestamp": "2027-01-15T08:00:31.717Z",
        "DDBStreamBatchInfo": {
            "shardId": shard,
            "startSequenceNumber": batch[0]["dynamodb"]["SequenceNumber"],
            "endSequenceNumber": batch[-1]["dynamodb"]["SequenceNumber"],
            "approximateArrivalOfFirstRecord": arrival,
            "approximateArrivalOfLastRecord": arrival,
            "batchSize": len(batch),
            "streamArn": arn,
        },
    }
    stack.sqs.send_message(
        QueueUrl=_url(stack, "StreamFailuresQueue"), MessageBody=json.dumps(pointer)
    )
    return pointer


def _waiting(stack: LocalStack, logical_id: str) -> int:
    """Messages in a queue, visible or not."""
    attributes = stack.sqs.get_queue_attributes(
        QueueUrl=_url(stack, logical_id),
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]) + int(
        attributes["ApproximateNumberOfMessagesNotVisible"]
    )


def _visible(stack: LocalStack, logical_id: str) -> int:
    attributes = stack.sqs.get_queue_attributes(
        QueueUrl=_url(stack, logical_id), AttributeNames=["ApproximateNumberOfMessages"]
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"])


def _redrive(stack: LocalStack, invoker: Any = None, **kwargs: Any) -> Any:
    return redrive_stream_failures(
        stack.sqs,
        _url(stack, "StreamFailuresQueue"),
        boto3.client("dynamodbstreams"),
        invoker or InProcessInvoker(stream_reader_handlers()),
        wait_seconds=0,
        **kwargs,
    )


class Recorder:
    """A stream handler that keeps the records it is handed and answers `answer`."""

    def __init__(self, answer: Any = None, dies: bool = False) -> None:
        self.events: list[dict[str, Any]] = []
        self.answer = answer
        self.dies = dies

    def __call__(self, event: dict[str, Any], context: Any) -> Any:
        self.events.append(event)
        if self.dies:
            raise RuntimeError("the function died")
        return self.answer or {"batchItemFailures": []}


# --- stream failures ---------------------------------------------------------------------


def test_the_publishers_pointer_puts_the_event_on_the_bus_and_is_deleted(
    stack: LocalStack,
) -> None:
    _seat_table(stack, "R1-1")
    _give_up(stack, "PublisherFunction")

    outcome = _redrive(stack)

    assert (outcome.redriven, outcome.failed, outcome.lost) == (1, [], [])
    published = [event["detail"]["event_id"] for event in stack.observed()]
    assert published == [f"TableSeated:{T}:R1-1"]
    assert _waiting(stack, "StreamFailuresQueue") == 0


def test_the_timers_pointer_reaches_the_timer_handler_not_the_publisher(
    stack: LocalStack,
) -> None:
    _seat_table(stack, "R1-2")
    _give_up(stack, "TimerFunction")

    outcome = _redrive(stack)

    assert outcome.redriven == 1
    scheduler = boto3.client("scheduler")
    schedules = scheduler.list_schedules(GroupName=stack.settings.schedule_group)["Schedules"]
    assert len(schedules) == 1  # the seated table's first turn has its deadline
    assert stack.observed() == []  # the publisher was not invoked
    assert _waiting(stack, "StreamFailuresQueue") == 0


def test_only_the_pointers_records_that_pass_the_functions_filters_are_handed_over(
    stack: LocalStack,
) -> None:
    _register(stack, "p-ann")  # before the batch
    _seat_table(stack, "R1-3")  # the batch: a table, a player, a table
    _register(stack, "p-ben")
    _seat_table(stack, "R1-4")
    _seat_table(stack, "R1-5")  # after the batch
    pointer = _give_up(stack, "TimerFunction", first=1, last=3)
    timers = Recorder()

    outcome = _redrive(stack, InProcessInvoker({"TimerFunction": timers}))

    assert outcome.redriven == 1
    [event] = timers.events
    refs = [r["dynamodb"]["NewImage"]["ref"]["S"] for r in event["Records"]]
    assert refs == ["R1-3", "R1-4"]  # the player is filtered out, R1-5 is past the end
    first = event["Records"][0]
    batch = pointer["DDBStreamBatchInfo"]
    assert first["dynamodb"]["SequenceNumber"] == batch["startSequenceNumber"]
    assert first["eventSourceARN"] == batch["streamArn"]  # as Lambda hands records over
    assert isinstance(first["dynamodb"]["ApproximateCreationDateTime"], float)


@pytest.mark.parametrize(
    "handler",
    [Recorder(dies=True), Recorder({"batchItemFailures": [{"itemIdentifier": "x"}]})],
    ids=["dies", "reports a failed record"],
)
def test_a_pointer_stays_when_the_function_fails_again(
    stack: LocalStack, handler: Recorder
) -> None:
    _seat_table(stack, "R1-6")
    _give_up(stack, "PublisherFunction")

    outcome = _redrive(stack, InProcessInvoker({"PublisherFunction": handler}))

    assert outcome.redriven == 0 and len(outcome.failed) == 1 and not outcome.clean
    assert len(handler.events) == 1
    assert _visible(stack, "StreamFailuresQueue") == 1  # at once ready for the next try

    assert _redrive(stack).redriven == 1  # the real handler takes it
    assert _waiting(stack, "StreamFailuresQueue") == 0


class TrimmedStream:
    """DynamoDB Streams past its 24 hours: the records asked for are gone (moto never
    trims a stream, so this answers as DynamoDB Streams does)."""

    def get_shard_iterator(self, **kwargs: Any) -> Any:
        raise ClientError(
            {"Error": {"Code": "TrimmedDataAccessException", "Message": "trimmed"}},
            "GetShardIterator",
        )


def test_records_past_the_streams_retention_are_reported_lost_and_kept_until_dropped(
    stack: LocalStack,
) -> None:
    _seat_table(stack, "R1-7")
    _give_up(stack, "PublisherFunction")
    invoker = InProcessInvoker({"PublisherFunction": Recorder()})
    queue = _url(stack, "StreamFailuresQueue")

    kept = redrive_stream_failures(stack.sqs, queue, TrimmedStream(), invoker, wait_seconds=0)

    assert (kept.redriven, len(kept.lost)) == (0, 1)
    assert "TrimmedDataAccessException" in kept.lost[0]
    assert any("knobelcup admin reconcile TOURNAMENT" in line for line in kept.report())
    assert _visible(stack, "StreamFailuresQueue") == 1

    dropped = redrive_stream_failures(
        stack.sqs, queue, TrimmedStream(), invoker, drop_lost=True, wait_seconds=0
    )
    assert len(dropped.lost) == 1
    assert _waiting(stack, "StreamFailuresQueue") == 0


def test_a_message_that_is_no_failure_record_stays(stack: LocalStack) -> None:
    stack.sqs.send_message(QueueUrl=_url(stack, "StreamFailuresQueue"), MessageBody="{}")
    outcome = _redrive(stack)
    assert len(outcome.failed) == 1
    assert _visible(stack, "StreamFailuresQueue") == 1


# --- dead letters ------------------------------------------------------------------------


def test_a_progression_dead_letter_goes_back_to_the_progression_queue(
    stack: LocalStack,
) -> None:
    body = json.dumps({"detail-type": "TableFinished", "detail": {"table": "R1-1"}})
    stack.sqs.send_message(QueueUrl=_url(stack, "ProgressionDeadLetterQueue"), MessageBody=body)

    outcome = redrive_dead_letters(
        stack.sqs,
        _url(stack, "ProgressionDeadLetterQueue"),
        _url(stack, "ProgressionQueue"),
        "progression",
        wait_seconds=0,
    )

    assert outcome.redriven == 1 and outcome.clean
    assert _waiting(stack, "ProgressionDeadLetterQueue") == 0
    [message] = stack.sqs.receive_message(QueueUrl=_url(stack, "ProgressionQueue"))["Messages"]
    assert message["Body"] == body


# --- the command -------------------------------------------------------------------------


def test_admin_redrive_empties_every_queue_and_says_so(
    stack: LocalStack, capsys: pytest.CaptureFixture[str]
) -> None:
    _seat_table(stack, "R1-8")
    _give_up(stack, "PublisherFunction")
    stack.sqs.send_message(QueueUrl=_url(stack, "ProgressionDeadLetterQueue"), MessageBody="{}")
    queues = ["StreamFailuresQueue", "ProgressionDeadLetterQueue", "ProgressionQueue"]
    deployment = admin.Deployment(
        boto3.client,
        {queue: _url(stack, queue) for queue in queues},
        InProcessInvoker(stream_reader_handlers()),
        wait_seconds=0,
    )
    args = build_parser().parse_args(["admin", "redrive"])

    assert (args.queue, args.stack, args.local) == ("all", "knobelcup", None)
    assert admin.redrive(args, deployment) == 0
    said = capsys.readouterr().out.splitlines()
    assert [line for line in said if not line.startswith("{")] == [  # not the handler's logs
        "stream-failures: 1 redriven, 0 failed, 0 lost",
        "progression: 1 redriven, 0 failed, 0 lost",
    ]
    assert _waiting(stack, "StreamFailuresQueue") == 0
    assert _waiting(stack, "ProgressionDeadLetterQueue") == 0


def test_the_admin_command_takes_a_queue_and_a_local_service() -> None:
    args = build_parser().parse_args(
        ["admin", "redrive", "--queue", "progression", "--local", "http://127.0.0.1:5000"]
    )
    assert (args.verb, args.queue, args.local) == (
        "redrive",
        "progression",
        "http://127.0.0.1:5000",
    )
    with pytest.raises(SystemExit):
        build_parser().parse_args(["admin", "redrive", "--queue", "everything"])


def test_the_local_wiring_names_what_the_local_stack_made(stack: LocalStack) -> None:
    assert local_settings(PREFIX) == stack.settings


# --- on AWS: lambda.invoke -----------------------------------------------------------------


class FakeLambda:
    """Lambda's invoke and event source mappings, as boto3 answers them."""

    def __init__(self, answer: bytes, error: str | None = None) -> None:
        self.answer, self.error = answer, error
        self.invoked: list[dict[str, Any]] = []

    def list_event_source_mappings(self, **kwargs: Any) -> dict[str, Any]:
        pattern = json.dumps({"dynamodb": {"NewImage": {"kind": {"S": ["table"]}}}})
        return {"EventSourceMappings": [{"FilterCriteria": {"Filters": [{"Pattern": pattern}]}}]}

    def invoke(self, **kwargs: Any) -> dict[str, Any]:
        self.invoked.append(kwargs)

        class Payload:
            @staticmethod
            def read() -> bytes:
                return self.answer

        return {
            "StatusCode": 200,
            "Payload": Payload(),
            **({"FunctionError": self.error} if self.error else {}),
        }


ARN = "arn:aws:lambda:eu-central-1:111122223333:function:knobelcup-TimerFunction-AbC123"
TABLE = {"dynamodb": {"NewImage": {"kind": {"S": "table"}}}}


def test_on_aws_the_function_is_invoked_synchronously_behind_its_mappings_filters() -> None:
    client = FakeLambda(b'{"batchItemFailures": []}')
    target = LambdaInvoker(client, passes).target(ARN, "arn:aws:dynamodb:...:stream/x")

    assert target.accepts(TABLE)
    assert not target.accepts({"dynamodb": {"NewImage": {"kind": {"S": "player"}}}})
    assert target.invoke({"Records": [TABLE]}) == {"batchItemFailures": []}
    [call] = client.invoked
    assert call["FunctionName"] == ARN
    assert call["InvocationType"] == "RequestResponse"
    assert json.loads(call["Payload"]) == {"Records": [TABLE]}

    failing = LambdaInvoker(FakeLambda(b'{"errorMessage": "boom"}', "Unhandled"), passes)
    with pytest.raises(HandlerFailed, match="boom"):
        failing.target(ARN, "stream").invoke({"Records": [TABLE]})


def test_a_pointer_names_its_reader_by_the_logical_id_in_the_function_name() -> None:
    readers = ["PublisherFunction", "TimerFunction"]
    assert logical_id_in(ARN, readers) == "TimerFunction"
    assert logical_id_in(local_function_arn("kc", "PublisherFunction"), readers) == (
        "PublisherFunction"
    )
    with pytest.raises(ValueError):
        logical_id_in("arn:aws:lambda:eu-central-1:1:function:other", readers)
    pointer = StreamPointer.from_body(
        json.dumps(
            {
                "requestContext": {"functionArn": ARN},
                "DDBStreamBatchInfo": {
                    "shardId": "s",
                    "startSequenceNumber": "1",
                    "endSequenceNumber": "2",
                    "batchSize": 2,
                    "streamArn": "a",
                },
            }
        )
    )
    assert (pointer.function_arn, pointer.start, pointer.end) == (ARN, "1", "2")
