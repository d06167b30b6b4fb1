"""The events only 42 emits; every class is a NamedTuple whose field names are the JSON keys."""

from __future__ import annotations

from typing import NamedTuple

from core.events import PlayerId
from core.games.zweiundvierzig.state import Phase


class RoundStarted(NamedTuple):
    """A round of `phase` begins; `players` throw in this order, `starter` first."""

    round: int
    phase: Phase
    starter: PlayerId
    players: tuple[PlayerId, ...]


class TurnEnded(NamedTuple):
    """`player` finished their turn (stopped, reached the limit or timed out)."""

    player: PlayerId
    throws: int


class RoundScored(NamedTuple):
    """Every turn of the round in playing order (covered throws revealed), worst and best.

    `last_throws` holds None for a turn without a throw; `best` is None when a concede
    ended the round before anyone else finished.
    """

    round: int
    phase: Phase
    players: tuple[PlayerId, ...]
    last_throws: tuple[int | None, ...]
    throws: tuple[int, ...]
    worst: PlayerId
    best: PlayerId | None
    conceded: bool


class StickTaken(NamedTuple):
    """Hinrunde: `player` took a stick from the pot; `sticks` is theirs now, `pot` is left."""

    player: PlayerId
    sticks: int
    pot: int


class StickPassed(NamedTuple):
    """Rückrunde: the round's best passed one of their sticks to the round's worst."""

    giver: PlayerId
    receiver: PlayerId
    giver_sticks: int
    receiver_sticks: int


class PlayersLeft(NamedTuple):
    """After the Hinrunde, `players` (no stick) left together, sharing places first..last."""

    players: tuple[PlayerId, ...]
    first_place: int
    last_place: int


class PlayerPlaced(NamedTuple):
    """`player`'s place is fixed: left in the Rückrunde, placed by the play-off, forfeited,
    or the last one whose place was open."""

    player: PlayerId
    place: int
