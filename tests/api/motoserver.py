"""moto's server in a process of its own: a real process boundary, like DynamoDB's.

It runs as `infra.local.moto_atomic`, which serves one request at a time so that conditional
writes are atomic, as DynamoDB's are.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager


def free_port() -> int:
    """A port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def moto_server() -> Iterator[str]:
    """Start `moto.server` on a free port; yield its URL; stop it."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "infra.local.moto_atomic",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url + "/moto-api/", timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("moto's server did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
