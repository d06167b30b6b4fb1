"""Replays what the service set aside: stream records a reader gave up on, dead letters.

**Stream failures.** A stream reader that gives up on a record (after 50 retries, see
template.yaml) does not send the record itself to `StreamFailuresQueue`, only a pointer
to it: Lambda's OnFailure invocation record. Its shape, as AWS documents it for
DynamoDB stream sources ("Example invocation record for DynamoDB stream" in the Lambda
developer guide; written here from that documentation, not from a captured message):

    {"requestContext": {"requestId": "...", "functionArn": "arn:aws:lambda:...:function:...",
                        "condition": "RetryAttemptsExhausted", "approximateInvokeCount": 51},
     "responseContext": {"statusCode": 200, "executedVersion": "$LATEST",
                         "functionError": "Unhandled"},
     "version": "1.0", "timestamp": "2019-11-14T00:13:49.717Z",
     "DDBStreamBatchInfo": {"shardId": "shardId-...", "startSequenceNumber": "8000...",
                            "endSequenceNumber": "8000...",
                            "approximateArrivalOfFirstRecord": "2019-11-14T00:13:19Z",
                            "approximateArrivalOfLastRecord": "2019-11-14T00:13:19Z",
                            "batchSize": 1,
                            "streamArn": "arn:aws:dynamodb:...:table/.../stream/..."}}

The records themselves stay in the stream for 24 hours. `redrive_stream_failures` reads
them again (AT_SEQUENCE_NUMBER up to the end sequence number), keeps those the function's
filters let through, builds the Lambda stream event and hands it to the function the
pointer names, through an `Invoker`: on AWS a synchronous `lambda.invoke`, locally the
handler in this process. A message is deleted only once its whole batch succeeded; a
batch whose records are gone from the stream is reported as lost (the tournaments it
touched need `knobelcup admin reconcile TOURNAMENT`).

**Dead letters.** `redrive_dead_letters` moves every message of a dead-letter queue back
to its source queue: receive, send to the source, delete. Every consumer is idempotent,
so a message sent twice (a crash between send and delete) does no harm.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from botocore.exceptions import ClientError

STREAM_RETENTION_HOURS = 24
LAMBDA_BATCH = 100  # the template's BatchSize for both stream readers
GET_RECORDS_LIMIT = 1000  # DynamoDB Streams' largest page
EMPTY_PAGES = 5  # an open shard may answer empty pages before the records asked for
RECEIVE_BATCH = 10
# Long enough for a batch to be replayed; a message that failed is made visible again
# at the end of the run, so that the next run can try it at once.
VISIBILITY_SECONDS = 300
# Errors with which DynamoDB Streams says the records are no longer there.
GONE = frozenset(
    {"TrimmedDataAccessException", "ResourceNotFoundException", "ExpiredIteratorException"}
)


class HandlerFailed(Exception):
    """The function failed on the replayed batch (died, or reported failed records)."""


class RecordsLost(Exception):
    """The pointer's records are no longer in the stream (past its 24 hours)."""


class StreamTarget(Protocol):
    """One stream reader, as its event source mapping hands it records."""

    def accepts(self, record: dict[str, Any]) -> bool:
        """Whether the mapping's filters let `record` through to the function."""
        ...

    def invoke(self, event: dict[str, Any]) -> Any:
        """Run the function on `event`; its answer. Raises if it died."""
        ...


class Invoker(Protocol):
    """Where the stream readers run: AWS Lambda, or this process."""

    def target(self, function_arn: str, stream_arn: str) -> StreamTarget:
        """The reader `function_arn` names, reading `stream_arn`."""
        ...


