"""Bearer tokens from the `Authorization` header. What they may do is the services' call."""

from __future__ import annotations

from collections.abc import Mapping

from infra.errors import Unauthorized

BEARER_SECURITY: list[dict[str, list[str]]] = [{"bearerAuth": []}]
OPTIONAL_BEARER: list[dict[str, list[str]]] = [{}, {"bearerAuth": []}]


def bearer_token(headers: Mapping[str, str] | None) -> str:
    """The token of `Authorization: Bearer <token>`; `Unauthorized` when it is missing."""
    value = ""
    for name, header in (headers or {}).items():
        if name.lower() == "authorization":
            value = header
            break
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized(
            "send the token as 'Authorization: Bearer <token>'", rule="Authorization"
        )
    return token.strip()


def optional_bearer_token(headers: Mapping[str, str] | None) -> str | None:
    """The Bearer token if an `Authorization` header was sent (a malformed one is
    `Unauthorized`, never taken for its absence); None without one."""
    if not any(name.lower() == "authorization" for name in (headers or {})):
        return None
    return bearer_token(headers)
