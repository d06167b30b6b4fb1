"""From item changes to domain events on the bus: the stream is the outbox.

A table's final write, a seated table, a player's exit, a completed round, a step of a
lifecycle job and the finished tournament are each one item change, committed with the
state itself. The DynamoDB stream keeps every change for 24 hours and hands it to the
publisher until the publisher succeeds, so an event is never lost between the write and
the bus; a publisher that dies after putting an event puts it again, with the same `event_id`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from core.bracket import TableRef
from core.match import replay
from core.registry import get_game
from infra.outbox.events import (
    SOURCE,
    DomainEvent,
    JobStepReady,
    PlacementDetail,
    PlayerEliminated,
    RoundCompleted,
    StandingDetail,
    TableFinished,
    TableSeated,
    TournamentFinished,
)
from infra.store.table_item import TableRecord, from_item
from infra.store.tournament_items import JobState, PlayerRecord, Status, TournamentRecord

_PUT_EVENTS_LIMIT = 10


class StreamChange(NamedTuple):
    """One item change as the stream tells it: images in DynamoDB's attribute format."""

    name: str  # INSERT, MODIFY or REMOVE
    old: dict[str, Any] | None
    new: dict[str, Any] | None
    at: float  # when the change was made, epoch seconds


def change_from_record(record: dict[str, Any]) -> StreamChange:
    """The change a Lambda DynamoDB stream record carries."""
    stream = record["dynamodb"]
    return StreamChange(
        name=record["eventName"],
        old=stream.get("OldImage"),
        new=stream.get("NewImage"),
        at=float(stream.get("ApproximateCreationDateTime", 0)),
    )


class PublishFailed(Exception):
    """EventBridge refused some entries; the whole record is retried."""


def events_of(change: StreamChange) -> list[DomainEvent]:
    """The domain events an item change means, compared with the item before it.

    Comparing old and new images keeps the mapping right when a write is repeated and
    the item did not change (the stream may still carry such a record).
    """
    new, old = change.new, change.old
    if new is None:
        return []
    kind = new.get("kind", {}).get("S")
    if kind == "table":
        return _table_events(old, new)
    if kind == "player":
        return _player_events(old, new)
    if kind == "round_node":
        return _round_events(old, new)
    if kind == "tournament":
        return _tournament_events(old, new)
    return []


def _table_events(old: dict[str, Any] | None, new: dict[str, Any]) -> list[DomainEvent]:
    table = from_item(new)
    ref = TableRef.parse(table.ref)
    events: list[DomainEvent] = []
    if old is None and not table.bye:
        events.append(
            TableSeated(
                event_id=f"TableSeated:{table.tournament}:{table.ref}",
                tournament=table.tournament,
                table=table.ref,
                round=ref.round,
                players=list(table.seating.seats),
                names=list(table.seat_names()),
                survivors=table.seating.survivors,
                final=table.final,
            )
        )
    was_over = old is not None and old.get("status", {}).get("S") != "playing"
    if table.over and not was_over:
        events.append(table_finished_event(table))
    return events


def table_finished_event(table: TableRecord) -> TableFinished:
    """The `TableFinished` a finished table (or a bye) means, the same whenever it is
    made: the publisher makes it from the stream, `infra.services.reconcile` from the
    stored item."""
    ref = TableRef.parse(table.ref)
    if table.bye:
        player = table.ranking[0]
        placements = [
            PlacementDetail(player=player, name=table.name_of(player), place=1, measure=0)
        ]
        measure_name, lower_is_better = "none", True
    else:
        outcome = get_game(table.seating.game).outcome(replay(table.seating, table.moves))
        placements = [
            PlacementDetail(
                player=p.player,
                name=table.name_of(p.player),
                place=p.place,
                measure=p.measure,
                forfeited=p.forfeited,
            )
            for p in outcome.placements
        ]
        measure_name, lower_is_better = outcome.measure_name, outcome.lower_measure_is_better
    return TableFinished(
        event_id=f"TableFinished:{table.tournament}:{table.ref}",
        tournament=table.tournament,
        table=table.ref,
        round=ref.round,
        players=list(table.seating.seats),
        names=list(table.seat_names()),
        placements=placements,
        measure_name=measure_name,
        lower_measure_is_better=lower_is_better,
        survivors=table.seating.survivors,
        final=table.final,
        bye=table.bye,
        version=table.version,
    )


