"""The terminal player: what it shows of real views, how it asks for a choice, and a
scripted game against the local service.

The views for the text come from the core games' own `view`, as the API builds them.
"""

from __future__ import annotations

import io
import json
import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from cli.api_client import ApiClient
from cli.botkit import BotResult, load_decider, run_bot
from cli.play import Player, play
from cli.table_text import change_lines, choice_label, result_lines, seat_lines, situation_lines
from core.actions import Announce, Doubt, Stop, Throw
from core.registry import get_game
from local.service import running_service

BOTS = Path(__file__).resolve().parents[2] / "examples" / "bots"

MAEXCHEN = get_game("maexchen")


def sent(view: dict[str, object]) -> dict[str, Any]:
    """A view as the client receives it."""
    received: dict[str, Any] = json.loads(json.dumps(view))
    return received


def test_a_maexchen_turn_shows_the_seats_the_announcement_and_the_own_dice() -> None:
    state, _ = MAEXCHEN.seat(["ann", "bob"])
    state, _ = MAEXCHEN.apply(state, "ann", Throw(), (3, 5))
    state, _ = MAEXCHEN.apply(state, "ann", Announce(62))
    before = sent(MAEXCHEN.view(state, "bob"))
    state, _ = MAEXCHEN.apply(state, "bob", Throw(), (4, 4))
    view = sent(MAEXCHEN.view(state, "bob"))
    assert seat_lines(view, "bob") == [
        "   ann: 0 penalty points",
        " > bob (you): 0 penalty points",
    ]
    assert situation_lines(view, "bob") == [
        "Round 1: the announcement is 62, by ann.",
        "Your dice under the cup: 44",
    ]
    labels = [choice_label(action, view, "bob") for action in view["legal_actions"]]
    assert labels[0] == "Announce 63" and "Announce 44 (your throw)" in labels
    assert labels[-1] == "Announce 21 - Maexchen!"
    assert [choice_label(a, before, "bob") for a in before["legal_actions"]] == [
        "Doubt ann's 62: lift the cup",
        "Believe the 62 and throw",
    ]


def test_what_others_did_is_told_between_two_looks() -> None:
    state, _ = MAEXCHEN.seat(["ann", "bob", "cid"])
    state, _ = MAEXCHEN.apply(state, "ann", Throw(), (1, 3))
    before = sent(MAEXCHEN.view(state, "cid"))
    state, _ = MAEXCHEN.apply(state, "ann", Announce(55))
    announced = sent(MAEXCHEN.view(state, "cid"))
    assert change_lines(before, announced, "cid") == ["ann announced 55.", "It is bob's turn."]
    state, _ = MAEXCHEN.apply(state, "bob", Doubt())
    doubted = sent(MAEXCHEN.view(state, "cid"))
    assert change_lines(announced, doubted, "cid") == [
        "ann got 1 penalty point (1 now).",
        "Round 2: ann starts.",
        "It is ann's turn.",
    ]


def test_a_42_turn_offers_to_stop_with_the_last_throw() -> None:
    game = get_game("zweiundvierzig")
    state, _ = game.seat(["ann", "bob"])
    state, _ = game.apply(state, "ann", Throw(), (2, 4))
    view = sent(game.view(state, "ann"))
    assert [choice_label(a, view, "ann") for a in view["legal_actions"]] == [
        "Throw again",
        "Stop with 42",
    ]
    assert "Your throws: 42" in situation_lines(view, "ann")
    state, _ = game.apply(state, "ann", Stop())
    after = sent(game.view(state, "bob"))
    assert change_lines(view, after, "bob")[0] == "ann finished: 42 after 1 throw."


def test_a_finished_table_says_the_place_and_whether_the_player_is_through() -> None:
    view = {"ranking": ["ann", "bob", "cid"], "survivors": 2}
    assert result_lines(view, "bob") == [
        "The table is over: 1. ann, 2. you, 3. cid.",
        "Your place at this table: 2 of 3, through to what comes next.",
    ]
    assert result_lines(view, "cid")[1] == "Your place at this table: 3 of 3, out."


