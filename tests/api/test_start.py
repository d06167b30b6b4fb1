"""Starting closes registration and answers 202; the start job seeds and seats round 1
once, page by page; a job step that dies is run again without loss."""

from __future__ import annotations

from typing import Any

import pytest
from apiclient import Stack, job_runner, start_job

from core.bracket import seeded_order
from functions.wiring import services
from infra.services.tournaments import order_digest

NOW = 1_800_000_000.0  # the stack fixture's clock


def open_with_players(stack: Stack, count: int) -> tuple[str, str, list[dict[str, Any]]]:
    api = stack.api
    created = api.call("POST", "/tournaments", {"game": "maexchen", "table_size": 4}).body
    tournament, organizer = created["tournament_id"], created["organizer_token"]
    api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    players = [
        api.call("POST", f"/tournaments/{tournament}/players", {"name": f"p{n}"}).body
        for n in range(count)
    ]
    return tournament, organizer, players


def test_the_published_seed_reproduces_the_seating(stack: Stack) -> None:
    tournament, organizer, players = open_with_players(stack, 10)
    answer = stack.api.call("POST", f"/tournaments/{tournament}/start", token=organizer)
    started = answer.body
    assert (answer.status, started["status"]) == (202, "starting")
    assert started["start_progress"] == {"phase": "roster", "seated": 0}
    assert len(started["seed"]) == 32 and started["player_count"] == 10
    assert [r["tables"] for r in started["rounds"]] == [3, 2, 1]  # 6 go on, then 4
    after = stack.api.call("GET", f"/tournaments/{tournament}").body
    assert (after["status"], after["start_progress"]) == ("running", None)
    order = seeded_order([p["player_id"] for p in players], started["seed"])
    listing = stack.api.call("GET", f"/tournaments/{tournament}/rounds/1").body
    assert [p for t in listing["tables"] for p in t["players"]] == list(order)


def test_registration_closes_at_the_start(stack: Stack) -> None:
    tournament, organizer, _ = open_with_players(stack, 2)
    stack.api.call("POST", f"/tournaments/{tournament}/start", token=organizer)
    late = stack.api.call("POST", f"/tournaments/{tournament}/players", {"name": "late"})
    assert (late.status, late.body["code"]) == (409, "registration_closed")
    assert stack.api.call("GET", f"/tournaments/{tournament}").body["player_count"] == 2


def test_a_start_needs_two_players(stack: Stack) -> None:
    tournament, organizer, _ = open_with_players(stack, 1)
    alone = stack.api.call("POST", f"/tournaments/{tournament}/start", token=organizer)
    assert (alone.status, alone.body["code"]) == (409, "wrong_status")
    assert "2 players" in alone.body["message"]


