"""A "42 muss kommen" bot: keep a throw that will not lose the round, else throw again.

- The round's starter keeps a throw among the seven best values (42 22 54 31 11 53 21):
  the throws it uses are the most anyone after it may use.
- Everyone else keeps the first throw that is not the round's worst so far: one that
  beats some finished player's last throw (better value; on equal value fewer throws;
  a full tie goes against the later thrower, this bot). A covered fifth throw is
  unknown and beats nothing here; a turn without a throw is beaten by any throw.
- It never concedes: stopping keeps the chance that someone after it does worse.
"""

from __future__ import annotations

from typing import Any

# Best first (docs/rules.md §3.1)
RANKING: tuple[int, ...] = (
    42, 22, 54, 31, 11, 53, 21, 65, 52, 66, 64, 51, 55, 63, 43, 44, 62, 41, 33, 61, 32,
)  # fmt: skip
RANK = {value: rank for rank, value in enumerate(RANKING)}
GOOD_FOR_STARTER = 7
COVERED = 5  # a fifth throw stays covered until the round is scored


def beats(value: int, throws: int, finished: dict[str, Any]) -> bool:
    """Whether keeping `value` after `throws` throws beats a finished player's turn."""
    if finished["last_throw"] is None:
        covered: bool = finished["throws"] == COVERED
        return not covered  # no throw at all: any throw beats it
    theirs = RANK[finished["last_throw"]]
    return RANK[value] < theirs or (RANK[value] == theirs and throws < finished["throws"])


def decide(view: dict[str, Any]) -> dict[str, Any]:
    """Throw, or stop with a throw worth keeping."""
    legal: list[dict[str, Any]] = view["legal_actions"]
    kinds = {action["kind"] for action in legal}
    round_ = view["round"]
    throws: list[int] = round_["throws"]
    if "stop" in kinds and throws:
        value = throws[-1]
        finished = round_["finished"]
        if finished:
            keep = any(beats(value, len(throws), done) for done in finished)
        else:
            keep = RANK[value] < GOOD_FOR_STARTER
        if keep or "throw" not in kinds:
            return {"kind": "stop"}
    if "throw" in kinds:
        return {"kind": "throw"}
    return {"kind": "stop"} if "stop" in kinds else dict(legal[0])