@dataclass(frozen=True)
class StreamPointer:
    """What a failure record says: which function gave up on which records."""

    function_arn: str
    stream_arn: str
    shard_id: str
    start: str  # sequence numbers, decimal strings
    end: str
    batch_size: int
    first_arrival: str = ""  # ISO time of the first record, as Lambda wrote it
    condition: str = ""

    @classmethod
    def from_body(cls, body: str) -> StreamPointer:
        """The pointer in a `StreamFailuresQueue` message body."""
        record = json.loads(body)
        batch = record["DDBStreamBatchInfo"]
        return cls(
            function_arn=record["requestContext"]["functionArn"],
            stream_arn=batch["streamArn"],
            shard_id=batch["shardId"],
            start=str(batch["startSequenceNumber"]),
            end=str(batch["endSequenceNumber"]),
            batch_size=int(batch.get("batchSize", 0)),
            first_arrival=batch.get("approximateArrivalOfFirstRecord", ""),
            condition=record["requestContext"].get("condition", ""),
        )

    def describe(self) -> str:
        """One line for the operator."""
        function = self.function_arn.rsplit(":", 1)[-1]
        return (
            f"{function}: {self.batch_size} record(s) {self.start}..{self.end} of "
            f"{self.shard_id}, first written {self.first_arrival or 'at an unknown time'}"
        )


@dataclass
class Outcome:
    """What one redrive of one queue did."""

    queue: str
    redriven: int = 0
    failed: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """Everything went back; nothing failed or was lost."""
        return not self.failed and not self.lost

    def report(self) -> list[str]:
        """Lines for the operator: the counts, then every failure and loss."""
        lines = [
            f"{self.queue}: {self.redriven} redriven, {len(self.failed)} failed, "
            f"{len(self.lost)} lost"
        ]
        lines += [f"  failed: {line}" for line in self.failed]
        lines += [f"  lost: {line}" for line in self.lost]
        if self.lost:
            lines.append(
                "  the records are past the stream's 24 hours: run "
                "`knobelcup admin reconcile TOURNAMENT` for every tournament that stopped "
                "moving, then `knobelcup admin redrive --queue stream-failures --drop-lost`"
            )
        return lines


def redrive_stream_failures(
    sqs: Any,
    queue_url: str,
    streams: Any,
    invoker: Invoker,
    *,
    drop_lost: bool = False,
    wait_seconds: int = 1,
) -> Outcome:
    """Replay the batch of every pointer in `queue_url`; delete each pointer whose batch
    the function took. Pointers to lost records stay, unless `drop_lost`."""
    outcome = Outcome("stream-failures")
    kept: list[str] = []
    for message in _messages(sqs, queue_url, wait_seconds):
        try:
            pointer = StreamPointer.from_body(message["Body"])
        except (ValueError, KeyError, TypeError) as error:
            outcome.failed.append(f"message {message['MessageId']} is no failure record: {error!r}")
            kept.append(message["ReceiptHandle"])
            continue
        try:
            redrive_batch(streams, invoker, pointer)
        except RecordsLost as lost:
            outcome.lost.append(f"{pointer.describe()} ({lost})")
            if not drop_lost:
                kept.append(message["ReceiptHandle"])
                continue
        except Exception as error:  # the function failed: the pointer stays for another try
            outcome.failed.append(f"{pointer.describe()}: {error}")
            kept.append(message["ReceiptHandle"])
            continue
        else:
            outcome.redriven += 1
        sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
    _visible_again(sqs, queue_url, kept)
    return outcome


def redrive_batch(streams: Any, invoker: Invoker, pointer: StreamPointer) -> int:
    """Hand the pointer's records to its function again; how many it got.

    `RecordsLost` if the stream no longer has them, `HandlerFailed` if the function
    failed on them."""
    records = read_records(streams, pointer)
    target = invoker.target(pointer.function_arn, pointer.stream_arn)
    passed = [record for record in records if target.accepts(record)]
    for start in range(0, len(passed), LAMBDA_BATCH):
        answer = target.invoke({"Records": passed[start : start + LAMBDA_BATCH]})
        failures = (answer or {}).get("batchItemFailures", []) if isinstance(answer, dict) else []
        if failures:
            raise HandlerFailed(
                f"the function reported {len(failures)} failed record(s), the first "
                f"{failures[0].get('itemIdentifier')}"
            )
    return len(passed)


