"""The served stack's operation counter (local/operations.py) names calls as AWS bills
them, and keeps the local stand-ins' own calls apart."""

from __future__ import annotations

import io
import json
from typing import Any

from local.operations import (
    EMULATION_AGENT,
    OperationCounter,
    aws_call,
    count_moto_call,
    http_route,
    merged,
)

SIGNED = "AWS4-HMAC-SHA256 Credential=testing/20261203/eu-central-1/{}/aws4_request, ..."


def _environ(service: str, method: str = "POST", path: str = "/", **extra: Any) -> dict[str, Any]:
    body = json.dumps(extra.pop("body", {})).encode()
    return {
        "HTTP_AUTHORIZATION": SIGNED.format(service),
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        **extra,
    }


def test_scheduler_calls_are_named_by_method_and_path() -> None:
    assert aws_call(_environ("scheduler", "POST", "/schedules/t1"))[0] == (
        "scheduler:CreateSchedule"
    )
    assert aws_call(_environ("scheduler", "DELETE", "/schedules/t1"))[0] == (
        "scheduler:DeleteSchedule"
    )
    assert aws_call(_environ("scheduler", "GET", "/schedules"))[0] == "scheduler:ListSchedules"


def test_a_stand_ins_own_call_counts_apart() -> None:
    own = _environ("scheduler", "GET", "/schedules", HTTP_USER_AGENT=f"Boto3 {EMULATION_AGENT}")
    assert aws_call(own)[0] == "local-scheduler:ListSchedules"


def test_a_transaction_counts_its_items_twice_in_capacity_and_keeps_the_body() -> None:
    item = {"pk": {"S": "T#1"}, "sk": {"S": "TOURNAMENT"}}
    body = {
        "TransactItems": [
            {"Put": {"TableName": "t", "Item": item}},
            {"ConditionCheck": {"TableName": "t", "Key": item}},
        ]
    }
    environ = _environ(
        "dynamodb", HTTP_X_AMZ_TARGET="DynamoDB_20120810.TransactWriteItems", body=body
    )
    environ["knobelcup.call"] = aws_call(environ)
    assert json.loads(environ["wsgi.input"].read()) == body  # moto still reads it whole
    counter = OperationCounter()
    count_moto_call(environ, [b"{}"], lambda table, key: 1500, counter)
    counted = counter.snapshot()
    assert counted["calls"] == {"dynamodb:TransactWriteItems": 1}
    assert counted["items"] == {"dynamodb:TransactWriteItems": 1}
    assert counted["units"] == {"WCU": 4.0}  # 1.5 KB: 2 WCU, twice in a transaction
    assert counted["item_kinds"]["tournament"] == {"items": 1, "writes": 1, "hottest": 1}
    assert merged(counted, counted)["calls"] == {"dynamodb:TransactWriteItems": 2}


def test_http_routes_write_ids_as_braces() -> None:
    assert http_route("POST", "/tournaments/t8Kz2/tables/1-3/actions") == (
        "http:POST /tournaments/{}/tables/{}/actions"
    )
    assert http_route("GET", "/tournaments") == "http:GET /tournaments"
    # an id without a digit is still an id; a route's own words stay
    assert http_route("POST", "/tournaments/t-kqxvwmzhab/tables/R1-1/actions") == (
        "http:POST /tournaments/{}/tables/{}/actions"
    )
    assert http_route("POST", "/tournaments/t-kqxvwmzhab/me/socket-ticket") == (
        "http:POST /tournaments/{}/me/socket-ticket"
    )
