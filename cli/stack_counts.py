"""What the served stack counted (`GET /_local/operations`, local/operations.py), read
once it has settled: the pushes, timers and progression a change sets off trail it."""

from __future__ import annotations

import time
from typing import Any

from cli.api_client import ApiClient
from core.capacity.calibration import Counts
from local.operations import PATH

SETTLE_SECONDS = 2.0  # counts unchanged this long: the pushes and progression are done
SETTLE_LIMIT = 180.0  # one record a batch: the pushes may trail the final by a minute


def read_counts(url: str) -> Counts:
    """What the served stack counted so far."""
    answer: Counts = ApiClient(url).ok("GET", PATH)
    return answer


def settled(url: str) -> Counts:
    """The counts once nothing has changed them for `SETTLE_SECONDS`."""
    deadline = time.monotonic() + SETTLE_LIMIT
    last = read_counts(url)
    while time.monotonic() < deadline:
        time.sleep(SETTLE_SECONDS)
        now = read_counts(url)
        if _without_reads_of_counts(now) == _without_reads_of_counts(last):
            return now
        last = now
    return last


def _without_reads_of_counts(counts: Counts) -> dict[str, Any]:
    """The calls that only the tournament makes (not the clock's sweeps, nor reads of
    these counts)."""
    moving = ("apigateway:", "scheduler:", "events:", "lambda:P", "lambda:T", "lambda:J")
    return {k: v for k, v in counts["calls"].items() if k.startswith(moving)}
