"""The organizer tokens this computer's `knobelcup organize create` made, so that `list`
and every other subcommand find them: one JSON file under the user's config folder
(`$XDG_CONFIG_HOME/knobelcup/tournaments.json`, else `~/.config/...`), readable by the
user alone (mode 0600). Organizers have no accounts: the token is the key to one
tournament, and this file is the key ring.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class KeptTournament:
    """One tournament the user organizes, and where."""

    tournament_id: str
    url: str
    token: str
    name: str = ""
    created_at: str = ""


def default_path() -> Path:
    """`tournaments.json` in the user's config folder for knobelcup."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "knobelcup" / "tournaments.json"


class TokenFile:
    """The key ring: read whole, written whole (atomically, mode 0600)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def all(self) -> list[KeptTournament]:
        """Every kept tournament, oldest first."""
        if not self.path.exists():
            return []
        rows = json.loads(self.path.read_text(encoding="utf-8")).get("tournaments", [])
        return [KeptTournament(**row) for row in rows]

    def find(self, tournament: str) -> KeptTournament | None:
        """The kept entry of `tournament`, if any."""
        return next((t for t in self.all() if t.tournament_id == tournament), None)

    def keep(self, kept: KeptTournament) -> None:
        """Add `kept`, replacing an entry of the same tournament (a rotated token)."""
        rows = [t for t in self.all() if t.tournament_id != kept.tournament_id] + [kept]
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        partial = self.path.with_suffix(".tmp")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            json.dump({"tournaments": [asdict(t) for t in rows]}, out, indent=2)
        os.chmod(partial, 0o600)
        os.replace(partial, self.path)
