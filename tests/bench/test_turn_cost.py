"""`bench/turn_cost.py` keeps running: a tiny run prints every figure. No time is asserted."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest


def _load_bench() -> ModuleType:
    """The script as a module (bench/ is no package, and tests/ has no __init__.py)."""
    path = Path(__file__).resolve().parents[2] / "bench" / "turn_cost.py"
    spec = importlib.util.spec_from_file_location("turn_cost", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


turn_cost = _load_bench()


def test_a_tiny_run_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert turn_cost.main(["--tables", "1", "--imports", "1"]) == 0
    out = capsys.readouterr().out
    for line in (
        "maexchen:",
        "tables of 4: 1 tables",
        "tables of 6: 1 tables",
        "DynamoDB calls per action: GetItem 1.00, PutItem 1.00",
        "RCU per action: mean",
        "WCU per action: mean",
        "of which deadline index WCU per action: mean 0.00",
        "table item (bytes) over its life: version 0",
        "handler time per action, minus moto:",
        "handler time per action, minus client:",
        "by action (median minus moto, count):",
        "Cold import in a fresh interpreter, median (min) of 1 (Python 3.",
        'import boto3; boto3.client("dynamodb")',
        "import functions.api.app + services()",
        "ratio app + services : bare boto3 client",
        "after a SnapStart restore: renew() + services()",
        "ratio after a SnapStart restore : bare boto3 client",
    ):
        assert line in out, line


@pytest.mark.parametrize("game", ["maexchen", "mariechen", "zweiundvierzig"])
def test_every_action_is_charged_whole_capacity_units(game: str) -> None:
    with turn_cost.bench_environment():
        played = turn_cost.play_round_one(game, tables=1, table_size=4, seed=1)
    assert played.tables == 1 and played.actions
    for action in played.actions:
        assert isinstance(action.rcu, int) and action.rcu >= 1
        assert isinstance(action.wcu, int) and action.wcu >= 1
        assert dict(action.calls) == {"GetItem": 1, "PutItem": 1}  # a turn: one read, one write
        assert action.index_wcu == 0  # no turn writes the deadline index
    versions = next(iter(played.table_sizes.values()))
    assert sorted(versions) == list(range(len(played.actions) + 1))


@pytest.mark.parametrize(
    ("item", "size"),
    [
        ({"ab": {"S": "xyz"}}, 5),
        ({"ab": {"S": "ü"}}, 4),  # UTF-8 bytes, not characters
        ({"n": {"N": "1800000000"}}, 1 + 2),  # "18": one byte per two digits, plus one
        ({"n": {"N": "-0.0123"}}, 1 + 3),  # "123"
        ({"f": {"BOOL": True}, "g": {"NULL": True}}, 4),
        ({"b": {"B": b"\x00\x01"}}, 3),
        ({"m": {"M": {"k": {"S": "v"}}}}, 1 + 3 + (1 + 1 + 1)),
        ({"l": {"L": [{"S": "v"}, {"N": "7"}]}}, 1 + 3 + (1 + 1) + (2 + 1)),
    ],
)
def test_item_sizes_follow_the_dynamodb_rules(item: dict[str, object], size: int) -> None:
    assert turn_cost.item_size(item) == size


def test_a_write_is_charged_the_index_entries_it_puts_deletes_or_moves() -> None:
    due = ("D#3", "1800000060")
    assert turn_cost.index_write_units(None, None) == 0  # not in the (sparse) index
    assert turn_cost.index_write_units(due, due) == 0  # keys only: nothing else projected
    assert turn_cost.index_write_units(None, due) == 1  # put
    assert turn_cost.index_write_units(due, None) == 1  # delete
    assert turn_cost.index_write_units(due, ("D#3", "1800000120")) == 2  # delete and put


def test_capacity_units_round_up_per_4_kb_read_and_1_kb_written() -> None:
    assert [turn_cost.read_units(s) for s in (0, 4096, 4097)] == [1, 1, 2]
    assert turn_cost.write_units(0, 1024) == 1
    assert turn_cost.write_units(1025, 900) == 2  # the larger of the old and the new item
