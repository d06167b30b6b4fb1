"""Waiting on pushes (`cli.push_watch.PushWatch`) with a fake message source and a fake
clock: duplicates dropped by version, one feed read on a version jump, on silence and
after every (re)connect, polling while the socket is down, no sleeping."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cli.push import Message
from cli.push_watch import MessageSource, PushWatch
from cli.session import Seat, Session
from local.lambda_events import HttpAnswer

ME = "p-me"
SEAT = Seat(ME, "tok", "me")


class Dropped(ConnectionError):
    """The line dropped."""


@dataclass
class FakeSource:
    """Messages from a script; an exception in it is raised in its turn."""

    script: list[Message | Exception]
    closed: bool = False

    def next(self, timeout: float | None = None) -> Message:
        if not self.script:
            raise TimeoutError
        item = self.script.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    def close(self) -> None:
        self.closed = True


@dataclass
class FeedTransport:
    """Answers every feed read with `feed` (and `/me` with `me`); counts the reads."""

    feed: dict[str, Any]
    me: dict[str, Any] = field(default_factory=dict)
    reads: list[str] = field(default_factory=list)

    def call(self, method: str, path: str, body: object = None, **request: Any) -> HttpAnswer:
        kind = path.rsplit("/", 1)[-1]
        self.reads.append(kind)
        found = self.feed if kind == "events" else self.me
        return HttpAnswer(200, found, json.dumps(found), {})

    def close(self) -> None:
        pass


@dataclass
class Clock:
    now: float = 0.0
    slept: list[float] = field(default_factory=list)

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def __call__(self) -> float:
        return self.now


def setup(
    sources: list[MessageSource | Exception], feed: dict[str, Any], me: dict[str, Any] | None = None
) -> tuple[PushWatch, Session, FeedTransport, Clock]:
    clock = Clock()
    transport = FeedTransport(feed, me or {})

    def connect(token: str) -> MessageSource:
        assert token == "tok"
        item = sources.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    watch = PushWatch(connect, clock=clock)
    session = Session(transport, "t-1", SEAT, pause=clock.sleep, watch=watch)
    return watch, session, transport, clock


def events(version: int, *records: int, over: bool = False) -> Message:
    return {
        "type": "table_events",
        "table": "R1-1",
        "version": version,
        "over": over,
        "records": [{"version": v} for v in records],
    }


def turn(version: int, *records: int, view: dict[str, Any] | None = None) -> Message:
    """A change that makes the player to act: its `table_events` carries the turn."""
    return {**events(version, *records), "your_turn": {"deadline": None, "view": view}}


def quiet_feed(version: int, to_act: str = "p-x") -> dict[str, Any]:
    return {"version": version, "to_act": to_act, "over": False, "records": []}


def test_a_turn_is_heard_without_reads_and_duplicates_are_dropped() -> None:
    source = FakeSource([events(1, 1), events(1, 1), turn(2, 2), turn(2, 2), events(3, 3)])
    watch, session, transport, clock = setup([source], quiet_feed(0))
    first = session.wait_for_change("R1-1", 0)
    assert first is not None and first["to_act"] == ME and first["version"] == 2
    assert [r["version"] for r in first["records"]] == [1, 2]
    assert transport.reads == ["events"]  # only the one read after connecting
    source.script += [events(4, 4, over=True)]
    last = session.wait_for_change("R1-1", 2)  # the repeated your_turn 2 is not a new turn
    assert last is not None and last["over"] and last["version"] == 4
    assert transport.reads == ["events"] and clock.slept == [] and watch.connects == 1


def test_a_turn_pushed_with_the_view_is_played_without_reading_it() -> None:
    view = {"version": 2, "to_act": ME, "legal_actions": [{"kind": "throw"}]}
    source = FakeSource([turn(2, 1, 2, view=view), turn(2, 1, 2)])
    _, session, transport, _ = setup([source], quiet_feed(0))
    feed = session.wait_for_change("R1-1", 0)
    assert feed is not None and feed["view"] == view
    assert transport.reads == ["events"]  # the read after connecting, no `/me`

    stale = {**view, "version": 1}  # a view of an older version is not handed on
    source.script += [events(3, 3), turn(4, 4, view=stale)]
    feed = session.wait_for_change("R1-1", 2)
    assert feed is not None and feed["to_act"] == ME and "view" not in feed


def test_a_version_jump_returns_what_the_feed_says() -> None:
    source = FakeSource([events(1, 1), events(5, 5)])
    _, session, transport, _ = setup([source], quiet_feed(0))
    reads: list[dict[str, Any]] = [
        quiet_feed(0),
        {**quiet_feed(5, ME), "records": [{"version": 2}]},
    ]

    def events_once(table: str, after: int) -> dict[str, Any]:
        transport.reads.append("events")
        return reads.pop(0)

    session.events = events_once  # type: ignore[method-assign]
    feed = session.wait_for_change("R1-1", 0)
    assert feed is not None and feed["to_act"] == ME and feed["version"] == 5
    assert transport.reads == ["events", "events"]


def test_silence_reads_the_feed_once() -> None:
    source = FakeSource([])  # nothing comes: each next() times out
    _, session, transport, _ = setup([source], quiet_feed(0))
    transport.feed = {**quiet_feed(3, ME), "records": [{"version": 3}]}
    feed = session.wait_for_change("R1-1", 0)
    assert feed is not None and feed["to_act"] == ME
    assert transport.reads == ["events"]


def test_a_drop_reconnects_and_reads_once_so_no_turn_is_lost() -> None:
    first = FakeSource([events(1, 1), Dropped()])
    second = FakeSource([])  # your_turn 2 was pushed while the line was down
    watch, session, transport, _ = setup([first, second], quiet_feed(0))
    reads = [quiet_feed(0), {**quiet_feed(2, ME), "records": [{"version": 2}]}]

    def events_once(table: str, after: int) -> dict[str, Any]:
        transport.reads.append("events")
        return reads.pop(0)

    session.events = events_once  # type: ignore[method-assign]
    feed = session.wait_for_change("R1-1", 0)
    assert feed is not None and feed["to_act"] == ME and feed["version"] == 2
    assert watch.connects == 2 and first.closed
    assert transport.reads == ["events", "events"]


def test_no_socket_polls_with_backoff_between_connects() -> None:
    later = FakeSource([turn(3)])
    watch, session, transport, clock = setup(
        [OSError("refused"), OSError("refused"), later], quiet_feed(0)
    )
    looks = [quiet_feed(0), quiet_feed(0), quiet_feed(0), quiet_feed(0), quiet_feed(0)]

    def events_once(table: str, after: int) -> dict[str, Any]:
        transport.reads.append("events")
        return looks.pop(0)

    session.events = events_once  # type: ignore[method-assign]
    feed = session.wait_for_change("R1-1", 0)
    assert feed is not None and feed["to_act"] == ME and feed["version"] == 3
    assert watch.connects == 1
    assert clock.slept and all(s == session.poll_seconds for s in clock.slept)
    assert clock.now >= 0.5 + 1.0  # the two backoffs were waited out by polling


def test_between_tables_seated_and_eliminated_replace_polling_me() -> None:
    seated = {**events(0, 0), "table": "R2-1", "seated": True}
    source = FakeSource([seated, {"type": "eliminated", "table": "R2-1", "place": 4}])
    me = {"table": "R1-1", "eliminated": False, "tournament_status": "running"}
    watch, session, transport, _ = setup([source], quiet_feed(0), me)
    found = watch.wait_for_table(session, {"R1-1"})
    assert found["table"] == "R2-1"
    assert transport.reads == ["me"]  # once, after connecting
    transport.me = {"table": "R2-1", "eliminated": True, "tournament_status": "running"}
    out = watch.wait_for_table(session, {"R1-1", "R2-1"})
    assert out["eliminated"]
    assert transport.reads == ["me", "me"]
    source.script.append({"type": "tournament_finished"})
    transport.me = {**transport.me, "tournament_status": "finished", "place": 9}
    assert watch.wait_for_place(session)["place"] == 9


@dataclass
class AgingSource(FakeSource):
    """A source whose every message comes a minute after the one before."""

    clock: Clock = field(default_factory=Clock)

    def next(self, timeout: float | None = None) -> Message:
        self.clock.now += 60.0
        return super().next(timeout)


def test_a_connection_near_its_two_hours_is_renewed_new_first_then_read_once() -> None:
    watch, session, transport, clock = setup([], quiet_feed(0))
    old = AgingSource([events(1, 1), events(1, 1)], clock=clock)
    new = FakeSource([])  # version 2 came on the old one as it was closed: read it
    opened: list[tuple[str, bool]] = []

    def connect(token: str) -> MessageSource:
        source = new if opened else old
        opened.append(("new" if opened else "old", old.closed))
        return source

    watch.connect, watch.renew_seconds, watch.renew_jitter = connect, 100.0, 0.0
    reads = [quiet_feed(0), {**quiet_feed(2, ME), "records": [{"version": 2}]}]

    def events_once(table: str, after: int) -> dict[str, Any]:
        transport.reads.append("events")
        return reads.pop(0)

    session.events = events_once  # type: ignore[method-assign]
    feed = session.wait_for_change("R1-1", 0)
    assert feed is not None and feed["to_act"] == ME and feed["version"] == 2
    assert opened == [("old", False), ("new", False)]  # the new one opened before the close
    assert old.closed and not new.closed and watch.connects == 2
    assert transport.reads == ["events", "events"]  # after each connect, once
    assert clock.now == 120.0  # renewed at the first look past 100 s
