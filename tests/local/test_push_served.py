"""Pushes over the WebSocket API of the served stack, as `make serve` runs it: real
WebSocket clients (the `websockets` library) connect through the local front, the socket
function records them, and the publisher posts each change through the front's
management API, as it posts through API Gateway's on AWS."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from served import serve_in_session
from suite_dice import suite_seed
from websockets.exceptions import InvalidStatus

from cli.api_client import ApiClient
from cli.push import Subscription, socket_url, subscribe
from infra.store.connections import Connection, ConnectionStore, player_sockets
from local.fake_aws import fake_aws
from local.service import PREFIX

WAIT = 20.0  # seconds a message may take before the test fails (it comes in milliseconds)
Message = dict[str, Any]


class Served:
    """A served stack, its moto and a tournament of three players, not yet started."""

    def __init__(self, url: str, moto: str) -> None:
        self.url, self.socket = url, socket_url(url)
        self.moto = moto
        self.api = ApiClient(url)
        created = self.api.ok(
            "POST", "/tournaments", {"game": "maexchen", "table_size": 3, "advance": 1}
        )
        self.tournament, self.organizer = created["tournament_id"], created["organizer_token"]
        self.api.ok(
            "POST", f"/tournaments/{self.tournament}/registration/open", token=self.organizer
        )
        self.tokens: dict[str, str] = {}
        for name in ("anna", "bernd", "carla"):
            player = self.api.ok("POST", f"/tournaments/{self.tournament}/players", {"name": name})
            self.tokens[player["player_id"]] = player["player_token"]

    def listen(self, player: str | None = None, table: str | None = None) -> Subscription:
        token = self.tokens[player] if player else None
        return subscribe(self.socket, self.tournament, token=token, table=table)

    def start(self) -> None:
        self.api.ok("POST", f"/tournaments/{self.tournament}/start", token=self.organizer)

    def act(self, player: str, version: int, pick: Callable[[list[Any]], Any]) -> Message:
        path = f"/tournaments/{self.tournament}/tables/R1-1"
        view = self.api.ok("GET", path + "/me", token=self.tokens[player])["view"]
        assert view["version"] == version
        action = pick(view["legal_actions"])
        acted: Message = self.api.ok(
            "POST",
            path + "/actions",
            {"version": version, "action": action},
            token=self.tokens[player],
        )
        return acted

    def me(self, player: str) -> dict[str, Any]:
        """What `GET .../me` answers the player: their view and the turn's deadline."""
        path = f"/tournaments/{self.tournament}/tables/R1-1/me"
        answer: dict[str, Any] = self.api.ok("GET", path, token=self.tokens[player])
        return answer

    def view(self, player: str) -> dict[str, Any]:
        """The player's own view of the table, as `GET .../me` answers it."""
        view: dict[str, Any] = self.me(player)["view"]
        return view

    def to_act(self) -> str:
        table = self.api.ok("GET", f"/tournaments/{self.tournament}/tables/R1-1")
        return str(table["view"]["to_act"])

    def store(self) -> ConnectionStore:
        with fake_aws(self.moto):
            client = boto3.client("dynamodb")
        return ConnectionStore(client, f"{PREFIX}-table")


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, str]]:
    """A fresh service in memory with repeatable dice: (its URL, moto's URL)."""
    with serve_in_session("--memory", "--dice-seed", suite_seed("push")) as (_, url, banner):
        moto = next(line.split()[-1] for line in banner.splitlines() if "moto (AWS)" in line)
        yield url, moto


@pytest.fixture
def cup(served: tuple[str, str]) -> Served:
    return Served(*served)


def until(subscription: Subscription, wanted: Callable[[Message], bool]) -> list[Message]:
    """Every message up to and including the first `wanted` one."""
    seen: list[Message] = []
    while True:
        seen.append(subscription.next(timeout=WAIT))
        if wanted(seen[-1]):
            return seen


def _type(kind: str, version: int | None = None) -> Callable[[Message], bool]:
    return lambda m: m["type"] == kind and (version is None or m.get("version") == version)


def _thrown(message: Message) -> list[Any]:
    """The dice of every DiceThrown in a table_events message (None where hidden)."""
    return [
        event["dice"]
        for record in message["records"]
        for event in record["events"]
        if event["type"] == "DiceThrown"
    ]


