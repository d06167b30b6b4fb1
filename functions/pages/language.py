"""Which language a page speaks (pure): what the person chose, else the organizer's
choice for the tournament, else what the browser asks for, else English.

The choice is asked for with `?lang=de|en` (the pages' switch links there) and remembered
in a cookie (`LANGUAGE_COOKIE`), which the route sets on such an answer.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

from core.words import DEFAULT, LANGUAGES

LANGUAGE_COOKIE = "knobelcup_lang"


def choose(*, asked: str = "", remembered: str = "", organizer: str = "", accept: str = "") -> str:
    """The page's language: `asked` (`?lang=`), `remembered` (the cookie), the
    `organizer`'s for the tournament, the best of `accept` (`Accept-Language`)."""
    for wanted in (asked, remembered, organizer):
        if wanted in LANGUAGES:
            return wanted
    return accepted(accept) or DEFAULT


def accepted(header: str) -> str:
    """The language of ours `header` (`Accept-Language`) likes best, '' for none."""
    best, weight = "", 0.0
    for part in header.split(",")[:20]:
        tag, _, params = part.strip().partition(";")
        code = tag.strip().lower().split("-")[0]
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if code in LANGUAGES and q > weight:
            best, weight = code, q
    return best


def other(lang: str) -> str:
    """The language the switch offers on a page in `lang`."""
    return "en" if lang == "de" else "de"


def switch_href(lang: str, query: str, keep: tuple[str, ...] = ("projector",)) -> str:
    """The switch's link: the other language, with those of the page's own `query`
    parameters named in `keep` (never any other: a page echoes nothing it was sent)."""
    kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k in keep]
    return "?" + urlencode([*kept, ("lang", other(lang))])
