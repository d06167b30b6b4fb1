"""The dice scheme of docs/dice.md: its fixed vectors, recomputed from the document alone
(hashlib and hmac, no project code) and by `core.fair_dice`, and the checks a verifier
makes of a log."""

from __future__ import annotations

import hashlib
import hmac
import re
from collections import Counter
from pathlib import Path

import pytest

from core import fair_dice
from core.fair_dice import DiceMismatch, InvalidPlayerSeed, check_player_seed, commitment, die

DOC = (Path(__file__).resolve().parents[2] / "docs" / "dice.md").read_text(encoding="utf-8")
VECTORS_PART = DOC.split("## Fixed vectors", 1)[1]
VECTOR_ROW = re.compile(
    r"^\| (\d+) \| (\d+) \| `([!-~]+)` \| `([0-9a-f]{64})` \| ([1-6]) \|$", re.M
)


def _doc_value(label: str) -> str:
    found = re.search(rf"^{label} +(.+)$", VECTORS_PART, re.M)
    assert found is not None, label
    return found[1].strip()


SERVER_SEED = bytes.fromhex(_doc_value("server seed"))
TOURNAMENT = _doc_value("tournament")
TABLE = _doc_value("table")
SEEDS = _doc_value("seeds").split("(")[0].split()
VECTORS = [
    (int(v), int(i), seed, digest, int(face))
    for v, i, seed, digest, face in VECTOR_ROW.findall(VECTORS_PART)
]


def independent_die(key: bytes, version: int, index: int, seeds: list[str]) -> tuple[str, int]:
    """Die `index` of version `version` as the document's pseudocode says, written
    without the project's code: the first digest (hex) and the face."""
    first = ""
    for attempt in range(10):
        lines = ["knobelcup-dice-1", TOURNAMENT, TABLE, str(version), str(index), str(attempt)]
        message = "\n".join([*lines, *seeds]).encode("utf-8")
        digest = hmac.new(key, message, hashlib.sha256).digest()
        first = first or digest.hex()
        for byte in digest:
            if byte < 252:
                return first, byte % 6 + 1
    raise AssertionError("ten attempts rejected")


def test_the_document_states_its_vectors() -> None:
    assert bytes(range(32)) == SERVER_SEED
    assert (TOURNAMENT, TABLE, SEEDS) == ("t-7kq2m9xw4p", "R1-3", ["-", "anna-42", "q7#Lx"])
    assert len(VECTORS) == 7
    assert any(digest[:2] >= "fc" for *_, digest, _ in VECTORS), "a vector shows a rejection"


def test_the_commitment_is_the_documented_sha256() -> None:
    documented = _doc_value("commitment")
    assert hashlib.sha256(SERVER_SEED).hexdigest() == documented
    assert commitment(SERVER_SEED) == documented


@pytest.mark.parametrize(("version", "index", "second_seed", "digest", "face"), VECTORS)
def test_every_vector_holds_by_the_document_and_by_the_service(
    version: int, index: int, second_seed: str, digest: str, face: int
) -> None:
    seeds = [SEEDS[0], second_seed, SEEDS[2]]
    assert independent_die(SERVER_SEED, version, index, seeds) == (digest, face)
    served = die(
        SERVER_SEED, tournament=TOURNAMENT, table=TABLE, version=version, index=index, seeds=seeds
    )
    assert served == face


def test_the_documented_message_is_the_one_signed() -> None:
    message = fair_dice.die_message(
        tournament=TOURNAMENT, table=TABLE, version=1, index=0, attempt=0, player_seeds=SEEDS
    )
    assert f"`{message!r}`" in DOC


def test_faces_are_uniform_without_modulo_bias() -> None:
    """Every face about 1/6 over 6,000 dice: a modulo of raw bytes would favour 1 to 4."""
    faces = Counter(
        die(SERVER_SEED, tournament="t", table="R1-1", version=v, index=0, seeds=["-"])
        for v in range(1, 6001)
    )
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert all(880 <= count <= 1120 for count in faces.values()), faces


def test_a_fully_rejected_digest_moves_to_the_next_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    real = hmac.digest
    calls: list[bytes] = []

    def first_all_rejected(key: bytes, message: bytes, name: str) -> bytes:
        calls.append(message)
        return bytes([255] * 32) if len(calls) == 1 else real(key, message, name)

    monkeypatch.setattr(fair_dice.hmac, "digest", first_all_rejected)
    face = die(SERVER_SEED, tournament=TOURNAMENT, table=TABLE, version=1, index=0, seeds=SEEDS)
    assert [m.split(b"\n")[5] for m in calls] == [b"0", b"1"]  # the attempt line
    assert face == independent_attempt_one()


