"""A table item round-trips exactly, and its moves replay to the state play produced."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.actions import Announce, Doubt, Throw, Timeout
from core.errors import MatchOver
from core.match import Move, Seating, actor, replay, replay_log, replay_step
from core.registry import game_names, get_game
from infra.dice import SeededDice
from infra.store.table_item import (
    DUE_SHARDS,
    TableRecord,
    decode_moves,
    due_shard,
    encode_moves,
    from_item,
    table_of,
    to_item,
)


def played(game_name: str, seed: int, seats: int = 4) -> tuple[Seating, list[Move], object]:
    """A table of `game_name` played to its end by random choices."""
    game = get_game(game_name)
    seating = Seating(game_name, tuple(f"p-{n}" for n in range(seats)), {}, 1)
    state, _ = game.seat(seating.seats, seating.options, seating.survivors)
    dice, rng, moves = SeededDice(seed), random.Random(seed), []
    while (player := game.to_act(state)) is not None:
        legal = game.legal_actions(state)
        action = Timeout() if rng.random() < 0.05 else rng.choice(legal)
        rolled = dice.roll(game.dice_needed(state, action))
        state, _ = game.apply(state, player, action, rolled)
        moves.append(Move(action, rolled))
    return seating, moves, state


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(game_names()), st.integers(0, 10_000))
def test_moves_replay_to_the_state_play_produced(game_name: str, seed: int) -> None:
    seating, moves, final = played(game_name, seed)
    assert replay(seating, moves) == final
    state, log = replay_log(seating, moves)
    assert state == final and len(log) == len(moves) + 1
    assert replay_step(seating, moves, len(moves))[0] == final


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(game_names()), st.integers(0, 10_000), st.integers(2, 12))
def test_a_table_item_round_trips(game_name: str, seed: int, seats: int) -> None:
    seating, moves, _ = played(game_name, seed, seats)
    record = TableRecord(
        tournament="t-abc",
        ref="R2-7",
        seating=seating,
        token_hashes=tuple(f"hash{n}" for n in range(seats)),
        moves=moves,
        names=tuple(f'Spieler {n} "Ü" 🎲' for n in range(seats)),
        last_keys={0: ("k" * 16, 3)},
        ranking=("p-1", "p-0"),
        expires_at=1_900_000_000,
    )
    assert from_item(to_item(record)) == record
    assert decode_moves(encode_moves(moves)) == moves


def test_a_table_stored_before_names_loads_and_names_its_players_by_id() -> None:
    record = replace(_in_play(), names=("Anna", "Ben", "Cem", "Dora"))
    assert record.seat_names() == ("Anna", "Ben", "Cem", "Dora")
    assert record.name_of("p-2") == "Cem"
    item = to_item(record)
    assert item["names"] == {"S": '["Anna","Ben","Cem","Dora"]'}
    del item["names"]
    legacy = from_item(item)
    assert legacy.names == () and legacy.seat_names() == legacy.seating.seats
    assert legacy.name_of("p-2") == "p-2"


def test_moves_are_a_letter_and_their_digits() -> None:
    moves = [Move(Throw(), (5, 3)), Move(Announce(53), ()), Move(Timeout(), ()), Move(Doubt(), ())]
    assert encode_moves(moves) == "t53a53xd"
    assert decode_moves("t53a53xd") == moves
    _, played_moves, _ = played("maexchen", 1)
    assert len(encode_moves(played_moves)) <= 3 * len(played_moves)


def test_the_actor_of_a_move_is_whoever_was_to_act() -> None:
    seating, moves, _ = played("mariechen", 5)
    game = get_game("mariechen")
    for index in range(len(moves)):
        assert actor(seating, moves, index) == game.to_act(replay(seating, moves, index))
    with pytest.raises(MatchOver):
        replay(seating, [*moves, moves[-1]])


def _in_play(**deadlines: int) -> TableRecord:
    seating, moves, _ = played("maexchen", 3)
    return TableRecord(
        tournament="t-abc",
        ref="R2-7",
        seating=seating,
        token_hashes=("h0", "h1", "h2", "h3"),
        moves=moves[:2],
        **deadlines,
    )


def test_a_table_in_play_carries_its_deadline_and_the_index_keys() -> None:
    record = _in_play(deadline=1_800_000_090, due_at=1_800_000_060)
    item = to_item(record)
    assert item["deadline"] == {"N": "1800000090"}
    assert item["due_at"] == {"N": "1800000060"}
    assert item["due_shard"] == {"S": due_shard("t-abc", "R2-7")}
    assert from_item(item) == record
    assert table_of(item["pk"]["S"]) == ("t-abc", "R2-7")

    # not in the index: neither key (a sparse index holds only items with both)
    outside = to_item(_in_play(deadline=1_800_000_090))
    assert "due_at" not in outside and "due_shard" not in outside
    # over: no deadline; the index keys stay until the sweeper takes them away
    over = to_item(replace(record, ranking=("p-1", "p-0", "p-2", "p-3")))
    assert "deadline" not in over and over["due_at"] == {"N": "1800000060"}


def test_the_shard_is_fixed_per_table_and_spreads_tables_over_all_shards() -> None:
    shards = {due_shard("t-abc", f"R1-{n}") for n in range(1, 2001)}
    assert shards == {f"D#{n}" for n in range(DUE_SHARDS)}
    assert due_shard("t-abc", "R1-5") == due_shard("t-abc", "R1-5")
    counts = [
        sum(due_shard("t-abc", f"R1-{n}") == f"D#{s}" for n in range(1, 1601))
        for s in range(DUE_SHARDS)
    ]
    assert min(counts) > 60 and max(counts) < 140  # about 100 each


@pytest.mark.parametrize("pk", ["T#t-abc", "T#t-abc#ROUND#R1-1", "X#t#TABLE#R1-1"])
def test_only_a_table_key_names_a_table(pk: str) -> None:
    with pytest.raises(ValueError, match="not a table key"):
        table_of(pk)


@pytest.mark.parametrize("secret", [True, False])
def test_the_dice_seeds_round_trip_through_the_item_and_a_stream_image(secret: bool) -> None:
    record = _in_play()
    record = replace(
        record,
        server_seed=bytes(range(32)),
        player_seeds=("-", "k3Hq9-wZ", "q7#Lx", "~"),
        dice_secret=secret,
    )
    item = to_item(record)
    assert item["player_seeds"] == {"S": "- k3Hq9-wZ q7#Lx ~"}
    assert ("repeatable_dice" in item) is not secret
    assert from_item(item) == record
    assert from_item(json.loads(json.dumps(item))) == record  # as a stream event carries it


def test_a_table_seated_before_verifiable_dice_reads_without_seeds() -> None:
    item = to_item(_in_play())
    assert not {"server_seed", "player_seeds", "repeatable_dice"} & item.keys()
    legacy = from_item(item)
    assert (legacy.server_seed, legacy.player_seeds, legacy.dice_secret) == (b"", (), True)
