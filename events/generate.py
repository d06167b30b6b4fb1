"""Writes the sample events in this directory, for `sam local invoke` (see README.md).

    python events/generate.py          # (re)write them
    python events/generate.py --check  # exit 1 if a file differs from what the code makes

Each event is built by the code that shapes it in the service, so the samples follow
the code: the API requests by `local.lambda_events.http_api_event` (what the local
HTTP front and the tests send the API function), the table items by
`infra.store.table_item.to_item` (what the API writes), a finished table's result by the
publisher's own `events_of`, the schedule's input by `infra.outbox.timers.timeout_input`. The
game is replayed through `core`, so the moves are legal and the ranking is the engine's.
Ids, times and dice are fixed: the output is the same on every run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from core.match import Move, Seating, actor, replay, turns  # noqa: E402
from core.registry import get_game  # noqa: E402
from infra.outbox.events import SOURCE, TableFinished  # noqa: E402
from infra.outbox.publisher import change_from_record, events_of  # noqa: E402
from infra.outbox.timers import timeout_input  # noqa: E402
from infra.services.turns import idempotency_key_hash  # noqa: E402
from infra.store.table_item import TableRecord, decode_moves, table_key, to_item  # noqa: E402
from infra.tokens import hash_token  # noqa: E402
from local.lambda_events import http_api_event  # noqa: E402

HERE = Path(__file__).resolve().parent
ACCOUNT = "123456789012"
REGION = "eu-central-1"
STACK = "knobelcup"
TABLE_NAME = f"{STACK}-KnobelcupTable-1A2B3C4D5E6F"
STREAM_ARN = (
    f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{TABLE_NAME}/stream/2024-06-14T19:00:00.000"
)
QUEUE_ARN = f"arn:aws:sqs:{REGION}:{ACCOUNT}:{STACK}-ProgressionQueue-7G8H9J0K1L2M"
RULE_ARN = f"arn:aws:events:{REGION}:{ACCOUNT}:rule/{STACK}-events/{STACK}-TableFinishedRule"
NOW = 1_718_391_600  # 2024-06-14T19:00:00Z: when the table was seated
RETENTION_DAYS = 180

TOURNAMENT = "t-8fkq3wn2xa"
TABLE = "R1-1"
# Seat order (the seed's): Carla, Anna, Bernd, as in docs/api.md.
SEATS = ("p-j2yukvqsiu", "p-jwn7yfsm6e", "p-bhfci9a8rg")
NAMES = ("Carla", "Anna", "Bernd")
OPTIONS = {
    "turn_timeout_seconds": 60,
    "forfeit_after_timeouts": 0,
    "penalty_limit": 3,
    "allow_equal": False,
    "blind_reroll": False,
}
# The final of docs/api.md: a lie doubted too late, a truth doubted, then two players
# announcing Mäxchen (21) on a worse throw, doubted, until one survivor is left.
MOVES = "t14a52t16a61dt66a21dt52a21dt52a21d"
IN_PLAY_VERSION = 5  # after the first round's doubt: round 2, Bernd to throw


def _table(version: int) -> TableRecord:
    """The final's table item after `version` moves, as the API writes it."""
    seating = Seating("maexchen", SEATS, OPTIONS, survivors=1)
    moves = decode_moves(MOVES)[:version]
    game = get_game(seating.game)
    state = replay(seating, moves)
    # each seat's last Idempotency-Key: the walk-through's keys, in the order they acted
    last_keys: dict[int, tuple[str, int]] = {}
    for index in range(1, version + 1):
        seat = _seat_of(seating, moves, index)
        last_keys[seat] = (idempotency_key_hash(f"key-{index:04d}"), index)
    return TableRecord(
        tournament=TOURNAMENT,
        ref=TABLE,
        seating=seating,
        token_hashes=tuple(hash_token(f"{player}.sample-token") for player in SEATS),
        moves=moves,
        names=NAMES,
        last_keys=last_keys,
        ranking=game.outcome(state).ranking if game.is_over(state) else (),
        expires_at=NOW + RETENTION_DAYS * 86_400,
        final=True,
    )


def _seat_of(seating: Seating, moves: list[Move], index: int) -> int:
    """The seat that made version `index` (the move at index - 1)."""
    return seating.seats.index(actor(seating, moves, index - 1))


def _stream_record(
    name: str, old: dict[str, Any] | None, new: dict[str, Any], sequence: int, at: int
) -> dict[str, Any]:
    """One DynamoDB stream record as Lambda hands it to a function (NEW_AND_OLD_IMAGES)."""
    images: dict[str, Any] = {"NewImage": new}
    if old is not None:
        images["OldImage"] = old
    size = len(json.dumps(images, separators=(",", ":")))
    stream: dict[str, Any] = {
        "ApproximateCreationDateTime": at,
        "Keys": table_key(TOURNAMENT, TABLE),
        **images,
        "SequenceNumber": f"{sequence:021d}",
        "SizeBytes": size,
        "StreamViewType": "NEW_AND_OLD_IMAGES",
    }
    return {
        "eventID": hashlib.md5(f"{name}{sequence}".encode()).hexdigest(),
        "eventName": name,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": REGION,
        "dynamodb": stream,
        "eventSourceARN": STREAM_ARN,
    }


