"""A tournament may need a join code to register: stored hashed, never shown, asked for
by the play page, carried by the projector's QR code."""

from __future__ import annotations

import json

from apiclient import Stack

from infra.store.tournament_items import META, tournament_pk

GAME = {"game": "maexchen", "table_size": 4, "advance": 1}
CODE = "Kneipe-7"


def opened(stack: Stack, **extra: object) -> str:
    made = stack.api.call("POST", "/tournaments", {**GAME, **extra})
    assert made.status == 201, made.body
    tournament: str = made.body["tournament_id"]
    token = made.body["organizer_token"]
    path = f"/tournaments/{tournament}/registration/open"
    assert stack.api.call("POST", path, token=token).status == 200
    return tournament


def register(stack: Stack, tournament: str, name: str, **extra: object) -> tuple[int, dict]:
    answer = stack.api.call("POST", f"/tournaments/{tournament}/players", {"name": name, **extra})
    return answer.status, answer.body


def test_registering_needs_the_code_compared_ignoring_case(stack: Stack) -> None:
    tournament = opened(stack, join_code=CODE)
    status, body = register(stack, tournament, "Anna")
    assert (status, body["code"], body["field"]) == (401, "join_code_required", "join_code")
    status, body = register(stack, tournament, "Anna", join_code="Kneipe-8")
    assert (status, body["code"], body["field"]) == (401, "wrong_join_code", "join_code")
    assert register(stack, tournament, "Anna", join_code=" kneipe-7 ")[0] == 201
    assert register(stack, tournament, "Bernd", join_code=CODE)[0] == 201
    read = stack.api.call("GET", f"/tournaments/{tournament}").body
    assert read["player_count"] == 2


def test_the_read_says_a_code_is_needed_and_never_shows_it(stack: Stack) -> None:
    tournament = opened(stack, join_code=CODE)
    read = stack.api.call("GET", f"/tournaments/{tournament}")
    assert read.body["join_code_required"] is True
    assert CODE.lower() not in read.raw.lower()
    key = {"pk": {"S": tournament_pk(tournament)}, "sk": {"S": META}}
    item = stack.dynamodb.get_item(TableName="knobelcup", Key=key)["Item"]
    assert CODE.lower() not in json.dumps(item).lower()
    assert item["join_code_hash"]["S"]


def test_without_a_code_registration_is_as_before(stack: Stack) -> None:
    tournament = opened(stack)
    assert stack.api.call("GET", f"/tournaments/{tournament}").body["join_code_required"] is False
    assert register(stack, tournament, "Anna", join_code="anything")[0] == 201
    assert register(stack, tournament, "Bernd")[0] == 201


def test_a_join_code_is_bounded_and_plain(stack: Stack) -> None:
    for bad in ("abc", "x" * 33, "zwei worte", "<script>"):
        answer = stack.api.call("POST", "/tournaments", {**GAME, "join_code": bad})
        assert answer.status == 422, bad
        assert answer.body["field"] == "join_code"


def test_the_public_view_says_whether_the_play_page_asks_for_the_code(stack: Stack) -> None:
    needs = opened(stack, join_code=CODE)
    shown = stack.api.call("GET", f"/tournaments/{needs}")
    assert shown.body["join_code_required"] is True
    assert CODE.lower() not in shown.raw.lower()
    free = opened(stack)
    assert stack.api.call("GET", f"/tournaments/{free}").body["join_code_required"] is False


def test_the_projector_qr_carries_the_right_code_only(stack: Stack) -> None:
    tournament = opened(stack, join_code=CODE)
    path = f"/tournaments/{tournament}/bracket"
    right = stack.api.call(
        "GET", path, query=f"projector=1&code={CODE}", headers={"host": "pub.example"}
    )
    assert f"/play?code={CODE}" in right.raw
    wrong = stack.api.call(
        "GET", path, query="projector=1&code=Falsch-1", headers={"host": "pub.example"}
    )
    assert "?code=" not in wrong.raw and "Falsch-1" not in wrong.raw
    bare = stack.api.call("GET", path, query="projector=1", headers={"host": "pub.example"})
    assert "?code=" not in bare.raw
