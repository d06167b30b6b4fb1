"""The bot kit's requests with a fake transport and a fake clock: which failures are
retried, how long it waits (exponential backoff with jitter, Retry-After), when it gives
up; and how a bot follows a table (the feed first, its view only when it is to act)."""

from __future__ import annotations

import errno
import http.client
import json
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any

import pytest

from cli.api_client import (
    ApiError,
    RetriesExhausted,
    Retrying,
    RetryPolicy,
    ServiceUnreachable,
    retry_after_seconds,
)
from cli.botkit import BotStopped, play_table
from cli.session import ActionRejected, Feed, Seat, Session
from local.lambda_events import HttpAnswer

NOW = 1_800_000_000.0
Reply = HttpAnswer | Exception | Callable[[str, str, dict[str, Any]], HttpAnswer]


def answer(status: int, body: Any = None, **headers: str) -> HttpAnswer:
    """An answer as `ApiClient.call` gives it (header names in lower case)."""
    if body is None and status >= 400:
        body = {"code": "busy" if status in (429, 503) else "oops", "message": "try later"}
    lowered = {name.lower().replace("_", "-"): value for name, value in headers.items()}
    return HttpAnswer(status, body, json.dumps(body), lowered)


@dataclass
class FakeTransport:
    """Answers from a script, in order; records every request and every `close`."""

    replies: list[Reply]
    sent: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    closed: int = 0

    def call(self, method: str, path: str, body: object = None, **request: Any) -> HttpAnswer:
        self.sent.append((method, path, {"body": body, **request}))
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if callable(reply):
            return reply(method, path, request)
        return reply

    def close(self) -> None:
        self.closed += 1


@dataclass
class FakeClock:
    """Time that passes only when something sleeps."""

    now: float = 0.0
    slept: list[float] = field(default_factory=list)

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0
        self.slept.append(seconds)
        self.now += seconds

    def __call__(self) -> float:
        return self.now


def retrying(
    replies: list[Reply], policy: RetryPolicy | None = None
) -> tuple[Retrying, FakeTransport, FakeClock]:
    transport, clock = FakeTransport(replies), FakeClock()
    sender = Retrying(
        transport, policy or RetryPolicy(first_wait=1, max_wait=8, budget=60),
        sleep=clock.sleep, clock=clock, wall_clock=lambda: NOW + clock.now, jitter=lambda: 0.5,
    )  # fmt: skip
    return sender, transport, clock


# --- the policy ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "failure",
    [answer(429), answer(500), answer(502), answer(503), answer(504),
     ConnectionResetError("reset"), ConnectionRefusedError("refused"), TimeoutError("slow"),
     http.client.RemoteDisconnected("gone"), http.client.BadStatusLine("x")],
    ids=lambda f: str(f.status) if isinstance(f, HttpAnswer) else type(f).__name__,
)  # fmt: skip
def test_busy_answers_and_lost_connections_are_retried(failure: Reply) -> None:
    sender, transport, clock = retrying([failure, failure, answer(200, {"ok": True})])
    assert sender.ok("GET", "/x") == {"ok": True}
    assert len(transport.sent) == 3
    assert clock.slept == [0.5, 1.0]  # half (the jitter) of 1 s, then of 2 s
    assert transport.closed == (0 if isinstance(failure, HttpAnswer) else 2)


@pytest.mark.parametrize("status", [200, 201, 400, 401, 403, 404, 409, 422])
def test_other_answers_are_returned_at_once(status: int) -> None:
    sender, transport, clock = retrying([answer(status, {"code": "c", "message": "m"})])
    assert sender.call("GET", "/x").status == status
    assert len(transport.sent) == 1 and clock.slept == []


def test_the_backoff_doubles_with_jitter_up_to_its_cap() -> None:
    policy = RetryPolicy(first_wait=0.25, max_wait=2, budget=1000)
    assert [policy.backoff(n, 1.0) for n in range(1, 7)] == [0.25, 0.5, 1, 2, 2, 2]
    assert policy.backoff(3, 0.0) == 0 and policy.backoff(3, 0.5) == 0.5
    assert policy.backoff(10_000, 0.5) == 1  # no overflow on a very long run


def test_retry_after_in_seconds_is_waited_out_as_asked() -> None:
    sender, _, clock = retrying([answer(429, Retry_After="3"), answer(503, Retry_After="0"),
                                 answer(200, {})])  # fmt: skip
    sender.ok("GET", "/x")
    assert clock.slept == [3.0, 0.0]


