"""Push: what a change sends to whom, and the connections it is sent to, on moto.

The messages are checked against `core.audit.records_after` itself (the feed's own
ground), the rules' hiding against every seat and a spectator; the connections are
stored by the socket service as `$connect` stores them, and the posts go to a stand-in
for API Gateway's management API that can say a connection is gone.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from test_publisher import SEATS, T, insert, modify, played, table

from core.actions import Throw
from core.audit import records_after
from core.match import Move, Seating, replay_log
from core.registry import get_game
from infra.errors import NotFound, Unauthorized
from infra.outbox.events import PlayerEliminated, TournamentFinished
from infra.outbox.publisher import StreamChange
from infra.outbox.push import Pusher, table_push
from infra.services.sockets import BadConnect, ConnectRequest, SocketService
from infra.store.capacity import CAPACITY_KEY, CapacityStore
from infra.store.connections import (
    CONNECTION_SECONDS,
    MAX_TABLE_WATCHERS,
    ConnectionStore,
    TooManyWatchers,
    player_sockets,
    table_watchers,
)
from infra.store.players import PlayerStore
from infra.store.table_item import TableRecord, to_item
from infra.store.tournament_items import PlayerRecord, TournamentRecord
from infra.store.tournaments import TournamentStore
from infra.tokens import hash_token
from local.provision import create_tables

NOW = 1_800_000_000


class Management:
    """API Gateway's management API: keeps what is posted, and `gone` connections
    answer 410 as a closed one does."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, dict[str, Any]]] = []
        self.gone: set[str] = set()
        self.closed: list[str] = []

    def post_to_connection(self, *, ConnectionId: str, Data: bytes) -> None:  # noqa: N803
        if ConnectionId in self.gone:
            raise ClientError(
                {"Error": {"Code": "GoneException", "Message": ""}}, "PostToConnection"
            )
        self.posts.append((ConnectionId, json.loads(Data)))

    def delete_connection(self, *, ConnectionId: str) -> None:  # noqa: N803
        self.closed.append(ConnectionId)

    def to(self, connection: str) -> list[dict[str, Any]]:
        return [message for c, message in self.posts if c == connection]


# --- what a change sends -----------------------------------------------------------------


def _first_throw(seating: Seating, moves: list[Move]) -> int:
    return next(i for i, move in enumerate(moves) if isinstance(move.action, Throw))


def test_a_throw_shows_its_dice_to_the_thrower_alone() -> None:
    seating, moves, _ = played(seed=11)
    at = _first_throw(seating, moves)
    push = table_push(modify(table(seating, moves[:at]), table(seating, moves[: at + 1])))
    assert push is not None
    thrower = get_game("maexchen").to_act(_state(seating, moves[:at]))
    for viewer in (*SEATS, None):
        [events] = [m for m in push.messages(viewer) if m["type"] == "table_events"]
        [record] = events["records"]
        [thrown] = [e for e in record["events"] if e["type"] == "DiceThrown"]
        assert (thrown["dice"] is not None) == (viewer == thrower), viewer
        _, entries = replay_log(seating, moves[: at + 1])
        assert events["records"] == records_after(entries, at, viewer, revealed=False)
        assert (events["version"], events["over"]) == (at + 1, False)


def _state(seating: Seating, moves: list[Move]) -> Any:
    state, _ = replay_log(seating, moves)
    return state


DEADLINE = 1_800_000_060


def test_the_player_to_act_gets_your_turn_with_the_version_and_their_own_view() -> None:
    seating, moves, _ = played(seed=12345)
    game = get_game("maexchen")
    for upto in range(1, 8):
        after = {**table(seating, moves[:upto]), "deadline": {"N": str(DEADLINE + upto)}}
        push = table_push(modify(table(seating, moves[: upto - 1]), after))
        assert push is not None
        state = _state(seating, moves[:upto])
        to_act = game.to_act(state)
        for player in SEATS:
            [message] = push.messages(player)  # one post per connection per change
            assert (message["type"], message["version"]) == ("table_events", upto)
            # the view `GET .../me` answers: the player's own dice, nobody else's
            view = json.loads(json.dumps(game.view(state, player)))
            # the deadline is the turn's, for the player's countdown
            turn = {"deadline": DEADLINE + upto, "view": view}
            assert message.get("your_turn") == (turn if player == to_act else None)
            assert "seated" not in message
        [spectated] = push.messages(None)
        assert spectated["type"] == "table_events" and "your_turn" not in spectated


