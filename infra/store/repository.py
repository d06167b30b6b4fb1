"""The tournament's own items: the tournament, its players and its tables, read and
written one method each (the other stores of `infra.store` keep the rest).

Conditional writes carry the invariants: a table is saved only if it is still at the
version it was loaded at; a player registers only while registration is open and below
the limit (counted on shards, `infra.store.registration`). Capacity refusals become
`Throttled` (HTTP 429).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NoReturn

from core.names import name_key
from infra.errors import (
    NameTaken,
    NotFound,
    PlayerLimitReached,
    RegistrationChanged,
    RegistrationClosed,
    StaleVersion,
    WrongStatus,
)
from infra.store.audit import Audited, AuditEntry, audit_put
from infra.store.registration import (
    SHARDS,
    name_claim_item,
    shard_choices,
    shard_item,
    shard_key,
    shards_for,
)
from infra.store.table import TableStore
from infra.store.table_item import CANCELLED, TableRecord, from_item, table_key, to_item
from infra.store.tournament_items import (
    META,
    PLAYER_PREFIX,
    JobState,
    PlayerRecord,
    Status,
    TournamentRecord,
    tournament_pk,
)


class Repository(TableStore):
    """Tournaments, players and tables in the single table `table_name`."""

    # --- tournaments -----------------------------------------------------------------

    def create_tournament(
        self, tournament: TournamentRecord, audit: AuditEntry | None = None
    ) -> None:
        """Store a new tournament, its closed registration shards and the organizer's
        `audit` entry (when given); ids are random, so an existing one is a bug."""
        shards = [
            {"Put": {"TableName": self._table, "Item": item}}
            for item in (
                shard_item(tournament.id, shard, tournament.player_limit, tournament.expires_at)
                for shard in range(SHARDS)
            )
        ]
        meta = {
            "Put": {
                "TableName": self._table,
                "Item": tournament.to_item(),
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        }
        listed = {"Put": {"TableName": self._table, "Item": listing_item(tournament)}}
        entries = (
            []
            if audit is None
            else [audit_put(self._table, tournament.id, audit, tournament.expires_at)]
        )
        self._call(
            self._client.transact_write_items, TransactItems=[meta, listed, *shards, *entries]
        )

    def get_tournament(self, tournament: str) -> TournamentRecord | None:
        """The tournament, read strongly consistent, or None."""
        item = self._get({"pk": {"S": tournament_pk(tournament)}, "sk": {"S": META}})
        return None if item is None else TournamentRecord.from_item(item)

    def change_status(
        self,
        tournament: str,
        allowed: Sequence[str],
        status: str,
        *,
        seeding: tuple[str, str] | None = None,
        registration: bool | None = None,
        expected_counts: Sequence[int] | None = None,
        player_count: int | None = None,
        job: JobState | None = None,
        audit: Audited | None = None,
    ) -> None:
        """Move to `status` if the current status is one of `allowed`, else `WrongStatus`.

        `seeding` records how the players are ordered: ("seed" or "order", the value);
        `registration` opens or closes every registration shard in the same transaction,
        and `expected_counts` (per shard) makes it fail if anyone registered meanwhile
        (`RegistrationChanged`); `player_count` and `job` are stored with the status, the
        organizer's `audit` entry in the same transaction.
        """
        names = {":" + s: {"S": s} for s in allowed}
        update = "SET #status = :new"
        values: dict[str, Any] = {":new": {"S": status}, **names}
        if seeding is not None:
            update += ", seeding = :seeding, seed = :seed"
            values[":seeding"], values[":seed"] = {"S": seeding[0]}, {"S": seeding[1]}
        if player_count is not None:
            update += ", player_count = :count"
            values[":count"] = {"N": str(player_count)}
        if job is not None:
            attributes = job.attributes()
            update += "".join(f", {name} = :{name}" for name in attributes)
            values.update({f":{name}": value for name, value in attributes.items()})
        meta = {
            "TableName": self._table,
            "Key": {"pk": {"S": tournament_pk(tournament)}, "sk": {"S": META}},
            "UpdateExpression": update,
            "ConditionExpression": f"#status IN ({', '.join(names)})",
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": values,
        }
        refused = WrongStatus(
            f"the tournament must be {' or '.join(allowed)} to become {status}",
            rule="tournament status",
        )
        entries = [] if audit is None else [audit_put(self._table, tournament, *audit)]
        if registration is None and not entries:
            if not self._write_if(self._client.update_item, **meta):
                raise refused
            return
        shards = (
            []
            if registration is None
            else [
                self._shard_flip(tournament, shard, registration, expected_counts)
                for shard in range(SHARDS)
            ]
        )
        reasons = self._transact_if([{"Update": meta}, *shards, *entries])
        if reasons is None:
            return
        if reasons[0] == "ConditionalCheckFailed":
            raise refused
        raise RegistrationChanged(
            "a player registered while the start was being prepared; start again",
            rule="registration",
        )

    def registration_counts(self, tournament: str) -> list[int]:
        """How many players each registration shard counted (read strongly consistent)."""
        keys = [shard_key(tournament, shard) for shard in range(SHARDS)]
        found = {item["pk"]["S"]: int(item["taken"]["N"]) for item in self._batch_get_keys(keys)}
        return [found.get(key["pk"]["S"], 0) for key in keys]

    def _shard_flip(
        self, tournament: str, shard: int, open: bool, expected: Sequence[int] | None
    ) -> dict[str, Any]:
        update: dict[str, Any] = {
            "TableName": self._table,
            "Key": shard_key(tournament, shard),
            "UpdateExpression": "SET #open = :open",
            "ConditionExpression": "attribute_exists(pk)",
            "ExpressionAttributeNames": {"#open": "open"},
            "ExpressionAttributeValues": {":open": {"BOOL": open}},
        }
        if expected is not None:
            update["ConditionExpression"] += " AND taken = :taken"
            update["ExpressionAttributeValues"][":taken"] = {"N": str(expected[shard])}
        return {"Update": update}

    # --- players ---------------------------------------------------------------------

    def add_player(self, player: PlayerRecord) -> None:
        """Register `player`, claim their name and count them on a registration shard,
        atomically, while registration is open, the shard below its share of the limit
        and the name free (else `NameTaken`); a full shard passes the player on to the
        next, so the limit is exact."""
        claim = name_claim_item(
            player.tournament, name_key(player.name), player.id, player.expires_at
        )
        choices = shard_choices(player.id)
        keys = [shard_key(player.tournament, shard) for shard in choices]
        counts = {item["pk"]["S"]: int(item["taken"]["N"]) for item in self._batch_get_keys(keys)}
        taken = {
            shard: counts.get(key["pk"]["S"], 0) for shard, key in zip(choices, keys, strict=True)
        }
        for shard in shards_for(player.id, taken):
            reasons = self._transact_if(
                [
                    {
                        "Update": {
                            "TableName": self._table,
                            "Key": shard_key(player.tournament, shard),
                            "UpdateExpression": "SET taken = taken + :one",
                            "ConditionExpression": "#open = :true AND taken < #capacity",
                            "ExpressionAttributeNames": {"#open": "open", "#capacity": "capacity"},
                            "ExpressionAttributeValues": {
                                ":one": {"N": "1"},
                                ":true": {"BOOL": True},
                            },
                        }
                    },
                    {
                        "Put": {
                            "TableName": self._table,
                            # the shard that counts them, for a removal (infra.services.organizer)
                            "Item": {**player.to_item(), "reg_shard": {"N": str(shard)}},
                            "ConditionExpression": "attribute_not_exists(pk)",
                        }
                    },
                    {
                        "Put": {
                            "TableName": self._table,
                            "Item": claim,
                            "ConditionExpression": "attribute_not_exists(pk)",
                        }
                    },
                ]
            )
            if reasons is None:
                return
            if reasons[0] != "ConditionalCheckFailed" and reasons[2:] == ["ConditionalCheckFailed"]:
                raise NameTaken(
                    f"the name {player.name!r} is taken in this tournament",
                    rule="player name",
                )
            found = self._get(shard_key(player.tournament, shard))
            if found is None or not found["open"]["BOOL"]:
                self._refuse_registration(player.tournament)
            if int(found["taken"]["N"]) < int(found["capacity"]["N"]):
                raise RuntimeError(f"registration of {player.id} refused for {reasons}")
        raise PlayerLimitReached("the tournament is full", rule="player_limit")

    def _refuse_registration(self, tournament_id: str) -> NoReturn:
        tournament = self.get_tournament(tournament_id)
        if tournament is None:
            raise NotFound(f"no tournament {tournament_id}", rule="tournament")
        if tournament.status == Status.DRAFT:
            raise RegistrationClosed("registration has not opened yet", rule="registration")
        raise RegistrationClosed(
            f"registration is closed: the tournament is {tournament.status}", rule="registration"
        )

    def get_player(self, tournament: str, player: str) -> PlayerRecord | None:
        """One player, or None."""
        item = self._get(
            {"pk": {"S": tournament_pk(tournament)}, "sk": {"S": PLAYER_PREFIX + player}}
        )
        return None if item is None else PlayerRecord.from_item(item)

    def get_players(self, tournament: str, players: Sequence[str]) -> list[PlayerRecord]:
        """The stored players among `players` (read strongly consistent)."""
        keys = [
            {"pk": {"S": tournament_pk(tournament)}, "sk": {"S": PLAYER_PREFIX + p}}
            for p in players
        ]
        return [PlayerRecord.from_item(item) for item in self._batch_get_keys(keys)]

    def players(self, tournament: str) -> Iterator[PlayerRecord]:
        """Every registered player, page by page (strongly consistent)."""
        kwargs = self._players_query(tournament)
        while True:
            page = self._call(self._client.query, **kwargs)
            yield from (PlayerRecord.from_item(item) for item in page["Items"])
            if "LastEvaluatedKey" not in page:
                return
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _players_query(
        self,
        tournament: str,
        *,
        projection: str | None = None,
        after: dict[str, Any] | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        """Query's arguments for the tournament's players (strongly consistent): only
        `projection`'s attributes, from after `after`, `limit` a page, when given."""
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :players)",
            "ExpressionAttributeValues": {
                ":pk": {"S": tournament_pk(tournament)},
                ":players": {"S": PLAYER_PREFIX},
            },
            "ConsistentRead": True,
        }
        if projection is not None:
            kwargs["ProjectionExpression"] = projection
        if after is not None:
            kwargs["ExclusiveStartKey"] = after
        if limit is not None:
            kwargs["Limit"] = limit
        return kwargs

    def put_players(self, players: Iterable[PlayerRecord]) -> None:
        """Overwrite players (to point them at their table), in batches."""
        self._batch_write(player.to_item() for player in players)

    # --- tables ----------------------------------------------------------------------

    def put_new_tables(self, tables: Iterable[TableRecord]) -> None:
        """Store freshly seated tables, in batches."""
        self._batch_write(to_item(table) for table in tables)

    def existing_tables(self, tournament: str, refs: Sequence[str]) -> set[str]:
        """Which of `refs` are already stored (for resuming an interrupted start)."""
        items = self._batch_get(
            tournament,
            refs,
            {"ProjectionExpression": "#ref", "ExpressionAttributeNames": {"#ref": "ref"}},
        )
        return {item["ref"]["S"] for item in items}

    def get_tables(self, tournament: str, refs: Sequence[str]) -> list[TableRecord]:
        """The stored tables among `refs`, in the order of `refs`."""
        found = {item["ref"]["S"]: from_item(item) for item in self._batch_get(tournament, refs)}
        return [found[ref] for ref in refs if ref in found]

    def get_table(self, tournament: str, ref: str) -> TableRecord | None:
        """One table, read strongly consistent: the one read of a turn."""
        item = self._get(table_key(tournament, ref))
        return None if item is None else from_item(item)

    def save_table(
        self, table: TableRecord, loaded_version: int, loaded: TableRecord | None = None
    ) -> None:
        """Write `table` only if the stored one is still at `loaded_version`: a turn's write.
        Nor if it was cancelled, or its disqualified players are no longer those of
        `loaded` (the table as read; by default `table`'s).

        Raises `StaleVersion` if another request got there first; nothing is written then.
        """
        same_players, players = _disqualified_as(loaded or table)
        saved = self._write_if(
            self._client.put_item,
            TableName=self._table,
            Item=to_item(table),
            # neither cancelled nor given a disqualification since it was loaded
            ConditionExpression=f"version = :loaded AND #status <> :cancelled AND {same_players}",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues={
                ":loaded": {"N": str(loaded_version)},
                ":cancelled": {"S": CANCELLED},
                **players,
            },
        )
        if not saved:
            raise StaleVersion(
                f"table {table.ref} moved on from version {loaded_version}",
                current_version=-1,  # unknown here; the caller re-reads to tell
            )

    def mark_disqualified(self, marked: TableRecord, loaded: TableRecord) -> None:
        """Store `marked`'s disqualified players if the table is still as `loaded` was
        (same version, in play, the same players disqualified); else `StaleVersion`."""
        same_players, players = _disqualified_as(loaded)
        saved = self._write_if(
            self._client.update_item,
            TableName=self._table,
            Key=table_key(loaded.tournament, loaded.ref),
            UpdateExpression="SET disqualified = :new",
            ConditionExpression=f"version = :version AND #status = :playing AND {same_players}",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues={
                ":new": {"S": " ".join(marked.disqualified)},
                ":version": {"N": str(loaded.version)},
                ":playing": {"S": "playing"},
                **players,
            },
        )
        if not saved:
            raise StaleVersion(
                f"table {loaded.ref} moved on from version {loaded.version}", current_version=-1
            )

    def cancel_table(self, tournament: str, ref: str) -> bool:
        """Stop a table in play with its cancelled tournament: status `cancelled`, no
        deadline, out of the deadline index. False if it is over, a bye or not seated."""
        return self._write_if(
            self._client.update_item,
            TableName=self._table,
            Key=table_key(tournament, ref),
            UpdateExpression="SET #status = :cancelled REMOVE deadline, due_shard, due_at",
            ConditionExpression="#status = :playing",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues={
                ":cancelled": {"S": CANCELLED},
                ":playing": {"S": "playing"},
            },
        )

    # --- player seeds (docs/dice.md) ----------------------------------------------------

    def set_player_seed(self, tournament: str, player: str, seed: str) -> None:
        """Store `player`'s seed for the tables they are seated at from now on."""
        self._call(
            self._client.update_item,
            TableName=self._table,
            Key={"pk": {"S": tournament_pk(tournament)}, "sk": {"S": PLAYER_PREFIX + player}},
            UpdateExpression="SET player_seed = :seed",
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeValues={":seed": {"S": seed}},
        )

    def set_seat_seeds(self, table: TableRecord, seeds: Sequence[str]) -> bool:
        """Replace the player seeds of `table` as read, only while no one has acted there
        (version 0) and no other seat changed its seed since: False if either did."""
        return self._write_if(
            self._client.update_item,
            TableName=self._table,
            Key=table_key(table.tournament, table.ref),
            UpdateExpression="SET player_seeds = :seeds",
            ConditionExpression="version = :zero AND player_seeds = :read",
            ExpressionAttributeValues={
                ":seeds": {"S": " ".join(seeds)},
                ":zero": {"N": "0"},
                ":read": {"S": " ".join(table.player_seeds)},
            },
        )


