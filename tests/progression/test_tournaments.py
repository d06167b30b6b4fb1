"""Tournaments that run themselves: bots act over HTTP, every asynchronous hop runs
through the real handlers (stream → publisher → bus → queue → progression consumer;
due schedule → timeout handler), and the tournament reaches its champion."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from conftest import StackFactory, bot_tournament

from core.bracket import BracketPlan, TableRef
from core.bracket.completion import BRANCHING
from infra.local.bots import BotTournament
from infra.local.write_counter import WriteCounter

PLAYERS = 300


def distinct(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Events by id: subscribers drop copies (delivery is at least once)."""
    return {e["detail"]["event_id"]: e for e in events}


def assert_tournament_complete(run: BotTournament, final: dict[str, Any], players: int) -> None:
    """The champion, standings, /me and the events all tell the same finished story."""
    assert final["status"] == "finished"
    standings = run.standings()
    assert [row["place"] for row in standings] == list(range(1, players + 1))
    assert sorted(row["player"] for row in standings) == sorted(b.name for b in run.bots.values())
    champion = run.bots[final["champion"]]
    assert standings[0]["player"] == champion.name
    assert final["standings"][0]["player"] == final["champion"]
    rounds = [row["round"] for row in standings]
    assert rounds == sorted(rounds, reverse=True), "a later round reached ranks first"

    events = distinct(run.events)
    types = Counter(e["detail-type"] for e in events.values())
    plan = BracketPlan.build(players, final["table_size"], final["advance"])
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

    for bot in [*list(run.bots.values())[:5], champion]:
        me = run.call("GET", f"/tournaments/{run.tournament}/me", token=bot.token).body
        place = next(row["place"] for row in standings if row["player"] == bot.name)
        assert me["place"] == place
        assert me["eliminated"] == (bot is not champion)


@pytest.mark.parametrize(
    ("game", "options"),
    [("maexchen", {}), ("mariechen", {}), ("zweiundvierzig", {})],
)
def test_a_tournament_runs_from_registration_to_champion(
    local_stack: StackFactory, game: str, options: dict[str, Any]
) -> None:
    writes = WriteCounter()
    stack = local_stack(writes=writes)
    run = bot_tournament(stack)
    run.create(game, table_size=6, advance=2, options=options)
    run.register([f"bot {n}" for n in range(PLAYERS)])
    run.start()
    final = run.run()

    assert_tournament_complete(run, final, PLAYERS)
    assert stack.delivery.schedules.fired == 0
    round_one = BracketPlan.build(PLAYERS, 6, 2).tables_in(1)
    kinds = writes.kinds()
    # no progression item hears from every table of a round
    assert kinds["round node"][1] <= BRANCHING < round_one
    assert kinds["arrivals"][1] <= 6
    assert kinds["player"][1] <= BracketPlan.build(PLAYERS, 6, 2).rounds + 1
