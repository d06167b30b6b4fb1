"""Concurrent execution environments for the API function, as Lambda scales it out.

Each worker is a process of its own with the handler imported and its services wired
to the same table, so requests are handled side by side (one at a time per worker, as
in Lambda) while moto's server works on another core.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from infra.dice import DiceSource, PlaceSeededDice, SecretDice
from infra.local.lambda_events import LocalContext
from infra.settings import Settings

_handler: Any = None


def dice_for(seed: str | None) -> DiceSource:
    """Cryptographic dice, or dice fixed by the seed, the table and the version (the same
    whichever worker rolls them)."""
    return PlaceSeededDice(seed) if seed else SecretDice()


def _start_worker(settings: Settings, dice_seed: str | None, quiet: bool) -> None:
    global _handler  # noqa: PLW0603 (one handler per worker process, as in Lambda)
    if quiet:  # Powertools prints metrics to stdout even when they are disabled
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (for the process's lifetime)
    # Imported in the worker, once the environment is set: the handler reads it at import.
    from functions.api.app import lambda_handler  # noqa: PLC0415
    from functions.wiring import use_services  # noqa: PLC0415
    from infra.bootstrap import aws_client, build_services  # noqa: PLC0415

    use_services(build_services(settings, client=aws_client("dynamodb"), dice=dice_for(dice_seed)))
    _handler = lambda_handler


def _invoke(event: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = _handler(event, LocalContext(function_name="api"))
    return result


class ApiWorkers:
    """`count` API execution environments; `invoke` runs an event on a free one."""

    def __init__(
        self, count: int, settings: Settings, dice_seed: str | None, *, quiet: bool
    ) -> None:
        self._pool = ProcessPoolExecutor(
            count,
            mp_context=multiprocessing.get_context("spawn"),  # never fork a threaded process
            initializer=_start_worker,
            initargs=(settings, dice_seed, quiet),
        )

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        """The handler's answer to `event`."""
        return self._pool.submit(_invoke, event).result()

    def close(self) -> None:
        """Stop the workers."""
        self._pool.shutdown(wait=True, cancel_futures=True)
