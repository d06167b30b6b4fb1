"""What a player (or the scheduler) can ask a table to do: imperative commands.

Actions carry no player: the acting player is passed to `Game.apply` beside the action,
so the legal actions of a state are shared constants. `Timeout` is submitted by the
service's scheduler, never chosen by a player; it is always accepted for the player to act.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from core.errors import IllegalAction


@dataclass(frozen=True, slots=True)
class Throw:
    """Throw the dice: Mäxchen both under the cup, Mariechen one die, 42 both in the open."""

    kind: ClassVar[str] = "throw"


@dataclass(frozen=True, slots=True)
class BlindReroll:
    """Mäxchen `blind_reroll`: throw once more without looking ("unbeschaut")."""

    kind: ClassVar[str] = "blind_reroll"


@dataclass(frozen=True, slots=True)
class Announce:
    """Mäxchen: announce a value (true or a lie) and pass the cup on."""

    value: int
    kind: ClassVar[str] = "announce"


@dataclass(frozen=True, slots=True)
class Doubt:
    """Mäxchen: do not believe the previous announcement; the cup is lifted."""

    kind: ClassVar[str] = "doubt"


@dataclass(frozen=True, slots=True)
class Stop:
    """42: keep the current throw and end the turn."""

    kind: ClassVar[str] = "stop"


@dataclass(frozen=True, slots=True)
class Concede:
    """42: with 32 on the last allowed throw, take the stick at once and end the round."""

    kind: ClassVar[str] = "concede"


@dataclass(frozen=True, slots=True)
class Timeout:
    """The player to act let `turn_timeout_seconds` pass (docs/rules.md §4.1)."""

    kind: ClassVar[str] = "timeout"


@dataclass(frozen=True, slots=True)
class Forfeit:
    """The player to act leaves the table at once: the organizer disqualified them.

    Submitted by the service, never by a player (it is not among the parsed actions);
    each game puts the player out as it does on the forfeiting timeout (docs/rules.md §4.3, §4.4).
    """

    kind: ClassVar[str] = "forfeit"


Action = Throw | BlindReroll | Announce | Doubt | Stop | Concede | Timeout | Forfeit

_SIMPLE_ACTIONS: dict[str, Action] = {
    a.kind: a for a in (Throw(), BlindReroll(), Doubt(), Stop(), Concede(), Timeout())
}


def action_name(action: object) -> str:
    """The kind of an action, or the type name of something that is not one (for errors)."""
    kind = getattr(action, "kind", None)
    return kind if isinstance(kind, str) else type(action).__name__


def action_to_dict(action: Action) -> dict[str, object]:
    """The JSON form of an action: `{"kind": ...}`, plus `value` for an announcement."""
    if isinstance(action, Announce):
        return {"kind": action.kind, "value": action.value}
    return {"kind": action.kind}


def logged_action_from_dict(data: Mapping[str, object]) -> Action:
    """Parse an action as a table's log records it: any a player may send, or the forfeit
    the service plays for a disqualified player."""
    if data.get("kind") == Forfeit.kind:
        return Forfeit()
    return action_from_dict(data)


def action_from_dict(data: Mapping[str, object]) -> Action:
    """Parse the JSON form of an action; raises `IllegalAction` naming the bad field."""
    kind = data.get("kind")
    if kind == Announce.kind:
        value = data.get("value")
        if not isinstance(value, int) or isinstance(value, bool):
            raise IllegalAction("field 'value' must be an integer", rule="announce")
        return Announce(value)
    if isinstance(kind, str) and kind in _SIMPLE_ACTIONS:
        return _SIMPLE_ACTIONS[kind]
    known = ", ".join(sorted([*_SIMPLE_ACTIONS, Announce.kind]))
    raise IllegalAction(f"field 'kind' must be one of: {known}", rule="action kinds")
