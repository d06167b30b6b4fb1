"""A whole local stack on moto: the template's table, bus, queues and schedule group, every
handler wired to them, and deliveries driven the way Lambda and Scheduler would."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from moto import mock_aws

from functions.api.app import lambda_handler
from infra.dice import PlaceSeededDice
from infra.local.bots import BotTournament, Strategy, any_legal_action
from infra.local.delivery import Deliveries
from infra.local.faults import CrashPlan
from infra.local.lambda_events import HttpAnswer, invoke_http
from infra.local.stack import LocalStack, start_local_stack, stop_local_stack
from infra.local.write_counter import WriteCounter

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
        "POWERTOOLS_METRICS_DISABLED": "true",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
    }.items():
        monkeypatch.setenv(name, value)


def http(method: str, path: str, body: object = None, **request: Any) -> HttpAnswer:
    """A request to the API's real Lambda handler."""
    return invoke_http(lambda_handler, method, path, body, **request)


StackFactory = Callable[..., LocalStack]


@pytest.fixture
def local_stack(aws_env: None) -> Iterator[StackFactory]:
    """Makes local stacks inside one moto account: `local_stack(prefix, crash=..., ...)`."""
    with mock_aws():

        def make(
            prefix: str = "kc",
            *,
            dice_seed: str = "dice",
            crash: CrashPlan | None = None,
            deliveries: Deliveries | None = None,
            writes: WriteCounter | None = None,
        ) -> LocalStack:
            return start_local_stack(
                prefix,
                dice=PlaceSeededDice(dice_seed),
                clock=lambda: NOW,
                crash=crash,
                deliveries=deliveries,
                writes=writes,
            )

        yield make
        stop_local_stack()


def bot_tournament(
    stack: LocalStack, seed: str = "bots", strategy: Strategy = any_legal_action
) -> BotTournament:
    """Bots over the API handler on `stack`."""
    return BotTournament(http, stack, seed, strategy)
