"""A deploy puts the site into its bucket (`functions.site.app`, CloudFormation's custom
resource `SiteContent`): against moto's S3, answered at a real presigned-URL stand-in."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import boto3
import pytest
from moto import mock_aws

from functions.site import app
from functions.site.files import site_files

BUCKET = "knobelcup-site"


@pytest.fixture
def s3() -> Iterator[Any]:
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        yield client


@pytest.fixture
def cloudformation() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Where the answers go (a presigned URL's stand-in) and the answers it took."""
    answers: list[dict[str, Any]] = []

    class Taker(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:  # the name http.server calls
            length = int(self.headers["Content-Length"])
            answers.append(json.loads(self.rfile.read(length)))
            self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Taker)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/answer?X-Amz-Signature=abc", answers
    server.shutdown()
    server.server_close()


def request(kind: str, url: str, **properties: str) -> dict[str, Any]:
    return {
        "RequestType": kind,
        "ResponseURL": url,
        "StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/cup/abc",
        "RequestId": f"request-{kind}",
        "LogicalResourceId": "SiteContent",
        "ResourceProperties": {"ServiceToken": "arn:fn", "Bucket": BUCKET, **properties},
        **({"PhysicalResourceId": f"site-{BUCKET}"} if kind != "Create" else {}),
    }


def keys(s3: Any) -> set[str]:
    return {item["Key"] for item in s3.list_objects_v2(Bucket=BUCKET).get("Contents", ())}


class Context:
    function_name = "SiteFunction"
    memory_limit_in_mb = 128
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:SiteFunction"
    aws_request_id = "invocation"


def test_create_puts_every_file_with_its_type_and_the_socket_url(
    s3: Any, cloudformation: tuple[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, answers = cloudformation
    monkeypatch.setattr(app, "aws_client", lambda service: s3)
    app.lambda_handler(request("Create", url, SocketUrl="wss://s.example/ws"), Context())
    assert keys(s3) == set(site_files())
    shell = s3.get_object(Bucket=BUCKET, Key="play.de.html")
    assert shell["ContentType"] == "text/html; charset=utf-8"
    assert shell["CacheControl"] == "public, max-age=300"
    assert b'data-socket="wss://s.example/ws"' in shell["Body"].read()
    script = s3.get_object(Bucket=BUCKET, Key="assets/play.js")
    assert script["ContentType"] == "text/javascript; charset=utf-8"
    [answer] = answers
    assert answer["Status"] == "SUCCESS" and answer["PhysicalResourceId"] == f"site-{BUCKET}"
    assert answer["Data"] == {"Put": len(site_files()), "Removed": 0}
    assert answer["RequestId"] == "request-Create" and answer["LogicalResourceId"] == "SiteContent"


def test_update_takes_out_what_an_earlier_deploy_left_and_delete_empties(
    s3: Any, cloudformation: tuple[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, answers = cloudformation
    monkeypatch.setattr(app, "aws_client", lambda service: s3)
    s3.put_object(Bucket=BUCKET, Key="assets/old.js", Body=b"// gone in this version")
    app.lambda_handler(request("Update", url), Context())
    assert keys(s3) == set(site_files())
    assert answers[-1]["Data"] == {"Put": len(site_files()), "Removed": 1}
    app.lambda_handler(request("Delete", url), Context())
    assert keys(s3) == set()
    assert answers[-1]["Status"] == "SUCCESS" and answers[-1]["Data"] == {
        "Removed": len(site_files())
    }


def test_a_failure_is_answered_with_its_reason_and_never_left_hanging(
    s3: Any, cloudformation: tuple[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, answers = cloudformation
    monkeypatch.setattr(app, "aws_client", lambda service: s3)
    event = request("Create", url)
    event["ResourceProperties"]["Bucket"] = "no-such-bucket"
    app.lambda_handler(event, Context())
    [answer] = answers
    assert answer["Status"] == "FAILED" and "NoSuchBucket" in answer["Reason"]
    assert answer["PhysicalResourceId"] == "site-no-such-bucket"
