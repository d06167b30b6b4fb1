"""The example bots: exact odds, legal choices at whole tables, and the honest bot's honesty.

Views come from the core game's own `view`, as the API builds a player's view, and
pass through JSON, so the bots see exactly what they would see over HTTP.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from suite_dice import suite_seed

from cli.botkit import load_decider, load_module
from core.actions import Announce, Doubt, Throw, action_from_dict
from core.bracket import SeatTable
from core.bracket.plan import TableRef
from core.dice import read_two_dice
from core.games.maexchen import RANKING, Doubted, MaexchenState
from core.protocol import Game
from core.registry import get_game
from infra.dice import SeededDice
from local.tournament import play_table

BOTS = Path(__file__).resolve().parents[2] / "examples" / "bots"
ODDS: Any = load_module(str(BOTS / "maexchen_odds.py"))
Decide = Callable[[dict[str, Any]], dict[str, Any]]
ALL_DICE = list(itertools.product(range(1, 7), repeat=2))
MAEXCHEN = get_game("maexchen")


def bot(name: str) -> Decide:
    """An example bot's decide function, loaded by path as `knobelcup bot` loads it."""
    return load_decider(str(BOTS / f"{name}.py"))


def as_sent(view: dict[str, object]) -> dict[str, Any]:
    """The view as a client receives it: through JSON."""
    sent: dict[str, Any] = json.loads(json.dumps(view))
    return sent


class ViewBots:
    """Chooses for each seat with that seat's decide, from the seat's own view; checks
    and records every decision."""

    def __init__(self, decide_by_player: Callable[[str], Decide]) -> None:
        self._decide = decide_by_player
        self.decisions: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def choose(self, game: Game[Any], state: Any) -> Any:
        player = game.to_act(state)
        assert player is not None
        view = as_sent(game.view(state, player))
        action = self._decide(player)(view)
        assert action in view["legal_actions"], (view, action)
        self.decisions.append((view, action))
        return action_from_dict(action)


def play_tables(
    game: str, decide_by_player: Callable[[str], Decide], options: dict[str, object], count: int
) -> ViewBots:
    """Play `count` whole tables of 2 to 6 players with seeded dice; every table finishes."""
    bots = ViewBots(decide_by_player)
    dice = SeededDice(suite_seed(f"{game}/{sorted(options.items())}"))
    for number in range(count):
        players = tuple(f"p{seat}" for seat in range(2 + number % 5))
        survivors = 1 if number % 2 or len(players) == 2 else 2
        seating = SeatTable(TableRef(1, number), players, survivors, False)
        played = play_table(get_game(game), seating, options, dice, bots)
        assert sorted(played.outcome.ranking) == sorted(players)
    return bots


# --- the odds --------------------------------------------------------------------------


def _announced(announcement: int, under_cup: tuple[int, int], options: dict[str, object]) -> Any:
    """A two-player Mäxchen table where p0 threw `under_cup` and announced `announcement`."""
    state, _ = MAEXCHEN.seat(["p0", "p1"], options)
    state, _ = MAEXCHEN.apply(state, "p0", Throw(), under_cup)
    state, _ = MAEXCHEN.apply(state, "p0", Announce(announcement))
    return state


def _thrown(announcement: int | None, dice: tuple[int, int], options: dict[str, object]) -> Any:
    """The state after a player threw `dice` facing `announcement` (None: opening)."""
    if announcement is None:
        state, _ = MAEXCHEN.seat(["p0", "p1"], options)
        thrower = "p0"
    else:
        state, thrower = _announced(announcement, (1, 1), options), "p1"
    state, _ = MAEXCHEN.apply(state, thrower, Throw(), dice)
    return state


@pytest.mark.parametrize("allow_equal", [False, True])
@pytest.mark.parametrize("announcement", [None, *RANKING])
def test_beat_probability_counts_the_throws_the_engine_lets_a_player_announce_truthfully(
    announcement: int | None, allow_equal: bool
) -> None:
    options = {"allow_equal": allow_equal}
    truthful = 0
    for dice in ALL_DICE:
        state: MaexchenState = _thrown(announcement, dice, options)
        truthful += Announce(state.in_hand) in MAEXCHEN.legal_actions(state)
    assert ODDS.beat_probability(announcement, allow_equal) == Fraction(truthful, 36)


@pytest.mark.parametrize("announcement", RANKING)
def test_holds_probability_counts_the_throws_a_doubt_finds_holding(announcement: int) -> None:
    held = 0
    for dice in ALL_DICE:
        state = _announced(announcement, dice, {})
        _, events = MAEXCHEN.apply(state, "p1", Doubt())
        doubted = next(e for e in events if isinstance(e, Doubted))
        held += doubted.announcement_held
    assert ODDS.holds_probability(announcement) == Fraction(held, 36)


