"""Verifiable dice through the real handler (docs/dice.md): the commitment and the seeds
from version 0, the player seeds from registration and their replacement, the server
seed kept out of every answer, push message, domain event and log line until the table
is over, and a finished table proven by `knobelcup verify`, tampered copies refused."""

from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from apiclient import Stack
from suite_dice import suite_seed

from cli import verify as verify_command
from core.dice_proof import prove_table
from core.fair_dice import DiceMismatch, verify_dice
from infra.dice import SecretDice, SeededDice, seeded_server_seed
from infra.outbox.publisher import StreamChange, events_of
from infra.outbox.push import table_push
from infra.store.table_item import table_key

SEEDS = ["k3Hq9-wZ", None, "q7#Lx", "~~~~"]  # one player gives none: the default "-"


def _tournament(stack: Stack) -> tuple[str, str]:
    api = stack.api
    created = api.call("POST", "/tournaments", {"game": "maexchen", "table_size": 4, "advance": 1})
    assert created.status == 201, created.body
    tournament, organizer = created.body["tournament_id"], created.body["organizer_token"]
    opened = api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    assert opened.status == 200
    return tournament, organizer


def _register(stack: Stack, tournament: str) -> list[dict[str, Any]]:
    players = []
    for number, seed in enumerate(SEEDS):
        body = {"name": f"bot {number}"} | ({} if seed is None else {"seed": seed})
        answer = stack.api.call("POST", f"/tournaments/{tournament}/players", body)
        assert answer.status == 201, answer.body
        players.append(answer.body)
    return players


def _start(stack: Stack, tournament: str, organizer: str) -> str:
    started = stack.api.call("POST", f"/tournaments/{tournament}/start", token=organizer)
    assert started.status == 202, started.body
    return "R1-1"  # four players at tables of four: one table, the final


def _raw_item(stack: Stack, tournament: str, ref: str) -> dict[str, Any]:
    item: dict[str, Any] = stack.dynamodb.get_item(
        TableName="knobelcup", Key=table_key(tournament, ref), ConsistentRead=True
    )["Item"]
    return item


def _play_to_the_end(
    stack: Stack, tournament: str, ref: str, players: list[dict[str, Any]], seed: int
) -> list[dict[str, Any]]:
    """Random legal actions through the API until the table is over; the raw table item
    after every version (the stream's images)."""
    rng = random.Random(seed)
    path = f"/tournaments/{tournament}/tables/{ref}"
    tokens = {p["player_id"]: p["player_token"] for p in players}
    items = [_raw_item(stack, tournament, ref)]
    while True:
        spectator = stack.api.call("GET", path)
        if spectator.body["over"]:
            return items
        to_act = spectator.body["view"]["to_act"]
        mine = stack.api.call("GET", path + "/me", token=tokens[to_act], viewer=to_act)
        view = mine.body["view"]
        action = rng.choice(view["legal_actions"])
        body = {"version": view["version"], "action": action}
        acted = stack.api.call("POST", path + "/actions", body, token=tokens[to_act], viewer=to_act)
        assert acted.status == 200, acted.body
        stack.api.call("GET", path + "/events", query="after=-1", token=tokens[to_act])
        stack.api.call("GET", path + "/log")
        items.append(_raw_item(stack, tournament, ref))


def _forms(seed: bytes) -> list[str]:
    """Every way the server seed could be written out."""
    return [
        seed.hex(),
        seed.hex().upper(),
        base64.b64encode(seed).decode(),
        base64.urlsafe_b64encode(seed).decode().rstrip("="),
    ]


def _shows(value: Any, seed: bytes) -> bool:
    text = json.dumps(value, default=str)
    return any(form in text for form in _forms(seed))


