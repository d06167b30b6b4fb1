"""Work lost for good, per game: a twentieth of the `TableFinished` messages is deleted
unread and a twentieth of the deadline invocations never runs. The sweeper (time passes
on a manual clock) times out the tables whose deadline was lost; a lost finish stalls
the tournament, the bots find that nothing can move, and the organizer reconciles until
done, as an operator would. Every tournament still ends as the run without losses did."""

from __future__ import annotations

from typing import Any

import pytest
from suite_dice import suite_seed
from test_reconcile import reconcile
from tournament_kit import NOW, StackFactory, bot_tournament

from local.bots import BotTournament, BotTournamentError, stop_when_allowed
from local.clock import ManualClock
from local.delivery import Deliveries

PLAYERS = 40
NAMES = [f"bot {n}" for n in range(PLAYERS)]
ABSENT = NAMES[::8]  # their deadlines move their tables on
MAX_STALLS = 20


def tournament(
    stack_factory: StackFactory, prefix: str, game: str, options: dict[str, Any], **faults: Any
) -> BotTournament:
    clock = ManualClock(NOW)
    stack = stack_factory(prefix, dice_seed=suite_seed("same dice"), clock=clock, **faults)
    run = bot_tournament(stack, seed="same bots", strategy=stop_when_allowed)
    run.clock = clock
    run.create(game, table_size=6, advance=2, turn_timeout_seconds=30, options=options)
    run.register(NAMES, absent=ABSENT)
    run.start(in_registration_order=True)  # ids differ between runs, names do not
    return run


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("maexchen", {}),
        ("mariechen", {}),
        ("zweiundvierzig", {"sticks": 7}),  # shorter tables: a 42 table is the longest
    ],
    ids=["maexchen", "mariechen", "zweiundvierzig"],
)
def test_lost_finishes_and_deadlines_end_in_the_same_standings(
    local_stack: StackFactory, game: str, options: dict[str, Any]
) -> None:
    calm = tournament(local_stack, "calm", game, options)
    assert calm.run()["status"] == "finished"
    expected = calm.standings()

    # seed 495 loses the first finish and the first deadline firing, then more (seed 19
    # lost the seventh firing first: a Mariechen tournament with today's dice fires fewer)
    losses = Deliveries(seed=495, drop=0.05, lose_deadline=0.05)
    run = tournament(local_stack, "lossy", game, options, deliveries=losses)
    stalls: list[list[str]] = []
    while True:
        try:
            final = run.run()
            break
        except BotTournamentError as stalled:
            assert "nothing can move" in str(stalled)
            assert run.call("GET", f"/tournaments/{run.tournament}").body["status"] == "running"
            pages = reconcile(run, limit=100)
            stalls.append([ref for page in pages for ref in page["repaired"]])
            assert stalls[-1], f"a stall reconcile cannot repair: {stalled}"
            assert len(stalls) <= MAX_STALLS

    assert final["status"] == "finished"
    assert run.standings() == expected
    delivery = run.stack.delivery
    dropped = {e["detail"]["table"] for e in delivery.queue_readers[0].dropped}
    assert dropped and stalls, "finishes were lost, and the tournament stalled on them"
    assert {ref for repaired in stalls for ref in repaired} <= dropped
    assert delivery.schedules.lost, "deadlines were lost"
    assert delivery.sweeps is not None and delivery.sweeps.runs > 0
