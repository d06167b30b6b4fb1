"""The bot kit: load a `decide(view) -> action` function and play a tournament with it.

A bot sees only what a player sees over the HTTP API: it registers, asks `/me` where it
plays, waits on the table's event feed (`.../events?after=V`) until the feed says it is
to act, then reads its own view and submits what `decide` chose. Every request is
retried on 429, 5xx and lost connections (`cli.api_client.Retrying`). The same steps
serve the terminal player in `cli.play`. Waiting for a table to move is one function,
`Session.watch` (`poll_feed` by default), so a push subscription can take its place.

The view `decide` gets is the player's own view of the table, as `GET .../me` answers
it (typed per game in the OpenAPI document: MaexchenView, MariechenView,
ZweiundvierzigView). Every game's view has `game`, `version` (int), `options` (every
rule option, defaults filled in), `survivors` (int: how many go on), `seats` (list, in
seat order), `to_act` (player id) and `legal_actions` (list of `{"kind": ..., "value"?:
int}`: return one of them unchanged). Once over, `ranking` (ids, best first). Per game:

- maexchen: `round` (int), `stage` ("opening", "response", "announce",
  "announce_blind"), `announcement` (int or None: the value to beat, 21 highest),
  `announcer` (id or None); seats have `player`, `penalty_points`, `timeouts`,
  `eliminated`. `your_throw` (int such as 53, higher die first) while the bot has thrown
  and not yet announced; `your_throw_under_cup` once announced. Hidden: everyone else's
  throw under the cup, and the bot's own after a blind reroll.
- mariechen: `stage` ("turns", "throw_off"), `throw` (1-6) and `target` (the face it
  aims at), `throw_off` (None, or `players`, `first_place`, `last_place`, `faces`);
  seats have `player`, `throws`, `hits`, `score`, `timeouts`, `forfeited`. Nothing is
  hidden.
- zweiundvierzig: `phase` ("hinrunde", "playoff", "rueckrunde"), `pot` (sticks left),
  `round` (`number`, `starter`, `throw_limit`, `finished`: list of `player`,
  `last_throw` (int or None), `throws`; and `throws`: the bot's open throws so far);
  seats have `player`, `sticks`, `status` ("playing", "left", "forfeited"), `timeouts`.
  Hidden: a fifth throw (`last_throw` None with `throws` 5) until the round is scored,
  from its thrower too.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from cli.api_client import RetryPolicy, Transport
from cli.push_watch import Connect, PushWatch
from cli.session import (
    ActionRejected,
    Pause,
    Seat,
    Session,
    Watch,
    is_done,
    poll_feed,
    register,
    resume,
)

__all__ = ["ActionRejected", "Pause", "Seat", "Session", "is_done", "register", "resume"]

Decide = Callable[[dict[str, Any]], dict[str, Any]]


class BotLoadError(ValueError):
    """A bot module that cannot be loaded or has no usable `decide`."""


class BotStopped(Exception):
    """The bot was asked to stop (Ctrl-C)."""


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


# --- a bot -----------------------------------------------------------------------------


def play_table(session: Session, table: str, decide: Decide, think: float = 0.0) -> int:
    """Play one table to its end with `decide`, pausing `think` seconds before each
    action (a tournament at human speed); how many actions the bot took.

    The bot waits on the table's event feed and reads its view only when the feed says
    it is to act (on push, `your_turn` brings the view: no read at all). An action's
    answer is the bot's next view: while it is still the bot's turn (a Mäxchen throw,
    then its announcement) it decides on that without a read.
    """
    me = session.seat.player_id
    after = -1
    answer: dict[str, Any] | None = None  # the bot's own view, when it has a fresh one
    actions = 0
    while True:
        if answer is None:
            feed = session.wait_for_change(table, after)
            if feed is None or feed["over"]:
                return actions
            after = feed["version"]
            if feed.get("to_act", me) != me:
                continue
            if "view" in feed:  # pushed with `your_turn`
                answer = {"over": False, "view": feed["view"]}
            else:
                answer = session.view(table)
            if answer is None:
                return actions
        if answer["over"]:
            return actions
        view = answer["view"]
        if view.get("to_act") != me:
            after, answer = max(after, view["version"]), None
            continue
        try:
            action = decide(view)
        except Exception as error:
            raise ActionRejected(f"decide raised {error!r}") from error
        if not isinstance(action, dict):
            raise ActionRejected(f"decide returned {action!r}, not an action dict")
        if think > 0:
            session.pause(think)
        answer = session.submit(table, view, action)  # None: the table moved on, look again
        if answer is not None:
            actions += 1


def run_bot(
    client: Transport,
    tournament_id: str,
    name: str,
    decide: Decide,
    poll_seconds: float = 0.5,
    *,
    token: str | None = None,
    join_code: str | None = None,
    think: float = 0.0,
    stop: threading.Event | None = None,
    on_registered: Callable[[Seat], None] | None = None,
    retry: RetryPolicy | None = None,
    watch: Watch = poll_feed,
    push: Connect | None = None,
) -> BotResult:
    """Register `name` (with the tournament's `join_code`, where it has one; or resume
    with `token`) and play every table the bot is seated
    at, until it is out; then wait for the tournament's end to learn its place.

    `think` seconds pass before each action (`--think`: a tournament an organizer can
    watch). An action the service rejects as invalid stops the bot, with the service's message
    in the result. Setting `stop` ends the bot early by raising `BotStopped`. A request
    still failing when `retry`'s budget is spent raises `RetriesExhausted`.

    With `push` (see `cli.push_watch.connector`), the bot keeps one WebSocket connection
    for the whole tournament and waits on it instead of polling the feed and `/me`.
    """
    pause, policy = _pause(stop), retry or RetryPolicy()
    if token:
        seat = resume(client, tournament_id, token, pause=pause, retry=policy)
    else:
        seat = register(client, tournament_id, name, pause=pause, retry=policy, join_code=join_code)
    if on_registered is not None:
        on_registered(seat)
    pushes = PushWatch(push) if push is not None else None
    session = Session(client, tournament_id, seat, pause, poll_seconds, policy, pushes or watch)
    played: set[str] = set()
    actions = 0
    try:
        while not is_done(me := _next_table(session, pushes, played)):
            played.add(me["table"])
            actions += play_table(session, me["table"], decide, think)
        if me["tournament_status"] != "finished":
            me = pushes.wait_for_place(session) if pushes else session.wait_for_place()
    except ActionRejected as error:
        return BotResult(name, seat.player_id, None, False, len(played), actions, str(error))
    finally:
        if pushes is not None:
            pushes.close()
    return BotResult(
        name, seat.player_id, me["place"], bool(me["eliminated"]), len(played), actions
    )


def _next_table(session: Session, pushes: PushWatch | None, played: set[str]) -> dict[str, Any]:
    if pushes is not None:
        return pushes.wait_for_table(session, played)
    return session.wait_for_table(played)


def _pause(stop: threading.Event | None) -> Pause:
    if stop is None:
        return time.sleep

    def pause(seconds: float) -> None:
        if stop.wait(seconds):
            raise BotStopped

    return pause
