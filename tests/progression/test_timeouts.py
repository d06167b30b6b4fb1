"""Turn deadlines: a late or repeated deadline changes nothing (RULES.md §4). A whole
tournament with absent players is in test_tournaments.py."""

from __future__ import annotations

from tournament_kit import StackFactory, bot_tournament

from functions.timeout.app import lambda_handler as timeout_handler
from infra.local.lambda_events import LocalContext


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
