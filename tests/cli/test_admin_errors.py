"""`knobelcup admin` pointed at nothing, at the wrong thing, or at an AWS it has no
settings for: one line on what is wrong and what to do, never a traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from local.fake_aws import pointing_elsewhere


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _admin(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from cli.main import main; raise SystemExit(main())"]
    return subprocess.run(
        [*command, "admin", *args], capture_output=True, text=True, timeout=120, check=False,
        env=env,
    )  # fmt: skip


class _NotAws(BaseHTTPRequestHandler):
    """A web server that is not moto: the service's front, say."""

    def do_POST(self) -> None:
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize("where", ["nothing", "not a url", "not moto"])
def test_a_wrong_local_address_is_one_line(where: str) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotAws)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    local = {
        "nothing": f"http://127.0.0.1:{_closed_port()}",
        "not a url": "localhost-3000",
        "not moto": f"http://127.0.0.1:{server.server_address[1]}",
    }[where]
    try:
        done = _admin("reconcile", "t-abcdefghij", "--local", local)
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode in (1, 2)
    assert "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: ") and "make serve" in line, line


def test_no_aws_settings_is_one_line(tmp_path: Path) -> None:
    env = {name: value for name, value in os.environ.items() if not name.startswith("AWS_")}
    for name in pointing_elsewhere(os.environ):
        env.pop(name, None)
    env.update(
        HOME=str(tmp_path), AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull,
        AWS_EC2_METADATA_DISABLED="true",
    )  # fmt: skip
    done = _admin("reconcile", "t-abcdefghij", env=env)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: no AWS region set: pass --region"), line
    region = {**env, "AWS_DEFAULT_REGION": "eu-central-1"}
    done = _admin("reconcile", "t-abcdefghij", env=region)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: no AWS credentials found"), line


def test_admin_says_it_in_german_when_asked_or_by_the_locale() -> None:
    done = _admin("reconcile", "t-abcdefghij", "--local", "localhost-3000", "--language", "de")
    [line] = done.stderr.strip().splitlines()
    assert done.returncode == 2 and line.startswith(
        "Fehler: --local 'localhost-3000' ist keine URL"
    )
    assert "make serve" in line, line
    german = {**os.environ, "LANG": "de_DE.UTF-8"}
    done = _admin("reconcile", "t-abcdefghij", "--local", "localhost-3000", env=german)
    assert done.stderr.startswith("Fehler: "), done.stderr
