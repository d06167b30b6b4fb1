"""Counts every AWS operation the served stack makes, for the capacity model (docs/capacity.md).

Three places see them: moto's server (`local.moto_atomic`) every DynamoDB, Streams,
EventBridge, SQS and Scheduler call; the front (`local.http_front`) every HTTP API
request, WebSocket event and `@connections` post; the delivery (`local.delivery`) every
invocation of a function that Lambda would start from a stream, a queue or a schedule.
Each counts into an `OperationCounter`; `GET /_local/operations` on the front (loopback
only) answers all three at once.

Keys are `service:Operation` (`dynamodb:UpdateItem`, `scheduler:CreateSchedule`,
`apigateway:PostToConnection`, `lambda:ProgressionFunction`, `http:POST /tournaments/{}/players`).
A client of the local stand-ins themselves (the stream tap, the queue pollers, the
schedule firer, the runner's checkpoint: what Lambda's event source mappings and
Scheduler do inside AWS) says so in its User-Agent (`EMULATION_AGENT`); its calls count
under `local:` and are no part of the model.
"""

from __future__ import annotations

import io
import json
import math
import re
import threading
import urllib.request
from collections import Counter
from typing import Any

from botocore.config import Config

from local.write_counter import item_kind

PATH = "/_local/operations"
EMULATION_AGENT = "knobelcup-local-emulation"
_CREDENTIAL = re.compile(r"Credential=[^/]+/[^/]+/[^/]+/([^/]+)/")
# a path segment with a digit or capital is an id, and so is one of `infra.tokens.new_id`'s
# (`t-kqxvwmzhab`: one in 18 has no digit)
_ID_SEGMENT = re.compile(r"[^a-z_-]|^[a-z]-[a-z]{6,}$")
_WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})
_READS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})
_BATCHES = frozenset({"PutEvents", "SendMessageBatch", "DeleteMessageBatch"})
# the functions Lambda starts from events, as the stand-ins name them (local.stack)
FUNCTIONS = {
    "publisher": "PublisherFunction",
    "timers": "TimerFunction",
    "progression": "ProgressionFunction",
    "jobs": "JobFunction",
    "timeout": "TimeoutFunction",
    "sweeper": "SweeperFunction",
}


def emulation_config() -> Config:
    """A boto3 `Config` marking the client as one of the local stand-ins' own."""
    return Config(user_agent_extra=EMULATION_AGENT)


class OperationCounter:
    """Calls per `service:Operation`, the items they carry, and DynamoDB's capacity
    units and writes per item kind; safe to share between threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: Counter[str] = Counter()
        self.items: Counter[str] = Counter()  # items written, events put, messages sent
        self.units: dict[str, float] = {}  # dynamodb:WCU, dynamodb:RCU (estimated)
        self.writes: Counter[tuple[str, str]] = Counter()  # (pk, sk) -> writes

    def count(self, key: str, items: int = 1, **units: float) -> None:
        """One call of `key` carrying `items` items, and the capacity `units` it used."""
        with self._lock:
            self.calls[key] += 1
            self.items[key] += items
            for unit, value in units.items():
                self.units[unit] = self.units.get(unit, 0.0) + value

    def wrote(self, keys: list[tuple[str, str]]) -> None:
        """Items (pk, sk) written once each."""
        with self._lock:
            self.writes.update(keys)

    def snapshot(self) -> dict[str, Any]:
        """Everything counted so far, as JSON-ready dicts."""
        with self._lock:
            kinds: dict[str, dict[str, int]] = {}
            for key, writes in self.writes.items():
                found = kinds.setdefault(item_kind(key), {"items": 0, "writes": 0, "hottest": 0})
                found["items"] += 1
                found["writes"] += writes
                found["hottest"] = max(found["hottest"], writes)
            return {
                "calls": dict(self.calls),
                "items": dict(self.items),
                "units": {unit: round(value, 1) for unit, value in self.units.items()},
                "item_kinds": kinds,
            }


COUNTER = OperationCounter()  # this process's: moto's server, or the front's process


def merged(*snapshots: dict[str, Any]) -> dict[str, Any]:
    """Several processes' snapshots as one (their keys are disjoint or add up)."""
    result: dict[str, Any] = {"calls": {}, "items": {}, "units": {}, "item_kinds": {}}
    for snapshot in snapshots:
        for part in ("calls", "items", "units"):
            for key, value in snapshot.get(part, {}).items():
                result[part][key] = result[part].get(key, 0) + value
        for kind, found in snapshot.get("item_kinds", {}).items():
            into = result["item_kinds"].setdefault(kind, {"items": 0, "writes": 0, "hottest": 0})
            into["items"] += found["items"]
            into["writes"] += found["writes"]
            into["hottest"] = max(into["hottest"], found["hottest"])
    return result