def test_a_seated_table_tells_its_players_and_the_last_move_reveals_the_dice() -> None:
    seating, moves, outcome = played(seed=1)
    seated = table_push(insert(table(seating, [])))
    assert seated is not None
    first = get_game("maexchen").to_act(_state(seating, []))
    for player in SEATS:
        [message] = seated.messages(player)
        assert (message["type"], message["seated"]) == ("table_events", True)
        assert ("your_turn" in message) == (player == first)
    [events] = seated.messages(None)
    assert [r["version"] for r in events["records"]] == [0]

    over = table_push(modify(table(seating, moves[:-1]), table(seating, moves, outcome.ranking)))
    assert over is not None
    for viewer in (*SEATS, None):
        [events] = over.messages(viewer)  # nobody is to act any more
        assert events["over"] is True
        assert events["records"][-1]["dice"] == list(moves[-1].dice)


def test_a_bye_and_a_write_that_moves_nothing_push_nothing() -> None:
    seating, moves, _ = played(seed=1)
    same = table(seating, moves[:3])
    assert table_push(modify(same, same)) is None  # the sweeper moving `due_at`
    bye = TableRecord(T, "R2-1", Seating("maexchen", ("p-anna",), {}, 1), ("-",), bye=True)
    bye.ranking = ("p-anna",)
    assert table_push(insert(to_item(bye))) is None
    assert table_push(StreamChange("REMOVE", same, None, 0.0)) is None


# --- connections on moto -------------------------------------------------------------------


@pytest.fixture
def store(aws_env: None) -> Iterator[ConnectionStore]:
    with mock_aws():
        client = boto3.client("dynamodb")
        name = create_tables(client, names={"KnobelcupTable": "push-test"})["KnobelcupTable"]
        store = ConnectionStore(client, name)
        TournamentStore(client, name).create_tournament(_tournament())
        for player in SEATS:
            _add_player(store, player)
        yield store


def _tournament() -> TournamentRecord:
    return TournamentRecord(T, "Cup", "maexchen", {}, 4, 2, 100, "x", NOW, NOW + 86_400)


def _add_player(store: ConnectionStore, player: str) -> None:
    record = PlayerRecord(T, player, player, hash_token(f"{player}.secret"), NOW, NOW + 86_400)
    store._call(store._client.put_item, TableName=store._table, Item=record.to_item())


def _sockets(store: ConnectionStore) -> SocketService:
    over = (store._client, store._table)  # the same table
    return SocketService(store, TournamentStore(*over), PlayerStore(*over), lambda: float(NOW))


def _items(store: ConnectionStore) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = store._client.scan(TableName=store._table)["Items"]
    return items


def test_connect_checks_the_token_and_the_tournament(store: ConnectionStore) -> None:
    sockets = _sockets(store)
    anna = sockets.connect("c-anna", ConnectRequest(T, token="p-anna.secret"))
    assert (anna.player, anna.table, anna.expires_at) == ("p-anna", "", NOW + CONNECTION_SECONDS)
    with pytest.raises(Unauthorized):
        sockets.connect("c-x", ConnectRequest(T, token="p-anna.wrong"))
    with pytest.raises(Unauthorized):
        sockets.connect("c-x", ConnectRequest(T, token="organizer.secret"))
    with pytest.raises(NotFound):
        sockets.connect("c-x", ConnectRequest("t-nothere"))
    with pytest.raises(NotFound):
        sockets.connect("c-x", ConnectRequest("t-nothere", token="p-anna.secret"))
    for bad in (
        ConnectRequest(""),
        ConnectRequest(T, token="p-anna.secret", table="R1-1"),
        ConnectRequest(T, table="R0-1"),
        ConnectRequest(T, table="R01-1"),
    ):
        with pytest.raises(BadConnect):
            sockets.connect("c-x", bad)
    assert store.get("c-x") is None  # a refused connect leaves nothing behind


