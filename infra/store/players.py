"""The players' items: registration (with the name claim and the count on a shard, in
one transaction), their table and round, their exit, their seed, and the paged queries
of a tournament's players the jobs read.

Registration is counted on shards (`infra.store.registration`) so that the limit is
exact without a hot item; an exit and a move are written once (a redelivered event
changes nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NoReturn

from core.bracket import Exit
from core.names import name_key
from infra.errors import NameTaken, NotFound, PlayerLimitReached, RegistrationClosed
from infra.store.registration import name_claim_item, shard_choices, shard_key, shards_for
from infra.store.table import TableStore
from infra.store.tournament_items import (
    META,
    PLAYER_PREFIX,
    PlayerExit,
    PlayerRecord,
    Status,
    TournamentRecord,
    exit_attributes,
    tournament_pk,
)

_EXIT_PROJECTION = "id, seed_position, exit_round, exit_place, exit_measure, exit_forfeited"


class PlayerStore(TableStore):
    """The player items of the single table."""

    # --- registration ------------------------------------------------------------------

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
        item = self._get({"pk": {"S": tournament_pk(tournament_id)}, "sk": {"S": META}})
        tournament = None if item is None else TournamentRecord.from_item(item)
        if tournament is None:
            raise NotFound(f"no tournament {tournament_id}", rule="tournament")
        if tournament.status == Status.DRAFT:
            raise RegistrationClosed("registration has not opened yet", rule="registration")
        raise RegistrationClosed(
            f"registration is closed: the tournament is {tournament.status}", rule="registration"
        )

    # --- reads ---------------------------------------------------------------------------

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

    # --- the bracket: table, round, exit, seed ------------------------------------------

    def record_exit(self, tournament: str, player: str, exit: PlayerExit) -> None:
        """Record where `player`'s tournament ended; a second record changes nothing."""
        attributes = exit_attributes(exit)
        names = {f"#{name}": name for name in attributes}
        self._update_once(
            {"pk": {"S": tournament_pk(tournament)}, "sk": {"S": PLAYER_PREFIX + player}},
            "SET " + ", ".join(f"#{name} = :{name}" for name in attributes),
            "attribute_exists(pk) AND attribute_not_exists(exit_round)",
            names,
            {f":{name}": value for name, value in attributes.items()},
        )

    def move_player(self, tournament: str, player: str, ref: str, round: int) -> None:
        """Point `player` at their table `ref` of `round`; never back to an earlier round."""
        self._update_once(
            {"pk": {"S": tournament_pk(tournament)}, "sk": {"S": PLAYER_PREFIX + player}},
            "SET #table = :ref, table_round = :round",
            "attribute_exists(pk) AND table_round < :round",
            {"#table": "table"},
            {":ref": {"S": ref}, ":round": {"N": str(round)}},
        )

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

    def player_rounds(self, tournament: str, players: Sequence[str]) -> dict[str, int]:
        """The round of the table each of `players` is pointed at."""
        keys = [
            {"pk": {"S": tournament_pk(tournament)}, "sk": {"S": PLAYER_PREFIX + p}}
            for p in players
        ]
        extra = {"ProjectionExpression": "id, table_round"}
        return {
            item["id"]["S"]: int(item.get("table_round", {"N": "0"})["N"])
            for item in self._batch_get_keys(keys, extra)
        }

    # --- pages for the jobs ---------------------------------------------------------------

    def exits_page(
        self, tournament: str, after: dict[str, Any] | None, limit: int
    ) -> tuple[list[tuple[str, Exit | None]], dict[str, Any] | None]:
        """A query page of players' exits (None: not exited) and where the next page
        starts (None: done)."""
        kwargs = self._players_query(
            tournament, projection=_EXIT_PROJECTION, after=after, limit=limit
        )
        page = self._call(self._client.query, **kwargs)
        return [_exit_of(item) for item in page["Items"]], page.get("LastEvaluatedKey")

    def exits_of(self, tournament: str, players: Sequence[str]) -> dict[str, tuple[int, Exit, str]]:
        """The seeding position, exit and display name of each of `players` who has
        both a position and an exit."""
        keys = [
            {"pk": {"S": tournament_pk(tournament)}, "sk": {"S": PLAYER_PREFIX + p}}
            for p in players
        ]
        found: dict[str, tuple[int, Exit, str]] = {}
        projection = {
            "ProjectionExpression": f"{_EXIT_PROJECTION}, #name",
            "ExpressionAttributeNames": {"#name": "name"},  # a reserved word
        }
        for item in self._batch_get_keys(keys, projection):
            player, exit = _exit_of(item)
            if exit is not None and "seed_position" in item:
                name = item.get("name", {}).get("S") or player
                found[player] = (int(item["seed_position"]["N"]), exit, name)
        return found

    def player_ids(
        self, tournament: str, after: dict[str, Any] | None, limit: int
    ) -> tuple[list[str], dict[str, Any] | None]:
        """A page of registered players' ids and where the next page starts (None: done)."""
        kwargs = self._players_query(tournament, projection="id", after=after, limit=limit)
        page = self._call(self._client.query, **kwargs)
        return [item["id"]["S"] for item in page["Items"]], page.get("LastEvaluatedKey")

    def _update_once(
        self,
        key: dict[str, Any],
        update: str,
        condition: str,
        names: dict[str, str],
        values: dict[str, Any],
    ) -> bool:
        """An update that only the first delivery makes; False when it was made already."""
        return self._write_if(
            self._client.update_item,
            TableName=self._table,
            Key=key,
            UpdateExpression=update,
            ConditionExpression=condition,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )


def _exit_of(item: dict[str, Any]) -> tuple[str, Exit | None]:
    player = item["id"]["S"]
    if "exit_round" not in item:
        return player, None
    return player, Exit(
        player,
        int(item["exit_round"]["N"]),
        int(item["exit_place"]["N"]),
        int(item["exit_measure"]["N"]),
        item.get("exit_forfeited", {"BOOL": False})["BOOL"],
    )
