"""The finish job on moto, with tiny pages so that it takes many steps: the standings and
every player's place through the API are exactly `core.bracket.standings`'; a step that
dies after writing runs again to the same items; an old `JobStepReady` does nothing."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import boto3
import pytest
from moto import mock_aws
from suite_dice import suite_seed

import infra.jobs.finish
from core.bracket import Bracket, BracketPlan, SeatTable, Standing, seeded_order
from core.outcome import Outcome
from functions.api.app import lambda_handler
from functions.wiring import use_services
from infra.bootstrap import build_services
from infra.dice import SeededDice
from infra.jobs.finish import FinishJob
from infra.jobs.runner import JobRunner
from infra.jobs.start import ORDER
from infra.outbox.events import JobStepReady
from infra.settings import Settings
from infra.store.job_store import chunked
from infra.store.stores import Stores
from infra.store.tournament_items import PlayerExit, PlayerRecord, Status, TournamentRecord
from infra.tokens import hash_token
from local.lambda_events import invoke_http
from local.provision import create_tables

TABLE = "knobelcup"
T = "t-finish"
ORDER_CHUNK = 7  # the order in chunks of 7 ids, so that a step reads across chunks


@pytest.fixture
def store(aws_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stores]:
    """The template's table on moto, and the API's services over it."""
    monkeypatch.setenv("KNOBELCUP_TABLE", TABLE)
    monkeypatch.setattr(infra.jobs.finish, "ORDER_CHUNK", ORDER_CHUNK)
    with mock_aws():
        client = boto3.client("dynamodb")
        create_tables(client, names={"KnobelcupTable": TABLE})
        settings = Settings.from_env()
        use_services(build_services(settings, client=client, dice=SeededDice(suite_seed("finish"))))
        yield Stores.over(client, TABLE)
        use_services(None)


def played(
    player_count: int, table_size: int, advance: int, seed: int, forfeits: bool = False
) -> Bracket:
    """A whole tournament in memory with random rankings and measures of 0 to 2, so that
    many players tie on round, table place and measure. With `forfeits`, half the tables'
    last player forfeited and holds the best measure, 0 (as a 42 forfeiter holds no stick)."""
    rng = random.Random(seed)
    plan = BracketPlan.build(player_count, table_size, advance)
    bracket = Bracket(plan, seeded(player_count))
    playing = [d for d in bracket.start() if isinstance(d, SeatTable)]
    while playing:
        table = playing.pop(rng.randrange(len(playing)))
        ranking = list(table.players)
        rng.shuffle(ranking)
        measures = {p: rng.randrange(3) for p in ranking}
        forfeited = {ranking[-1]} if forfeits and not table.final and rng.random() < 0.5 else set()
        measures.update(dict.fromkeys(forfeited, 0))
        outcome = Outcome.from_ranking(
            tuple(ranking),
            measures,
            "penalty_points",
            lower_measure_is_better=True,
            forfeited=forfeited,
        )
        playing += [d for d in bracket.record(table.table, outcome) if isinstance(d, SeatTable)]
    assert bracket.is_finished
    return bracket


def seeded(player_count: int) -> tuple[str, ...]:
    return seeded_order([f"p-{n:03d}" for n in range(player_count)], "s")


def stored(store: Stores, bracket: Bracket) -> None:
    """The items the start and the progression leave for the finish: the tournament
    running, every player with a seeding position and an exit, the order in chunks."""
    order = seeded(bracket.plan.player_count)
    exits = {s.player: s for s in bracket.standings}
    tournament = TournamentRecord(
        id=T,
        name="finish",
        game="maexchen",
        options={},
        table_size=bracket.plan.table_size,
        advance=bracket.plan.advance,
        player_limit=1000,
        organizer_hash="-",
        created_at=0,
        expires_at=2_000_000_000,
        status=Status.RUNNING,
        player_count=bracket.plan.player_count,
        seed="s",
    )
    store.tournaments.create_tournament(tournament)
    store.players.put_players(
        PlayerRecord(
            tournament=T,
            id=player,
            name=name_of(player),
            token_hash=hash_token(token(player)),
            registered_at=0,
            expires_at=tournament.expires_at,
            table=f"R{exits[player].round}-1",
            table_round=exits[player].round,
            seed_position=position,
            exit=PlayerExit(
                exits[player].round,
                f"R{exits[player].round}-1",
                exits[player].table_place,
                exits[player].measure,
                eliminated=exits[player].place > 1,
                forfeited=exits[player].forfeited,
            ),
        )
        for position, player in enumerate(order)
    )
    store.jobs.put_id_chunks(T, ORDER, 0, list(chunked(order, ORDER_CHUNK)), 2_000_000_000)


def name_of(player: str) -> str:
    """A display name unlike the id, with a space and letters beyond ASCII."""
    return f"Spieler Ö {player}"


def token(player: str) -> str:
    return f"{player}.secret"


def tiny_runner(store: Stores) -> JobRunner:
    job = FinishJob(
        players=store.players,
        progress=store.progress,
        jobs=store.jobs,
        count_page=4,
        count_pages=2,
        place_page=5,
        segment_rows=2,
    )
    return JobRunner(store.tournaments, store.jobs, {"finish": job})


def api(method: str, path: str, **request: Any) -> Any:
    answer = invoke_http(lambda_handler, method, path, **request)
    assert answer.status == 200, answer.body
    return answer.body


def all_standings(limit: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    offset: int | None = 0
    while offset is not None:
        page = api("GET", f"/tournaments/{T}/standings", query=f"offset={offset}&limit={limit}")
        rows += page["standings"]
        offset = page["next_offset"]
    return rows


def as_rows(standings: tuple[Standing, ...]) -> list[dict[str, Any]]:
    """The standings as the API shows them: each row with the player's name."""
    return [s._replace(name=name_of(s.player))._asdict() for s in standings]


