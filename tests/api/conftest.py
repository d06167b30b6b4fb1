"""The API on moto: tables created from template.yaml, seeded dice, a fixed clock."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from apiclient import ApiClient, Stack
from moto import mock_aws
from suite_dice import suite_seed

from functions.wiring import use_services
from infra.bootstrap import build_jobs, build_services
from infra.dice import DiceSource, ScriptedDice, SeededDice
from infra.settings import Settings
from infra.tokens import seeded_ids
from local.moto_atomic import faster
from local.provision import create_tables

TABLE = "knobelcup"
NOW = 1_800_000_000.0


@pytest.fixture
def dice(request: pytest.FixtureRequest) -> DiceSource:
    """The stack's dice: seeded by the run's seed, or, for a test marked
    `@pytest.mark.scripted_dice({table: throws})`, that script (`ScriptedDice`)."""
    seeded = SeededDice(suite_seed("api"))
    marker = request.node.get_closest_marker("scripted_dice")
    return seeded if marker is None else ScriptedDice(marker.args[0], base=seeded)


@pytest.fixture
def stack(aws_env: None, monkeypatch: pytest.MonkeyPatch, dice: DiceSource) -> Iterator[Stack]:
    """A fresh moto account with the template's table and the API wired to it."""
    monkeypatch.setenv("KNOBELCUP_TABLE", TABLE)
    with faster(), mock_aws():  # moto with the local server's shortcuts (tests/progression)
        client = boto3.client("dynamodb")
        create_tables(client, names={"KnobelcupTable": TABLE})
        settings = Settings.from_env()
        # repeatable: the tables' server seeds are not secret, and since the dice depend
        # on the tournament's id (docs/dice.md) the ids follow from the seed as well
        ids = seeded_ids(suite_seed("api"))
        use_services(
            build_services(
                settings, client=client, dice=dice, clock=lambda: NOW, tournament_ids=ids
            )
        )
        jobs = build_jobs(settings, client=client, clock=lambda: NOW, dice=dice)
        yield Stack(ApiClient(jobs=jobs), client, TABLE)
        use_services(None)
