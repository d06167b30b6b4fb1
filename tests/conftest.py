"""Suite-wide: fake AWS credentials for every moto test; the run's dice seed
(`--dice-seed`, see `suite_dice`); and the whole-tournament tests first, so that with
several workers (pytest-xdist) the longest ones do not begin last and hold up the end
of the run."""

from __future__ import annotations

import os
import random

import pytest
import suite_dice

from local.fake_aws import FAKE_AWS_ENV, pointing_elsewhere

# whole tournaments played on moto or on the served stack: minutes each
LONG = ("tests/progression/", "tests/local/capacity_served_check.py")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--dice-seed",
        default=os.environ.get(suite_dice.ENVIRONMENT),
        help="the seed every test stack's dice follow from ('random' for a fresh one; "
        f"default {suite_dice.DEFAULT!r})",
    )
    parser.addoption("--shuffle", metavar="SEED", help="run the tests in an order shuffled by SEED")


def pytest_configure(config: pytest.Config) -> None:
    """Fix the run's seed once, in the environment: pytest-xdist's workers and the
    services the tests start in processes of their own read it from there."""
    if not hasattr(config, "workerinput"):  # the controller, or a run without workers
        seed = suite_dice.resolve(config.getoption("--dice-seed"))
        os.environ[suite_dice.ENVIRONMENT] = seed


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The seed, at the end of every run (quiet ones too): what reproduces a failure."""
    seed = os.environ[suite_dice.ENVIRONMENT]
    shuffle = terminalreporter.config.getoption("--shuffle")
    order = f" --shuffle {shuffle}" if shuffle else ""
    terminalreporter.write_line(f"dice seed: {seed} (run again with --dice-seed {seed}{order})")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Shuffle the tests with `--shuffle SEED` (a flake hunt: no test may depend on one
    that ran before it), then move those that take minutes each (`LONG`) to the front,
    keeping their order. The same seed gives every xdist worker the same order."""
    shuffle = config.getoption("--shuffle")
    if shuffle:
        random.Random(shuffle).shuffle(items)
    items.sort(key=lambda item: not item.nodeid.startswith(LONG))


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials in a fixed region, nothing pointing elsewhere: no test can reach
    a real AWS account. Tracing off; Powertools named as the template names it."""
    for name in pointing_elsewhere(os.environ):
        monkeypatch.delenv(name)
    for name, value in FAKE_AWS_ENV.items():
        monkeypatch.setenv(name, value)
