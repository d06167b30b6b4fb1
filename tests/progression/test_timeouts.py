"""Turn deadlines: absent players are timed out (RULES.md §4) and a tournament with them
still finishes; a late or repeated deadline changes nothing."""

from __future__ import annotations

from conftest import StackFactory, bot_tournament
from test_tournaments import assert_tournament_complete

from functions.timeout.app import lambda_handler as timeout_handler
from infra.local.lambda_events import LocalContext

PLAYERS = 300


def test_a_tournament_where_a_tenth_never_acts_finishes_through_timeouts(
    local_stack: StackFactory,
) -> None:
    stack = local_stack()
    run = bot_tournament(stack)
    run.create("maexchen", table_size=6, advance=2, turn_timeout_seconds=30)
    names = [f"bot {n}" for n in range(PLAYERS)]
    absent = names[::10]
    run.register(names, absent=absent)
    run.start()
    final = run.run()

    assert_tournament_complete(run, final, PLAYERS)
    assert stack.delivery.schedules.fired > 0
    assert not stack.delivery.schedules.pending(), "every deadline is fired or deleted"
    champion = run.bots[final["champion"]]
    assert champion.present, "a player who never acts cannot win a Mäxchen table"
    # every round-1 table with an absent player moved on through their timeouts
    listing = run.call("GET", f"/tournaments/{run.tournament}/rounds/1").body["tables"]
    absent_ids = {b.player_id for b in run.bots.values() if not b.present}
    with_absent = [t for t in listing if absent_ids & set(t["players"])]
    assert with_absent
    for table in with_absent:
        log = run.call("GET", f"/tournaments/{run.tournament}/tables/{table['table']}/log")
        actions = [r["action"] for r in log.body["records"] if r["action"] is not None]
        assert {"kind": "timeout"} in actions


def test_a_deadline_applies_only_at_the_version_it_was_made_for(
    local_stack: StackFactory,
) -> None:
    stack = local_stack()
    run = bot_tournament(stack)
    run.create("maexchen", table_size=4, advance=1, turn_timeout_seconds=30)
    run.register([f"bot {n}" for n in range(4)], absent=[f"bot {n}" for n in range(4)])
    run.start()
    stack.delivery.settle()
    pending = stack.delivery.schedules.pending()
    assert len(pending) == 1, "the one table has one deadline"
    ((_, deadline),) = pending.values()
    table = f"/tournaments/{run.tournament}/tables/R1-1"

    def fire(payload: dict[str, object]) -> bool:
        return bool(timeout_handler(payload, LocalContext())["applied"])

    assert fire(deadline) is True
    moved = run.call("GET", table).body["view"]
    assert moved["version"] == 1
    assert fire(deadline) is False, "a repeated firing finds another version"
    assert fire({**deadline, "version": 5}) is False, "a deadline for a later version"
    assert run.call("GET", table).body["view"]["version"] == 1

    stack.delivery.settle()  # the timer replaces the old deadline with the new version's
    ((_, following),) = stack.delivery.schedules.pending().values()
    assert following["version"] == 1
