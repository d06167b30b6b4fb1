"""An honest Mäxchen bot: it never lies unless the rules leave it nothing true to say.

- Opening a round: throw.
- After an announcement: doubt it when a fresh throw would beat it less than one time
  in three (counting `allow_equal`; after a 21 only another 21 does), else believe it
  and throw.
- Announcing: its own throw whenever that may be announced; otherwise (a forced lie)
  the lowest value allowed, the most believable one. It never rerolls blind.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .maexchen_odds import announcements, beat_probability, lowest

DOUBT_BELOW = Fraction(1, 3)


def decide(view: dict[str, Any]) -> dict[str, Any]:
    """Doubt, throw or announce, as the module docstring says."""
    legal: list[dict[str, Any]] = view["legal_actions"]
    kinds = {action["kind"] for action in legal}
    if "doubt" in kinds:
        allow_equal = bool(view["options"].get("allow_equal", False))
        if beat_probability(view["announcement"], allow_equal) < DOUBT_BELOW:
            return {"kind": "doubt"}
        return {"kind": "throw"}
    values = announcements(view)
    if values:
        own = view.get("your_throw")
        value = own if own in values else lowest(values)
        return {"kind": "announce", "value": value}
    return dict(legal[0])  # opening: the only choice is to throw