def _player_events(old: dict[str, Any] | None, new: dict[str, Any]) -> list[DomainEvent]:
    player = PlayerRecord.from_item(new)
    exit = player.exit
    if exit is None or not exit.eliminated or (old is not None and "exit_round" in old):
        return []
    return [
        PlayerEliminated(
            event_id=f"PlayerEliminated:{player.tournament}:{player.id}",
            tournament=player.tournament,
            player=player.id,
            name=player.name,
            round=exit.round,
            table=exit.table,
            table_place=exit.table_place,
            measure=exit.measure,
        )
    ]


def _round_events(old: dict[str, Any] | None, new: dict[str, Any]) -> list[DomainEvent]:
    if not new["root"]["BOOL"]:
        return []
    children = int(new["children"]["N"])
    before = len(old["done"]["NS"]) if old is not None and "done" in old else 0
    if before >= children or len(new["done"]["NS"]) < children:
        return []
    tournament, round = new["tournament"]["S"], int(new["round"]["N"])
    return [
        RoundCompleted(
            event_id=f"RoundCompleted:{tournament}:{round}",
            tournament=tournament,
            round=round,
            tables=int(new["tables"]["N"]),
        )
    ]


def _tournament_events(old: dict[str, Any] | None, new: dict[str, Any]) -> list[DomainEvent]:
    tournament = TournamentRecord.from_item(new)
    job = tournament.job
    if job is not None and (old is None or JobState.from_item(old) != job):
        return [_job_step_ready(tournament.id, job)]
    was = old.get("status", {}).get("S") if old is not None else None
    if tournament.status != Status.FINISHED or was == Status.FINISHED:
        return []
    # rows stored before names were: the id stands in
    top = [
        StandingDetail(**{**row, "name": row.get("name") or row["player"]})
        for row in json.loads(new["top_standings"]["S"])
    ]
    return [
        TournamentFinished(
            event_id=f"TournamentFinished:{tournament.id}",
            tournament=tournament.id,
            champion=tournament.champion,
            champion_name=next(
                (row.name for row in top if row.player == tournament.champion),
                tournament.champion,
            ),
            players=tournament.player_count,
            top=top,
            standings_path=f"/tournaments/{tournament.id}/standings",
        )
    ]


def _job_step_ready(tournament: str, job: JobState) -> JobStepReady:
    return JobStepReady(
        event_id=f"JobStepReady:{tournament}:{job.name}:{job.step}",
        tournament=tournament,
        job=job.name,
        step=job.step,
    )


class EventPublisher:
    """Puts domain events on the EventBridge bus, ten to a call."""

    def __init__(self, client: Any, bus: str) -> None:
        self._client = client
        self._bus = bus

    def publish(self, events: Sequence[DomainEvent]) -> None:
        """Put `events`; `PublishFailed` if EventBridge refused any (retry them all: the
        ids let subscribers drop the copies)."""
        for start in range(0, len(events), _PUT_EVENTS_LIMIT):
            chunk = events[start : start + _PUT_EVENTS_LIMIT]
            response = self._client.put_events(
                Entries=[
                    {
                        "Source": SOURCE,
                        "DetailType": event.detail_type,
                        "Detail": event.model_dump_json(),
                        "EventBusName": self._bus,
                    }
                    for event in chunk
                ]
            )
            if response.get("FailedEntryCount", 0):
                failed = [e for e in response["Entries"] if "ErrorCode" in e]
                raise PublishFailed(
                    f"EventBridge refused {len(failed)} of {len(chunk)} events: "
                    f"{failed[0].get('ErrorCode')} {failed[0].get('ErrorMessage')}"
                )
