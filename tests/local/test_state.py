"""`make serve` with a state directory: stopped with Ctrl-C and started again, a
tournament in play goes on to its champion with the same tokens; moto's server dying
stops the service with a clear error instead of answering 500 forever."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import boto3
from moto import mock_aws
from served import serve_in_session
from suite_dice import suite_seed

from cli.api_client import ApiClient
from cli.demo_bots import DemoBots, bot_names
from core.bracket import BracketPlan
from local.provision import create_messaging

PLAYERS, TABLE_SIZE, ADVANCE = 8, 4, 2  # round 1: two tables; the final: one


class _Enough(Exception):
    """Stops the bots once part of the tournament is played."""


@contextmanager
def _serve(state: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`make serve --state state` in a session of its own; (process, its URL)."""
    with serve_in_session("--dice-seed", suite_seed("state"), "--state", str(state)) as (
        serve,
        url,
        _,
    ):
        yield serve, url


def _ctrl_c(serve: subprocess.Popen[str]) -> None:
    os.killpg(serve.pid, signal.SIGINT)
    out, err = serve.communicate(timeout=90)
    assert serve.returncode == 0, err
    assert "Stopped." in out
    assert "Traceback" not in err, err


def test_a_tournament_stopped_midway_goes_on_to_its_champion_after_a_restart(
    tmp_path: Path,
) -> None:
    plan = BracketPlan.build(PLAYERS, TABLE_SIZE, ADVANCE)
    with _serve(tmp_path) as (serve, url):
        api = ApiClient(url)
        created = api.ok(
            "POST",
            "/tournaments",
            {"game": "maexchen", "name": "Restarted", "table_size": TABLE_SIZE, "advance": ADVANCE},
        )
        tid, organizer = created["tournament_id"], created["organizer_token"]
        api.ok("POST", f"/tournaments/{tid}/registration/open", token=organizer)
        bots = DemoBots(url, tid, "maexchen", workers=2)
        bots.register(bot_names(PLAYERS))
        api.ok("POST", f"/tournaments/{tid}/start", {"seed": "state"}, token=organizer)

        def stop_after_the_first_table(_round: int) -> None:
            raise _Enough

        try:
            bots.play(plan, stop_after_the_first_table)
        except _Enough:
            pass
        else:
            raise AssertionError("the first finished table should have stopped the bots")
        before = api.ok("GET", f"/tournaments/{tid}/rounds/1")
        _ctrl_c(serve)
    assert (tmp_path / "moto.pickle").exists()
    over_before = {t["table"] for t in before["tables"] if t["over"]}
    assert over_before, "a round-1 table was over before the stop"

    with _serve(tmp_path) as (serve, url):
        api = ApiClient(url)
        going_on = api.ok("GET", f"/tournaments/{tid}")
        assert going_on["status"] == "running"
        after = api.ok("GET", f"/tournaments/{tid}/rounds/1")
        assert {t["table"] for t in after["tables"] if t["over"]} >= over_before
        # the organizer's token still works: a running tournament refuses another start
        again = api.call("POST", f"/tournaments/{tid}/start", token=organizer)
        assert again.status == 409, again.raw
        restarted = DemoBots(url, tid, "maexchen", workers=2, seats=bots.seats)
        finished = restarted.play(plan, lambda _round: None)
        assert finished["status"] == "finished"
        assert finished["champion"] in bots.seats
        # every player's token from before the stop still opens their own view
        some = next(iter(bots.seats.values()))
        me = api.ok("GET", f"/tournaments/{tid}/me", token=some.token)
        assert me["place"] >= 1
        _ctrl_c(serve)


def _moto_process(serve: int) -> int:
    for child in Path(f"/proc/{serve}/task").glob("*/children"):
        for pid in child.read_text().split():
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"local.moto_atomic" in command:
                return int(pid)
    raise AssertionError("moto's server runs as a child process of serve")


