"""A tournament played by bots through the HTTP API alone, on a local stack.

The organizer creates, opens and starts it over HTTP; each bot registers over HTTP,
finds its table with `GET /me` when an outside subscriber hears that a table was
seated for it, reads its own view and acts. Absent bots never act, so only their turn
deadlines move their tables on: when no present bot can act, the clock goes to the
next due schedule. Given a `ManualClock` (the one the stack runs on), time passes too:
when no schedule is left but a table still waits (its deadline was lost), the clock goes
on past the sweeper's grace and the sweeper runs. Every decision is seeded by the bot,
table and version, and the dice by table and version, so two runs play the same games
whatever order deliveries come in.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from infra.store.deadlines import GRACE_SECONDS
from local.clock import ManualClock
from local.lambda_events import HttpAnswer
from local.stack import LocalStack

Call = Callable[..., HttpAnswer]  # (method, path, body=None, *, token=None) → answer
Strategy = Callable[[dict[str, Any], random.Random], dict[str, Any]]  # (view, dice) → action


def any_legal_action(view: dict[str, Any], chance: random.Random) -> dict[str, Any]:
    """A random legal action."""
    action: dict[str, Any] = chance.choice(view["legal_actions"])
    return action


def stop_when_allowed(view: dict[str, Any], chance: random.Random) -> dict[str, Any]:
    """Stop as soon as the rules allow (42: keep the first throw), never concede; else a
    random legal action. Shortens 42 tables by about a third."""
    legal = view["legal_actions"]
    for action in legal:
        if action["kind"] == "stop":
            return dict(action)
    playing = [action for action in legal if action["kind"] != "concede"] or legal
    return dict(chance.choice(playing))


class BotTournamentError(RuntimeError):
    """The API answered something a correct service never answers."""


@dataclass
class Bot:
    """A registered player and whether it ever acts."""

    name: str
    player_id: str
    token: str
    present: bool


@dataclass
class BotTournament:
    """One tournament from creation to champion; `events` holds what subscribers heard."""

    call: Call
    stack: LocalStack
    seed: str
    strategy: Strategy = any_legal_action
    clock: ManualClock | None = None  # the stack's clock, if time may pass
    bots: dict[str, Bot] = field(default_factory=dict)
    tournament: str = ""
    organizer: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)
    actions: int = 0
    _live: dict[str, str | None] = field(default_factory=dict)  # table → who is to act

    def create(self, game: str, **settings: Any) -> None:
        """Create the tournament and open registration."""
        created = self._ok("POST", "/tournaments", {"game": game, "name": "Cup", **settings})
        self.tournament, self.organizer = created["tournament_id"], created["organizer_token"]
        self._ok("POST", f"/tournaments/{self.tournament}/registration/open", token=self.organizer)

    def register(self, names: Sequence[str], absent: Sequence[str] = ()) -> None:
        """Register a bot per name; those in `absent` never act."""
        for name in names:
            answer = self._ok("POST", f"/tournaments/{self.tournament}/players", {"name": name})
            self.bots[answer["player_id"]] = Bot(
                name, answer["player_id"], answer["player_token"], name not in absent
            )

    def start(self, *, in_registration_order: bool = False) -> dict[str, Any]:
        """Start with a secret seed, or seated in registration order (reproducible)."""
        body = {"order": list(self.bots)} if in_registration_order else None
        return self._ok("POST", f"/tournaments/{self.tournament}/start", body, token=self.organizer)

    def run(self, max_steps: int = 1_000_000) -> dict[str, Any]:
        """Play until the tournament is finished; its final view."""
        for _ in range(max_steps):
            self.stack.delivery.settle()
            finished = self._listen()
            if finished:
                return self._ok("GET", f"/tournaments/{self.tournament}")
            if self._play():
                continue
            if not self._let_time_pass():
                raise BotTournamentError(
                    f"nothing can move: tables {sorted(self._live)} wait, no deadline is due"
                )
            for ref in list(self._live):  # the timeouts moved these tables on
                self._refresh(ref)
        raise BotTournamentError(f"not finished after {max_steps} steps")

    def standings(self) -> list[dict[str, Any]]:
        """Every place, by bot name (names are the same in every run, ids are not)."""
        rows: list[dict[str, Any]] = []
        offset: int | None = 0
        while offset is not None:
            page = self._ok(
                "GET", f"/tournaments/{self.tournament}/standings", query=f"offset={offset}"
            )
            rows.extend(page["standings"])
            offset = page["next_offset"]
        return [{**row, "player": self.bots[row["player"]].name} for row in rows]

    # --- helpers ---------------------------------------------------------------------

    def _let_time_pass(self) -> bool:
        """Fire the next due deadline, or with a clock, when none is left but tables
        wait, let the sweeper find them; whether any timeout could come."""
        delivery = self.stack.delivery
        due = delivery.schedules.next_due()
        if due is not None:
            if self.clock is not None:
                self.clock.advance_to(due)
            delivery.schedules.fire_due(due)  # a firing that fails stays for a retry
            return True
        sweeps = delivery.sweeps
        if self.clock is None or sweeps is None or not self._live:
            return False
        # every deadline passed by now was fired or lost: past its grace the sweeper acts
        self.clock.advance(GRACE_SECONDS + sweeps.period)
        delivery.sweep_due(self.clock())
        return bool(sweeps.last and sweeps.last.get("timed_out"))

    def _listen(self) -> bool:
        """Take the events the subscriber heard; True once the tournament is finished."""
        finished = False
        for envelope in self.stack.observed():
            self.events.append(envelope)
            detail = envelope["detail"]
            if detail["tournament"] != self.tournament:
                continue
            if envelope["detail-type"] == "TableSeated" and detail["table"] not in self._live:
                for player in detail["players"]:
                    self._find_table(self.bots[player], detail["table"])
                self._live[detail["table"]] = None
                self._refresh(detail["table"])
            elif envelope["detail-type"] == "TournamentFinished":
                finished = True
        return finished

    def _find_table(self, bot: Bot, expected: str) -> None:
        me = self._ok("GET", f"/tournaments/{self.tournament}/me", token=bot.token)
        if me["table"] != expected:
            raise BotTournamentError(f"{bot.name} was seated at {expected}, /me says {me}")

    def _play(self) -> bool:
        """Let present bots act wherever it is their turn; whether anyone acted."""
        acted = False
        for ref in list(self._live):
            view: dict[str, Any] | None = None  # the actor's own, if it is to act again
            while ref in self._live:
                to_act = self._live[ref]
                bot = self.bots.get(to_act) if to_act else None
                if bot is None or not bot.present:
                    break
                view = self._act(bot, ref, view)
                acted = True
        return acted

    def _act(self, bot: Bot, ref: str, view: dict[str, Any] | None) -> dict[str, Any] | None:
        """One action of `bot`; its view afterwards if it is to act again, else None."""
        path = f"/tournaments/{self.tournament}/tables/{ref}"
        if view is None:
            view = self._ok("GET", path + "/me", token=bot.token)["view"]
        choose = random.Random(f"{self.seed}/{bot.name}/{ref}/{view['version']}")
        action = self.strategy(view, choose)
        acted = self._ok(
            "POST",
            path + "/actions",
            {"version": view["version"], "action": action},
            token=bot.token,
        )
        self.actions += 1
        if acted["over"]:
            del self._live[ref]
            return None
        after: dict[str, Any] = acted["view"]
        self._live[ref] = after["to_act"]
        return after if after["to_act"] == bot.player_id else None

    def _refresh(self, ref: str) -> None:
        """Look at the table as a spectator: who is to act now, or drop it if over."""
        seen = self._ok("GET", f"/tournaments/{self.tournament}/tables/{ref}")
        if seen["over"]:
            del self._live[ref]
        else:
            self._live[ref] = seen["view"]["to_act"]

    def _ok(self, method: str, path: str, body: object = None, **request: Any) -> dict[str, Any]:
        answer = self.call(method, path, body, **request)
        if answer.status not in (200, 201, 202):
            raise BotTournamentError(f"{method} {path} answered {answer.status}: {answer.raw}")
        result: dict[str, Any] = answer.body
        return result
