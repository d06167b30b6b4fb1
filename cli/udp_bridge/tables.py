"""One thread per table: it tells the table's bots (and every spectator) what happens,
in the classic words, and drives each bot's turn over the HTTP API.

A turn of a bridged bot: `YOUR TURN;token` → `ROLL` (the bridge throws for it, then
`ROLLED;dice;token` → `ANNOUNCE;dice;token`) or `SEE` (the bridge doubts). Every action
the service takes, whoever took it, is then told to the table from its log record.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cli.api_client import ApiClient, ApiError, Retrying
from cli.session import ActionRejected, Seat, Session, table_path
from cli.udp_bridge import protocol as p
from cli.udp_bridge.prompts import Address, Prompts, Tally
from cli.udp_bridge.roster import Bot, Roster
from cli.udp_bridge.story import (
    ANNOUNCE,
    ANNOUNCE_BLIND,
    OPENING,
    RESPONSE,
    News,
    RoundOpening,
    TableStory,
    stand_in_action,
)

log = logging.getLogger("knobelcup.udp_bridge")
TURN_QUESTION = frozenset({p.ROLL, p.SEE})
ANNOUNCE_QUESTION = frozenset({p.ANNOUNCE})
JOIN_QUESTION = frozenset({p.JOIN})
REFUSED = "refused"  # the service refused a bot's reply as against our rules


def records_after(
    client: ApiClient | Retrying, tournament: str, table: str, after: int
) -> tuple[bool, list[dict[str, Any]]]:
    """Whether the table is over, and its records past version `after` as anyone may
    see them: the table's event feed."""
    feed = client.ok("GET", table_path(tournament, table) + f"/events?after={after}")
    return bool(feed["over"]), list(feed["records"])


@dataclass(frozen=True)
class Wiring:
    """What every table's thread shares with the bridge."""

    url: str
    tournament: str
    roster: Roster
    prompts: Prompts
    send: Callable[[Address, str], None]
    tally: Tally
    answer_timeout: float | None  # None: the table's own turn timeout decides
    poll: float
    stop: threading.Event


