"""Reading a throw of two dice, shared by the two-dice games (Mäxchen and 42)."""

from __future__ import annotations

from collections.abc import Sequence

from core.checks import check_dice
from core.errors import InvalidDice


def throw_value(first: int, second: int) -> int:
    """The value of a throw, higher die first: (1, 2) is 21, (5, 5) is 55."""
    return first * 10 + second if first >= second else second * 10 + first


# Every legal pair of dice, mapped to its value and its canonical tuple: on the hot path
# one dictionary lookup both validates the caller's dice and reads the throw.
_THROWS: dict[tuple[int, ...], tuple[int, tuple[int, int]]] = {
    (first, second): (throw_value(first, second), (first, second))
    for first in range(1, 7)
    for second in range(1, 7)
}


def read_two_dice(dice: Sequence[int]) -> tuple[int, tuple[int, int]]:
    """The throw's value and its faces; `InvalidDice` unless exactly two faces of 1..6."""
    if type(dice) is not tuple:
        dice = check_dice(dice, 2)
    try:
        known = _THROWS.get(dice)
    except TypeError:  # an unhashable "face"
        known = None
    if known is None or type(dice[0]) is not int or type(dice[1]) is not int:
        check_dice(dice, 2)  # raises with the precise complaint
        raise InvalidDice(f"a die shows 1 to 6, got {dice!r}")
    return known
