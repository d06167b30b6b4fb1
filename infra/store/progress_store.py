"""The items the progression consumer keeps, each written by few tables (docs/data-model.md).

- arrivals at a next-round table (`T#<t>#TABLE#<ref>` / `ARRIVALS`): one slot per feeder,
  so it is written once by each feeder (at most `table_size` of them);
- round counting nodes (`T#<t>#ROUND#<r>#L<level>#N<node>` / `NODE`): a set of the
  children that finished, at most `core.bracket.completion.BRANCHING` of them;
- the standings (`T#<t>#STANDINGS` / `S#<first place>`): segments of consecutive places
  of players who tie on all but their seeding, written by the finish job
  (`infra.jobs.finish`); and the places by seeding position (`T#<t>#PLACES#<block>` /
  `S#<first position>`), which `GET /me` reads with the player's `seed_position`.

Every write is idempotent: slots and sets are overwritten with the same value, so a
redelivered or reordered event changes nothing twice (the players' moves and exits, and
the seating of a table, are as idempotent: `infra.store.players`, `infra.store.game_tables`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from core.bracket import Standing
from core.bracket.completion import Step
from core.bracket.paged_standings import Group, Segment
from infra.store.table import TableStore
from infra.store.table_item import table_key
from infra.store.tournament_items import tournament_pk

ARRIVALS = "ARRIVALS"
SEGMENT_ROWS = 2_000  # players a standings segment holds at most: about 26 KB
PLACES_BLOCK = 2_000  # seeding positions a places item covers at most: at most 16 KB
_FIRST_SEGMENTS = 4  # standings segments the first Query of a page reads


class ProgressStore(TableStore):
    """The progression's own items: arrivals, round counting nodes, standings, places."""

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

    def arrivals(self, tournament: str, refs: Sequence[str]) -> dict[str, dict[int, list[str]]]:
        """The filled feeder slots of each table in `refs` (tables with none left out)."""
        keys = [{"pk": table_key(tournament, ref)["pk"], "sk": {"S": ARRIVALS}} for ref in refs]
        found: dict[str, dict[int, list[str]]] = {}
        for item in self._batch_get_keys(keys):
            ref = item["pk"]["S"].rsplit("#", 1)[1]
            found[ref] = {  # the slots as `ProgressStore.add_arrival` writes them
                int(name[1:]): value["S"].split(" ")
                for name, value in item.items()
                if name.startswith("s") and name[1:].isdigit()
            }
        return found

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

    # --- the standings (written by the finish job, `infra.jobs.finish`) -----------------

    def put_standings(
        self,
        tournament: str,
        segments: Sequence[Segment],
        first_position: int,
        places: Sequence[int],
        expires_at: int,
        *,
        names: Mapping[str, str],
    ) -> None:
        """Store standings `segments`, with the players' display names (`names`, by id),
        and the places of the players at seeding positions `first_position` on; the same
        arguments store the same items."""
        items = [_segment_item(tournament, segment, names, expires_at) for segment in segments]
        end = first_position + len(places)
        position = first_position
        while position < end:  # split where a block of positions ends, to cap the size
            upto = min(end, (position // PLACES_BLOCK + 1) * PLACES_BLOCK)
            chunk = places[position - first_position : upto - first_position]
            items.append(
                {
                    **_places_key(tournament, position),
                    "kind": {"S": "places"},
                    "expires_at": {"N": str(expires_at)},
                    "first_position": {"N": str(position)},
                    "places": {"S": " ".join(map(str, chunk))},
                }
            )
            position = upto
        self._batch_write(items)

    def standings_page(self, tournament: str, offset: int, limit: int) -> list[Standing]:
        """Places `offset + 1` to `offset + limit` (fewer at the end, none before the end)."""
        pk = {"S": f"{tournament_pk(tournament)}#STANDINGS"}
        holding = self._last_at_or_before(pk, _sort_key(offset + 1))
        if holding is None:
            return []
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND sk >= :from",
            "ExpressionAttributeValues": {":pk": pk, ":from": holding["sk"]},
            "ConsistentRead": True,
            # a few segments first, twice as many each time the page is not yet covered:
            # a segment holds up to 2,000 rows, and reading the page's limit of them at
            # once would read most of the standings for the first page
            "Limit": _FIRST_SEGMENTS,
        }
        rows: list[Standing] = []
        while not rows or rows[-1].place < offset + limit:
            page = self._call(self._client.query, **kwargs)
            rows.extend(row for item in page["Items"] for row in _segment_rows(item))
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
            kwargs["Limit"] = min(2 * kwargs["Limit"], limit + 1)
        return [row for row in rows if offset < row.place <= offset + limit]

    def place_of(self, tournament: str, seed_position: int) -> int | None:
        """The final place of the player at `seed_position`, None before the end."""
        if seed_position < 0:
            return None
        key = _places_key(tournament, seed_position)
        item = self._last_at_or_before(key["pk"], key["sk"]["S"])
        if item is None:
            return None
        places = item["places"]["S"].split(" ")
        index = seed_position - int(item["first_position"]["N"])
        return int(places[index]) if index < len(places) else None

    def _last_at_or_before(self, pk: dict[str, Any], sort_key: str) -> dict[str, Any] | None:
        """The item of partition `pk` with the greatest sort key up to `sort_key`."""
        page = self._call(
            self._client.query,
            TableName=self._table,
            KeyConditionExpression="pk = :pk AND sk <= :key",
            ExpressionAttributeValues={":pk": pk, ":key": {"S": sort_key}},
            ScanIndexForward=False,
            Limit=1,
            ConsistentRead=True,
        )
        items: list[dict[str, Any]] = page["Items"]
        return items[0] if items else None


def _node_key(tournament: str, round: int, step: Step) -> dict[str, Any]:
    node = f"{tournament_pk(tournament)}#ROUND#{round}#L{step.level}#N{step.node}"
    return {"pk": {"S": node}, "sk": {"S": "NODE"}}


def _sort_key(number: int) -> str:
    """A sort key that orders as `number` does (places, seeding positions)."""
    return f"S#{number:09d}"


def _places_key(tournament: str, position: int) -> dict[str, Any]:
    """The key of the places item that starts at seeding position `position`."""
    block = position // PLACES_BLOCK
    return {
        "pk": {"S": f"{tournament_pk(tournament)}#PLACES#{block}"},
        "sk": {"S": _sort_key(position)},
    }


def _segment_item(
    tournament: str, segment: Segment, names: Mapping[str, str], expires_at: int
) -> dict[str, Any]:
    shown = [names.get(player) or player for player in segment.players]
    return {
        "pk": {"S": f"{tournament_pk(tournament)}#STANDINGS"},
        "sk": {"S": _sort_key(segment.first_place)},
        "kind": {"S": "standings"},
        "expires_at": {"N": str(expires_at)},
        "first_place": {"N": str(segment.first_place)},
        "round": {"N": str(segment.group.round)},
        "table_place": {"N": str(segment.group.table_place)},
        "measure": {"N": str(segment.group.measure)},
        **({"forfeited": {"BOOL": True}} if segment.group.forfeited else {}),
        "players": {"S": " ".join(segment.players)},
        # names stored with the places: a page of standings reads no player item
        "names": {"S": json.dumps(shown, ensure_ascii=False, separators=(",", ":"))},
    }


def _segment_rows(item: dict[str, Any]) -> list[Standing]:
    """A segment's standings rows; the ids stand in as names in a segment stored before
    names were."""
    group = Group(
        int(item["round"]["N"]),
        int(item["table_place"]["N"]),
        int(item["measure"]["N"]),
        item.get("forfeited", {"BOOL": False})["BOOL"],
    )
    players = tuple(item["players"]["S"].split(" "))
    rows = Segment(int(item["first_place"]["N"]), group, players).rows()
    names = json.loads(item["names"]["S"]) if "names" in item else players
    return [row._replace(name=name) for row, name in zip(rows, names, strict=True)]
