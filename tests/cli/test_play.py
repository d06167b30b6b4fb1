"""The terminal player: what it shows of real views, the story it tells from a table's
event feed, how it asks for a choice (announcements typed by value), the end summary,
and a scripted game against the local service.

The views and logs for the text come from the core games themselves, as the API builds
them.
"""

from __future__ import annotations

import io
import json
import random
import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from suite_dice import suite_seed

from cli.api_client import ApiClient
from cli.botkit import BotResult, load_decider, run_bot
from cli.demo import parse_args as demo_options
from cli.demo_bots import DemoBots, bot_names
from cli.main import build_parser, main
from cli.play import Player, play
from cli.push_watch import connector
from cli.table_story import Narrator, continues_turn, names_from, ordinal
from cli.table_text import announcement_line, choice_label, seat_lines, situation_lines
from core.actions import Announce, Throw, Timeout
from core.audit import records_after
from core.bracket import BracketPlan
from core.match import Move, Seating, replay_log
from core.registry import get_game
from local.lambda_events import HttpAnswer
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
    assert seat_lines(view, "bob", {"ann": "Anna"}) == [
        "   Anna: 0 penalty points",
        " > bob (you): 0 penalty points",
    ]
    assert situation_lines(view, "bob") == [
        "Round 1: the announcement is 62, by ann.",
        "Your dice under the cup: 44",
    ]
    assert announcement_line(view["legal_actions"], view) == (
        "Announce a value: 63 64 65 11 22 33 [44] 55 66 21; [44] is your throw"
    )
    assert [choice_label(a, before, "bob", {"ann": "Anna"}) for a in before["legal_actions"]] == [
        "Doubt Anna's 62: lift the cup",
        "Believe the 62 and throw",
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


# --- the story of a table, from its event feed -------------------------------------------

ANNA, BERND, CARLA = "p-anna", "p-bernd", "p-carla"
SEATED = {
    "version": 0, "player": None, "action": None, "events": [
        {"type": "TableSeated", "game": "maexchen", "seats": [ANNA, BERND, CARLA],
         "options": {"penalty_limit": 3, "allow_equal": False, "blind_reroll": False,
                     "turn_timeout_seconds": 60, "forfeit_after_timeouts": 0},
         "survivors": 1},
        {"type": "RoundStarted", "round": 1, "starter": ANNA},
    ],
}  # fmt: skip
FEED = [
    SEATED,
    {"version": 1, "player": ANNA, "action": {"kind": "throw"}, "events": [
        {"type": "DiceThrown", "player": ANNA, "dice": None, "visibility": "thrower"}]},
    {"version": 2, "player": ANNA, "action": {"kind": "announce", "value": 62}, "events": [
        {"type": "Announced", "player": ANNA, "value": 62}]},
    {"version": 3, "player": BERND, "action": {"kind": "doubt"}, "events": [
        {"type": "Doubted", "player": BERND, "announcer": ANNA, "announcement": 62,
         "revealed": 53, "announcement_held": False},
        {"type": "PenaltyGiven", "player": ANNA, "points": 1, "total": 1},
        {"type": "RoundStarted", "round": 2, "starter": ANNA}]},
    {"version": 4, "player": ANNA, "action": {"kind": "throw"}, "events": [
        {"type": "DiceThrown", "player": ANNA, "dice": None, "visibility": "thrower"}]},
    {"version": 5, "player": ANNA, "action": {"kind": "announce", "value": 21}, "events": [
        {"type": "Announced", "player": ANNA, "value": 21}]},
    {"version": 6, "player": BERND, "action": {"kind": "timeout"}, "events": [
        {"type": "TurnTimedOut", "player": BERND, "timeouts": 1},
        {"type": "PenaltyGiven", "player": BERND, "points": 1, "total": 1},
        {"type": "RoundStarted", "round": 3, "starter": BERND}]},
    {"version": 7, "player": BERND, "action": {"kind": "throw"}, "events": [
        {"type": "DiceThrown", "player": BERND, "dice": None, "visibility": "thrower"}]},
    {"version": 8, "player": BERND, "action": {"kind": "announce", "value": 21}, "events": [
        {"type": "Announced", "player": BERND, "value": 21}]},
    {"version": 9, "player": CARLA, "action": {"kind": "doubt"}, "events": [
        {"type": "Doubted", "player": CARLA, "announcer": BERND, "announcement": 21,
         "revealed": 21, "announcement_held": True},
        {"type": "PenaltyGiven", "player": CARLA, "points": 2, "total": 2},
        {"type": "RoundStarted", "round": 4, "starter": CARLA}]},
]  # fmt: skip
NAMES = {ANNA: "Anna", BERND: "Bernd", CARLA: "Carla"}


def told(narrator: Narrator, records: list[dict[str, Any]]) -> list[str]:
    return [line for record in records for line in narrator.lines(record)]


def test_the_story_tells_starters_announcements_and_what_was_under_the_cup() -> None:
    assert told(Narrator(CARLA, "R1-1", dict(NAMES)), FEED) == [
        "Table R1-1 (Mäxchen): you play with Anna and Bernd; 1 goes on.",
        "Round 1: Anna starts.",
        "Anna threw under the cup.",
        "Anna announced 62.",
        "Bernd doubted Anna's 62: it was 53 — Anna loses 1 (1 of 3 penalty points).",
        "Round 2: Anna starts.",
        "Anna threw under the cup.",
        "Anna announced 21 — Mäxchen!",
        "Bernd ran out of time — Bernd loses 1 (1 of 3 penalty points).",
        "Round 3: Bernd starts.",
        "Bernd threw under the cup.",
        "Bernd announced 21 — Mäxchen!",
        "You doubted Bernd's 21: it was 21, the announcement holds"
        " — you lose 2 (2 of 3 penalty points).",
        "Round 4: you start.",
    ]


def test_the_story_shows_the_player_their_own_dice_and_falls_back_to_ids() -> None:
    own = json.loads(json.dumps(FEED[:4]))
    own[1]["events"][0]["dice"] = [3, 5]
    lines = told(Narrator(ANNA), own)
    assert lines[0] == "Mäxchen: you play with p-bernd and p-carla; 1 goes on."
    assert lines[1:5] == [
        "Round 1: you start.",
        "You threw 53.",
        "You announced 62.",
        "p-bernd doubted your 62: it was 53 — you lose 1 (1 of 3 penalty points).",
    ]


def test_the_story_ends_with_the_result_and_the_place_at_the_table() -> None:
    end = {"version": 20, "player": ANNA, "action": {"kind": "doubt"}, "events": [
        {"type": "PenaltyGiven", "player": CARLA, "points": 1, "total": 3},
        {"type": "PlayerEliminated", "player": CARLA},
        {"type": "MatchFinished", "ranking": [ANNA, BERND, CARLA]}]}  # fmt: skip
    narrator = Narrator(BERND, "R1-1", dict(NAMES))
    narrator.lines(SEATED)
    assert narrator.lines(end) == [
        "Carla loses 1 (3 of 3 penalty points).",
        "Carla is out of this table.",
        "The table is over: 1. Anna, 2. you, 3. Carla.",
        "Your place at this table: 2 of 3, out.",
    ]
    spectator = Narrator(None, "R1-1", dict(NAMES))
    spectator.lines(SEATED)
    assert spectator.lines(end)[-1] == "The table is over: 1. Anna, 2. Bernd, 3. Carla."


def test_a_turn_goes_on_only_after_a_step_that_ended_nothing() -> None:
    assert continues_turn(FEED[1], ANNA)  # she threw: now she announces
    assert not continues_turn(FEED[2], ANNA)  # she announced: the cup goes on
    assert not continues_turn(FEED[3], BERND)  # his doubt ended the round
    assert not continues_turn(FEED[1], BERND)


def test_names_come_from_a_table_answer_when_it_has_them() -> None:
    assert names_from([{"id": ANNA, "name": "Anna"}, {"id": BERND}]) == {ANNA: "Anna"}
    assert names_from(None) == {}


@pytest.mark.parametrize("game", ["maexchen", "mariechen", "zweiundvierzig"])
def test_every_event_of_every_game_is_told_in_words(game: str) -> None:
    options = {"maexchen": {"blind_reroll": True}, "zweiundvierzig": {"sticks": 3}}
    for seed in range(6):
        rng = random.Random(seed)
        rules = get_game(game)
        seats = ("p0", "p1", "p2", "p3")[: 2 + seed % 3]
        seating = Seating(game, seats, {**options.get(game, {}), "forfeit_after_timeouts": 3}, 1)
        state, _ = rules.seat(seating.seats, seating.options, 1)
        moves = []
        while (player := rules.to_act(state)) is not None:
            action = Timeout() if rng.random() < 0.05 else rng.choice(rules.legal_actions(state))
            dice = tuple(rng.randint(1, 6) for _ in range(rules.dice_needed(state, action)))
            state, _ = rules.apply(state, player, action, dice)
            moves.append(Move(action, dice))
        _, log = replay_log(seating, moves)
        for viewer in (None, *seats):
            records = json.loads(json.dumps(records_after(log, -1, viewer, revealed=False)))
            lines = told(Narrator(viewer, "R1-1"), records)
            unknown = [
                line for line in lines if re.match(r"[A-Z][a-z]+[A-Z]\w*: ", line)
            ]  # Type: ...
            assert unknown == [], "every event type has its own words"
            assert lines[-1].startswith(("The table is over", "Your place at this table"))


# --- choosing ----------------------------------------------------------------------------

RESPONSE = [{"kind": "doubt"}, {"kind": "throw"}]
ANNOUNCE = [{"kind": "announce", "value": v} for v in (63, 64, 65, 11, 22, 33, 44, 55, 66, 21)]


def scripted(*answers: str) -> tuple[Player, io.StringIO, list[str]]:
    replies, prompts, out = iter(answers), [], io.StringIO()

    def reply(prompt: str) -> str:
        prompts.append(prompt)
        return next(replies)

    return Player(ApiClient(), "t-x", input_fn=reply, out=out), out, prompts


def test_a_choice_is_asked_again_until_it_is_a_listed_number() -> None:
    player, out, prompts = scripted("", "zwei", "0", "4", " 2 ")
    assert player.choose(RESPONSE) == {"kind": "throw"}
    assert out.getvalue().count("Please type a number from 1 to 2.") == 4
    assert prompts[0] == "Your choice [1-2]: "


def test_an_announcement_is_typed_by_its_value() -> None:
    player, out, prompts = scripted("62", "7", "44")
    assert player.choose(ANNOUNCE, timeout=60) == {"kind": "announce", "value": 44}
    assert prompts[0] == "Your choice [a value to announce] (60 s): "
    told_back = out.getvalue().splitlines()
    assert (
        told_back[0]
        == "You cannot announce 62 now: announce one of 63, 64, 65, 11, 22, 33, 44, 55, 66, 21."
    )
    assert told_back[1].startswith("You cannot announce 7 now")


def test_with_a_blind_reroll_on_offer_numbers_and_values_both_work() -> None:
    legal = [*ANNOUNCE, {"kind": "blind_reroll"}]
    player, _, prompts = scripted("21")
    assert player.choose(legal) == {"kind": "announce", "value": 21}
    assert prompts == ["Your choice [1 or a value to announce]: "]
    player, _, _ = scripted("1")
    assert player.choose(legal) == {"kind": "blind_reroll"}


# --- the end -------------------------------------------------------------------------------


def test_the_end_says_the_place_of_how_many_and_who_won() -> None:
    player, _, _ = scripted()
    finished = {"player_count": 8, "champion": ANNA, "standings": [{"place": 1, "player": ANNA}]}
    assert (
        player.summary(5, finished, BERND) == "The tournament is over: 5th of 8 · champion p-anna"
    )
    named = {**finished, "standings": [{"place": 1, "player": ANNA, "name": "Anna"}]}
    assert player.summary(5, named, BERND) == "The tournament is over: 5th of 8 · champion Anna"
    assert player.summary(1, named, ANNA) == "The tournament is over: 1st of 8 · the champion: you!"
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th",
    ]  # fmt: skip


