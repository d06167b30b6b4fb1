"""The per-unit counts of AWS operations, from a tournament counted on the served stack.

`calibrate` turns one counted run (`cli.calibrate`) into figures per unit: registration's
calls per player, play's calls per action (each action is one table change: the HTTP
request, its stream record, its pushes, its turn's schedule, the progression it sets
off), and a table's actions and turns per seat. `Calibration.counts` predicts a
tournament's counts from them and its bracket plan.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.bracket import BracketPlan

CALIBRATION_FILE = Path(__file__).with_name("calibration.json")
ACTION_ROUTE = "http:POST /tournaments/{}/tables/{}/actions"
TURN_CALL = "scheduler:CreateSchedule"
PER_MINUTE = ("lambda:SweeperFunction",)  # runs by the clock, not by the tournament
Counts = dict[str, Any]  # what `GET /_local/operations` answers


def _delta(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    keys = set(after) | set(before)
    return {k: after.get(k, 0) - before.get(k, 0) for k in sorted(keys)}


def _service_calls(counts: Counts, part: str = "calls") -> dict[str, float]:
    """The service's own calls (the local stand-ins' `local-` ones left out)."""
    return {k: v for k, v in counts[part].items() if not k.startswith("local-")}


def per_unit(
    after: Counts, before: Counts, units: int
) -> tuple[dict[str, float], dict[str, float]]:
    """The service's calls and DynamoDB units from `before` to `after`, per unit (a phone,
    a player), those that happened."""
    calls = _delta(_service_calls(after), _service_calls(before))
    billed = _delta(after["units"], before["units"])
    return (
        {k: v / units for k, v in calls.items() if v},
        {k: v / units for k, v in billed.items() if v},
    )


def played_seats(plan: BracketPlan) -> tuple[int, int]:
    """(tables that are played, seats at them): a bye is no game."""
    tables = seats = 0
    for round_number in range(1, plan.rounds + 1):
        for size in plan.table_sizes(round_number):
            if size > 1:
                tables, seats = tables + 1, seats + size
    return tables, seats


def calibrate(run: dict[str, Any]) -> dict[str, Any]:
    """Per-unit figures from a counted run: counts before, after registration, at the end."""
    players = run["players"]
    plan = BracketPlan.build(players, run["table_size"], run["advance"])
    tables, seats = played_seats(plan)
    before, registered, finished = run["before"], run["registered"], run["finished"]
    registration = _delta(_service_calls(registered), _service_calls(before))
    play = _delta(_service_calls(finished), _service_calls(registered))
    items = _delta(_service_calls(finished, "items"), _service_calls(registered, "items"))
    units = _delta(finished["units"], registered["units"])
    registration_units = _delta(registered["units"], before["units"])
    actions, turns = play.get(ACTION_ROUTE, 0), play.get(TURN_CALL, 0)
    return {
        "source": {
            "game": run["game"],
            "players": players,
            "table_size": run["table_size"],
            "advance": run["advance"],
            "played_tables": tables,
            "seats": seats,
            "seconds": run["seconds"],
            "messages_heard": run["messages_heard"],
        },
        "actions_per_seat": actions / seats,
        "turns_per_seat": turns / seats,
        "per_player": {k: v / players for k, v in registration.items() if v},
        "per_player_units": {k: v / players for k, v in registration_units.items() if v},
        "per_action": {k: v / actions for k, v in play.items() if v and k not in PER_MINUTE},
        "items_per_action": {k: v / actions for k, v in items.items() if v},
        "per_action_units": {k: v / actions for k, v in units.items() if v},
        "item_kinds": finished["item_kinds"],
    }


@dataclass(frozen=True)
class Calibration:
    """The figures `calibrate` wrote, for one game and table size."""

    data: dict[str, Any]

    @classmethod
    def load(cls, path: Path = CALIBRATION_FILE) -> Calibration:
        """The calibration file (`make calibrate` writes it)."""
        return cls(json.loads(path.read_text(encoding="utf-8")))

    @property
    def per_action(self) -> dict[str, float]:
        """Play's calls per action, by `service:Operation`."""
        return dict(self.data["per_action"])

    @property
    def per_player(self) -> dict[str, float]:
        """Registration's calls per player, by `service:Operation`: a bot's (registered
        over HTTP, its socket connected with its token in a header)."""
        return dict(self.data["per_player"])

    def per_person(self, pace: str) -> tuple[dict[str, float], dict[str, float]]:
        """Calls and DynamoDB units per player of `pace`: people take part on a phone (the
        play page and its scripts, a socket ticket, `cli.calibrate_phones`), bots as the
        calibration's bots did."""
        if pace == "people":
            return dict(self.data["per_phone"]), dict(self.data["per_phone_units"])
        return self.per_player, dict(self.data["per_player_units"])

    def site_bytes(self, pace: str) -> float:
        """The bytes the site's distribution sends a player of `pace` (a phone loads the
        play page and its scripts; a bot nothing)."""
        return float(self.data.get("per_phone_site_bytes", 0)) if pace == "people" else 0.0

    def actions(self, plan: BracketPlan) -> float:
        """How many actions the tournament's tables take, all rounds together."""
        return float(self.data["actions_per_seat"]) * played_seats(plan)[1]

    def turns(self, plan: BracketPlan) -> float:
        """How many turns the tournament's tables take."""
        return float(self.data["turns_per_seat"]) * played_seats(plan)[1]

    def counts(self, players: int, actions: float, pace: str = "bots") -> dict[str, float]:
        """Predicted calls per operation of a tournament of `players` of `pace` whose
        tables take `actions` actions (registration, then play; the clock's sweeps left
        out)."""
        found: dict[str, float] = {}
        for key, per in self.per_person(pace)[0].items():
            found[key] = found.get(key, 0.0) + per * players
        for key, per in self.per_action.items():
            found[key] = found.get(key, 0.0) + per * actions
        return found
