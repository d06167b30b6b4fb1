"""`knobelcup verify`: prove a finished table's dice and rules from its audit log.

knobelcup verify table-R1-3.json                                  (a saved log)
knobelcup verify http://127.0.0.1:3000/tournaments/t-.../tables/R1-3   (fetched)

Exit code 0 with "all N throws verified", 1 naming the first throw or step that does
not hold, 2 when the log cannot be read. The scheme is docs/dice.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from cli.api_client import ApiClient, ApiError
from core.dice_proof import prove_table
from core.errors import KnobelcupError

_TABLE_URL = re.compile(r"^(https?://[^/]+(?:/.*?)?)/tournaments/([^/?#]+)/tables/([^/?#]+)")


def add_parser(commands: Any) -> None:
    """The `verify` subcommand."""
    parser = commands.add_parser(
        "verify", help="verify every throw of a finished table (a saved log or a table's URL)"
    )
    parser.add_argument(
        "source",
        help="a saved audit log (the JSON of GET .../tables/{ref}/log), or a table's URL"
        " (http://HOST/tournaments/ID/tables/REF, any page or route of it)",
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
    try:
        log = load_log(args.source)
    except (OSError, ValueError, ApiError) as error:
        print(f"error: cannot read the log from {args.source}: {error}", file=sys.stderr)
        return 2
    where = f"table {log.get('table')} of tournament {log.get('tournament')}"
    try:
        proof = prove_table(log)
    except KnobelcupError as error:  # a die, a step, a seed, an unknown game
        print(f"NOT VERIFIED: {where}: {error}")
        return 1
    secret = log["dice"].get("secret", True)
    mark = "" if secret else " (repeatable dice: the server seed was not secret)"
    print(
        f"{where}: all {proof.throws} throws verified ({proof.dice} dice, committed "
        f"{log['dice']['commitment'][:16]}…){mark}; ranking {', '.join(proof.outcome.ranking)}"
    )
    return 0
