"""Every error of the API: status, machine-readable code, the field or rule named, no harm done."""

from __future__ import annotations

from typing import Any

import pytest
from apiclient import Stack
from botocore.exceptions import ClientError
from test_flow import create_and_start

from functions.wiring import services


def first_turn(stack: Stack) -> tuple[str, str, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A started 12-player tournament: (id, organizer token, player to act, another
    player at the same table, that table's view for the player to act)."""
    tournament, organizer, players = create_and_start(stack, table_size=4, advance=1)
    by_id = {p["player_id"]: p for p in players}
    table = stack.api.call("GET", f"/tournaments/{tournament}/tables/R1-1").body
    view = table["view"]
    acting = by_id[view["to_act"]]
    other = by_id[next(s["player"] for s in view["seats"] if s["player"] != view["to_act"])]
    return tournament, organizer, acting, other, view


def test_malformed_json_is_400_naming_the_body(stack: Stack) -> None:
    answer = stack.api.call("POST", "/tournaments", "{not json")
    assert (answer.status, answer.body["code"], answer.body["field"]) == (
        400,
        "malformed_json",
        "body",
    )


def test_a_body_that_is_not_an_object_is_400(stack: Stack) -> None:
    answer = stack.api.call("POST", "/tournaments", [1, 2])
    assert answer.status == 400 and answer.body["field"] == "body"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game": "maexchen", "table_size": 13}, "table_size"),
        ({"game": "maexchen", "table_size": "four"}, "table_size"),
        # a number is a JSON number of its type: no strings, floats or booleans for it
        ({"game": "maexchen", "table_size": "6"}, "table_size"),
        ({"game": "maexchen", "table_size": 6.0}, "table_size"),
        ({"game": "maexchen", "advance": True}, "advance"),
        ({"game": 7}, "game"),
        ({"game": "maexchen", "name": "Pub\x00cup"}, "name"),
        ({"game": "maexchen", "advance": 0}, "advance"),
        ({"game": "maexchen", "player_limit": 1}, "player_limit"),
        ({"game": "maexchen", "turn_timeout_seconds": 0}, "turn_timeout_seconds"),
        ({"game": "maexchen", "colour": "red"}, "colour"),
        ({"table_size": 4}, "game"),
    ],
)
def test_invalid_fields_are_422_naming_the_field(
    stack: Stack, body: dict[str, Any], field: str
) -> None:
    answer = stack.api.call("POST", "/tournaments", body)
    assert answer.status == 422, answer.body
    assert answer.body["code"] == "invalid_field"
    assert answer.body["field"] == field and field in answer.body["message"]


@pytest.mark.parametrize(
    ("body", "code", "named"),
    [
        ({"game": "schach"}, "unknown_game", "schach"),
        ({"game": "maexchen", "options": {"penalty_limt": 2}}, "unknown_option", "penalty_limt"),
        ({"game": "maexchen", "options": {"penalty_limit": 0}}, "invalid_option", "penalty_limit"),
        ({"game": "maexchen", "table_size": 4, "advance": 4}, "invalid_bracket", "advance"),
    ],
)
def test_rule_violations_at_creation_are_422_naming_the_rule(
    stack: Stack, body: dict[str, Any], code: str, named: str
) -> None:
    answer = stack.api.call("POST", "/tournaments", body)
    assert (answer.status, answer.body["code"]) == (422, code), answer.body
    assert named in answer.body["message"]
    if code == "invalid_bracket":
        assert answer.body["rule"] == "rules §5.1 advance"


def test_organizer_routes_need_the_organizer_token(stack: Stack) -> None:
    tournament, _, acting, _, _ = first_turn(stack)
    close = f"/tournaments/{tournament}/registration/close"
    missing = stack.api.call("POST", close)
    assert (missing.status, missing.body["code"]) == (401, "unauthorized")
    assert "Authorization" in missing.body["message"]
    wrong = stack.api.call("POST", close, token="organizer.guessed")
    assert (wrong.status, wrong.body["code"]) == (401, "unauthorized")
    as_player = stack.api.call("POST", close, token=acting["player_token"])
    assert (as_player.status, as_player.body["code"]) == (403, "forbidden")


