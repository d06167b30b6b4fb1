"""A deploy → the site's files in its bucket (template.yaml: `SiteContent`, a
CloudFormation custom resource this function serves).

CloudFormation asks on every deploy that changes the resource's properties (among them
the function's published version, so every code change): Create and Update put every
file of `functions.site.files` into the bucket, with the WebSocket API's URL the stack
made, and take out what an earlier deploy left; Delete empties the bucket so that the
stack can delete it. Whatever happens, CloudFormation is answered (at the presigned
`ResponseURL`): a custom resource never answered holds the stack for an hour.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.observability import logger
from functions.site.files import site_files
from infra.bootstrap import aws_client
from infra.site_bucket import SiteBucket

ANSWER_SECONDS = 20  # how long CloudFormation's answer may take to be taken


def deploy(event: dict[str, Any], s3: Any) -> dict[str, Any]:
    """What `event` (a custom resource request) asks of the bucket, done; what it did."""
    properties = event["ResourceProperties"]
    bucket = SiteBucket(s3, properties["Bucket"])
    if event["RequestType"] == "Delete":
        return {"Removed": bucket.empty()}
    published = bucket.publish(site_files(socket=properties.get("SocketUrl", "")))
    return {"Put": published.put, "Removed": published.removed}


def answer(event: dict[str, Any], status: str, reason: str, data: dict[str, Any]) -> bytes:
    """The answer to `event` that CloudFormation reads."""
    physical = event.get("PhysicalResourceId") or f"site-{event['ResourceProperties']['Bucket']}"
    body = {
        "Status": status,
        "Reason": reason[:1000],
        "PhysicalResourceId": physical,
        "StackId": event["StackId"],
        "RequestId": event["RequestId"],
        "LogicalResourceId": event["LogicalResourceId"],
        "Data": data,
    }
    return json.dumps(body).encode()


def send(url: str, body: bytes) -> None:
    """PUT `body` to the presigned `url` (no content type: the signature has none)."""
    request = urllib.request.Request(url, data=body, method="PUT", headers={"Content-Type": ""})
    with urllib.request.urlopen(request, timeout=ANSWER_SECONDS) as response:
        response.read()


@logger.inject_lambda_context(clear_state=True)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> None:
    """A custom resource request → the bucket as it asks, and CloudFormation's answer."""
    try:
        data = deploy(event, aws_client("s3"))
        status, reason = "SUCCESS", "the site's files are in their bucket"
        logger.info("site deployed", request=event["RequestType"], **data)
    except Exception as error:  # any failure must still be answered, with its reason
        logger.exception("site not deployed", request=event["RequestType"])
        data, status, reason = {}, "FAILED", f"{type(error).__name__}: {error}"
    send(event["ResponseURL"], answer(event, status, reason, data))
