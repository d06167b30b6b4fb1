"""What AWS delivers, delivered off AWS: stream records, queue messages, due schedules.

moto keeps streams, queues and schedules but never invokes a function (see the
developers' notes on moto), so this module plays Lambda's part: it reads the table's
stream and hands batches to the stream handlers, polls the queue for the progression
handler, fires due schedules at the timeout handler, and runs the deadline sweeper on
its `rate(1 minute)`. It follows Lambda's rules:
a stream batch that reports a failure is retried from the failed record, a queue
message that fails becomes visible again, after `MAX_RECEIVES` it goes to the dead
letters, and a handler that dies (an exception escaping it) fails its whole batch.

`Deliveries` can make it misbehave the way AWS may: deliver a queue message twice,
or hold one back and deliver it late, after others sent after it. It can also lose work
for good, as only a failure past every retry does on AWS: a queue message deleted
without reaching the function, a deadline whose invocation dies on every try.
"""

from __future__ import annotations

import json
import os
import random
import threading
from collections.abc import Callable, Collection
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from random import Random  # the class: the field `random` hides the module there
from typing import Any

from botocore.exceptions import ClientError

from local.event_filters import passes
from local.lambda_events import LocalContext
from local.operations import COUNTER, FUNCTIONS

Handler = Callable[[dict[str, Any], Any], Any]
MAX_RECEIVES = 10  # the template's maxReceiveCount
# records a stream batch and messages a queue batch hold at most (the template's
# BatchSize); the capacity calibration sets 1: each table change and each event alone,
# as people's pace gives on AWS, so the counts do not depend on how busy the host is
STREAM_BATCH = int(os.environ.get("KNOBELCUP_LOCAL_STREAM_BATCH", "100"))
GET_RECORDS_LIMIT = 1000  # DynamoDB Streams' largest page
QUEUE_BATCH = int(os.environ.get("KNOBELCUP_LOCAL_QUEUE_BATCH", "10"))
_REGION = "eu-central-1"


@dataclass
class Deliveries:
    """How badly queue deliveries behave (all off by default)."""

    seed: int | str = 0
    duplicate: float = 0.0  # chance a message is delivered once more, later
    hold_back: float = 0.0  # chance a message waits for a later poll (reordered, late)
    # receives before a message goes to the dead letters; tests that crash functions
    # far more often than production ever does raise it
    max_receives: int = MAX_RECEIVES
    # chance a message of a `droppable` detail-type is deleted unread: lost for good, as
    # a stream record given up past the stream's 24 hours or a dead letter never redriven
    drop: float = 0.0
    droppable: tuple[str, ...] = ("TableFinished",)
    # chance a due schedule fires but its invocation is lost: the timeout handler never
    # runs (it died on Lambda's every try), and the schedule is gone
    lose_deadline: float = 0.0
    random: random.Random = field(init=False)
    # each loss draws from a stream of its own, so that where one strikes does not
    # depend on the other, or on the misbehaviours above
    drops: Random = field(init=False)
    deadline_losses: Random = field(init=False)

    def __post_init__(self) -> None:
        self.random = random.Random(self.seed)
        self.drops = Random(f"{self.seed}/drops")
        self.deadline_losses = Random(f"{self.seed}/deadlines")


def _invoke(handler: Handler, event: dict[str, Any], context: Any) -> tuple[bool, Any]:
    """Call `handler` as Lambda would: (True, None) if the function died, whatever the
    exception (a crash, a timeout, an error past the batch processor), else (False, its
    answer). Only Ctrl-C gets through."""
    if isinstance(context, LocalContext):
        context.begin()
        name = context.function_name
        COUNTER.count(f"lambda:{FUNCTIONS.get(name, name)}")
    try:
        return False, handler(event, context)
    except KeyboardInterrupt:
        raise
    except BaseException:  # any death of the function is a failed invocation
        return True, None


