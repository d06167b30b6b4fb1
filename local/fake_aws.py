"""An environment in which boto3 can only reach a local stand-in for AWS.

Fake credentials in a fixed region, no profile, and every endpoint either unset (for
moto in the same process) or pointing at moto's server. Tests and the local service
use the same settings, so what runs in one runs in the other.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

FAKE_AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "eu-central-1",
    # boto3 sends stream calls to account-scoped endpoints that moto does not know
    "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_SERVICE_NAME": "knobelcup",
    "POWERTOOLS_METRICS_NAMESPACE": "Knobelcup",
}


def pointing_elsewhere(environ: dict[str, str] | os._Environ[str]) -> list[str]:
    """The variables that could send boto3 to a real account or another endpoint."""
    return [
        name for name in environ if name == "AWS_PROFILE" or name.startswith("AWS_ENDPOINT_URL")
    ]


@contextmanager
def fake_aws(endpoint_url: str | None = None, **extra: str) -> Iterator[None]:
    """Set the fake environment (and `extra` variables) in this process; restore it after."""
    saved = dict(os.environ)
    for name in pointing_elsewhere(os.environ):
        del os.environ[name]
    os.environ.update(FAKE_AWS_ENV)
    if endpoint_url is not None:
        os.environ["AWS_ENDPOINT_URL"] = endpoint_url
    os.environ.update(extra)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
