"""The bot kit's loading and the `knobelcup` command line (the parts that need no service)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

from cli.botkit import BotLoadError, BotResult, bot_name, load_decider, load_module
from cli.main import main

BOTS = Path(__file__).resolve().parents[2] / "examples" / "bots"
DECIDE = "def decide(view):\n    return view['legal_actions'][0]\n"


def test_a_decider_loads_by_dotted_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "kc_pack").mkdir()
    (tmp_path / "kc_pack" / "__init__.py").write_text("")
    (tmp_path / "kc_pack" / "first.py").write_text(DECIDE)
    monkeypatch.syspath_prepend(str(tmp_path))
    decide = load_decider("kc_pack.first")
    assert decide({"legal_actions": [{"kind": "throw"}]}) == {"kind": "throw"}


def test_a_lone_file_loads_by_path_and_may_import_its_neighbours(tmp_path: Path) -> None:
    (tmp_path / "kc_helper.py").write_text("FIRST = 0\n")
    (tmp_path / "kc_lone.py").write_text(
        "from kc_helper import FIRST\n\n"
        "def decide(view):\n    return view['legal_actions'][FIRST]\n"
    )
    decide = load_decider(str(tmp_path / "kc_lone.py"))
    assert decide({"legal_actions": [{"kind": "stop"}]}) == {"kind": "stop"}


def test_a_file_in_a_package_loads_under_its_dotted_name() -> None:
    module = load_module(str(BOTS / "maexchen_bluffer.py"))
    assert module.__name__ == "examples.bots.maexchen_bluffer"
    assert load_decider(str(BOTS / "maexchen_bluffer.py")) is module.decide
    assert isinstance(sys.modules["examples.bots.maexchen_odds"], ModuleType)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("X = 1\n", "defines no decide(view) function"),
        ("decide = 3\n", "is not a function"),
    ],
)
def test_a_module_without_a_decide_function_is_named(
    tmp_path: Path, source: str, message: str
) -> None:
    path = tmp_path / "kc_nodecide.py"
    path.write_text(source)
    with pytest.raises(BotLoadError) as error:
        load_decider(str(path))
    assert message in str(error.value) and "kc_nodecide.py" in str(error.value)


@pytest.mark.parametrize(
    ("spec", "message"),
    [("no/such/bot.py", "no bot file 'no/such/bot.py'"), ("no_such_bot_module", "cannot import")],
)
def test_a_missing_bot_is_named(spec: str, message: str) -> None:
    with pytest.raises(BotLoadError, match=message):
        load_decider(spec)


def test_a_bot_that_does_not_import_is_named(tmp_path: Path) -> None:
    (tmp_path / "kc_broken.py").write_text("import kc_not_there\n")
    with pytest.raises(BotLoadError, match=r"cannot import bot module .*kc_not_there"):
        load_decider(str(tmp_path / "kc_broken.py"))


def test_bots_are_named_after_their_module() -> None:
    assert bot_name("examples/bots/maexchen_honest.py") == "maexchen_honest"
    assert bot_name("examples.bots.maexchen_bluffer") == "maexchen_bluffer"


def test_a_result_reads_as_one_line() -> None:
    assert (
        BotResult("b-1", "p-1", 3, True, 2, 17).describe() == "b-1: place 3 (2 tables, 17 actions)"
    )
    stopped = BotResult("b-2", "p-2", None, False, 1, 0, "the service rejected it")
    assert stopped.describe() == "b-2: stopped: the service rejected it"


def test_the_bot_command_names_a_module_without_decide(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "kc_empty.py"
    path.write_text("")
    assert main(["bot", str(path), "--tournament", "t-x"]) == 2
    assert "defines no decide(view) function" in capsys.readouterr().err


def test_the_bot_command_imports_dotted_names_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "kc_here.py").write_text(DECIDE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    unreachable = "http://127.0.0.1:9"  # nothing listens on the discard port
    assert main(["bot", "kc_here", "--url", unreachable, "--tournament", "t-x"]) == 1
    assert "kc_here-1: stopped: " in capsys.readouterr().out


@pytest.mark.parametrize("command", ["serve", "demo"])
def test_serve_and_demo_get_every_further_argument(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    received: list[list[str]] = []
    stand_in = ModuleType(f"cli.{command}")
    stand_in.main = lambda argv: received.append(argv) or 7  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, f"cli.{command}", stand_in)
    assert main([command, "--port", "0", "--help"]) == 7
    assert received == [["--port", "0", "--help"]]


def test_play_needs_a_name_or_a_token(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["play", "--tournament", "t-x"])
    assert "one of the arguments --name --token is required" in capsys.readouterr().err
