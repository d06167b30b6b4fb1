"""A Mariechen bot. Mariechen is pure luck (docs/rules.md §2): every turn offers one action,
throwing the die (a schikanen hit is credited without asking), so the bot throws."""

from __future__ import annotations

from typing import Any


def decide(view: dict[str, Any]) -> dict[str, Any]:
    """Throw; should the rules ever offer more, the first legal action."""
    legal: list[dict[str, Any]] = view["legal_actions"]
    return next((dict(a) for a in legal if a["kind"] == "throw"), dict(legal[0]))
