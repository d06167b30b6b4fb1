"""AWS quotas per Region (`quotas.json`: each with its source and the date it was read),
and an operator's own figures over them (a JSON or TOML file of `name = number`)."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

QUOTAS_FILE = Path(__file__).with_name("quotas.json")


@dataclass(frozen=True)
class Quota:
    """One quota: its figure in the chosen Region, what it limits, where AWS says so."""

    name: str
    value: float
    what: str
    source: str
    adjustable: bool
    overridden: bool = False


class UnknownQuota(ValueError):
    """An override names a quota the model does not know."""


def load_quotas(region: str, overrides: Path | None = None) -> tuple[dict[str, Quota], str]:
    """The quotas of `region` (AWS's defaults, then `overrides`), and the date read."""
    data = json.loads(QUOTAS_FILE.read_text(encoding="utf-8"))
    given = _read_overrides(overrides) if overrides else {}
    unknown = sorted(set(given) - set(data["quotas"]))
    if unknown:
        known = ", ".join(sorted(data["quotas"]))
        raise UnknownQuota(f"unknown quota(s) {', '.join(unknown)} (known: {known})")
    quotas = {}
    for name, entry in data["quotas"].items():
        value = float(entry["regions"].get(region, entry["default"]))
        quotas[name] = Quota(
            name,
            float(given.get(name, value)),
            entry["what"],
            entry["source"],
            bool(entry["adjustable"]),
            overridden=name in given,
        )
    return quotas, str(data["read"])


def _read_overrides(path: Path) -> dict[str, float]:
    text = path.read_text(encoding="utf-8")
    found = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    return {str(name): float(value) for name, value in found.items()}
