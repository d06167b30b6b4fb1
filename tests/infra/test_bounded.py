"""`infra.bounded.Bounded`: what a warm container remembers, within its bound."""

from __future__ import annotations

from infra.bounded import Bounded


def test_the_least_recently_kept_or_read_goes_first() -> None:
    kept: Bounded[str, int] = Bounded(2)
    kept.keep("a", 1)
    kept.keep("b", 2)
    assert kept.get("a") == 1  # read: now the most recent
    kept.keep("c", 3)
    assert "b" not in kept and kept.get("a") == 1 and kept.get("c") == 3
    assert len(kept) == 2 and kept.get("b") is None
    kept.keep("a", 4)  # kept again: its new value, and the most recent
    kept.keep("d", 5)
    assert kept.get("a") == 4 and "c" not in kept
