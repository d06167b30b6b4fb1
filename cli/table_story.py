"""A table's event feed told in words: who starts, who announced what, what was under the
cup when someone doubted, who lost how many points, who is out, and the table's result.

`Narrator` reads the records of `GET .../events` (docs/audit-log.md lists the events)
in order, for one player (`me`, told as "you") or a spectator (`me` None). It needs
nothing but the records: the seating record tells it the game, the seats and the rules.
Display names are used where the API gives them (`players` in table answers); ids
otherwise. Events this module does not know are still told, plainly. Every sentence is
the catalogue's (`core.words`, `story.*`), in `lang`: `assets/story.js` tells the pages
the same from the same keys, sentence for sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core import words
from core.registry import game_title
from core.words import DEFAULT, count, say

Event = Mapping[str, Any]
PHASES = frozenset({"hinrunde", "playoff", "rueckrunde"})
MAEXCHEN = 21


def ordinal(number: int, lang: str = DEFAULT) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st, ... (German: the number)."""
    return words.ordinal(lang, number)


def throw_value(dice: Iterable[int]) -> int:
    """Two dice as the games write them, higher die first (1 and 4: 41)."""
    high, low = sorted(dice, reverse=True)
    return high * 10 + low


# After one of these the player who acted is done with this turn, even if it is theirs
# again next (a Mäxchen doubter in the wrong starts the next round).
TURN_OVER = frozenset({
    "Announced", "Doubted", "RoundStarted", "RoundScored", "TurnStarted", "TurnEnded",
    "ThrowOffStarted", "TurnTimedOut", "MatchFinished",
})  # fmt: skip


def continues_turn(record: Mapping[str, Any], player: str) -> bool:
    """Whether `player` is still in the turn `record` was a step of: they took it and it
    ended nothing (a Mäxchen throw before its announcement, a 42 throw, a Mariechen
    throw before the sixth)."""
    events = record.get("events") or []
    return record.get("player") == player and not any(e.get("type") in TURN_OVER for e in events)


def names_from(players: object) -> dict[str, str]:
    """Display names from a table answer's `players` ([{id, name}]), if it has them."""
    if not isinstance(players, list):
        return {}
    return {
        p["id"]: p["name"]
        for p in players
        if isinstance(p, dict) and isinstance(p.get("id"), str) and isinstance(p.get("name"), str)
    }


