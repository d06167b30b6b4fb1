"""`knobelcup plan` prints the capacity model's plan (docs/capacity.md) and refuses what
it cannot plan with."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.main import main


def test_plan_prints_the_quotas_the_rounds_and_the_cost(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--players", "100000", "--pace", "people"]) == 0
    out = capsys.readouterr().out
    assert "apigateway_rps" in out
    assert "<- binding" in out
    assert "start to champion:" in out
    assert "total" in out


def test_plan_with_the_increases_has_nothing_binding(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--players", "100000", "--with-increases"]) == 0
    out = capsys.readouterr().out
    assert "<- binding" not in out
    assert "every quota holds" in out


def test_an_unknown_quota_in_the_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quotas = tmp_path / "quotas.toml"
    quotas.write_text("apigateway = 1\n", encoding="utf-8")
    assert main(["plan", "--players", "10", "--quotas", str(quotas)]) == 2
    assert "unknown quota(s) apigateway" in capsys.readouterr().err
