"""The console client in German: which language it picks (`--language`, the organizer's
choice, the locale), a turn printed as a person sees it, the prompts, the end, and the
table's story, all from the catalogue (the games' own words, Pasch and Hölzchen, kept)."""

from __future__ import annotations

import io
import json
import time
from typing import Any

import pytest

from cli.api_client import ApiClient
from cli.botkit import BotResult
from cli.main import _bot_line, build_parser
from cli.play import Player, console_language, organizer_language, play
from cli.session import at_new_table
from cli.table_story import Narrator
from core.actions import Announce, Throw
from core.registry import get_game
from local.lambda_events import HttpAnswer

MAEXCHEN = get_game("maexchen")


def sent(view: dict[str, object]) -> dict[str, Any]:
    """A view as the client receives it."""
    received: dict[str, Any] = json.loads(json.dumps(view))
    return received


def test_the_language_is_asked_for_else_the_organizers_else_the_locales() -> None:
    assert console_language("de", "en", {"LANG": "en_GB.UTF-8"}) == "de"
    assert console_language(None, "de", {"LANG": "en_GB.UTF-8"}) == "de"
    assert console_language(None, None, {"LANG": "de_DE.UTF-8"}) == "de"
    assert console_language(None, None, {"LC_ALL": "de_AT", "LANG": "en_US"}) == "de"
    assert console_language(None, None, {"LC_ALL": "C", "LANG": "de_DE"}) == "en"  # LC_ALL wins
    assert console_language(None, None, {"LC_MESSAGES": "de_CH.UTF-8"}) == "de"
    assert console_language(None, "xx", {"LANG": "C.UTF-8"}) == "en"
    assert console_language(None, None, {}) == "en"
    assert build_parser().parse_args(["play", "--tournament", "t", "--name", "A"]).language is None
    parsed = build_parser().parse_args(
        ["play", "--tournament", "t", "--name", "A", "--language", "de"]
    )
    assert parsed.language == "de"
    assert (
        build_parser().parse_args(["bot", "m", "--tournament", "t", "--language", "de"]).language
        == "de"
    )


class FakeSession:
    """What `Player._take_turn` needs of a session: the seat, and a submit that takes."""

    class seat:  # noqa: N801  # read as session.seat.player_id
        player_id = "bob"

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def submit(self, table: str, view: dict[str, Any], action: dict[str, Any]) -> object:
        self.sent.append(action)
        return {"version": view["version"] + 1}


def test_a_turn_prints_in_german() -> None:
    state, _ = MAEXCHEN.seat(["ann", "bob"])
    state, _ = MAEXCHEN.apply(state, "ann", Throw(), (3, 5))
    state, _ = MAEXCHEN.apply(state, "ann", Announce(62))
    state, _ = MAEXCHEN.apply(state, "bob", Throw(), (4, 4))
    view = sent(MAEXCHEN.view(state, "bob"))
    prompts: list[str] = []
    out = io.StringIO()

    def reply(prompt: str) -> str:
        prompts.append(prompt)
        return "99" if len(prompts) == 1 else "44"

    player = Player(ApiClient(), "t-x", input_fn=reply, out=out, lang="de")
    player.names = {"ann": "Anna"}
    session = FakeSession()
    assert player._take_turn(session, "R1-1", view)  # type: ignore[arg-type]
    assert session.sent == [{"kind": "announce", "value": 44}]
    assert out.getvalue().splitlines() == [
        "",
        "Du bist dran.",
        "   Anna: 0 Strafpunkte",
        " > bob (du): 0 Strafpunkte",
        "Runde 1: angesagt ist 62, von Anna.",
        "Deine Würfel unter dem Becher: 44",
        "  Wert ansagen: 63 64 65 11 22 33 [44] 55 66 21; [44] ist dein Wurf",
        "Du kannst 99 jetzt nicht ansagen: sag eins von 63, 64, 65, 11, 22, 33, 44, 55, 66, 21 an.",
    ]
    assert prompts[0] == "Deine Wahl [ein Wert zum Ansagen] (60 s): "


def test_the_choices_and_the_end_in_german() -> None:
    state, _ = MAEXCHEN.seat(["ann", "bob"])
    state, _ = MAEXCHEN.apply(state, "ann", Throw(), (3, 5))
    state, _ = MAEXCHEN.apply(state, "ann", Announce(62))
    view = sent(MAEXCHEN.view(state, "bob"))
    out = io.StringIO()
    player = Player(ApiClient(), "t-x", input_fn=lambda _: "2", out=out, lang="de")
    player.names = {"ann": "Anna"}
    session = FakeSession()
    player._take_turn(session, "R1-1", view)  # type: ignore[arg-type]
    assert "  1. Die 62 von Anna anzweifeln: Becher heben" in out.getvalue()
    assert "  2. Die 62 glauben und würfeln" in out.getvalue()
    finished = {"player_count": 8, "champion": "ann", "standings": []}
    assert player.summary(5, finished, "bob") == (
        "Das Turnier ist vorbei: Platz 5 von 8 · Sieger Anna"
    )
    assert (
        player.summary(1, finished, "ann") == "Das Turnier ist vorbei: Platz 1 von 8 · Sieger: du!"
    )


