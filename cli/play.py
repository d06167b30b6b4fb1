"""`knobelcup play`: a person plays a tournament in a terminal, over the HTTP API.

Registers (or resumes with the token printed at registration), waits for each table,
tells what happens at it from the table's event feed (who starts, each announcement,
each doubt with what was under the cup, points, who is out, the result), shows the
table and the choices at every own turn, and ends with the place and the champion.
With `push` it waits on the service's WebSocket pushes (`cli.push_watch`) instead of
polling. Input and output are parameters, so a test can script a game.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from cli.api_client import ApiClient, RetryPolicy, Transport
from cli.push_watch import Connect, PushWatch
from cli.session import ActionRejected, Pause, Seat, Session, is_done, register, resume
from cli.table_story import Narrator, continues_turn, names_from, ordinal
from cli.table_text import announcement_line, choice_label, seat_lines, situation_lines

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

    client: Transport
    tournament: str
    input_fn: InputFn = input
    out: TextIO = field(default_factory=lambda: sys.stdout)
    poll_seconds: float = 1.0  # `/me` while waiting for a table
    watch_seconds: float = 0.5  # the table's event feed while others act
    pause: Pause = time.sleep
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    push: Connect | None = None  # the service's pushes; None: poll
    names: dict[str, str] = field(default_factory=dict)  # display names seen so far
    _waiting_for: str = ""

    def say(self, text: str = "") -> None:
        """Print a line at once."""
        print(text, file=self.out, flush=True)

    def join(self, name: str | None, token: str | None, join_code: str | None = None) -> Seat:
        """Register `name` (with the tournament's `join_code`, where it has one), or
        resume with `token`."""
        if token:
            seat = resume(self.client, self.tournament, token, pause=self.pause, retry=self.retry)
            self.say(f"Welcome back, {seat.name} ({seat.player_id}).")
            return seat
        if not name:
            raise ValueError("a name or a token is needed")
        seat = register(
            self.client,
            self.tournament,
            name,
            pause=self.pause,
            retry=self.retry,
            join_code=join_code,
        )
        self.say(f"Registered as {seat.name} ({seat.player_id}).")
        self.say(f"Your token, shown only now; resume with --token {seat.token}")
        return seat

    def play(self, seat: Seat) -> int | None:
        """Play every table until out or the tournament is finished; the final place."""
        session = Session(
            self.client, self.tournament, seat, self.pause, self.watch_seconds, self.retry
        )
        self.names[seat.player_id] = seat.name
        pushes = None if self.push is None else PushWatch(self.push)
        if pushes is not None:
            session.watch = pushes
        played: set[str] = set()
        try:
            while not is_done(me := self._next_table(session, pushes, played)):
                played.add(me["table"])
                self._play_table(session, me["table"])
            if me["tournament_status"] != "finished":
                self.say("You are out. Waiting for the tournament to finish to learn your place...")
                if pushes is not None:
                    me = pushes.wait_for_place(session)
                else:
                    me = session.wait_for_place(every=self.poll_seconds)
        finally:
            if pushes is not None:
                pushes.close()
        place: int | None = me["place"]
        self.say(self.summary(place, session.tournament_view(), seat.player_id))
        return place

    def summary(self, place: int | None, tournament: dict[str, Any], me: str) -> str:
        """ "The tournament is over: 5th of 8 · champion Anna"."""
        where = "your place is not known" if place is None else ordinal(place)
        count = tournament.get("player_count")
        of = f" of {count}" if place is not None and count else ""
        champion = tournament.get("champion")
        for row in tournament.get("standings") or []:
            if row.get("player") == champion and isinstance(row.get("name"), str):
                self.names.setdefault(champion, row["name"])
        if champion is None:
            crowned = ""
        elif champion == me:
            crowned = " · the champion: you!"
        else:
            crowned = f" · champion {self.names.get(champion, champion)}"
        return f"The tournament is over: {where}{of}{crowned}"

    def _next_table(
        self, session: Session, pushes: PushWatch | None, played: set[str]
    ) -> dict[str, Any]:
        """`/me` once the player sits at a table not in `played`, or is done; on push,
        one look first to say what the player waits for, then the pushes."""
        if pushes is None:
            return session.wait_for_table(played, self._tell_waiting, every=self.poll_seconds)
        me = session.whereabouts()
        if is_done(me) or (me["table"] and me["table"] not in played):
            return me
        self._tell_waiting(me)
        return pushes.wait_for_table(session, played)

    def _tell_waiting(self, me: dict[str, Any]) -> None:
        status = me["tournament_status"]
        waiting = WAITING.get(status, NEXT_TABLE)
        if waiting != self._waiting_for:
            self._waiting_for = waiting
            self.say(f"Waiting for {waiting}...")

    def _play_table(self, session: Session, table: str) -> None:
        """Tell the table's feed as it comes; at each own turn, ask and act."""
        self._waiting_for = ""
        me = session.seat.player_id
        story = Narrator(me, table, self.names)
        self.say()
        after, continuing = -1, False
        while True:
            feed = session.wait_for_change(table, after)
            if feed is None:
                self.say(f"Table {table} is a bye: you go on without playing.")
                return
            self.names.update(names_from(feed.get("players")))
            for record in feed["records"]:
                for line in story.lines(record):
                    self.say(line)
                continuing = continues_turn(record, me)
            after = feed["version"]
            if feed["over"]:
                self._waiting_for = NEXT_TABLE  # said by the result: through, or out
                return
            pushed = feed.get("view")  # `your_turn` brings the view along
            while feed.get("to_act", me) == me:  # asked again after a refused action
                answer = {"over": False, "view": pushed} if pushed else session.view(table)
                pushed = None
                if answer is None or answer["over"]:
                    break
                view = answer["view"]
                if view["version"] != after or view.get("to_act") != me:
                    break  # the table moved on: its feed first
                if self._take_turn(session, table, view, continuing):
                    break  # the feed tells what the action did

    def _take_turn(
        self, session: Session, table: str, view: dict[str, Any], continuing: bool = False
    ) -> bool:
        """Show the table, ask for a choice and submit it; False if it was refused. The
        seats are shown once a turn, not again for its next step (`continuing`: say,
        announcing the throw just made)."""
        me = session.seat.player_id
        if not continuing:
            self.say("\nYour turn.")
            for line in seat_lines(view, me, self.names):
                self.say(line)
        for line in situation_lines(view, me, self.names):
            self.say(line)
        legal = view.get("legal_actions") or []
        listed = [action for action in legal if action["kind"] != "announce"]
        for number, action in enumerate(listed, start=1):
            self.say(f"  {number}. {choice_label(action, view, me, self.names)}")
        values = announcement_line(legal, view)
        if values:
            self.say(f"  {values}")
        timeout = (view.get("options") or {}).get("turn_timeout_seconds")
        action = self.choose(legal, timeout)
        try:
            acted = session.submit(table, view, action)
        except ActionRejected as error:
            self.say(f"Not accepted: {error}")
            return False
        if acted is None:
            self.say("The table moved on meanwhile (too slow?); here is what happened.")
        return True

    def choose(self, legal: list[dict[str, Any]], timeout: object = None) -> dict[str, Any]:
        """Ask until the answer is a listed number or a value that may be announced now
        (typed as it is: `62`); the legal action it names."""
        listed = [action for action in legal if action["kind"] != "announce"]
        values = {action["value"]: action for action in legal if action["kind"] == "announce"}
        asked = [f"1-{len(listed)}" if len(listed) > 1 else "1"] if listed else []
        asked += ["a value to announce"] if values else []
        hint = f" ({timeout} s)" if timeout else ""
        while True:
            raw = self.input_fn(f"Your choice [{' or '.join(asked)}]{hint}: ").strip()
            number = int(raw) if raw.isdigit() else None
            if number in values:
                return values[number]
            if number is not None and 1 <= number <= len(listed):
                return listed[number - 1]
            self.say(self._not_a_choice(raw, listed, list(values)))

    @staticmethod
    def _not_a_choice(raw: str, listed: list[dict[str, Any]], values: list[int]) -> str:
        if raw.isdigit() and values and int(raw) > len(listed):
            return f"You cannot announce {raw} now: announce one of {', '.join(map(str, values))}."
        if values and listed:
            return f"Please type a number from 1 to {len(listed)}, or a value to announce."
        if values:
            return f"Please type a value to announce: one of {', '.join(map(str, values))}."
        return (
            "Please type 1."
            if len(listed) == 1
            else (f"Please type a number from 1 to {len(listed)}.")
        )


def play(
    client: ApiClient,
    tournament: str,
    *,
    name: str | None = None,
    token: str | None = None,
    join_code: str | None = None,
    input_fn: InputFn = input,
    out: TextIO | None = None,
    poll_seconds: float = 1.0,
    watch_seconds: float = 0.5,
    pause: Pause = time.sleep,
    retry: RetryPolicy | None = None,
    push: Connect | None = None,
) -> int:
    """Register or resume, play to the end; the exit code (130 when interrupted)."""
    player = Player(
        client, tournament, input_fn, out or sys.stdout, poll_seconds, watch_seconds, pause,
        retry or RetryPolicy(), push,
    )  # fmt: skip
    seat: Seat | None = None
    try:
        seat = player.join(name, token, join_code)
        player.play(seat)
    except (KeyboardInterrupt, EOFError):
        resume_hint = f" Resume with --token {seat.token}" if seat else ""
        player.say(f"\nStopped.{resume_hint}")
        return 130
    return 0
