"""The checks every game makes the same way: seating, whose turn, the dice handed in
(and the turn service makes them with the same functions before it draws any dice)."""

from __future__ import annotations

from collections.abc import Sequence

from core.errors import InvalidDice, InvalidSeating, MatchOver, NotYourTurn
from core.events import PlayerId

MAX_PLAYERS_AT_TABLE = 12


def check_seating(
    game: str, players: Sequence[PlayerId], survivors: int, min_players: int
) -> tuple[PlayerId, ...]:
    """The seat order as a tuple; raises `InvalidSeating` naming what is wrong."""
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise InvalidSeating("players must be a list of player ids", rule="seating")
    seats = tuple(players)
    if not all(type(player) is str and player for player in seats):
        raise InvalidSeating("every player id must be a non-empty string", rule="seating")
    if type(survivors) is not int:
        raise InvalidSeating(f"survivors must be an integer, got {survivors!r}", rule="seating")
    if not min_players <= len(seats) <= MAX_PLAYERS_AT_TABLE:
        raise InvalidSeating(
            f"{game} is played by {min_players} to {MAX_PLAYERS_AT_TABLE} players at a table, "
            f"got {len(seats)}",
            rule="rules §6.1 seats",
        )
    if len(set(seats)) != len(seats):
        raise InvalidSeating("a player may take only one seat at a table", rule="seating")
    if not 1 <= survivors < len(seats):
        raise InvalidSeating(
            f"survivors must be between 1 and {len(seats) - 1} for {len(seats)} players, "
            f"got {survivors}",
            rule="rules §5.4 advance",
        )
    return seats


def check_turn(
    game: str, to_act: PlayerId | None, player: PlayerId, *, table: str | None = None
) -> None:
    """Raise `MatchOver` once the table is over, `NotYourTurn` for anyone but `to_act`.

    `table` names the table in the message (a stored table's ref); unnamed, it is "this
    <game> table"."""
    if to_act is None:
        named = f"table {table}" if table is not None else f"this {game} table"
        raise MatchOver(f"{named} is over", rule="rules §6.6 match over")
    if player != to_act:
        raise NotYourTurn(f"it is {to_act}'s turn, not {player}'s", rule="rules §6.2 turn order")


def check_dice(dice: Sequence[int], needed: int) -> tuple[int, ...]:
    """`dice` as a tuple if it has exactly `needed` faces of 1..6, else `InvalidDice`."""
    if not isinstance(dice, tuple | list):
        raise InvalidDice(f"dice must be a list of faces, got {type(dice).__name__}")
    faces = tuple(dice)
    if len(faces) != needed:
        raise InvalidDice(f"this action needs {needed} dice, got {len(faces)}")
    for face in faces:
        if type(face) is not int or not 1 <= face <= 6:
            raise InvalidDice(f"a die shows 1 to 6, got {face!r}")
    return faces