def test_a_start_job_step_that_dies_runs_again_and_keeps_what_was_played(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    tournament, organizer, players = open_with_players(stack, 8)
    stores = stack.stores()
    one_table_a_step = job_runner(stores, {"start": start_job(stores, lambda: NOW, seat_tables=1)})
    stack.api.jobs = None  # the job runs below, step by step
    started = stack.api.call("POST", f"/tournaments/{tournament}/start", token=organizer)
    assert started.status == 202
    put_new_tables = stores.tables.put_new_tables

    def crash(tables: Any) -> None:
        put_new_tables(tables)
        raise RuntimeError("the function died after storing the tables")

    monkeypatch.setattr(stores.tables, "put_new_tables", crash)
    with pytest.raises(RuntimeError, match="died"):
        one_table_a_step.run_to_end(tournament)
    status = stack.api.call("GET", f"/tournaments/{tournament}").body
    assert status["status"] == "starting"
    assert status["start_progress"] == {"phase": "seat", "seated": 0}

    # the table stored by the step that died gets played on before the step runs again
    table = stack.api.call("GET", f"/tournaments/{tournament}/tables/R1-1").body["view"]
    token = next(p["player_token"] for p in players if p["player_id"] == table["to_act"])
    throw = {"version": 0, "action": {"kind": "throw"}}
    path = f"/tournaments/{tournament}/tables/R1-1/actions"
    assert stack.api.call("POST", path, throw, token=token).status == 200

    monkeypatch.setattr(stores.tables, "put_new_tables", put_new_tables)
    written = stores.players.put_players
    rewritten: list[str] = []
    monkeypatch.setattr(
        stores.players,
        "put_players",
        lambda again: (rewritten.extend(p.id for p in again), written(again))[1],
    )
    one_table_a_step.run_to_end(tournament)
    resumed = stack.api.call("GET", f"/tournaments/{tournament}").body
    assert resumed["status"] == "running" and resumed["seed"] == status["seed"]
    listing = stack.api.call("GET", f"/tournaments/{tournament}/rounds/1").body["tables"]
    first_table = set(listing[0]["players"])
    assert not first_table & set(rewritten), "players placed before the crash stay as they are"
    assert len(rewritten) == 8 - len(first_table)
    after = stack.api.call("GET", f"/tournaments/{tournament}/tables/R1-1").body["view"]
    assert after["version"] == 1  # the throw was not lost to a fresh seating
    me = stack.api.call("GET", f"/tournaments/{tournament}/me", token=token).body
    assert me["table"] == "R1-1"


def test_a_step_delivered_twice_is_done_once(stack: Stack) -> None:
    tournament, organizer, _ = open_with_players(stack, 9)
    stack.api.jobs = None
    stack.api.call("POST", f"/tournaments/{tournament}/start", token=organizer)
    stores = stack.stores()
    runner = job_runner(stores, {"start": start_job(stores, lambda: NOW, seat_tables=1)})
    first = services().tournaments.get(tournament).job
    assert first is not None
    ready = _ready(tournament, first.step)
    assert runner.run(ready) == "stepped"
    assert runner.run(ready) == "stale"  # the copy finds the job a step further
    runner.run_to_end(tournament)
    assert runner.run(ready) == "stale"
    assert stack.api.call("GET", f"/tournaments/{tournament}").body["status"] == "running"


def _ready(tournament: str, step: int) -> Any:
    from infra.outbox.events import JobStepReady  # noqa: PLC0415

    return JobStepReady(event_id="x", tournament=tournament, job="start", step=step)


def test_the_organizer_may_give_the_seed(stack: Stack) -> None:
    tournament, organizer, players = open_with_players(stack, 9)
    start = f"/tournaments/{tournament}/start"
    started = stack.api.call("POST", start, {"seed": "Stammtisch 2026"}, token=organizer).body
    assert (started["seeding"], started["seed"]) == ("seed", "Stammtisch 2026")
    order = seeded_order([p["player_id"] for p in players], "Stammtisch 2026")
    listing = stack.api.call("GET", f"/tournaments/{tournament}/rounds/1").body
    assert [p for t in listing["tables"] for p in t["players"]] == list(order)


def test_the_organizer_may_give_the_order(stack: Stack) -> None:
    tournament, organizer, players = open_with_players(stack, 8)
    order = [p["player_id"] for p in reversed(players)]
    start = f"/tournaments/{tournament}/start"
    started = stack.api.call("POST", start, {"order": order}, token=organizer).body
    assert (started["seeding"], started["seed"]) == ("order", order_digest(order))
    listing = stack.api.call("GET", f"/tournaments/{tournament}/rounds/1").body
    assert [p for t in listing["tables"] for p in t["players"]] == order


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda order: order[:-1], "missing"),
        (lambda order: [*order, "p-stranger"], "p-stranger"),
        (lambda order: [*order[:-1], order[0]], "more than once"),
    ],
    ids=["missing", "unknown", "twice"],
)
def test_a_wrong_order_is_422_and_starts_nothing(stack: Stack, change: Any, named: str) -> None:
    tournament, organizer, players = open_with_players(stack, 6)
    order = change([p["player_id"] for p in players])
    answer = stack.api.call(
        "POST", f"/tournaments/{tournament}/start", {"order": order}, token=organizer
    )
    assert (answer.status, answer.body["code"]) == (422, "invalid_bracket")
    assert named in answer.body["message"]
    assert stack.api.call("GET", f"/tournaments/{tournament}").body["status"] == "open"


def test_seed_and_order_together_are_422(stack: Stack) -> None:
    tournament, organizer, players = open_with_players(stack, 2)
    body = {"seed": "x", "order": [p["player_id"] for p in players]}
    answer = stack.api.call("POST", f"/tournaments/{tournament}/start", body, token=organizer)
    assert answer.status == 422 and "not both" in answer.body["message"]


def test_a_start_repeated_while_starting_must_be_the_same(stack: Stack) -> None:
    tournament, organizer, players = open_with_players(stack, 4)
    order = [p["player_id"] for p in players]
    stack.api.jobs = None  # stays starting
    start = f"/tournaments/{tournament}/start"
    assert stack.api.call("POST", start, {"order": order}, token=organizer).status == 202
    other = stack.api.call("POST", start, {"order": order[::-1]}, token=organizer)
    assert (other.status, other.body["code"]) == (409, "wrong_status")
    assert stack.api.call("POST", start, token=organizer).status == 409
    again = stack.api.call("POST", start, {"order": order}, token=organizer)
    assert again.status == 202 and again.body["status"] == "starting"


def test_an_order_start_refuses_when_someone_registered_since_the_count(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    tournament, organizer, players = open_with_players(stack, 3)
    order = [p["player_id"] for p in players]
    tournaments = services().tournaments._tournaments
    counted = tournaments.registration_counts(tournament)
    late = stack.api.call("POST", f"/tournaments/{tournament}/players", {"name": "late"}).body
    # the count the start makes comes before the late registration, its player list after
    monkeypatch.setattr(tournaments, "registration_counts", lambda _: counted)
    monkeypatch.setattr(
        "infra.services.tournaments.TournamentService._registered_ids", lambda *_: order
    )
    answer = stack.api.call(
        "POST", f"/tournaments/{tournament}/start", {"order": order}, token=organizer
    )
    assert (answer.status, answer.body["code"]) == (409, "registration_changed")
    monkeypatch.undo()
    view = stack.api.call("GET", f"/tournaments/{tournament}").body
    assert (view["status"], view["player_count"]) == ("open", 4)
    full = [*order, late["player_id"]]
    assert (
        stack.api.call(
            "POST", f"/tournaments/{tournament}/start", {"order": full}, token=organizer
        ).status
        == 202
    )
