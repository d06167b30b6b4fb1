"""Push: what an item change means to the WebSocket connections listening, posted to
them through API Gateway's management API (docs/api.md, "Push over a WebSocket").

The publisher reads every table change from the stream anyway, so it pushes too (a
third reader would throttle the stream). For each change:
- a table seated or moved on: each seated player gets one `table_events` (the log
  records past the version before the change, as that player may see them), marked
  `seated` at a new table, and carrying `your_turn` (the deadline and the player's view)
  to the player to act; the table's spectators get `table_events` as any spectator may
  see them. One post per connection per change: API Gateway's request quota is shared
  by both APIs and every post (docs/capacity.md), so a second post for the turn would
  cost as much as the first;
- a player out of the tournament: `eliminated`, to that player;
- the tournament finished: `tournament_finished`, to every connection of it.

A push never fails the record, since the domain events must not wait on anyone's socket.
A post AWS throttles is retried with backoff and jitter within the batch's retry budget
(`infra.retry`, docs/operations.md "When AWS says slow down"); any other failed post is
reported and not retried. A message carrying a `your_turn` that is still not delivered
after its retries closes that connection (DeleteConnection): the play page and the bot
kit read the player's view whenever their socket drops and they connect again, so the
turn reaches the player over HTTP long before its deadline. A retried stream batch
pushes again; clients drop what they have already by its version. A post that API
Gateway answers with 410 (the connection is gone) forgets the connection.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from core.audit import LogEntry, records_after
from core.errors import KnobelcupError
from core.match import replay_log
from core.registry import get_game
from infra.outbox.events import DomainEvent, PlayerEliminated, TournamentFinished
from infra.outbox.publisher import StreamChange, events_of
from infra.outbox.timers import last_changes
from infra.retry import Retrier, is_throttled
from infra.store.connections import (
    ConnectionStore,
    is_gone,
    player_sockets,
    table_watchers,
)
from infra.store.table import code_of
from infra.store.table_item import TableRecord, from_item

Message = dict[str, Any]
POST_THREADS = 8  # posts in flight at once: each is a round trip to API Gateway
FANOUT_SECONDS = 20.0  # a third of the publisher's Timeout for a finished tournament's posts


def _table_fields(table: TableRecord, version: int) -> Message:
    """What every message about a table says of it."""
    return {"tournament": table.tournament, "table": table.ref, "version": version}


def _players(table: TableRecord) -> list[dict[str, str]]:
    """Who sits at the table, in seat order, with their display names."""
    return [
        {"id": player, "name": name}
        for player, name in zip(table.seating.seats, table.seat_names(), strict=True)
    ]


class TablePush:
    """What one change of a table item sends, to whom: each seated player's socket set
    and the table's spectators' set. The log is replayed only if someone listens."""

    def __init__(self, after: int | None, new: TableRecord) -> None:
        self.table = new
        self.after = -1 if after is None else after  # the records past it are new
        self.seated = after is None
        self._log: tuple[Any, str | None, list[LogEntry]] | None = None
        self.sets: dict[str, str | None] = {
            player_sockets(new.tournament, player): player for player in new.seating.seats
        }
        self.sets[table_watchers(new.tournament, new.ref)] = None  # spectators

    def messages(self, viewer: str | None) -> list[Message]:
        """What `viewer` (a seated player, or None for a spectator) is sent: one message,
        so one post (see the module)."""
        table = self.table
        state, to_act, entries = self._replayed()
        message: Message = {
            "type": "table_events",
            **_table_fields(table, table.version),
            "over": table.over,
            "players": _players(table),
            "records": records_after(entries, self.after, viewer, revealed=table.over),
        }
        if self.seated and viewer is not None:
            message["seated"] = True  # a table of yours new to you: no read between rounds
        if viewer is not None and viewer == to_act:
            # the view `GET .../me` would answer, so that the player acts without a read;
            # the version to act on is the message's
            view = get_game(table.seating.game).view(state, viewer)
            deadline = table.deadline or None  # when the turn times out, for a countdown
            message["your_turn"] = {"deadline": deadline, "view": view}
        return [message]

    def _replayed(self) -> tuple[Any, str | None, list[LogEntry]]:
        """The table's state, who is to act (None once over) and the whole log."""
        if self._log is None:
            seating = self.table.seating
            state, entries = replay_log(seating, self.table.moves)
            to_act = None if self.table.over else get_game(seating.game).to_act(state)
            self._log = (state, to_act, entries)
        return self._log


def carries_turn(message: Message) -> bool:
    """Whether a message tells its player that they are to act."""
    return "your_turn" in message


def table_push(change: StreamChange, after: int | None = -1) -> TablePush | None:
    """The push a change of a table item makes, with the records past version `after`
    (the change's own old version when -1; None: the table is new): None for a bye, and
    for a write that did not move the table on (the sweeper's, or a repeated one)."""
    new = change.new
    if new is None or new.get("kind", {}).get("S") != "table" or new["status"]["S"] == "bye":
        return None
    if after == -1:
        after = None if change.old is None else int(change.old["version"]["N"])
    table = from_item(new)
    if after is not None and table.version <= after:
        return None
    return TablePush(after, table)


