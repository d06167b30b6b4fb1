"""The API on moto: tables created from template.yaml, seeded dice, a fixed clock."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from apiclient import ApiClient, Stack
from moto import mock_aws

from functions.wiring import use_services
from infra.bootstrap import build_jobs, build_services
from infra.dice import SeededDice
from infra.settings import Settings
from local.provision import create_tables

TABLE = "knobelcup"
NOW = 1_800_000_000.0


@pytest.fixture
def stack(aws_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    """A fresh moto account with the template's table and the API wired to it."""
    monkeypatch.setenv("KNOBELCUP_TABLE", TABLE)
    with mock_aws():
        client = boto3.client("dynamodb")
        create_tables(client, names={"KnobelcupTable": TABLE})
        settings = Settings.from_env()
        dice = SeededDice("api")  # repeatable: the tables' server seeds are not secret
        use_services(build_services(settings, client=client, dice=dice, clock=lambda: NOW))
        jobs = build_jobs(settings, client=client, clock=lambda: NOW, dice=dice)
        yield Stack(ApiClient(jobs=jobs), client)
        use_services(None)
