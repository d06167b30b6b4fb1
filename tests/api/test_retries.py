"""Retries answer as the first attempt did and are never applied twice."""

from __future__ import annotations

import pytest
from apiclient import Stack
from test_errors import first_turn

from functions.wiring import services
from infra.store.table_item import TableRecord


def test_the_same_idempotency_key_returns_the_same_answer_and_applies_once(stack: Stack) -> None:
    tournament, _, acting, _, _ = first_turn(stack)
    path = f"/tournaments/{tournament}/tables/R1-1"
    body = {"version": 0, "action": {"kind": "throw"}}
    key = {"Idempotency-Key": "throw-once"}
    token = acting["player_token"]
    first = stack.api.call("POST", path + "/actions", body, token=token, headers=key)
    again = stack.api.call("POST", path + "/actions", body, token=token, headers=key)
    assert first.status == again.status == 200
    assert again.body == first.body
    assert stack.api.call("GET", path).body["view"]["version"] == 1


def test_a_retry_after_others_moved_on_still_gets_its_own_answer(stack: Stack) -> None:
    tournament, _, acting, _, _ = first_turn(stack)
    path = f"/tournaments/{tournament}/tables/R1-1/actions"
    token = acting["player_token"]
    throw = {"version": 0, "action": {"kind": "throw"}}
    first = stack.api.call("POST", path, throw, token=token, headers={"Idempotency-Key": "k1"})
    value = first.body["view"]["your_throw"]
    announce = {"version": 1, "action": {"kind": "announce", "value": value}}
    assert stack.api.call("POST", path, announce, token=token).status == 200
    again = stack.api.call("POST", path, throw, token=token, headers={"Idempotency-Key": "k1"})
    assert again.body == first.body
    log = stack.api.call("GET", f"/tournaments/{tournament}/tables/R1-1/log").body
    assert len(log["records"]) == 3  # seating, one throw, one announcement


def test_the_same_key_with_another_body_is_rejected(stack: Stack) -> None:
    tournament, _, acting, _, _ = first_turn(stack)
    path = f"/tournaments/{tournament}/tables/R1-1"
    token = acting["player_token"]
    key = {"Idempotency-Key": "reused"}
    throw = {"version": 0, "action": {"kind": "throw"}}
    assert stack.api.call("POST", path + "/actions", throw, token=token, headers=key).status == 200
    other = {"version": 1, "action": {"kind": "announce", "value": 21}}
    answer = stack.api.call("POST", path + "/actions", other, token=token, headers=key)
    assert (answer.status, answer.body["code"]) == (422, "idempotency_key_reused")
    assert "Idempotency-Key" in answer.body["message"]
    assert stack.api.call("GET", path).body["view"]["version"] == 1


def test_without_a_key_the_same_version_and_action_is_a_retry(stack: Stack) -> None:
    tournament, _, acting, _, _ = first_turn(stack)
    path = f"/tournaments/{tournament}/tables/R1-1"
    token = acting["player_token"]
    throw = {"version": 0, "action": {"kind": "throw"}}
    first = stack.api.call("POST", path + "/actions", throw, token=token)
    again = stack.api.call("POST", path + "/actions", throw, token=token)
    assert again.status == 200 and again.body == first.body
    assert stack.api.call("GET", path).body["view"]["version"] == 1


def test_a_different_key_on_a_taken_version_is_a_conflict(stack: Stack) -> None:
    tournament, _, acting, _, _ = first_turn(stack)
    path = f"/tournaments/{tournament}/tables/R1-1/actions"
    token = acting["player_token"]
    throw = {"version": 0, "action": {"kind": "throw"}}
    assert (
        stack.api.call("POST", path, throw, token=token, headers={"Idempotency-Key": "a"}).status
        == 200
    )
    other = stack.api.call("POST", path, throw, token=token, headers={"Idempotency-Key": "b"})
    assert (other.status, other.body["code"], other.body["current_version"]) == (
        409,
        "stale_version",
        1,
    )


def test_a_lost_race_against_our_own_duplicate_answers_like_the_winner(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The duplicate read the table before the original saved: its write fails, and the
    service recognises the winner as the same request instead of answering 409."""
    tournament, _, acting, _, _ = first_turn(stack)
    tables = services().turns._tables
    before_the_original = tables.get_table(tournament, "R1-1")
    path = f"/tournaments/{tournament}/tables/R1-1/actions"
    throw = {"version": 0, "action": {"kind": "throw"}}
    headers = {"Idempotency-Key": "dup"}
    first = stack.api.call("POST", path, throw, token=acting["player_token"], headers=headers)
    fresh_read = tables.get_table
    stale_reads = iter([before_the_original])

    def stale_then_fresh(tournament_id: str, ref: str) -> TableRecord | None:
        return next(stale_reads, None) or fresh_read(tournament_id, ref)

    monkeypatch.setattr(tables, "get_table", stale_then_fresh)
    second = stack.api.call("POST", path, throw, token=acting["player_token"], headers=headers)
    assert second.status == 200 and second.body == first.body
    assert fresh_read(tournament, "R1-1").version == 1
