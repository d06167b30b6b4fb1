"""Turn deadlines: a late or repeated deadline changes nothing (docs/rules.md §4). A whole
tournament with absent players is in test_tournaments.py."""

from __future__ import annotations

from typing import Any

from tournament_kit import StackFactory, bot_tournament

from functions.timeout.app import lambda_handler as timeout_handler
from local.lambda_events import LocalContext


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


def test_one_deadline_per_turn_and_a_timeout_only_for_its_turn(
    local_stack: StackFactory,
) -> None:
    """A Mäxchen player who throws and then announces keeps the one deadline their turn
    began with; the next player gets a new one; a deadline times out only its own turn,
    also when the player has thrown and then stalled."""
    stack = local_stack()
    run = bot_tournament(stack)
    run.create("maexchen", table_size=4, advance=1, turn_timeout_seconds=30)
    run.register([f"bot {n}" for n in range(4)], absent=[f"bot {n}" for n in range(4)])
    run.start()
    stack.delivery.settle()
    table = f"/tournaments/{run.tournament}/tables/R1-1"

    def act(kind: str) -> dict[str, Any]:
        """The player to act takes their first legal action of `kind`; their view after."""
        to_act = run.call("GET", table).body["view"]["to_act"]
        token = run.bots[to_act].token
        view = run.call("GET", table + "/me", token=token).body["view"]
        [action, *_] = [a for a in view["legal_actions"] if a["kind"] == kind]
        answer = run.call(
            "POST", table + "/actions", {"version": view["version"], "action": action}, token=token
        )
        assert answer.status == 200, answer.raw
        view = answer.body["view"]
        assert isinstance(view, dict)
        return view

    def pending() -> dict[str, dict[str, Any]]:
        stack.delivery.settle()
        return {name: payload for name, (_, payload) in stack.delivery.schedules.pending().items()}

    def fire(payload: dict[str, Any]) -> bool:
        return bool(timeout_handler(payload, LocalContext())["applied"])

    [(first_name, first)] = pending().items()
    anna = run.call("GET", table).body["view"]["to_act"]
    assert first == {"tournament": run.tournament, "table": "R1-1", "version": 0, "player": anna}

    thrown = act("throw")
    assert (thrown["version"], thrown["to_act"]) == (1, anna)
    assert pending() == {first_name: first}, "the throw keeps the turn's one deadline"

    announced = act("announce")
    [(second_name, second)] = pending().items()
    assert second_name != first_name, "the next player's turn has a deadline of its own"
    assert second == {**first, "version": 2, "player": announced["to_act"]}
    assert announced["to_act"] != anna
    assert fire(first) is False, "anna's turn is over: her deadline does nothing"

    act("throw")  # the next player throws, then stalls
    assert pending() == {second_name: second}
    assert fire({**second, "player": anna}) is False, "a deadline names the player it is for"
    assert fire(second) is True, "the turn's deadline times out a player who threw and stalled"
    assert run.call("GET", table).body["view"]["version"] == 4
    assert fire(second) is False, "a timeout ends the turn: a repeated firing does nothing"
    [(third_name, third)] = pending().items()
    assert third["version"] == 4 and third_name not in (first_name, second_name)
