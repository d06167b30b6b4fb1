"""`make serve`: the whole service over real HTTP, moto's server behind it, and the
local runner delivering stream records, queue messages and due schedules."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from served import play_tournament

from cli.api_client import ApiClient


def test_the_http_front_answers_as_api_gateway_would(service_url: str) -> None:
    api = ApiClient(service_url)
    created = api.call("POST", "/tournaments", {"game": "maexchen"})
    assert created.status == 201
    assert created.headers["content-type"].startswith("application/json")
    tid = created.body["tournament_id"]
    assert api.ok("GET", f"/tournaments/{tid}")["status"] == "draft"

    host, port = urlsplit(service_url).hostname, urlsplit(service_url).port
    raw = http.client.HTTPConnection(str(host), port, timeout=10)
    raw.request(
        "POST", "/tournaments", body=b'{"game": ', headers={"Content-Type": "application/json"}
    )
    broken = raw.getresponse()
    assert broken.status == 400 and json.loads(broken.read())["code"] == "malformed_json"
    bad = api.call("POST", "/tournaments", {"game": "maexchen", "table_size": 99})
    assert bad.status == 422 and bad.body["field"] == "table_size"
    missing = api.call("GET", "/tournaments/t-nothere")
    assert missing.status == 404 and missing.body["code"] == "not_found"
    query = api.call("GET", f"/tournaments/{tid}/standings", query={"limit": "0"})
    assert query.status == 422 and "limit" in query.raw

    docs = api.call("GET", "/docs")
    assert docs.status == 200 and "swagger" in docs.raw.lower()
    assert api.ok("GET", "/openapi.json")["openapi"].startswith("3.")


def test_a_tournament_runs_to_its_champion_through_the_local_runner(service_url: str) -> None:
    finished, bots = play_tournament(service_url, 14)
    assert finished["status"] == "finished"
    assert finished["champion"] in bots.seats
    places = [row["place"] for row in finished["standings"]]
    assert places == list(range(1, len(places) + 1))
    assert finished["standings"][0]["player"] == finished["champion"]


def test_a_missed_turn_times_out_on_the_real_clock(service_url: str) -> None:
    api = ApiClient(service_url)
    created = api.ok(
        "POST",
        "/tournaments",
        {"game": "maexchen", "table_size": 2, "advance": 1, "turn_timeout_seconds": 1},
    )
    tid, organizer = created["tournament_id"], created["organizer_token"]
    api.ok("POST", f"/tournaments/{tid}/registration/open", token=organizer)
    for name in ("sleepy", "dozy"):
        api.ok("POST", f"/tournaments/{tid}/players", {"name": name})
    api.ok("POST", f"/tournaments/{tid}/start", token=organizer)
    deadline = time.monotonic() + 30
    while api.ok("GET", f"/tournaments/{tid}")["status"] == "starting":
        assert time.monotonic() < deadline, "round 1 was never seated"
        time.sleep(0.1)
    actions: list[object] = []
    while time.monotonic() < deadline and not actions:
        log = api.ok("GET", f"/tournaments/{tid}/tables/R1-1/log")
        actions = [record["action"] for record in log["records"] if record["action"]]
        time.sleep(0.5)
    assert {"kind": "timeout"} in actions


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


def test_ctrl_c_stops_the_service_and_moto_with_it() -> None:
    serve = subprocess.Popen(
        [sys.executable, "-m", "cli.serve", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert serve.stdout is not None
    lines = []
    for line in serve.stdout:
        lines.append(line)
        if "Ctrl-C" in line:
            break
    banner = "".join(lines)
    for label in ("API ", "Swagger UI ", "Bracket pages "):
        assert label in banner
    url = next(line.split()[-1] for line in lines if line.strip().startswith("API "))
    assert ApiClient(url).call("GET", "/openapi.json").status == 200
    helpers = _children(serve.pid)
    assert helpers, "moto's server and the API workers run as child processes"

    serve.send_signal(signal.SIGINT)
    assert serve.wait(timeout=30) == 0
    assert "Stopped." in serve.stdout.read()
    for pid in helpers:
        assert (
            not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()
        )
