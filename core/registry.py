"""Games found by name. Adding a game means adding its module here, nothing else."""

from __future__ import annotations

from typing import Any

from core.errors import UnknownGame
from core.games import maexchen, mariechen, zweiundvierzig
from core.protocol import Game

_GAMES: dict[str, Game[Any]] = {
    game.name: game for game in (maexchen.GAME, mariechen.GAME, zweiundvierzig.GAME)
}


def game_names() -> tuple[str, ...]:
    """The registered games' names, sorted."""
    return tuple(sorted(_GAMES))


def get_game(name: str) -> Game[Any]:
    """The game registered as `name`; raises `UnknownGame` listing the known ones."""
    try:
        return _GAMES[name]
    except KeyError:
        raise UnknownGame(
            f"no game named {name!r}; known games: {', '.join(game_names())}"
        ) from None
