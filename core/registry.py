"""Games found by name. Adding a game means adding its module here, nothing else.

A game's module is imported the first time it is asked for: a Lambda function serving
Mäxchen tables never pays for loading the other games on a cold start.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from core.errors import UnknownGame
from core.protocol import Game

_MODULES = {
    "maexchen": "core.games.maexchen",
    "mariechen": "core.games.mariechen",
    "zweiundvierzig": "core.games.zweiundvierzig",
}
_GAMES: dict[str, Game[Any]] = {}


def game_names() -> tuple[str, ...]:
    """The registered games' names, sorted."""
    return tuple(sorted(_MODULES))


def game_title(name: str) -> str:
    """The title the pages and the terminal show for the game registered as `name`
    (`Game.title`); `name` itself for a game not registered."""
    try:
        return get_game(name).title
    except UnknownGame:
        return name


def get_game(name: str) -> Game[Any]:
    """The game registered as `name`; raises `UnknownGame` listing the known ones."""
    game = _GAMES.get(name)
    if game is not None:
        return game
    if name not in _MODULES:
        raise UnknownGame(f"no game named {name!r}; known games: {', '.join(game_names())}")
    game = import_module(_MODULES[name]).GAME
    if game.name != name:
        raise UnknownGame(f"module {_MODULES[name]} registers {game.name!r}, not {name!r}")
    _GAMES[name] = game
    return _GAMES[name]
