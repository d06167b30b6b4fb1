"""A Mia (Mäxchen) bot for the classic UDP protocol, written from its document alone
(`protokoll.en.markdown` of the coding-dojo server, conradthukral/maexchen) and on the
standard library only: it plays the classic server and the Knobelcup UDP bridge alike.

    python examples/udp_bot.py HOST PORT NAME [--see-from 61]

It joins every round, doubts (`SEE`) an announcement at or above `--see-from`, otherwise
rolls, and announces its roll when that beats the last announcement, else the lowest
value that does (a small lie). Every message it receives or sends is kept, with the
time, for tests and benchmarks.
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

Address = tuple[str, int]


def rank(dice: tuple[int, int]) -> int:
    """The classic order: Mia (2,1) above the doubles, doubles above the rest."""
    high, low = max(dice), min(dice)
    if (high, low) == (2, 1):
        return 1000
    return 10 * high + low + (100 if high == low else 0)


def parse_dice(text: str) -> tuple[int, int] | None:
    """`5,2` → (5, 2), higher die first; None for anything else."""
    parts = text.split(",")
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        return None
    high, low = sorted((int(parts[0]), int(parts[1])), reverse=True)
    return (high, low) if low >= 1 and high <= 6 else None


ALL_DICE = sorted(
    {(max(a, b), min(a, b)) for a in range(1, 7) for b in range(1, 7)}, key=rank
)  # the 21 values, lowest first


@dataclass
class Heard:
    """One message in or out, and when (`time.monotonic()`)."""

    at: float
    text: str
    sent: bool


@dataclass
class MiaBot:
    """One bot on one UDP socket of its own."""

    name: str
    server: Address
    host: str = "127.0.0.1"
    see_from: tuple[int, int] = (6, 1)
    log: list[Heard] = field(default_factory=list)
    registered: threading.Event = field(default_factory=threading.Event)
    rejected: str | None = None
    last: tuple[int, int] | None = None  # the last announcement of this round
    echo: bool = False  # print every message received
    keep_log: bool = True  # keep every message (tests, benchmarks); off for long play
    spectator: bool = False  # register as a spectator: hear everything, answer nothing

    def __post_init__(self) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind((self.host, 0))
        self.socket.settimeout(0.2)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._listen, name=self.name, daemon=True)

    def start(self) -> MiaBot:
        """Register and answer in a thread of its own."""
        self._thread.start()
        self.send(f"{'REGISTER_SPECTATOR' if self.spectator else 'REGISTER'};{self.name}")
        return self

    def stop(self) -> None:
        """Stop answering and close the socket."""
        self._stopped.set()
        self._thread.join(timeout=2)
        self.socket.close()

    def send(self, text: str) -> None:
        """One message to the server."""
        if self.keep_log:
            self.log.append(Heard(time.monotonic(), text, sent=True))
        self.socket.sendto(text.encode(), self.server)

    def heard(self, prefix: str = "") -> list[str]:
        """The messages received that start with `prefix`, in order."""
        return [h.text for h in self.log if not h.sent and h.text.startswith(prefix)]

    def _listen(self) -> None:
        while not self._stopped.is_set():
            try:
                data, _ = self.socket.recvfrom(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            text = data.decode("utf-8", errors="replace")
            if self.keep_log:
                self.log.append(Heard(time.monotonic(), text, sent=False))
            if self.echo:
                print(text, flush=True)
            self.on_message(text)

    def on_message(self, text: str) -> None:
        """Answer what asks for an answer; remember what the next decision needs."""
        command, *fields = text.split(";")
        if command == "REGISTERED":
            self.registered.set()
        elif command == "REJECTED":
            self.rejected = fields[0] if fields else ""
            self.registered.set()
        elif self.spectator:
            return
        elif command == "ROUND STARTING":
            self.send(f"JOIN;{fields[0]}")
        elif command == "ROUND STARTED":
            self.last = None
        elif command == "ANNOUNCED" and len(fields) == 2:
            self.last = parse_dice(fields[1])
        elif command == "YOUR TURN":
            self.answer_turn(fields[0])
        elif command == "ROLLED" and len(fields) == 2:
            rolled = parse_dice(fields[0])
            if rolled is not None:
                self.answer_roll(rolled, fields[1])

    def answer_turn(self, token: str) -> None:
        """`SEE` a high announcement, otherwise `ROLL`."""
        see = self.last is not None and rank(self.last) >= rank(self.see_from)
        self.send(f"{'SEE' if see else 'ROLL'};{token}")

    def answer_roll(self, rolled: tuple[int, int], token: str) -> None:
        """Announce the roll if it beats the last announcement, else the next value up."""
        announce = rolled
        if self.last is not None and rank(rolled) <= rank(self.last):
            higher = [dice for dice in ALL_DICE if rank(dice) > rank(self.last)]
            announce = higher[0] if higher else self.last
        self.send(f"ANNOUNCE;{announce[0]},{announce[1]};{token}")


def main(argv: Sequence[str] | None = None) -> int:
    """Play until Ctrl-C."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("name")
    parser.add_argument("--see-from", default="6,1", help="SEE at or above these dice (6,1)")
    args = parser.parse_args(argv)
    see_from = parse_dice(args.see_from)
    if see_from is None:
        parser.error("--see-from takes two dice, e.g. 6,1")
    server = (args.host, args.port)
    bot = MiaBot(args.name, server, see_from=see_from, echo=True, keep_log=False).start()
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        bot.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