# a queued table's place in the queue and expected start, from its sequence and the
# time now (`CapacityStore.place_of`)
PlaceOf = Callable[[int, float], tuple[int, int]]


def queued_table(change: StreamChange) -> tuple[TableRecord, int] | None:
    """The table and queue sequence of a change that queued a table (a paced deployment:
    its players wait for a slot, and hear so now, not at their next read), else None."""
    new = change.new
    if change.old is not None or new is None or new.get("kind", {}).get("S") != "queued_table":
        return None
    if new["status"]["S"] != "queued":
        return None
    return from_item(new), int(new["queue_seq"]["N"])


def queued_message(table: TableRecord, place: int, expected_start: int) -> Message:
    """`queued`: the player's table waits for a slot, its place and expected start."""
    return {
        "type": "queued",
        **_table_fields(table, 0),
        "players": _players(table),
        "queue": {"place": place, "expected_start": expected_start},
    }


def eliminated_message(event: PlayerEliminated) -> Message:
    """What a player hears when their tournament is over (everyone but the champion)."""
    return {
        "type": "eliminated",
        "tournament": event.tournament,
        "player": event.player,
        "round": event.round,
        "table": event.table,
        "place": event.table_place,
    }


def finished_message(event: TournamentFinished) -> Message:
    """What every connection of a finished tournament hears: where the standings are."""
    return {
        "type": "tournament_finished",
        "tournament": event.tournament,
        "champion": event.champion,
        "champion_name": event.champion_name,
        "players": event.players,
        "standings": event.standings_path,
    }


@dataclass
class PushReport:
    """What one change's push did."""

    sent: int = 0  # messages posted
    gone: int = 0  # connections found closed, and forgotten
    failures: list[str] = field(default_factory=list)  # what failed, for the log
    skipped: int = 0  # connections of a finished tournament past the time budget
    throttled: int = 0  # posts API Gateway throttled (each retried, within the budget)
    # `your_turn`s still throttled after their retries ("connection: table vN"); each
    # such connection was closed, so that its client reads the view again
    undelivered: list[str] = field(default_factory=list)


@dataclass
class _Post:
    connection: str
    messages: list[Message]
    listed_in: str = ""  # the socket set it was found in
    tournament: str = ""  # the tournament it was found listed in


@dataclass
class _Posted:
    """What posting one connection's messages did."""

    sent: int = 0
    gone: int = 0
    failure: str = ""
    throttled: int = 0
    undelivered: str = ""  # the `your_turn` that was not delivered, if any


