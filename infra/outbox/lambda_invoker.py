"""The stream readers on AWS, for the redrive: invoked synchronously by their ARN, behind
their event source mapping's own filters (the operator's machine, never in a function)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from infra.outbox.redrive import HandlerFailed


@dataclass(frozen=True)
class LambdaTarget:
    """A deployed stream reader: invoked synchronously with the rebuilt event."""

    client: Any
    function_arn: str
    filters: list[dict[str, Any]]
    passes: Callable[[list[dict[str, Any]], dict[str, Any]], bool]

    def accepts(self, record: dict[str, Any]) -> bool:
        """The mapping's own filters, as Lambda applies them."""
        return self.passes(self.filters, record)

    def invoke(self, event: dict[str, Any]) -> Any:
        """`lambda.invoke` (RequestResponse); `HandlerFailed` if the function failed."""
        response = self.client.invoke(
            FunctionName=self.function_arn,
            InvocationType="RequestResponse",
            Payload=json.dumps(event).encode(),
        )
        payload = response["Payload"].read()
        if response.get("FunctionError"):
            raise HandlerFailed(f"{response['FunctionError']}: {payload[:300]!r}")
        return json.loads(payload) if payload else None


class LambdaInvoker:
    """The stream readers on AWS: each invoked by its ARN, with its mapping's filters.

    `passes(filters, record)` is Lambda's filter rule (the CLI hands in the matcher the
    tests check against the template's filters)."""

    def __init__(
        self, client: Any, passes: Callable[[list[dict[str, Any]], dict[str, Any]], bool]
    ) -> None:
        self._client = client
        self._passes = passes

    def target(self, function_arn: str, stream_arn: str) -> LambdaTarget:
        """The function, with the filters of its mapping on `stream_arn`."""
        filters: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {"FunctionName": function_arn, "EventSourceArn": stream_arn}
        while True:
            page = self._client.list_event_source_mappings(**kwargs)
            for mapping in page.get("EventSourceMappings", []):
                criteria = mapping.get("FilterCriteria") or {}
                filters += [json.loads(f["Pattern"]) for f in criteria.get("Filters", [])]
            if not page.get("NextMarker"):
                break
            kwargs["Marker"] = page["NextMarker"]
        return LambdaTarget(self._client, function_arn, filters, self._passes)
