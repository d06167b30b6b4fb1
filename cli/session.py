"""One player's requests to one tournament over the HTTP API: register or resume, find
the table, follow its event feed, read the own view, act. Every request is retried on
429, 5xx and lost connections (`cli.api_client.Retrying`). The bot kit and the terminal
player (`cli.play`) share these steps.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cli.api_client import ApiError, Retrying, RetryPolicy, Transport
from cli.seeds import registration_body

Pause = Callable[[float], None]
Feed = dict[str, Any]  # an answer of `GET .../events`: version, to_act, over, records
Watch = Callable[["Session", str, int], Feed | None]


class ActionRejected(RuntimeError):
    """The service refused an action as invalid (422): a bug in `decide`, not bad luck."""


@dataclass(frozen=True)
class Seat:
    """A registered player: who they are and the token that proves it."""

    player_id: str
    token: str
    name: str


def register(
    client: Transport,
    tournament: str,
    name: str,
    *,
    pause: Pause = time.sleep,
    retry: RetryPolicy | None = None,
    join_code: str | None = None,
) -> Seat:
    """Register `name`, with a random seed of the player's own for the dice (docs/dice.md)
    and the tournament's `join_code` where it has one; the token in the answer is shown
    only this once. Retried only
    when the service surely did nothing (429, a refused connection): a registration
    sent twice would register twice."""
    api = Retrying(client, retry or RetryPolicy(), sleep=pause)
    path = f"/tournaments/{tournament}/players"
    answer = api.ok("POST", path, registration_body(name, join_code=join_code), idempotent=False)
    return Seat(answer["player_id"], answer["player_token"], name)


def resume(
    client: Transport,
    tournament: str,
    token: str,
    *,
    pause: Pause = time.sleep,
    retry: RetryPolicy | None = None,
) -> Seat:
    """The seat of an already registered player, by their token."""
    api = Retrying(client, retry or RetryPolicy(), sleep=pause)
    me = api.ok("GET", f"/tournaments/{tournament}/me", token=token)
    return Seat(me["player"], token, me["name"])


def is_done(me: dict[str, Any]) -> bool:
    """Whether a `/me` answer says the player will not play again."""
    return bool(me["eliminated"]) or me["tournament_status"] == "finished"


def at_new_table(me: dict[str, Any], played: set[str]) -> bool:
    """Whether a `/me` answer seats the player at a table not in `played` that plays: a
    queued table (a paced deployment, docs/api.md) waits for its start."""
    return bool(me["table"]) and me["table"] not in played and not me.get("queue")


def table_path(tournament: str, table: str) -> str:
    """The path of a table."""
    return f"/tournaments/{tournament}/tables/{table}"


def poll_feed(session: Session, table: str, after: int) -> Feed | None:
    """Poll the table's event feed every `poll_seconds` until the table has moved past
    version `after` or is over; the feed's answer, or None for a bye."""
    while True:
        feed = session.events(table, after)
        if feed is None or feed["records"] or feed["over"]:
            return feed
        session.pause(session.poll_seconds)


@dataclass
class Session:
    """One player's requests to one tournament: where they play, the table's events,
    their view, actions. Every request is retried by `retry`, waiting with `pause`."""

    client: Transport
    tournament: str
    seat: Seat
    pause: Pause = time.sleep
    poll_seconds: float = 0.5
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    watch: Watch = poll_feed

    def __post_init__(self) -> None:
        self.api = Retrying(self.client, self.retry, sleep=self.pause)

    def whereabouts(self) -> dict[str, Any]:
        """`GET /me`: the player's table, status, and place once finished."""
        me: dict[str, Any] = self.api.ok(
            "GET", f"/tournaments/{self.tournament}/me", token=self.seat.token
        )
        return me

    def tournament_view(self) -> dict[str, Any]:
        """`GET /tournaments/{id}`: status, player count, champion and the first standings."""
        found: dict[str, Any] = self.api.ok("GET", f"/tournaments/{self.tournament}")
        return found

    def wait_for_table(
        self,
        played: set[str],
        on_wait: Callable[[dict[str, Any]], None] = lambda me: None,
        every: float | None = None,
    ) -> dict[str, Any]:
        """Poll `/me` (every `poll_seconds` unless told) until the player sits at a table
        not in `played`, or is done."""
        while True:
            me = self.whereabouts()
            if is_done(me) or at_new_table(me, played):
                return me
            on_wait(me)
            self.pause(self.poll_seconds if every is None else every)

    def wait_for_place(self, every: float | None = None) -> dict[str, Any]:
        """Poll `/me` until the tournament is finished and the player's place is known."""
        while True:
            me = self.whereabouts()
            if me["tournament_status"] == "finished":
                return me
            self.pause(self.poll_seconds if every is None else every)

    def view(self, table: str) -> dict[str, Any] | None:
        """The player's view of `table`, or None when it is a bye (nothing to play)."""
        return self._table_read(table_path(self.tournament, table) + "/me")

    def events(self, table: str, after: int) -> Feed | None:
        """One look at the table's event feed: the steps after version `after` as the
        player may see them; None when it is a bye."""
        path = table_path(self.tournament, table) + "/events"
        return self._table_read(path, query={"after": after})

    def wait_for_change(self, table: str, after: int) -> Feed | None:
        """The feed once the table has moved past version `after` (or is over); None for
        a bye. How it waits is `watch`: polling by default, a push subscription later."""
        return self.watch(self, table, after)

    def submit(
        self, table: str, view: dict[str, Any], action: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Submit `action` on the view's version; the answer, or None if the table moved
        on (409: look again and decide again). A retry resends the same Idempotency-Key,
        so an action whose answer was lost is never applied twice."""
        path = table_path(self.tournament, table) + "/actions"
        body = {"version": view["version"], "action": action}
        headers = {"Idempotency-Key": str(uuid.uuid4())}
        answer = self.api.call("POST", path, body, token=self.seat.token, headers=headers)
        if answer.status == 200:
            result: dict[str, Any] = answer.body
            return result
        if answer.status == 409:
            return None
        if answer.status in {400, 422}:
            error = ApiError("POST", path, answer)
            raise ActionRejected(f"the service rejected {action}: {error.code}: {error.message}")
        raise ApiError("POST", path, answer)

    def _table_read(self, path: str, **request: Any) -> dict[str, Any] | None:
        try:
            answer: dict[str, Any] = self.api.ok("GET", path, token=self.seat.token, **request)
        except ApiError as error:
            if error.status == 409 and error.code == "wrong_status":
                return None
            raise
        return answer