def test_retry_after_as_an_http_date_is_read_against_the_wall_clock() -> None:
    when = formatdate(NOW + 7, usegmt=True)
    sender, _, clock = retrying([answer(503, Retry_After=when), answer(200, {})])
    sender.ok("GET", "/x")
    assert clock.slept == [7.0]


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("5", 5.0), (" 2 ", 2.0), ("0.5", 0.5), ("-3", 0.0), (None, None), ("", None),
     ("soon", None), ("inf", None), ("nan", None),
     (formatdate(NOW - 60, usegmt=True), 0.0), ("Thu, 01 Jan 2099 00:00:00", 4_070_908_800 - NOW)],
)  # fmt: skip
def test_retry_after_values(value: str | None, seconds: float | None) -> None:
    assert retry_after_seconds(value, NOW) == seconds


def test_it_gives_up_when_the_budget_is_spent_and_says_why() -> None:
    sender, transport, clock = retrying([answer(503)] * 20, RetryPolicy(1, 8, budget=20))
    with pytest.raises(RetriesExhausted) as error:
        sender.call("GET", "/tournaments/t-1/me")
    assert clock.slept == [0.5, 1, 2, 4, 4, 4, 4]  # 19.5 s; 4 more would pass 20
    assert len(transport.sent) == 8
    message = str(error.value)
    assert message.startswith("GET /tournaments/t-1/me: gave up after 8 attempts in 19.5 s")
    assert "retry budget 20 s" in message and "last: GET /tournaments/t-1/me: 503 busy" in message


def test_a_retry_after_beyond_the_budget_gives_up_at_once() -> None:
    sender, transport, clock = retrying([answer(429, Retry_After="600")])
    with pytest.raises(RetriesExhausted, match="the service asked to wait 600 s more"):
        sender.call("POST", "/x", {"a": 1})
    assert clock.slept == [] and len(transport.sent) == 1


def test_a_registration_is_not_sent_twice_unless_surely_nothing_happened() -> None:
    sender, transport, _ = retrying([answer(503)])
    assert sender.call("POST", "/players", idempotent=False).status == 503
    sender, _, _ = retrying([ConnectionResetError("reset")])
    with pytest.raises(ConnectionResetError):
        sender.call("POST", "/players", idempotent=False)
    sender, transport, _ = retrying(
        [answer(429), ConnectionRefusedError("refused"), answer(201, {"player_id": "p"})]
    )
    assert sender.call("POST", "/players", idempotent=False).status == 201
    assert len(transport.sent) == 3


def test_ok_raises_the_services_error_after_retrying() -> None:
    sender, _, _ = retrying([answer(503), answer(404, {"code": "not_found", "message": "no"})])
    with pytest.raises(ApiError, match="404 not_found: no"):
        sender.ok("GET", "/x")


# --- every call of a session -------------------------------------------------------------

SEAT = Seat("p-me", "p-me.token", "Me")
T = "/tournaments/t-1"


def session(replies: list[Reply], **settings: Any) -> tuple[Session, FakeTransport, list[float]]:
    transport, paused = FakeTransport(replies), []
    policy = RetryPolicy(first_wait=0.01, max_wait=0.01, budget=30)
    made = Session(transport, "t-1", SEAT, paused.append, 0.5, policy, **settings)
    return made, transport, paused


def test_every_read_and_poll_of_a_session_is_retried() -> None:
    me = {"table": "R1-1", "eliminated": False, "tournament_status": "running"}
    feed = {"version": 3, "over": False, "to_act": "p-x", "records": [{"version": 3}]}
    made, transport, paused = session([
        answer(503), ConnectionResetError("reset"), answer(200, me),
        answer(429, Retry_After="2"), answer(200, feed),
        answer(502), answer(200, {"over": False, "view": {"version": 3}}),
        answer(500), answer(200, {"player_count": 8}),
    ])  # fmt: skip
    assert made.wait_for_table(set()) == me
    assert made.events("R1-1", 2) == feed
    assert made.view("R1-1") == {"over": False, "view": {"version": 3}}
    assert made.tournament_view() == {"player_count": 8}
    assert [path for _, path, _ in transport.sent] == [
        f"{T}/me", f"{T}/me", f"{T}/me", f"{T}/tables/R1-1/events", f"{T}/tables/R1-1/events",
        f"{T}/tables/R1-1/me", f"{T}/tables/R1-1/me", T, T,
    ]  # fmt: skip
    assert transport.sent[3][2]["query"] == {"after": 2}
    assert 2.0 in paused  # the Retry-After, waited with the session's own pause


