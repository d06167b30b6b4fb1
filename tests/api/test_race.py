"""16 Lambda containers (processes) race actions on one table against moto's server.

Each version of the table is contested by all 16 at once; exactly one wins, the rest
get 409 with the current version; the stored log holds exactly the winners' moves.
"""

from __future__ import annotations

import multiprocessing
import random
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.synchronize import Barrier
from typing import Any

import boto3
import pytest
from apiclient import ApiClient
from botocore.config import Config

from core.audit import verify
from functions.wiring import use_services
from infra.bootstrap import build_jobs, build_services
from infra.settings import Settings
from local.moto_atomic import moto_server
from local.provision import create_tables

RACERS = 16
VERSIONS = 24
_barrier: Barrier | None = None


@pytest.fixture
def served(aws_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[ApiClient]:
    """The API in this process over moto's server in another."""
    with moto_server() as url:
        monkeypatch.setenv("AWS_ENDPOINT_URL", url)
        create_tables(boto3.client("dynamodb"), names={"KnobelcupTable": "knobelcup"})
        use_services(build_services(Settings.from_env()))
        yield ApiClient(jobs=build_jobs(Settings.from_env()))
        use_services(None)


def _start_container(barrier: Barrier) -> None:
    """A fresh container: its own services and DynamoDB client, as on Lambda.

    The client waits longer than the production one: 16 processes on a small CI machine
    can keep moto busy for seconds, and a timeout here would be the machine's, not ours.
    """
    global _barrier  # noqa: PLW0603
    _barrier = barrier
    patient = Config(read_timeout=60, retries={"mode": "standard", "max_attempts": 1})
    client = boto3.client("dynamodb", config=patient)
    use_services(build_services(Settings.from_env(), client=client))


def _race(task: tuple[str, str, str, int, dict[str, Any], int]) -> tuple[int, Any]:
    tournament, table, token, version, action, racer = task
    assert _barrier is not None
    _barrier.wait(timeout=60)
    answer = ApiClient().call(
        "POST",
        f"/tournaments/{tournament}/tables/{table}/actions",
        {"version": version, "action": action},
        token=token,
        headers={"Idempotency-Key": f"racer-{racer}-v{version}"},
    )
    return answer.status, answer.body


def test_sixteen_racers_one_winner_per_version(served: ApiClient) -> None:
    api = served
    created = api.call("POST", "/tournaments", {"game": "maexchen", "table_size": 4}).body
    tournament, organizer = created["tournament_id"], created["organizer_token"]
    api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    tokens = {}
    for number in range(4):
        player = api.call("POST", f"/tournaments/{tournament}/players", {"name": f"p{number}"})
        tokens[player.body["player_id"]] = player.body["player_token"]
    assert api.call("POST", f"/tournaments/{tournament}/start", token=organizer).status == 202

    rng = random.Random(16)
    winners: list[dict[str, Any]] = []
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(RACERS)
    with context.Pool(RACERS, initializer=_start_container, initargs=(barrier,)) as pool:
        for _ in range(VERSIONS):
            view = api.call("GET", f"/tournaments/{tournament}/tables/R1-1").body["view"]
            if view["to_act"] is None:
                break
            token = tokens[view["to_act"]]
            legal = api.call("GET", f"/tournaments/{tournament}/tables/R1-1/me", token=token).body[
                "view"
            ]["legal_actions"]
            tasks = [
                (tournament, "R1-1", token, view["version"], rng.choice(legal), racer)
                for racer in range(RACERS)
            ]
            results = pool.map(_race, tasks, chunksize=1)
            accepted = [body for status, body in results if status == 200]
            rejected = [body for status, body in results if status != 200]
            assert len(accepted) == 1, results
            assert all(b["code"] == "stale_version" for b in rejected), rejected
            assert all(b["current_version"] == view["version"] + 1 for b in rejected)
            winners.append(accepted[0])

    log = api.call("GET", f"/tournaments/{tournament}/tables/R1-1/log").body
    assert len(log["records"]) == len(winners) + 1  # nothing applied twice, nothing lost
    for version, winner in enumerate(winners, start=1):
        record = log["records"][version]
        assert winner["view"]["version"] == record["version"] == version
        assert [e["type"] for e in winner["events"]] == [e["type"] for e in record["events"]]
    if log["complete"]:
        verify(log["records"])


def test_sixteen_registrations_of_one_name_one_player(served: ApiClient) -> None:
    api = served
    created = api.call("POST", "/tournaments", {"game": "maexchen"}).body
    tournament, organizer = created["tournament_id"], created["organizer_token"]
    api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    # one name, written as differently as its comparison allows
    spellings = ["Anna", "anna", " ANNA ", "ＡＮＮＡ"]
    # threads, not forked containers: the race is DynamoDB's (moto's server, another
    # process), and forking a process that runs threads can hang the child
    barrier = threading.Barrier(RACERS)

    def register(name: str) -> tuple[int, Any]:
        barrier.wait(timeout=60)
        answer = ApiClient().call("POST", f"/tournaments/{tournament}/players", {"name": name})
        return answer.status, answer.body

    with ThreadPoolExecutor(max_workers=RACERS) as pool:
        results = list(pool.map(register, [spellings[r % len(spellings)] for r in range(RACERS)]))
    registered = [body for status, body in results if status == 201]
    refused = [(status, body) for status, body in results if status != 201]
    assert len(registered) == 1, results
    assert all(s == 409 and b["code"] == "name_taken" for s, b in refused), refused
    assert api.call("GET", f"/tournaments/{tournament}").body["player_count"] == 1
