"""One local service per test module, for the commands that talk to it over HTTP or UDP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from served import served


@pytest.fixture(scope="module")
def service_url() -> Iterator[str]:
    """The URL of a running local service, as `make serve` starts it."""
    yield from served()


@pytest.fixture(autouse=True)
def english_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    """The console speaks the locale's language where nothing else decides it: the tests
    that read its English lines must not depend on the locale of whoever runs them."""
    for variable in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
