"""The catalogue (core/words.py) is whole: every key in both languages with the same
placeholders, every key the pages, their scripts and the console client use is in it, and
the scripts get every key they use with the page."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from core.words import LANGUAGES, SCRIPT_PREFIXES, WORDS, count, for_scripts, number, say

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "functions" / "api" / "pages"
# say(lang, "key"), w("key") (a page's shorthand), K.say("key"), the key before a ternary
SAID = re.compile(r"""(?:\bsay\(\s*(?:\w+,\s*)?|\bw\()\s*["']([a-z_]+\.[a-z_.]*[a-z_])["']""")
SAID_EITHER = re.compile(r"""["']([a-z_]+\.[a-z_.]*[a-z_])["']\s*(?:if|:|\))""")
COUNTED = re.compile(r"""\bcount\(\s*(?:\w+,\s*)?[^,()]+(?:\([^()]*\))?,\s*["']([a-z_]+)["']\)""")
PREFIXED = re.compile(
    r"""["'](state|status|play\.action|count)\.["']\s*\+|f["'](state|status)\.\{"""
)


def _sources() -> list[Path]:
    return [
        *sorted(PAGES.glob("*.py")),
        *sorted((PAGES / "assets").glob("*.js")),
        ROOT / "functions" / "api" / "routes" / "pages.py",
    ]


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_key_is_in_both_languages() -> None:
    english, *others = (set(WORDS[lang]) for lang in LANGUAGES)
    for lang, keys in zip(LANGUAGES[1:], others, strict=True):
        assert sorted(english - keys) == [], f"missing in {lang}"
        assert sorted(keys - english) == [], f"only in {lang}"


@pytest.mark.parametrize("key", sorted(WORDS["en"]))
def test_both_languages_fill_the_same_placeholders(key: str) -> None:
    wanted = {lang: _placeholders(WORDS[lang][key]) for lang in LANGUAGES}
    assert len({frozenset(v) for v in wanted.values()}) == 1, wanted
    assert all(WORDS[lang][key].strip() for lang in LANGUAGES)


def test_every_key_used_is_in_the_catalogue() -> None:
    used: dict[str, str] = {}
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        for key in SAID.findall(text):
            used.setdefault(key, path.name)
        for key in SAID_EITHER.findall(text):
            if key.split(".")[0] in {k.split(".")[0] for k in WORDS["en"]}:
                used.setdefault(key, path.name)
        for noun in COUNTED.findall(text):
            used.setdefault(f"count.{noun}.one", path.name)
            used.setdefault(f"count.{noun}.other", path.name)
        for prefix in PREFIXED.findall(text):
            family = next(p for p in prefix if p)
            assert any(k.startswith(family + ".") for k in WORDS["en"]), family
    assert len(used) > 100, "the scan found too few keys: is the pattern still right?"
    missing = {key: where for key, where in used.items() if key not in WORDS["en"]}
    assert missing == {}


def test_the_scripts_get_every_key_they_use() -> None:
    for path in sorted((PAGES / "assets").glob("*.js")):
        for key in re.findall(r"""K\.say\(\s*["']([a-z_.]*[a-z_])["']""", path.read_text()):
            assert key.startswith(SCRIPT_PREFIXES), f"{path.name}: {key} is not handed over"
            assert key in for_scripts("de"), key


def test_no_sentence_is_left_in_the_scripts() -> None:
    """A string literal in a page script that reads as words (two or more words, a
    capital first) is a sentence written past the catalogue; the narrator (story.js) and
    its twin, the console's, are the known exception still to move."""
    sentence = re.compile(r'"([A-Z][a-z]+(?: [a-z]+)+[^"]*)"')
    for name in ("play.js", "table.js", "watch.js", "live.js", "bracket.js"):
        found = sentence.findall((PAGES / "assets" / name).read_text(encoding="utf-8"))
        assert found == [], (name, found)


def test_numbers_and_counts_follow_the_language() -> None:
    assert number("de", 1234567) == "1.234.567"
    assert number("en", 1234567) == "1,234,567"
    assert count("de", 1, "tables") == "1 Tisch"
    assert count("de", 2000, "tables") == "2.000 Tische"
    assert count("en", 1, "players") == "1 player"
    assert say("xx", "bracket.final") == "Final"  # an unknown language is English
