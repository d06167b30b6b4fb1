"""A Mäxchen bot that bluffs, guided by the exact odds of a fresh throw (maexchen_odds).

- After an announcement A it weighs the expected penalty of each choice. Doubting
  costs when A holds; it takes that to be as likely as a fresh throw reaching A.
  Believing costs when its own throw cannot beat A (1 - beat(A), `allow_equal`
  counted), it must bluff the lowest value L allowed after A, and the next player
  doubts it, taken to be as likely as a fresh throw falling short of L. Each cost is
  weighted by the points at stake (2 for 21). It doubts when doubting costs less.
- Announcing, its ceiling is the highest allowed value that at least half of all throws
  reach (61 in the standard ranking): a claim a doubter is more likely wrong to doubt.
  A true throw at or above the ceiling is announced as it is. A lower true throw, or
  one that may not be announced, is raised to the ceiling, which leaves the next player
  fewer throws that beat it; with no ceiling left it announces the lowest value allowed.
  It never rerolls blind.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .maexchen_odds import (
    RANK,
    RANKING,
    announcements,
    beat_probability,
    holds_probability,
    lowest,
    may_follow,
    penalty,
)

BELIEVABLE = Fraction(1, 2)


def doubt_pays(announcement: int, allow_equal: bool) -> bool:
    """Whether doubting `announcement` costs fewer expected penalty points than believing."""
    doubting = penalty(announcement) * holds_probability(announcement)
    bluff = lowest(v for v in RANKING if may_follow(announcement, v, allow_equal))
    believing = (
        (1 - beat_probability(announcement, allow_equal))
        * (1 - holds_probability(bluff))
        * penalty(bluff)
    )
    return doubting < believing


def announcement(values: list[int], own: int | None) -> int:
    """What to announce among the allowed `values`, holding the throw `own` (None: blind)."""
    believable = [v for v in values if holds_probability(v) >= BELIEVABLE]
    ceiling = max(believable, key=RANK.__getitem__) if believable else None
    if own in values and (ceiling is None or RANK[own] >= RANK[ceiling]):
        return own
    return ceiling if ceiling is not None else lowest(values)


def decide(view: dict[str, Any]) -> dict[str, Any]:
    """Doubt, throw or announce, as the module docstring says."""
    legal: list[dict[str, Any]] = view["legal_actions"]
    kinds = {action["kind"] for action in legal}
    if "doubt" in kinds:
        allow_equal = bool(view["options"].get("allow_equal", False))
        return {"kind": "doubt" if doubt_pays(view["announcement"], allow_equal) else "throw"}
    values = announcements(view)
    if values:
        return {"kind": "announce", "value": announcement(values, view.get("your_throw"))}
    return dict(legal[0])  # opening: the only choice is to throw
