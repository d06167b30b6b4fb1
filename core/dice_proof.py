"""Proving a finished table from its audit log alone: every die, then every rule.

`prove_table` takes the audit log as `GET .../tables/{ref}/log` answers it (docs/dice.md,
docs/audit-log.md): the server seed's SHA-256 must be the commitment shown since the
seating, every die must follow from the seeds (`core.fair_dice`), and replaying the log
through the rules must give every recorded event (`core.audit.verify`). `knobelcup
verify` prints its result; a page can call it on a finished table's log.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from core.audit import verify
from core.fair_dice import DiceMismatch, verify_dice
from core.outcome import Outcome


class TableProof(NamedTuple):
    """What a verified log proves: its throws and dice, and the outcome."""

    throws: int  # actions that drew dice
    dice: int
    outcome: Outcome


def prove_table(log: Mapping[str, Any]) -> TableProof:
    """Verify a finished table's audit log; `DiceMismatch` or `core.audit.AuditMismatch`
    name the first throw or step that does not hold."""
    head = log.get("dice")
    if not isinstance(head, Mapping):
        raise DiceMismatch("the log has no `dice` head: the table predates verifiable dice")
    records = log.get("records")
    if not isinstance(records, list) or not records:
        raise DiceMismatch("the log has no records")
    throws = verify_dice(str(log.get("tournament")), str(log.get("table")), head, records)
    outcome = verify(records)
    dice = sum(len(record.get("dice") or ()) for record in records[1:])
    return TableProof(throws, dice, outcome)