@pytest.mark.parametrize(
    ("players", "table_size", "advance", "seed"),
    [(41, 4, 2, 1), (23, 2, 1, 2), (60, 6, 3, 3)],  # byes in the second: odd, tables of 2
    ids=["41-at-4", "23-at-2-with-byes", "60-at-6"],
)
def test_many_tiny_steps_give_the_standings_and_every_place(
    store: Stores, players: int, table_size: int, advance: int, seed: int
) -> None:
    finish_in_tiny_steps(store, played(players, table_size, advance, seed))


def test_forfeiters_stand_below_those_who_played_their_table_to_the_end(store: Stores) -> None:
    # docs/rules.md §5.9: at the same round and table place, a forfeiter holding the best
    # measure (a 42 forfeiter's 0 sticks) stands below everyone who played to the end
    bracket = played(60, 4, 2, 4, forfeits=True)
    rows = bracket.standings
    assert any(s.forfeited and s.measure == 0 for s in rows)
    for better, worse in pairwise(rows):
        if (better.round, better.table_place) == (worse.round, worse.table_place):
            assert better.forfeited <= worse.forfeited
    assert any(
        f.forfeited and not p.forfeited and f.measure < p.measure and f.place > p.place
        for f in rows
        for p in rows
        if (f.round, f.table_place) == (p.round, p.table_place)
    ), "some forfeiter holds a better measure than a player placed above them"
    finish_in_tiny_steps(store, bracket)


def finish_in_tiny_steps(store: Stores, bracket: Bracket) -> None:
    """Store `bracket`'s exits, run the finish job in tiny steps, and check every page."""
    players = bracket.plan.player_count
    stored(store, bracket)
    store.jobs.begin_job(T, Status.RUNNING, infra.jobs.finish.begin())
    assert api("GET", f"/tournaments/{T}")["status"] == "running"

    steps = tiny_runner(store).run_to_end(T)

    assert steps >= players // 8 + players // 5  # counted 8 a step, placed 5 a step
    expected = as_rows(bracket.standings)
    for limit in (1, 3, 1000):
        assert all_standings(limit) == expected
    middle = api("GET", f"/tournaments/{T}/standings", query="offset=5&limit=9")["standings"]
    assert middle == expected[5:14]
    beyond = api("GET", f"/tournaments/{T}/standings", query=f"offset={players}&limit=5")
    assert beyond["standings"] == [] and beyond["next_offset"] is None
    for row in expected:
        me = api("GET", f"/tournaments/{T}/me", token=token(row["player"]))
        assert me["place"] == row["place"], row
    view = api("GET", f"/tournaments/{T}")
    assert view["status"] == "finished"
    assert view["champion"] == bracket.champion == expected[0]["player"]
    assert view["champion_name"] == name_of(bracket.champion)
    assert view["standings"] == expected[:10]


