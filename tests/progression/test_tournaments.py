"""Tournaments that run themselves: bots act over HTTP, every asynchronous hop runs
through the real handlers (stream → publisher → bus → queue → progression consumer;
due schedule → timeout handler), and the tournament reaches its champion."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from tournament_kit import StackFactory, bot_tournament

from core.bracket import CURRENT_RULE, FEEDER_GROUPS, BracketPlan, TableRef
from core.bracket.completion import BRANCHING
from local.bots import BotTournament, Strategy, any_legal_action, stop_when_allowed
from local.stack import LocalStack
from local.write_counter import WriteCounter

PLAYERS = 300


def distinct(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Events by id: subscribers drop copies (delivery is at least once)."""
    return {e["detail"]["event_id"]: e for e in events}


def assert_tournament_complete(
    run: BotTournament, final: dict[str, Any], players: int, rule: int = CURRENT_RULE
) -> None:
    """The champion, standings, /me and the events all tell the same finished story."""
    assert final["status"] == "finished"
    standings = run.standings()
    assert [row["place"] for row in standings] == list(range(1, players + 1))
    assert sorted(row["player"] for row in standings) == sorted(b.name for b in run.bots.values())
    champion = run.bots[final["champion"]]
    assert standings[0]["player"] == champion.name
    assert final["standings"][0]["player"] == final["champion"]
    # `standings()` puts the bots' names for the ids: the rows' own names must match
    assert all(row["name"] == row["player"] for row in standings)
    assert final["champion_name"] == champion.name
    assert all(row["name"] == run.bots[row["player"]].name for row in final["standings"])
    rounds = [row["round"] for row in standings]
    assert rounds == sorted(rounds, reverse=True), "a later round reached ranks first"

    events = distinct(run.events)
    types = Counter(e["detail-type"] for e in events.values())
    plan = BracketPlan.build(players, final["table_size"], final["advance"], rule)
    tables = sum(plan.tables_in(r) for r in range(1, plan.rounds + 1))
    byes = sum(
        plan.is_bye(TableRef(r, i))
        for r in range(1, plan.rounds + 1)
        for i in range(plan.tables_in(r))
    )
    assert types["TableFinished"] == tables
    assert types["TableSeated"] == tables - byes
    assert types["PlayerEliminated"] == players - 1
    assert types["RoundCompleted"] == plan.rounds
    assert types["TournamentFinished"] == 1
    eliminated = {
        e["detail"]["player"] for e in events.values() if e["detail-type"] == "PlayerEliminated"
    }
    assert final["champion"] not in eliminated
    assert_events_name_the_players(run, list(events.values()))

    for bot in [*list(run.bots.values())[:5], champion]:
        me = run.call("GET", f"/tournaments/{run.tournament}/me", token=bot.token).body
        place = next(row["place"] for row in standings if row["player"] == bot.name)
        assert me["place"] == place
        assert me["eliminated"] == (bot is not champion)


def assert_events_name_the_players(run: BotTournament, events: list[dict[str, Any]]) -> None:
    """Every player an event names by id, it names by display name too."""
    name = {bot.player_id: bot.name for bot in run.bots.values()}
    for event in events:
        detail = event["detail"]
        if "players" in detail and isinstance(detail["players"], list):
            assert detail["names"] == [name[p] for p in detail["players"]], detail
        for row in [*detail.get("placements", []), *detail.get("top", [])]:
            assert row["name"] == name[row["player"]], detail
        if "player" in detail:
            assert detail["name"] == name[detail["player"]], detail
        if "champion" in detail:
            assert detail["champion_name"] == name[detail["champion"]], detail


