"""Escaping and trimming of user input for HTML and SVG (XML) alike."""

from __future__ import annotations

import re
from html import escape

# Characters XML 1.0 forbids (C0 controls but tab/newline/return, lone surrogates,
# U+FFFE/U+FFFF): a name holding one would make the SVG unparseable, or its UTF-8
# encoding fail. They become U+FFFD, which every font shows as "unknown".
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def esc(value: object) -> str:
    """`value` as text safe in HTML and XML content and in quoted attributes."""
    return escape(_NOT_XML.sub("\ufffd", str(value)), quote=True)


def clip(text: str, length: int) -> str:
    """`text` cut to `length` characters with an ellipsis (cut before escaping)."""
    return text if len(text) <= length else text[: length - 1].rstrip() + "…"


def count(number: int, noun: str, plural: str | None = None) -> str:
    """ "1 table", "1,234 tables"."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"
