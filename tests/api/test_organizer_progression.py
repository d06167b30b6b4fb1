"""The organizer's doing meets the progression: a table seated while its tournament is
being cancelled is stopped; a player disqualified between tables is seated disqualified."""

from __future__ import annotations

from apiclient import Stack
from suite_dice import suite_seed

from core.actions import Forfeit
from core.dice_proof import prove_table
from core.match import actor
from functions.wiring import services
from infra.bootstrap import build_progression
from infra.dice import SeededDice
from infra.outbox.events import TableFinished
from infra.outbox.publisher import table_finished_event
from infra.services.progression import ProgressionService
from infra.settings import Settings
from infra.store.table_item import TableRecord

NOW = 1_800_000_000.0


def running(stack: Stack) -> tuple[str, str]:
    """8 players at two tables of 4, 2 going on to the final."""
    api = stack.api
    made = api.call("POST", "/tournaments", {"game": "maexchen", "table_size": 4}).body
    tournament, organizer = made["tournament_id"], made["organizer_token"]
    api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    for number in range(8):
        api.call("POST", f"/tournaments/{tournament}/players", {"name": f"p{number}"})
    assert api.call("POST", f"/tournaments/{tournament}/start", token=organizer).status == 202
    return tournament, organizer


def end_by_disqualifying(stack: Stack, tournament: str, organizer: str, ref: str) -> None:
    """Disqualify whoever is to act until two are left: the table is over."""
    for _ in range(2):
        to_act = stack.api.call("GET", f"/tournaments/{tournament}/tables/{ref}").body["view"]
        path = f"/tournaments/{tournament}/players/{to_act['to_act']}/disqualify"
        answer = stack.api.call("POST", path, token=organizer)
        assert answer.body["outcome"] == "forfeited", answer.body
    assert stack.api.call("GET", f"/tournaments/{tournament}/tables/{ref}").body["over"]


def progression(stack: Stack) -> ProgressionService:
    return build_progression(
        Settings.from_env(),
        client=stack.dynamodb,
        clock=lambda: NOW,
        dice=SeededDice(suite_seed("p")),
    )


def finished(tournament: str, ref: str) -> TableFinished:
    table = services().turns._tables.get_table(tournament, ref)
    assert table is not None
    return table_finished_event(table)


def test_a_table_seated_while_the_tournament_is_cancelled_is_stopped(stack: Stack) -> None:
    tournament, organizer = running(stack)
    consumer = progression(stack)
    end_by_disqualifying(stack, tournament, organizer, "R1-1")
    end_by_disqualifying(stack, tournament, organizer, "R1-2")
    consumer.table_finished(finished(tournament, "R1-1"))  # knows the tournament running
    cancelled = stack.api.call("POST", f"/tournaments/{tournament}/cancel", token=organizer)
    assert cancelled.status == 202, cancelled.body
    read = stack.api.call("GET", f"/tournaments/{tournament}").body
    assert read["cancel_progress"]["tables_stopped"] == 0  # nothing in play: no final yet
    consumer.table_finished(finished(tournament, "R1-2"))  # late: seats the final
    final = services().turns._tables.get_table(tournament, "R2-1")
    assert final is not None and final.cancelled and not final.deadline
    later = progression(stack)  # a fresh container leaves the cancelled tournament alone
    later.table_finished(finished(tournament, "R1-2"))


def first_table_over(stack: Stack) -> tuple[str, str, ProgressionService, TableRecord]:
    """A running tournament whose R1-1 is over and reported: the tournament, its
    organizer's token, the progression that heard of R1-1, and R1-1 as stored."""
    tournament, organizer = running(stack)
    consumer = progression(stack)
    end_by_disqualifying(stack, tournament, organizer, "R1-1")
    consumer.table_finished(finished(tournament, "R1-1"))
    table = services().turns._tables.get_table(tournament, "R1-1")
    assert table is not None
    return tournament, organizer, consumer, table


def test_a_player_disqualified_between_tables_is_seated_disqualified(stack: Stack) -> None:
    tournament, organizer, consumer, table = first_table_over(stack)
    going_on = table.ranking[0]
    answer = stack.api.call(
        "POST", f"/tournaments/{tournament}/players/{going_on}/disqualify", token=organizer
    )
    assert (answer.body["outcome"], answer.body["table"]) == ("disqualified", "R1-1")
    end_by_disqualifying(stack, tournament, organizer, "R1-2")
    consumer.table_finished(finished(tournament, "R1-2"))
    final = services().turns._tables.get_table(tournament, "R2-1")
    assert final is not None and final.disqualified == (going_on,)
    # at their first turn, by the turn reaching them or by its deadline, they forfeit
    for _ in range(12):
        if any(isinstance(m.action, Forfeit) for m in final.moves):
            break
        assert services().turns.time_out(tournament, "R2-1", final.version)
        final = services().turns._tables.get_table(tournament, "R2-1")
        assert final is not None
    forfeits = [i for i, m in enumerate(final.moves) if isinstance(m.action, Forfeit)]
    assert [actor(final.seating, final.moves, i) for i in forfeits] == [going_on]


def test_a_table_never_waits_for_a_disqualified_player_to_act(stack: Stack) -> None:
    """Both who went on from R1-1 are disqualified between tables: whichever of them the
    final's first turn falls to forfeits as the final is seated, not at its deadline."""
    tournament, organizer, consumer, first = first_table_over(stack)
    going_on = first.ranking[:2]
    for player in going_on:
        path = f"/tournaments/{tournament}/players/{player}/disqualify"
        assert stack.api.call("POST", path, token=organizer).body["outcome"] == "disqualified"
    end_by_disqualifying(stack, tournament, organizer, "R1-2")
    consumer.table_finished(finished(tournament, "R1-2"))
    final = services().turns._tables.get_table(tournament, "R2-1")
    assert final is not None and set(final.disqualified) == set(going_on)
    view = stack.api.call("GET", f"/tournaments/{tournament}/tables/R2-1").body["view"]
    assert view["to_act"] not in going_on
    forfeited = [actor(final.seating, final.moves, i) for i in range(final.version)]
    assert set(forfeited) <= set(going_on)
    assert all(isinstance(move.action, Forfeit) for move in final.moves)


def test_a_table_ended_by_forfeits_proves_its_dice_and_its_outcome(stack: Stack) -> None:
    """`knobelcup verify` and the watch page replay the log: a forfeit is in it."""
    tournament, _, _, table = first_table_over(stack)
    log = stack.api.call("GET", f"/tournaments/{tournament}/tables/R1-1/log").body
    assert [r["action"]["kind"] for r in log["records"][1:]].count("forfeit") == 2
    proof = prove_table(log)
    assert proof.outcome.ranking == table.ranking
