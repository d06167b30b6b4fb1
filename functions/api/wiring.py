"""The services the routes call, built once per Lambda container from the environment."""

from __future__ import annotations

from infra.bootstrap import Services, build_services
from infra.settings import Settings

_services: Services | None = None


def services() -> Services:
    """The container's services (built on first use, so importing stays cheap)."""
    global _services  # noqa: PLW0603  # one set per container, reused by warm invocations
    if _services is None:
        _services = build_services(Settings.from_env())
    return _services


def use_services(replacement: Services | None) -> None:
    """Run on other services (tests, the local stack); None goes back to the environment's."""
    global _services  # noqa: PLW0603
    _services = replacement
