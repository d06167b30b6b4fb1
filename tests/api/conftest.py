"""The API on moto: tables created from template.yaml, seeded dice, a fixed clock."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from apiclient import ApiClient
from moto import mock_aws

from functions.wiring import use_services
from infra.bootstrap import build_services
from infra.dice import SeededDice
from infra.local.provision import create_tables
from infra.settings import Settings

TABLE = "knobelcup"
NOW = 1_800_000_000.0


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials and a region: nothing may reach a real AWS account."""
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "eu-central-1",
        "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_SERVICE_NAME": "knobelcup",
        "POWERTOOLS_METRICS_NAMESPACE": "Knobelcup",
        "KNOBELCUP_TABLE": TABLE,
    }.items():
        monkeypatch.setenv(name, value)


@dataclass
class Stack:
    """The API over a moto table, and the raw client for looking behind it."""

    api: ApiClient
    dynamodb: Any


@pytest.fixture
def stack(aws_env: None) -> Iterator[Stack]:
    """A fresh moto account with the template's table and the API wired to it."""
    with mock_aws():
        client = boto3.client("dynamodb")
        create_tables(client, names={"KnobelcupTable": TABLE})
        use_services(
            build_services(
                Settings.from_env(), client=client, dice=SeededDice("api"), clock=lambda: NOW
            )
        )
        yield Stack(ApiClient(), client)
        use_services(None)