class StreamTap:
    """Reads the table's stream once for all its readers, as each mapping would on AWS
    (moto's GetRecords is slow: reading it once per reader would double the cost)."""

    def __init__(self, streams: Any, stream_arn: str, at_sequence: int | None = None) -> None:
        self._streams = streams
        self.arn = stream_arn
        shard = streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"][0]
        start = {"ShardIteratorType": "TRIM_HORIZON"}  # else from a runner's checkpoint:
        if at_sequence is not None:
            start = {"ShardIteratorType": "AT_SEQUENCE_NUMBER", "SequenceNumber": str(at_sequence)}
        self._iterator = streams.get_shard_iterator(
            StreamArn=stream_arn, ShardId=shard["ShardId"], **start
        )["ShardIterator"]
        self._readers: list[StreamReader] = []
        self.next_sequence = at_sequence  # of the first record not fetched yet, once known
        # readers may deliver on threads of their own (`local.service`): one fetches at a time
        self.lock = threading.Lock()

    def reader(
        self, handler: Handler, name: str, filters: list[dict[str, Any]] | None = None
    ) -> StreamReader:
        """A new event source mapping on this stream, passing only records that match one
        of `filters` (all records when there are none), as Lambda's filtering does."""
        reader = StreamReader(self, handler, name, filters or [])
        self._readers.append(reader)
        return reader

    def fetch(self) -> None:
        """Give every reader the records written since the last fetch."""
        with self.lock:
            self._fetch()

    def _fetch(self) -> None:
        while True:
            page = self._streams.get_records(ShardIterator=self._iterator, Limit=GET_RECORDS_LIMIT)
            self._iterator = page["NextShardIterator"]
            records = [_lambda_record(r, self.arn) for r in page["Records"]]
            if records:
                self.next_sequence = int(records[-1]["dynamodb"]["SequenceNumber"]) + 1
            for reader in self._readers:
                reader.pending.extend(r for r in records if passes(reader.filters, r))
            if len(records) < GET_RECORDS_LIMIT:  # the end of the shard, for now
                return


def _lambda_record(record: dict[str, Any], arn: str) -> dict[str, Any]:
    """moto's record as Lambda hands it over: source ARN, epoch-second times."""
    stream = dict(record["dynamodb"])
    created = stream.get("ApproximateCreationDateTime")
    if isinstance(created, datetime):
        stream["ApproximateCreationDateTime"] = created.timestamp()
    return {**record, "awsRegion": _REGION, "eventSourceARN": arn, "dynamodb": stream}


class StreamReader:
    """One event source mapping on the table's stream: its own position and retries."""

    def __init__(
        self, tap: StreamTap, handler: Handler, name: str, filters: list[dict[str, Any]]
    ) -> None:
        self._tap = tap
        self.name = name
        self.filters = filters
        self._handler = handler
        self._context = LocalContext(function_name=name)
        self.pending: list[dict[str, Any]] = []
        self.failures = 0

    def deliver(self) -> int:
        """Hand over every new record; how many records were taken (0: quiet or failing)."""
        self._tap.fetch()
        taken = 0
        while self.pending:
            batch = self.pending[:STREAM_BATCH]
            event = {"Records": batch}
            died, response = _invoke(self._handler, event, self._context)
            if died:  # retry it all
                self.failures += 1
                return taken
            failed = [f["itemIdentifier"] for f in (response or {}).get("batchItemFailures", [])]
            if failed:  # checkpoint before the first failure; retry from it next time
                self.failures += 1
                numbers = [r["dynamodb"]["SequenceNumber"] for r in batch]
                first = min(numbers.index(sequence) for sequence in failed)
                del self.pending[:first]
                return taken + first
            del self.pending[: len(batch)]
            taken += len(batch)
        return taken

    @property
    def idle(self) -> bool:
        """No record waits for a retry."""
        return not self.pending