def read_records(streams: Any, pointer: StreamPointer) -> list[dict[str, Any]]:
    """The stream records from the pointer's start to its end, as Lambda hands them over."""
    try:
        iterator: str | None = streams.get_shard_iterator(
            StreamArn=pointer.stream_arn,
            ShardId=pointer.shard_id,
            ShardIteratorType="AT_SEQUENCE_NUMBER",
            SequenceNumber=pointer.start,
        )["ShardIterator"]
        records = list(_until_end(streams, iterator, int(pointer.end)))
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code", "")
        if code in GONE:
            raise RecordsLost(f"the stream says {code}") from error
        raise
    if not records or records[0]["dynamodb"]["SequenceNumber"] != pointer.start:
        raise RecordsLost("the first record is no longer in the stream")
    region = pointer.stream_arn.split(":")[3]
    return [_lambda_record(record, pointer.stream_arn, region) for record in records]


def _until_end(streams: Any, iterator: str | None, end: int) -> Iterator[dict[str, Any]]:
    empty = 0
    while iterator is not None and empty < EMPTY_PAGES:
        page = streams.get_records(ShardIterator=iterator, Limit=GET_RECORDS_LIMIT)
        iterator = page.get("NextShardIterator")  # none once a closed shard is read
        empty = 0 if page["Records"] else empty + 1
        for record in page["Records"]:
            if int(record["dynamodb"]["SequenceNumber"]) > end:
                return
            yield record
            if int(record["dynamodb"]["SequenceNumber"]) == end:
                return


def _lambda_record(record: dict[str, Any], stream_arn: str, region: str) -> dict[str, Any]:
    """A DynamoDB Streams record as Lambda puts it in an event: the source ARN added,
    times in epoch seconds, binary values in base64."""
    stream = dict(record["dynamodb"])
    created = stream.get("ApproximateCreationDateTime")
    if isinstance(created, datetime):
        stream["ApproximateCreationDateTime"] = created.timestamp()
    converted: dict[str, Any] = _base64_binaries(
        {**record, "dynamodb": stream, "eventSourceARN": stream_arn}
    )
    converted.setdefault("awsRegion", region)
    return converted


def _base64_binaries(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {key: _base64_binaries(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_base64_binaries(item) for item in value]
    return value


def redrive_dead_letters(
    sqs: Any, dead_letter_url: str, source_url: str, name: str, *, wait_seconds: int = 1
) -> Outcome:
    """Move every message of `dead_letter_url` back to `source_url`."""
    outcome = Outcome(name)
    for message in _messages(sqs, dead_letter_url, wait_seconds):
        sent: dict[str, Any] = {"QueueUrl": source_url, "MessageBody": message["Body"]}
        if message.get("MessageAttributes"):
            sent["MessageAttributes"] = message["MessageAttributes"]
        sqs.send_message(**sent)
        sqs.delete_message(QueueUrl=dead_letter_url, ReceiptHandle=message["ReceiptHandle"])
        outcome.redriven += 1
    return outcome


def _messages(sqs: Any, queue_url: str, wait_seconds: int) -> Iterator[dict[str, Any]]:
    """Every message in the queue once: each stays invisible for the rest of the run."""
    while True:
        messages = sqs.receive_message(
            QueueUrl=queue_url,
            MaxNumberOfMessages=RECEIVE_BATCH,
            VisibilityTimeout=VISIBILITY_SECONDS,
            WaitTimeSeconds=wait_seconds,
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        if not messages:
            return
        yield from messages


def _visible_again(sqs: Any, queue_url: str, receipts: list[str]) -> None:
    for receipt in receipts:
        sqs.change_message_visibility(
            QueueUrl=queue_url, ReceiptHandle=receipt, VisibilityTimeout=0
        )
