"""A table's event feed told in words: who starts, who announced what, what was under the
cup when someone doubted, who lost how many points, who is out, and the table's result.

`Narrator` reads the records of `GET .../events` (docs/audit-log.md lists the events)
in order, for one player (`me`, told as "you") or a spectator (`me` None). It needs
nothing but the records: the seating record tells it the game, the seats and the rules.
Display names are used where the API gives them (`players` in table answers); ids
otherwise. Events this module does not know are still told, plainly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.registry import game_title

Event = Mapping[str, Any]
PHASES = {"hinrunde": "Hinrunde", "playoff": "play-off", "rueckrunde": "Rückrunde"}
MAEXCHEN = 21


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st, ..."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"


def plural(count: int, noun: str) -> str:
    """`count` and `noun`, with an s unless it is one."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


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
    """Tells the records of one table's feed, in order, as `me` sees them."""

    me: str | None
    table: str = ""
    names: dict[str, str] = field(default_factory=dict)
    game: str = ""
    seats: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    survivors: int = 1
    _last_throw: dict[str, str] = field(default_factory=dict)  # 42: what a turn ends with
    _action: str | None = None  # the kind of the action of the record being told

    # --- words for players ---------------------------------------------------------

    def name(self, player: object) -> str:
        """A player as the text calls them: "you", their name, or their id."""
        if player == self.me:
            return "you"
        return self.names.get(str(player), str(player))

    def subject(self, text: str) -> str:
        """`text` (a player's name, "you ...") at the start of a sentence: only "you" is
        capitalised, never a name or an id."""
        return "You" + text[3:] if text == "you" or text.startswith("you ") else text

    def actor(self, player: object) -> str:
        """A player as the subject of a sentence: "You", or their name."""
        return self.subject(self.name(player))

    def whose(self, player: object) -> str:
        """ "your" or "Anna's"."""
        return "your" if player == self.me else f"{self.name(player)}'s"

    def does(self, player: object, verb: str, for_you: str) -> str:
        """The player and a verb that agrees: "Anna loses", "you lose"."""
        return f"{self.name(player)} {for_you if player == self.me else verb}"

    def listing(self, players: Iterable[object]) -> str:
        """Players joined with commas and a final "and"."""
        names = [self.name(p) for p in players]
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"

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
            return f"{kind}: {fields}.", 1
        return teller(self, event), 1

    def _head(self, event: Event) -> str:
        if event["type"] == "TurnTimedOut":
            return f"{self.actor(event['player'])} ran out of time"
        held = event["announcement_held"]
        return (
            f"{self.actor(event['player'])} doubted {self.whose(event['announcer'])} "
            f"{event['announcement']}: it was {event['revealed']}"
            + (", the announcement holds" if held else "")
        )

    def _penalty(self, event: Event) -> str:
        limit = self.options.get("penalty_limit")
        total = f"{event['total']} of {limit}" if limit else str(event["total"])
        loses = self.does(event["player"], "loses", "lose")
        return f"{loses} {event['points']} ({total} penalty points)"

    # --- shared events ---------------------------------------------------------------

    def _table_seated(self, event: Event) -> str:
        self.game, self.seats = event["game"], list(event["seats"])
        self.options, self.survivors = dict(event.get("options") or {}), event["survivors"]
        others = [p for p in self.seats if p != self.me]
        who = (
            f"you play with {self.listing(others)}"
            if self.me in self.seats
            else (self.listing(self.seats))
        )
        goes_on = f"{self.survivors} {'goes' if self.survivors == 1 else 'go'} on"
        title = game_title(self.game)
        return (
            f"Table {self.table} ({title}): {who}; {goes_on}."
            if self.table
            else (f"{title}: {who}; {goes_on}.")
        )

    def _dice_thrown(self, event: Event) -> str:
        player, dice = event["player"], event["dice"]
        if self.game == "maexchen":
            if event["visibility"] == "nobody" and dice is None:
                return f"{self.actor(player)} threw again without looking."
            if dice is None:
                return f"{self.actor(player)} threw under the cup."
            return f"{self.actor(player)} threw {throw_value(dice)}."
        if self.game == "zweiundvierzig":
            if dice is None:
                self._last_throw[player] = "a covered fifth throw"
                return f"{self.actor(player)} threw a fifth time, covered."
            self._last_throw[player] = str(throw_value(dice))
            return f"{self.actor(player)} threw {throw_value(dice)}."
        if self.game == "mariechen":  # a throw without ThrowCounted is one of a throw-off
            return f"{self.actor(player)} threw {dice[0]} in the throw-off."
        return f"{self.actor(player)} threw {dice}."

    def _turn_timed_out(self, event: Event) -> str:
        return f"{self.actor(event['player'])} ran out of time."

    def _penalty_given(self, event: Event) -> str:
        return self.subject(self._penalty(event)) + "."

    def _player_forfeited(self, event: Event) -> str:
        if self._action == "forfeit":  # the service's move for a disqualified player
            disqualified = self.subject(self.does(event["player"], "is", "are"))
            return f"{disqualified} disqualified: out of the table."
        return f"{self.actor(event['player'])} timed out too often: out of the table."

    def _player_eliminated(self, event: Event) -> str:
        return f"{self.subject(self.does(event['player'], 'is', 'are'))} out of this table."

    def _match_finished(self, event: Event) -> str:
        ranking = list(event["ranking"])
        places = ", ".join(f"{n}. {self.name(p)}" for n, p in enumerate(ranking, start=1))
        said = f"The table is over: {places}."
        if self.me in ranking:
            place = ranking.index(self.me) + 1
            through = "through to what comes next" if place <= self.survivors else "out"
            said += f"\nYour place at this table: {place} of {len(ranking)}, {through}."
        return said

    # --- Mäxchen ---------------------------------------------------------------------

    def _round_started(self, event: Event) -> str:
        starts = self.does(event["starter"], "starts", "start")
        phase = PHASES.get(str(event.get("phase")), "")
        return f"Round {event['round']}{f' ({phase})' if phase else ''}: {starts}."

    def _announced(self, event: Event) -> str:
        value = event["value"]
        end = " — Mäxchen!" if value == MAEXCHEN and self.game == "maexchen" else "."
        return f"{self.actor(event['player'])} announced {value}{end}"

    def _doubted(self, event: Event) -> str:
        return self._head(event) + "."

    # --- Mariechen -------------------------------------------------------------------

    def _turn_started(self, event: Event) -> str:
        return f"{self.subject(self.does(event['player'], 'throws', 'throw'))} next: six throws."

    def _counted(self, thrown: Event, counted: Event) -> str:
        face = thrown["dice"][0]
        hit = "a hit" if counted["hit"] else "missed"
        return (
            f"{self.actor(counted['player'])}: throw {counted['throw']} (target "
            f"{counted['target']}): {face}, {hit} — score {counted['score']}."
        )

    def _throw_counted(self, event: Event) -> str:
        hit = "a hit" if event["hit"] else "missed"
        return (
            f"{self.actor(event['player'])}: throw {event['throw']} (target "
            f"{event['target']}): {hit} — score {event['score']}."
        )

    def _throw_off_started(self, event: Event) -> str:
        return (
            f"Throw-off for places {event['first_place']}-{event['last_place']}: "
            f"{self.listing(event['players'])} throw one die each."
        )

    # --- 42 muss kommen --------------------------------------------------------------

    def _turn_ended(self, event: Event) -> str:
        player, throws = event["player"], event["throws"]
        kept = self._last_throw.pop(player, None)
        if throws == 0:
            return f"{self.subject(self.does(player, 'ends', 'end'))} the turn without a throw."
        if kept is None:  # the feed began after that throw
            stops = self.subject(self.does(player, "stops", "stop"))
            return f"{stops} after {plural(throws, 'throw')}."
        return (
            f"{self.subject(self.does(player, 'keeps', 'keep'))} {kept} "
            f"after {plural(throws, 'throw')}."
        )

    def _round_scored(self, event: Event) -> str:
        turns = [
            f"{self.name(p)} {'no throw' if last is None else f'{last} after {n}'}"
            for p, last, n in zip(
                event["players"], event["last_throws"], event["throws"], strict=False
            )
        ]
        worst = self.name(event["worst"])
        if event.get("conceded"):
            return f"Round {event['round']}: {worst} conceded with 32."
        best = f", best {self.name(event['best'])}" if event.get("best") else ""
        return f"Round {event['round']} scored: {', '.join(turns)} — worst {worst}{best}."

    def _stick_taken(self, event: Event) -> str:
        takes = self.subject(self.does(event["player"], "takes", "take"))
        return f"{takes} a stick: {event['sticks']} now, {event['pot']} left in the pot."

    def _stick_passed(self, event: Event) -> str:
        passes = self.subject(self.does(event["giver"], "passes", "pass"))
        return (
            f"{passes} a stick to {self.name(event['receiver'])}: "
            f"{event['giver_sticks']} left, {event['receiver_sticks']} now."
        )

    def _players_left(self, event: Event) -> str:
        places = f"{event['first_place']}-{event['last_place']}"
        if len(event["players"]) == 1:
            leaves = self.does(
                event["players"][0], "holds no stick and leaves", "hold no stick and leave"
            )
            return f"{self.subject(leaves)} the table, placed {ordinal(event['first_place'])}."
        return (
            f"{self.subject(self.listing(event['players']))} hold no stick and leave the "
            f"table, sharing places {places} (a play-off orders them)."
        )

    def _player_placed(self, event: Event) -> str:
        placed = self.subject(self.does(event["player"], "is", "are"))
        return f"{placed} placed {ordinal(event['place'])} at this table."


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
