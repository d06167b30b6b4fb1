"""Who the bridge speaks for: its bots (with the player tokens it holds for them) and
its spectators, kept in a JSON file so that a restarted bridge goes on with them.

The file holds player tokens: it is written readable by its owner only.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

Address = tuple[str, int]


@dataclass
class Bot:
    """A bot registered as a Knobelcup player, and where it listens."""

    name: str
    player_id: str
    token: str
    host: str
    port: int

    @property
    def address(self) -> Address:
        """Where the bot's datagrams come from and go to."""
        return (self.host, self.port)


@dataclass
class Spectator:
    """A client that hears every public message."""

    name: str
    host: str
    port: int

    @property
    def address(self) -> Address:
        """Where the spectator listens."""
        return (self.host, self.port)


class Roster:
    """The bots and spectators of one tournament, saved to `path` on every change."""

    def __init__(self, path: Path | None, tournament: str) -> None:
        self._path = path
        self._tournament = tournament
        self._lock = threading.RLock()
        self.bots: dict[str, Bot] = {}  # by name
        self.spectators: dict[str, Spectator] = {}
        self.tables: set[str] = set()  # tables the bridge has begun to tell
        self._by_player: dict[str, Bot] = {}
        self._by_address: dict[Address, Bot] = {}
        if path is not None and path.exists():
            self._load(json.loads(path.read_text()).get("tournaments", {}).get(tournament, {}))

    def bot(self, player_id: str) -> Bot | None:
        """The bridge's bot with this player id, if it is one."""
        with self._lock:
            return self._by_player.get(player_id)

    def bot_at(self, address: Address) -> Bot | None:
        """The bot that registered from `address`."""
        with self._lock:
            return self._by_address.get(address)

    def name_of(self, player_id: str) -> str:
        """A player's classic name: the bot's own, else the player id (a valid name too)."""
        bot = self.bot(player_id)
        return bot.name if bot is not None else player_id

    def add_bot(self, bot: Bot) -> None:
        """Keep a newly registered bot."""
        with self._lock:
            self.bots[bot.name] = bot
            self._index()
            self._save()

    def move(self, bot: Bot, address: Address) -> None:
        """The bot registered again from another port (the same host): talk to it there."""
        with self._lock:
            bot.host, bot.port = address
            self._index()
            self._save()

    def add_spectator(self, spectator: Spectator) -> None:
        """Keep a spectator (a new one, or one that registered again)."""
        with self._lock:
            self.spectators[spectator.name] = spectator
            self._save()

    def listeners(self) -> list[Address]:
        """Every spectator's address."""
        with self._lock:
            return [spectator.address for spectator in self.spectators.values()]

    def begin_table(self, ref: str) -> bool:
        """Note that the bridge tells table `ref`; whether it had begun to before."""
        with self._lock:
            if ref in self.tables:
                return True
            self.tables.add(ref)
            self._save()
            return False

    def player_ids(self) -> set[str]:
        """The player ids of every bot."""
        with self._lock:
            return set(self._by_player)

    def _index(self) -> None:
        self._by_player = {bot.player_id: bot for bot in self.bots.values()}
        self._by_address = {bot.address: bot for bot in self.bots.values()}

    def _load(self, saved: dict[str, Any]) -> None:
        self.bots = {name: Bot(**bot) for name, bot in saved.get("bots", {}).items()}
        self.spectators = {
            name: Spectator(**spectator) for name, spectator in saved.get("spectators", {}).items()
        }
        self.tables = set(saved.get("tables", []))
        self._index()

    def _save(self) -> None:
        if self._path is None:
            return
        everything: dict[str, Any] = (
            json.loads(self._path.read_text()) if self._path.exists() else {"tournaments": {}}
        )
        everything.setdefault("tournaments", {})[self._tournament] = {
            "bots": {name: asdict(bot) for name, bot in self.bots.items()},
            "spectators": {name: asdict(s) for name, s in self.spectators.items()},
            "tables": sorted(self.tables),
        }
        partial = self._path.with_name(self._path.name + ".partial")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            json.dump(everything, file, indent=1)
            file.flush()
            os.fsync(file.fileno())
        os.replace(partial, self._path)
