"""The bot kit: load a `decide(view) -> action` function and play a tournament with it.

A bot sees only what a player sees over the HTTP API: it registers, asks `/me` where
it plays, reads its own view of the table and, when `to_act` is itself, submits what
`decide` chose. The same steps serve the terminal player in `cli.play`.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from cli.api_client import ApiClient, ApiError

Decide = Callable[[dict[str, Any]], dict[str, Any]]
Pause = Callable[[float], None]
SUBMIT_ATTEMPTS = 4  # a lost answer or a busy service: resend with the same key


class BotLoadError(ValueError):
    """A bot module that cannot be loaded or has no usable `decide`."""


class ActionRejected(RuntimeError):
    """The service refused an action as invalid (422): a bug in `decide`, not bad luck."""


class BotStopped(Exception):
    """The bot was asked to stop (Ctrl-C)."""


@dataclass(frozen=True)
class Seat:
    """A registered player: who they are and the token that proves it."""

    player_id: str
    token: str
    name: str


@dataclass(frozen=True)
class BotResult:
    """How a bot's tournament ended: its place once known, or why it stopped."""

    name: str
    player_id: str
    place: int | None
    eliminated: bool
    tables: int
    actions: int
    error: str | None = None

    def describe(self) -> str:
        """One line for the console."""
        if self.error is not None:
            return f"{self.name}: stopped: {self.error}"
        where = f"place {self.place}" if self.place is not None else "place not known yet"
        return f"{self.name}: {where} ({self.tables} tables, {self.actions} actions)"


# --- loading -------------------------------------------------------------------------


def load_module(spec: str) -> ModuleType:
    """A module by dotted name, or by the path of a `.py` file.

    A file inside packages (folders with `__init__.py`) is imported under its dotted
    name, with the folder above the outermost package on `sys.path`, so it may import
    its siblings; a lone file is loaded as it is, its folder on `sys.path` as for a script.
    """
    try:
        if not spec.endswith(".py"):
            return importlib.import_module(spec)
        return _load_file(spec)
    except (ImportError, SyntaxError) as error:
        raise BotLoadError(f"cannot import bot module {spec!r}: {error}") from error


def _load_file(spec: str) -> ModuleType:
    path = Path(spec).resolve()
    if not path.is_file():
        raise BotLoadError(f"no bot file {spec!r}")
    parts = [path.stem]
    root = path.parent
    while (root / "__init__.py").is_file():
        parts.insert(0, root.name)
        root = root.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    if len(parts) > 1:
        return importlib.import_module(".".join(parts))
    found = importlib.util.spec_from_file_location(f"knobelcup_bot_{path.stem}", path)
    if found is None or found.loader is None:
        raise BotLoadError(f"cannot load {spec!r} as a Python module")
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


def load_decider(spec: str) -> Decide:
    """The `decide(view) -> action` function of a bot module (dotted name or .py path)."""
    module = load_module(spec)
    decide = getattr(module, "decide", None)
    if decide is None:
        raise BotLoadError(f"bot module {spec!r} defines no decide(view) function")
    if not callable(decide):
        raise BotLoadError(f"decide in bot module {spec!r} is not a function")
    chosen: Decide = decide
    return chosen


def bot_name(spec: str) -> str:
    """A default player name for a bot: its module's last name part."""
    return Path(spec).stem if spec.endswith(".py") else spec.rsplit(".", 1)[-1]


# --- the steps every player takes ------------------------------------------------------


def register(client: ApiClient, tournament: str, name: str) -> Seat:
    """Register `name`; the token in the answer is shown only this once."""
    answer = client.ok("POST", f"/tournaments/{tournament}/players", {"name": name})
    return Seat(answer["player_id"], answer["player_token"], name)


def resume(client: ApiClient, tournament: str, token: str) -> Seat:
    """The seat of an already registered player, by their token."""
    me = client.ok("GET", f"/tournaments/{tournament}/me", token=token)
    return Seat(me["player"], token, me["name"])


def is_done(me: dict[str, Any]) -> bool:
    """Whether a `/me` answer says the player will not play again."""
    return bool(me["eliminated"]) or me["tournament_status"] == "finished"


def table_path(tournament: str, table: str) -> str:
    """The path of a table."""
    return f"/tournaments/{tournament}/tables/{table}"


