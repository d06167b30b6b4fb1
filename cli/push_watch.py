"""Waiting on the service's WebSocket pushes instead of polling: one connection per bot
for the whole tournament.

`PushWatch` is a `Session.watch` (it returns once the player is to act at the table, or
the table is over) and also waits for the next table (a `table_events` marked `seated`)
and for the tournament's end (`eliminated`, `tournament_finished`), so a bot on push
never polls `/me` or the feed. Pushes are at least once and best effort: a message whose
version the bot already has is dropped; when a table's version jumps past what the bot
heard, or nothing comes for `quiet_seconds`, the bot reads the feed (or `/me`) once. If
the socket cannot connect or drops, it connects again with backoff and reads once after
each connect, so no turn is lost; meanwhile it polls as `poll_feed` does.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from cli.push import Message, socket_url, subscribe
from cli.session import Feed, Session, at_new_table


class MessageSource(Protocol):
    """An open subscription: `cli.push.Subscription`, or a fake in tests."""

    def next(self, timeout: float | None = None) -> Message:
        """The next message; `TimeoutError` after `timeout`, `OSError`/`ConnectionError`
        or a `websockets` `ConnectionClosed` when the line dropped."""
        ...

    def close(self) -> None:
        """Close the connection."""
        ...


Connect = Callable[[str], MessageSource]  # the player's token → an open subscription


def connector(api_url: str, tournament: str) -> Connect:
    """Connections to the service's socket at the URL derived from its HTTP URL."""
    socket = socket_url(api_url)

    def connect(token: str) -> MessageSource:
        return subscribe(socket, tournament, token=token, open_timeout=5.0)

    return connect


@dataclass
class _Table:
    version: int = -1  # the highest version heard of
    over: bool = False
    turn: int = -1  # the highest version a `your_turn` came with
    told: int = -1  # the highest turn already handed to the bot
    view: dict[str, Any] | None = None  # the player's view that `your_turn` brought
    records: list[dict[str, Any]] = field(default_factory=list)
    players: list[dict[str, Any]] | None = None  # who sits there, with their names