class TableDriver:
    """Tells and drives one table until it is over (or the bridge stops)."""

    def __init__(self, wiring: Wiring, ref: str, *, resume: bool) -> None:
        self.ref = ref
        self._w = wiring
        self._resume = resume
        self.thread = threading.Thread(target=self._run, name=f"table-{ref}", daemon=True)
        self.done = False  # the table is over and everything about it was told

    def start(self) -> None:
        """Begin in a thread of its own."""
        self.thread.start()

    # --- the table's life -------------------------------------------------------------

    def _run(self) -> None:
        client = ApiClient(self._w.url)
        try:
            story = self._open_story(client)
            behind = True  # the story may miss what others did: read the log first
            while not self._w.stop.is_set():
                try:
                    if behind:
                        self._catch_up(client, story)
                    if story.over:
                        self.done = True
                        log.info("table %s is over", self.ref)
                        return
                    bot = self._w.roster.bot(story.to_act) if story.to_act else None
                    if bot is None:  # someone else's turn: look again in a moment
                        behind = not self._w.stop.wait(self._w.poll)
                    else:
                        # Only the bot (or its timeout) can move the table now, and its
                        # turn tells all it does: the log is read again only if the turn
                        # got nowhere.
                        before = story.version
                        self._turn(client, story, bot)
                        behind = story.version == before
                except (ApiError, OSError) as error:  # the service had a bad moment
                    log.warning("table %s: %s; trying again", self.ref, error)
                    client.close()
                    behind = True
                    self._w.stop.wait(1.0)
        except Exception:
            log.exception("table %s: the bridge stopped telling this table", self.ref)
        finally:
            client.close()

    def _open_story(self, client: ApiClient) -> TableStory:
        if not self._resume:
            return TableStory(self._w.roster.name_of)
        answer = client.ok("GET", table_path(self._w.tournament, self.ref))
        log.info("table %s: going on at version %s", self.ref, answer["view"]["version"])
        return TableStory.from_view(self._w.roster.name_of, answer)

    def _catch_up(self, client: ApiClient | Retrying, story: TableStory) -> bool:
        """Tell what happened since the story's version; whether anything had."""
        _, records = records_after(client, self._w.tournament, self.ref, story.version)
        for record in records:
            self._tell(story, story.read(record))
        return bool(records)

    # --- telling ----------------------------------------------------------------------

    def _tell(self, story: TableStory, news: list[News]) -> None:
        listeners = self._listeners(story)
        for item in news:
            if isinstance(item, RoundOpening):
                for player in item.order:
                    bot = self._w.roster.bot(player)
                    if bot is not None:
                        prompt = self._w.prompts.ask(player, JOIN_QUESTION)
                        self._w.send(bot.address, p.round_starting(prompt.token))
                names = [self._w.roster.name_of(player) for player in item.order]
                text = p.round_started(item.round, names)
            else:
                text = item
            for address in listeners:
                self._w.send(address, text)

    def _listeners(self, story: TableStory) -> list[Address]:
        bots = [self._w.roster.bot(player) for player in story.seats]
        return [bot.address for bot in bots if bot is not None] + self._w.roster.listeners()

    # --- a bot's turn -----------------------------------------------------------------

    def _turn(self, client: ApiClient, story: TableStory, bot: Bot) -> None:
        session = Session(client, self._w.tournament, Seat(bot.player_id, bot.token, bot.name))
        throw: int | None = None
        if story.stage in (OPENING, RESPONSE):
            reply = self._ask(client, story, bot, TURN_QUESTION, p.your_turn)
            if reply is None:
                return
            if reply.command == p.SEE:
                self._act(session, story, bot, {"kind": "doubt"}, p.SEE_BEFORE_FIRST_ROLL)
                return
            answer = self._act(session, story, bot, {"kind": "throw"}, p.DID_NOT_TAKE_TURN)
            if not isinstance(answer, dict):
                return
            throw = answer["view"].get("your_throw")
        if story.to_act != bot.player_id or story.stage not in (ANNOUNCE, ANNOUNCE_BLIND):
            return
        if throw is None:  # going on after a restart: the bot's throw is in its view
            mine = session.view(self.ref)
            throw = None if mine is None else mine["view"].get("your_throw")
        if throw is None:  # a blind reroll the bot cannot have asked for: not its dice
            self._stand_in(session, story, bot, "it cannot see its dice")
            return
        value = throw

        def rolled(token: str) -> str:
            return p.rolled(value, token)

        reply = self._ask(client, story, bot, ANNOUNCE_QUESTION, rolled)
        if reply is None:
            return
        announced = p.parse_dice(reply.field(0))
        action = {"kind": "announce", "value": announced}
        self._act(session, story, bot, action, p.ANNOUNCED_LOSING_DICE)

    def _ask(
        self,
        client: ApiClient,
        story: TableStory,
        bot: Bot,
        expects: frozenset[str],
        question: Callable[[str], str],
    ) -> p.Datagram | None:
        """Ask the bot and wait for its reply; None when the turn ended without one (the
        table's timeout, or the stand-in after `--answer-timeout`)."""
        prompt = self._w.prompts.ask(bot.player_id, expects)
        self._w.send(bot.address, question(prompt.token))
        timeout = self._w.answer_timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = self._w.poll
            if deadline is not None:
                wait = max(0.0, min(wait, deadline - time.monotonic()))
            reply = prompt.wait(wait)
            if reply is not None:
                return reply
            if self._w.stop.is_set():
                self._w.prompts.close(prompt)
                return None
            if deadline is not None and time.monotonic() >= deadline:
                reply = self._w.prompts.close(prompt)
                if reply is not None:  # it came in just now
                    return reply
                session = Session(
                    client, self._w.tournament, Seat(bot.player_id, bot.token, bot.name)
                )
                self._stand_in(session, story, bot, "it did not answer in time")
                return None
            if self._catch_up(client, story):  # the table moved on: our turn timeout
                self._w.prompts.close(prompt)  # a reply from now on is late
                return None

    def _act(
        self, session: Session, story: TableStory, bot: Bot, action: dict[str, Any], refused: str
    ) -> dict[str, Any] | str | None:
        """Submit the bot's action; the service's answer (told at once), None when the
        table had moved on, or `REFUSED` when our rules refuse it (then the turn ends as
        an unanswered one: the stand-in acts at once, or the table's timeout comes)."""
        try:
            answer = session.submit(self.ref, {"version": story.version}, action)
        except ActionRejected as error:
            self._w.tally.add(REFUSED)
            log.info("table %s: %s's %s refused: %s", self.ref, bot.name, action, error)
            story.refused[bot.player_id] = refused
            if self._w.answer_timeout is not None:
                self._stand_in(session, story, bot, "our rules refused its reply")
            else:
                self._wait_for_timeout(session.api, story)
            return REFUSED
        if answer is None:  # the table moved on without the bot: its timeout came first
            self._w.tally.add("late")
            self._catch_up(session.api, story)
            return None
        self._tell(story, story.read(_record(answer, bot, action)))
        return answer

    def _wait_for_timeout(self, client: ApiClient | Retrying, story: TableStory) -> None:
        while not self._w.stop.is_set() and not self._catch_up(client, story):
            self._w.stop.wait(self._w.poll)

    def _stand_in(self, session: Session, story: TableStory, bot: Bot, why: str) -> None:
        """Act for the bot until its turn is over (at most a throw and an announcement)."""
        for _ in range(3):
            mine = session.view(self.ref)
            if mine is None or mine["over"] or mine["view"]["to_act"] != bot.player_id:
                return
            action = stand_in_action(mine["view"])
            self._w.tally.add("stand_in")
            log.info("table %s: %s for %s (%s)", self.ref, action, bot.name, why)
            answer = session.submit(self.ref, mine["view"], action)
            if answer is None:
                self._catch_up(session.api, story)
                return
            self._tell(story, story.read(_record(answer, bot, action)))


def _record(answer: dict[str, Any], bot: Bot, action: dict[str, Any]) -> dict[str, Any]:
    """The log record of an action the bridge took, from the service's answer to it."""
    return {
        "version": answer["view"]["version"],
        "player": bot.player_id,
        "action": action,
        "events": answer["events"] or [],
    }