def test_the_commitment_and_seeds_are_shown_from_version_0_and_the_seed_only_at_the_end(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    tournament, organizer = _tournament(stack)
    players = _register(stack, tournament)
    ref = _start(stack, tournament, organizer)
    path = f"/tournaments/{tournament}/tables/{ref}"
    item = _raw_item(stack, tournament, ref)
    server_seed = base64.b64decode(item["server_seed"]["S"])
    assert len(server_seed) == 32
    # the stack's dice: not secret
    assert server_seed == seeded_server_seed(suite_seed("api"), tournament, ref)
    seated = stack.api.call("GET", path + "/log").body
    seats = seated["records"][0]["events"][0]["seats"]
    by_player = {p["player_id"]: seed or "-" for p, seed in zip(players, SEEDS, strict=True)}
    expected_head = {
        "scheme": "knobelcup-dice-1",
        "commitment": hashlib.sha256(server_seed).hexdigest(),
        "player_seeds": [by_player[player] for player in seats],
        "server_seed": None,
        "secret": False,
    }
    assert seated["dice"] == expected_head and seated["complete"] is False
    for answer in (
        stack.api.call("GET", path),
        stack.api.call("GET", path + "/events"),
        stack.api.call("GET", path + "/me", token=players[0]["player_token"]),
    ):
        assert answer.status == 200 and answer.body["dice"] == expected_head, answer.body

    items = _play_to_the_end(stack, tournament, ref, players, seed=3)

    assert len(items) > 5
    answers = [answer for _, answer in stack.api.answers]
    playing = [a for a in answers if isinstance(a.body, dict) and a.body.get("over") is False]
    finished = [a for a in answers if isinstance(a.body, dict) and a.body.get("over") is True]
    assert len(playing) > 20 and finished
    assert [a.body for a in playing if _shows(a.body, server_seed)] == []
    for answer in finished:  # every answer about the finished table reveals it
        assert answer.body["dice"]["server_seed"] == server_seed.hex()
    for old, new in itertools.pairwise(items):
        change = StreamChange("MODIFY", old, new, 0.0)
        pushed = table_push(change)
        assert pushed is not None
        messages = [pushed.messages(viewer) for viewer in (None, *seats)]
        assert not _shows(messages, server_seed), "a push carries records, never the seed"
        assert not _shows([e.model_dump(mode="json") for e in events_of(change)], server_seed)
    assert not _shows(
        events_of(StreamChange("INSERT", None, items[0], 0.0))[0].model_dump(mode="json"),
        server_seed,
    )
    assert not _shows(capsys.readouterr().out, server_seed), "log lines and metrics"

    log = stack.api.call("GET", path + "/log").body
    proof = prove_table(log)
    assert proof.throws == sum(1 for r in log["records"] if r.get("dice"))
    assert (
        proof.throws > 0
        and list(proof.outcome.ranking) == log["records"][-1]["events"][-1]["ranking"]
    )


def test_a_seed_is_validated_at_registration_and_named_in_the_error(stack: Stack) -> None:
    tournament, _ = _tournament(stack)
    for seed in ("", "two words", "x" * 33, "Würfel", 7):
        answer = stack.api.call(
            "POST", f"/tournaments/{tournament}/players", {"name": "Anna", "seed": seed}
        )
        assert answer.status == 422, answer.body
        assert answer.body["field"] == "seed", answer.body


def test_a_player_replaces_their_seed_until_someone_acts_at_their_table(stack: Stack) -> None:
    tournament, organizer = _tournament(stack)
    players = _register(stack, tournament)
    first = players[1]
    seed_path = f"/tournaments/{tournament}/me/seed"
    before = stack.api.call("PUT", seed_path, {"seed": "before-start"}, token=first["player_token"])
    assert before.status == 200 and before.body["table"] is None, before.body
    refused = stack.api.call("PUT", seed_path, {"seed": "a b"}, token=first["player_token"])
    assert refused.status == 422 and refused.body["field"] == "seed"
    assert stack.api.call("PUT", seed_path, {"seed": "x"}).status == 401
    ref = _start(stack, tournament, organizer)
    path = f"/tournaments/{tournament}/tables/{ref}"
    seated = stack.api.call("GET", path).body
    seats = [p["id"] for p in seated["players"]]
    assert seated["dice"]["player_seeds"][seats.index(first["player_id"])] == "before-start"

    at_zero = stack.api.call("PUT", seed_path, {"seed": "at-zero"}, token=first["player_token"])
    assert at_zero.status == 200 and at_zero.body["table"] == ref, at_zero.body
    head = stack.api.call("GET", path).body["dice"]
    assert head["player_seeds"][seats.index(first["player_id"])] == "at-zero"

    to_act = stack.api.call("GET", path).body["view"]["to_act"]
    token = next(p["player_token"] for p in players if p["player_id"] == to_act)
    thrown = stack.api.call(
        "POST", path + "/actions", {"version": 0, "action": {"kind": "throw"}}, token=token
    )
    assert thrown.status == 200, thrown.body
    late = stack.api.call("PUT", seed_path, {"seed": "too-late"}, token=first["player_token"])
    assert late.status == 200 and late.body["table"] is None, late.body  # later tables only
    assert stack.api.call("GET", path).body["dice"] == head  # the table's seeds stay
    item = _raw_item(stack, tournament, ref)
    drawn = [int(face) for face in item["moves"]["S"][1:3]]
    from core.fair_dice import dice  # noqa: PLC0415

    assert tuple(drawn) == dice(
        base64.b64decode(item["server_seed"]["S"]),
        tournament=tournament,
        table=ref,
        version=1,
        count=2,
        seeds=head["player_seeds"],
    )


@pytest.fixture
def finished_log(stack: Stack, tmp_path: Path) -> Path:
    """A finished table's audit log, saved as a file."""
    tournament, organizer = _tournament(stack)
    players = _register(stack, tournament)
    ref = _start(stack, tournament, organizer)
    _play_to_the_end(stack, tournament, ref, players, seed=5)
    log = stack.api.call("GET", f"/tournaments/{tournament}/tables/{ref}/log").body
    assert log["complete"]
    saved = tmp_path / "log.json"
    saved.write_text(json.dumps(log))
    return saved


def _verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = verify_command.run(argparse.Namespace(source=str(path)))
    return code, capsys.readouterr().out


def _tampered(path: Path, change: Any) -> Path:
    log = json.loads(path.read_text())
    changed = copy.deepcopy(log)
    change(changed)
    other = path.with_name("tampered.json")
    other.write_text(json.dumps(changed))
    return other


def _first_throw(log: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = next(r for r in log["records"] if r.get("dice"))
    return record


def test_knobelcup_verify_proves_a_saved_log(
    finished_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _verify(finished_log, capsys)
    log = json.loads(finished_log.read_text())
    throws = sum(1 for r in log["records"] if r.get("dice"))
    assert code == 0, out
    assert f"all {throws} throws verified" in out and "not secret" in out


def _change_a_die(log: dict[str, Any]) -> None:
    record = _first_throw(log)
    record["dice"][0] = record["dice"][0] % 6 + 1


def _change_the_seed(log: dict[str, Any]) -> None:
    log["dice"]["server_seed"] = hashlib.sha256(b"another").hexdigest()


def _change_a_player_seed(log: dict[str, Any]) -> None:
    """A player's seed changed so that the first die of the first throw comes out
    otherwise (one change in six leaves it: then the next suffix is taken)."""
    first = _first_throw(log)["version"]
    seed = log["dice"]["player_seeds"][0]
    for suffix in "xyzuvwstqr":
        log["dice"]["player_seeds"][0] = seed + suffix
        try:
            verify_dice(log["tournament"], log["table"], log["dice"], log["records"])
        except DiceMismatch as mismatch:
            if f"throw at version {first} " in str(mismatch) and "die 1 " in str(mismatch):
                return
    raise AssertionError("no changed seed changed the first throw")


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (_change_a_die, "die 1 shows"),
        (_change_the_seed, "the commitment shown from the seating"),
        (_change_a_player_seed, "die 1 shows"),
    ],
    ids=["one-die", "server-seed", "player-seed"],
)
def test_knobelcup_verify_refuses_a_tampered_log_naming_the_first_bad_throw(
    finished_log: Path, capsys: pytest.CaptureFixture[str], change: Any, named: str
) -> None:
    first = _first_throw(json.loads(finished_log.read_text()))["version"]
    code, out = _verify(_tampered(finished_log, change), capsys)
    assert code == 1, out
    assert out.startswith("NOT VERIFIED") and named in out, out
    if change is not _change_the_seed:
        assert f"throw at version {first} " in out, out


def test_knobelcup_verify_cannot_read_what_is_no_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none.json"
    assert verify_command.run(argparse.Namespace(source=str(missing))) == 2
    assert "cannot read the log" in capsys.readouterr().err


def test_secret_dice_are_fresh_for_every_table_and_marked_secret() -> None:
    dice = SecretDice()
    seeds = {dice.server_seed("t-same", "R1-1") for _ in range(50)}
    assert len(seeds) == 50 and all(len(seed) == 32 for seed in seeds)
    assert dice.secret is True
    seeded = SeededDice("s")
    assert seeded.secret is False
    assert seeded.server_seed("t-a", "R1-1") == seeded.server_seed("t-a", "R1-1")
    assert seeded.server_seed("t-a", "R1-1") != seeded.server_seed("t-a", "R1-2")


SCRIPT = [(2, 1), (6, 6), (3, 1), (5, 4)]  # Mäxchen, a Pasch, 31 and 54


@pytest.mark.scripted_dice({"R1-1": SCRIPT})
def test_scripted_dice_throw_their_script_at_a_committed_table(stack: Stack) -> None:
    tournament, organizer = _tournament(stack)
    players = _register(stack, tournament)
    ref = _start(stack, tournament, organizer)
    committed = stack.api.call("GET", f"/tournaments/{tournament}/tables/{ref}/log").body["dice"]

    _play_to_the_end(stack, tournament, ref, players, seed=5)

    log = stack.api.call("GET", f"/tournaments/{tournament}/tables/{ref}/log").body
    thrown = [tuple(r["dice"]) for r in log["records"] if r.get("dice")]
    assert thrown[: len(SCRIPT)] == SCRIPT
    revealed = bytes.fromhex(log["dice"]["server_seed"])
    assert (
        hashlib.sha256(revealed).hexdigest() == committed["commitment"] == log["dice"]["commitment"]
    )
    assert log["dice"]["secret"] is False
    with pytest.raises(DiceMismatch, match="die"):  # scripted faces do not follow from the seed
        verify_dice(tournament, ref, log["dice"], log["records"])
