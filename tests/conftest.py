"""Suite-wide: fake AWS credentials for every moto test, and the whole-tournament tests
first, so that with several workers (pytest-xdist) the longest ones do not begin last
and hold up the end of the run."""

from __future__ import annotations

import os

import pytest

from local.fake_aws import FAKE_AWS_ENV, pointing_elsewhere


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move tests in `tests/progression` (minutes each) to the front, keeping order."""
    items.sort(key=lambda item: "tests/progression/" not in item.nodeid)


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials in a fixed region, nothing pointing elsewhere: no test can reach
    a real AWS account. Tracing off; Powertools named as the template names it."""
    for name in pointing_elsewhere(os.environ):
        monkeypatch.delenv(name)
    for name, value in FAKE_AWS_ENV.items():
        monkeypatch.setenv(name, value)