def test_every_connection_item_expires_and_disconnect_removes_them_all(
    store: ConnectionStore,
) -> None:
    sockets = _sockets(store)
    before = {(i["pk"]["S"], i["sk"]["S"]) for i in _items(store)}
    sockets.connect("c-anna", ConnectRequest(T, token="p-anna.secret"))
    sockets.connect("c-watch", ConnectRequest(T, table="R2-5"))
    sockets.connect("c-cup", ConnectRequest(T))
    new = [i for i in _items(store) if (i["pk"]["S"], i["sk"]["S"]) not in before]
    assert len(new) == 3 + 3 + 2  # three connections, each on the tournament's list; two sets
    for item in new:
        assert int(item["expires_at"]["N"]) == NOW + CONNECTION_SECONDS, item
    assert store.socket_sets([player_sockets(T, "p-anna"), table_watchers(T, "R2-5")]) == {
        player_sockets(T, "p-anna"): frozenset({"c-anna"}),
        table_watchers(T, "R2-5"): frozenset({"c-watch"}),
    }
    for connection in ("c-anna", "c-watch", "c-cup", "c-cup"):  # the last one again
        sockets.disconnect(connection)
    left = {(i["pk"]["S"], i["sk"]["S"]): i for i in _items(store)}
    assert set(left) - before == {
        (player_sockets(T, "p-anna"), "SOCKETS"),  # emptied sets wait for their TTL
        (table_watchers(T, "R2-5"), "SOCKETS"),
    }
    assert all("sockets" not in left[key] for key in set(left) - before)


