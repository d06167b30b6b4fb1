"""The table event feed: `GET .../events?after=V` through the real handler on moto."""

from __future__ import annotations

from typing import Any

import pytest
from apiclient import Stack
from test_flow import create_and_start


def first_table(stack: Stack) -> tuple[str, str, list[dict[str, Any]], list[dict[str, Any]]]:
    """A started Mäxchen tournament: (id, R1-1's path, its players in seat order, the others)."""
    tournament, _, players = create_and_start(stack, table_size=4, advance=1)
    path = f"/tournaments/{tournament}/tables/R1-1"
    seats = stack.api.call("GET", path).body["view"]["seats"]
    by_id = {p["player_id"]: p for p in players}
    seated = [by_id[seat["player"]] for seat in seats]
    return tournament, path, seated, [p for p in players if p not in seated]


def act(stack: Stack, path: str, player: dict[str, Any], version: int, **action: Any) -> None:
    answer = stack.api.call(
        "POST", path + "/actions", {"version": version, "action": action},
        token=player["player_token"],
    )  # fmt: skip
    assert answer.status == 200, answer.body


def feed(stack: Stack, path: str, after: int | None = None, token: str | None = None) -> Any:
    answer = stack.api.call(
        "GET", path + "/events", query="" if after is None else f"after={after}", token=token
    )
    assert answer.status == 200, answer.body
    return answer.body


def test_the_feed_starts_at_the_seating_and_says_who_is_to_act(stack: Stack) -> None:
    tournament, path, seated, _ = first_table(stack)
    body = feed(stack, path)
    assert {k: body[k] for k in ("tournament", "table", "over", "version", "to_act")} == {
        "tournament": tournament,
        "table": "R1-1",
        "over": False,
        "version": 0,
        "to_act": seated[0]["player_id"],
    }
    [seating] = body["records"]
    assert seating["version"] == 0 and seating["player"] is None and seating["action"] is None
    assert [e["type"] for e in seating["events"]] == ["TableSeated", "RoundStarted"]
    assert "dice" not in seating
    assert feed(stack, path, after=0)["records"] == []
    assert feed(stack, path, after=99) == {**body, "records": []}


def test_a_doubt_shows_everyone_what_was_under_the_cup(stack: Stack) -> None:
    _, path, seated, _ = first_table(stack)
    anna, bernd, carla = seated[:3]
    act(stack, path, anna, 0, kind="throw")
    act(stack, path, anna, 1, kind="announce", value=62)
    act(stack, path, bernd, 2, kind="doubt")

    as_anna = feed(stack, path, after=0, token=anna["player_token"])
    as_carla = feed(stack, path, after=0, token=carla["player_token"])
    as_anyone = feed(stack, path, after=0)
    assert [r["version"] for r in as_anna["records"]] == [1, 2, 3]
    assert as_anna["version"] == 3 and as_anna["to_act"] in {anna["player_id"], bernd["player_id"]}
    own_throw = as_anna["records"][0]["events"][0]
    assert own_throw["type"] == "DiceThrown" and own_throw["player"] == anna["player_id"]
    assert own_throw["dice"] is not None  # her own throw, under the cup
    for other in (as_carla, as_anyone):
        assert other["records"][0]["events"][0] == {**own_throw, "dice": None}
        assert other["records"][1:] == as_anna["records"][1:]
    announced, doubt = as_anna["records"][1], as_anna["records"][2]
    assert announced["events"] == [{"type": "Announced", "player": anna["player_id"], "value": 62}]
    assert doubt["player"] == bernd["player_id"] and doubt["action"] == {"kind": "doubt"}
    doubted = doubt["events"][0]
    high, low = sorted(own_throw["dice"], reverse=True)
    assert doubted["type"] == "Doubted" and doubted["revealed"] == high * 10 + low
    assert [e["type"] for e in doubt["events"][1:]] == ["PenaltyGiven", "RoundStarted"]


def test_the_feed_checks_a_token_as_the_player_view_does(stack: Stack) -> None:
    tournament, path, seated, others = first_table(stack)
    forged = seated[0]["player_id"] + ".forged"
    wrong = stack.api.call("GET", path + "/events", token=forged)
    assert (wrong.status, wrong.body["code"]) == (401, "unauthorized")
    basic = stack.api.call("GET", path + "/events", headers={"Authorization": "Basic eHg="})
    assert basic.status == 401
    elsewhere = stack.api.call("GET", path + "/events", token=others[0]["player_token"])
    assert (elsewhere.status, elsewhere.body["code"]) == (403, "forbidden")
    unknown = stack.api.call("GET", f"/tournaments/{tournament}/tables/R9-9/events")
    assert unknown.status == 404


@pytest.mark.parametrize("after", ["-2", "abc", "1.5", ""])
def test_a_bad_after_is_422_naming_it(stack: Stack, after: str) -> None:
    _, path, _, _ = first_table(stack)
    answer = stack.api.call("GET", path + "/events", query=f"after={after}")
    assert (answer.status, answer.body["code"]) == (422, "invalid_field"), answer.body
    assert answer.body["field"] == "query.after" and "after" in answer.body["message"]