@dataclass
class Narrator:
    """Tells the records of one table's feed, in order, as `me` sees them, in `lang`."""

    me: str | None
    table: str = ""
    names: dict[str, str] = field(default_factory=dict)
    lang: str = DEFAULT
    game: str = ""
    seats: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    survivors: int = 1
    _last_throw: dict[str, str] = field(default_factory=dict)  # 42: what a turn ends with
    _action: str | None = None  # the kind of the action of the record being told

    # --- words for players ---------------------------------------------------------

    def w(self, key: str, **values: object) -> str:
        """The catalogue's sentence `key` in this narrator's language."""
        return say(self.lang, key, **values)

    def name(self, player: object) -> str:
        """A player as the text calls them: "you" ("du"), their name, or their id."""
        if player == self.me:
            return self.w("story.you")
        return self.names.get(str(player), str(player))

    def subject(self, text: str) -> str:
        """`text` at the start of a line: only "you" ("du") is capitalised, never a name
        or an id."""
        you = self.w("story.you")
        return text[:1].upper() + text[1:] if text == you or text.startswith(you + " ") else text

    def by(self, key: str, player: object, **values: object) -> str:
        """The sentence `key` about `player`, its `.you` form when they are `me` (the verb
        follows the person), `{name}` filled; lowercase "you" stays for mid-sentence."""
        mine = player == self.me
        return self.w(f"{key}.you" if mine else key, name=self.name(player), **values)

    def told(self, key: str, player: object, **values: object) -> str:
        """`by`, at the start of a line."""
        return self.subject(self.by(key, player, **values))

    def whose(self, player: object, value: object) -> str:
        """ "your 62" or "Anna's 62" ("deine 62", "die 62 von Anna")."""
        key = "story.whose.you" if player == self.me else "story.whose"
        return self.w(key, name=self.name(player), value=value)

    def listing(self, players: Iterable[object]) -> str:
        """Players joined with commas and a final "and"."""
        names = [self.name(p) for p in players]
        if len(names) == 1:
            return names[0]
        return self.w("story.and", first=", ".join(names[:-1]), last=names[-1])

    def _after(self, throws: int) -> str:
        return count(self.lang, throws, "after_throws")

    # --- records -------------------------------------------------------------------

    def lines(self, record: Mapping[str, Any]) -> list[str]:
        """One record of the feed in words (often one line; a doubt and its penalty are
        one sentence)."""
        events: list[Event] = list(record.get("events") or [])
        self._action = (record.get("action") or {}).get("kind")
        said: list[str] = []
        index = 0
        while index < len(events):
            event = events[index]
            following = events[index + 1] if index + 1 < len(events) else None
            line, used = self._tell(event, following)
            said += line.split("\n")
            index += used
        return said

    def _tell(self, event: Event, following: Event | None) -> tuple[str, int]:
        """The words for `event` and how many events they took (2: `following` too)."""
        kind = event.get("type")
        then = following.get("type") if following else None
        if kind in ("Doubted", "TurnTimedOut") and following and then == "PenaltyGiven":
            return f"{self._head(event)} — {self._penalty(following)}.", 2
        if kind == "DiceThrown" and following and then == "ThrowCounted":
            return self._counted(event, following), 2
        teller = _TELLERS.get(str(kind))
        if teller is None:
            fields = ", ".join(f"{k} {v}" for k, v in event.items() if k != "type")
            return self.w("story.unknown", kind=kind, fields=fields), 1
        return teller(self, event), 1

    def _head(self, event: Event) -> str:
        if event["type"] == "TurnTimedOut":
            return self.told("story.timed_out", event["player"])
        doubt = self.told(
            "story.doubted",
            event["player"],
            whose=self.whose(event["announcer"], event["announcement"]),
            revealed=event["revealed"],
        )
        return self.w("story.held", doubt=doubt) if event["announcement_held"] else doubt

    def _penalty(self, event: Event) -> str:
        limit = self.options.get("penalty_limit")
        total = (
            self.w("table.of_limit", value=event["total"], limit=limit)
            if limit
            else str(event["total"])
        )
        return self.by("story.penalty", event["player"], points=event["points"], total=total)

    # --- shared events ---------------------------------------------------------------

    def _table_seated(self, event: Event) -> str:
        self.game, self.seats = event["game"], list(event["seats"])
        self.options, self.survivors = dict(event.get("options") or {}), event["survivors"]
        others = [p for p in self.seats if p != self.me]
        who = (
            self.w("story.play_with", others=self.listing(others))
            if self.me in self.seats
            else self.listing(self.seats)
        )
        goes_on = count(self.lang, self.survivors, "go_on")
        title = game_title(self.game)
        if self.table:
            return self.w(
                "story.seated_table", table=self.table, game=title, who=who, goes_on=goes_on
            )
        return self.w("story.seated", game=title, who=who, goes_on=goes_on)

    def _dice_thrown(self, event: Event) -> str:
        player, dice = event["player"], event["dice"]
        if self.game == "maexchen":
            if event["visibility"] == "nobody" and dice is None:
                return self.told("story.threw_blind", player)
            if dice is None:
                return self.told("story.threw_cup", player)
            pasch = dice[0] == dice[1]
            key = "story.threw_pasch" if pasch else "story.threw"
            return self.told(key, player, value=throw_value(dice))
        if self.game == "zweiundvierzig":
            if dice is None:
                self._last_throw[player] = self.w("story.covered_fifth")
                return self.told("story.threw_fifth", player)
            self._last_throw[player] = str(throw_value(dice))
            return self.told("story.threw", player, value=throw_value(dice))
        if self.game == "mariechen":  # a throw without ThrowCounted is one of a throw-off
            return self.told("story.threw_off", player, value=dice[0])
        return self.told("story.threw", player, value=dice)

    def _turn_timed_out(self, event: Event) -> str:
        return self.told("story.timed_out", event["player"]) + "."

    def _penalty_given(self, event: Event) -> str:
        return self.subject(self._penalty(event)) + "."

    def _player_forfeited(self, event: Event) -> str:
        if self._action == "forfeit":  # the service's move for a disqualified player
            return self.told("story.disqualified", event["player"])
        return self.told("story.forfeited", event["player"])

    def _player_eliminated(self, event: Event) -> str:
        return self.told("story.eliminated", event["player"])

    def _match_finished(self, event: Event) -> str:
        ranking = list(event["ranking"])
        places = ", ".join(f"{n}. {self.name(p)}" for n, p in enumerate(ranking, start=1))
        said = self.w("story.over", places=places)
        if self.me in ranking:
            place = ranking.index(self.me) + 1
            fate = self.w("story.through" if place <= self.survivors else "story.out")
            said += "\n" + self.w("story.your_place", place=place, seats=len(ranking), fate=fate)
        return said

    # --- Mäxchen ---------------------------------------------------------------------

    def _round_started(self, event: Event) -> str:
        phase = str(event.get("phase"))
        shown = (
            self.w("story.in_phase", phase=self.w(f"story.phase.{phase}"))
            if phase in PHASES
            else ""
        )
        return self.by("story.round_started", event["starter"], round=event["round"], phase=shown)

    def _announced(self, event: Event) -> str:
        value = event["value"]
        maexchen = value == MAEXCHEN and self.game == "maexchen"
        key = "story.announced_maexchen" if maexchen else "story.announced"
        return self.told(key, event["player"], value=value)

    def _doubted(self, event: Event) -> str:
        return self._head(event) + "."

    # --- Mariechen -------------------------------------------------------------------

    def _turn_started(self, event: Event) -> str:
        return self.told("story.turn_started", event["player"])

    def _hit(self, counted: Event) -> str:
        return self.w("story.hit" if counted["hit"] else "story.missed")

    def _counted(self, thrown: Event, counted: Event) -> str:
        return self.subject(
            self.w(
                "story.counted",
                name=self.name(counted["player"]),
                throw=counted["throw"],
                target=counted["target"],
                face=thrown["dice"][0],
                hit=self._hit(counted),
                score=counted["score"],
            )
        )

    def _throw_counted(self, event: Event) -> str:
        return self.subject(
            self.w(
                "story.counted_plain",
                name=self.name(event["player"]),
                throw=event["throw"],
                target=event["target"],
                hit=self._hit(event),
                score=event["score"],
            )
        )

    def _throw_off_started(self, event: Event) -> str:
        return self.w(
            "story.throw_off",
            first=event["first_place"],
            last=event["last_place"],
            players=self.listing(event["players"]),
        )

    # --- 42 muss kommen --------------------------------------------------------------

    def _turn_ended(self, event: Event) -> str:
        player, throws = event["player"], event["throws"]
        kept = self._last_throw.pop(player, None)
        if throws == 0:
            return self.told("story.ended_without", player)
        if kept is None:  # the feed began after that throw
            return self.told("story.stops", player, after=self._after(throws))
        return self.told("story.keeps", player, kept=kept, after=self._after(throws))

    def _round_scored(self, event: Event) -> str:
        turns = list(zip(event["players"], event["last_throws"], event["throws"], strict=False))
        told = [
            self.w("story.scored_none", name=self.name(p))
            if last is None
            else self.w("story.scored_turn", name=self.name(p), value=last, after=self._after(n))
            for p, last, n in turns
        ]
        if event.get("conceded"):
            return self.by("story.conceded", event["worst"], round=event["round"])
        best = self.w("story.best", name=self.name(event["best"])) if event.get("best") else ""
        return self.w(
            "story.scored",
            round=event["round"],
            turns=", ".join(told),
            worst=self.name(event["worst"]),
            schitt=self.w("story.schitt") if _mit_ist_schitt(turns, event["worst"]) else "",
            best=best,
        )

    def _stick_taken(self, event: Event) -> str:
        return self.told(
            "story.stick_taken", event["player"], sticks=event["sticks"], pot=event["pot"]
        )

    def _stick_passed(self, event: Event) -> str:
        receiver = event["receiver"]
        return self.told(
            "story.stick_passed",
            event["giver"],
            receiver=self.w("story.you_to") if receiver == self.me else self.name(receiver),
            giver_sticks=event["giver_sticks"],
            receiver_sticks=event["receiver_sticks"],
        )

    def _players_left(self, event: Event) -> str:
        players = event["players"]
        if len(players) == 1:
            place = ordinal(event["first_place"], self.lang)
            return self.told("story.left_one", players[0], place=place)
        return self.subject(
            self.w(
                "story.left_many",
                players=self.listing(players),
                first=event["first_place"],
                last=event["last_place"],
            )
        )

    def _player_placed(self, event: Event) -> str:
        place = ordinal(event["place"], self.lang)
        return self.told("story.placed", event["player"], place=place)


