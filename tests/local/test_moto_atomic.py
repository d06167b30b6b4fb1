"""The local moto server's shortcuts keep DynamoDB's semantics: a cancelled transaction
changes no item and leaves no stream record; reads answer as moto's serializer would; a
Query reads its partition as DynamoDB does."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws
from moto.sqs.models import Message, sqs_backends

from local.fake_aws import fake_aws
from local.moto_atomic import (
    _EVERY_QUEUE_ATTRIBUTE,
    _SHORTCUT_PLACES,
    _QueueAttributes,
    faster,
    moto_server,
    stop_process,
)
from local.provision import create_tables

TABLE = "atomic"


@pytest.fixture(scope="module")
def clients() -> Iterator[tuple[Any, Any, str]]:
    with moto_server() as url, fake_aws(url):
        dynamodb = boto3.client("dynamodb")
        create_tables(dynamodb, names={"KnobelcupTable": TABLE})
        streams = boto3.client("dynamodbstreams")
        arn = dynamodb.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
        yield dynamodb, streams, arn


def _key(name: str) -> dict[str, Any]:
    return {"pk": {"S": name}, "sk": {"S": "item"}}


def _stream(streams: Any, arn: str) -> list[dict[str, Any]]:
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    records: list[dict[str, Any]] = streams.get_records(ShardIterator=iterator)["Records"]
    return records


def test_a_cancelled_transaction_changes_nothing_and_streams_nothing(
    clients: tuple[Any, Any, str],
) -> None:
    dynamodb, streams, arn = clients
    dynamodb.put_item(TableName=TABLE, Item={**_key("counter"), "n": {"N": "1"}})
    dynamodb.put_item(TableName=TABLE, Item={**_key("taken"), "n": {"N": "0"}})
    before = _stream(streams, arn)

    with pytest.raises(dynamodb.exceptions.TransactionCanceledException) as cancelled:
        dynamodb.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": TABLE,
                        "Key": _key("counter"),
                        "UpdateExpression": "ADD n :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}},
                    }
                },
                {"Put": {"TableName": TABLE, "Item": {**_key("new"), "n": {"N": "5"}}}},
                {
                    "Put": {
                        "TableName": TABLE,
                        "Item": _key("taken"),
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
            ]
        )
    reasons = [r["Code"] for r in cancelled.value.response["CancellationReasons"]]
    assert reasons == ["None", "None", "ConditionalCheckFailed"]

    counter = dynamodb.get_item(TableName=TABLE, Key=_key("counter"), ConsistentRead=True)
    assert counter["Item"]["n"] == {"N": "1"}
    assert "Item" not in dynamodb.get_item(TableName=TABLE, Key=_key("new"))
    assert dynamodb.get_item(TableName=TABLE, Key=_key("taken"))["Item"]["n"] == {"N": "0"}
    assert len(_stream(streams, arn)) == len(before)


def test_a_transaction_that_succeeds_applies_and_streams_every_item(
    clients: tuple[Any, Any, str],
) -> None:
    dynamodb, streams, arn = clients
    before = len(_stream(streams, arn))
    dynamodb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": TABLE, "Item": {**_key("a"), "n": {"N": "1"}}}},
            {"Put": {"TableName": TABLE, "Item": {**_key("b"), "n": {"N": "2"}}}},
        ]
    )
    after = _stream(streams, arn)
    assert len(after) == before + 2
    newest = after[-1]["dynamodb"]
    assert newest["NewImage"] == {**_key("b"), "n": {"N": "2"}}
    assert isinstance(newest["ApproximateCreationDateTime"].timestamp(), float)
    items = dynamodb.query(
        TableName=TABLE,
        KeyConditionExpression="pk = :a",
        ExpressionAttributeValues={":a": {"S": "a"}},
    )["Items"]
    assert items == [{**_key("a"), "n": {"N": "1"}}]


def _all_pages(dynamodb: Any, **query: Any) -> list[list[str]]:
    pages: list[list[str]] = []
    while True:
        page = dynamodb.query(TableName=TABLE, **query)
        pages.append([item["sk"]["S"] for item in page["Items"]])
        if "LastEvaluatedKey" not in page:
            return pages
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def test_a_query_reads_its_partition_in_order_with_limits_and_conditions(
    clients: tuple[Any, Any, str],
) -> None:
    dynamodb = clients[0]
    sort_keys = [f"S#{n:03d}" for n in range(12)]
    for pk in ("q", "q2", "p"):  # neighbours of "q" in moto's sorted whole-table walk
        for sk in reversed(sort_keys):
            item = {"pk": {"S": pk}, "sk": {"S": sk}, "odd": {"BOOL": sk[-1] in "13579"}}
            dynamodb.put_item(TableName=TABLE, Item=item)
    partition = {":pk": {"S": "q"}}

    assert _all_pages(
        dynamodb, KeyConditionExpression="pk = :pk", ExpressionAttributeValues=partition, Limit=5
    ) == [sort_keys[0:5], sort_keys[5:10], sort_keys[10:12]]
    assert _all_pages(
        dynamodb,
        KeyConditionExpression="pk = :pk AND sk <= :to",
        ExpressionAttributeValues={**partition, ":to": {"S": "S#007"}},
        ScanIndexForward=False,
        Limit=3,
    ) == [["S#007", "S#006", "S#005"], ["S#004", "S#003", "S#002"], ["S#001", "S#000"]]
    assert _all_pages(
        dynamodb,
        KeyConditionExpression="pk = :pk AND sk BETWEEN :from AND :to",
        FilterExpression="odd = :yes",
        ExpressionAttributeValues={
            **partition,
            ":from": {"S": "S#002"},
            ":to": {"S": "S#009"},
            ":yes": {"BOOL": True},
        },
    ) == [["S#003", "S#005", "S#007", "S#009"]]
    assert _all_pages(
        dynamodb,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": "none"}},
    ) == [[]]


def test_a_server_that_does_not_go_when_terminated_is_killed() -> None:
    stubborn = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, sys, time\n"
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "print('ready', flush=True)\n"
            "time.sleep(120)",
        ],
        stdout=subprocess.PIPE,
    )
    assert stubborn.stdout is not None and stubborn.stdout.readline() == b"ready\n"
    assert stop_process(stubborn, grace=0.5) == -signal.SIGKILL
    assert stubborn.poll() == -signal.SIGKILL


def test_queue_attributes_are_moto_s_own_but_each_read_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)  # in this process, not the server
    with mock_aws():
        sqs = boto3.client("sqs", region_name="eu-central-1")
        dead = sqs.create_queue(QueueName="dead")["QueueUrl"]
        dead_arn = sqs.get_queue_attributes(QueueUrl=dead, AttributeNames=["QueueArn"])
        redrive = {"deadLetterTargetArn": dead_arn["Attributes"]["QueueArn"], "maxReceiveCount": 3}
        work = sqs.create_queue(
            QueueName="work", Attributes={"RedrivePolicy": json.dumps(redrive)}
        )["QueueUrl"]
        sqs.create_queue(
            QueueName="ordered.fifo",
            Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"},
        )
        for body in ("a", "b", "c"):
            sqs.send_message(QueueUrl=work, MessageBody=body)
        sqs.receive_message(QueueUrl=work, MaxNumberOfMessages=1)  # one in flight
        queues = {
            queue.name: queue
            for regions in sqs_backends.values()
            for backend in regions.values()
            for queue in backend.queues.values()
        }
        assert queues.keys() == {"dead", "work", "ordered.fifo"}
        for queue in queues.values():
            assert dict(_QueueAttributes(queue)) == _EVERY_QUEUE_ATTRIBUTE.fget(queue)

        walked: list[Message] = []
        visible = Message.visible
        monkeypatch.setattr(
            Message, "visible", property(lambda m: walked.append(m) or visible.fget(m))
        )
        attributes = _QueueAttributes(queues["work"])
        assert attributes.get("ContentBasedDeduplication") is None and not walked
        assert attributes["ApproximateNumberOfMessages"] == 2 and walked  # counted when asked


def test_the_shortcuts_of_a_block_are_gone_after_it() -> None:
    # a test on `faster` must leave moto's own code to the tests after it in its process
    own = {(owner, name): vars(owner)[name] for owner, name in _SHORTCUT_PLACES}
    with faster():
        assert all(vars(owner)[name] is not code for (owner, name), code in own.items())
    assert all(vars(owner)[name] is code for (owner, name), code in own.items())
