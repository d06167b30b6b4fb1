"""`knobelcup verify` against the local service with secret dice, as in production: a
finished table is proven by its URL, over real HTTP, in a process of its own."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from served import play_tournament

from cli.api_client import ApiClient
from cli.serve import serving_in_background


@pytest.fixture(scope="module")
def secret_service() -> Iterator[str]:
    """A fresh local service without `--dice-seed`: every server seed from `secrets`."""
    with serving_in_background(0) as url:
        yield url


def _verify(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from cli.main import main; raise SystemExit(main())"]
    return subprocess.run(
        [*command, "verify", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_a_finished_table_is_verified_by_its_url(secret_service: str) -> None:
    finished, _ = play_tournament(secret_service, 4, table_size=4, advance=1)
    tournament = finished["tournament_id"]
    log = ApiClient(secret_service).ok("GET", f"/tournaments/{tournament}/tables/R1-1/log")
    assert log["dice"]["secret"] is True and log["dice"]["server_seed"]
    throws = sum(1 for record in log["records"] if record.get("dice"))

    for url in (
        f"{secret_service}/tournaments/{tournament}/tables/R1-1",
        f"{secret_service}/tournaments/{tournament}/tables/R1-1/watch",
    ):
        verified = _verify(url)
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert f"all {throws} throws verified" in verified.stdout
        assert "not secret" not in verified.stdout


def test_a_table_in_play_or_unknown_is_not_verified(secret_service: str) -> None:
    api = ApiClient(secret_service)
    created = api.ok("POST", "/tournaments", {"game": "maexchen", "table_size": 2, "advance": 1})
    tid, organizer = created["tournament_id"], created["organizer_token"]
    api.ok("POST", f"/tournaments/{tid}/registration/open", token=organizer)
    for name in ("Anna", "Bernd"):
        api.ok("POST", f"/tournaments/{tid}/players", {"name": name, "seed": f"{name}-seed"})
    api.ok("POST", f"/tournaments/{tid}/start", token=organizer)
    deadline = time.monotonic() + 60
    while api.ok("GET", f"/tournaments/{tid}")["status"] != "running":  # the start job seats
        assert time.monotonic() < deadline, "round 1 was not seated"
        time.sleep(0.2)
    table = f"{secret_service}/tournaments/{tid}/tables/R1-1"
    playing = _verify(table)
    assert playing.returncode == 1 and "not revealed" in playing.stdout, playing.stdout
    assert _verify(f"{secret_service}/tournaments/{tid}/tables/R9-9").returncode == 2


def test_a_tournament_url_verifies_every_finished_table(secret_service: str) -> None:
    finished, _ = play_tournament(secret_service, 8, table_size=4, advance=2)
    tournament = finished["tournament_id"]
    tables = sum(summary["tables"] for summary in finished["rounds"])
    for url in (
        f"{secret_service}/tournaments/{tournament}",
        f"{secret_service}/tournaments/{tournament}/bracket?projector=1",
    ):
        verified = _verify(url)
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert f"{tables} of {tables} finished tables verified" in verified.stdout
        assert verified.stdout.count("throws verified") == tables
        assert "No such file" not in verified.stdout + verified.stderr
