"""The organizer's cockpit through the API on moto: audit trail, token rotation,
removal and disqualification, cancellation, live status and live standings."""

from __future__ import annotations

import itertools
from typing import Any
from urllib.parse import urlencode

import pytest
from apiclient import Stack

from functions.wiring import services
from infra.store.tournament_items import PlayerExit

NOW = 1_800_000_000.0  # the stack fixture's clock


@pytest.fixture(autouse=True)
def ticking(stack: Stack) -> None:
    """The organizer's clock moves a second a call: entries of one millisecond have no
    order among them, so each action here gets its own."""
    seconds = itertools.count(NOW)
    services().organizer._clock = lambda: float(next(seconds))


def created(stack: Stack, **settings: Any) -> tuple[str, str]:
    body = {"game": "maexchen", "name": "Stammtisch", "table_size": 4, **settings}
    answer = stack.api.call("POST", "/tournaments", body)
    assert answer.status == 201, answer.body
    return answer.body["tournament_id"], answer.body["organizer_token"]


def with_players(
    stack: Stack, count: int, **settings: Any
) -> tuple[str, str, list[dict[str, Any]]]:
    tournament, organizer = created(stack, **settings)
    stack.api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    players = []
    for number in range(count):
        answer = stack.api.call(
            "POST", f"/tournaments/{tournament}/players", {"name": f"p{number}"}
        )
        assert answer.status == 201, answer.body
        players.append(answer.body)
    return tournament, organizer, players


def running(stack: Stack, count: int, **settings: Any) -> tuple[str, str, list[dict[str, Any]]]:
    tournament, organizer, players = with_players(stack, count, **settings)
    started = stack.api.call("POST", f"/tournaments/{tournament}/start", token=organizer)
    assert started.status == 202, started.body
    return tournament, organizer, players


def log(stack: Stack, tournament: str, token: str, **params: str) -> dict[str, Any]:
    query = urlencode(params)
    answer = stack.api.call(
        "GET", f"/tournaments/{tournament}/organizer/log", token=token, query=query
    )
    assert answer.status == 200, answer.body
    return answer.body


def table_view(stack: Stack, tournament: str, ref: str) -> dict[str, Any]:
    answer = stack.api.call("GET", f"/tournaments/{tournament}/tables/{ref}")
    assert answer.status == 200, answer.body
    return answer.body


def token_of(players: list[dict[str, Any]], player: str) -> str:
    return next(p["player_token"] for p in players if p["player_id"] == player)


# --- audit trail and token ---------------------------------------------------------------


def test_every_organizer_action_lands_in_the_audit_trail_in_order(stack: Stack) -> None:
    tournament, organizer, players = with_players(stack, 3)
    api = stack.api
    api.call("POST", f"/tournaments/{tournament}/registration/close", token=organizer)
    removed = api.call(
        "POST",
        f"/tournaments/{tournament}/players/{players[0]['player_id']}/disqualify",
        {"reason": "no-show"},
        token=organizer,
    )
    assert removed.status == 200, removed.body
    api.call("POST", f"/tournaments/{tournament}/start", token=organizer)
    trail = log(stack, tournament, organizer)
    actions = [e["action"] for e in trail["entries"]]
    assert actions == ["create", "open_registration", "close_registration", "disqualify", "start"]
    assert {e["actor"] for e in trail["entries"]} == {"organizer"}
    assert {e["token_generation"] for e in trail["entries"]} == {1}
    assert trail["entries"][3]["detail"]["reason"] == "no-show"
    assert trail["entries"][0]["at"].startswith("2027-01-15T08:00:00.000")
    assert trail["next_after"] is None


