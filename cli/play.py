"""`knobelcup play`: a person plays a tournament in a terminal, over the HTTP API.

Registers (or resumes with the token printed at registration), waits for each table,
tells what happens at it from the table's event feed (who starts, each announcement,
each doubt with what was under the cup, points, who is out, the result), shows the
table and the choices at every own turn, and ends with the place and the champion.
It speaks German or English (`console_language`: `--language`, else the organizer's
choice for the tournament, else the terminal's locale, else English); every sentence is
the catalogue's (`core.words`), the same words the pages use where they say the same.
With `push` it waits on the service's WebSocket pushes (`cli.push_watch`) instead of
polling. Input and output are parameters, so a test can script a game.
"""

from __future__ import annotations

import http.client
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from cli.api_client import ApiClient, RetryPolicy, Transport
from cli.push_watch import Connect, PushWatch
from cli.session import (
    ActionRejected,
    Pause,
    Seat,
    Session,
    at_new_table,
    is_done,
    register,
    resume,
)
from cli.table_story import Narrator, continues_turn, names_from, ordinal
from cli.table_text import announcement_line, choice_label, seat_lines, situation_lines
from core.words import DEFAULT, LANGUAGES, say

InputFn = Callable[[str], str]
NEXT_TABLE = "console.waiting.next"
WAITING = {
    "draft": "console.waiting.draft",
    "open": "console.waiting.open",
    "closed": "console.waiting.open",
    "starting": "console.waiting.starting",
}
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")  # POSIX's order of precedence