def test_a_submit_is_resent_with_the_same_idempotency_key() -> None:
    made, transport, _ = session(
        [TimeoutError("slow"), answer(503), answer(200, {"over": False, "view": {"version": 4}})]
    )
    assert made.submit("R1-1", {"version": 3}, {"kind": "throw"}) is not None
    keys = {sent[2]["headers"]["Idempotency-Key"] for sent in transport.sent}
    assert len(transport.sent) == 3 and len(keys) == 1
    assert transport.sent[0][2]["body"] == {"version": 3, "action": {"kind": "throw"}}


def test_a_submit_tells_a_moved_table_from_a_refused_action() -> None:
    made, _, _ = session([answer(409, {"code": "stale_version", "message": "moved"})])
    assert made.submit("R1-1", {"version": 3}, {"kind": "throw"}) is None
    made, _, _ = session([answer(422, {"code": "illegal_action", "message": "no"})])
    with pytest.raises(ActionRejected, match="illegal_action: no"):
        made.submit("R1-1", {"version": 3}, {"kind": "throw"})


def test_stopping_during_a_retry_wait_stops_the_bot() -> None:
    def stopped(seconds: float) -> None:
        raise BotStopped

    made = Session(FakeTransport([answer(503), answer(200, {})]), "t-1", SEAT, stopped)
    with pytest.raises(BotStopped):
        made.whereabouts()


# --- following a table ------------------------------------------------------------------


def feed(version: int, to_act: str | None, over: bool = False, new: int = 1) -> HttpAnswer:
    records = [{"version": v, "events": []} for v in range(version - new + 1, version + 1)]
    return answer(200, {"version": version, "to_act": to_act, "over": over, "records": records})


def view(version: int, to_act: str | None, over: bool = False) -> HttpAnswer:
    legal = [{"kind": "throw"}] if to_act == SEAT.player_id else []
    return answer(200, {"over": over, "view": {"version": version, "to_act": to_act,
                                               "legal_actions": legal}})  # fmt: skip


def test_a_bot_waits_on_the_feed_and_reads_its_view_only_to_act() -> None:
    me = SEAT.player_id
    made, transport, paused = session([
        feed(0, "p-x"),  # the seating: someone else starts
        feed(0, "p-x", new=0), feed(0, "p-x", new=0),  # nothing new: wait
        feed(2, me, new=2),  # two steps later: the bot's turn
        view(2, me),
        view(3, me),  # the answer to its throw: still its turn, no read needed
        view(4, "p-x"),  # the answer to its second throw: someone else's turn
        feed(4, "p-x", new=0),
        feed(6, None, over=True, new=2),
    ])  # fmt: skip
    decided: list[int] = []

    def decide(seen: dict[str, Any]) -> dict[str, Any]:
        decided.append(seen["version"])
        return {"kind": "throw"}

    assert play_table(made, "R1-1", decide) == 2
    assert decided == [2, 3]
    kinds = [path.rsplit("/", 1)[-1] for _, path, _ in transport.sent]
    assert kinds == ["events"] * 4 + ["me", "actions", "actions", "events", "events"]
    afters = [sent[2]["query"]["after"] for sent in transport.sent if "query" in sent[2]]
    assert afters == [-1, 0, 0, 0, 4, 4]
    assert paused == [0.5, 0.5, 0.5]  # one poll interval per empty look


def test_how_a_bot_waits_is_one_replaceable_function() -> None:
    me = SEAT.player_id
    pushed: list[Feed] = [
        {"version": 0, "to_act": me, "over": False, "records": [{"version": 0}]},
        {"version": 2, "to_act": None, "over": True, "records": [{"version": 2}]},
    ]
    asked: list[int] = []

    def push(_: Session, table: str, after: int) -> Feed | None:
        asked.append(after)
        return pushed.pop(0)

    made, transport, paused = session([view(0, me), view(1, "p-x")], watch=push)
    assert play_table(made, "R1-1", lambda seen: {"kind": "throw"}) == 1
    assert asked == [-1, 1] and paused == []
    assert [path.rsplit("/", 1)[-1] for _, path, _ in transport.sent] == ["me", "actions"]