def test_when_motos_server_dies_serve_says_so_and_stops(tmp_path: Path) -> None:
    with _serve(tmp_path) as (serve, url):
        api = ApiClient(url)
        assert api.call("POST", "/tournaments", {"game": "maexchen"}).status == 201
        os.kill(_moto_process(serve.pid), signal.SIGKILL)
        _, err = serve.communicate(timeout=90)
        assert serve.returncode == 1
        assert "moto's server (the local AWS) exited with code -9" in err
        assert "Traceback" not in err, err
    # and it goes on from what was saved: a state that moto can load
    with _serve(tmp_path) as (serve, url):
        assert ApiClient(url).call("GET", "/openapi.json").status == 200
        _ctrl_c(serve)


def test_a_deadline_that_passed_while_stopped_is_applied_at_once_after_a_restart(
    tmp_path: Path,
) -> None:
    with _serve(tmp_path) as (serve, url):
        api = ApiClient(url)
        created = api.ok(
            "POST",
            "/tournaments",
            {"game": "maexchen", "table_size": 2, "advance": 1, "turn_timeout_seconds": 2},
        )
        tid, organizer = created["tournament_id"], created["organizer_token"]
        api.ok("POST", f"/tournaments/{tid}/registration/open", token=organizer)
        for name in ("Anna", "Bernd"):  # they never act: every turn times out
            api.ok("POST", f"/tournaments/{tid}/players", {"name": name, "seed": f"{name}-seed"})
        api.ok("POST", f"/tournaments/{tid}/start", token=organizer)
        table = f"/tournaments/{tid}/tables/R1-1"
        deadline = time.monotonic() + 60
        while api.call("GET", table).status != 200:  # the start job seats the table
            assert time.monotonic() < deadline, "R1-1 was not seated"
            time.sleep(0.1)
        _ctrl_c(serve)
    time.sleep(3)  # the turn's 2 s pass while nothing serves
    with _serve(tmp_path) as (serve, url):
        api = ApiClient(url)
        began = time.monotonic()
        stopped = api.ok("GET", table)["view"]["version"]  # answered once an API worker is up
        restarted = time.monotonic()  # deadlines wait for one (the turn could not be taken)
        while (api_version := api.ok("GET", table)["view"]["version"]) == stopped:
            assert time.monotonic() - restarted < 180, "the overdue deadline was never applied"
            time.sleep(0.1)
        waited = time.monotonic() - restarted
        _ctrl_c(serve)
    print(
        f"the overdue deadline was applied {waited:.1f} s after the service could serve"
        f" ({restarted - began:.1f} s after it said it was serving)"
    )
    assert waited < 10, f"the overdue deadline was applied only {waited:.1f} s after the restart"
    assert api_version > stopped


def test_provisioning_a_restored_state_keeps_its_pending_deadlines(aws_env: None) -> None:
    with mock_aws():
        clients = [boto3.client(name) for name in ("events", "sqs", "scheduler")]
        made = create_messaging(*clients, "kept")
        scheduler = clients[2]
        scheduler.create_schedule(
            Name="t-1.R1-1.v0",
            GroupName=made.schedule_group,
            ScheduleExpression="at(2030-01-01T00:00:00)",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": "arn:aws:lambda:eu-central-1:123456789012:function:f", "RoleArn":
                    "arn:aws:iam::123456789012:role/r", "Input": "{}"},
        )  # fmt: skip
        create_messaging(*clients, "kept", exist_ok=True)  # as a restart does
        names = [
            s["Name"] for s in scheduler.list_schedules(GroupName=made.schedule_group)["Schedules"]
        ]
        assert names == ["t-1.R1-1.v0"]


def test_serve_restarted_on_the_same_state_keeps_its_port(tmp_path: Path) -> None:
    def answers(url: str) -> bool:  # and its API workers are up: a Ctrl-C finds them ready
        return ApiClient(url).call("GET", "/openapi.json").status == 200

    with serve_in_session("--state", str(tmp_path)) as (serve, first, _):  # --port 0: any
        assert answers(first)
        _ctrl_c(serve)
    with serve_in_session("--state", str(tmp_path), port=None) as (serve, again, _):
        assert again == first  # every client's URL still works
        assert answers(again)
        _ctrl_c(serve)
    with serve_in_session("--state", str(tmp_path)) as (serve, told, _):  # --port wins
        assert answers(told)
        _ctrl_c(serve)
    assert (tmp_path / "port").read_text().strip() == told.rsplit(":", 1)[1]