def test_the_story_in_german_keeps_the_games_words() -> None:
    seated = {"version": 0, "player": None, "action": None, "events": [
        {"type": "TableSeated", "game": "maexchen", "seats": ["p-anna", "p-ben"],
         "options": {"penalty_limit": 3}, "survivors": 1},
        {"type": "RoundStarted", "round": 1, "starter": "p-anna"}]}  # fmt: skip
    turns = [
        {"version": 1, "player": "p-anna", "action": {"kind": "throw"}, "events": [
            {"type": "DiceThrown", "player": "p-anna", "dice": [4, 4], "visibility": "thrower"}]},
        {"version": 2, "player": "p-anna", "action": {"kind": "announce"}, "events": [
            {"type": "Announced", "player": "p-anna", "value": 21}]},
        {"version": 3, "player": "p-ben", "action": {"kind": "doubt"}, "events": [
            {"type": "Doubted", "player": "p-ben", "announcer": "p-anna", "announcement": 21,
             "revealed": 44, "announcement_held": False},
            {"type": "PenaltyGiven", "player": "p-anna", "points": 2, "total": 2}]},
    ]  # fmt: skip
    narrator = Narrator("p-anna", "R1-1", {"p-ben": "Ben"}, "de")
    told = [line for record in [seated, *turns] for line in narrator.lines(record)]
    assert told == [
        "Tisch R1-1 (Mäxchen): du spielst mit Ben; 1 kommt weiter.",
        "Runde 1: du fängst an.",
        "Du würfelst 44, einen Pasch.",
        "Du sagst 21 an — Mäxchen!",
        "Ben zweifelt deine 21 an: es war 44 — du verlierst 2 (Strafpunkte: 2 von 3).",
    ]


def test_the_42_story_in_german_passes_hoelzchen_and_says_mit_ist_schitt() -> None:
    seated = {"version": 0, "events": [
        {"type": "TableSeated", "game": "zweiundvierzig", "seats": ["a", "b"],
         "options": {}, "survivors": 1}]}  # fmt: skip
    scored = {"version": 1, "events": [
        {"type": "RoundScored", "round": 2, "players": ["a", "b"], "last_throws": [53, 53],
         "throws": [2, 2], "worst": "b", "best": "a"},
        {"type": "StickPassed", "giver": "a", "receiver": "b", "giver_sticks": 1,
         "receiver_sticks": 4}]}  # fmt: skip
    narrator = Narrator("b", names={"a": "Anna"}, lang="de")
    narrator.lines(seated)
    assert narrator.lines(scored) == [
        "Runde 2 gewertet: Anna 53 nach 2 Würfen, du 53 nach 2 Würfen — am schlechtesten du"
        " (Mit ist Schitt), am besten Anna.",
        "Anna gibt dir ein Hölzchen: 1 übrig, jetzt 4.",
    ]
    english = Narrator("b", names={"a": "Anna"})
    english.lines(seated)
    assert "(Mit ist Schitt)" in english.lines(scored)[0]


class Tournament:
    """A transport that answers a tournament read with the organizer's `language`, and
    stops at the registration after it (a person's Ctrl-C, as it were)."""

    def __init__(self, language: str | None, status: int = 200) -> None:
        self.language, self.status, self.calls = language, status, 0

    def call(self, method: str, path: str, body: object = None, **request: Any) -> HttpAnswer:
        self.calls += 1
        if method == "POST":
            raise KeyboardInterrupt
        return HttpAnswer(self.status, {"language": self.language}, "", {})

    def close(self) -> None:
        """Nothing to drop."""


def test_the_organizers_language_comes_from_the_tournament(monkeypatch: pytest.MonkeyPatch) -> None:
    assert organizer_language(Tournament("de"), "t-x") == "de"  # type: ignore[arg-type]
    assert organizer_language(Tournament(None), "t-x") is None  # type: ignore[arg-type]
    assert organizer_language(Tournament("de", 404), "t-x") is None  # type: ignore[arg-type]
    out = io.StringIO()
    assert play(Tournament("de"), "t-x", name="Anna", out=out) == 130  # type: ignore[arg-type]
    assert out.getvalue() == "\nAngehalten.\n"
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    out = io.StringIO()
    asked = Tournament("de")
    assert play(asked, "t-x", name="Anna", out=out, language="en") == 130  # type: ignore[arg-type]
    assert out.getvalue() == "\nStopped.\n" and asked.calls == 1  # no read: it was asked for


def test_a_bots_last_line_speaks_the_language() -> None:
    done = BotResult("b-1", "p-1", 3, True, 2, 1)
    assert _bot_line(done, "en") == "b-1: place 3 (2 tables, 1 action)"
    assert _bot_line(done, "de") == "b-1: Platz 3 (2 Tische, 1 Zug)"
    stopped = BotResult("b-2", "p-2", None, False, 0, 0, "the service rejected it")
    assert _bot_line(stopped, "de") == "b-2: angehalten: the service rejected it"


def test_a_queued_table_is_told_with_its_place_and_start_and_not_played() -> None:
    out = io.StringIO()
    player = Player(ApiClient(), "t-x", out=out, lang="de")
    start = 1_800_000_000
    me = {"table": "R1-5", "tournament_status": "running", "eliminated": False}
    waiting = {**me, "queue": {"place": 3, "expected_start": start}}
    assert not at_new_table(waiting, set())  # nothing to play until it starts
    assert at_new_table({**me, "queue": None}, set())
    player._tell_waiting(waiting)
    player._tell_waiting(waiting)  # said once while nothing changes
    player._tell_waiting({**waiting, "queue": {"place": 2, "expected_start": start}})
    clock = time.strftime("%H:%M", time.localtime(start))
    assert out.getvalue().splitlines() == [
        f"Dein Tisch R1-5 wartet auf einen freien Platz: Nummer {n} in der Warteschlange,"
        f" Start voraussichtlich um {clock}..."
        for n in (3, 2)
    ]
