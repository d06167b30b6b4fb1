"""What each function calls, built once per Lambda container from the environment.

Built on first use, so importing stays cheap; tests and the local stack put their own
in place (over moto, with injected dice and clock).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from infra.bootstrap import Services, build_services
from infra.settings import Settings

T = TypeVar("T")


class Wired(Generic[T]):
    """One container-wide instance of `T`, built by `build` from the environment."""

    def __init__(self, build: Callable[[Settings], T]) -> None:
        self._build = build
        self._instance: T | None = None

    def __call__(self) -> T:
        if self._instance is None:
            self._instance = self._build(Settings.from_env())
        return self._instance

    def use(self, replacement: T | None) -> None:
        """Run on `replacement`; None goes back to building from the environment."""
        self._instance = replacement


services: Wired[Services] = Wired(build_services)


def use_services(replacement: Services | None) -> None:
    """Run the API on other services (tests, the local stack)."""
    services.use(replacement)
