"""Wires the adapters into the services: the one place that picks boto3, dice and clock.

Tests and the local stack pass their own dice and clock; production gets `SecretDice`
and the wall clock.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from infra.dice import DiceSource, SecretDice
from infra.repository import Repository
from infra.settings import Settings
from infra.tournaments import Clock, TournamentService
from infra.turns import TurnService


@dataclass(frozen=True, slots=True)
class Services:
    """What the Lambda handlers call."""

    tournaments: TournamentService
    turns: TurnService


def dynamodb_client() -> Any:
    """A DynamoDB client with short timeouts: a turn should fail fast, not hang.

    Made with botocore directly: boto3 adds only its resource layer, which the
    repository does not use, and importing it would lengthen every cold start.
    """
    from botocore.config import Config  # noqa: PLC0415  # deferred: tests pass a client
    from botocore.session import get_session  # noqa: PLC0415

    config = Config(
        connect_timeout=2, read_timeout=5, retries={"mode": "standard", "max_attempts": 3}
    )
    return get_session().create_client("dynamodb", config=config)


def build_services(
    settings: Settings,
    *,
    client: Any = None,
    dice: DiceSource | None = None,
    clock: Clock = time.time,
) -> Services:
    """The services over `client` (a fresh DynamoDB client when None)."""
    repository = Repository(
        client if client is not None else dynamodb_client(), settings.table_name
    )
    return Services(
        tournaments=TournamentService(repository, clock, settings.retention_seconds),
        turns=TurnService(repository, dice if dice is not None else SecretDice()),
    )
