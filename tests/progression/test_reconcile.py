"""Reconcile (`infra.services.reconcile`) on a local stack, called as an organizer would, through
`POST /tournaments/{id}/reconcile`: what a lost `TableFinished` or a progression that
died on its last steps left undone is done, in any round and after the final; a healthy
or finished tournament is only read."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from tournament_kit import StackFactory, bot_tournament, http

from cli import admin
from cli.main import build_parser
from infra.bootstrap import build_progression
from infra.outbox.publisher import table_finished_event
from infra.store.stores import Stores
from local.bots import BotTournament, BotTournamentError
from local.delivery import Deliveries
from local.faults import CrashingClient, CrashPlan, SimulatedCrash
from local.redrive import InProcessInvoker
from local.stack import LocalStack
from local.write_counter import WriteCounter

LOSE_EVERY_FINISH = Deliveries(drop=1.0)  # every TableFinished message deleted unread


def reconcile(run: BotTournament, limit: int = 2) -> list[dict[str, Any]]:
    """Every page of a reconcile, as the organizer calls it, `limit` tables a page."""
    pages: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        query = f"limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        answer = http(
            "POST", f"/tournaments/{run.tournament}/reconcile", token=run.organizer, query=query
        )
        assert answer.status == 200, answer.body
        pages.append(answer.body)
        cursor = answer.body["next_cursor"]
        if cursor is None:
            return pages


def repaired(pages: list[dict[str, Any]]) -> list[str]:
    return [ref for page in pages for ref in page["repaired"]]


def stall(run: BotTournament) -> None:
    """Play until nothing can move."""
    with pytest.raises(BotTournamentError, match="nothing can move"):
        run.run()


def five_players(stack: LocalStack) -> BotTournament:
    """5 players at tables of 2 (rules §5.5): round 1 is a table of 2 and 3 byes
    (padded to a power of two), round 2 two tables of 2, then the final."""
    run = bot_tournament(stack)
    run.create("maexchen", table_size=2, advance=1)
    run.register([f"bot {n}" for n in range(5)])
    run.start(in_registration_order=True)
    return run


def test_every_lost_finish_is_replayed_round_by_round_to_the_same_standings(
    local_stack: StackFactory,
) -> None:
    calm = five_players(local_stack("calm"))
    calm.run()
    expected = calm.standings()

    writes = WriteCounter()
    stack = local_stack("lossy", deliveries=LOSE_EVERY_FINISH, writes=writes)
    run = five_players(stack)
    stall(run)
    assert http("GET", f"/tournaments/{run.tournament}").body["status"] == "running"
    first = reconcile(run)
    # round 1, its table and its byes: each pair of repairs seats a table of round 2
    assert repaired(first) == ["R1-1", "R1-2", "R1-3", "R1-4"]
    assert sum(page["checked"] for page in first) == 7 and first[-1]["next_cursor"] is None
    assert [page["in_play"] for page in first] == [0, 0, 2, 0]  # R2-1, R2-2: seated by them

    before = sum(writes.by_item.values())
    again = reconcile(run)
    assert repaired(again) == [], "a second run finds nothing left to do"
    assert sum(writes.by_item.values()) == before, "and writes nothing"

    stall(run)  # round 2 played, its finishes lost too
    assert repaired(reconcile(run)) == ["R2-1", "R2-2"]
    stall(run)  # the final played, its finish lost
    assert repaired(reconcile(run)) == ["R3-1"]
    final = run.run()
    assert final["status"] == "finished"
    assert run.standings() == expected
    dropped = stack.delivery.queue_readers[0].dropped
    assert sorted(e["detail"]["table"] for e in dropped) == sorted(
        ["R1-1", "R1-2", "R1-3", "R1-4", "R2-1", "R2-2", "R3-1"]
    )

    before = sum(writes.by_item.values())
    done = reconcile(run)
    assert done == [
        {
            "tournament_id": run.tournament,
            "status": "finished",
            "checked": 0,
            "in_play": 0,
            "repaired": [],
            "job": None,
            "next_cursor": None,
        }
    ]
    assert sum(writes.by_item.values()) == before


def test_a_healthy_tournament_is_only_read(local_stack: StackFactory) -> None:
    writes = WriteCounter()
    stack = local_stack(writes=writes)
    run = bot_tournament(stack)
    run.create("maexchen", table_size=4, advance=2)
    names = [f"bot {n}" for n in range(12)]
    run.register(names, absent=names)  # nobody acts: round 1 waits for its deadlines
    run.start()
    stack.delivery.settle()
    before = sum(writes.by_item.values())

    pages = reconcile(run, limit=100)
    assert pages == reconcile(run, limit=100), "the same answer twice"
    assert sum(writes.by_item.values()) == before
    # 12 players at tables of 4, 2 go on: 3 tables, then 6 players at 2 tables, a final
    assert [(p["checked"], p["in_play"], p["repaired"]) for p in pages] == [(6, 3, [])]


class DiesAt(CrashPlan):
    """Progression dies just before the first write at a site containing `site`."""

    def __init__(self, site: str) -> None:
        super().__init__(seed=0, rate=0)
        self._site = site
        self.died = False

    def decide(self, site: str) -> str | None:
        if self._site in site and not self.died:
            self.died = True
            return "before"
        return None


def four_players_after_round_one(stack: LocalStack) -> BotTournament:
    """4 players at 2 tables of 2 feeding the final; round 1 played, its finishes lost."""
    run = bot_tournament(stack)
    run.create("maexchen", table_size=2, advance=1)
    run.register([f"bot {n}" for n in range(4)])
    run.start(in_registration_order=True)
    stall(run)
    return run


@pytest.mark.parametrize(
    ("dies_before", "what"),
    [
        ("update_item:T/P::ref,:round", "the final seated, its players not moved to it"),
        ("put_item:TABLE/TABLE:", "both arrivals in, the final not seated"),
    ],
    ids=["players-not-moved", "arrivals-complete-table-missing"],
)
def test_a_next_table_half_seated_is_seated_and_its_players_moved(
    local_stack: StackFactory, dies_before: str, what: str
) -> None:
    stack = local_stack(deliveries=LOSE_EVERY_FINISH)
    run = four_players_after_round_one(stack)
    store = Stores.over(stack.dynamodb, stack.settings.table_name)
    plan = DiesAt(dies_before)
    dying = build_progression(
        stack.settings, client=CrashingClient(stack.dynamodb, plan, "progression")
    )
    for ref in ("R1-1", "R1-2"):  # the last feeder's progression dies on its last steps
        table = store.tables.get_table(run.tournament, ref)
        assert table is not None and table.over
        try:
            dying.table_finished(table_finished_event(table))
        except SimulatedCrash:
            assert ref == "R1-2"
    assert plan.died, what
    finalists = [p.id for p in store.players.players(run.tournament) if p.exit is None]
    moved = [p.table for p in store.players.get_players(run.tournament, finalists)]
    assert moved != ["R2-1", "R2-1"]

    assert repaired(reconcile(run)) == ["R1-1"]  # the first feeder's replay seats it
    assert store.tables.get_table(run.tournament, "R2-1") is not None
    moved = [p.table for p in store.players.get_players(run.tournament, finalists)]
    assert moved == ["R2-1", "R2-1"]
    assert repaired(reconcile(run)) == []

    stall(run)  # the final played (the bots find it through /me), its finish lost
    assert repaired(reconcile(run)) == ["R2-1"]
    assert run.run()["status"] == "finished"


def test_only_the_organizer_reconciles_and_a_bad_cursor_is_refused(
    local_stack: StackFactory,
) -> None:
    run = five_players(local_stack())
    path = f"/tournaments/{run.tournament}/reconcile"
    player = next(iter(run.bots.values()))
    assert http("POST", path).status == 401
    assert http("POST", path, token=player.token).status == 403
    assert http("POST", "/tournaments/t-none/reconcile", token=run.organizer).status == 404
    assert http("POST", path, {"cursor": "R9-1"}, token=run.organizer).status == 422
    assert http("POST", path, {"cursor": "table"}, token=run.organizer).status == 422
    answer = http("POST", path, {"cursor": "R2-1"}, token=run.organizer)
    assert answer.status == 200 and answer.body["checked"] == 3  # R2-1, R2-2, R3-1


@pytest.fixture
def english_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    """`admin` speaks the locale's language where `--language` does not decide: the tests
    reading its English lines must not depend on the locale of whoever runs them."""
    for variable in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


def operator(stack: LocalStack) -> admin.Deployment:
    """What `knobelcup admin` reaches of the stack (reconcile needs only its table)."""
    return admin.Deployment(
        boto3.client, {}, InProcessInvoker({}), table_name=stack.settings.table_name
    )


@pytest.mark.usefixtures("english_locale")
def test_admin_reconcile_goes_page_by_page_and_says_what_it_repaired(
    local_stack: StackFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    stack = local_stack(deliveries=LOSE_EVERY_FINISH)
    run = five_players(stack)
    stall(run)
    args = build_parser().parse_args(["admin", "reconcile", run.tournament])
    assert (args.tournament, args.push_job, args.stack) == (run.tournament, False, "knobelcup")
    capsys.readouterr()

    assert admin.reconcile(args, operator(stack)) == 0
    said = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("{")]
    # one page reads its tables once: what its repairs seat is seen by the next run
    assert said == [
        "from the first table: 7 checked, 0 in play, repaired: R1-1 R1-2 R1-3 R1-4",
        f"{run.tournament}: running; 7 tables checked, 0 in play, 4 repaired",
    ]
    unknown = build_parser().parse_args(["admin", "reconcile", "t-none"])
    assert admin.reconcile(unknown, operator(stack)) == 2


@pytest.mark.usefixtures("english_locale")
def test_a_stuck_start_is_reported_and_pushed_to_its_end_on_request(
    local_stack: StackFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    # every step request of the start job lost: round 1 is never seated
    lossy = Deliveries(drop=1.0, droppable=("JobStepReady",))
    stack = local_stack(deliveries=lossy)
    run = bot_tournament(stack)
    run.create("maexchen", table_size=2, advance=1)
    run.register([f"bot {n}" for n in range(5)])
    run.start(in_registration_order=True)
    stack.delivery.settle()
    assert stack.delivery.queue_readers[1].dropped
    page = reconcile(run)[0]
    assert page["status"] == "starting"
    assert page["job"] == {"name": "start", "step": 0, "phase": "seat"}

    capsys.readouterr()
    args = build_parser().parse_args(["admin", "reconcile", run.tournament])
    assert admin.reconcile(args, operator(stack)) == 0
    said = capsys.readouterr().out
    assert "a start job is under way (step 0, seat); if it stopped moving" in said
    assert http("GET", f"/tournaments/{run.tournament}").body["status"] == "starting"

    pushed = build_parser().parse_args(["admin", "reconcile", run.tournament, "--push-job"])
    assert admin.reconcile(pushed, operator(stack)) == 0
    said = capsys.readouterr().out
    assert "start job: 2 steps run here, it is done" in said
    assert "job is under way" not in said
    lossy.drop = 0.0  # the finish job's steps get through
    assert run.run()["status"] == "finished"
