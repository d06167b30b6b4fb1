"""`bench/udp_bridge.py` keeps running: a tiny run prints every figure. No time is asserted."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest


def _load_bench() -> ModuleType:
    """The script as a module (bench/ is no package, and tests/ has no __init__.py)."""
    path = Path(__file__).resolve().parents[2] / "bench" / "udp_bridge.py"
    spec = importlib.util.spec_from_file_location("udp_bridge_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


udp_bridge_bench = _load_bench()


def test_a_tiny_run_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert udp_bridge_bench.main(["--bots", "2", "--tables", "1", "--penalty-limit", "2"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| server | rounds | turns |")
    api, bridge = rows[2], rows[3]
    assert api.startswith("| HTTP API, no bridge | ") and bridge.startswith("| bridge on the")
    # two tournaments, so two sets of dice (a table's dice depend on its tournament's id,
    # docs/dice.md): both finals are played, not necessarily to the same length
    for row in (api, bridge):
        rounds, turns = (int(cell.replace(",", "")) for cell in row.split("|")[2:4])
        assert 0 < rounds <= turns, row
    assert "the bridge's median turn against the HTTP API, no bridge: " in out