def test_player_routes_need_the_players_token(stack: Stack) -> None:
    tournament, _, acting, _, _ = first_turn(stack)
    me = f"/tournaments/{tournament}/me"
    assert stack.api.call("GET", me).status == 401
    forged = acting["player_id"] + ".forged"
    assert stack.api.call("GET", me, token=forged).status == 401
    view = f"/tournaments/{tournament}/tables/R1-1/me"
    assert stack.api.call("GET", view, token=forged).status == 401


def test_acting_at_someone_elses_table_is_403(stack: Stack) -> None:
    tournament, _, acting, _, _ = first_turn(stack)
    path = f"/tournaments/{tournament}/tables/R1-2/actions"
    body = {"version": 0, "action": {"kind": "throw"}}
    answer = stack.api.call("POST", path, body, token=acting["player_token"])
    assert (answer.status, answer.body["code"]) == (403, "forbidden")
    assert acting["player_id"] in answer.body["message"]


@pytest.mark.parametrize(
    "path",
    [
        "/tournaments/t-unknown",
        "/tournaments/t-unknown/rounds/1",
        "/tournaments/{t}/tables/R1-9",
        "/tournaments/{t}/tables/R9-1/log",
        "/tournaments/{t}/tables/nonsense",
        "/tournaments/{t}/rounds/7",
        "/no/such/route",
    ],
)
def test_unknown_ids_are_404(stack: Stack, path: str) -> None:
    tournament, *_ = first_turn(stack)
    answer = stack.api.call("GET", path.format(t=tournament))
    assert answer.status == 404, answer.body
    assert answer.body["code"] in {"not_found", "no_route"}


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("TRACE", "/tournaments", "GET, POST"),
        ("DELETE", "/tournaments", "GET, POST"),
        ("DELETE", "/tournaments/t-x/tables/R1-1", "GET"),
        ("PUT", "/tournaments/t-x/tables/R1-1/actions", "POST"),
    ],
)
def test_a_known_path_with_another_method_is_405_naming_the_allowed_ones(
    stack: Stack, method: str, path: str, allowed: str
) -> None:
    answer = stack.api.call(method, path)
    assert (answer.status, answer.body["code"]) == (405, "method_not_allowed")
    assert answer.headers["allow"] == allowed and allowed in answer.body["message"]


def test_a_stale_version_is_409_with_the_current_version(stack: Stack) -> None:
    tournament, _, acting, _, _ = first_turn(stack)
    path = f"/tournaments/{tournament}/tables/R1-1/actions"
    token = acting["player_token"]
    thrown = stack.api.call("POST", path, {"version": 0, "action": {"kind": "throw"}}, token=token)
    assert thrown.status == 200
    stale = stack.api.call("POST", path, {"version": 0, "action": {"kind": "doubt"}}, token=token)
    assert (stale.status, stale.body["code"], stale.body["current_version"]) == (
        409,
        "stale_version",
        1,
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"version": "0", "action": {"kind": "throw"}}, "version"),
        ({"version": 0.0, "action": {"kind": "throw"}}, "version"),
        ({"version": 0, "action": {"kind": "throw", "value": "62"}}, "action.value"),
        ({"version": 0, "action": {"kind": "throw", "valeu": 62}}, "action.valeu"),
    ],
)
def test_an_action_with_a_loose_number_or_a_typo_is_422_and_changes_nothing(
    stack: Stack, body: dict[str, Any], field: str
) -> None:
    tournament, _, acting, _, view = first_turn(stack)
    path = f"/tournaments/{tournament}/tables/R1-1"
    answer = stack.api.call("POST", path + "/actions", body, token=acting["player_token"])
    assert (answer.status, answer.body["code"], answer.body["field"]) == (
        422,
        "invalid_field",
        field,
    )
    after = stack.api.call("GET", path + "/me", token=acting["player_token"]).body["view"]
    assert after["version"] == view["version"]


