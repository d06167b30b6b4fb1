"""Exact odds of a fresh Mäxchen throw, over the 36 equally likely ordered throws of
two dice, as fractions (docs/rules.md §1.1 the ranking, §1.7 21 after 21, §1.8 `allow_equal`)."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from functools import cache
from typing import Any

MAEXCHEN = 21
# Lowest first; 21 ("Mäxchen") is highest, then the pairs
RANKING: tuple[int, ...] = (
    31, 32, 41, 42, 43, 51, 52, 53, 54, 61, 62, 63, 64, 65, 11, 22, 33, 44, 55, 66, 21,
)  # fmt: skip
RANK: dict[int, int] = {value: rank for rank, value in enumerate(RANKING)}


def throw_value(first: int, second: int) -> int:
    """The value of two dice, higher die first: (1, 2) is 21, (5, 5) is 55."""
    return max(first, second) * 10 + min(first, second)


THROWS: tuple[int, ...] = tuple(throw_value(a, b) for a in range(1, 7) for b in range(1, 7))


def may_follow(announcement: int | None, value: int, allow_equal: bool = False) -> bool:
    """Whether `value` may be announced after `announcement` (None: nothing announced yet)."""
    if announcement is None:
        return True
    if announcement == MAEXCHEN:  # nothing ranks higher: only 21 again ("einstellen")
        return value == MAEXCHEN
    return RANK[value] > RANK[announcement] or (allow_equal and value == announcement)


@cache
def beat_probability(announcement: int | None, allow_equal: bool = False) -> Fraction:
    """The chance that a fresh throw may be announced truthfully after `announcement`."""
    hits = sum(may_follow(announcement, value, allow_equal) for value in THROWS)
    return Fraction(hits, len(THROWS))


@cache
def holds_probability(announcement: int) -> Fraction:
    """The chance that a fresh throw ranks at least `announcement`: that the cup, lifted
    on a player who threw just once, would show the announcement held."""
    hits = sum(RANK[value] >= RANK[announcement] for value in THROWS)
    return Fraction(hits, len(THROWS))


def penalty(value: int) -> int:
    """Penalty points for being in the wrong about `value`: 2 for 21, else 1."""
    return 2 if value == MAEXCHEN else 1


def lowest(values: Iterable[int]) -> int:
    """The lowest-ranking of `values`."""
    return min(values, key=RANK.__getitem__)


def announcements(view: dict[str, Any]) -> list[int]:
    """The values the view's legal actions allow announcing."""
    legal: list[dict[str, Any]] = view.get("legal_actions") or []
    return [action["value"] for action in legal if action["kind"] == "announce"]
