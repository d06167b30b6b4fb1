"""The audit log: every action of a table with its dice and events, in order.

While a table is played, a viewer's records hide what the rules hide from them: the
dice of each entry, and any `DiceThrown` they may not see. Once the table is over the
log reveals every throw, and `verify` re-checks every decision from the records alone.
The format is documented in docs/audit-log.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from core.actions import Action, action_to_dict, logged_action_from_dict
from core.errors import KnobelcupError
from core.events import DiceThrown, Event, PlayerId, Visibility, event_to_dict
from core.outcome import Outcome
from core.registry import get_game


class LogEntry(NamedTuple):
    """One step of a table: the seating (version 0) or one applied action."""

    version: int  # the table's version after this step
    player: PlayerId | None
    action: Action | None
    dice: tuple[int, ...]
    events: tuple[Event, ...]


class AuditMismatch(KnobelcupError):
    """Replaying the log does not reproduce what it records."""

    code = "audit_mismatch"


def may_see(event: DiceThrown, viewer: PlayerId | None, revealed: bool) -> bool:
    """Whether `viewer` (None: spectator) may see the dice of `event`."""
    return (
        revealed
        or event.visibility is Visibility.PUBLIC
        or (event.visibility is Visibility.THROWER and viewer == event.player)
    )


def event_record(event: Event, viewer: PlayerId | None, revealed: bool) -> dict[str, object]:
    """An event as `viewer` may see it: hidden dice become null."""
    record = event_to_dict(event)
    if isinstance(event, DiceThrown) and not may_see(event, viewer, revealed):
        record["dice"] = None
    return record


def entry_record(entry: LogEntry, viewer: PlayerId | None, revealed: bool) -> dict[str, object]:
    """A log entry as `viewer` may see it; its dice only once the table is over."""
    record: dict[str, object] = {
        "version": entry.version,
        "player": entry.player,
        "action": None if entry.action is None else action_to_dict(entry.action),
        "events": [event_record(e, viewer, revealed) for e in entry.events],
    }
    if revealed:
        record["dice"] = list(entry.dice)
    return record


def log_records(
    entries: Sequence[LogEntry], viewer: PlayerId | None, revealed: bool
) -> list[dict[str, object]]:
    """The whole log as `viewer` may see it; `revealed` once the table is over."""
    return [entry_record(entry, viewer, revealed) for entry in entries]


def records_after(
    entries: Sequence[LogEntry], after: int, viewer: PlayerId | None, revealed: bool
) -> list[dict[str, object]]:
    """The entries past version `after` as `viewer` may see them: a table's event feed,
    and what a push after a change carries."""
    return [entry_record(entry, viewer, revealed) for entry in entries if entry.version > after]


def verify(records: Sequence[Mapping[str, Any]]) -> Outcome:
    """Replay a revealed log from its records alone; return the outcome it proves.

    Raises `AuditMismatch` at the first record whose events the rules do not reproduce,
    or that is not a well-formed record at all.
    """
    try:
        return _replay(records)
    except (KeyError, IndexError, TypeError, AttributeError) as error:
        raise AuditMismatch(f"malformed audit log: {error!r}") from error


def _replay(records: Sequence[Mapping[str, Any]]) -> Outcome:
    if not records:
        raise AuditMismatch("the log is empty")
    seating = records[0]["events"][0]
    if seating.get("type") != "TableSeated":
        raise AuditMismatch("the log must start with TableSeated")
    game = get_game(seating["game"])
    state, events = game.seat(seating["seats"], seating["options"], seating["survivors"])
    _expect(records[0], events)
    for record in records[1:]:
        if "dice" not in record:
            raise AuditMismatch(f"version {record['version']}: dice not revealed yet")
        action = logged_action_from_dict(record["action"])
        state, events = game.apply(state, record["player"], action, tuple(record["dice"]))
        _expect(record, events)
    return game.outcome(state)


def _expect(record: Mapping[str, Any], events: Sequence[Event]) -> None:
    replayed = [event_to_dict(e) for e in events]
    if replayed != record["events"]:
        raise AuditMismatch(
            f"version {record['version']}: the rules give {replayed}, "
            f"the log says {record['events']}"
        )
