"""A clock that moves only when told, so tests let deadlines and the sweeper's minute
come without waiting for them."""

from __future__ import annotations


class ManualClock:
    """Epoch seconds that pass only through `advance` and `advance_to`; call it to read."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Let `seconds` pass."""
        self.now += seconds

    def advance_to(self, when: float) -> None:
        """Move on to `when`, unless it has passed (time never goes back)."""
        self.now = max(self.now, when)
