"""The capacity model's counts are the served stack's: a 300-player bot tournament, every
player on a WebSocket, is counted per AWS operation (local/operations.py) and compared
with what the calibration file (`make calibrate`, another run with other dice) predicts
for it from the players and the actions its tables took (docs/capacity.md)."""

from __future__ import annotations

from suite_dice import suite_seed

from cli.calibrate import counted_alone, play_counted
from cli.serve import serving_in_background
from core.bracket import BracketPlan
from core.capacity.calibration import ACTION_ROUTE, Calibration, calibrate, played_seats

PLAYERS = 300
AGREEMENT = 0.05
ENOUGH = 30  # an operation counted fewer times is too rare to compare in shares
# driven by the clock, not by the tournament: the bots' looks for new tables and for the
# end, and the deadline sweeper's queries (once a minute)
BY_THE_CLOCK = frozenset(
    {
        "http:GET /tournaments/{}/rounds/{}",
        "http:GET /tournaments/{}",
        "dynamodb:Query",
    }
)


def test_the_model_predicts_every_operation_of_a_300_player_tournament() -> None:
    seed = suite_seed("capacity")
    with counted_alone(), serving_in_background(0, "--dice-seed", seed) as url:
        run = play_counted(url, PLAYERS)
    model = Calibration.load()
    counted = {
        key: n - run["before"]["calls"].get(key, 0)
        for key, n in run["finished"]["calls"].items()
        if not key.startswith("local-") and key not in {"lambda:SweeperFunction", *BY_THE_CLOCK}
    }
    actions = counted[ACTION_ROUTE]
    predicted = model.counts(PLAYERS, actions)
    compared = {
        key: (predicted.get(key, 0.0), float(n))
        for key, n in counted.items()
        if max(n, predicted.get(key, 0.0)) >= ENOUGH
    }
    assert {"scheduler:CreateSchedule", "apigateway:PostToConnection"} <= set(compared)
    apart = {
        key: f"predicted {p:.0f}, counted {n:.0f}"
        for key, (p, n) in compared.items()
        if abs(p - n) > AGREEMENT * max(n, p)
    }
    assert not apart, apart
    # and the tables' length itself: this run's actions per seat against the model's
    seats = played_seats(BracketPlan.build(PLAYERS, 6, 2))[1]
    assert abs(actions / seats - model.data["actions_per_seat"]) < 0.15 * actions / seats
    # one turn, one schedule created and one deleted (infra/outbox/timers.py)
    mine = calibrate(run)
    assert (
        mine["per_action"]["scheduler:CreateSchedule"]
        == mine["per_action"]["scheduler:DeleteSchedule"]
    )
