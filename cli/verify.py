"""`knobelcup verify`: prove a finished table's dice and rules from its audit log.

knobelcup verify table-R1-3.json                                  (a saved log)
knobelcup verify http://127.0.0.1:3000/tournaments/t-.../tables/R1-3   (fetched)
knobelcup verify http://127.0.0.1:3000/tournaments/t-...    (every finished table)

Exit code 0 with "all N throws verified", 1 naming the first throw or step that does
not hold (or, for a tournament, when no table is finished yet), 2 when a log cannot be
read. The scheme is docs/dice.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from cli.api_client import (
    HOW_TO_START,
    ApiClient,
    ApiError,
    RetriesExhausted,
    Retrying,
    never_reached,
)
from core.dice_proof import prove_table
from core.errors import KnobelcupError

_TABLE_URL = re.compile(r"^(https?://[^/]+(?:/.*?)?)/tournaments/([^/?#]+)/tables/([^/?#]+)")
# a tournament's own URL or one of its pages (not a table's)
_TOURNAMENT_URL = re.compile(
    r"^(https?://[^/]+(?:/.*?)?)/tournaments/([^/?#]+)(?:/(?:bracket|play|watch))?/?(?:[?#].*)?$"
)


def add_parser(commands: Any) -> None:
    """The `verify` subcommand."""
    parser = commands.add_parser(
        "verify", help="verify every throw of a finished table (a saved log or a table's URL)"
    )
    parser.add_argument(
        "source",
        help="a saved audit log (the JSON of GET .../tables/{ref}/log), a table's URL"
        " (http://HOST/tournaments/ID/tables/REF, any page or route of it), or a"
        " tournament's (http://HOST/tournaments/ID): every finished table of it",
    )


def load_log(source: str) -> dict[str, Any]:
    """The audit log from a file, or fetched from the service a table URL names."""
    found = _TABLE_URL.match(source)
    if found is None:
        log: dict[str, Any] = json.loads(Path(source).read_text(encoding="utf-8"))
        return log
    base, tournament, table = found.groups()
    fetched: dict[str, Any] = ApiClient(base).ok(
        "GET", f"/tournaments/{tournament}/tables/{table}/log"
    )
    return fetched


def run(args: argparse.Namespace) -> int:
    """Verify `args.source`; print the verdict; the exit code."""
    tournament = None if _TABLE_URL.match(args.source) else _TOURNAMENT_URL.match(args.source)
    if tournament is not None:
        return verify_tournament(*tournament.groups())
    try:
        log = load_log(args.source)
    except (OSError, ValueError, ApiError) as error:
        print(f"error: cannot read the log from {args.source}: {_why(error)}", file=sys.stderr)
        return 2
    verified, verdict = prove(log)
    print(verdict)
    return 0 if verified else 1


def prove(log: dict[str, Any]) -> tuple[bool, str]:
    """Whether a table's log holds, and the line that says so (or what does not hold)."""
    where = f"table {log.get('table')} of tournament {log.get('tournament')}"
    try:
        proof = prove_table(log)
    except KnobelcupError as error:  # a die, a step, a seed, an unknown game
        return False, f"NOT VERIFIED: {where}: {error}"
    secret = log["dice"].get("secret", True)
    mark = "" if secret else " (repeatable dice: the server seed was not secret)"
    return True, (
        f"{where}: all {proof.throws} throws verified ({proof.dice} dice, committed "
        f"{log['dice']['commitment'][:16]}…){mark}; ranking {', '.join(proof.outcome.ranking)}"
    )


def verify_tournament(base: str, tournament: str) -> int:
    """Fetch and verify every finished table of `tournament`, round by round; 0 when
    every one holds, 1 when one does not or none is finished yet, 2 when the service
    cannot be read."""
    api = Retrying(ApiClient(base))
    try:
        shown = api.ok("GET", f"/tournaments/{tournament}")
        finished = [
            table["table"]
            for summary in shown["rounds"]
            for table in _round_tables(api, tournament, summary["round"])
            if table["over"]
        ]
        logs = [_table_log(api, tournament, table) for table in finished]
    except (OSError, ApiError, RetriesExhausted) as error:
        print(
            f"error: cannot read tournament {tournament} at {base}: {_why(error)}", file=sys.stderr
        )
        return 2
    verdicts = [prove(log) for log in logs if log is not None]
    for _, verdict in verdicts:
        print(verdict)
    good = sum(verified for verified, _ in verdicts)
    if not verdicts:
        print(f"tournament {tournament} ({shown['status']}): no finished table to verify yet")
        return 1
    print(
        f"tournament {tournament} ({shown['status']}): {good} of {len(verdicts)} finished"
        " tables verified" + ("" if good == len(verdicts) else f", {len(verdicts) - good} NOT")
    )
    return 0 if good == len(verdicts) else 1


def _round_tables(api: Retrying, tournament: str, round_number: int) -> list[dict[str, Any]]:
    """Every table of a round, page by page."""
    tables: list[dict[str, Any]] = []
    offset: int | None = 0
    while offset is not None:
        page = api.ok(
            "GET", f"/tournaments/{tournament}/rounds/{round_number}", query={"offset": offset}
        )
        tables.extend(page["tables"])
        offset = page["next_offset"]
    return tables


def _table_log(api: Retrying, tournament: str, table: str) -> dict[str, Any] | None:
    """A finished table's audit log; None for a bye (nothing was played or thrown)."""
    try:
        log: dict[str, Any] = api.ok("GET", f"/tournaments/{tournament}/tables/{table}/log")
    except ApiError as error:
        if error.status == 409:
            return None
        raise
    return log


def _why(error: BaseException) -> str:
    """An error in words, with how to start the service when none answered."""
    if isinstance(error, OSError) and never_reached(error):
        return f"{error} ({HOW_TO_START})"
    return str(error)
