"""Pacing (docs/capacity.md#pacing): with a budget of tables in play, a tournament never
has more in play at once, every table still plays, first come first served, and the
result is that of the same tournament unpaced."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from tournament_kit import NOW, StackFactory, bot_tournament

from functions.wiring import use_services
from infra.bootstrap import build_services
from infra.dice import PlaceSeededDice
from infra.services.sweeper import DeadlineSweeper
from infra.store.capacity import CAPACITY_KEY, QUEUE_PK, CapacityStore
from infra.store.stores import Stores
from local.bots import BotTournament
from local.stack import LocalStack

PLAYERS = 30  # 5 tables of 6 in round 1, then 2, then the final
BUDGET = 2


def items(stack: LocalStack) -> list[dict[str, Any]]:
    pages = stack.dynamodb.get_paginator("scan").paginate(TableName=stack.settings.table_name)
    return [item for page in pages for item in page["Items"]]


def in_play(stack: LocalStack) -> int:
    """Tables in play, counted from the table items themselves (by the scan: only the
    count comes back, not every item of the table)."""
    pages = stack.dynamodb.get_paginator("scan").paginate(
        TableName=stack.settings.table_name,
        Select="COUNT",
        FilterExpression="kind = :table AND #status = :playing",
        ExpressionAttributeNames={"#status": "status"},
        ExpressionAttributeValues={":table": {"S": "table"}, ":playing": {"S": "playing"}},
    )
    return sum(page["Count"] for page in pages)


class Watched(BotTournament):
    """Bots that count the tables in play after every action."""

    most: int = 0

    def _act(self, bot: Any, ref: str, view: dict[str, Any] | None) -> dict[str, Any] | None:
        after = super()._act(bot, ref, view)
        self.most = max(self.most, in_play(self.stack))
        return after


def begin(run: BotTournament) -> BotTournament:
    """`run`'s tournament of `PLAYERS` bots, started: 5 tables of 6 in round 1, seated in
    registration order (the first bot at R1-1, the last at R1-5)."""
    run.create("maexchen", table_size=6, advance=2, turn_timeout_seconds=30)
    run.register([f"bot {n}" for n in range(PLAYERS)])
    run.start(in_registration_order=True)
    return run


def play(stack: LocalStack, watched: bool = False) -> tuple[BotTournament, dict[str, Any]]:
    run = begin(
        Watched(bot_tournament(stack).call, stack, "bots") if watched else bot_tournament(stack)
    )
    return run, run.run()


@pytest.fixture
def paced_start(local_stack: StackFactory) -> tuple[LocalStack, BotTournament]:
    """A paced stack (`BUDGET` tables in play) whose tournament has just started: R1-1
    and R1-2 in play, R1-3, R1-4 and R1-5 queued in that order."""
    stack = local_stack("paced", tables_in_play=BUDGET)
    run = begin(bot_tournament(stack))
    stack.delivery.settle()
    return stack, run


def test_a_paced_tournament_keeps_to_the_budget_and_ends_as_unpaced(
    local_stack: StackFactory,
) -> None:
    unpaced_run, unpaced = play(local_stack("free"))
    expected = unpaced_run.standings()  # the API serves the stack started last
    stack = local_stack("paced", tables_in_play=BUDGET)
    run, paced = play(stack, watched=True)

    assert isinstance(run, Watched)
    assert 0 < run.most <= BUDGET
    assert paced["status"] == unpaced["status"] == "finished"
    assert run.standings() == expected
    capacity = stack.dynamodb.get_item(TableName=stack.settings.table_name, Key=CAPACITY_KEY)
    assert capacity["Item"]["in_play"]["N"] == "0", "every slot was freed"
    assert capacity["Item"]["queued"]["N"] == "0"
    assert int(capacity["Item"]["next_seq"]["N"]) > 0, "some tables waited"
    found = items(stack)
    assert not [i for i in found if i["pk"]["S"] == QUEUE_PK], "the queue is empty"
    twins = [i for i in found if i.get("kind", {}).get("S") == "queued_table"]
    assert twins and {i["status"]["S"] for i in twins} == {"started"}
    tables = [i for i in found if i.get("kind", {}).get("S") == "table"]
    assert {t["slot"]["S"] for t in tables if t["status"]["S"] != "bye"} == {"released"}


def test_a_queued_table_shows_its_place_and_refuses_actions(
    paced_start: tuple[LocalStack, BotTournament],
) -> None:
    stack, run = paced_start
    seat = next(iter(run.bots.values()))  # registration order: the first sits at R1-1
    last = list(run.bots.values())[-1]  # and the last at R1-5, the third queued
    base = f"/tournaments/{run.tournament}"

    playing = run.call("GET", f"{base}/tables/R1-1").body
    assert playing["status"] == "playing" and playing["queue"] is None
    queued = run.call("GET", f"{base}/tables/R1-5").body
    assert queued["status"] == "queued"
    assert queued["deadline"] is None
    assert queued["queue"]["place"] == 3
    assert queued["queue"]["expected_start"] == int(NOW + 3 / BUDGET * stack.settings.table_seconds)
    assert queued["view"]["to_act"] is not None  # the seating, as it will start
    me = run.call("GET", f"{base}/me", token=last.token).body
    assert me["table"] == "R1-5" and me["queue"] == queued["queue"]
    assert run.call("GET", f"{base}/me", token=seat.token).body["queue"] is None
    mine = run.call("GET", f"{base}/tables/R1-5/me", token=last.token).body
    assert mine["status"] == "queued"

    before = items(stack)
    refused = run.call(
        "POST",
        f"{base}/tables/R1-5/actions",
        {"version": 0, "action": {"kind": "throw"}},
        token=last.token,
    )
    assert refused.status == 409
    assert refused.body["code"] == "table_queued"
    assert "queued" in refused.body["message"]
    assert items(stack) == before, "a refused action writes nothing"
    assert not stack.delivery.schedules.pending() or all(
        "R1-5" not in name for name in stack.delivery.schedules.pending()
    )


class Counting:
    """A DynamoDB client that counts the calls made through it."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.client, name)
        if not callable(method) or name.startswith("_") or name == "exceptions":
            return method

        def counted(**kwargs: Any) -> Any:
            self.calls[name] += 1
            return method(**kwargs)

        return counted


