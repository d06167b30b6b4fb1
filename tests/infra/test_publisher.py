"""Item changes to domain events: each event once, from images the real writers make.

The images are built by the same code that writes the items (`infra.store.table_item`,
`infra.store.tournament_items`, and the attributes `ProgressStore.report_finished` and
`finish` set), so a change in an item's layout shows up here. A repeated write, where old
and new image say the same, must publish nothing.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from core.match import Move, Seating
from core.outcome import Outcome
from core.registry import get_game
from infra.outbox.events import (
    EVENT_TYPES,
    SOURCE,
    DomainEvent,
    PlacementDetail,
    PlayerEliminated,
    RoundCompleted,
    StandingDetail,
    TableFinished,
    TableSeated,
    TournamentFinished,
)
from infra.outbox.publisher import (
    EventPublisher,
    PublishFailed,
    StreamChange,
    change_from_record,
    events_of,
)
from infra.store.table_item import TableRecord, bye_table, to_item
from infra.store.tournament_items import PlayerExit, PlayerRecord, Status, TournamentRecord

T = "t-abc234"
EXPIRES = 1_900_000_000
AT = 1_800_000_000.0
SEATS = ("p-anna", "p-ben", "p-cem", "p-dora")
NAMES = {"p-anna": "Anna", "p-ben": "Ben", "p-cem": "Cem", "p-dora": "Dörte Ünal"}


def played(seed: int, seats: tuple[str, ...] = SEATS) -> tuple[Seating, list[Move], Outcome]:
    """A real Mäxchen table played to its end with seeded dice and random choices."""
    game = get_game("maexchen")
    seating = Seating("maexchen", seats, {"penalty_limit": 2}, 2)
    state, _ = game.seat(seating.seats, seating.options, seating.survivors)
    rng, moves = random.Random(seed), []
    while not game.is_over(state):
        action = rng.choice(game.legal_actions(state))
        dice = tuple(rng.randint(1, 6) for _ in range(game.dice_needed(state, action)))
        state, _ = game.apply(state, game.to_act(state), action, dice)
        moves.append(Move(action, dice))
    return seating, moves, game.outcome(state)


def table(
    seating: Seating,
    moves: list[Move],
    ranking: tuple[str, ...] = (),
    ref: str = "R2-5",
    *,
    named: bool = True,
) -> dict[str, Any]:
    """The item of table `ref` after `moves` (over when it has a ranking); `named`:
    with the players' names, as tables are seated since names are stored."""
    return to_item(
        TableRecord(
            tournament=T,
            ref=ref,
            seating=seating,
            token_hashes=tuple(f"hash-{n}" for n in range(len(seating.seats))),
            moves=list(moves),
            names=tuple(NAMES[p] for p in seating.seats) if named else (),
            last_keys={0: ("key", len(moves))} if moves else {},
            ranking=ranking,
            expires_at=EXPIRES,
            final=ref == "R3-1",
        )
    )


def insert(new: dict[str, Any]) -> StreamChange:
    return StreamChange("INSERT", None, new, AT)


def modify(old: dict[str, Any], new: dict[str, Any]) -> StreamChange:
    return StreamChange("MODIFY", old, new, AT)


@pytest.fixture(scope="module")
def game_played() -> tuple[Seating, list[Move], Outcome]:
    return played(seed=11)


# --- tables ------------------------------------------------------------------------------


def test_a_seated_table_is_one_table_seated(
    game_played: tuple[Seating, list[Move], Outcome],
) -> None:
    seating, _, _ = game_played
    assert events_of(insert(table(seating, []))) == [
        TableSeated(
            event_id=f"TableSeated:{T}:R2-5",
            tournament=T,
            table="R2-5",
            round=2,
            players=list(SEATS),
            names=["Anna", "Ben", "Cem", "Dörte Ünal"],
            survivors=2,
            final=False,
        )
    ]
    [final] = events_of(insert(table(seating, [], ref="R3-1")))
    assert isinstance(final, TableSeated)
    assert (final.round, final.table, final.final) == (3, "R3-1", True)
    assert final.event_id == f"TableSeated:{T}:R3-1"