@dataclass
class Session:
    """One player's requests to one tournament: where they play, their view, actions."""

    client: ApiClient
    tournament: str
    seat: Seat
    pause: Pause = time.sleep
    poll_seconds: float = 0.5

    def whereabouts(self) -> dict[str, Any]:
        """`GET /me`: the player's table, status, and place once finished."""
        me: dict[str, Any] = self.client.ok(
            "GET", f"/tournaments/{self.tournament}/me", token=self.seat.token
        )
        return me

    def wait_for_table(
        self, played: set[str], on_wait: Callable[[dict[str, Any]], None] = lambda me: None
    ) -> dict[str, Any]:
        """Poll `/me` until the player sits at a table not in `played`, or is done."""
        while True:
            me = self.whereabouts()
            if is_done(me) or (me["table"] and me["table"] not in played):
                return me
            on_wait(me)
            self.pause(self.poll_seconds)

    def wait_for_place(self) -> dict[str, Any]:
        """Poll `/me` until the tournament is finished and the player's place is known."""
        while True:
            me = self.whereabouts()
            if me["tournament_status"] == "finished":
                return me
            self.pause(self.poll_seconds)

    def view(self, table: str) -> dict[str, Any] | None:
        """The player's view of `table`, or None when it is a bye (nothing to play)."""
        path = table_path(self.tournament, table) + "/me"
        try:
            answer: dict[str, Any] = self.client.ok("GET", path, token=self.seat.token)
        except ApiError as error:
            if error.status == 409 and error.code == "wrong_status":
                return None
            raise
        return answer

    def submit(
        self, table: str, view: dict[str, Any], action: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Submit `action` on the view's version; the answer, or None if the table moved
        on (409: look again and decide again). Resent with the same Idempotency-Key when
        the answer is lost or the service is busy, so it is never applied twice."""
        path = table_path(self.tournament, table) + "/actions"
        body = {"version": view["version"], "action": action}
        headers = {"Idempotency-Key": str(uuid.uuid4())}
        for attempt in range(1, SUBMIT_ATTEMPTS + 1):
            try:
                answer = self.client.call(
                    "POST", path, body, token=self.seat.token, headers=headers
                )
            except OSError:
                self.client.close()
                if attempt == SUBMIT_ATTEMPTS:
                    raise
                self.pause(0.5 * attempt)
                continue
            if answer.status == 200:
                result: dict[str, Any] = answer.body
                return result
            if answer.status == 409:
                return None
            if answer.status in {400, 422}:
                error = ApiError("POST", path, answer)
                raise ActionRejected(
                    f"the service rejected {action}: {error.code}: {error.message}"
                )
            if (answer.status == 429 or answer.status >= 500) and attempt < SUBMIT_ATTEMPTS:
                self.pause(0.5 * attempt)
                continue
            raise ApiError("POST", path, answer)
        raise AssertionError("unreachable")


# --- a bot -----------------------------------------------------------------------------


def play_table(session: Session, table: str, decide: Decide) -> int:
    """Play one table to its end with `decide`; how many actions the bot took."""
    answer = session.view(table)
    actions = 0
    while answer is not None and not answer["over"]:
        view = answer["view"]
        if view.get("to_act") != session.seat.player_id:
            session.pause(session.poll_seconds)
            answer = session.view(table)
            continue
        try:
            action = decide(view)
        except Exception as error:
            raise ActionRejected(f"decide raised {error!r}") from error
        if not isinstance(action, dict):
            raise ActionRejected(f"decide returned {action!r}, not an action dict")
        acted = session.submit(table, view, action)
        if acted is None:  # someone (a timeout) moved the table on: look again
            answer = session.view(table)
            continue
        actions += 1
        answer = acted
    return actions


def run_bot(
    client: ApiClient,
    tournament_id: str,
    name: str,
    decide: Decide,
    poll_seconds: float = 0.5,
    *,
    token: str | None = None,
    stop: threading.Event | None = None,
    on_registered: Callable[[Seat], None] | None = None,
) -> BotResult:
    """Register `name` (or resume with `token`) and play every table the bot is seated
    at, until it is out; then wait for the tournament's end to learn its place.

    An action the service rejects as invalid stops the bot, with the service's message
    in the result. Setting `stop` ends the bot early by raising `BotStopped`.
    """
    seat = resume(client, tournament_id, token) if token else register(client, tournament_id, name)
    if on_registered is not None:
        on_registered(seat)
    session = Session(client, tournament_id, seat, _pause(stop), poll_seconds)
    played: set[str] = set()
    actions = 0
    try:
        while not is_done(me := session.wait_for_table(played)):
            played.add(me["table"])
            actions += play_table(session, me["table"], decide)
    except ActionRejected as error:
        return BotResult(name, seat.player_id, None, False, len(played), actions, str(error))
    if me["tournament_status"] != "finished":
        me = session.wait_for_place()
    return BotResult(
        name, seat.player_id, me["place"], bool(me["eliminated"]), len(played), actions
    )


def _pause(stop: threading.Event | None) -> Pause:
    if stop is None:
        return time.sleep

    def pause(seconds: float) -> None:
        if stop.wait(seconds):
            raise BotStopped

    return pause
