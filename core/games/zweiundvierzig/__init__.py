"""42 muss kommen: two dice in the open, a limit set by the starter, and sticks.

Rules: docs/rules.md §3 (42 muss kommen) and the timeouts of §4, with the service's
decisions on what the rules leave open marked "decision" where they apply. A match is a Hinrunde
(each round's worst takes a stick from the pot), then a play-off for the players who left
together while they straddle the advance cut, then a Rückrunde (each round's best passes
a stick to its worst).

The modules, each importing only those above it:
- `ranking`: throw values, the comparison of a round's turns, the table's ranking;
- `state`: the options, the phases and the state of a table, and queries on it;
- `events`: the events only 42 emits;
- `phases`: scoring a round, then the Hinrunde, play-off or Rückrunde step, and the stop;
- `turns`: the handlers of Throw, Stop, Concede and Timeout, and passing the turn on;
- `game`: the `Zweiundvierzig` class behind `core.protocol.Game`, with its views.
"""

from __future__ import annotations

from core.games.zweiundvierzig.events import (
    PlayerPlaced,
    PlayersLeft,
    RoundScored,
    RoundStarted,
    StickPassed,
    StickTaken,
    TurnEnded,
)
from core.games.zweiundvierzig.game import GAME, Zweiundvierzig
from core.games.zweiundvierzig.state import (
    NAME,
    Phase,
    ZweiundvierzigOptions,
    ZweiundvierzigState,
)

__all__ = [
    "GAME",
    "NAME",
    "Phase",
    "PlayerPlaced",
    "PlayersLeft",
    "RoundScored",
    "RoundStarted",
    "StickPassed",
    "StickTaken",
    "TurnEnded",
    "Zweiundvierzig",
    "ZweiundvierzigOptions",
    "ZweiundvierzigState",
]