@pytest.mark.parametrize("seed", [1, 11, 12345])
def test_the_last_move_is_one_table_finished_with_the_games_outcome(seed: int) -> None:
    seating, moves, outcome = played(seed)
    assert len(moves) > 1
    before = table(seating, moves[:-1])
    after = table(seating, moves, outcome.ranking)
    [event] = events_of(modify(before, after))
    assert event == TableFinished(
        event_id=f"TableFinished:{T}:R2-5",
        tournament=T,
        table="R2-5",
        round=2,
        players=list(SEATS),
        names=["Anna", "Ben", "Cem", "Dörte Ünal"],
        placements=[
            PlacementDetail(player=p.player, name=NAMES[p.player], place=p.place, measure=p.measure)
            for p in outcome.placements
        ],
        measure_name="penalty_points",
        lower_measure_is_better=True,
        survivors=2,
        final=False,
        bye=False,
        version=len(moves),
    )
    assert [p.player for p in event.placements] == list(outcome.ranking)
    assert event.measure_name == outcome.measure_name
    assert event.lower_measure_is_better == outcome.lower_measure_is_better


def test_a_table_seated_before_names_were_stored_names_its_players_by_id(
    game_played: tuple[Seating, list[Move], Outcome],
) -> None:
    seating, moves, outcome = game_played
    [seated] = events_of(insert(table(seating, [], named=False)))
    assert isinstance(seated, TableSeated) and seated.names == list(SEATS)
    old = table(seating, moves[:-1], named=False)
    [finished] = events_of(modify(old, table(seating, moves, outcome.ranking, named=False)))
    assert isinstance(finished, TableFinished)
    assert finished.names == list(SEATS)
    assert [p.name for p in finished.placements] == list(outcome.ranking)


def test_a_repeated_final_write_publishes_nothing(
    game_played: tuple[Seating, list[Move], Outcome],
) -> None:
    seating, moves, outcome = game_played
    over = table(seating, moves, outcome.ranking)
    assert events_of(modify(over, over)) == []


def test_moves_during_play_publish_nothing(
    game_played: tuple[Seating, list[Move], Outcome],
) -> None:
    seating, moves, _ = game_played
    for version in range(len(moves) - 1):
        old, new = table(seating, moves[:version]), table(seating, moves[: version + 1])
        assert events_of(modify(old, new)) == []
        assert events_of(modify(new, new)) == []  # a repeated write


def test_a_bye_is_only_table_finished() -> None:
    item = to_item(bye_table(T, "R3-2", "p-eve", EXPIRES, "maexchen", name="Eve"))
    assert events_of(insert(item)) == [
        TableFinished(
            event_id=f"TableFinished:{T}:R3-2",
            tournament=T,
            table="R3-2",
            round=3,
            players=["p-eve"],
            names=["Eve"],
            placements=[PlacementDetail(player="p-eve", name="Eve", place=1, measure=0)],
            measure_name="none",
            lower_measure_is_better=True,
            survivors=1,
            final=False,
            bye=True,
            version=0,
        )
    ]
    assert events_of(modify(item, item)) == []  # the bye written again


def test_a_removed_item_publishes_nothing(
    game_played: tuple[Seating, list[Move], Outcome],
) -> None:
    seating, moves, outcome = game_played
    over = table(seating, moves, outcome.ranking)
    assert events_of(StreamChange("REMOVE", over, None, AT)) == []
    assert events_of(StreamChange("REMOVE", player_item(ELIMINATED), None, AT)) == []
    assert events_of(StreamChange("REMOVE", finished_tournament(), None, AT)) == []


def test_items_of_other_kinds_publish_nothing() -> None:
    standings = {"pk": {"S": f"T#{T}#STANDINGS"}, "sk": {"S": "C#000000"}}
    assert events_of(insert({**standings, "kind": {"S": "standings"}})) == []
    assert events_of(insert({"pk": {"S": "x"}, "sk": {"S": "y"}})) == []


# --- players -----------------------------------------------------------------------------

ELIMINATED = PlayerExit(round=2, table="R2-5", table_place=3, measure=2, eliminated=True)


