"""Event patterns as Lambda's filters and EventBridge's rules match them, for the local
delivery: the stream readers hand a handler only the records its template filters let
through, so the tests run the filters as deployed.

The subset the template uses: nested fields, value lists, and `exists`. Only leaves are
values: an object where a pattern expects a value counts as absent, which is why an
`exists` test must name an attribute's type (`{"BOOL": [{"exists": false}]}`).
"""

from __future__ import annotations

import json
from typing import Any

from local.provision import TEMPLATE_PATH, load_template


def matches(pattern: dict[str, Any], event: Any) -> bool:
    """Whether `event` matches `pattern`: every field, at every level, must match."""
    for key, wanted in pattern.items():
        value = event.get(key) if isinstance(event, dict) else None
        if isinstance(wanted, dict):
            if not matches(wanted, value):
                return False
        elif not _leaf_matches(wanted, value):
            return False
    return True


def _leaf_matches(wanted: list[Any], value: Any) -> bool:
    leaf = None if isinstance(value, dict) else value
    for option in wanted:
        if isinstance(option, dict) and "exists" in option:
            if (leaf is not None) == option["exists"]:
                return True
        elif leaf is not None and leaf == option:
            return True
    return False


def stream_filters(function: str, template: Any = TEMPLATE_PATH) -> list[dict[str, Any]]:
    """The filter patterns of `function`'s DynamoDB event source in the template."""
    events = load_template(template)["Resources"][function]["Properties"].get("Events", {})
    for event in events.values():
        if event["Type"] == "DynamoDB":
            criteria = event["Properties"].get("FilterCriteria", {"Filters": []})
            return [json.loads(entry["Pattern"]) for entry in criteria["Filters"]]
    raise ValueError(f"{function} reads no DynamoDB stream in the template")


def passes(filters: list[dict[str, Any]], record: dict[str, Any]) -> bool:
    """Whether Lambda would hand `record` over: no filters, or any of them matches."""
    return not filters or any(matches(pattern, record) for pattern in filters)
