"""What each function calls, built once per Lambda container from the environment.

Built on first use, so importing stays cheap; tests and the local stack put their own
in place (over moto, with injected dice and clock).

With SnapStart (the template's `SnapStart` parameter) Lambda initializes a function once,
snapshots its memory and resumes every new execution environment from that snapshot.
Whatever was in memory is then shared by all of them: so before the snapshot every
`Wired` is built (`prime`: the imports, botocore's service models), and after each
restore (`renew`) the random generator gets fresh entropy and every `Wired` built from
the environment is dropped, to be rebuilt on first use with its own clients, credentials
and connections, from models already loaded (`infra.bootstrap.aws_client`).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from infra.bootstrap import Services, build_services
from infra.settings import Settings

T = TypeVar("T")
_EVERY: list[Wired[Any]] = []  # every container-wide instance holder, for the hooks


class Wired(Generic[T]):
    """One container-wide instance of `T`, built by `build` from the environment."""

    def __init__(self, build: Callable[[Settings], T]) -> None:
        self._build = build
        self._instance: T | None = None
        self._built = False  # `T` may itself allow None ("nothing to do here")
        self._replaced = False
        _EVERY.append(self)

    def __call__(self) -> T:
        if not self._built:
            self._instance = self._build(Settings.from_env())
            self._built = True
        return self._instance  # type: ignore[return-value]  # built: a T

    def use(self, replacement: T | None) -> None:
        """Run on `replacement`; None goes back to building from the environment."""
        self._instance = replacement
        self._replaced = self._built = replacement is not None

    def renew(self) -> None:
        """Drop the instance built from the environment (one put in place with `use`
        stays): the next call builds a new one."""
        if not self._replaced:
            self._instance = None
            self._built = False


services: Wired[Services] = Wired(build_services)


def use_services(replacement: Services | None) -> None:
    """Run the API on other services (tests, the local stack)."""
    services.use(replacement)


def prime() -> None:
    """Build every `Wired` of this function now (before a snapshot), so that the
    snapshot holds the loaded modules and models, not the first request."""
    for wired in _EVERY:
        wired()


def renew() -> None:
    """After a restore from a snapshot: nothing that must be unique per execution
    environment stays shared. `random`'s state (botocore's retry jitter draws from it)
    is reseeded from the operating system, and every `Wired` is rebuilt on first use.
    Dice and tokens come from `secrets`, which keeps no state of its own."""
    random.seed()
    for wired in _EVERY:
        wired.renew()


def _register_snapstart_hooks() -> bool:
    """Register `prime` and `renew` with Lambda's SnapStart runtime hooks; whether that
    was done. The hooks' library comes with Lambda's Python runtimes (3.12 and later),
    nowhere else, and only a SnapStart initialization needs them."""
    if os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") != "snap-start":
        return False
    try:
        from snapshot_restore_py import (  # type: ignore[import-not-found]  # noqa: PLC0415
            register_after_restore,
            register_before_snapshot,
        )
    except ImportError:  # a runtime without the library: nothing is snapshotted
        return False
    register_before_snapshot(prime)
    register_after_restore(renew)
    return True


SNAPSTART_HOOKS = _register_snapstart_hooks()
