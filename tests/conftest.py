"""Suite-wide: fake AWS credentials for every moto test, and the whole-tournament tests
first, so that with several workers (pytest-xdist) the longest ones do not begin last
and hold up the end of the run."""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move tests in `tests/progression` (minutes each) to the front, keeping order."""
    items.sort(key=lambda item: "tests/progression/" not in item.nodeid)


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials in a fixed region, nothing pointing elsewhere: no test can reach
    a real AWS account. Tracing off; Powertools named as the template names it."""
    for name in list(os.environ):
        if name == "AWS_PROFILE" or name.startswith("AWS_ENDPOINT_URL"):
            monkeypatch.delenv(name)
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "eu-central-1",
        # boto3 sends stream calls to account-scoped endpoints that moto does not know
        "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_SERVICE_NAME": "knobelcup",
        "POWERTOOLS_METRICS_NAMESPACE": "Knobelcup",
    }.items():
        monkeypatch.setenv(name, value)