def player_item(exit: PlayerExit | None) -> dict[str, Any]:
    return PlayerRecord(
        tournament=T,
        id="p-cem",
        name="Cem",
        token_hash="hash",
        registered_at=1_700_000_000,
        expires_at=EXPIRES,
        table="R2-5",
        table_round=2,
        seed_position=7,
        exit=exit,
    ).to_item()


def test_a_players_exit_is_one_player_eliminated() -> None:
    expected = PlayerEliminated(
        event_id=f"PlayerEliminated:{T}:p-cem",
        tournament=T,
        player="p-cem",
        name="Cem",
        round=2,
        table="R2-5",
        table_place=3,
        measure=2,
    )
    assert events_of(modify(player_item(None), player_item(ELIMINATED))) == [expected]
    assert events_of(insert(player_item(ELIMINATED))) == [expected]


def test_an_exit_written_again_publishes_nothing() -> None:
    item = player_item(ELIMINATED)
    assert events_of(modify(item, item)) == []


def test_the_champions_exit_publishes_nothing() -> None:
    champion = PlayerExit(round=3, table="R3-1", table_place=1, measure=0, eliminated=False)
    assert events_of(modify(player_item(None), player_item(champion))) == []


def test_a_player_moving_on_publishes_nothing() -> None:
    registered = player_item(None)
    seated = {**registered, "table": {"S": "R3-1"}, "table_round": {"N": "3"}}
    assert events_of(insert(registered)) == []
    assert events_of(modify(registered, seated)) == []


# --- rounds ------------------------------------------------------------------------------


def node_item(
    done: list[int], *, children: int, root: bool, tables: int, level: int = 0, node: int = 0
) -> dict[str, Any]:
    """A counting node as `ProgressStore.report_finished` leaves it."""
    item: dict[str, Any] = {
        "pk": {"S": f"T#{T}#ROUND#2#L{level}#N{node}"},
        "sk": {"S": "NODE"},
        "kind": {"S": "round_node"},
        "tournament": {"S": T},
        "round": {"N": "2"},
        "children": {"N": str(children)},
        "root": {"BOOL": root},
        "tables": {"N": str(tables)},
        "expires_at": {"N": str(EXPIRES)},
    }
    if done:
        item["done"] = {"NS": [str(child) for child in done]}
    return item


def test_the_root_reaching_its_children_is_round_completed() -> None:
    old = node_item([0, 2, 3], children=4, root=True, tables=100, level=1)
    new = node_item([0, 2, 3, 1], children=4, root=True, tables=100, level=1)
    assert events_of(modify(old, new)) == [
        RoundCompleted(event_id=f"RoundCompleted:{T}:2", tournament=T, round=2, tables=100)
    ]


def test_a_one_node_round_completes_on_its_first_report() -> None:
    new = node_item([0], children=1, root=True, tables=1)
    [event] = events_of(insert(new))
    assert event == RoundCompleted(
        event_id=f"RoundCompleted:{T}:2", tournament=T, round=2, tables=1
    )


def test_a_root_not_yet_complete_publishes_nothing() -> None:
    old = node_item([0], children=4, root=True, tables=100, level=1)
    new = node_item([0, 3], children=4, root=True, tables=100, level=1)
    assert events_of(insert(old)) == []
    assert events_of(modify(old, new)) == []


def test_a_complete_node_below_the_root_publishes_nothing() -> None:
    old = node_item(list(range(31)), children=32, root=False, tables=100)
    new = node_item(list(range(32)), children=32, root=False, tables=100)
    assert events_of(modify(old, new)) == []
    assert events_of(insert(new)) == []


def test_a_root_complete_before_publishes_nothing() -> None:
    complete = node_item([0, 1, 2, 3], children=4, root=True, tables=100, level=1)
    assert events_of(modify(complete, complete)) == []


# --- tournaments -------------------------------------------------------------------------

TOP = [
    {"place": 1, "player": "p-anna", "round": 3, "table_place": 1, "measure": 0, "name": "Anna"},
    {"place": 2, "player": "p-ben", "round": 3, "table_place": 2, "measure": 1, "name": "Ben"},
    {"place": 3, "player": "p-cem", "round": 2, "table_place": 3, "measure": 2, "name": "Cem"},
]


