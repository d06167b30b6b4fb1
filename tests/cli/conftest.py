"""One local service per test module, for the commands that talk to it over HTTP or UDP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from served import served


@pytest.fixture(scope="module")
def service_url() -> Iterator[str]:
    """The URL of a running local service, as `make serve` starts it."""
    yield from served()
