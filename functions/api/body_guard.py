"""Bodies refused before routing, with the API's error body instead of a 500.

Powertools decodes the body only when a route asks for it, and lets two failures of that
escape as exceptions any bug could also raise: bytes that are not UTF-8
(`UnicodeDecodeError`) and JSON nested deeper than Python's recursion limit
(`RecursionError`). Checking the body here, once, keeps both apart from real errors.
A body that says it is not JSON (`Content-Type: text/plain`, say) is refused with 415:
every body the API takes is JSON, and a JSON object (or null, as good as none).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from functions.api.errors import error_response


def refuse_bad_body(event: dict[str, Any]) -> dict[str, Any] | None:
    """The 400 answer for a body that is not UTF-8 text or nests too deeply, the 415 for
    one that is not JSON; else None."""
    body = event.get("body")
    if not body:
        return None
    try:
        text = base64.b64decode(body).decode() if event.get("isBase64Encoded") else body
    except (binascii.Error, UnicodeDecodeError):
        return _bad("the body is not UTF-8 text")
    if not _is_json(event):
        return _answer(
            415, "unsupported_media_type", "the body must be JSON (Content-Type: application/json)"
        )
    try:
        parsed = json.loads(text)
    except RecursionError:
        return _bad("the body's JSON is nested too deeply")
    except ValueError:
        return None  # malformed JSON: the route's validation answers it, naming the field
    if parsed is not None and not isinstance(parsed, dict):
        # Powertools would take an array for its first element (its rule for repeated
        # query parameters): `[null]` as no body, `[{...}]` as the object
        return _bad("the body must be a JSON object")
    return None


def _is_json(event: dict[str, Any]) -> bool:
    headers = event.get("headers") or {}
    return "json" in str(headers.get("content-type", "application/json")).lower()


def _bad(message: str) -> dict[str, Any]:
    return _answer(400, "bad_body", message)


def _answer(status: int, code: str, message: str) -> dict[str, Any]:
    response = error_response(status, code, message, field="body")
    return {
        "statusCode": response.status_code,
        "headers": {"Content-Type": "application/json"},
        "body": response.body,
        "isBase64Encoded": False,
    }
