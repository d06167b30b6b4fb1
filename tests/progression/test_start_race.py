"""Registration racing the start on moto's server: no player is ever orphaned.

Each trial releases one `POST .../start` together with 32 `POST .../players` from 33
processes (Lambda containers) at once, on a tournament with 3 players. Whatever the
interleaving, every registration either counts and is seated exactly once, or gets 409
`registration_closed`; the bracket is planned for exactly the players who counted, and
the tournament plays to its champion.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from collections import Counter
from collections.abc import Iterator
from multiprocessing.synchronize import Barrier
from typing import Any

import boto3
import pytest
from botocore.config import Config
from suite_dice import suite_seed
from tournament_kit import NOW, bot_tournament, http

from core.bracket import BracketPlan
from functions.wiring import use_services
from infra.bootstrap import build_services
from infra.dice import PlaceSeededDice
from infra.settings import Settings
from local.bots import Bot
from local.moto_atomic import moto_server
from local.stack import LocalStack, start_local_stack, stop_local_stack

TRIALS = 20
LATECOMERS = 32
EARLY = 3
SPREAD = 0.3  # seconds over which the 33 requests are released
_barrier: Barrier | None = None


@pytest.fixture
def served_stack(aws_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalStack]:
    """A local stack (handlers, deliveries) over moto's server in another process."""
    with moto_server() as url:
        monkeypatch.setenv("AWS_ENDPOINT_URL", url)
        yield start_local_stack("race", dice=PlaceSeededDice(suite_seed("race")), clock=lambda: NOW)
        stop_local_stack()


def _container(barrier: Barrier, settings: Settings) -> None:
    """A fresh Lambda container: its own services and client, patient with a busy moto."""
    global _barrier  # noqa: PLW0603
    _barrier = barrier
    patient = Config(read_timeout=60, retries={"mode": "standard", "max_attempts": 1})
    client = boto3.client("dynamodb", config=patient)
    use_services(build_services(settings, client=client, clock=lambda: NOW))


def _request(task: tuple[str, str, str, float]) -> tuple[str, int, dict[str, Any]]:
    kind, tournament, credential, delay = task
    assert _barrier is not None
    _barrier.wait(timeout=60)
    time.sleep(delay)  # spread over the time moto takes for the 32 registrations
    if kind == "start":
        answer = http("POST", f"/tournaments/{tournament}/start", token=credential)
    else:
        answer = http("POST", f"/tournaments/{tournament}/players", {"name": credential})
    return credential, answer.status, answer.body


def test_registrations_racing_the_start_are_all_seated_or_refused(
    served_stack: LocalStack,
) -> None:
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(LATECOMERS + 1)
    counted_in_trials: list[int] = []
    with context.Pool(
        LATECOMERS + 1, initializer=_container, initargs=(barrier, served_stack.settings)
    ) as pool:
        for trial in range(TRIALS):
            run = bot_tournament(served_stack, seed=f"race-{trial}")
            # tables of 12 and one penalty point a player: short tables, a quick champion
            run.create("maexchen", table_size=12, advance=1, options={"penalty_limit": 1})
            run.register([f"early-{n}" for n in range(EARLY)])
            jitter = random.Random(trial)
            tasks = [("start", run.tournament, run.organizer, jitter.uniform(0, SPREAD))] + [
                ("register", run.tournament, f"late-{trial}-{n}", jitter.uniform(0, SPREAD))
                for n in range(LATECOMERS)
            ]
            answers = pool.map(_request, tasks, chunksize=1)

            started, *registrations = answers
            assert started[1] == 202, started
            outcomes = Counter((status, body.get("code")) for _, status, body in registrations)
            assert set(outcomes) <= {(201, None), (409, "registration_closed")}, outcomes
            for name, status, body in registrations:
                if status == 201:
                    run.bots[body["player_id"]] = Bot(
                        name, body["player_id"], body["player_token"], True
                    )
            counted = EARLY + outcomes[(201, None)]
            counted_in_trials.append(counted)

            finished = run.run()
            assert finished["status"] == "finished"
            assert finished["player_count"] == counted
            plan = BracketPlan.build(counted, 12, 1)
            seated = [
                player
                for table in _round_tables(run.tournament, plan.tables_in(1))
                for player in table["players"]
            ]
            assert sorted(seated) == sorted(run.bots), "every counted player seated once"
            assert len(run.standings()) == counted
    # the race was real: in some trials the start came between the registrations
    assert any(EARLY < counted < EARLY + LATECOMERS for counted in counted_in_trials), (
        counted_in_trials
    )


def _round_tables(tournament: str, tables: int) -> list[dict[str, Any]]:
    listing = http("GET", f"/tournaments/{tournament}/rounds/1", query=f"limit={tables}")
    assert listing.status == 200, listing.body
    result: list[dict[str, Any]] = listing.body["tables"]
    return result