def test_a_table_takes_only_so_many_spectators(
    store: ConnectionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("infra.store.connections.MAX_TABLE_WATCHERS", 2)
    sockets = _sockets(store)
    sockets.connect("c-1", ConnectRequest(T, table="R1-1"))
    sockets.connect("c-2", ConnectRequest(T, table="R1-1"))
    with pytest.raises(TooManyWatchers):
        sockets.connect("c-3", ConnectRequest(T, table="R1-1"))
    assert store.get("c-3") is None
    sockets.connect("c-4", ConnectRequest(T, table="R1-2"))  # another table has room
    assert MAX_TABLE_WATCHERS >= 100


def test_a_turn_reaches_the_players_and_spectators_and_a_gone_one_is_forgotten(
    store: ConnectionStore,
) -> None:
    sockets, management = _sockets(store), Management()
    for player in SEATS:
        sockets.connect(f"c-{player}", ConnectRequest(T, token=f"{player}.secret"))
    sockets.connect("c-watch", ConnectRequest(T, table="R2-5"))
    sockets.connect("c-closed", ConnectRequest(T, table="R2-5"))
    management.gone.add("c-closed")
    seating, moves, _ = played(seed=11)
    change = modify(table(seating, moves[:4]), table(seating, moves[:5]))
    pusher = Pusher(store, management)
    pusher.prepare([change])

    report = pusher.push(change, [], 0)
    to_act = get_game("maexchen").to_act(_state(seating, moves[:5]))
    assert (report.gone, report.failures) == (1, [])
    assert report.sent == len(SEATS) + 1  # one table_events each, the turn in one of them
    assert management.posts[0] == (
        f"c-{to_act}",
        management.to(f"c-{to_act}")[0],
    )  # the player to act first
    [turn] = management.to(f"c-{to_act}")
    assert (turn["type"], turn["version"], "your_turn" in turn) == ("table_events", 5, True)
    [watched] = management.to("c-watch")
    assert watched["records"] == records_after(
        replay_log(seating, moves[:5])[1], 4, None, revealed=False
    )
    assert store.get("c-closed") is None
    assert store.socket_sets([table_watchers(T, "R2-5")])[table_watchers(T, "R2-5")] == {"c-watch"}

    management.posts.clear()
    pusher.push(change, [], 0)  # a retried batch: the same again, the gone one not tried
    assert len(management.posts) == report.sent


def test_a_failing_post_or_read_never_raises(store: ConnectionStore) -> None:
    class Broken(Management):
        def post_to_connection(self, *, ConnectionId: str, Data: bytes) -> None:  # noqa: N803
            raise ClientError({"Error": {"Code": "LimitExceededException"}}, "PostToConnection")

    _sockets(store).connect("c-anna", ConnectRequest(T, token="p-anna.secret"))
    seating, _, _ = played(seed=11)
    report = Pusher(store, Broken()).push(insert(table(seating, [])), [])
    assert report.failures == ["c-anna: LimitExceededException"]

    class NoTable(ConnectionStore):
        def socket_sets(self, pks: Any) -> dict[str, frozenset[str]]:
            raise ClientError({"Error": {"Code": "ResourceNotFoundException"}}, "BatchGetItem")

    broken_store = NoTable(store._client, store._table)
    pusher = Pusher(broken_store, Management())
    pusher.prepare([insert(table(seating, []))])
    assert len(pusher.push(insert(table(seating, [])), [], 0).failures) == 1


def test_an_exit_and_the_finish_reach_whoever_listens(store: ConnectionStore) -> None:
    sockets, management = _sockets(store), Management()
    sockets.connect("c-anna", ConnectRequest(T, token="p-anna.secret"))
    sockets.connect("c-cup", ConnectRequest(T))
    sockets.connect("c-watch", ConnectRequest(T, table="R1-1"))
    pusher = Pusher(store, management)
    out = PlayerEliminated(
        event_id="x", tournament=T, player="p-anna", name="p-anna", round=1, table="R1-1",
        table_place=3, measure=2,
    )  # fmt: skip
    pusher.push(StreamChange("MODIFY", None, None, 0.0), [out])
    assert management.to("c-anna") == [
        {"type": "eliminated", "tournament": T, "player": "p-anna", "round": 1,
         "table": "R1-1", "place": 3}
    ]  # fmt: skip
    finished = TournamentFinished(
        event_id="y", tournament=T, champion="p-ben", champion_name="Ben", players=4, top=[],
        standings_path=f"/tournaments/{T}/standings",
    )  # fmt: skip
    management.posts.clear()
    pusher.push(StreamChange("MODIFY", None, None, 0.0), [finished])
    assert sorted(c for c, _ in management.posts) == ["c-anna", "c-cup", "c-watch"]
    assert management.posts[0][1] == {
        "type": "tournament_finished", "tournament": T, "champion": "p-ben",
        "champion_name": "Ben", "players": 4, "standings": f"/tournaments/{T}/standings",
    }  # fmt: skip


def test_a_table_moved_on_within_a_batch_is_pushed_once_with_every_record(
    store: ConnectionStore,
) -> None:
    sockets, management = _sockets(store), Management()
    sockets.connect("c-watch", ConnectRequest(T, table="R2-5"))
    seating, moves, _ = played(seed=11)
    batch = [modify(table(seating, moves[:v]), table(seating, moves[: v + 1])) for v in (4, 5, 6)]
    pusher = Pusher(store, management)
    pusher.prepare(batch)
    for index, change in enumerate(batch):
        pusher.push(change, [], index)
    [pushed] = management.to("c-watch")
    assert pushed["version"] == 7
    assert pushed["records"] == records_after(
        replay_log(seating, moves[:7])[1], 4, None, revealed=False
    )


def test_a_queued_table_tells_its_players_their_place_in_the_queue(
    store: ConnectionStore,
) -> None:
    sockets, management = _sockets(store), Management()
    for player in SEATS:
        sockets.connect(f"c-{player}", ConnectRequest(T, token=f"{player}.secret"))
    capacity = CapacityStore(store._client, store._table, limit=2, table_seconds=240)
    store._client.put_item(
        TableName=store._table, Item={**CAPACITY_KEY, "last_activated": {"N": "4"}}
    )
    seating, _, _ = played(seed=11)
    twin = {**table(seating, []), "kind": {"S": "queued_table"}, "status": {"S": "queued"}}
    change = insert({**twin, "queue_seq": {"N": "7"}})
    pusher = Pusher(store, management, place_of=capacity.place_of)
    pusher.prepare([change])

    before = time.time()
    report = pusher.push(change, [], 0)
    after = time.time()
    assert report.sent == len(SEATS)
    for player in SEATS:
        [queued] = management.to(f"c-{player}")
        assert queued["type"] == "queued"
        assert queued["queue"]["place"] == 7 - 4
        expected = queued["queue"]["expected_start"]
        assert int(before + 3 / 2 * 240) <= expected <= int(after + 3 / 2 * 240)
    assert not Pusher(store, Management()).push(change, [], 0).sent, "unpaced: no place to tell"
