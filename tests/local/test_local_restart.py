"""What the local runner needs to go on after a restart: its position on the stream
saved in moto beside the records, read back, and a stream tap that starts there; no
deadline while no API worker can serve; a dead idle worker replaced without a request."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import boto3
import pytest
from moto import mock_aws

from infra.settings import Settings
from local.api_workers import ApiWorkers
from local.checkpoint import Checkpoint
from local.delivery import StreamTap
from local.fake_aws import fake_aws
from local.provision import create_tables
from local.service import DeliveryRunner

TABLE = "restart"


@pytest.fixture
def dynamodb() -> Iterator[Any]:
    with fake_aws(), mock_aws():
        client = boto3.client("dynamodb")
        create_tables(client, names={"KnobelcupTable": TABLE})
        yield client


def _write(dynamodb: Any, *names: str) -> None:
    for name in names:
        dynamodb.put_item(TableName=TABLE, Item={"pk": {"S": name}, "sk": {"S": "x"}})


def _record(sequence: int) -> dict[str, Any]:
    return {"dynamodb": {"SequenceNumber": str(sequence)}}


def test_the_position_is_the_first_record_some_reader_still_needs(dynamodb: Any) -> None:
    fresh = Checkpoint.open(dynamodb, "k")
    assert fresh.at_sequence is None and fresh.dead_letters == []
    letter = {"MessageId": "m1", "Body": "{}"}
    delivery = SimpleNamespace(
        stream_readers=[
            SimpleNamespace(pending=[_record(12), _record(13)]),
            SimpleNamespace(pending=[_record(9)]),
        ],
        queue_readers=[SimpleNamespace(dead_letters=[letter]), SimpleNamespace(dead_letters=[])],
    )
    assert fresh.save(delivery, next_sequence=14)  # type: ignore[arg-type]
    assert not fresh.save(delivery, next_sequence=14)  # type: ignore[arg-type]

    reopened = Checkpoint.open(dynamodb, "k")
    assert reopened.at_sequence == 9
    restored = SimpleNamespace(
        queue_readers=[SimpleNamespace(dead_letters=[]), SimpleNamespace(dead_letters=[])]
    )
    reopened.restore_dead_letters(restored)  # type: ignore[arg-type]
    assert restored.queue_readers[0].dead_letters == [letter]

    delivery.stream_readers = [SimpleNamespace(pending=[])]
    assert reopened.save(delivery, next_sequence=14)  # type: ignore[arg-type]
    assert Checkpoint.open(dynamodb, "k").at_sequence == 14


def test_a_stream_tap_goes_on_at_the_saved_record_and_misses_none_after_it(
    dynamodb: Any,
) -> None:
    _write(dynamodb, "a", "b", "c")
    streams = boto3.client("dynamodbstreams")
    arn = dynamodb.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    first = StreamTap(streams, arn)
    seen: list[dict[str, Any]] = []
    first.reader(lambda event, _: seen.extend(event["Records"]), "all").deliver()
    sequences = [int(r["dynamodb"]["SequenceNumber"]) for r in seen]
    assert len(sequences) == 3 and first.next_sequence == sequences[-1] + 1

    again = StreamTap(streams, arn, at_sequence=sequences[1])
    resumed: list[dict[str, Any]] = []
    reader = again.reader(lambda event, _: resumed.extend(event["Records"]), "all")
    reader.deliver()
    _write(dynamodb, "d")
    reader.deliver()
    keys = [r["dynamodb"]["Keys"]["pk"]["S"] for r in resumed]
    assert keys == ["b", "c", "d"]


class _Schedules:
    def __init__(self) -> None:
        self.fired = threading.Event()

    def fire_due(self, now: float) -> int:
        self.fired.set()
        return 0


class _Delivery:
    def __init__(self) -> None:
        self.schedules = _Schedules()
        self.polls = 0
        self.polled = threading.Condition()
        self.sweeps = 0

    def poll(self, skip: object = ()) -> int:
        with self.polled:
            self.polls += 1
            self.polled.notify_all()
        return 0

    def sweep_due(self, now: float) -> bool:
        self.sweeps += 1
        return True

    def wait_for_polls(self, count: int) -> None:
        with self.polled:
            assert self.polled.wait_for(lambda: self.polls >= count, timeout=30)


def test_no_deadline_fires_and_no_sweep_runs_while_no_api_worker_can_serve() -> None:
    delivery = _Delivery()
    serving = threading.Event()
    runner = DeliveryRunner(delivery, can_serve=serving.is_set)  # type: ignore[arg-type]
    runner.start()
    try:
        delivery.wait_for_polls(30)  # well past a schedule check (every 2 s)
        assert not delivery.schedules.fired.is_set()
        assert delivery.sweeps == 0
        serving.set()
        assert delivery.schedules.fired.wait(timeout=30)
        delivery.wait_for_polls(delivery.polls + 2)
        assert delivery.sweeps > 0
    finally:
        runner.stop()


def _ready_workers(workers: ApiWorkers, count: int) -> int:
    deadline = time.monotonic() + 60
    while (ready := workers.revive()) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    return ready


def test_a_dead_idle_worker_is_replaced_without_waiting_for_a_request() -> None:
    settings = Settings(
        table_name=TABLE,
        event_bus="bus",
        schedule_group="turns",
        timeout_function_arn="arn:aws:lambda:eu-central-1:123456789012:function:timeout",
        scheduler_role_arn="arn:aws:iam::123456789012:role/scheduler",
    )
    with fake_aws("http://127.0.0.1:9"):  # no AWS is called: nothing is requested
        workers = ApiWorkers(1, settings, None, quiet=True)
        try:
            assert _ready_workers(workers, 1) == 1
            (first,) = workers._all
            assert first.process.pid is not None
            os.kill(first.process.pid, signal.SIGKILL)
            first.process.join(30)
            assert workers.revive() == 0  # replaced, the new one not ready yet
            assert _ready_workers(workers, 1) == 1
            (second,) = workers._all
            assert second.process.pid != first.process.pid
        finally:
            workers.close()
