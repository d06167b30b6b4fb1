"""Schemathesis hooks for `.ci/fuzz-api`: two thirds of the generated requests that name
a tournament name one of the fixture's (`.ci/fuzz_fixture.py`: one open, one running),
with its table R1-1 and its last player; an auth provider sends the token its organizer
(organizer routes) or its first player (the others) would send. The fuzzer also finds
the fixture's ids by itself, in the tournament list. So the fuzzer gets past 404
and 401 into each route's own checks, while its probes without a token or with a wrong
one still expect 401. Which tournament follows from the generated id: a failure replays."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any

import schemathesis

FIXTURE: dict[str, Any] = json.loads(Path(os.environ["FUZZ_FIXTURE"]).read_text())
CUPS = {cup["id"]: cup for cup in FIXTURE["cups"]}
# a cancellation or a new organizer token would end the fixture for every later request
KEPT_APART = ("/cancel", "/organizer/token")


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    generated = (case.path_parameters or {}).get("tournament_id")
    if generated is None or case.operation.path.endswith(KEPT_APART):
        return case
    if generated in CUPS:
        # a stateful step's link (or the tournament list) named the fixture already, with
        # ids that belong together: a player just registered must stay the one named
        return case
    pick = zlib.crc32(str(generated).encode()) % 3  # 0: the generated id, as it is
    if pick == 0:
        return case
    cup = FIXTURE["cups"][pick - 1]
    case.path_parameters["tournament_id"] = cup["id"]
    if "table" in case.path_parameters:
        case.path_parameters["table"] = "R1-1"
    if "player_id" in case.path_parameters:  # not the token holder: they stay seated
        case.path_parameters["player_id"] = cup["players"][-1]["id"]
    return case


@schemathesis.auth()
class FixtureTokens:
    """The bearer token for a request to one of the fixture's tournaments."""

    def get(self, case: Any, ctx: Any) -> dict[str, Any]:
        return CUPS

    def set(self, case: Any, data: dict[str, Any], ctx: Any) -> None:
        cup = data.get((case.path_parameters or {}).get("tournament_id", ""))
        if cup is None or case.operation.path.endswith(KEPT_APART):
            return  # another tournament, or a request that would end the fixture
        organizer = "organizer" in (case.operation.tags or [])
        token = cup["organizer"] if organizer else cup["players"][0]["token"]
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
