"""The classic Mia/Mäxchen UDP protocol: its datagrams, names, dice and reasons.

The protocol is the coding-dojo server's (`protokoll.en.markdown` of conradthukral/maexchen):
UTF-8 text, fields split by `;`, dice written higher die first as `5,2`. This module
only reads and writes its words; what they mean at a Knobelcup table is the bridge's
(docs/udp-bridge.md).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

# The classic server reads whatever arrives; its messages are all under 100 bytes, and
# the reference Java client reads at most 1,000. Anything longer is not a message.
MAX_DATAGRAM = 1024

REGISTER = "REGISTER"
REGISTER_SPECTATOR = "REGISTER_SPECTATOR"
JOIN = "JOIN"
ROLL = "ROLL"
SEE = "SEE"
ANNOUNCE = "ANNOUNCE"
CLIENT_COMMANDS = frozenset({REGISTER, REGISTER_SPECTATOR, JOIN, ROLL, SEE, ANNOUNCE})

# Reasons for `PLAYER LOST`, as the classic protocol names them ...
SEE_BEFORE_FIRST_ROLL = "SEE_BEFORE_FIRST_ROLL"
LIED_ABOUT_MIA = "LIED_ABOUT_MIA"
ANNOUNCED_LOSING_DICE = "ANNOUNCED_LOSING_DICE"
DID_NOT_ANNOUNCE = "DID_NOT_ANNOUNCE"
DID_NOT_TAKE_TURN = "DID_NOT_TAKE_TURN"
SEE_FAILED = "SEE_FAILED"
CAUGHT_BLUFFING = "CAUGHT_BLUFFING"
# ... and the bridge's own, for outcomes the classic game does not have.
ELIMINATED = "ELIMINATED"
FORFEITED = "FORFEITED"

# Reasons for `REJECTED`: the classic two, and the bridge's for the service's refusals.
INVALID_NAME = "INVALID_NAME"
NAME_ALREADY_TAKEN = "NAME_ALREADY_TAKEN"
REGISTRATION_CLOSED = "REGISTRATION_CLOSED"
SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE"

_NAME = re.compile(r"[^,;:\s]{1,20}")


@dataclass(frozen=True, slots=True)
class Datagram:
    """A client's message: its command and the fields after it."""

    command: str
    fields: tuple[str, ...]

    def field(self, index: int) -> str | None:
        """The field at `index`, or None when the message is shorter."""
        return self.fields[index] if index < len(self.fields) else None

    @property
    def token(self) -> str | None:
        """The token a reply carries: last field of `ANNOUNCE;dice;token`, else first."""
        return self.field(1) if self.command == ANNOUNCE else self.field(0)


def parse(data: bytes) -> Datagram | None:
    """A client datagram, or None for anything that is not one (too long, not UTF-8,
    an unknown command)."""
    if len(data) > MAX_DATAGRAM:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    # netcat and line-based clients end their messages with a newline
    command, *fields = text.rstrip("\r\n").split(";")
    if command not in CLIENT_COMMANDS:
        return None
    return Datagram(command, tuple(fields))


def valid_name(name: str | None) -> bool:
    """The classic rule: 1 to 20 characters, no whitespace, colons, semicolons or commas."""
    return name is not None and _NAME.fullmatch(name) is not None


def new_token() -> str:
    """A fresh token for one request, as the classic server makes them."""
    return str(uuid.uuid4())


def dice_text(value: int) -> str:
    """`52` → `5,2`; Knobelcup writes a throw as a number, higher die first."""
    return f"{value // 10},{value % 10}"


def parse_dice(text: str | None) -> int | None:
    """`5,2` or `2,5` → 52; None unless two dice of 1 to 6."""
    if text is None:
        return None
    parts = text.split(",")
    if len(parts) != 2:
        return None
    try:
        dice = sorted((int(parts[0].strip()), int(parts[1].strip())), reverse=True)
    except ValueError:
        return None
    if not all(1 <= die <= 6 for die in dice):
        return None
    return 10 * dice[0] + dice[1]


# --- what the bridge sends ---------------------------------------------------------------


def registered() -> str:
    return "REGISTERED"


def rejected(reason: str) -> str:
    return f"REJECTED;{reason}"


def round_starting(token: str) -> str:
    return f"ROUND STARTING;{token}"


def round_started(number: int, names: list[str]) -> str:
    return f"ROUND STARTED;{number};{','.join(names)}"


def your_turn(token: str) -> str:
    return f"YOUR TURN;{token}"


def player_rolls(name: str) -> str:
    return f"PLAYER ROLLS;{name}"


def rolled(value: int, token: str) -> str:
    return f"ROLLED;{dice_text(value)};{token}"


def announced(name: str, value: int) -> str:
    return f"ANNOUNCED;{name};{dice_text(value)}"


def player_wants_to_see(name: str) -> str:
    return f"PLAYER WANTS TO SEE;{name}"


def actual_dice(value: int) -> str:
    return f"ACTUAL DICE;{dice_text(value)}"


def player_lost(names: list[str], reason: str) -> str:
    return f"PLAYER LOST;{','.join(names)};{reason}"


def score(points: dict[str, int]) -> str:
    return "SCORE;" + ",".join(f"{name}:{value}" for name, value in points.items())