def counted_everywhere(moto_url: str) -> dict[str, Any]:
    """This process's counts (the front's, the delivery's) and moto's server's, as one."""
    with urllib.request.urlopen(moto_url + PATH, timeout=30) as answer:
        return merged(COUNTER.snapshot(), json.load(answer))


def http_route(method: str, path: str) -> str:
    """`http:METHOD /path` with each id segment written `{}`."""
    segments = ["{}" if _ID_SEGMENT.search(s) else s for s in path.strip("/").split("/") if s]
    return f"http:{method} /" + "/".join(segments)


# --- moto's side -------------------------------------------------------------------------


def aws_call(environ: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
    """The `service:Operation` of a WSGI request to moto and, for a write or a batch, its
    JSON body (read, and put back for moto). `local:...` for a stand-in's own client."""
    credential = _CREDENTIAL.search(str(environ.get("HTTP_AUTHORIZATION", "")))
    service = credential.group(1) if credential else "unsigned"
    if EMULATION_AGENT in str(environ.get("HTTP_USER_AGENT", "")):
        service = f"local-{service}"
    target = str(environ.get("HTTP_X_AMZ_TARGET", ""))
    method, path = str(environ.get("REQUEST_METHOD", "")), str(environ.get("PATH_INFO", ""))
    if target:
        operation = target.rpartition(".")[2]
    elif service.endswith("scheduler"):
        operation = _scheduler_operation(method, path)
    else:
        operation = f"{method} {path.split('/')[1] if '/' in path else path}"
    body = None
    if operation in _WRITES or operation in _BATCHES:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw = environ["wsgi.input"].read(length)
        environ["wsgi.input"] = io.BytesIO(raw)
        body = json.loads(raw or b"{}")
    return f"{service}:{operation}", body


def _scheduler_operation(method: str, path: str) -> str:
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["schedules"]:
        one = len(parts) > 1
        return {
            "POST": "CreateSchedule",
            "DELETE": "DeleteSchedule",
            "PUT": "UpdateSchedule",
            "GET": "GetSchedule" if one else "ListSchedules",
        }.get(method, method)
    return f"{method} {parts[0] if parts else ''}"


def written_keys(operation: str, body: dict[str, Any]) -> list[tuple[str, dict[str, Any], bool]]:
    """(table, key or item, transactional) of every item a DynamoDB write names."""
    if operation in ("PutItem", "UpdateItem", "DeleteItem"):
        return [(body["TableName"], body.get("Key") or body.get("Item") or {}, False)]
    if operation == "BatchWriteItem":
        return [
            (table, request.get("PutRequest", {}).get("Item") or _deleted(request), False)
            for table, requests in body.get("RequestItems", {}).items()
            for request in requests
        ]
    if operation == "TransactWriteItems":
        found = []
        for action in body.get("TransactItems", []):
            for kind in ("Put", "Update", "Delete"):
                if kind in action:
                    part = action[kind]
                    found.append((part["TableName"], part.get("Key") or part.get("Item"), True))
        return found
    return []


def _deleted(request: dict[str, Any]) -> dict[str, Any]:
    return dict(request.get("DeleteRequest", {}).get("Key", {}))


def count_moto_call(
    environ: dict[str, Any], answer: list[bytes], sizes: Any, counter: OperationCounter = COUNTER
) -> None:
    """Count one request moto answered with `answer`. `sizes(table, key)` is the item's
    size in bytes after the write (0 if gone): DynamoDB bills a write by it, 1 WCU per
    KB, twice in a transaction; a read is billed 1 RCU per 4 KB returned (estimated
    from the answer's length)."""
    key, body = environ["knobelcup.call"]
    operation = key.partition(":")[2]
    if body is None:
        if key.startswith("dynamodb:") and operation in _READS:
            returned = sum(len(chunk) for chunk in answer)
            counter.count(key, RCU=max(1, math.ceil(returned / 4096)))
        else:
            counter.count(key)
        return
    if operation in _BATCHES:
        counter.count(key, len(body.get("Entries", [])))
        return
    if not key.startswith("dynamodb:"):
        counter.count(key)
        return
    named = written_keys(operation, body)
    wcu = 0.0
    keys = []
    for table, item, transactional in named:
        size = sizes(table, item) if item else 0
        wcu += max(1, math.ceil(size / 1024)) * (2 if transactional else 1)
        if item and "pk" in item and "sk" in item:
            keys.append((item["pk"].get("S", ""), item["sk"].get("S", "")))
    counter.count(key, len(named), WCU=wcu)
    counter.wrote(keys)