def test_a_step_that_dies_after_writing_runs_again_to_the_same_items(
    store: Stores, monkeypatch: pytest.MonkeyPatch
) -> None:
    bracket = played(37, 4, 2, 7)
    stored(store, bracket)
    store.jobs.begin_job(T, Status.RUNNING, infra.jobs.finish.begin())
    runner = tiny_runner(store)
    put_standings = store.progress.put_standings
    calls = 0

    def dies_on_the_third(*args: Any, **kwargs: Any) -> None:
        nonlocal calls
        calls += 1
        put_standings(*args, **kwargs)
        if calls == 3:
            raise RuntimeError("the function died after writing its standings")

    monkeypatch.setattr(store.progress, "put_standings", dies_on_the_third)
    with pytest.raises(RuntimeError, match="died"):
        runner.run_to_end(T)
    before = store.tournaments.get_tournament(T)
    assert before is not None and before.job is not None and before.job.phase == "place"
    runner.run_to_end(T)  # the step that died runs again, then the rest

    assert calls > 3
    assert all_standings(1000) == as_rows(bracket.standings)
    segments = standings_items(store)
    first_places = [int(item["first_place"]["N"]) for item in segments]
    assert first_places == sorted(set(first_places)), "no segment written twice"
    assert sum(len(item["players"]["S"].split(" ")) for item in segments) == 37


def standings_items(store: Stores) -> list[dict[str, Any]]:
    return list(
        boto3.client("dynamodb").query(
            TableName=TABLE,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": f"T#{T}#STANDINGS"}},
        )["Items"]
    )


def test_an_old_job_step_ready_does_nothing(store: Stores) -> None:
    bracket = played(12, 4, 2, 5)
    stored(store, bracket)
    store.jobs.begin_job(T, Status.RUNNING, infra.jobs.finish.begin())
    runner = tiny_runner(store)
    first = JobStepReady(event_id="a", tournament=T, job="finish", step=0)
    assert runner.run(first) == "stepped"
    after_first = store.tournaments.get_tournament(T)
    assert runner.run(first) == "stale"
    assert store.tournaments.get_tournament(T) == after_first
    runner.run_to_end(T)
    finished = store.tournaments.get_tournament(T)
    assert finished is not None and finished.status == Status.FINISHED
    for step in range(0, 10):
        copy = JobStepReady(event_id="b", tournament=T, job="finish", step=step)
        assert runner.run(copy) == "stale"
    assert store.tournaments.get_tournament(T) == finished
    assert all_standings(1000) == as_rows(bracket.standings)


def test_standings_stored_before_names_were_show_the_ids(store: Stores) -> None:
    bracket = played(12, 4, 2, 5)
    stored(store, bracket)
    store.jobs.begin_job(T, Status.RUNNING, infra.jobs.finish.begin())
    tiny_runner(store).run_to_end(T)
    client = boto3.client("dynamodb")
    for item in standings_items(store):
        key = {"pk": item["pk"], "sk": item["sk"]}
        client.update_item(
            TableName=TABLE,
            Key=key,
            UpdateExpression="REMOVE #n",
            ExpressionAttributeNames={"#n": "names"},
        )
    finished = store.tournaments.get_tournament(T)
    assert finished is not None
    unnamed = [{k: v for k, v in row.items() if k != "name"} for row in finished.top_standings]
    client.update_item(
        TableName=TABLE,
        Key={"pk": {"S": f"T#{T}"}, "sk": {"S": "META"}},
        UpdateExpression="SET top_standings = :top",
        ExpressionAttributeValues={":top": {"S": json.dumps(unnamed)}},
    )

    expected = [{**s._asdict(), "name": s.player} for s in bracket.standings]
    assert all_standings(5) == expected
    view = api("GET", f"/tournaments/{T}")
    assert view["standings"] == expected[:10]
    assert view["champion_name"] == bracket.champion
