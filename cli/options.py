"""Options that several `knobelcup` commands share, defined once.

`add_url_option`: where the service is, `--url URL`, by default `$KNOBELCUP_URL`, else
the local service's address (`make serve`'s).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping

from cli.api_client import DEFAULT_URL

URL_VARIABLE = "KNOBELCUP_URL"


def default_url(environment: Mapping[str, str] | None = None) -> str:
    """The service's URL when no `--url` is given: `$KNOBELCUP_URL`, else `DEFAULT_URL`."""
    found = (os.environ if environment is None else environment).get(URL_VARIABLE, "").strip()
    return found or DEFAULT_URL


def add_url_option(parser: argparse.ArgumentParser) -> None:
    """`--url`: the service a client command talks to."""
    parser.add_argument(
        "--url",
        default=default_url(),
        help=f"the service (default: ${URL_VARIABLE}, else {DEFAULT_URL})",
    )