def test_players_and_spectators_hear_the_table_as_it_happens(cup: Served) -> None:
    players = list(cup.tokens)
    subscriptions = {player: cup.listen(player) for player in players}
    watcher = cup.listen(table="R1-1")
    at_the_table = {"tournament": cup.tournament, "table": "R1-1"}
    cup.start()

    # everyone seated, in one message each; the player to act hears in it that it is
    # their turn, at version 0
    heard = {p: until(s, _type("table_events", 0)) for p, s in subscriptions.items()}
    first = cup.to_act()
    for player, [seated] in heard.items():
        assert {k: seated[k] for k in ("tournament", "table", "seated")} == {
            **at_the_table,
            "seated": True,
        }
        [seating] = seated["records"]
        assert seating["events"][0]["type"] == "TableSeated"
        assert [p["id"] for p in seated["players"]] == seating["events"][0]["seats"]
        if player != first:
            assert "your_turn" not in seated
            continue
        me = cup.me(first)  # what `GET .../me` answers: no read needed to act
        assert seated["your_turn"] == {
            "deadline": me["deadline"],  # the same instant, for the phone's countdown
            "view": me["view"],
        }
        assert isinstance(me["deadline"], int) and me["deadline"] > time.time()
    [watched] = until(watcher, _type("table_events", 0))
    assert [r["version"] for r in watched["records"]] == [0]
    assert "seated" not in watched and "your_turn" not in watched

    # a throw: the thrower sees their dice, the others and the spectator do not
    cup.act(first, 0, lambda legal: next(a for a in legal if a["kind"] == "throw"))
    for player, subscription in subscriptions.items():
        [thrown] = _thrown(until(subscription, _type("table_events", 1))[-1])
        assert (thrown is not None) == (player == first), player
    assert _thrown(until(watcher, _type("table_events", 1))[-1]) == [None]

    # the announcement: the next player hears it is their turn, at version 2
    acted = cup.act(first, 1, lambda legal: next(a for a in legal if a["kind"] == "announce"))
    following = acted["view"]["to_act"]
    assert following != first
    turn = until(subscriptions[following], _type("table_events", 2))[-1]
    me = cup.me(following)
    assert {k: turn[k] for k in ("tournament", "table", "version", "your_turn")} == {
        **at_the_table,
        "version": 2,
        "your_turn": {"deadline": me["deadline"], "view": me["view"]},
    }
    announced = until(watcher, _type("table_events", 2))[-1]
    assert announced["over"] is False
    assert [r["action"]["kind"] for r in announced["records"]] == ["announce"]

    for subscription in (*subscriptions.values(), watcher):
        subscription.__exit__(None, None, None)


def test_a_bad_token_or_an_unknown_tournament_is_refused_at_connect(cup: Served) -> None:
    player = next(iter(cup.tokens))
    with pytest.raises(InvalidStatus) as refused:
        subscribe(cup.socket, cup.tournament, token=cup.tokens[player] + "x")
    assert refused.value.response.status_code == 401
    with pytest.raises(InvalidStatus) as unknown:
        subscribe(cup.socket, "t-nothere")
    assert unknown.value.response.status_code == 404
    with pytest.raises(InvalidStatus) as bad:
        subscribe(cup.socket, cup.tournament, table="table-1")
    assert bad.value.response.status_code == 400


def test_connections_expire_and_a_gone_one_is_forgotten_at_the_next_push(cup: Served) -> None:
    store = cup.store()
    anna = next(iter(cup.tokens))
    pk = player_sockets(cup.tournament, anna)
    with cup.listen(anna) as heard:
        [connection] = store.socket_sets([pk])[pk]
        stored = store.get(connection)
        assert stored is not None and stored.expires_at - stored.connected_at == 2 * 3600
        # a connection API Gateway dropped without a $disconnect: its items stay behind
        stale = Connection("gone-away=", cup.tournament, player=anna, expires_at=stored.expires_at)
        store.add(stale)
        assert store.socket_sets([pk])[pk] == {connection, "gone-away="}
        cup.start()
        until(heard, _type("table_events", 0))  # the seating, posted to the stale one too
        first = cup.to_act()
        cup.act(first, 0, lambda legal: next(a for a in legal if a["kind"] == "throw"))
        # the next change is pushed once the seating's push, forgetting included, is done
        until(heard, _type("table_events", 1))
        assert store.get("gone-away=") is None
        assert store.socket_sets([pk])[pk] == {connection}
