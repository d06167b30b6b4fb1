"""The suite's dice seed: every test stack's dice follow from it, so a run is repeated
with the seed its header printed (`pytest --dice-seed S`, or `KNOBELCUP_TEST_DICE_SEED`).

A test that needs a situation (a covered throw, a doubt that fails) sets it up with
scripted dice (`infra.dice.ScriptedDice`) or a scripted player; every other test must
hold whatever this seed is, and `make flake-hunt` runs the suite under many."""

from __future__ import annotations

import os
import secrets

ENVIRONMENT = "KNOBELCUP_TEST_DICE_SEED"
DEFAULT = "knobelcup"


def resolve(asked: str | None) -> str:
    """The seed for this run: `asked`, a fresh one for `random`, else the default."""
    if asked == "random":
        return secrets.token_hex(4)
    return asked or DEFAULT


def suite_seed(purpose: str) -> str:
    """The dice seed of one test stack: its purpose and the run's seed, so that stacks of
    one run differ from each other and every stack changes with the run's seed."""
    return f"{purpose}/{os.environ.get(ENVIRONMENT, DEFAULT)}"