@pytest.mark.parametrize(
    ("game", "absent_share", "strategy"),
    [
        ("maexchen", 0, any_legal_action),
        # a tenth never act: only their turn deadlines move their tables on
        ("mariechen", 10, any_legal_action),
        ("zweiundvierzig", 0, stop_when_allowed),  # random 42 tables take half as long again
    ],
    ids=["maexchen", "mariechen-with-absent-players", "zweiundvierzig"],
)
def test_a_tournament_runs_from_registration_to_champion(
    local_stack: StackFactory, game: str, absent_share: int, strategy: Strategy
) -> None:
    writes = WriteCounter()
    stack = local_stack(writes=writes)
    run = bot_tournament(stack, strategy=strategy)
    run.create(game, table_size=6, advance=2, turn_timeout_seconds=30)
    names = [f"bot {n}" for n in range(PLAYERS)]
    absent = names[:: 100 // absent_share] if absent_share else []
    run.register(names, absent=absent)
    run.start()
    final = run.run()

    assert_tournament_complete(run, final, PLAYERS)
    fired = stack.delivery.schedules.fired
    assert (fired > 0) == bool(absent), "deadlines fire only for players who do not act"
    assert not stack.delivery.schedules.pending(), "every deadline is fired or deleted"
    if absent:
        assert_absent_players_were_timed_out(run)
    plan = BracketPlan.build(PLAYERS, 6, 2)
    kinds = writes.kinds()
    # no progression item hears from every table of a round
    assert kinds["round node"][1] <= BRANCHING < plan.tables_in(1)
    assert kinds["arrivals"][1] <= 6
    # registered, seated in round 1, moved on each later round, exited
    assert kinds["player"][1] <= 1 + 1 + (plan.rounds - 1) + 1
    assert not items_without_expiry(stack), "every item goes with the tournament (TTL)"


def items_without_expiry(stack: LocalStack) -> Counter[str]:
    """How many items of each kind lack `expires_at`, the table's TTL attribute."""
    lacking: Counter[str] = Counter()
    pages = stack.dynamodb.get_paginator("scan").paginate(TableName=stack.settings.table_name)
    for page in pages:
        for item in page["Items"]:
            if "expires_at" not in item:
                lacking[item.get("kind", {}).get("S", item["sk"]["S"])] += 1
    return lacking


def assert_absent_players_were_timed_out(run: BotTournament) -> None:
    """Every round-1 table with an absent player logged timeouts (docs/rules.md §4)."""
    listing = run.call("GET", f"/tournaments/{run.tournament}/rounds/1").body["tables"]
    absent = {b.player_id for b in run.bots.values() if not b.present}
    with_absent = [t for t in listing if absent & set(t["players"])]
    assert with_absent
    for table in with_absent:
        log = run.call("GET", f"/tournaments/{run.tournament}/tables/{table['table']}/log")
        assert log.body["complete"]
        actions = [r["action"] for r in log.body["records"] if r["action"] is not None]
        assert {"kind": "timeout"} in actions


def forget_bracket_rule(stack: LocalStack, tournament: str, rule: int | None) -> None:
    """Make the tournament's item what the code of 2026-12-01 stored (no `bracket_rule`),
    or give it `rule`: the code reading it afterwards is the upgraded one."""
    key = {"pk": {"S": f"T#{tournament}"}, "sk": {"S": "META"}}
    if rule is None:
        update: dict[str, Any] = {"UpdateExpression": "REMOVE bracket_rule"}
    else:
        update = {
            "UpdateExpression": "SET bracket_rule = :rule",
            "ExpressionAttributeValues": {":rule": {"N": str(rule)}},
        }
    stack.dynamodb.update_item(TableName=stack.settings.table_name, Key=key, **update)


@pytest.mark.parametrize("stored_rule", [None, FEEDER_GROUPS], ids=["no-rule", "rule-1"])
def test_a_tournament_started_under_the_old_rule_finishes_under_it_after_the_upgrade(
    local_stack: StackFactory, stored_rule: int | None
) -> None:
    # docs/rules.md §5.11: 5 players at tables of 2 under the rule of 2026-12-01: round 1
    # is 2, 2 and a bye; round 2 is 2 and a bye (under rule 2 it would be 2 and 3 byes)
    plan = BracketPlan.build(5, 2, 1, FEEDER_GROUPS)
    assert plan.is_bye(TableRef(1, 2)) and plan.is_bye(TableRef(2, 1))
    assert BracketPlan.build(5, 2, 1).table_sizes(1) == (2, 1, 1, 1)
    stack = local_stack()
    run = bot_tournament(stack)
    run.create("maexchen", table_size=2, advance=1)
    forget_bracket_rule(stack, run.tournament, stored_rule)  # created by the old code
    run.register([f"bot {n}" for n in range(5)])
    run.start(in_registration_order=True)
    forget_bracket_rule(stack, run.tournament, stored_rule)  # the start wrote none either
    final = run.run()

    assert_tournament_complete(run, final, 5, FEEDER_GROUPS)
    byes = [
        e["detail"]
        for e in distinct(run.events).values()
        if e["detail-type"] == "TableFinished" and e["detail"]["bye"]
    ]
    assert sorted(b["table"] for b in byes) == ["R1-3", "R2-2"]
    assert all(len(b["placements"]) == 1 and b["version"] == 0 for b in byes)
    listing = run.call("GET", f"/tournaments/{run.tournament}/rounds/2").body["tables"]
    bye = next(t for t in listing if t["table"] == "R2-2")
    assert bye["over"] and bye["ranking"] == bye["players"]
    assert bye["names"] == [run.bots[bye["players"][0]].name]
    refused = run.call("GET", f"/tournaments/{run.tournament}/tables/R2-2")
    assert refused.status == 409 and refused.body["rule"] == "rules §5.7 bye"
    stored = stack.dynamodb.get_item(
        TableName=stack.settings.table_name,
        Key={"pk": {"S": f"T#{run.tournament}"}, "sk": {"S": "META"}},
    )["Item"]
    assert stored.get("bracket_rule") == (None if stored_rule is None else {"N": "1"})


def test_byes_only_in_round_1_of_tables_of_2(local_stack: StackFactory) -> None:
    # rule 2: 5 players at tables of 2 play a table of 2 beside 3 byes, then 2 tables of 2
    stack = local_stack()
    run = bot_tournament(stack)
    run.create("maexchen", table_size=2, advance=1)
    run.register([f"bot {n}" for n in range(5)])
    run.start(in_registration_order=True)
    final = run.run()

    assert_tournament_complete(run, final, 5)
    byes = [
        e["detail"]
        for e in distinct(run.events).values()
        if e["detail-type"] == "TableFinished" and e["detail"]["bye"]
    ]
    assert sorted(b["table"] for b in byes) == ["R1-2", "R1-3", "R1-4"]
    listing = run.call("GET", f"/tournaments/{run.tournament}/rounds/2").body["tables"]
    assert [len(t["players"]) for t in listing] == [2, 2]
