"""Rule options: typed, defaulted, validated by name so errors name the option.

Each game declares a frozen dataclass deriving from `TableOptions` whose field defaults
are the documented defaults; `parse_options` accepts a plain mapping (from JSON) and
rejects unknown names and ill-typed or out-of-range values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, TypeVar, get_args, get_origin, get_type_hints

from core.errors import InvalidOption, UnknownOption


@dataclass(frozen=True, slots=True)
class TableOptions:
    """Options every game has: the service's turn-timeout rules (docs/rules.md §4)."""

    turn_timeout_seconds: int = 60
    forfeit_after_timeouts: int = 0

    def validate(self) -> None:
        """Raise `InvalidOption` for a value out of its range."""
        require_range(self, "turn_timeout_seconds", 1, 86_400)
        require_range(self, "forfeit_after_timeouts", 0, 1_000)


OptionsT = TypeVar("OptionsT", bound=TableOptions)


def require_range(options: TableOptions, name: str, low: int, high: int) -> None:
    """Raise `InvalidOption` unless `low <= options.<name> <= high`."""
    value = getattr(options, name)
    if not low <= value <= high:
        raise InvalidOption(f"option '{name}' must be between {low} and {high}, got {value}")


def parse_options(cls: type[OptionsT], raw: Mapping[str, object] | None, game: str) -> OptionsT:
    """Build `cls` from `raw`, naming the first unknown or invalid option in the error."""
    if raw is None:
        return cls()
    if not isinstance(raw, Mapping):
        raise InvalidOption(f"{game}'s options must map option names to values")
    if not raw:
        return cls()
    hints = _hints(cls)
    known = hints.keys()
    for name in raw:
        if name not in known:
            raise UnknownOption(
                f"{game} has no option '{name}'; its options are: {', '.join(sorted(known))}"
            )
    for name, value in raw.items():
        _check_type(name, value, hints[name])
    options = cls(**raw)  # type: ignore[arg-type]
    options.validate()
    return options


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type[TableOptions]) -> dict[str, Any]:
    """Each option's declared type, resolved once per class (resolving is slow)."""
    hints = _HINTS.get(cls)
    if hints is None:
        resolved = get_type_hints(cls)
        hints = _HINTS[cls] = {f.name: resolved[f.name] for f in fields(cls)}
    return hints


def options_dict(options: TableOptions) -> dict[str, object]:
    """The options by name, every default filled in: for events, views and storage."""
    return {f.name: getattr(options, f.name) for f in fields(options)}


def _check_type(name: str, value: object, hint: Any) -> None:
    if get_origin(hint) is Literal:
        allowed = get_args(hint)
        if value not in allowed:
            choices = ", ".join(repr(a) for a in allowed)
            raise InvalidOption(f"option '{name}' must be one of {choices}, got {value!r}")
        return
    # bool is a subclass of int: a flag must not pass as a count, nor a count as a flag.
    if hint is bool and not isinstance(value, bool):
        raise InvalidOption(f"option '{name}' must be true or false, got {value!r}")
    if hint is int and (not isinstance(value, int) or isinstance(value, bool)):
        raise InvalidOption(f"option '{name}' must be an integer, got {value!r}")
