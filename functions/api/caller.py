"""Who is asking, as far as the deployment's admission cares: the source address API
Gateway saw, and the organizer key a creation carries."""

from __future__ import annotations

from aws_lambda_powertools.utilities.data_classes.common import BaseProxyEvent

from functions.api.auth import optional_bearer_token
from functions.wiring import services


def source_address(event: BaseProxyEvent) -> str:
    """The client's address (`requestContext.http.sourceIp`), as API Gateway saw it."""
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
