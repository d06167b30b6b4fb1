"""`knobelcup organize list | head -3`: once the reader has gone, the command ends
quietly, as other Unix tools do, instead of reporting a broken pipe as a lost service."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from cli.organizer_tokens import KeptTournament, TokenFile

KEPT = 60


class _Tournaments(BaseHTTPRequestHandler):
    """Answers `GET /tournaments/{id}` for any id, as the service would."""

    def do_GET(self) -> None:
        tournament = self.path.rsplit("/", 1)[-1]
        body = json.dumps(
            {"status": "open", "game": "maexchen", "player_count": 3, "name": tournament}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def service() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Tournaments)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_organize_list_into_a_closed_pipe_ends_quietly(service: str, tmp_path: Path) -> None:
    ring = TokenFile(tmp_path / "tournaments.json")
    for n in range(KEPT):
        ring.keep(KeptTournament(f"t-{n:010d}", service, f"o-{n}", f"Cup {n}"))
    command = [sys.executable, "-c", "from cli.main import main; raise SystemExit(main())"]
    listing = subprocess.Popen(
        [*command, "organize", "list", "--url", service, "--tokens-file", str(ring.path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert listing.stdout is not None and listing.stderr is not None
    head = [listing.stdout.readline() for _ in range(3)]  # `| head -3`
    listing.stdout.close()
    code = listing.wait(timeout=60)
    err = listing.stderr.read()
    assert all(line.startswith("t-") for line in head), head
    assert code == 141, err
    assert err == ""  # no "cannot reach …: Broken pipe", no traceback
