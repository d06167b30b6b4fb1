"""One local service per test module (starting one takes a few seconds)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from served import served


@pytest.fixture(scope="module")
def service_url() -> Iterator[str]:
    """The URL of a running local service, as `make serve` starts it."""
    yield from served()
