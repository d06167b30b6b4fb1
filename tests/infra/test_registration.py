"""Registration counts on 64 shards, the less full of two a player's id names: no item
takes every registration, and the shards stay within a few writes of N/64."""

from __future__ import annotations

import random

import boto3
import pytest

from infra.bootstrap import build_services
from infra.errors import PlayerLimitReached
from infra.settings import Settings
from infra.store.registration import SHARDS, shard_capacity, shards_for
from local.fake_aws import fake_aws
from local.moto_atomic import moto_server
from local.provision import create_tables
from local.write_counter import WriteCounter, item_kind


def test_two_choices_keep_ten_thousand_registrations_within_ten_of_n_over_the_shards() -> None:
    players = 10_000
    alphabet = "abcdefghijkmnpqrstuvwxyz23456789"  # as the service's ids, seeded here
    chance = random.Random(16)
    taken = dict.fromkeys(range(SHARDS), 0)
    for _ in range(players):
        player = "p-" + "".join(chance.choices(alphabet, k=10))
        taken[shards_for(player, taken)[0]] += 1
    assert sum(taken.values()) == players
    assert max(taken.values()) <= players // SHARDS + 10, taken


def test_a_player_tries_every_shard_once() -> None:
    order = shards_for("p-abcdefghjk", {})
    assert sorted(order) == list(range(SHARDS))


@pytest.mark.parametrize("limit", [1, 15, 16, 17, 1_000_003])
def test_the_shards_share_the_limit_exactly(limit: int) -> None:
    shares = [shard_capacity(limit, shard) for shard in range(SHARDS)]
    assert sum(shares) == limit
    assert max(shares) - min(shares) <= 1


def test_registrations_on_moto_write_no_shard_more_than_its_share_plus_10() -> None:
    players, limit = 400, 390
    writes = WriteCounter()
    # moto's server, not `mock_aws`: in process, moto copies the whole table and its
    # stream before every transaction, and 400 registrations took gigabytes
    with moto_server() as url, fake_aws(url):
        client = boto3.client("dynamodb")
        create_tables(client, names={"KnobelcupTable": "knobelcup"})
        services = build_services(
            Settings(table_name="knobelcup", event_bus="bus"), client=writes.wrap(client)
        )
        cup, token = services.tournaments.create(
            name="cup",
            game="maexchen",
            options={},
            table_size=6,
            advance=2,
            player_limit=limit,
            turn_timeout_seconds=None,
        )
        services.tournaments.set_registration(cup.id, token, open=True)
        refused = 0
        for number in range(players):
            try:
                services.tournaments.register(cup.id, f"p{number}")
            except PlayerLimitReached:
                refused += 1
        assert (services.tournaments.get(cup.id).player_count, refused) == (limit, 10)
    shards = [n for key, n in writes.by_item.items() if item_kind(key) == "registration shard"]
    assert len(shards) == SHARDS
    # each shard: its creation, the opening, and its share of the registrations
    assert max(shards) <= 2 + limit // SHARDS + 10, shards
    assert writes.hottest("tournament")[1] <= 3, "the tournament item counts no registration"
    claims = [n for key, n in writes.by_item.items() if item_kind(key) == "name claim"]
    assert len(claims) == limit and max(claims) == 1, "a name claim is written once"
