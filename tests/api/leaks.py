"""A structural scan of API answers for hidden throws shown to the wrong viewer, and for
a table's server seed shown before the table is over (docs/dice.md).

Every place a throw can appear in an answer is checked against the table's revealed log:
a `DiceThrown` record may carry dice only if public or the viewer's own covered throw;
a log record carries dice only once the table is over; `your_throw` and
`your_throw_under_cup` must be the viewer's own latest throw, and one they looked at.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from core.dice import throw_value

Throws = Mapping[str, Sequence[tuple[int, str, tuple[int, ...], str]]]  # table -> throws


def throws_of(records: Sequence[Mapping[str, Any]]) -> list[tuple[int, str, tuple[int, ...], str]]:
    """(version, player, dice, visibility) of every throw in a revealed audit log."""
    return [
        (record["version"], event["player"], tuple(event["dice"]), event["visibility"])
        for record in records
        for event in record["events"]
        if event["type"] == "DiceThrown"
    ]


def _dicts(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from _dicts(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _dicts(inner)


def leaks(viewer: str | None, body: Any, throws: Throws) -> list[str]:
    """What `body` (an answer to `viewer`) shows that the viewer may not see."""
    if not isinstance(body, dict) or body.get("over", True):
        return []  # errors carry no table; a finished table reveals everything
    found = []
    version = body.get("view", body).get("version")  # a view, or the event feed
    table_throws = throws[body["table"]]
    for data in _dicts(body):
        if data.get("type") == "DiceThrown" and data.get("dice") is not None:
            own = data["visibility"] == "thrower" and data["player"] == viewer
            if data["visibility"] != "public" and not own:
                found.append(f"{viewer} saw {data}")
        if {"version", "action", "dice"} <= data.keys():
            found.append(f"{viewer} saw log dice {data}")
        for key in ("your_throw", "your_throw_under_cup"):
            if key not in data:
                continue
            mine = [t for t in table_throws if t[1] == viewer and t[0] <= version]
            latest = mine[-1] if mine else None
            if latest is None or latest[3] != "thrower" or data[key] != throw_value(*latest[2]):
                found.append(f"{viewer} saw {key}={data[key]} at version {version}")
    return found


def server_seed_forms(seed: bytes) -> list[str]:
    """Every way a table's server seed could be written out."""
    urlsafe = base64.urlsafe_b64encode(seed).decode().rstrip("=")
    return [seed.hex(), seed.hex().upper(), base64.b64encode(seed).decode(), urlsafe]


def seed_leaks(body: Any, seeds: Mapping[str, bytes]) -> list[str]:
    """Server seeds (table -> seed) that `body` shows while its table is played, or that
    an answer about no table (an error, a tournament) shows at all."""
    table = body.get("table") if isinstance(body, dict) else None
    text = json.dumps(body, default=str)
    return [
        f"the server seed of {ref} in {text[:200]}"
        for ref, seed in seeds.items()
        if not (ref == table and body.get("over") is True)
        and any(form in text for form in server_seed_forms(seed))
    ]