def independent_attempt_one() -> int:
    message = "\n".join(["knobelcup-dice-1", TOURNAMENT, TABLE, "1", "0", "1", *SEEDS]).encode()
    byte = next(b for b in hmac.new(SERVER_SEED, message, hashlib.sha256).digest() if b < 252)
    return byte % 6 + 1


@pytest.mark.parametrize("seed", ["-", "k3Hq9-wZ", "~" * 32, "q7#Lx"])
def test_printable_ascii_seeds_are_accepted(seed: str) -> None:
    assert check_player_seed(seed) == seed


@pytest.mark.parametrize(
    ("seed", "complaint"),
    [
        ("", "1 to 32 characters, not 0"),
        ("x" * 33, "not 33"),
        ("two words", "U+0020"),
        ("tab\there", "U+0009"),
        ("line\nbreak", "U+000A"),
        ("Würfel", "U+00FC"),
    ],
)
def test_other_seeds_are_refused_naming_why(seed: str, complaint: str) -> None:
    with pytest.raises(InvalidPlayerSeed, match=re.escape(complaint)) as refused:
        check_player_seed(seed)
    assert refused.value.field == "seed"


def _log(faces: list[tuple[int, int]]) -> tuple[dict[str, object], list[dict[str, object]]]:
    """A head and records whose dice follow from the vectors' seeds."""
    head = fair_dice.table_dice(SERVER_SEED, SEEDS, over=True, secret=True).as_dict()
    seated = {"version": 0, "events": [{"type": "TableSeated", "seats": ["a", "b", "c"]}]}
    records: list[dict[str, object]] = [seated]
    for version, count in faces:
        drawn = fair_dice.dice(
            SERVER_SEED,
            tournament=TOURNAMENT,
            table=TABLE,
            version=version,
            count=count,
            seeds=SEEDS,
        )
        records.append({"version": version, "player": "a", "dice": list(drawn)})
    return head, records


def test_a_log_whose_dice_follow_from_its_seeds_verifies() -> None:
    head, records = _log([(1, 2), (2, 0), (3, 2)])
    assert fair_dice.verify_dice(TOURNAMENT, TABLE, head, records) == 2


def test_one_changed_die_is_named() -> None:
    head, records = _log([(1, 2), (2, 0), (3, 2)])
    dice = records[3]["dice"]
    assert isinstance(dice, list)
    dice[1] = dice[1] % 6 + 1
    with pytest.raises(DiceMismatch, match=r"throw at version 3 .*die 2 shows"):
        fair_dice.verify_dice(TOURNAMENT, TABLE, head, records)


def test_a_server_seed_other_than_the_committed_one_fails() -> None:
    head, records = _log([(1, 2)])
    head["server_seed"] = bytes(32).hex()
    with pytest.raises(DiceMismatch, match="commitment"):
        fair_dice.verify_dice(TOURNAMENT, TABLE, head, records)


def test_a_changed_player_seed_fails_at_the_first_throw() -> None:
    head, records = _log([(1, 2), (2, 2)])
    head["player_seeds"] = ["-", "anna-43", "q7#Lx"]
    with pytest.raises(DiceMismatch, match="throw at version 1"):
        fair_dice.verify_dice(TOURNAMENT, TABLE, head, records)


def test_a_log_of_a_table_in_play_cannot_be_verified() -> None:
    head, records = _log([(1, 2)])
    head["server_seed"] = None
    with pytest.raises(DiceMismatch, match="not revealed"):
        fair_dice.verify_dice(TOURNAMENT, TABLE, head, records)


def test_a_seed_too_few_or_another_scheme_fails() -> None:
    head, records = _log([(1, 2)])
    with pytest.raises(DiceMismatch, match="2 player seeds for 3 seats"):
        fair_dice.verify_dice(TOURNAMENT, TABLE, {**head, "player_seeds": SEEDS[:2]}, records)
    with pytest.raises(DiceMismatch, match="unknown dice scheme"):
        fair_dice.verify_dice(TOURNAMENT, TABLE, {**head, "scheme": "other"}, records)


def test_the_seed_is_shown_only_once_over() -> None:
    playing = fair_dice.table_dice(SERVER_SEED, SEEDS, over=False, secret=True).as_dict()
    assert playing["server_seed"] is None
    assert playing["commitment"] == commitment(SERVER_SEED)
    assert SERVER_SEED.hex() not in str(playing)
    over = fair_dice.table_dice(SERVER_SEED, SEEDS, over=True, secret=False).as_dict()
    assert over["server_seed"] == SERVER_SEED.hex() and over["secret"] is False