@dataclass
class PushWatch:
    """One player's pushes; call it as `Session.watch`."""

    connect: Connect
    quiet_seconds: float = 10.0  # nothing heard this long: read once over HTTP
    backoff: tuple[float, ...] = (0.5, 1.0, 2.0, 5.0)  # between failed connects
    clock: Callable[[], float] = time.monotonic
    # API Gateway closes every WebSocket after 2 hours: connect anew before that, at a
    # jittered age (so that bots connected together do not all renew at once)
    renew_seconds: float = 6600.0
    renew_jitter: float = 300.0
    connects: int = 0
    fallbacks: int = 0
    _source: MessageSource | None = None
    _fresh: bool = False  # connected since the last read over HTTP
    _failures: int = 0
    _retry_at: float = 0.0
    _renew_at: float = float("inf")
    _tables: dict[str, _Table] = field(default_factory=dict)
    _seated: list[str] = field(default_factory=list)
    _eliminated: bool = False
    _finished: bool = False

    # --- Session.watch ----------------------------------------------------------------

    def __call__(self, session: Session, table: str, after: int) -> Feed | None:
        """The feed once `table` has moved past `after` and the player is to act there,
        or it is over; None for a bye."""
        state = self._tables.setdefault(table, _Table())
        if after < 0 and state.version < 0:  # a table not heard of (a bye, or seated unheard)
            feed = self._read(session, table, after)
            if feed is None or feed["over"] or feed.get("to_act") == session.seat.player_id:
                return feed
        while True:
            if state.over:
                return self._feed(session, state, after, to_act=None)
            if state.turn > state.told and state.turn >= max(after, state.version):
                state.told = state.turn
                return self._feed(session, state, after, to_act=session.seat.player_id)
            if not self._listen(session):
                feed = self._read(session, table, after)
                if feed is None or feed["over"] or feed["records"]:
                    return feed
                session.pause(session.poll_seconds)
                continue
            if self._fresh:
                self._fresh = False
                feed = self._read(session, table, after)
                if feed is None or feed["over"] or feed.get("to_act") == session.seat.player_id:
                    return feed
                continue
            try:
                heard = self._pump(session, table)
            except TimeoutError:
                heard = False
            if not heard:  # quiet, or a version jumped: look once
                feed = self._read(session, table, after)
                if feed is None or feed["over"] or feed["records"]:
                    return feed

    def _feed(self, session: Session, state: _Table, after: int, to_act: str | None) -> Feed | None:
        records = [r for r in state.records if r["version"] > after]
        state.records = records
        version = max(state.version, state.turn)
        feed: Feed = {"version": version, "over": state.over, "records": records}
        if state.players is not None:  # the names, as the feed's read would give them
            feed["players"] = state.players
        if to_act is not None:
            feed["to_act"] = to_act
            if state.view is not None and state.view.get("version") == state.turn:
                feed["view"] = state.view  # the bot acts on it without reading `/me`
        return feed

    def _read(self, session: Session, table: str, after: int) -> Feed | None:
        """One look at the feed; what it says is taken as heard."""
        self.fallbacks += 1
        feed = session.events(table, after)
        state = self._tables.setdefault(table, _Table())
        if feed is None:
            state.over = True
            return None
        state.version = max(state.version, feed["version"])
        state.over = state.over or bool(feed["over"])
        if feed.get("to_act") == session.seat.player_id:
            state.turn = max(state.turn, feed["version"])
            state.told = state.turn
        return feed

    # --- between tables -----------------------------------------------------------------

    def wait_for_table(self, session: Session, played: set[str]) -> dict[str, Any]:
        """A `/me`-like answer once the player sits at a table not in `played`, or is out."""
        while True:
            fresh = [t for t in self._seated if t not in played]
            if fresh:
                return {"table": fresh[0], "eliminated": False, "tournament_status": "running"}
            if self._eliminated or self._finished:
                return session.whereabouts()
            if not self._listen(session):
                return session.wait_for_table(played)  # polls `/me` once or more
            if self._fresh:
                self._fresh = False
                me = self._me(session)
                if me["eliminated"] or me["tournament_status"] == "finished":
                    return me
                if at_new_table(me, played):
                    return me
                continue
            try:
                self._pump(session, None)
            except TimeoutError:
                me = self._me(session)
                if me["eliminated"] or me["tournament_status"] == "finished":
                    return me
                if at_new_table(me, played):
                    return me

    def wait_for_place(self, session: Session) -> dict[str, Any]:
        """`/me` once the tournament is finished (its `place` known)."""
        while not self._finished:
            if not self._listen(session):
                return session.wait_for_place()
            self._fresh = False
            try:
                self._pump(session, None)
            except TimeoutError:
                me = self._me(session)
                if me["tournament_status"] == "finished":
                    return me
        return session.whereabouts()

    def _me(self, session: Session) -> dict[str, Any]:
        self.fallbacks += 1
        return session.whereabouts()

    # --- the connection -------------------------------------------------------------

    def _listen(self, session: Session) -> bool:
        """Whether a connection is open (connecting when the backoff allows, and anew
        when the open one nears API Gateway's 2-hour cut)."""
        if self._source is not None:
            if self.clock() >= self._renew_at:
                self._renew(session)
            return True
        if self.clock() < self._retry_at:
            return False
        try:
            self._source = self.connect(session.seat.token)
        except Exception:  # refused, unreachable, a bad handshake: poll for a while
            delay = self.backoff[min(self._failures, len(self.backoff) - 1)]
            self._failures += 1
            self._retry_at = self.clock() + delay
            return False
        self._connected()
        return True

    def _connected(self) -> None:
        self.connects += 1
        self._failures = 0
        self._fresh = True  # read once: what came while no connection listened
        self._renew_at = self.clock() + self.renew_seconds - random.uniform(0, self.renew_jitter)

    def _renew(self, session: Session) -> None:
        """The new connection first, then the old one closed, then one read (`_fresh`):
        what the old one carried last is read over HTTP, so nothing is missed."""
        try:
            fresh = self.connect(session.seat.token)
        except Exception:  # keep the old one; try again after a backoff
            self._renew_at = self.clock() + self.backoff[-1]
            return
        self._drop()
        self._source = fresh
        self._connected()

    def _drop(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            with contextlib.suppress(Exception):  # closing a dead line may fail
                source.close()

    def close(self) -> None:
        """Close the connection."""
        self._drop()

    def _pump(self, session: Session, table: str | None) -> bool:
        """Take one message; False when it showed a gap at `table` (read once then).
        `TimeoutError` when nothing came for `quiet_seconds`."""
        assert self._source is not None
        try:
            message = self._source.next(self.quiet_seconds)
        except TimeoutError:
            raise
        except Exception:  # the line dropped: connect again, then read once
            self._drop()
            return True
        kind = message.get("type")
        if kind == "table_events":
            # one message a change: `seated` at a new table, `your_turn` to the player to act
            if message.get("seated") and message["table"] not in self._seated:
                self._seated.append(message["table"])
            state = self._tables.setdefault(message["table"], _Table())
            turn = message.get("your_turn")
            if isinstance(turn, dict) and int(message["version"]) > state.turn:
                state.turn = int(message["version"])
                state.view = turn.get("view")
            return self._table_events(message, table)
        elif kind == "eliminated":
            self._eliminated = True
        elif kind == "tournament_finished":
            self._finished = True
        return True

    def _table_events(self, message: Message, waited: str | None) -> bool:
        state = self._tables.setdefault(message["table"], _Table())
        version = int(message["version"])
        if version <= state.version:
            return True  # heard before
        records = [r for r in message.get("records", []) if r["version"] > state.version]
        first = records[0]["version"] if records else version
        gap = first > state.version + 1
        state.records.extend(records)
        state.version = version
        state.over = state.over or bool(message.get("over"))
        if isinstance(message.get("players"), list):
            state.players = message["players"]
        return not (gap and message["table"] == waited)


def push_session(session: Session, api_url: str) -> PushWatch:
    """Put `session` on push: its watch becomes a `PushWatch` on the service's socket."""
    watch = PushWatch(connector(api_url, session.tournament))
    session.watch = watch
    return watch