def test_the_audit_trail_is_paged(stack: Stack) -> None:
    tournament, organizer = created(stack)
    for _ in range(2):
        stack.api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
        stack.api.call("POST", f"/tournaments/{tournament}/registration/close", token=organizer)
    first = log(stack, tournament, organizer, limit="2")
    assert len(first["entries"]) == 2 and first["next_after"]
    rest = log(stack, tournament, organizer, after=first["next_after"], limit="10")
    actions = [e["action"] for e in first["entries"] + rest["entries"]]
    assert actions == ["create"] + ["open_registration", "close_registration"] * 2


def test_a_malformed_cursor_is_refused_naming_the_field(stack: Stack) -> None:
    tournament, organizer = created(stack)
    answer = stack.api.call(
        "GET", f"/tournaments/{tournament}/organizer/log", token=organizer, query="after=x"
    )
    assert (answer.status, answer.body["code"]) == (422, "invalid_field")
    assert "after" in answer.body["field"]


def test_only_the_organizer_reads_the_cockpit(stack: Stack) -> None:
    tournament, _, players = with_players(stack, 1)
    base = f"/tournaments/{tournament}/organizer"
    for path in (base + "/log", base + "/status", base + "/standings"):
        assert stack.api.call("GET", path).status == 401
        player = stack.api.call("GET", path, token=players[0]["player_token"])
        assert (player.status, player.body["code"]) == (403, "forbidden")
    assert (
        stack.api.call("GET", "/tournaments/t-unknown123/organizer/status", token="x.y").status
        == 404
    )


def test_rotating_the_token_stops_the_old_one_at_once(stack: Stack) -> None:
    tournament, old = created(stack)
    rotated = stack.api.call("POST", f"/tournaments/{tournament}/organizer/token", token=old)
    assert rotated.status == 201, rotated.body
    new = rotated.body["organizer_token"]
    assert new != old and rotated.body["token_generation"] == 2
    refused = stack.api.call("POST", f"/tournaments/{tournament}/registration/open", token=old)
    assert (refused.status, refused.body["code"]) == (401, "unauthorized")
    again = stack.api.call("POST", f"/tournaments/{tournament}/organizer/token", token=old)
    assert again.status == 401
    assert (
        stack.api.call("POST", f"/tournaments/{tournament}/registration/open", token=new).status
        == 200
    )
    entries = log(stack, tournament, new)["entries"]
    assert [(e["action"], e["token_generation"]) for e in entries] == [
        ("create", 1),
        ("rotate_token", 1),
        ("open_registration", 2),
    ]


# --- removal and disqualification ----------------------------------------------------------


def test_removing_a_player_before_the_start_frees_their_seat_and_name(stack: Stack) -> None:
    tournament, organizer, players = with_players(stack, 3, player_limit=3)
    gone = players[1]["player_id"]
    path = f"/tournaments/{tournament}/players/{gone}/disqualify"
    answer = stack.api.call("POST", path, token=organizer)
    assert answer.status == 200, answer.body
    assert (answer.body["outcome"], answer.body["table"]) == ("removed", None)
    assert stack.api.call("GET", f"/tournaments/{tournament}").body["player_count"] == 2
    me = stack.api.call("GET", f"/tournaments/{tournament}/me", token=players[1]["player_token"])
    assert me.status == 401
    again = stack.api.call("POST", f"/tournaments/{tournament}/players", {"name": "p1"})
    assert again.status == 201, again.body  # the name and the place are free again
    assert stack.api.call("POST", path, token=organizer).status == 404


def test_a_disqualified_player_to_act_forfeits_at_once(stack: Stack) -> None:
    tournament, organizer, _ = running(stack, 4)
    before = table_view(stack, tournament, "R1-1")
    to_act = before["view"]["to_act"]
    answer = stack.api.call(
        "POST", f"/tournaments/{tournament}/players/{to_act}/disqualify", token=organizer
    )
    assert answer.status == 200, answer.body
    assert (answer.body["outcome"], answer.body["table"]) == ("forfeited", "R1-1")
    after = table_view(stack, tournament, "R1-1")
    assert after["view"]["version"] == before["view"]["version"] + 1
    assert after["view"]["to_act"] != to_act
    events = stack.api.call("GET", f"/tournaments/{tournament}/tables/R1-1/log").body["records"]
    assert events[-1]["action"]["kind"] == "forfeit"
    feed = stack.api.call("GET", f"/tournaments/{tournament}/tables/R1-1/events")
    assert feed.status == 200, feed.body  # the spectators' feed tells the forfeit too
    assert feed.body["records"][-1]["action"]["kind"] == "forfeit"
    again = stack.api.call(
        "POST", f"/tournaments/{tournament}/players/{to_act}/disqualify", token=organizer
    )
    assert (again.status, again.body["code"]) == (409, "wrong_status")