class Pusher:
    """Posts what each change means to the connections listening (`client`: API
    Gateway's management API at the WebSocket stage's endpoint). `retrier` retries what
    AWS throttles (the default retries nothing); `prepare` renews its budget, once per
    batch."""

    def __init__(
        self,
        store: ConnectionStore,
        client: Any,
        *,
        threads: int = POST_THREADS,
        fanout_seconds: float = FANOUT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        retrier: Retrier | None = None,
        place_of: PlaceOf | None = None,
    ) -> None:
        self._store = store
        self._place_of = place_of
        self._client = client
        self.retrier = retrier if retrier is not None else Retrier()
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="push")
        self._fanout_seconds = fanout_seconds
        self._clock = clock
        self._known: dict[str, frozenset[str]] = {}
        self._tables: dict[int, TablePush | None] = {}

    def prepare(self, changes: Sequence[StreamChange]) -> None:
        """Take a batch of changes: each table is pushed once, at its last change, with
        every record since its first (fast players move a table several versions within
        one batch); and the socket sets the batch needs are read in one go (what cannot
        be read now is read when pushed)."""
        self.retrier.renew()
        self._tables = {
            index: table_push(changes[index], after)
            for index, after in last_changes(changes).items()
        }
        wanted: set[str] = set()
        for index, change in enumerate(changes):
            wanted |= set(_sets_of(change, self._tables.get(index)))
        try:
            self._known = self._store.socket_sets(wanted)
        except Exception:  # read again, record by record, when pushed
            self._known = {}

    def push(
        self, change: StreamChange, events: Sequence[DomainEvent], index: int | None = None
    ) -> PushReport:
        """Post what `change` (with its domain `events`) means to whoever listens; the
        change numbered `index` in the batch `prepare` took, if it took one."""
        report = PushReport()
        try:
            table = self._tables.get(index) if index is not None else table_push(change)
            posts = self._posts(table, events) + self._queued_posts(change)
            self._post_all(posts, report)
            for event in events:
                if isinstance(event, TournamentFinished):
                    self._fan_out(event, report)
        except Exception as error:  # a push never fails the record: see the module
            report.failures.append(f"{type(error).__name__}: {error}")
        return report

    def _posts(self, table: TablePush | None, events: Sequence[DomainEvent]) -> list[_Post]:
        posts: list[_Post] = []
        if table is not None:
            sockets = self._sockets(table.sets)
            for pk, viewer in table.sets.items():
                if sockets[pk]:
                    messages = table.messages(viewer)
                    posts += [_Post(c, messages, listed_in=pk) for c in sorted(sockets[pk])]
        for event in events:
            if isinstance(event, PlayerEliminated):
                pk = player_sockets(event.tournament, event.player)
                message = eliminated_message(event)
                connections = sorted(self._sockets([pk])[pk])
                posts += [_Post(c, [message], listed_in=pk) for c in connections]
        # the player to act first: their `your_turn` is what the table waits for
        posts.sort(key=lambda post: not carries_turn(post.messages[-1]))
        return posts

    def _queued_posts(self, change: StreamChange) -> list[_Post]:
        """`queued` to each player of a table just queued."""
        queued = queued_table(change) if self._place_of is not None else None
        if queued is None or self._place_of is None:
            return []
        table, seq = queued
        message = queued_message(table, *self._place_of(seq, time.time()))
        pks = [player_sockets(table.tournament, player) for player in table.seating.seats]
        sockets = self._sockets(pks)
        return [_Post(c, [message], listed_in=pk) for pk in pks for c in sorted(sockets[pk])]

    def _sockets(self, pks: Iterable[str]) -> dict[str, frozenset[str]]:
        pks = list(pks)
        missing = [pk for pk in pks if pk not in self._known]
        if missing:
            self._known.update(self._store.socket_sets(missing))
        return {pk: self._known[pk] for pk in pks}

    def _post_all(self, posts: list[_Post], report: PushReport) -> None:
        if posts and carries_turn(posts[0].messages[-1]):
            # what the table waits for goes out first, on its own
            self._count(self._post(posts[0]), report)
            posts = posts[1:]
        for outcome in self._pool.map(self._post, posts):
            self._count(outcome, report)

    @staticmethod
    def _count(outcome: _Posted, report: PushReport) -> None:
        report.sent += outcome.sent
        report.gone += outcome.gone
        report.throttled += outcome.throttled
        if outcome.failure:
            report.failures.append(outcome.failure)
        if outcome.undelivered:
            report.undelivered.append(outcome.undelivered)

    def _post(self, post: _Post) -> _Posted:
        """Post one connection's messages in order, up to the first that fails."""
        posted = _Posted()

        def throttled(_error: BaseException) -> None:
            posted.throttled += 1

        for message in post.messages:
            data = json.dumps(message, separators=(",", ":")).encode()
            try:
                self.retrier.call(
                    "Push",
                    self._client.post_to_connection,
                    on_retry=throttled,
                    ConnectionId=post.connection,
                    Data=data,
                )
            except ClientError as error:
                if is_gone(error):
                    self._forget(post)
                    posted.gone = 1
                    return posted
                posted.failure = f"{post.connection}: {code_of(error)}"
                if is_throttled(error):
                    posted.throttled += 1
                    self._owe_turn(post, posted)
                return posted
            except BotoCoreError as error:  # the endpoint unreachable, a timeout
                posted.failure = f"{post.connection}: {type(error).__name__}"
                return posted
            posted.sent += 1
        return posted

    def _owe_turn(self, post: _Post, posted: _Posted) -> None:
        """The post stopped short of a `your_turn`: close the connection, so that its
        client connects again and reads its view (see the module)."""
        turn = post.messages[-1]
        if not carries_turn(turn) or posted.sent == len(post.messages):
            return
        posted.undelivered = f"{post.connection}: {turn['table']} v{turn['version']}"
        with suppress(ClientError, BotoCoreError):  # then the bot kit's quiet read is left
            self.retrier.call("Push", self._client.delete_connection, ConnectionId=post.connection)

    def _forget(self, post: _Post) -> None:
        if post.listed_in in self._known:
            self._known[post.listed_in] -= {post.connection}
        # if this fails, its items expire; meanwhile the next push finds it gone again
        with suppress(ClientError, BotoCoreError, KnobelcupError):
            self._store.remove(
                post.connection, listed_in=post.listed_in, tournament=post.tournament
            )

    def _fan_out(self, event: TournamentFinished, report: PushReport) -> None:
        """`tournament_finished` to every connection of the tournament, for as long as the
        budget lasts (the rest are counted as skipped)."""
        message = finished_message(event)
        ends = self._clock() + self._fanout_seconds
        for page in self._store.tournament_connections(event.tournament):
            if self._clock() >= ends:
                report.skipped += len(page)
                continue
            self._post_all([_Post(c, [message], tournament=event.tournament) for c in page], report)


def _sets_of(change: StreamChange, table: TablePush | None) -> list[str]:
    """The socket sets a change's push reads (`table`: its table's push, if any)."""
    if table is not None:
        return list(table.sets)
    queued = queued_table(change)
    if queued is not None:
        return [player_sockets(queued[0].tournament, p) for p in queued[0].seating.seats]
    if change.new is not None and change.new.get("kind", {}).get("S") == "player":
        return [
            player_sockets(event.tournament, event.player)
            for event in events_of(change)
            if isinstance(event, PlayerEliminated)
        ]
    return []
