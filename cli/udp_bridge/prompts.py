"""The bridge's open questions to bots, each under a fresh token, and the tally of every
datagram it ignored.

As in the classic server, a bot has at most one open question: asking anew (the next
turn, the next round) retires the old token. A reply counts only with the open token,
from the address the bot registered from, and with a command the question allows;
everything else is ignored and counted, never an error.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from cli.udp_bridge import protocol as p

Address = tuple[str, int]
SPENT_TOKENS_KEPT = 4096  # enough to tell a late or repeated reply from a made-up one

# What became of a datagram that was not an awaited answer
GARBAGE = "garbage"  # not a protocol message at all
OVERSIZED = "oversized"
UNKNOWN_SENDER = "unknown_sender"  # from an address no bot registered from
UNKNOWN_TOKEN = "unknown_token"
DUPLICATE = "duplicate"  # a second answer under a token already answered
LATE = "late"  # an answer after its turn had ended without it
UNEXPECTED = "unexpected"  # a command the question does not allow, or unreadable dice
WRONG_SENDER = "wrong_sender"  # the right token from another address
ANSWERED = "answered"


class Tally:
    """Counts by name, shared by the bridge's threads."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def add(self, name: str, by: int = 1) -> None:
        """Count one more `name`."""
        with self._lock:
            self._counts[name] += by

    def snapshot(self) -> dict[str, int]:
        """Every count so far."""
        with self._lock:
            return dict(self._counts)


@dataclass
class Prompt:
    """One question to one bot: which replies it takes, and the reply once it came."""

    token: str
    player: str
    expects: frozenset[str]
    reply: p.Datagram | None = None
    _answered: threading.Event = field(default_factory=threading.Event)

    def wait(self, seconds: float) -> p.Datagram | None:
        """The reply, waiting up to `seconds` for it."""
        self._answered.wait(seconds)
        return self.reply

    def answer(self, reply: p.Datagram) -> None:
        """Hand the reply to whoever waits for it."""
        self.reply = reply
        self._answered.set()


class Prompts:
    """Every open question, by token; replies are matched here."""

    def __init__(self, tally: Tally, address_of: Callable[[str], Address | None]) -> None:
        self._tally = tally
        self._address_of = address_of
        self._open: dict[str, Prompt] = {}
        self._by_slot: dict[tuple[str, bool], str] = {}
        self._spent: OrderedDict[str, bool] = OrderedDict()  # token -> was answered
        self._lock = threading.Lock()

    def ask(self, player: str, expects: frozenset[str]) -> Prompt:
        """A new question for `player`, retiring the one still open for them. A round's
        `JOIN` is a slot of its own: the bridge does not wait for it, so the round's
        first turn must not retire it."""
        prompt = Prompt(p.new_token(), player, expects)
        slot = _slot(prompt)
        with self._lock:
            previous = self._by_slot.get(slot)
            if previous is not None:
                self._retire(previous, answered=False)
            self._open[prompt.token] = prompt
            self._by_slot[slot] = prompt.token
        return prompt

    def close(self, prompt: Prompt) -> p.Datagram | None:
        """Retire `prompt`; its reply if one came in before that, else None (any reply
        from now on is late)."""
        with self._lock:
            if prompt.token in self._open:
                self._retire(prompt.token, answered=False)
            return prompt.reply

    def offer(self, datagram: p.Datagram, sender: Address) -> str:
        """Match a bot's reply to its question; what became of it (`ANSWERED` or why it
        was ignored), counted in the tally."""
        outcome = self._match(datagram, sender)
        self._tally.add(outcome)
        return outcome

    def _match(self, datagram: p.Datagram, sender: Address) -> str:
        token = datagram.token
        with self._lock:
            prompt = self._open.get(token) if token is not None else None
            if prompt is None:
                spent = self._spent.get(token) if token is not None else None
                return UNKNOWN_TOKEN if spent is None else DUPLICATE if spent else LATE
            if self._address_of(prompt.player) != sender:
                return WRONG_SENDER
            if datagram.command not in prompt.expects or (
                datagram.command == p.ANNOUNCE and p.parse_dice(datagram.field(0)) is None
            ):
                return UNEXPECTED  # the question stays open, as in the classic server
            self._retire(prompt.token, answered=True)
        prompt.answer(datagram)
        return ANSWERED

    def _retire(self, token: str, *, answered: bool) -> None:
        prompt = self._open.pop(token)
        slot = _slot(prompt)
        if self._by_slot.get(slot) == token:
            del self._by_slot[slot]
        self._spent[token] = answered
        while len(self._spent) > SPENT_TOKENS_KEPT:
            self._spent.popitem(last=False)


def _slot(prompt: Prompt) -> tuple[str, bool]:
    return (prompt.player, p.JOIN in prompt.expects)