def test_a_bye_ends_the_table_at_once() -> None:
    made, _, _ = session([answer(409, {"code": "wrong_status", "message": "a bye"})])
    assert play_table(made, "R1-1", lambda seen: {"kind": "throw"}) == 0


# --- a service that was never there -----------------------------------------------------------


@dataclass
class NeverThere(FakeTransport):
    """A transport that has not had an answer yet: nothing listens at its address."""

    base_url: str = "http://127.0.0.1:9"
    answered: bool = False


@pytest.mark.parametrize(
    "failure",
    [ConnectionRefusedError(111, "Connection refused"),
     socket.gaierror(-2, "Name or service not known"),
     OSError(errno.EHOSTUNREACH, "No route to host")],
    ids=lambda f: type(f).__name__ if type(f) is not OSError else "no-route",
)  # fmt: skip
def test_a_service_that_never_answered_is_given_up_on_within_seconds(failure: OSError) -> None:
    transport, clock = NeverThere([failure] * 50), FakeClock()
    sender = Retrying(transport, RetryPolicy(), sleep=clock.sleep, clock=clock, jitter=lambda: 1)
    for idempotent in (True, False):  # a registration too: nothing was sent
        with pytest.raises(ServiceUnreachable) as error:
            sender.call("GET", "/tournaments/t-1", idempotent=idempotent)
        assert clock.now <= RetryPolicy().unreached_budget + 2.0
        message = str(error.value)
        assert message.startswith("cannot reach http://127.0.0.1:9 (")
        assert "make serve" in message and "KNOBELCUP_URL" in message
        clock.now = 0.0


def test_a_service_that_answered_once_is_retried_through_a_blip() -> None:
    transport, clock = (
        NeverThere([ConnectionRefusedError("refused")] * 12 + [answer(200, {})]),
        FakeClock(),
    )
    transport.answered = True  # it was there: a restart, say
    sender = Retrying(transport, RetryPolicy(), sleep=clock.sleep, clock=clock, jitter=lambda: 1)
    assert sender.call("GET", "/tournaments/t-1").status == 200
    assert clock.now > RetryPolicy().unreached_budget


def test_a_thinking_bot_pauses_before_each_action_and_only_then() -> None:
    me = SEAT.player_id
    made, transport, paused = session([
        feed(0, me, new=1), view(0, me),
        view(1, me),  # the answer to its throw: still its turn
        view(2, "p-x"),
        feed(4, None, over=True, new=2),
    ])  # fmt: skip
    assert play_table(made, "R1-1", lambda seen: {"kind": "throw"}, think=1.5) == 2
    assert paused == [1.5, 1.5]  # one think per action; no look at the feed waits longer
    assert [path.rsplit("/", 1)[-1] for _, path, _ in transport.sent] == [
        "events", "me", "actions", "actions", "events"
    ]  # fmt: skip


def test_a_retry_budget_shorter_than_the_unreached_one_gives_up_at_the_budget() -> None:
    transport, clock = NeverThere([ConnectionRefusedError("refused")] * 50), FakeClock()
    policy = RetryPolicy(first_wait=0.25, max_wait=8, budget=1.0, unreached_budget=3.0)
    sender = Retrying(transport, policy, sleep=clock.sleep, clock=clock, jitter=lambda: 1)
    with pytest.raises(RetriesExhausted) as error:
        sender.call("GET", "/tournaments/t-1")
    assert type(error.value) is RetriesExhausted, "its own budget ran out, not the unreached one"
    assert "gave up after 3 attempts in 0.8 s (retry budget 1 s)" in str(error.value)
    assert clock.slept == [0.25, 0.5]  # 0.75 s; 1 s more would pass the budget's 1 s

    transport, clock = NeverThere([ConnectionRefusedError("refused")] * 50), FakeClock()
    policy = RetryPolicy(first_wait=2, max_wait=8, budget=2.5, unreached_budget=3.0)
    sender = Retrying(transport, policy, sleep=clock.sleep, clock=clock, jitter=lambda: 1)
    with pytest.raises(ServiceUnreachable):  # 2 s and 4 s more pass both budgets
        sender.call("GET", "/tournaments/t-1")
    assert clock.slept == [2]
