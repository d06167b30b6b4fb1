"""A whole local stack on moto: the template's table, bus, queues and schedule group, every
handler wired to them, and deliveries driven the way Lambda and Scheduler would."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from moto import mock_aws
from suite_dice import suite_seed
from tournament_kit import NOW, StackFactory

from infra.dice import PlaceSeededDice
from infra.services.tournaments import Clock
from infra.tokens import seeded_ids
from local.delivery import Deliveries
from local.faults import CrashPlan
from local.moto_atomic import faster
from local.stack import LocalStack, start_local_stack, stop_local_stack
from local.write_counter import WriteCounter


@pytest.fixture
def local_stack(aws_env: None) -> Iterator[StackFactory]:
    """Makes local stacks inside one moto account: `local_stack(prefix, crash=..., ...)`
    (`clock`: what every function reads as the time; a fixed moment by default).

    moto with the local server's shortcuts (`local.moto_atomic.faster`, whose tests show
    they keep DynamoDB's semantics): moto's own deep-copies the whole table and its stream
    before every transaction, and serializes every read by botocore's shape model; that
    was two thirds of a 300-player tournament's time."""
    with faster(), mock_aws():

        def make(
            prefix: str = "kc",
            *,
            dice_seed: str | None = None,
            crash: CrashPlan | None = None,
            deliveries: Deliveries | None = None,
            writes: WriteCounter | None = None,
            clock: Clock | None = None,
            tables_in_play: int = 0,
        ) -> LocalStack:
            dice_seed = dice_seed or suite_seed("progression")
            return start_local_stack(
                prefix,
                dice=PlaceSeededDice(dice_seed),
                clock=clock or (lambda: NOW),
                crash=crash,
                deliveries=deliveries,
                writes=writes,
                # the dice depend on the tournament's id (docs/dice.md): runs compared
                # with one another create their tournaments under the same ids
                tournament_ids=seeded_ids(dice_seed),
                tables_in_play=tables_in_play,
            )

        yield make
        stop_local_stack()
