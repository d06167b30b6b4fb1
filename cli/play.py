"""`knobelcup play`: a person plays a tournament in a terminal, over the HTTP API.

Registers (or resumes with the token printed at registration), waits for each table,
shows the table and the numbered legal choices at every own turn, and reports what the
others do in between. Input and output are parameters, so a test can script a game.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from cli.api_client import ApiClient
from cli.botkit import ActionRejected, Pause, Seat, Session, is_done, register, resume
from cli.table_text import change_lines, choice_label, result_lines, seat_lines, situation_lines

InputFn = Callable[[str], str]
NEXT_TABLE = "your next table"
WAITING = {
    "draft": "the organizer to open registration",
    "open": "the organizer to start the tournament",
    "closed": "the organizer to start the tournament",
    "starting": "the first tables to be seated",
}


@dataclass
class Player:
    """One person at the console, playing one tournament."""

    client: ApiClient
    tournament: str
    input_fn: InputFn = input
    out: TextIO = field(default_factory=lambda: sys.stdout)
    poll_seconds: float = 1.0  # `/me` while waiting for a table
    watch_seconds: float = 0.5  # the table while others act
    pause: Pause = time.sleep
    _waiting_for: str = ""

    def say(self, text: str = "") -> None:
        """Print a line at once."""
        print(text, file=self.out, flush=True)

    def join(self, name: str | None, token: str | None) -> Seat:
        """Register `name`, or resume with `token`."""
        if token:
            seat = resume(self.client, self.tournament, token)
            self.say(f"Welcome back, {seat.name} ({seat.player_id}).")
            return seat
        if not name:
            raise ValueError("a name or a token is needed")
        seat = register(self.client, self.tournament, name)
        self.say(f"Registered as {seat.name} ({seat.player_id}).")
        self.say(f"Your token, shown only now; resume with --token {seat.token}")
        return seat

    def play(self, seat: Seat) -> int | None:
        """Play every table until out or the tournament is finished; the final place."""
        session = Session(self.client, self.tournament, seat, self.pause, self.poll_seconds)
        played: set[str] = set()
        while not is_done(me := session.wait_for_table(played, self._tell_waiting)):
            played.add(me["table"])
            self._play_table(session, me["table"])
        if me["tournament_status"] != "finished":
            self.say("You are out. Waiting for the tournament to finish to learn your place...")
            me = session.wait_for_place()
        place: int | None = me["place"]
        self.say(f"The tournament is over. Your place: {place}.")
        return place

    def _tell_waiting(self, me: dict[str, Any]) -> None:
        status = me["tournament_status"]
        waiting = WAITING.get(status, NEXT_TABLE)
        if waiting != self._waiting_for:
            self._waiting_for = waiting
            self.say(f"Waiting for {waiting}...")

    def _play_table(self, session: Session, table: str) -> None:
        self._waiting_for = ""
        seat = session.seat
        answer = session.view(table)
        if answer is None:
            self.say(f"Table {table} is a bye: you go on without playing.")
            return
        view: dict[str, Any] = answer["view"]
        players = ", ".join(s["player"] for s in view["seats"] if s["player"] != seat.player_id)
        self.say(f"\nTable {table} ({view['game']}): you play with {players}.")
        before: dict[str, Any] | None = None
        while True:
            view = answer["view"]
            for line in change_lines(before, view, seat.player_id):
                self.say(line)
            before = view
            if answer["over"]:
                for line in result_lines(view, seat.player_id):
                    self.say(line)
                self._waiting_for = NEXT_TABLE  # said above: through, or out
                return
            if view.get("to_act") == seat.player_id:
                acted = self._take_turn(session, table, view)
                if acted is not None:
                    answer = acted
                    continue
            else:
                self.pause(self.watch_seconds)
            refreshed = session.view(table)
            if refreshed is None:
                return
            answer = refreshed

    def _take_turn(
        self, session: Session, table: str, view: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Show the table, ask for a choice and submit it; None if the table moved on."""
        me = session.seat.player_id
        self.say("\nYour turn.")
        for line in [*seat_lines(view, me), *situation_lines(view, me)]:
            self.say(line)
        legal = view.get("legal_actions") or []
        for number, action in enumerate(legal, start=1):
            self.say(f"  {number}. {choice_label(action, view, me)}")
        timeout = (view.get("options") or {}).get("turn_timeout_seconds")
        action = legal[self.choose(len(legal), timeout) - 1]
        try:
            acted = session.submit(table, view, action)
        except ActionRejected as error:
            self.say(f"Not accepted: {error}")
            return None
        if acted is None:
            self.say("The table moved on meanwhile (too slow?); here is where it stands now.")
        return acted

    def choose(self, count: int, timeout: object = None) -> int:
        """Ask for a number from 1 to `count` until one comes."""
        hint = f" ({timeout} s)" if timeout else ""
        while True:
            raw = self.input_fn(f"Your choice [1-{count}]{hint}: ").strip()
            if raw.isdigit() and 1 <= int(raw) <= count:
                return int(raw)
            self.say(f"Please type a number from 1 to {count}.")


def play(
    client: ApiClient,
    tournament: str,
    *,
    name: str | None = None,
    token: str | None = None,
    input_fn: InputFn = input,
    out: TextIO | None = None,
    poll_seconds: float = 1.0,
    watch_seconds: float = 0.5,
    pause: Pause = time.sleep,
) -> int:
    """Register or resume, play to the end; the exit code (130 when interrupted)."""
    player = Player(
        client, tournament, input_fn, out or sys.stdout, poll_seconds, watch_seconds, pause
    )
    seat: Seat | None = None
    try:
        seat = player.join(name, token)
        player.play(seat)
    except (KeyboardInterrupt, EOFError):
        resume_hint = f" Resume with --token {seat.token}" if seat else ""
        player.say(f"\nStopped.{resume_hint}")
        return 130
    return 0
