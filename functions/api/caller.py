"""Who is asking, as far as the deployment's admission cares: the source address, and
the organizer key a creation carries."""

from __future__ import annotations

import hmac

from aws_lambda_powertools.utilities.data_classes.common import BaseProxyEvent

from functions.api.auth import optional_bearer_token
from functions.wiring import services

ORIGIN_HEADER = "x-knobelcup-origin"  # the site's distribution's secret, on each request
VIEWER_HEADER = "x-knobelcup-viewer"  # the address CloudFront's router saw asking


def source_address(event: BaseProxyEvent) -> str:
    """The client's address: the viewer's, for a request that came through the site's
    distribution (it carries the deployment's origin secret: API Gateway saw only
    CloudFront's address), else the one API Gateway saw (`requestContext.http.sourceIp`)."""
    secret = services().origin_secret
    viewer = event.headers.get(VIEWER_HEADER, "")
    if secret and viewer and hmac.compare_digest(event.headers.get(ORIGIN_HEADER, ""), secret):
        return viewer
    http = (event.raw_event.get("requestContext") or {}).get("http") or {}
    return str(http.get("sourceIp") or "unknown")


def admit_creation(event: BaseProxyEvent) -> None:
    """Let this request create a tournament: the organizer key where the deployment has
    one (`Authorization: Bearer <organizer key>`; the header is not read otherwise),
    else within the creations allowed per source address."""
    admission = services().admission
    key = optional_bearer_token(event.headers) if admission.organizer_key_required else None
    admission.admit_creation(source_address(event), key)


def admit_registration(event: BaseProxyEvent, tournament: str) -> None:
    """Count this registration against the limits per tournament and per address."""
    services().admission.admit_registration(tournament, source_address(event))