class QueueReader:
    """One SQS event source mapping with partial batch responses."""

    def __init__(
        self,
        sqs: Any,
        queue_url: str,
        handler: Handler,
        name: str,
        deliveries: Deliveries | None = None,
    ) -> None:
        self._sqs = sqs
        self._url = queue_url
        self._arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])[
            "Attributes"
        ]["QueueArn"]
        self._handler = handler
        self._context = LocalContext(function_name=name)
        self._deliveries = deliveries or Deliveries()
        self._held: list[dict[str, Any]] = []
        self._receives: dict[str, int] = {}
        self.dead_letters: list[dict[str, Any]] = []
        self.dropped: list[dict[str, Any]] = []  # the events of messages lost for good
        self.failures = 0

    def deliver(self) -> int:
        """One poll and one invocation; how many messages were handled successfully."""
        received = self._sqs.receive_message(
            QueueUrl=self._url, MaxNumberOfMessages=QUEUE_BATCH, VisibilityTimeout=300
        ).get("Messages", [])
        chance = self._deliveries.random
        batch: list[dict[str, Any]] = []
        for message in received:
            if self._dropped(message):
                continue
            if self._deliveries.duplicate and chance.random() < self._deliveries.duplicate:
                self._held.append(message)  # the copy comes later
            if self._deliveries.hold_back and chance.random() < self._deliveries.hold_back:
                self._held.append(message)
            else:
                batch.append(message)
        late = [m for m in self._held if not batch or chance.random() < 0.3]
        for message in late[: QUEUE_BATCH - len(batch)]:
            self._held.remove(message)
            batch.append(message)
        if not batch:
            return 0
        chance.shuffle(batch)
        failed = self._invoke(batch)
        done = 0
        for message in batch:
            if message["MessageId"] in failed:
                self._failed(message)
            else:
                done += 1
                self._delete(message)
        return done

    @property
    def idle(self) -> bool:
        """Nothing held back (the queue itself may still hold messages)."""
        return not self._held

    def _dropped(self, message: dict[str, Any]) -> bool:
        """Whether `message` is lost for good (then it is deleted unread)."""
        deliveries = self._deliveries
        if not deliveries.drop:
            return False
        event = json.loads(message["Body"])
        if event.get("detail-type") not in deliveries.droppable:
            return False
        if deliveries.drops.random() >= deliveries.drop:
            return False
        self.dropped.append(event)
        self._delete(message)
        return True

    def _delete(self, message: dict[str, Any]) -> None:
        with suppress(ClientError):  # a duplicate of a message deleted already
            self._sqs.delete_message(QueueUrl=self._url, ReceiptHandle=message["ReceiptHandle"])

    @property
    def held(self) -> int:
        """Messages held back for a late delivery."""
        return len(self._held)

    def _invoke(self, batch: list[dict[str, Any]]) -> set[str]:
        event = {"Records": [self._lambda_record(m) for m in batch]}
        died, response = _invoke(self._handler, event, self._context)
        if died:  # the whole batch fails
            self.failures += 1
            return {m["MessageId"] for m in batch}
        failed = {f["itemIdentifier"] for f in (response or {}).get("batchItemFailures", [])}
        self.failures += bool(failed)
        return failed

    def _failed(self, message: dict[str, Any]) -> None:
        receives = self._receives[message["MessageId"]] = (
            self._receives.get(message["MessageId"], 0) + 1
        )
        if receives >= self._deliveries.max_receives:
            self.dead_letters.append(message)
            self._delete(message)
        else:
            self._held.append(message)  # visible again: it comes back in a later poll

    def _lambda_record(self, message: dict[str, Any]) -> dict[str, Any]:
        return {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message["Body"],
            "attributes": {
                "ApproximateReceiveCount": str(self._receives.get(message["MessageId"], 0) + 1)
            },
            "messageAttributes": {},
            "md5OfBody": message.get("MD5OfBody", ""),
            "eventSource": "aws:sqs",
            "eventSourceARN": self._arn,
            "awsRegion": _REGION,
        }


class ScheduleFirer:
    """EventBridge Scheduler's part: fire due one-time schedules, then delete them."""

    def __init__(
        self,
        scheduler: Any,
        group: str,
        handler: Handler,
        name: str,
        deliveries: Deliveries | None = None,
    ) -> None:
        self._scheduler = scheduler
        self._group = group
        self._handler = handler
        self._context = LocalContext(function_name=name)
        self._deliveries = deliveries or Deliveries()
        self._known: dict[str, tuple[float, dict[str, Any]]] = {}
        self._again: list[dict[str, Any]] = []  # fired already; fired once more, late
        self.failures = 0
        self.fired = 0
        self.lost: list[dict[str, Any]] = []  # inputs of firings whose invocation was lost

    def pending(self) -> dict[str, tuple[float, dict[str, Any]]]:
        """Every schedule in the group: name → (due, input)."""
        names: list[str] = []
        kwargs: dict[str, Any] = {"GroupName": self._group}
        while True:
            page = self._scheduler.list_schedules(**kwargs)
            names.extend(s["Name"] for s in page["Schedules"])
            if not page.get("NextToken"):
                break
            kwargs["NextToken"] = page["NextToken"]
        for gone in set(self._known) - set(names):
            del self._known[gone]
        for name in names:
            if name not in self._known:
                found = self._scheduler.get_schedule(Name=name, GroupName=self._group)
                due = datetime.strptime(found["ScheduleExpression"], "at(%Y-%m-%dT%H:%M:%S)")
                self._known[name] = (
                    due.replace(tzinfo=UTC).timestamp(),
                    json.loads(found["Target"]["Input"]),
                )
        return dict(self._known)

    def next_due(self) -> float | None:
        """When the next schedule is due (epoch seconds), None if there is none."""
        pending = self.pending()
        return min((due for due, _ in pending.values()), default=None)

    def fire_due(self, now: float) -> int:
        """Invoke the target for every schedule due by `now`; how many fired."""
        late, self._again = self._again, []
        for payload in late:  # Scheduler delivers at least once: a second firing
            with suppress(Exception):
                self._handler(payload, self._context)
        fired = 0
        for name, (due, payload) in sorted(self.pending().items(), key=lambda s: s[1][0]):
            if due > now:
                continue
            losses = self._deliveries
            if losses.lose_deadline and losses.deadline_losses.random() < losses.lose_deadline:
                # Scheduler delivered it; Lambda's tries all died: only the sweeper is left
                self._scheduler.delete_schedule(Name=name, GroupName=self._group)
                self.lost.append(payload)
                continue
            died, _ = _invoke(self._handler, payload, self._context)
            if died:  # Scheduler retries it later
                self.failures += 1
                continue
            self._scheduler.delete_schedule(Name=name, GroupName=self._group)
            fired += 1
            self.fired += 1
            chance = self._deliveries.random
            if self._deliveries.duplicate and chance.random() < self._deliveries.duplicate:
                self._again.append(payload)
        return fired