def tournament(status: str, champion: str = "") -> TournamentRecord:
    return TournamentRecord(
        id=T,
        name="Pub Cup",
        game="maexchen",
        options={"penalty_limit": 2},
        table_size=4,
        advance=2,
        player_limit=100,
        organizer_hash="org",
        created_at=1_700_000_000,
        expires_at=EXPIRES,
        status=status,
        player_count=9,
        seed="seed",
        champion=champion,
        top_standings=TOP if champion else [],
    )


def finished_tournament(top: list[dict[str, Any]] = TOP) -> dict[str, Any]:
    """The tournament item once `ProgressStore.finish` has set status, champion and top.

    `finish` writes `top_standings` as a JSON string; `TournamentRecord.to_item` does not
    write that attribute, so it is added here the way `finish` sets it.
    """
    item = tournament(Status.FINISHED, champion="p-anna").to_item()
    item["top_standings"] = {"S": json.dumps(top, separators=(",", ":"))}
    return item


def test_the_finished_tournament_is_tournament_finished() -> None:
    running = tournament(Status.RUNNING).to_item()
    assert events_of(modify(running, finished_tournament())) == [
        TournamentFinished(
            event_id=f"TournamentFinished:{T}",
            tournament=T,
            champion="p-anna",
            champion_name="Anna",
            players=9,
            top=[StandingDetail(**row) for row in TOP],
            standings_path=f"/tournaments/{T}/standings",
        )
    ]


def test_standings_stored_before_names_were_name_the_players_by_id() -> None:
    running = tournament(Status.RUNNING).to_item()
    unnamed = [{k: v for k, v in row.items() if k != "name"} for row in TOP]
    [event] = events_of(modify(running, finished_tournament(unnamed)))
    assert isinstance(event, TournamentFinished)
    assert event.champion_name == "p-anna"
    assert [row.name for row in event.top] == ["p-anna", "p-ben", "p-cem"]


def test_a_finished_tournament_written_again_publishes_nothing() -> None:
    finished = finished_tournament()
    assert events_of(modify(finished, finished)) == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (Status.DRAFT, Status.OPEN),
        (Status.OPEN, Status.CLOSED),
        (Status.CLOSED, Status.STARTING),
        (Status.STARTING, Status.RUNNING),
        (Status.RUNNING, Status.RUNNING),
    ],
)
def test_other_tournament_changes_publish_nothing(before: str, after: str) -> None:
    old, new = tournament(before).to_item(), tournament(after).to_item()
    assert events_of(modify(old, new)) == []
    assert events_of(insert(tournament(Status.DRAFT).to_item())) == []


# --- the stream record -------------------------------------------------------------------


def test_a_lambda_stream_record_becomes_a_change(
    game_played: tuple[Seating, list[Move], Outcome],
) -> None:
    seating, moves, outcome = game_played
    old, new = table(seating, moves[:-1]), table(seating, moves, outcome.ranking)
    record = {
        "eventID": "c81e728d9d4c2f636f067f89cc14862c",
        "eventName": "MODIFY",
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "eu-central-1",
        "dynamodb": {
            "ApproximateCreationDateTime": 1_800_000_123,
            "Keys": {"pk": new["pk"], "sk": new["sk"]},
            "NewImage": new,
            "OldImage": old,
            "SequenceNumber": "111",
            "SizeBytes": 26,
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        },
        "eventSourceARN": "arn:aws:dynamodb:eu-central-1:123456789012:table/k/stream/x",
    }
    change = change_from_record(record)
    assert change == StreamChange("MODIFY", old, new, 1_800_000_123.0)
    assert isinstance(change.at, float)
    [event] = events_of(change)
    assert isinstance(event, TableFinished)

    inserted = {"eventName": "INSERT", "dynamodb": {"NewImage": new}}
    assert change_from_record(inserted) == StreamChange("INSERT", None, new, 0.0)
    removed = {"eventName": "REMOVE", "dynamodb": {"OldImage": old, "Keys": {}}}
    assert change_from_record(removed) == StreamChange("REMOVE", old, None, 0.0)
    assert events_of(change_from_record(removed)) == []