def console_language(
    asked: str | None = None,
    organizer: object = None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """The console's language: `asked` (`--language`), else the `organizer`'s for the
    tournament (its `language` field), else the locale's (`de_DE.UTF-8` → German, the
    first of LC_ALL, LC_MESSAGES, LANG that is set), else English."""
    for wanted in (asked, organizer):
        if wanted in LANGUAGES:
            return str(wanted)
    env = os.environ if environ is None else environ
    for variable in LOCALE_VARIABLES:
        if value := env.get(variable, ""):
            code = value.split("_")[0].split(".")[0].lower()
            return code if code in LANGUAGES else DEFAULT
    return DEFAULT


def organizer_language(client: Transport, tournament: str) -> str | None:
    """The tournament's `language` (the organizer's choice), or None: unset, or the
    service not answering this one look (the registration after it retries)."""
    try:
        answer = client.call("GET", f"/tournaments/{tournament}")
    except (OSError, http.client.HTTPException):
        client.close()  # a connection left mid-request would refuse the next one
        return None
    body = answer.body if answer.status == 200 else None
    found = body.get("language") if isinstance(body, dict) else None
    return found if isinstance(found, str) else None


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
    lang: str = DEFAULT
    _waiting_for: str = ""

    def say(self, text: str = "") -> None:
        """Print a line at once."""
        print(text, file=self.out, flush=True)

    def w(self, key: str, **values: object) -> str:
        """The catalogue's sentence `key` in the player's language."""
        return say(self.lang, key, **values)

    def join(self, name: str | None, token: str | None, join_code: str | None = None) -> Seat:
        """Register `name` (with the tournament's `join_code`, where it has one), or
        resume with `token`."""
        if token:
            seat = resume(self.client, self.tournament, token, pause=self.pause, retry=self.retry)
            self.say(self.w("console.welcome_back", name=seat.name, id=seat.player_id))
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
        self.say(self.w("console.registered", name=seat.name, id=seat.player_id))
        self.say(self.w("console.token", token=seat.token))
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
                self.say(self.w("console.out_waiting"))
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
        count = tournament.get("player_count")
        if place is None:
            where = self.w("console.place_unknown")
        elif count:
            where = self.w("console.place_of", place=ordinal(place, self.lang), players=count)
        else:
            where = self.w("console.place", place=ordinal(place, self.lang))
        champion = tournament.get("champion")
        for row in tournament.get("standings") or []:
            if row.get("player") == champion and isinstance(row.get("name"), str):
                self.names.setdefault(champion, row["name"])
        if champion is None:
            crowned = ""
        elif champion == me:
            crowned = self.w("console.crowned_you")
        else:
            crowned = self.w("console.crowned", name=self.names.get(champion, champion))
        return self.w("console.over", place=where, crowned=crowned)

    def _next_table(
        self, session: Session, pushes: PushWatch | None, played: set[str]
    ) -> dict[str, Any]:
        """`/me` once the player sits at a table not in `played`, or is done; on push,
        one look first to say what the player waits for, then the pushes."""
        if pushes is None:
            return session.wait_for_table(played, self._tell_waiting, every=self.poll_seconds)
        me = session.whereabouts()
        if is_done(me) or at_new_table(me, played):
            return me
        self._tell_waiting(me)
        return pushes.wait_for_table(session, played)

    def _tell_waiting(self, me: dict[str, Any]) -> None:
        queue = me.get("queue")
        if queue:  # told again as the queue moves on
            start = time.strftime("%H:%M", time.localtime(queue["expected_start"]))
            line = self.w("console.queued", table=me["table"], place=queue["place"], time=start)
        else:
            line = self.w(WAITING.get(me["tournament_status"], NEXT_TABLE))
        if line != self._waiting_for:
            self._waiting_for = line
            self.say(line)

    def _play_table(self, session: Session, table: str) -> None:
        """Tell the table's feed as it comes; at each own turn, ask and act."""
        self._waiting_for = ""
        me = session.seat.player_id
        story = Narrator(me, table, self.names, self.lang)
        self.say()
        after, continuing = -1, False
        while True:
            feed = session.wait_for_change(table, after)
            if feed is None:
                self.say(self.w("console.bye", table=table))
                return
            self.names.update(names_from(feed.get("players")))
            for record in feed["records"]:
                for line in story.lines(record):
                    self.say(line)
                continuing = continues_turn(record, me)
            after = feed["version"]
            if feed["over"]:
                self._waiting_for = self.w(NEXT_TABLE)  # said by the result: through, or out
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
            self.say()
            self.say(self.w("play.your_turn"))
            for line in seat_lines(view, me, self.names, self.lang):
                self.say(line)
        for line in situation_lines(view, me, self.names, self.lang):
            self.say(line)
        legal = view.get("legal_actions") or []
        listed = [action for action in legal if action["kind"] != "announce"]
        for number, action in enumerate(listed, start=1):
            self.say(f"  {number}. {choice_label(action, view, me, self.names, self.lang)}")
        values = announcement_line(legal, view, self.lang)
        if values:
            self.say(f"  {values}")
        timeout = (view.get("options") or {}).get("turn_timeout_seconds")
        action = self.choose(legal, timeout)
        try:
            acted = session.submit(table, view, action)
        except ActionRejected as error:
            self.say(self.w("console.not_accepted", error=error))
            return False
        if acted is None:
            self.say(self.w("console.moved_on"))
        return True

    def choose(self, legal: list[dict[str, Any]], timeout: object = None) -> dict[str, Any]:
        """Ask until the answer is a listed number or a value that may be announced now
        (typed as it is: `62`); the legal action it names."""
        listed = [action for action in legal if action["kind"] != "announce"]
        values = {action["value"]: action for action in legal if action["kind"] == "announce"}
        asked = [f"1-{len(listed)}" if len(listed) > 1 else "1"] if listed else []
        asked += [self.w("console.a_value")] if values else []
        either = (
            self.w("console.either", first=asked[0], second=asked[1])
            if len(asked) == 2
            else "".join(asked)
        )
        prompt = (
            self.w("console.choice_timed", asked=either, seconds=timeout)
            if timeout
            else self.w("console.choice", asked=either)
        )
        while True:
            raw = self.input_fn(prompt).strip()
            number = int(raw) if raw.isdigit() else None
            if number in values:
                return values[number]
            if number is not None and 1 <= number <= len(listed):
                return listed[number - 1]
            self.say(self._not_a_choice(raw, listed, list(values)))

    def _not_a_choice(self, raw: str, listed: list[dict[str, Any]], values: list[int]) -> str:
        shown = ", ".join(map(str, values))
        if raw.isdigit() and values and int(raw) > len(listed):
            return self.w("console.cannot_announce", value=raw, values=shown)
        if values and listed:
            return self.w("console.type_number_or_value", last=len(listed))
        if values:
            return self.w("console.type_value", values=shown)
        if len(listed) == 1:
            return self.w("console.type_one")
        return self.w("console.type_number", last=len(listed))


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
    language: str | None = None,
) -> int:
    """Register or resume, play to the end; the exit code (130 when interrupted).
    `language`: de or en; None asks the tournament, then the locale."""
    asked_tournament = language not in LANGUAGES  # the one look is spent only when needed
    lang = console_language(
        language, organizer_language(client, tournament) if asked_tournament else None
    )
    player = Player(
        client, tournament, input_fn, out or sys.stdout, poll_seconds, watch_seconds, pause,
        retry or RetryPolicy(), push, lang=lang,
    )  # fmt: skip
    seat: Seat | None = None
    try:
        seat = player.join(name, token, join_code)
        player.play(seat)
    except (KeyboardInterrupt, EOFError):
        player.say()
        player.say(
            player.w("console.stopped_resume", token=seat.token)
            if seat
            else player.w("console.stopped")
        )
        return 130
    return 0