class RateSchedule:
    """A `rate(...)` schedule's part: invoke a function every `period` seconds, by
    whatever clock the caller reads, with the event EventBridge would send."""

    def __init__(
        self, handler: Handler, name: str, period: float, timeout_seconds: float = 10.0
    ) -> None:
        self._handler = handler
        self._context = LocalContext(function_name=name, timeout_seconds=timeout_seconds)
        self.period = period
        self._next = float("-inf")
        self.runs = 0
        self.failures = 0
        self.last: Any = None  # the last run's answer (None if it died)

    def run_due(self, now: float) -> bool:
        """Invoke the function if a period has passed since the last run; whether it ran.
        A failed run is not retried (the template sets no retries): the next one comes."""
        if now < self._next:
            return False
        self._next = now + self.period
        self.runs += 1
        event = {
            "version": "0",
            "source": "aws.events",
            "detail-type": "Scheduled Event",
            "time": datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "region": _REGION,
            "resources": [],
            "detail": {},
        }
        died, self.last = _invoke(self._handler, event, self._context)
        self.failures += died
        return True


class LocalDelivery:
    """Lambda's event source mappings and EventBridge Scheduler, for one local stack."""

    def __init__(
        self,
        stream_readers: list[StreamReader],
        queue_readers: list[QueueReader],
        schedules: ScheduleFirer,
        sweeps: RateSchedule | None = None,
    ) -> None:
        self.stream_readers = stream_readers
        self.queue_readers = queue_readers
        self.schedules = schedules
        self.sweeps = sweeps  # the deadline sweeper, every minute

    def settle(self, max_rounds: int = 10_000) -> int:
        """Deliver until the stream and queues are quiet; how many deliveries succeeded."""
        total = 0
        for _ in range(max_rounds):
            moved = self.poll()
            total += moved
            if not moved and self.idle:
                return total
        raise RuntimeError(f"deliveries did not settle in {max_rounds} rounds")

    def poll(self, skip: Collection[StreamReader] = ()) -> int:
        """One pass over the stream and the queues (but the stream readers in `skip`,
        which deliver elsewhere); how many deliveries succeeded."""
        moved = sum(reader.deliver() for reader in self.stream_readers if reader not in skip)
        return moved + sum(reader.deliver() for reader in self.queue_readers)

    @property
    def idle(self) -> bool:
        """No stream record waits for a retry and no queue message is held back."""
        return all(r.idle for r in self.stream_readers) and all(r.idle for r in self.queue_readers)

    def sweep_due(self, now: float) -> bool:
        """Run the deadline sweeper if its period has passed by `now`; whether it ran."""
        return self.sweeps is not None and self.sweeps.run_due(now)

    def fire_next(self) -> bool:
        """Move the clock to the next due schedule and fire all due by then (a firing
        that fails stays for a retry, as Scheduler retries); False if none is pending."""
        due = self.schedules.next_due()
        if due is None:
            return False
        self.schedules.fire_due(due)
        return True
