"""The items the progression consumer keeps, each written by few tables (docs/data-model.md).

- arrivals at a next-round table (`T#<t>#TABLE#<ref>` / `ARRIVALS`): one slot per feeder,
  so it is written once by each feeder (at most `table_size` of them);
- round counting nodes (`T#<t>#ROUND#<r>#L<level>#N<node>` / `NODE`): a set of the
  children that finished, at most `core.bracket.completion.BRANCHING` of them;
- the players' own items: moved to their next table, and their exit, once each per round;
- the standings, written once after the final in chunks, and the places by player.

Every write is idempotent: slots and sets are overwritten with the same value, a player
moves only forward and exits once, and a table is seated only if it does not exist, so
a redelivered or reordered event changes nothing twice.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from core.bracket import Standing
from core.bracket.completion import Step
from infra.records import (
    META,
    PLAYER_PREFIX,
    PlayerExit,
    Status,
    exit_attributes,
    tournament_pk,
)
from infra.repository import Repository
from infra.table_item import TableRecord, table_key, to_item

ARRIVALS = "ARRIVALS"
STANDINGS_PER_ITEM = 2_000  # about 60 KB: well under the 400 KB item limit
PLACES_PER_ITEM = 2_000
TOP_STANDINGS = 10


class ProgressStore(Repository):
    """The repository plus the progression's own items."""

    # --- players ---------------------------------------------------------------------

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

    # --- tables ----------------------------------------------------------------------

    def add_arrival(
        self, tournament: str, ref: str, slot: int, players: Sequence[str], expires_at: int
    ) -> dict[int, tuple[str, ...]]:
        """Put `players` in feeder slot `slot` of table `ref`; every slot filled so far."""
        response = self._call(
            self._client.update_item,
            TableName=self._table,
            Key={"pk": table_key(tournament, ref)["pk"], "sk": {"S": ARRIVALS}},
            UpdateExpression="SET #slot = :players, kind = :kind, expires_at = :expires",
            ExpressionAttributeNames={"#slot": f"s{slot}"},
            ExpressionAttributeValues={
                ":players": {"S": " ".join(players)},
                ":kind": {"S": "arrivals"},
                ":expires": {"N": str(expires_at)},
            },
            ReturnValues="ALL_NEW",
        )
        attributes = response["Attributes"]
        return {
            int(name[1:]): tuple(value["S"].split(" "))
            for name, value in attributes.items()
            if name.startswith("s") and name[1:].isdigit()
        }

    def seat_table(self, table: TableRecord) -> bool:
        """Store a newly seated table unless it exists (then it may be in play already)."""
        return self._write_if(
            self._client.put_item,
            TableName=self._table,
            Item=to_item(table),
            ConditionExpression="attribute_not_exists(pk)",
        )

    # --- rounds ----------------------------------------------------------------------

    def report_finished(
        self, tournament: str, round: int, tables: int, step: Step, expires_at: int
    ) -> bool:
        """Record `step.child` at its counting node of a `tables`-table round; whether the
        node is now complete."""
        response = self._call(
            self._client.update_item,
            TableName=self._table,
            Key={
                "pk": {
                    "S": f"{tournament_pk(tournament)}#ROUND#{round}#L{step.level}#N{step.node}"
                },
                "sk": {"S": "NODE"},
            },
            UpdateExpression=(
                "ADD done :child SET kind = :kind, tournament = :tournament, #round = :round, "
                "children = :children, #root = :root, #tables = :tables, expires_at = :expires"
            ),
            ExpressionAttributeNames={"#round": "round", "#root": "root", "#tables": "tables"},
            ExpressionAttributeValues={
                ":child": {"NS": [str(step.child)]},
                ":kind": {"S": "round_node"},
                ":tournament": {"S": tournament},
                ":round": {"N": str(round)},
                ":children": {"N": str(step.children)},
                ":tables": {"N": str(tables)},
                ":root": {"BOOL": step.root},
                ":expires": {"N": str(expires_at)},
            },
            ReturnValues="ALL_NEW",
        )
        return len(response["Attributes"]["done"]["NS"]) >= step.children

    # --- the end ---------------------------------------------------------------------

    def write_standings(
        self, tournament: str, standings: Sequence[Standing], expires_at: int
    ) -> None:
        """Store the standings in chunks of places, and every player's place by player."""
        items: list[dict[str, Any]] = []
        for start in range(0, len(standings), STANDINGS_PER_ITEM):
            chunk = standings[start : start + STANDINGS_PER_ITEM]
            items.append(
                {
                    **_standings_key(tournament, start // STANDINGS_PER_ITEM),
                    "kind": {"S": "standings"},
                    "expires_at": {"N": str(expires_at)},
                    "first_place": {"N": str(start + 1)},
                    "rows": {"S": ";".join(_encode(s) for s in chunk)},
                }
            )
        buckets = _place_buckets(len(standings))
        places: list[dict[str, int]] = [{} for _ in range(buckets)]
        for standing in standings:
            places[place_bucket(standing.player, buckets)][standing.player] = standing.place
        items.extend(
            {
                **_places_key(tournament, bucket),
                "kind": {"S": "places"},
                "expires_at": {"N": str(expires_at)},
                "places": {"S": json.dumps(by_player, separators=(",", ":"))},
            }
            for bucket, by_player in enumerate(places)
        )
        self._batch_write(items)

    def finish(self, tournament: str, standings: Sequence[Standing]) -> None:
        """Mark the tournament finished with its champion and top places (once)."""
        top = [s._asdict() for s in standings[:TOP_STANDINGS]]
        self._update_once(
            {"pk": {"S": tournament_pk(tournament)}, "sk": {"S": META}},
            "SET #status = :finished, champion = :champion, top_standings = :top",
            "#status = :running",
            {"#status": "status"},
            {
                ":finished": {"S": Status.FINISHED},
                ":running": {"S": Status.RUNNING},
                ":champion": {"S": standings[0].player},
                ":top": {"S": json.dumps(top, separators=(",", ":"))},
            },
        )

    def standings_page(self, tournament: str, offset: int, limit: int) -> list[Standing]:
        """Places `offset + 1` to `offset + limit` (fewer at the end, none before the end)."""
        first = offset // STANDINGS_PER_ITEM
        last = (offset + limit - 1) // STANDINGS_PER_ITEM
        rows: list[Standing] = []
        for index in range(first, last + 1):
            item = self._get(_standings_key(tournament, index))
            if item is None:
                break
            base = int(item["first_place"]["N"])
            rows.extend(
                _decode(base + n, text) for n, text in enumerate(item["rows"]["S"].split(";"))
            )
        start = offset - first * STANDINGS_PER_ITEM
        return rows[start : start + limit]

    def place_of(self, tournament: str, player: str, player_count: int) -> int | None:
        """The player's final place, None before the end."""
        bucket = place_bucket(player, _place_buckets(player_count))
        item = self._get(_places_key(tournament, bucket))
        if item is None:
            return None
        place: int | None = json.loads(item["places"]["S"]).get(player)
        return place

    # --- plumbing --------------------------------------------------------------------

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


def place_bucket(player: str, buckets: int) -> int:
    """Which places item holds `player`'s place: a stable hash, not Python's salted one."""
    digest = hashlib.sha256(player.encode()).digest()
    return int.from_bytes(digest[:4], "big") % buckets


def _place_buckets(player_count: int) -> int:
    return max(1, -(-player_count // PLACES_PER_ITEM))


def _node_key(tournament: str, round: int, step: Step) -> dict[str, Any]:
    node = f"{tournament_pk(tournament)}#ROUND#{round}#L{step.level}#N{step.node}"
    return {"pk": {"S": node}, "sk": {"S": "NODE"}}


def _standings_key(tournament: str, index: int) -> dict[str, Any]:
    return {"pk": {"S": f"{tournament_pk(tournament)}#STANDINGS"}, "sk": {"S": f"C#{index:06d}"}}


def _places_key(tournament: str, bucket: int) -> dict[str, Any]:
    return {"pk": {"S": f"{tournament_pk(tournament)}#PLACES#{bucket}"}, "sk": {"S": "PLACES"}}


def _encode(standing: Standing) -> str:
    return f"{standing.player},{standing.round},{standing.table_place},{standing.measure}"


def _decode(place: int, text: str) -> Standing:
    player, round, table_place, measure = text.split(",")
    return Standing(place, player, int(round), int(table_place), int(measure))