def _fixed(event: dict[str, Any], request_id: str, at: int) -> dict[str, Any]:
    """`http_api_event` with its request id and times fixed, so the file never changes."""
    context = event["requestContext"]
    context["requestId"] = request_id
    context["time"] = datetime.fromtimestamp(at, UTC).strftime("%d/%b/%Y:%H:%M:%S +0000")
    context["timeEpoch"] = at * 1000
    return event


def api_create_tournament() -> dict[str, Any]:
    """POST /tournaments, as API Gateway (HTTP API, payload 2.0) sends it."""
    body = {
        "game": "maexchen",
        "name": "Stammtisch",
        "table_size": 3,
        "advance": 1,
        "turn_timeout_seconds": 60,
    }
    event = http_api_event(
        "POST",
        "/tournaments",
        body=json.dumps(body, separators=(",", ":")),
        headers={"content-type": "application/json", "user-agent": "curl/8.5.0"},
        source_ip="203.0.113.7",
    )
    return _fixed(event, "b1c2d3e4-0001-4000-8000-000000000001", NOW - 600)


def api_read_tournament() -> dict[str, Any]:
    """GET /tournaments/{id}, as API Gateway sends it."""
    event = http_api_event(
        "GET",
        f"/tournaments/{TOURNAMENT}",
        headers={"accept": "application/json", "user-agent": "curl/8.5.0"},
        source_ip="203.0.113.7",
    )
    return _fixed(event, "b1c2d3e4-0002-4000-8000-000000000002", NOW + 60)


def publisher_table_finished() -> dict[str, Any]:
    """The stream batch of the final's last move: MODIFY, status playing → over."""
    last = len(decode_moves(MOVES))
    old, new = to_item(_table(last - 1)), to_item(_table(last))
    at = NOW + 300
    return {"Records": [_stream_record("MODIFY", old, new, 100_000_000_000 + last, at)]}


def timers_table_changed() -> dict[str, Any]:
    """The stream batch of a table still in play: the doubt that ended round 1."""
    old, new = to_item(_table(IN_PLAY_VERSION - 1)), to_item(_table(IN_PLAY_VERSION))
    at = NOW + 90
    return {"Records": [_stream_record("MODIFY", old, new, 100_000_000_000 + 5, at)]}


def table_finished_event() -> TableFinished:
    """The TableFinished the publisher makes of the final's last change."""
    record = publisher_table_finished()["Records"][0]
    (finished,) = events_of(change_from_record(record))
    assert isinstance(finished, TableFinished)
    return finished


def progression_table_finished() -> dict[str, Any]:
    """An SQS batch of one message: the TableFinishedRule's delivery of the event, its
    body the EventBridge envelope as the bus sends it to the queue."""
    finished = table_finished_event()
    envelope = {
        "version": "0",
        "id": "6f1c2a7e-3b9d-4c55-a0e8-1d2f4b7c9e31",
        "detail-type": finished.detail_type,
        "source": SOURCE,
        "account": ACCOUNT,
        "time": datetime.fromtimestamp(NOW + 301, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": REGION,
        "resources": [],
        "detail": finished.model_dump(mode="json"),
    }
    body = json.dumps(envelope, separators=(",", ":"))
    return {
        "Records": [
            {
                "messageId": "0f6e3a4b-5c6d-4e7f-8a9b-0c1d2e3f4a5b",
                "receiptHandle": "AQEBsample-receipt-handle",
                "body": body,
                "attributes": {
                    "ApproximateReceiveCount": "1",
                    "SentTimestamp": str((NOW + 301) * 1000),
                    "SenderId": "AIDAIENQZJOLO23YVJ4VO",
                    "ApproximateFirstReceiveTimestamp": str((NOW + 302) * 1000),
                    "AWSTraceHeader": "Root=1-666c9d5d-0123456789abcdef01234567;Sampled=0",
                },
                "messageAttributes": {},
                "md5OfBody": hashlib.md5(body.encode()).hexdigest(),
                "eventSource": "aws:sqs",
                "eventSourceARN": QUEUE_ARN,
                "awsRegion": REGION,
            }
        ]
    }


def timeout_turn_deadline() -> dict[str, Any]:
    """The input of the schedule the timers make for the turn in play: Bernd's, begun at
    `IN_PLAY_VERSION`."""
    table = _table(IN_PLAY_VERSION)
    played = turns(table.seating, table.moves)
    return timeout_input(TOURNAMENT, TABLE, played.starts[-1], played.to_act)


SAMPLES = {
    "api-create-tournament.json": api_create_tournament,
    "api-read-tournament.json": api_read_tournament,
    "publisher-table-finished.json": publisher_table_finished,
    "progression-table-finished.json": progression_table_finished,
    "timers-table-changed.json": timers_table_changed,
    "timeout-turn-deadline.json": timeout_turn_deadline,
}


def render() -> dict[str, str]:
    """Every sample file's name and exact text."""
    return {name: json.dumps(make(), indent=2) + "\n" for name, make in SAMPLES.items()}


def main(argv: list[str] | None = None) -> int:
    """Write the samples, or with --check report those that differ; the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    options = parser.parse_args(argv)
    stale = []
    for name, text in render().items():
        path = HERE / name
        if options.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
            print(f"wrote events/{name}")
    for name in stale:
        print(f"events/{name} differs from what events/generate.py makes", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