def test_acting_out_of_turn_is_409_and_changes_nothing(stack: Stack) -> None:
    tournament, _, _, other, _ = first_turn(stack)
    path = f"/tournaments/{tournament}/tables/R1-1"
    body = {"version": 0, "action": {"kind": "throw"}}
    answer = stack.api.call("POST", path + "/actions", body, token=other["player_token"])
    assert (answer.status, answer.body["code"], answer.body["current_version"]) == (
        409,
        "not_your_turn",
        0,
    )
    assert answer.body["rule"] == "rules §6.2 turn order"  # a section of docs/rules.md
    assert stack.api.call("GET", path).body["view"]["version"] == 0


def test_an_action_the_game_forbids_names_its_section_of_the_rules(stack: Stack) -> None:
    tournament, _, acting, _, _ = first_turn(stack)
    path = f"/tournaments/{tournament}/tables/R1-1"
    body = {"version": 0, "action": {"kind": "doubt"}}  # the round's starter must throw
    answer = stack.api.call("POST", path + "/actions", body, token=acting["player_token"])
    assert (answer.status, answer.body["code"]) == (422, "illegal_action")
    assert answer.body["rule"] == "rules §1.4 doubt"
    assert answer.body["message"].endswith("[rules §1.4 doubt]")
    assert stack.api.call("GET", path).body["view"]["version"] == 0


@pytest.mark.parametrize(
    ("action", "status", "named"),
    [
        ({"kind": "fold"}, 422, "action.kind"),
        ({"kind": "announce"}, 422, "value"),
        ({"kind": "announce", "value": 31}, 422, "announce"),  # must throw first
        ({"kind": "throw", "extra": 1}, 422, "action.extra"),
        ({"kind": "timeout"}, 422, "action.kind"),  # only the scheduler times a player out
    ],
)
def test_illegal_actions_are_422_and_change_nothing(
    stack: Stack, action: dict[str, Any], status: int, named: str
) -> None:
    tournament, _, acting, _, _ = first_turn(stack)
    path = f"/tournaments/{tournament}/tables/R1-1"
    body = {"version": 0, "action": action}
    answer = stack.api.call("POST", path + "/actions", body, token=acting["player_token"])
    assert answer.status == status, answer.body
    assert named in answer.body["message"]
    assert stack.api.call("GET", path).body["view"]["version"] == 0


def test_registration_only_while_open_and_below_the_limit(stack: Stack) -> None:
    api = stack.api
    created = api.call("POST", "/tournaments", {"game": "mariechen", "player_limit": 2}).body
    tournament, organizer = created["tournament_id"], created["organizer_token"]
    register = f"/tournaments/{tournament}/players"
    draft = api.call("POST", register, {"name": "early"})
    assert (draft.status, draft.body["code"]) == (409, "registration_closed")
    api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    assert api.call("POST", register, {"name": "a"}).status == 201
    assert api.call("POST", register, {"name": "b"}).status == 201
    full = api.call("POST", register, {"name": "c"})
    assert (full.status, full.body["code"]) == (409, "player_limit_reached")
    assert api.call("GET", f"/tournaments/{tournament}").body["player_count"] == 2
    empty = api.call("POST", register, {"name": ""})
    assert (empty.status, empty.body["field"]) == (422, "name")


def test_registering_for_an_unknown_tournament_is_404(stack: Stack) -> None:
    answer = stack.api.call("POST", "/tournaments/t-nothere/players", {"name": "lost"})
    assert (answer.status, answer.body["code"]) == (404, "not_found")
    assert "t-nothere" in answer.body["message"]


def test_starting_twice_is_409(stack: Stack) -> None:
    tournament, organizer, *_ = first_turn(stack)
    again = stack.api.call("POST", f"/tournaments/{tournament}/start", token=organizer)
    assert (again.status, again.body["code"]) == (409, "wrong_status")


