"""`make serve`: the whole service over real HTTP, moto's server behind it, and the
local runner delivering stream records, queue messages and due schedules."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from served import open_cup, play_tournament, serve_in_session

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


def test_a_cancellation_stops_the_tables_through_the_job_queue(service_url: str) -> None:
    api = ApiClient(service_url)
    tid, organizer = open_cup(api, "Cancelled cup", table_size=4, advance=2)
    tokens = [
        api.ok("POST", f"/tournaments/{tid}/players", {"name": f"p{n}"})["player_token"]
        for n in range(12)
    ]
    api.ok("POST", f"/tournaments/{tid}/start", token=organizer)
    read = _until(api, tid, lambda cup: cup["status"] == "running")
    cancelled = api.call("POST", f"/tournaments/{tid}/cancel", token=organizer)
    assert (cancelled.status, cancelled.body["status"]) == (202, "cancelled")
    done = _until(api, tid, lambda cup: not cup["cancel_progress"]["stopping"])
    assert done["cancel_progress"]["tables_stopped"] == read["rounds"][0]["tables"] == 3
    me = api.ok("GET", f"/tournaments/{tid}/me", token=tokens[0])
    acted = api.call(
        "POST",
        f"/tournaments/{tid}/tables/{me['table']}/actions",
        {"version": 0, "action": {"kind": "throw"}},
        token=tokens[0],
    )
    assert (acted.status, acted.body["code"]) == (409, "wrong_status")


def _until(api: ApiClient, tournament: str, done: Callable[[Any], bool]) -> Any:
    """The tournament read once `done` holds for it (within a minute)."""
    ends = time.monotonic() + 60
    while time.monotonic() < ends:
        read = api.ok("GET", f"/tournaments/{tournament}")
        if done(read):
            return read
        time.sleep(0.1)
    raise AssertionError(f"tournament {tournament} never got there: {read}")


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


def _children(pid: int) -> set[int]:
    """The child processes of `pid`, whichever of its threads started them."""
    children: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with suppress(FileNotFoundError):  # the thread or the process has ended
            children |= {int(child) for child in (task / "children").read_text().split()}
    return children


def _descendants(pid: int) -> set[int]:
    found: set[int] = set()
    for child in _children(pid):
        found |= {child} | _descendants(child)
    return found


def _alive(pid: int) -> bool:
    try:
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


def _still_alive(pids: set[int], seconds: float = 20) -> set[int]:
    """The processes of `pids` still alive after waiting up to `seconds` for them."""
    deadline = time.monotonic() + seconds
    while (alive := {pid for pid in pids if _alive(pid)}) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def _api_workers(serve: int) -> set[int]:
    workers = set()
    for pid in _children(serve):
        with suppress(FileNotFoundError):
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"multiprocessing" in command and b"resource_tracker" not in command:
                workers.add(pid)
    return {pid for pid in workers if _alive(pid)}


@contextmanager
def _serve(*extra: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`make serve` in memory, in a session of its own; (process, its URL) once it has
    printed where everything is."""
    with serve_in_session("--memory", *extra) as (serve, url, banner):
        for label in ("API ", "Swagger UI ", "Bracket pages "):
            assert label in banner
        yield serve, url


def test_ctrl_c_stops_the_service_its_workers_and_moto_without_a_traceback() -> None:
    with _serve() as (serve, url):
        assert ApiClient(url).call("GET", "/openapi.json").status == 200
        helpers = _descendants(serve.pid)
        assert len(helpers) >= 3, "moto's server and the API workers run as child processes"

        os.killpg(serve.pid, signal.SIGINT)  # a terminal's Ctrl-C: the whole process group
        out, err = serve.communicate(timeout=60)
        assert serve.returncode == 0
        assert "Stopped." in out
        assert "Traceback" not in err, err
        assert _still_alive(helpers) == set()


def test_a_killed_api_worker_is_replaced_and_no_request_fails_for_it() -> None:
    with _serve() as (serve, url):
        api = ApiClient(url)
        assert api.call("GET", "/openapi.json").status == 200
        deadline = time.monotonic() + 30
        while len(workers := _api_workers(serve.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(workers) == 2
        killed = min(workers)
        os.kill(killed, signal.SIGKILL)
        assert _still_alive({killed}) == set()

        statuses = [api.call("GET", "/tournaments/t-nothere").status for _ in range(20)]
        assert statuses == [404] * 20
        replaced = _api_workers(serve.pid)
        assert killed not in replaced and len(replaced) == 2

        os.killpg(serve.pid, signal.SIGINT)
        _, err = serve.communicate(timeout=60)
        assert serve.returncode == 0 and "Traceback" not in err, err


def test_a_killed_service_leaves_no_process_behind() -> None:
    with _serve() as (serve, url):
        assert ApiClient(url).call("GET", "/openapi.json").status == 200
        helpers = _descendants(serve.pid)
        assert len(helpers) >= 3

        serve.kill()  # no chance to stop anything: each helper must notice by itself
        serve.wait(timeout=30)
        assert _still_alive(helpers) == set()
