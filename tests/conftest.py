"""Suite-wide: the whole-tournament tests start first, so that with several workers
(pytest-xdist) the longest ones do not begin last and hold up the end of the run."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move tests in `tests/progression` (minutes each) to the front, keeping order."""
    items.sort(key=lambda item: "tests/progression/" not in item.nodeid)
