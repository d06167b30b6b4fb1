"""Which of the site's files an address is: the Python twin of the distribution's
viewer-request function (template.yaml: `SiteRouter`), which the local front runs; a
test runs both over the same requests.

`/assets/<name>` is the file of that key. `/tournaments/<id>/play` is the play page's
shell in the language the request asks for (`?lang=`), else the one its cookie
remembers, else the best of its `Accept-Language`, else English: the organizer's choice
for the tournament, which only the API knows, is the page's script's to apply. Any
other address is none of the site's: the API's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from functions.pages.language import LANGUAGE_COOKIE, choose
from functions.site.files import shell_key

PLAY_PAGE = re.compile(r"^/tournaments/[^/]+/play$")
ASSETS = "/assets/"


def site_key(
    path: str,
    query: Mapping[str, str] | None = None,
    cookies: Mapping[str, str] | None = None,
    accept_language: str = "",
) -> str | None:
    """The key of the site's file at `path` (None: an address of the API's), for a
    request with this `query`, these `cookies` and `Accept-Language`."""
    if path.startswith(ASSETS):
        return path[1:]
    if PLAY_PAGE.match(path):
        lang = choose(
            asked=(query or {}).get("lang", ""),
            remembered=(cookies or {}).get(LANGUAGE_COOKIE, ""),
            accept=accept_language,
        )
        return shell_key(lang)
    return None