def test_the_odds_module_reads_dice_and_ranks_values_as_the_core_does() -> None:
    assert ODDS.RANKING == RANKING
    assert [ODDS.throw_value(*dice) for dice in ALL_DICE] == [
        read_two_dice(dice)[0] for dice in ALL_DICE
    ]


# --- legal choices at whole tables -----------------------------------------------------

MAEXCHEN_OPTIONS: list[dict[str, object]] = [
    {},
    {"allow_equal": True},
    {"blind_reroll": True},
    {"allow_equal": True, "blind_reroll": True, "penalty_limit": 2},
]


@pytest.mark.parametrize("options", MAEXCHEN_OPTIONS, ids=str)
@pytest.mark.parametrize("name", ["maexchen_honest", "maexchen_bluffer"])
def test_maexchen_bots_choose_only_legal_actions(name: str, options: dict[str, object]) -> None:
    decide = bot(name)
    bots = play_tables("maexchen", lambda player: decide, options, count=40)
    kinds = {action["kind"] for _, action in bots.decisions}
    assert {"throw", "announce", "doubt"} <= kinds


@pytest.mark.parametrize("options", MAEXCHEN_OPTIONS, ids=str)
def test_honest_and_bluffer_play_each_other(options: dict[str, object]) -> None:
    honest, bluffer = bot("maexchen_honest"), bot("maexchen_bluffer")
    play_tables("maexchen", lambda p: honest if int(p[1:]) % 2 else bluffer, options, count=40)


@pytest.mark.parametrize(
    ("game", "name", "options"),
    [
        ("mariechen", "mariechen_simple", {}),
        ("mariechen", "mariechen_simple", {"direction": "hinten", "schikanen": True}),
        ("zweiundvierzig", "zweiundvierzig_simple", {}),
        ("zweiundvierzig", "zweiundvierzig_simple", {"sticks": 5, "max_throws": 3}),
    ],
)
def test_other_game_bots_choose_only_legal_actions(
    game: str, name: str, options: dict[str, object]
) -> None:
    decide = bot(name)
    bots = play_tables(game, lambda player: decide, options, count=25)
    assert bots.decisions


def test_the_42_bot_stops_and_throws_again() -> None:
    decide = bot("zweiundvierzig_simple")
    bots = play_tables("zweiundvierzig", lambda player: decide, {}, count=10)
    after_a_throw = [action["kind"] for view, action in bots.decisions if view["round"]["throws"]]
    assert "stop" in after_a_throw and "throw" in after_a_throw


# --- honesty ---------------------------------------------------------------------------


def _announce_views(options: dict[str, object]) -> list[dict[str, Any]]:
    """A player's view at the announce stage for every announcement and every throw."""
    views = []
    for announcement in [None, *RANKING]:
        for dice in ALL_DICE:
            state = _thrown(announcement, dice, options)
            views.append(as_sent(MAEXCHEN.view(state, MAEXCHEN.to_act(state))))
    return views


def _is_truthful_choice(view: dict[str, Any], action: dict[str, Any]) -> bool:
    """The honest bot's rule: its own throw whenever that may be announced."""
    truth = {"kind": "announce", "value": view.get("your_throw")}
    return truth not in view["legal_actions"] or action == truth


@pytest.mark.parametrize("options", MAEXCHEN_OPTIONS, ids=str)
def test_the_honest_bot_announces_its_throw_whenever_it_may(options: dict[str, object]) -> None:
    decide = bot("maexchen_honest")
    views = _announce_views(options)
    for view in views:
        action = decide(view)
        assert action in view["legal_actions"]
        assert _is_truthful_choice(view, action), (view, action)
        if action["value"] != view["your_throw"]:  # a forced lie: the lowest value allowed
            values = [a["value"] for a in view["legal_actions"] if a["kind"] == "announce"]
            assert action["value"] == min(values, key=RANKING.index)
    decisions = play_tables("maexchen", lambda player: decide, options, count=20).decisions
    assert all(_is_truthful_choice(view, action) for view, action in decisions)


def test_the_bluffer_chooses_legally_in_every_announce_situation() -> None:
    decide = bot("maexchen_bluffer")
    for options in MAEXCHEN_OPTIONS:
        for view in _announce_views(options):
            assert decide(view) in view["legal_actions"]


def test_the_bluffer_doubts_high_announcements_and_believes_low_ones() -> None:
    bluffer: Any = load_module(str(BOTS / "maexchen_bluffer.py"))
    assert bluffer.doubt_pays(21, False) and bluffer.doubt_pays(66, False)
    assert not bluffer.doubt_pays(31, False) and not bluffer.doubt_pays(52, False)


def test_bots_load_as_one_package_so_they_share_the_odds_module() -> None:
    honest: ModuleType = load_module(str(BOTS / "maexchen_honest.py"))
    assert honest.__name__ == "examples.bots.maexchen_honest"
    assert load_module("examples.bots.maexchen_odds") is ODDS