# --- a scripted person against the local service ---------------------------------------


@pytest.fixture(scope="module")
def service_url() -> Iterator[str]:
    """The whole service, on moto's server behind a real HTTP server."""
    with running_service(dice_seed=suite_seed("play")) as service:
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


class CountedViews(ApiClient):
    """An `ApiClient` that counts its reads of a table view (`GET .../tables/{ref}/me`)."""

    views = 0

    def call(self, method: str, path: str, body: object = None, **request: Any) -> HttpAnswer:
        if "/tables/" in path and path.endswith("/me"):
            self.views += 1
        return super().call(method, path, body, **request)


@pytest.mark.parametrize("on_push", [False, True], ids=["polling", "on-push"])
def test_a_scripted_person_plays_a_tournament_to_its_end(service_url: str, on_push: bool) -> None:
    organizer, tournament, token = organize(service_url)
    push = connector(service_url, tournament) if on_push else None
    person_client = CountedViews(service_url)
    bluffer = load_decider(str(BOTS / "maexchen_bluffer.py"))
    bots: list[str] = []
    out = io.StringIO()
    prompts: list[str] = []

    def first_choice(prompt: str) -> str:
        """The first listed choice (to open: throw; to respond: doubt); an announcement
        by its value: 62 the first time, when nothing was announced yet, then 21."""
        prompts.append(prompt)
        if "[a value to announce]" in prompt:
            return "62" if prompts.count(prompt) == 1 else "21"
        return "1"

    def bot(number: int) -> BotResult:
        return run_bot(
            ApiClient(service_url), tournament, f"bluffer-{number}", bluffer, poll_seconds=0.05,
            on_registered=lambda seat: bots.append(seat.player_id), push=push,
        )  # fmt: skip

    with ThreadPoolExecutor(max_workers=3) as pool:
        person = pool.submit(
            play, person_client, tournament, name="Anna", input_fn=first_choice,
            out=out, poll_seconds=0.05, watch_seconds=0.05, push=push,
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
    assert prompts and all(prompt.startswith("Your choice [") for prompt in prompts)
    # the others by the names they registered with
    assert re.search(r"Table R1-1 \(Mäxchen\): you play with bluffer-\d and bluffer-\d;", text)
    assert "Round 1: you start.\n\nYour turn.\n" in text and "You announced 62.\n" in text
    assert "You threw " in text and text.count("Your turn.") < len(prompts)
    assert re.search(
        r"\n(You|bluffer-\d) doubted (your|bluffer-\d's) \d\d: it was \d\d.* \(\d of 3 pen", text
    )
    assert re.search(r"\nThe table is over: 1\. .*\nYour place at this table: \d of 3", text)
    place = re.search(
        r"The tournament is over: (\d)(st|nd|rd) of 3 · (champion bluffer-\d|the champion: you!)\n",
        text,
    )
    assert place is not None
    assert places | {int(place.group(1))} == {1, 2, 3}
    resumed = re.search(r"resume with --token (\S+)\n", text)
    assert resumed is not None
    me = ApiClient(service_url).ok("GET", f"/tournaments/{tournament}/me", token=resumed.group(1))
    assert me["place"] == int(place.group(1))
    # on push `your_turn` brings the view: read only after a refused action or a gap
    assert (person_client.views < text.count("Your turn.")) == on_push


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


# --- a tournament with a join code ----------------------------------------------------

JOIN_CODE = "KNEIPE-7"


def coded_cup(url: str, table_size: int) -> tuple[ApiClient, str, str]:
    """A Mäxchen tournament open for registration that asks for `JOIN_CODE`."""
    organizer = ApiClient(url)
    body = {"game": "maexchen", "name": "Coded", "table_size": table_size, "advance": 1}
    made = organizer.ok("POST", "/tournaments", {**body, "join_code": JOIN_CODE})
    tournament, token = made["tournament_id"], made["organizer_token"]
    organizer.ok("POST", f"/tournaments/{tournament}/registration/open", token=token)
    return organizer, tournament, token


def test_bots_join_with_the_join_code_and_play_to_the_end(
    service_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    organizer, tournament, token = coded_cup(service_url, 2)
    bot = [str(BOTS / "maexchen_honest.py"), "--url", service_url, "--tournament", tournament]
    assert main(["bot", *bot, "--no-push"]) == 1  # without the code: refused, and said why
    assert "join_code_required" in capsys.readouterr().out

    def start_once_both_registered() -> None:
        path = f"/tournaments/{tournament}"
        wait_until(lambda: organizer.ok("GET", path)["player_count"] == 2)
        organizer.ok("POST", f"{path}/start", token=token)

    with ThreadPoolExecutor(1) as starter:
        started = starter.submit(start_once_both_registered)
        assert main(["bot", *bot, "--count", "2", "--join-code", JOIN_CODE, "--poll", "0.1"]) == 0
        started.result()
    printed = capsys.readouterr().out
    assert "place 1" in printed and "place 2" in printed, printed


def test_a_person_joins_with_the_join_code(service_url: str) -> None:
    _, tournament, _ = coded_cup(service_url, 3)

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    options = build_parser().parse_args(
        ["play", "--tournament", tournament, "--name", "Anna", "--join-code", JOIN_CODE]
    )
    assert options.join_code == JOIN_CODE
    out = io.StringIO()
    client = ApiClient(service_url)
    code = play(client, tournament, name="Anna", join_code=JOIN_CODE, out=out, pause=interrupted)
    assert code == 130 and out.getvalue().startswith("Registered as Anna (p-"), out.getvalue()


def test_bots_think_and_the_demo_keeps_a_pace_an_organizer_can_follow(service_url: str) -> None:
    assert build_parser().parse_args(["bot", "m", "--tournament", "t", "--think", "2"]).think == 2
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bot", "m", "--tournament", "t", "--think", "-1"])
    assert demo_options(["--pace", "1.5"]).pace == 1.5
    organizer, tournament, token = organize(service_url)
    bots = DemoBots(service_url, tournament, "maexchen", workers=3, pace=0.2)
    bots.register(bot_names(3))
    organizer.ok("POST", f"/tournaments/{tournament}/start", {"seed": "paced"}, token=token)
    began = time.monotonic()
    finished = bots.play(BracketPlan.build(3, 3, 1), lambda _round: None)
    seconds = time.monotonic() - began
    assert finished["status"] == "finished"
    # one table, one action at a time: every action waited its 0.2 s
    assert seconds >= 0.2 * bots.actions, (seconds, bots.actions)
