"""A Knobelcup Mäxchen table told in the classic protocol's words.

`TableStory` reads a table's records in order (from its event feed, or from the answer to an
action the bridge took) and says what the classic server would broadcast for them. It
also keeps the little it needs to know whose turn it is, so the bridge asks the service
nothing more between actions. docs/udp-bridge.md gives the mapping event by event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cli.udp_bridge import protocol as p

MAEXCHEN = 21

# A seat's stage, as the table view names it
OPENING = "opening"
RESPONSE = "response"
ANNOUNCE = "announce"
ANNOUNCE_BLIND = "announce_blind"
OVER = "over"


@dataclass(frozen=True, slots=True)
class RoundOpening:
    """A round begins: each bot of the table gets `ROUND STARTING;token`, then everyone
    `ROUND STARTED;round;players` (the players in the order they will act)."""

    round: int
    order: tuple[str, ...]


News = str | RoundOpening  # a line for everyone at the table, or a round's opening


@dataclass
class TableStory:
    """What the bridge knows of one table: seats, whose turn, penalties, version."""

    name_of: Callable[[str], str]
    seats: list[str] = field(default_factory=list)
    eliminated: set[str] = field(default_factory=set)
    penalty_points: dict[str, int] = field(default_factory=dict)
    version: int = -1
    round: int = 0
    to_act: str | None = None
    stage: str = OPENING
    announcement: int | None = None
    over: bool = False
    # the classic reason for a turn our rules refused, told when its timeout comes
    refused: dict[str, str] = field(default_factory=dict)
    _reason: str = p.CAUGHT_BLUFFING
    _score_due: bool = False

    @classmethod
    def from_view(cls, name_of: Callable[[str], str], answer: Mapping[str, Any]) -> TableStory:
        """The story of a table already in play, from its spectator view (a bridge that
        restarts goes on from there, without telling what it missed)."""
        view = answer["view"]
        return cls(
            name_of=name_of,
            seats=[seat["player"] for seat in view["seats"]],
            eliminated={seat["player"] for seat in view["seats"] if seat["eliminated"]},
            penalty_points={seat["player"]: seat["penalty_points"] for seat in view["seats"]},
            version=view["version"],
            round=view["round"],
            to_act=view["to_act"],
            stage=view["stage"],
            announcement=view["announcement"],
            over=bool(answer["over"]),
        )

    def read(self, record: Mapping[str, Any]) -> list[News]:
        """The classic messages for one log record; records at or before the version
        already read are skipped (the same record can come from an answer and the log)."""
        if record["version"] <= self.version:
            return []
        self.version = record["version"]
        told: list[News] = []
        for event in record["events"]:
            told.extend(self._read_event(event))
        return told

    def active_order(self, starter: str) -> tuple[str, ...]:
        """The players still in, in the order they act from `starter` on."""
        start = self.seats.index(starter)
        ring = self.seats[start:] + self.seats[:start]
        return tuple(player for player in ring if player not in self.eliminated)

    def score(self) -> dict[str, int]:
        """Each player's classic score: minus their penalty points (higher is better)."""
        return {self.name_of(player): -self.penalty_points.get(player, 0) for player in self.seats}

    def _read_event(self, event: Mapping[str, Any]) -> list[News]:
        kind = event.get("type")
        player = event.get("player")
        name = self.name_of(player) if isinstance(player, str) else ""
        if kind == "TableSeated":
            self.seats = list(event["seats"])
            self.penalty_points = dict.fromkeys(self.seats, 0)
            return []
        if kind == "RoundStarted":
            told = self._score_once()
            self.round, self.to_act, self.stage = event["round"], event["starter"], OPENING
            self.announcement = None
            self.refused.clear()
            return [*told, RoundOpening(self.round, self.active_order(event["starter"]))]
        if kind == "DiceThrown":
            self.stage = ANNOUNCE if event.get("visibility") != "nobody" else ANNOUNCE_BLIND
            return [p.player_rolls(name)]
        if kind == "Announced":
            self.announcement = event["value"]
            self.to_act = self._next_active(event["player"])
            self.stage = RESPONSE
            return [p.announced(name, event["value"])]
        if kind == "Doubted":
            self.to_act = None
            held = event["announcement_held"]
            self._reason = (
                p.SEE_FAILED
                if held
                else p.LIED_ABOUT_MIA
                if event["announcement"] == MAEXCHEN
                else p.CAUGHT_BLUFFING
            )
            return [p.player_wants_to_see(name), p.actual_dice(event["revealed"])]
        if kind == "TurnTimedOut":
            thrown = self.stage in (ANNOUNCE, ANNOUNCE_BLIND)
            self._reason = self.refused.get(player or "") or (
                p.DID_NOT_ANNOUNCE if thrown else p.DID_NOT_TAKE_TURN
            )
            self.to_act = None
            return []
        if kind == "PenaltyGiven":
            self.penalty_points[event["player"]] = event["total"]
            self._score_due = True
            return [p.player_lost([name], self._reason)]
        if kind in ("PlayerEliminated", "PlayerForfeited"):
            self.eliminated.add(event["player"])
            reason = p.ELIMINATED if kind == "PlayerEliminated" else p.FORFEITED
            return [p.player_lost([name], reason)]
        if kind == "MatchFinished":
            self.over, self.to_act, self.stage = True, None, OVER
            return self._score_once()
        return []  # a type this bridge does not know says nothing in the classic words

    def _score_once(self) -> list[News]:
        if not self._score_due:
            return []
        self._score_due = False
        return [p.score(self.score())]

    def _next_active(self, player: str) -> str | None:
        order = self.active_order(player)
        return order[1] if len(order) > 1 else None


def stand_in_action(view: Mapping[str, Any]) -> dict[str, Any]:
    """What the bridge does for a bot that did not answer in time: doubt when there is
    an announcement to doubt; otherwise throw, then announce the throw if it is high
    enough, else the lowest value allowed. Always legal, and it ends the turn."""
    legal: Sequence[Mapping[str, Any]] = view["legal_actions"]
    kinds = {action["kind"] for action in legal}
    if "doubt" in kinds:
        return {"kind": "doubt"}
    if "throw" in kinds:
        return {"kind": "throw"}
    values = [action["value"] for action in legal if action["kind"] == "announce"]
    throw = view.get("your_throw")
    value = throw if throw in values else values[0]
    return {"kind": "announce", "value": value}
