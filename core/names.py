"""Players' display names: what a name may be, and when two names are the same.

A name is shown as given, trimmed and in Unicode NFC (the composed form: "é" is one
character however it was typed). Two names are the same when their comparison keys
are: NFKC with case folding, runs of whitespace as one space. So "Anna", " anna " and
"ＡＮＮＡ" (full-width) are one name; "Anna" and "Änna" are two.
"""

from __future__ import annotations

import unicodedata

from core.errors import InvalidName

MIN_LENGTH = 1
MAX_LENGTH = 32  # characters (code points) after trimming, in NFC
NAME_RULE = "player name"
# Invisible characters (category Cf) that real names need: the joiners of emoji
# sequences and of Persian and Indic scripts. Every other Cf character is refused.
_ALLOWED_FORMAT = frozenset({"\u200c", "\u200d"})
# Control characters, surrogates, line and paragraph separators, invisible formatting
# (bidirectional overrides, zero-width spaces, soft hyphens, tags)
_REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp", "Cf"})


def display_name(raw: str) -> str:
    """The name as it is stored and shown: trimmed and in NFC; `InvalidName` if it is
    empty, longer than `MAX_LENGTH` characters, or holds a character names may not."""
    return visible_text(raw, "a name", MIN_LENGTH, MAX_LENGTH, NAME_RULE)


def visible_text(raw: str, what: str, least: int, most: int, rule: str) -> str:
    """`raw` trimmed and in NFC, if it has `least` to `most` characters and none that is
    a control or an invisible formatting character; `InvalidName` naming `what` if not.
    Player names, and any other text the service shows to others (a tournament's name)."""
    text = unicodedata.normalize("NFC", raw).strip()
    for character in text:
        if (
            unicodedata.category(character) in _REFUSED_CATEGORIES
            and character not in _ALLOWED_FORMAT
        ):
            raise InvalidName(
                f"{what} may not contain the control or formatting character "
                f"U+{ord(character):04X}",
                rule=rule,
            )
    if not least <= len(text) <= most:
        raise InvalidName(
            f"{what} has {least} to {most} characters after trimming, not {len(text)}",
            rule=rule,
        )
    return text


def name_key(name: str) -> str:
    """What two names are compared by: NFKC, case folded, whitespace runs as one space."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())
