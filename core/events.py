"""Domain events shared by every game: facts, named in the past tense.

Events are immutable NamedTuples (several are made per action on the hot path, where a
frozen dataclass costs about twice as much to build). They hold everything, hidden dice
included; what a viewer may see of them is decided by `core.audit`, the one place that
turns events into records for the outside. Game-specific events live in their game's
module and follow the same shape.
"""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import Any, NamedTuple, Protocol

PlayerId = str


class Event(Protocol):
    """Any domain event: a NamedTuple whose class name is its type."""

    def _asdict(self) -> dict[str, Any]: ...


class Visibility(StrEnum):
    """Who may see a throw while the table is still being played."""

    PUBLIC = "public"  # everyone at once
    THROWER = "thrower"  # only the player who threw (under the cup)
    NOBODY = "nobody"  # covered even for the thrower (blind reroll, 42's fifth throw)


class TableSeated(NamedTuple):
    """A table was seated: the game, the seat order, the rule options, how many survive."""

    game: str
    seats: tuple[PlayerId, ...]
    options: dict[str, object]
    survivors: int


class DiceThrown(NamedTuple):
    """A player threw; `dice` are hidden from some viewers according to `visibility`."""

    player: PlayerId
    dice: tuple[int, ...]
    visibility: Visibility


class TurnTimedOut(NamedTuple):
    """The player to act did not act in time (docs/rules.md §4); `timeouts` counts theirs."""

    player: PlayerId
    timeouts: int


class PlayerForfeited(NamedTuple):
    """A player reached `forfeit_after_timeouts` and was put out at once."""

    player: PlayerId


class MatchFinished(NamedTuple):
    """The table is over; `ranking` is the full order of its players, best first."""

    ranking: tuple[PlayerId, ...]


def event_to_dict(event: Event) -> dict[str, object]:
    """All of an event's fields, hidden dice included, plus its `type`.

    Only for the full audit log of a finished table; viewers go through `core.audit`.
    """
    data: dict[str, object] = {"type": type(event).__name__}
    for name, value in event._asdict().items():
        data[name] = _jsonable(value)
    return data


def _jsonable(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value
