"""A tournament's join code: what the people in the pub type (or scan) to register.

The organizer may give one at creation; it is stored only as a hash on the tournament
item, never shown again by the API. Codes are compared ignoring case and surrounding
space, so "kneipe-7" typed on a phone is "KNEIPE-7" on the projector.
"""

from __future__ import annotations

import hmac

from infra.errors import JoinCodeRequired, WrongJoinCode
from infra.tokens import hash_token

JOIN_CODE_PATTERN = r"^[A-Za-z0-9-]{4,32}$"  # what an organizer may choose
JOIN_CODE_RULE = "join code"


def join_code_hash(code: str) -> str:
    """What the tournament item stores for `code`."""
    return hash_token("join:" + code.strip().upper())


def check_join_code(expected_hash: str, presented: str | None) -> None:
    """Nothing when the tournament has no code or `presented` is it; else
    `JoinCodeRequired` (none sent) or `WrongJoinCode`."""
    if not expected_hash:
        return
    if presented is None or not presented.strip():
        raise JoinCodeRequired(
            "this tournament needs its join code: ask the organizer, or scan the QR code"
            " in the pub",
            rule=JOIN_CODE_RULE,
        )
    if not hmac.compare_digest(join_code_hash(presented), expected_hash):
        raise WrongJoinCode("that is not this tournament's join code", rule=JOIN_CODE_RULE)
