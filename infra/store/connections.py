"""Who is connected to the WebSocket API, and what each connection listens to.

Items (docs/data-model.md, "connection" and the socket sets):
- `CONN#<connection id>` / `CONN`: the connection: its tournament, and the player it
  speaks for or the table it watches. Written first and deleted last, so that whatever
  else a connection wrote can be found and undone from it.
- `T#<t>#SOCKETS#<player>` / `SOCKETS`: the player's connections, a string set, so the
  pusher reads every seated player's connections with one BatchGetItem of the table's
  players. Not on the player item: the start job rewrites that item whole.
- `T#<t>#WATCH#<ref>` / `SOCKETS`: the connections watching a table, in the same
  BatchGetItem; at most `MAX_TABLE_WATCHERS` of them.
- `T#<t>#WATCH` / `C#<connection id>`: every connection of the tournament, read page by
  page when the tournament finishes.
Every item carries `expires_at`, `CONNECTION_SECONDS` after the (latest) connect: API
Gateway closes a WebSocket after two hours, so nothing outlives the connections it lists.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from infra.errors import Throttled
from infra.store.table import TableStore, code_of

CONNECTION_SECONDS = 2 * 3600  # API Gateway's longest WebSocket connection
MAX_TABLE_WATCHERS = 1_000  # each gets a post per action: more would slow every turn
SOCKETS = "SOCKETS"
_CONNECTION = "CONN"


class TooManyWatchers(Throttled):
    """A table has as many spectators as it takes."""

    code = "too_many_watchers"


@dataclass(frozen=True, slots=True)
class Connection:
    """One WebSocket connection: a player's (`player`), a table spectator's (`table`), or
    a spectator of the tournament's own messages (neither)."""

    id: str
    tournament: str
    player: str = ""
    table: str = ""
    connected_at: int = 0
    expires_at: int = 0

    @property
    def socket_set(self) -> str:
        """The `pk` of the socket set it is listed in ('' for the tournament's alone)."""
        if self.player:
            return player_sockets(self.tournament, self.player)
        if self.table:
            return table_watchers(self.tournament, self.table)
        return ""


def player_sockets(tournament: str, player: str) -> str:
    """The `pk` of a player's socket set."""
    return f"T#{tournament}#SOCKETS#{player}"


def table_watchers(tournament: str, table: str) -> str:
    """The `pk` of a table's spectators' socket set."""
    return f"T#{tournament}#WATCH#{table}"


def tournament_watchers(tournament: str) -> str:
    """The `pk` of the partition listing every connection of a tournament."""
    return f"T#{tournament}#WATCH"


def _connection_key(connection: str) -> dict[str, Any]:
    return {"pk": {"S": f"CONN#{connection}"}, "sk": {"S": _CONNECTION}}