def test_me_at_a_table_in_play_reads_the_tournament_and_the_player_only(
    paced_start: tuple[LocalStack, BotTournament],
) -> None:
    stack, run = paced_start
    seat = next(iter(run.bots.values()))  # at R1-1, in play
    last = list(run.bots.values())[-1]  # at R1-5, the third queued
    base = f"/tournaments/{run.tournament}"
    client = Counting(stack.dynamodb)
    use_services(
        build_services(stack.settings, client=client, dice=PlaceSeededDice("x"), clock=lambda: NOW)
    )

    def me(token: str) -> tuple[dict[str, Any], dict[str, int]]:
        client.calls.clear()
        answer = run.call("GET", f"{base}/me", token=token)
        assert answer.status == 200
        return answer.body, dict(client.calls)

    first, first_calls = me(seat.token)
    assert first["table"] == "R1-1" and first["queue"] is None
    assert first_calls == {"get_item": 3}, "the tournament, the player, whether R1-1 waits"
    for _ in range(3):
        again, calls = me(seat.token)
        assert again == first
        assert calls == {"get_item": 2}, "a table seen in play never waits again"

    queued, queued_calls = me(last.token)
    assert queued["table"] == "R1-5" and queued["queue"]["place"] == 3
    assert queued_calls == {"get_item": 4}, "and the capacity item, for its place"
    for _ in range(2):
        still, calls = me(last.token)
        assert still == queued, "a queued table is read again: its place moves"
        assert calls == {"get_item": 3}, "the capacity item is read every few seconds"
    use_services(stack.api)


def capacity_of(stack: LocalStack) -> CapacityStore:
    return Stores.over(stack.dynamodb, stack.settings.table_name, BUDGET).capacity


def test_a_finished_table_delivered_twice_frees_one_slot(
    paced_start: tuple[LocalStack, BotTournament],
) -> None:
    stack, run = paced_start
    capacity = capacity_of(stack)
    assert capacity.capacity().in_play == in_play(stack) == BUDGET
    assert capacity.capacity().queued == 3

    assert capacity.release(run.tournament, "R1-1")
    assert not capacity.release(run.tournament, "R1-1"), "a second release frees nothing"
    assert capacity.capacity().in_play == BUDGET - 1


def test_the_sweeper_activates_what_a_crash_left_queued(
    paced_start: tuple[LocalStack, BotTournament],
) -> None:
    stack, run = paced_start
    capacity = capacity_of(stack)
    # a slot freed, and the consumer gone before it activated the queue's head
    assert capacity.release(run.tournament, "R1-1")
    assert capacity.queued_table(run.tournament, "R1-3") is not None

    stores = Stores.over(stack.dynamodb, stack.settings.table_name, BUDGET)
    sweeper = DeadlineSweeper(
        stores.deadlines,
        stores.tables,
        stack_turns(stack),
        lambda: NOW + 30,
        capacity=stores.capacity,
    )
    report = sweeper.sweep()

    assert report.activated == 1
    assert capacity.queued_table(run.tournament, "R1-3") is None
    table = stores.tables.get_table(run.tournament, "R1-3")
    assert table is not None and table.slot == "held"
    assert table.deadline == table.due_at == NOW + 30 + 30, "its deadline runs from now"
    assert capacity.capacity().in_play == BUDGET
    assert capacity.capacity().queued == 2
    assert capacity.queued_table(run.tournament, "R1-4") is not None, "FIFO: R1-4 waits"
    stack.delivery.settle()
    seated = {e["detail"]["table"] for e in stack.observed() if e["detail-type"] == "TableSeated"}
    assert "R1-3" in seated, "an activated table is seated for everyone downstream"


def stack_turns(stack: LocalStack) -> Any:
    from infra.bootstrap import build_services  # noqa: PLC0415
    from infra.dice import PlaceSeededDice  # noqa: PLC0415

    return build_services(
        stack.settings, client=stack.dynamodb, dice=PlaceSeededDice("x"), clock=lambda: NOW
    ).turns


def test_a_cancelled_tournament_frees_its_slots_and_leaves_the_queue(
    paced_start: tuple[LocalStack, BotTournament],
) -> None:
    stack, run = paced_start
    capacity = capacity_of(stack)
    assert (capacity.capacity().in_play, capacity.capacity().queued) == (BUDGET, 3)

    cancel = run.call("POST", f"/tournaments/{run.tournament}/cancel", token=run.organizer)
    assert cancel.status == 202
    stack.delivery.settle()

    assert (capacity.capacity().in_play, capacity.capacity().queued) == (0, 0)
    assert not [i for i in items(stack) if i["pk"]["S"] == QUEUE_PK]
    status = run.call("GET", f"/tournaments/{run.tournament}").body
    assert status["status"] == "cancelled"
    waiting = run.call("GET", f"/tournaments/{run.tournament}/tables/R1-5").body
    assert waiting["status"] == "cancelled" and waiting["queue"] is None
    stopped = run.call("GET", f"/tournaments/{run.tournament}/tables/R1-1").body
    assert stopped["status"] == "cancelled"