# --- the bus -----------------------------------------------------------------------------


class FakeEvents:
    """An EventBridge client that records `put_events` and answers as told."""

    def __init__(self, failing: frozenset[int] = frozenset()) -> None:
        self.calls: list[list[dict[str, Any]]] = []
        self.failing = failing  # numbers of the calls whose first entry fails

    def put_events(self, Entries: list[dict[str, Any]]) -> dict[str, Any]:  # noqa: N803
        self.calls.append(Entries)
        if len(self.calls) - 1 in self.failing:
            answers: list[dict[str, Any]] = [
                {"ErrorCode": "InternalFailure", "ErrorMessage": "try again"}
            ] + [{"EventId": f"id-{n}"} for n in range(1, len(Entries))]
            return {"FailedEntryCount": 1, "Entries": answers}
        return {"FailedEntryCount": 0, "Entries": [{"EventId": "x"} for _ in Entries]}


def some_events(count: int) -> list[DomainEvent]:
    kinds: list[DomainEvent] = []
    for n in range(count):
        if n % 3 == 0:
            kinds.append(
                RoundCompleted(
                    event_id=f"RoundCompleted:{T}:{n + 1}", tournament=T, round=n + 1, tables=n + 1
                )
            )
        elif n % 3 == 1:
            kinds.append(
                PlayerEliminated(
                    event_id=f"PlayerEliminated:{T}:p-{n}",
                    tournament=T,
                    player=f"p-{n}",
                    name=f"Näme {n}",
                    round=1,
                    table="R1-1",
                    table_place=2,
                    measure=-3,
                )
            )
        else:
            kinds.append(
                TableSeated(
                    event_id=f"TableSeated:{T}:R1-{n}",
                    tournament=T,
                    table=f"R1-{n}",
                    round=1,
                    players=["p-a", "p-b"],
                    names=["A", "B"],
                    survivors=1,
                    final=False,
                )
            )
    return kinds


@pytest.mark.parametrize("count", [0, 1, 10, 11, 25])
def test_events_go_on_the_bus_ten_to_a_call(count: int) -> None:
    client = FakeEvents()
    events = some_events(count)
    EventPublisher(client, "the-bus").publish(events)
    assert [len(call) for call in client.calls] == [
        min(10, count - start) for start in range(0, count, 10)
    ]
    entries = [entry for call in client.calls for entry in call]
    by_name = {kind.__name__: kind for kind in EVENT_TYPES}
    assert len(entries) == count
    for entry, event in zip(entries, events, strict=True):
        assert set(entry) == {"Source", "DetailType", "Detail", "EventBusName"}
        assert entry["Source"] == SOURCE == "knobelcup"
        assert entry["EventBusName"] == "the-bus"
        assert entry["DetailType"] == type(event).__name__
        assert by_name[entry["DetailType"]].model_validate_json(entry["Detail"]) == event


def test_a_finished_table_goes_on_the_bus_as_it_was_read(
    game_played: tuple[Seating, list[Move], Outcome],
) -> None:
    seating, moves, outcome = game_played
    events = events_of(modify(table(seating, moves[:-1]), table(seating, moves, outcome.ranking)))
    client = FakeEvents()
    EventPublisher(client, "bus").publish(events)
    [[entry]] = client.calls
    assert entry["DetailType"] == "TableFinished"
    assert TableFinished.model_validate_json(entry["Detail"]) == events[0]
    assert json.loads(entry["Detail"])["event_id"] == f"TableFinished:{T}:R2-5"


def test_a_refused_entry_fails_the_publish() -> None:
    client = FakeEvents(failing=frozenset({1}))
    with pytest.raises(PublishFailed, match="InternalFailure"):
        EventPublisher(client, "bus").publish(some_events(15))
    assert [len(call) for call in client.calls] == [10, 5]

    first = FakeEvents(failing=frozenset({0}))
    with pytest.raises(PublishFailed, match="1 of 10"):
        EventPublisher(first, "bus").publish(some_events(12))
    assert [len(call) for call in first.calls] == [10]  # stops at the refused chunk
