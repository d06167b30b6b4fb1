"""The bot kit: loading bots, the `knobelcup` command line, and bots playing whole
tournaments over HTTP against the local service."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import pytest
from suite_dice import suite_seed

from cli.api_client import ApiClient
from cli.botkit import BotLoadError, BotResult, bot_name, load_decider, load_module, run_bot
from cli.main import main
from local.service import running_service

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
    command = ["bot", "kc_here", "--url", unreachable, "--tournament", "t-x"]
    assert main([*command, "--retry-budget", "0.5"]) == 1
    out = capsys.readouterr().out
    assert "kc_here-1: stopped: POST /tournaments/t-x/players: gave up after " in out
    assert "ConnectionRefusedError" in out


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


# --- over HTTP, against the local service ----------------------------------------------


@pytest.fixture(scope="module")
def service_url() -> Iterator[str]:
    """The whole service, on moto's server behind a real HTTP server."""
    with running_service(dice_seed=suite_seed("botkit")) as service:
        yield service.url


def organize(url: str, game: str, **settings: object) -> tuple[ApiClient, str, str]:
    """A client for the organizer, and a new tournament open for registration."""
    organizer = ApiClient(url)
    made = organizer.ok("POST", "/tournaments", {"game": game, "name": "Cup", **settings})
    tournament, token = made["tournament_id"], made["organizer_token"]
    organizer.ok("POST", f"/tournaments/{tournament}/registration/open", token=token)
    return organizer, tournament, token


def start_when_registered(organizer: ApiClient, tournament: str, token: str, count: int) -> None:
    """Start the tournament once `count` players have registered."""
    deadline = time.monotonic() + 30
    while organizer.ok("GET", f"/tournaments/{tournament}")["player_count"] < count:
        assert time.monotonic() < deadline, "the players did not register"
        time.sleep(0.05)
    organizer.ok("POST", f"/tournaments/{tournament}/start", token=token)


def test_six_bots_play_a_maexchen_tournament_to_a_champion(service_url: str) -> None:
    organizer, tournament, token = organize(service_url, "maexchen", table_size=3, advance=1)
    decide = load_decider(str(BOTS / "maexchen_honest.py"))

    def bot(number: int) -> BotResult:
        client = ApiClient(service_url)  # one client per thread
        return run_bot(client, tournament, f"honest-{number}", decide, poll_seconds=0.05)

    with ThreadPoolExecutor(max_workers=6) as pool:
        playing = [pool.submit(bot, number) for number in range(1, 7)]
        start_when_registered(organizer, tournament, token, 6)
        results = [future.result(timeout=120) for future in playing]

    finished = organizer.ok("GET", f"/tournaments/{tournament}")
    assert finished["status"] == "finished"
    assert all(result.error is None and result.tables >= 1 for result in results)
    assert sorted(result.place for result in results if result.place) == [1, 2, 3, 4, 5, 6]
    champion = next(result for result in results if result.place == 1)
    assert finished["champion"] == champion.player_id and not champion.eliminated
    assert champion.tables == 2  # the round's table and the final


def test_a_bot_whose_action_is_refused_stops_and_says_why(
    service_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = tmp_path / "kc_wrong.py"
    wrong.write_text("def decide(view):\n    return {'kind': 'announce', 'value': 7}\n")
    organizer, tournament, token = organize(
        service_url, "maexchen", table_size=2, advance=1, turn_timeout_seconds=1,
        options={"penalty_limit": 1},
    )  # fmt: skip
    honest = load_decider(str(BOTS / "maexchen_honest.py"))
    command = ["bot", str(wrong), "--url", service_url, "--tournament", tournament]
    with ThreadPoolExecutor(max_workers=2) as pool:
        wrong_bots = pool.submit(main, [*command, "--poll", "0.05"])
        right_bot = pool.submit(
            run_bot, ApiClient(service_url), tournament, "honest", honest, poll_seconds=0.05
        )
        start_when_registered(organizer, tournament, token, 2)
        assert wrong_bots.result(timeout=60) == 1
        # the refused bot no longer acts: its turn times out, and that puts it out
        assert right_bot.result(timeout=60).place == 1
    out = capsys.readouterr().out
    assert "kc_wrong-1 registered as p-" in out
    assert (
        "kc_wrong-1: stopped: the service rejected {'kind': 'announce', 'value': 7}: "
        "illegal_action: throw before you announce"
    ) in out


def test_the_readme_s_bot_section_names_every_action_and_the_bot_options() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Bots") : readme.index("## The HTTP API")]
    for kind in ("throw", "doubt", "announce", "blind_reroll", "stop", "concede"):
        assert f"`{kind}`" in section, kind
    assert "rank order" in section and "31, 32, 41" in section
    assert "only in the view of the player\nto act" in section
    for option in ("KNOBELCUP_URL", "--join-code", "--think", "--pace"):
        assert option in section, option