def test_a_disqualified_player_forfeits_the_moment_the_turn_reaches_them(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    tournament, organizer, players = running(stack, 4)
    view = table_view(stack, tournament, "R1-1")["view"]
    seats = [p["id"] for p in table_view(stack, tournament, "R1-1")["players"]]
    to_act = view["to_act"]
    following = seats[(seats.index(to_act) + 1) % len(seats)]
    answer = stack.api.call(
        "POST", f"/tournaments/{tournament}/players/{following}/disqualify", token=organizer
    )
    assert answer.body["outcome"] == "disqualified", answer.body
    assert table_view(stack, tournament, "R1-1")["view"]["version"] == view["version"]
    path = f"/tournaments/{tournament}/tables/R1-1/actions"
    token = token_of(players, to_act)
    thrown = stack.api.call(
        "POST", path, {"version": view["version"], "action": {"kind": "throw"}}, token=token
    )
    assert thrown.status == 200, thrown.body
    tables = services().turns._tables
    saves: list[int] = []
    save_table = tables.save_table

    def counted(table: Any, *args: Any, **kwargs: Any) -> None:
        saves.append(table.version)
        save_table(table, *args, **kwargs)

    monkeypatch.setattr(tables, "save_table", counted)
    announced = stack.api.call(
        "POST",
        path,
        {"version": view["version"] + 1, "action": {"kind": "announce", "value": 21}},
        token=token,
    )
    assert announced.status == 200, announced.body
    after = table_view(stack, tournament, "R1-1")["view"]
    assert after["version"] == view["version"] + 3  # throw, announce, and their forfeit
    assert after["to_act"] not in (following, None)
    assert saves == [after["version"]]  # the announcement and the forfeit: one write
    # the answer tells the announcement as its retry would, before the forfeit
    assert announced.body["view"]["version"] == view["version"] + 2


def test_disqualifying_an_unknown_player_is_404(stack: Stack) -> None:
    tournament, organizer, _ = running(stack, 4)
    answer = stack.api.call(
        "POST", f"/tournaments/{tournament}/players/p-nobody2345/disqualify", token=organizer
    )
    assert (answer.status, answer.body["code"]) == (404, "not_found")


def test_a_disqualification_reason_is_checked(stack: Stack) -> None:
    tournament, organizer, players = with_players(stack, 1)
    path = f"/tournaments/{tournament}/players/{players[0]['player_id']}/disqualify"
    answer = stack.api.call("POST", path, {"reason": "x" * 201}, token=organizer)
    assert (answer.status, answer.body["field"]) == (422, "reason")
    unknown = stack.api.call("POST", path, {"why": "x"}, token=organizer)
    assert (unknown.status, unknown.body["field"]) == (422, "why")


# --- cancellation ----------------------------------------------------------------------


def test_cancelling_stops_every_table_and_refuses_actions(stack: Stack) -> None:
    tournament, organizer, players = running(stack, 8)
    view = table_view(stack, tournament, "R1-1")["view"]
    answer = stack.api.call("POST", f"/tournaments/{tournament}/cancel", token=organizer)
    assert answer.status == 202, answer.body
    assert answer.body["status"] == "cancelled"
    assert answer.body["cancel_progress"] == {"stopping": True, "tables_stopped": 0}
    read = stack.api.call("GET", f"/tournaments/{tournament}").body  # the job ran since
    assert read["cancel_progress"] == {"stopping": False, "tables_stopped": 2}
    token = token_of(players, view["to_act"])
    acted = stack.api.call(
        "POST",
        f"/tournaments/{tournament}/tables/R1-1/actions",
        {"version": view["version"], "action": {"kind": "throw"}},
        token=token,
    )
    assert (acted.status, acted.body["code"]) == (409, "wrong_status")
    assert not services().turns.time_out(tournament, "R1-1", view["version"])  # no timeout either
    assert stack.api.call("GET", f"/tournaments/{tournament}").body["status"] == "cancelled"
    again = stack.api.call("POST", f"/tournaments/{tournament}/cancel", token=organizer)
    assert (again.status, again.body["code"]) == (409, "wrong_status")
    status = stack.api.call("GET", f"/tournaments/{tournament}/organizer/status", token=organizer)
    assert [(r["playing"], r["cancelled"]) for r in status.body["rounds"]] == [(0, 2), (0, 0)]
    assert log(stack, tournament, organizer)["entries"][-1]["action"] == "cancel"


def test_cancelling_before_the_start_closes_registration(stack: Stack) -> None:
    tournament, organizer, _ = with_players(stack, 2)
    answer = stack.api.call("POST", f"/tournaments/{tournament}/cancel", token=organizer)
    assert answer.status == 202, answer.body
    read = stack.api.call("GET", f"/tournaments/{tournament}").body
    assert read["cancel_progress"] == {"stopping": False, "tables_stopped": 0}
    late = stack.api.call("POST", f"/tournaments/{tournament}/players", {"name": "late"})
    assert (late.status, late.body["code"]) == (409, "registration_closed")
    start = stack.api.call("POST", f"/tournaments/{tournament}/start", token=organizer)
    assert (start.status, start.body["code"]) == (409, "wrong_status")
    seen = stack.api.call("GET", f"/tournaments/{tournament}")
    assert (seen.status, seen.body["status"], seen.body["rounds"]) == (200, "cancelled", [])
    status = stack.api.call("GET", f"/tournaments/{tournament}/organizer/status", token=organizer)
    assert (status.status, status.body["rounds"]) == (200, [])


# --- live status and standings ---------------------------------------------------------------


def test_the_status_counts_tables_per_round_and_names_stalled_ones(stack: Stack) -> None:
    tournament, organizer, _ = running(stack, 8)
    path = f"/tournaments/{tournament}/organizer/status"
    status = stack.api.call("GET", path, token=organizer).body
    assert status["status"] == "running" and status["player_count"] == 8
    assert [
        (r["round"], r["tables"], r["playing"], r["waiting"], r["over"]) for r in status["rounds"]
    ] == [
        (1, 2, 2, 0, 0),
        (2, 1, 0, 1, 0),
    ]
    assert (status["stalled_count"], status["complete"]) == (0, True)
    services().organizer._clock = lambda: NOW + 3600  # an hour later, nobody has moved
    late = stack.api.call("GET", path, token=organizer).body
    assert late["stalled_count"] == 2
    assert sorted(s["table"] for s in late["stalled"]) == ["R1-1", "R1-2"]
    assert all(s["overdue_seconds"] > 60 for s in late["stalled"])


def test_live_standings_place_players_as_far_as_decided(stack: Stack) -> None:
    tournament, organizer, _ = running(stack, 8)
    store = stack.stores().players
    listing = stack.api.call("GET", f"/tournaments/{tournament}/rounds/1").body["tables"]
    path = f"/tournaments/{tournament}/organizer/standings"
    assert stack.api.call("GET", path, token=organizer).body["standings"] == []
    # table R1-1 is over: its last two are out of round 1 (places 5 to 8 between them)
    first = listing[0]["players"]
    for place, player in ((3, first[2]), (4, first[3])):
        store.record_exit(tournament, player, PlayerExit(1, "R1-1", place, 5, True))
    partial = stack.api.call("GET", path, token=organizer).body
    assert partial["placed"] == 2
    assert [(r["place"], r["place_from"], r["place_to"]) for r in partial["standings"]] == [
        (None, 5, 8),
        (None, 5, 8),
    ]
    second = listing[1]["players"]
    for place, player in ((3, second[0]), (4, second[1])):
        store.record_exit(tournament, player, PlayerExit(1, "R1-2", place, 5, True))
    decided = stack.api.call("GET", path, token=organizer, query="limit=3").body
    rows = decided["standings"]
    assert [r["place"] for r in rows] == [5, 6, 7] and decided["next_offset"] == 3
    # third places first (docs/rules.md §5.9: place at the table, then measure, then seeding)
    assert {rows[0]["player"], rows[1]["player"]} == {first[2], second[0]}
    assert rows[2]["table_place"] == 4


def test_live_standings_put_a_forfeiter_below_those_who_played_to_the_end(stack: Stack) -> None:
    # docs/rules.md §5.9: fourth at both tables of round 1; R1-1's fourth forfeited with
    # the best measure (a 42 forfeiter's 0 sticks): R1-2's fourth stands above them
    tournament, organizer, _ = running(stack, 8)
    store = stack.stores().players
    listing = stack.api.call("GET", f"/tournaments/{tournament}/rounds/1").body["tables"]
    first, second = listing[0]["players"], listing[1]["players"]
    store.record_exit(tournament, first[2], PlayerExit(1, "R1-1", 3, 2, True))
    store.record_exit(tournament, first[3], PlayerExit(1, "R1-1", 4, 0, True, forfeited=True))
    store.record_exit(tournament, second[2], PlayerExit(1, "R1-2", 3, 1, True))
    store.record_exit(tournament, second[3], PlayerExit(1, "R1-2", 4, 3, True))
    path = f"/tournaments/{tournament}/organizer/standings"
    rows = stack.api.call("GET", path, token=organizer).body["standings"]
    assert [(r["place"], r["player"], r["forfeited"]) for r in rows] == [
        (5, second[2], False),
        (6, first[2], False),
        (7, second[3], False),
        (8, first[3], True),
    ]


@pytest.mark.parametrize("limit", ["0", "1001", "x"])
def test_live_standings_check_the_page(stack: Stack, limit: str) -> None:
    tournament, organizer = created(stack)
    answer = stack.api.call(
        "GET",
        f"/tournaments/{tournament}/organizer/standings",
        token=organizer,
        query=f"limit={limit}",
    )
    assert (answer.status, answer.body["code"]) == (422, "invalid_field")
    assert "limit" in answer.body["field"]


# --- the public list ---------------------------------------------------------------------


def test_the_public_list_pages_newest_first_across_months(stack: Stack) -> None:
    services().tournaments._clock = lambda: NOW - 40 * 86_400  # created 40 days ago
    old, _ = created(stack, name="Last month")
    services().tournaments._clock = lambda: NOW
    recent = {created(stack, name=f"Cup {n}")[0] for n in range(2)}
    first = stack.api.call("GET", "/tournaments", query="limit=2")
    assert first.status == 200, first.body
    assert {t["tournament_id"] for t in first.body["tournaments"]} == recent
    assert first.body["next_before"]
    rest = stack.api.call(
        "GET", "/tournaments", query=urlencode({"before": first.body["next_before"]})
    )
    assert [t["tournament_id"] for t in rest.body["tournaments"]] == [old]
    assert rest.body["tournaments"][0]["name"] == "Last month"
    assert rest.body["next_before"] is None


def test_the_public_list_checks_its_cursor(stack: Stack) -> None:
    answer = stack.api.call("GET", "/tournaments", query="before=nonsense")
    assert (answer.status, answer.body["code"]) == (422, "invalid_field")
    assert "before" in answer.body["field"]