def _set_key(pk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": SOCKETS}}


def _watcher_key(tournament: str, connection: str) -> dict[str, Any]:
    return {"pk": {"S": tournament_watchers(tournament)}, "sk": {"S": f"C#{connection}"}}


class ConnectionStore(TableStore):
    """Connections and the sets that list them, in the single table."""

    def add(self, connection: Connection) -> None:
        """Store `connection` and list it where the pusher looks; `TooManyWatchers` if
        its table has all the spectators it takes (then nothing stays stored)."""
        expires = {"N": str(connection.expires_at)}
        item: dict[str, Any] = {
            **_connection_key(connection.id),
            "kind": {"S": "connection"},
            "tournament": {"S": connection.tournament},
            "connected_at": {"N": str(connection.connected_at)},
            "expires_at": expires,
        }
        if connection.player:
            item["player"] = {"S": connection.player}
        if connection.table:
            item["table"] = {"S": connection.table}
        self._call(self._client.put_item, TableName=self._table, Item=item)
        if connection.socket_set:
            self._list(connection, expires)
        self._call(
            self._client.put_item,
            TableName=self._table,
            Item={
                **_watcher_key(connection.tournament, connection.id),
                "kind": {"S": "tournament_watcher"},
                "connection": {"S": connection.id},
                "expires_at": expires,
            },
        )

    def _list(self, connection: Connection, expires: dict[str, str]) -> None:
        update: dict[str, Any] = {
            "TableName": self._table,
            "Key": _set_key(connection.socket_set),
            "UpdateExpression": "ADD sockets :id SET kind = :kind, expires_at = :expires",
            "ExpressionAttributeValues": {
                ":id": {"SS": [connection.id]},
                ":kind": {"S": "player_sockets" if connection.player else "table_watchers"},
                ":expires": expires,
            },
        }
        if not connection.player:
            update["ConditionExpression"] = "attribute_not_exists(sockets) OR size(sockets) < :cap"
            update["ExpressionAttributeValues"][":cap"] = {"N": str(MAX_TABLE_WATCHERS)}
        if not self._write_if(self._client.update_item, **update):
            self._call(
                self._client.delete_item, TableName=self._table, Key=_connection_key(connection.id)
            )
            raise TooManyWatchers(
                f"table {connection.table} has {MAX_TABLE_WATCHERS} spectators already; "
                "watch the tournament, or read the table's events over HTTP",
                rule="spectators per table",
            )

    def get(self, connection: str) -> Connection | None:
        """The stored connection, or None."""
        item = self._get(_connection_key(connection))
        if item is None:
            return None
        return Connection(
            id=connection,
            tournament=item["tournament"]["S"],
            player=item.get("player", {}).get("S", ""),
            table=item.get("table", {}).get("S", ""),
            connected_at=int(item["connected_at"]["N"]),
            expires_at=int(item["expires_at"]["N"]),
        )

    def remove(self, connection: str, *, listed_in: str = "", tournament: str = "") -> None:
        """Forget `connection` wherever it is listed. `listed_in` (a socket set) and
        `tournament` say where it was found, for when its own item is gone already.
        Repeating it does nothing."""
        stored = self.get(connection)
        sets = {listed_in} - {""}
        if stored is not None:
            sets |= {stored.socket_set} - {""}
            tournament = stored.tournament
        for pk in sets:  # never made anew: an update of a missing item would create it
            self._write_if(
                self._client.update_item,
                TableName=self._table,
                Key=_set_key(pk),
                UpdateExpression="DELETE sockets :id",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeValues={":id": {"SS": [connection]}},
            )
        if tournament:
            self._call(
                self._client.delete_item,
                TableName=self._table,
                Key=_watcher_key(tournament, connection),
            )
        if stored is not None:
            self._call(
                self._client.delete_item, TableName=self._table, Key=_connection_key(connection)
            )

    def socket_sets(self, pks: Iterable[str]) -> dict[str, frozenset[str]]:
        """The connections in each socket set named (an empty set for one never made)."""
        wanted = sorted(set(pks))
        found = {pk: frozenset[str]() for pk in wanted}
        projection = {"ProjectionExpression": "pk, sockets"}
        for item in self._batch_get_keys([_set_key(pk) for pk in wanted], projection):
            found[item["pk"]["S"]] = frozenset(item.get("sockets", {}).get("SS", []))
        return found

    def tournament_connections(self, tournament: str) -> Iterator[list[str]]:
        """Every connection of `tournament`, a query page at a time."""
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": tournament_watchers(tournament)}},
            "ProjectionExpression": "#connection",
            "ExpressionAttributeNames": {"#connection": "connection"},
        }
        while True:
            page = self._call(self._client.query, **kwargs)
            yield [item["connection"]["S"] for item in page["Items"]]
            if "LastEvaluatedKey" not in page:
                return
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def is_gone(error: ClientError) -> bool:
    """Whether API Gateway says the connection is closed (410 GoneException)."""
    return code_of(error) == "GoneException"
