"""Headers that tell a browser what an answer is and what a page may do.

Every answer, JSON too, says `X-Content-Type-Options: nosniff`: a browser takes it as
its declared type, never guesses HTML or a script from the body. Every page (HTML, and
the bracket's SVG, which a browser runs as a document too) carries a Content-Security-
Policy: scripts only from the service's own `/assets/` (the pages inline none; their
`<script type="application/json">` data blocks are never executed), connections to the
service and its WebSocket only, images from the service or `data:`; styles may be
inline (every page has its `<style>`, the bracket's boxes their `style` attributes). A
route that must inline a script (Swagger UI at `/docs`) sets its own policy naming the
scripts' hashes, which this keeps. `Referrer-Policy: no-referrer` keeps a page's URL
(the play page's may carry a join code in its query) from the sites it links to.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

NOSNIFF = "nosniff"
PAGE_TYPES = ("text/html", "image/svg+xml")
_HOST = re.compile(r"[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?")
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def content_security_policy(socket_origin: str = "", script_hashes: Iterable[str] = ()) -> str:
    """The pages' policy; `socket_origin` (`wss://host`) is where their scripts may
    connect besides the service, `script_hashes` the inline scripts a page may run."""
    scripts = " ".join(["'self'", *(f"'sha256-{digest}'" for digest in script_hashes)])
    connect = " ".join(["'self'", *([socket_origin] if socket_origin else [])])
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {scripts}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            f"connect-src {connect}",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


def inline_script_hashes(page: str) -> list[str]:
    """The base64 SHA-256 of each inline `<script>` of `page`, as CSP names them."""
    return [
        base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
        for script in _INLINE_SCRIPT.findall(page)
    ]


def socket_origin(headers: Mapping[str, str]) -> str:
    """The origin of the WebSocket the pages connect to: the template's
    `KNOBELCUP_SOCKET_URL`, else the host asked (the local service serves `/ws`)."""
    configured = os.environ.get("KNOBELCUP_SOCKET_URL", "")
    if configured:
        parts = urlsplit(configured)
        return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
    host = headers.get("host") or ""
    secure = (headers.get("x-forwarded-proto") or "http") == "https"
    return f"{'wss' if secure else 'ws'}://{host}" if _HOST.fullmatch(host) else ""


def secured(answer: dict[str, Any], request_headers: Mapping[str, str]) -> dict[str, Any]:
    """`answer` (a Lambda proxy answer) with nosniff, and on a page its policy and
    `Referrer-Policy` unless the route set its own."""
    headers = answer.get("headers") or {}
    answer["headers"] = headers
    headers["X-Content-Type-Options"] = NOSNIFF
    content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    if str(content_type).lower().startswith(PAGE_TYPES):
        named = {name.lower() for name in headers}
        if "content-security-policy" not in named:
            headers["Content-Security-Policy"] = content_security_policy(
                socket_origin(request_headers)
            )
        if "referrer-policy" not in named:
            headers["Referrer-Policy"] = "no-referrer"
    return answer