def test_dynamodb_throttling_is_429_with_retry_after(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    tournament, *_ = first_turn(stack)

    def throttled(**_: Any) -> Any:
        error = {"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow"}}
        raise ClientError(error, "GetItem")  # type: ignore[arg-type]

    tables = services().turns._tables
    monkeypatch.setattr(tables._client, "get_item", throttled)
    answer = stack.api.call("GET", f"/tournaments/{tournament}/tables/R1-1")
    assert (answer.status, answer.body["code"]) == (429, "throttled")
    assert answer.headers["retry-after"] == "1"


def test_a_body_that_is_not_utf8_is_400_naming_the_body(stack: Stack) -> None:
    answer = stack.api.call(
        "POST", "/tournaments", b"\xff\xfe{", headers={"content-type": "application/json"}
    )
    assert (answer.status, answer.body["code"], answer.body["field"]) == (400, "bad_body", "body")
    assert "UTF-8" in answer.body["message"]


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded"])
def test_a_body_that_is_not_json_is_415_and_registers_nobody(
    stack: Stack, content_type: str
) -> None:
    created = stack.api.call("POST", "/tournaments", {"game": "maexchen"}).body
    tournament, organizer = created["tournament_id"], created["organizer_token"]
    stack.api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    answer = stack.api.call(
        "POST",
        f"/tournaments/{tournament}/players",
        b'{"name": "Anna"}',
        headers={"content-type": content_type},
    )
    assert (answer.status, answer.body["code"], answer.body["field"]) == (
        415,
        "unsupported_media_type",
        "body",
    )
    assert stack.api.call("GET", f"/tournaments/{tournament}").body["player_count"] == 0


@pytest.mark.parametrize("body", ["[null, null]", '[{"seed": "pub"}]', '"start"', "7"])
def test_a_body_that_is_no_object_is_400_and_starts_nothing(stack: Stack, body: str) -> None:
    """An array was taken for its first element (Powertools' rule for repeated query
    parameters), so `[null, null]` started a tournament as if no body had been sent."""
    created = stack.api.call("POST", "/tournaments", {"game": "maexchen"}).body
    tournament, organizer = created["tournament_id"], created["organizer_token"]
    stack.api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    for number in range(2):
        stack.api.call("POST", f"/tournaments/{tournament}/players", {"name": f"p{number}"})
    answer = stack.api.call(
        "POST",
        f"/tournaments/{tournament}/start",
        body,
        token=organizer,
        headers={"content-type": "application/json"},
    )
    assert (answer.status, answer.body["code"], answer.body["field"]) == (400, "bad_body", "body")
    assert answer.body["message"] == "the body must be a JSON object"
    assert stack.api.call("GET", f"/tournaments/{tournament}").body["status"] == "open"


def test_json_nested_a_thousand_deep_is_400(stack: Stack) -> None:
    deep = "[" * 1000 + "]" * 1000
    answer = stack.api.call(
        "POST", "/tournaments", deep, headers={"content-type": "application/json"}
    )
    assert (answer.status, answer.body["code"]) == (400, "bad_body")
    assert "nested" in answer.body["message"]


@pytest.mark.parametrize(
    "path",
    [
        "/tournaments/{long}",
        "/tournaments/{long}/tables/R1-1",
        "/tournaments/t-short/tables/R1-{long}",
    ],
)
def test_ids_longer_than_any_key_are_404_without_asking_dynamodb(
    stack: Stack, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    client = services().tournaments._tournaments._client  # every store's: one client
    asked: list[str] = []
    monkeypatch.setattr(client, "get_item", lambda **request: asked.append(str(request)))
    answer = stack.api.call("GET", path.format(long="t" * 2100))
    assert (answer.status, answer.body["code"]) == (404, "not_found")
    assert len(answer.body["message"]) < 200, "the id is quoted cut short"
    assert asked == []