def test_a_choice_is_asked_again_until_it_is_a_listed_number() -> None:
    answers = iter(["", "zwei", "0", "4", " 2 "])
    out = io.StringIO()
    player = Player(ApiClient(), "t-x", input_fn=lambda prompt: next(answers), out=out)
    assert player.choose(3) == 2
    assert out.getvalue().count("Please type a number from 1 to 3.") == 4


# --- a scripted person against the local service ---------------------------------------


@pytest.fixture(scope="module")
def service_url() -> Iterator[str]:
    """The whole service, on moto's server behind a real HTTP server."""
    with running_service(dice_seed="play") as service:
        yield service.url


def organize(url: str) -> tuple[ApiClient, str, str]:
    """A client for the organizer, and a Mäxchen tournament open for registration."""
    organizer = ApiClient(url)
    made = organizer.ok(
        "POST", "/tournaments", {"game": "maexchen", "name": "Cup", "table_size": 3, "advance": 1}
    )
    tournament, token = made["tournament_id"], made["organizer_token"]
    organizer.ok("POST", f"/tournaments/{tournament}/registration/open", token=token)
    return organizer, tournament, token


def wait_until(condition: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_scripted_person_plays_a_tournament_to_its_end(service_url: str) -> None:
    organizer, tournament, token = organize(service_url)
    bluffer = load_decider(str(BOTS / "maexchen_bluffer.py"))
    bots: list[str] = []
    out = io.StringIO()
    prompts: list[str] = []

    def first_choice(prompt: str) -> str:
        prompts.append(prompt)
        return "1"

    def bot(number: int) -> BotResult:
        return run_bot(
            ApiClient(service_url), tournament, f"bluffer-{number}", bluffer, poll_seconds=0.05,
            on_registered=lambda seat: bots.append(seat.player_id),
        )  # fmt: skip

    with ThreadPoolExecutor(max_workers=3) as pool:
        person = pool.submit(
            play, ApiClient(service_url), tournament, name="Anna", input_fn=first_choice,
            out=out, poll_seconds=0.05, watch_seconds=0.05,
        )  # fmt: skip
        others = [pool.submit(bot, number) for number in (1, 2)]
        wait_until(lambda: len(bots) == 2 and "Registered as Anna" in out.getvalue())
        anna = re.search(r"Registered as Anna \((p-\w+)\)", out.getvalue())
        assert anna is not None
        order = [anna.group(1), *bots]  # Anna sits first: she opens round 1 and throws
        organizer.ok("POST", f"/tournaments/{tournament}/start", {"order": order}, token=token)
        assert person.result(timeout=120) == 0
        places = {result.place for result in (other.result(timeout=60) for other in others)}

    text = out.getvalue()
    assert "Waiting for the organizer to start the tournament..." in text
    assert re.search(r"Your dice under the cup: \d\d\n", text)
    assert "  1. Throw the dice\n" in text
    assert prompts and all(prompt.startswith("Your choice [1-") for prompt in prompts)
    place = re.search(r"The tournament is over\. Your place: (\d)\.\n", text)
    assert place is not None
    assert places | {int(place.group(1))} == {1, 2, 3}
    resumed = re.search(r"resume with --token (\S+)\n", text)
    assert resumed is not None
    me = ApiClient(service_url).ok("GET", f"/tournaments/{tournament}/me", token=resumed.group(1))
    assert me["place"] == int(place.group(1))


def test_ctrl_c_stops_cleanly_and_the_token_resumes(service_url: str) -> None:
    _, tournament, _ = organize(service_url)

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    out = io.StringIO()
    assert play(ApiClient(service_url), tournament, name="Ben", out=out, pause=interrupted) == 130
    stopped = re.search(r"Stopped\. Resume with --token (\S+)\n", out.getvalue())
    assert stopped is not None
    again = io.StringIO()
    client = ApiClient(service_url)
    assert play(client, tournament, token=stopped.group(1), out=again, pause=interrupted) == 130
    assert again.getvalue().startswith("Welcome back, Ben (p-")