def _mit_ist_schitt(turns: list[tuple[Any, Any, Any]], worst: object) -> bool:
    """Whether the round's worst threw what another threw, with as many throws: the
    later of equals is worse ("Mit ist Schitt", docs/rules.md §3.5)."""
    mine = [(last, n) for p, last, n in turns if p == worst and last is not None]
    return bool(mine) and any(
        (last, n) == mine[0] for p, last, n in turns if p != worst and last is not None
    )


_TELLERS: dict[str, Callable[[Narrator, Event], str]] = {
    "TableSeated": Narrator._table_seated,
    "DiceThrown": Narrator._dice_thrown,
    "TurnTimedOut": Narrator._turn_timed_out,
    "PenaltyGiven": Narrator._penalty_given,
    "PlayerForfeited": Narrator._player_forfeited,
    "PlayerEliminated": Narrator._player_eliminated,
    "MatchFinished": Narrator._match_finished,
    "RoundStarted": Narrator._round_started,
    "Announced": Narrator._announced,
    "Doubted": Narrator._doubted,
    "TurnStarted": Narrator._turn_started,
    "ThrowCounted": Narrator._throw_counted,
    "ThrowOffStarted": Narrator._throw_off_started,
    "TurnEnded": Narrator._turn_ended,
    "RoundScored": Narrator._round_scored,
    "StickTaken": Narrator._stick_taken,
    "StickPassed": Narrator._stick_passed,
    "PlayersLeft": Narrator._players_left,
    "PlayerPlaced": Narrator._player_placed,
}
