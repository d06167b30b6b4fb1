"""moto's state in a file: what `make serve` keeps across a stop and a start.

moto 5 has no persistence of its own, so the server pickles its backends of the services
the local stack uses (DynamoDB with its stream, EventBridge, SQS, Scheduler) and loads
them again at its next start. Everything the service knows is in there: tournaments,
tables, tokens (as hashes), stream records, queue messages, pending turn deadlines, and
the runner's own position on the stream (`local.checkpoint`), so that position
can never be ahead of the records it counts.

A snapshot is written whole to a temporary file and renamed over the last one: a crash
while writing leaves the previous snapshot. While serving it is taken by a forked copy
of the server (copy-on-write, so requests wait only for the fork); on a clean stop, in
the server itself.
"""

from __future__ import annotations

import copyreg
import io
import os
import pickle
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import moto
from moto.backends import get_backend

FORMAT = 1
# moto's shard iterators are positions a reader held; the runner keeps its own and asks
# for a new iterator after a restart, so they are left out (moto never forgets one).
SERVICES = ("dynamodb", "events", "sqs", "scheduler")


class StateUnreadable(RuntimeError):
    """The saved state cannot be loaded (damaged, or saved by another moto or Python)."""


@dataclass(frozen=True)
class Restored:
    """What a loaded snapshot held."""

    saved_at: float
    messages_made_visible: int


def _condition(_: threading.Condition) -> tuple[type[threading.Condition], tuple[()]]:
    return threading.Condition, ()


class _Pickler(pickle.Pickler):
    """A pickler that writes a fresh lock where moto keeps one (SQS queues do)."""

    dispatch_table = copyreg.dispatch_table.copy()
    dispatch_table[threading.Condition] = _condition


def _describe() -> dict[str, str]:
    return {"moto": moto.__version__, "python": sys.version.split()[0]}


def snapshot() -> bytes:
    """moto's backends of `SERVICES`, pickled. Call it while no request is served."""
    backends = {
        service: {account: dict(regions) for account, regions in get_backend(service).items()}  # type: ignore[call-overload]
        for service in SERVICES
    }
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(
        {"format": FORMAT, **_describe(), "saved_at": time.time(), "backends": backends}
    )
    return buffer.getvalue()


def save(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    with partial.open("wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    partial.replace(path)


def restore(path: Path) -> Restored | None:
    """Load the snapshot at `path` into moto's backends (None if there is none). Queue
    messages a consumer had received but not deleted are visible again at once: that
    consumer is gone with the previous run, and no one would wait out its timeout."""
    if not path.exists():
        return None
    try:
        with path.open("rb") as file:
            state = pickle.load(file)  # our own file, written by `save`
    except Exception as error:
        raise StateUnreadable(f"{path} cannot be read: {error}") from error
    here = _describe()
    if state.get("format") != FORMAT or any(state.get(key) != here[key] for key in here):
        saved = ", ".join(f"{key} {state.get(key)}" for key in here)
        raise StateUnreadable(f"{path} was saved by {saved}; this is {', '.join(here.values())}")
    for service, accounts in state["backends"].items():
        backend_dict = get_backend(service)
        for account, regions in accounts.items():
            account_backends = backend_dict[account]  # made and registered, as moto does
            for region, backend in regions.items():
                dict.__setitem__(account_backends, region, backend)
    return Restored(state["saved_at"], _make_received_messages_visible())


def _make_received_messages_visible() -> int:
    visible = 0
    for regions in get_backend("sqs").values():
        for backend in regions.values():
            for queue in backend.queues.values():
                for message in queue._messages:  # moto keeps no other list
                    if not message.visible:
                        message.visible_at = 0.0
                        visible += 1
    return visible
