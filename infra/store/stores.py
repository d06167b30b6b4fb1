"""One store of each kind over one DynamoDB client and the single table.

Each store reads and writes its own items only; `infra.bootstrap` builds them together
and hands every service just the ones it uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from infra.store.audit import AuditStore
from infra.store.capacity import CapacityStore
from infra.store.connections import ConnectionStore
from infra.store.deadlines import DeadlineStore
from infra.store.game_tables import GameTableStore
from infra.store.job_store import JobStore
from infra.store.organizer_store import OrganizerStore
from infra.store.players import PlayerStore
from infra.store.progress_store import ProgressStore
from infra.store.socket_tickets import SocketTicketStore
from infra.store.tournaments import TournamentStore


@dataclass(frozen=True, slots=True)
class Stores:
    """The stores of the table `table_name` over the DynamoDB `client`."""

    tournaments: TournamentStore
    players: PlayerStore
    tables: GameTableStore
    progress: ProgressStore
    jobs: JobStore
    organizer: OrganizerStore
    audit: AuditStore
    connections: ConnectionStore
    deadlines: DeadlineStore
    socket_tickets: SocketTicketStore
    capacity: CapacityStore

    @classmethod
    def over(
        cls, client: Any, table_name: str, tables_in_play: int = 0, table_seconds: int = 240
    ) -> Stores:
        """The stores; `tables_in_play` the deployment's budget (0: unpaced)."""
        return cls(
            tournaments=TournamentStore(client, table_name),
            players=PlayerStore(client, table_name),
            tables=GameTableStore(client, table_name),
            progress=ProgressStore(client, table_name),
            jobs=JobStore(client, table_name),
            organizer=OrganizerStore(client, table_name),
            audit=AuditStore(client, table_name),
            connections=ConnectionStore(client, table_name),
            deadlines=DeadlineStore(client, table_name),
            socket_tickets=SocketTicketStore(client, table_name),
            capacity=CapacityStore(client, table_name, tables_in_play, table_seconds),
        )
