"""Where the client commands look for the service: `--url`, else `$KNOBELCUP_URL`, else
the local service's address."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

from cli.api_client import DEFAULT_URL
from cli.main import build_parser

CLIENT_COMMANDS = [
    ["play", "--tournament", "t-1", "--name", "Anna"],
    ["bot", "examples.bots.maexchen_honest", "--tournament", "t-1"],
    ["udp-bridge", "--tournament", "t-1"],
    ["organize", "list"],
    ["organize", "create", "--name", "Cup"],
    ["organize", "status", "t-1"],
    ["organize", "disqualify", "t-1", "p-1"],
]
PUB = "http://192.0.2.7:3000"


@pytest.mark.parametrize("command", CLIENT_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_every_client_command_takes_the_url_from_the_environment(
    command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KNOBELCUP_URL", raising=False)
    assert build_parser().parse_args(command).url == DEFAULT_URL
    monkeypatch.setenv("KNOBELCUP_URL", PUB)
    assert build_parser().parse_args(command).url == PUB
    given = build_parser().parse_args([*command, "--url", "http://127.0.0.1:4000"])
    assert given.url == "http://127.0.0.1:4000"  # --url wins


def _closed_port() -> int:
    """A port on loopback where nothing listens (free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _knobelcup(*args: str, env: dict[str, str] | None = None) -> tuple[float, int, str]:
    """Run `knobelcup ARGS` in a process of its own: (seconds taken, exit code, output)."""
    command = [sys.executable, "-c", "from cli.main import main; raise SystemExit(main())"]
    began = time.monotonic()
    done = subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    return time.monotonic() - began, done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("where", ["refused", "unknown host"])
@pytest.mark.parametrize(
    "command",
    [["organize", "status", "t-1", "--token", "o-x"], ["bot", "examples.bots.maexchen_honest",
     "--tournament", "t-1", "--count", "3", "--no-push"], ["play", "--tournament", "t-1",
     "--name", "Anna", "--no-push"]],
    ids=lambda c: c[0],
)  # fmt: skip
def test_no_service_at_the_url_fails_within_seconds_and_says_how_to_start_one(
    command: list[str], where: str
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}" if where == "refused" else "http://knobelcup.invalid"
    seconds, code, said = _knobelcup(*command, env={"KNOBELCUP_URL": url})
    assert code == 1, said
    assert seconds < 10, f"took {seconds:.1f} s"
    assert said.count(f"cannot reach {url} (") == 1, said
    assert "make serve" in said and "gave up after" not in said and "Traceback" not in said