def _disqualified_as(table: TableRecord) -> tuple[str, dict[str, Any]]:
    """The condition that the stored table has the disqualified players `table` has (none:
    no such attribute), and its value."""
    if not table.disqualified:
        return "attribute_not_exists(disqualified)", {}
    return "disqualified = :disqualified", {":disqualified": {"S": " ".join(table.disqualified)}}


def listing_item(tournament: TournamentRecord) -> dict[str, Any]:
    """The tournament's entry in the public list, newest first (`GET /tournaments`): one
    partition per month of creation, sorted by the time of creation (docs/data-model.md)."""
    key = listing_key(tournament.created_at, tournament.id)
    return {
        **key,
        "kind": {"S": "listing"},
        "id": {"S": tournament.id},
        "name": {"S": tournament.name},
        "game": {"S": tournament.game},
        "created_at": {"N": str(tournament.created_at)},
        "expires_at": {"N": str(tournament.expires_at)},
    }


def listing_key(created_at: int, tournament: str) -> dict[str, Any]:
    """`LIST#<yyyy-mm>` / `C#<epoch seconds, 10 digits>#<tournament id>`."""
    month = time.strftime("%Y-%m", time.gmtime(created_at))
    return {"pk": {"S": f"LIST#{month}"}, "sk": {"S": f"C#{created_at:010d}#{tournament}"}}
