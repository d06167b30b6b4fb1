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
PAGES = ROOT / "functions" / "pages"
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
    capital first) is a sentence written past the catalogue."""
    sentence = re.compile(r'"([A-Z][a-z]+(?: [a-z]+)+[^"]*)"')
    for path in sorted((PAGES / "assets").glob("*.js")):
        found = sentence.findall(path.read_text(encoding="utf-8"))
        assert found == [], (path.name, found)


# The narrators and the console: every catalogue key they name as a literal; a sentence
# about a player (`by`/`told`) in both forms, the `.you` one for the player told.
STORY_SOURCES = (PAGES / "assets" / "story.js", ROOT / "cli" / "table_story.py")
CONSOLE_SOURCES = (
    ROOT / "cli" / "play.py", ROOT / "cli" / "table_text.py", ROOT / "cli" / "main.py",
)  # fmt: skip
# `knobelcup organize` and `admin`: the organizer's commands, their key ring, the round
# bars, and the operator's repairs
ORGANIZE_SOURCES = tuple(
    ROOT / "cli" / name
    for name in ("organize.py", "progress.py", "organizer_tokens.py", "admin.py")
)
NAMED = re.compile(
    r"""["']((?:story|console|play|table|fact|count|organize|admin)\.[a-z_.]*[a-z_])["']"""
)
ABOUT_A_PLAYER = re.compile(r"""\b(?:by|told)\(\s*["'](story\.[a-z_.]*[a-z_])["']""")
COUNTED_BY_SCRIPT = re.compile(r"""\bK\.count\([^,()]+,\s*["']([a-z_]+)["']\)""")
COUNTED_BY_NARRATOR = re.compile(
    r"""\bcount\(\s*self\.lang,\s*[^,()]+(?:\([^()]*\))?,\s*["']([a-z_]+)["']\)"""
)
FAMILY = re.compile(r"""["'](story\.phase|fact)\.["']\s*\+|f["'](story\.phase)\.\{""")


def _named(paths: tuple[Path, ...]) -> dict[str, str]:
    """The catalogue keys `paths` name, each with the file that names it."""
    used: dict[str, str] = {}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for key in NAMED.findall(text):
            used.setdefault(key, path.name)
        for key in ABOUT_A_PLAYER.findall(text):
            used.setdefault(key + ".you", path.name)
        for noun in [
            *COUNTED.findall(text),
            *COUNTED_BY_SCRIPT.findall(text),
            *COUNTED_BY_NARRATOR.findall(text),
        ]:
            used.setdefault(f"count.{noun}.one", path.name)
            used.setdefault(f"count.{noun}.other", path.name)
    return used


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_story_line_and_console_string_is_in_the_catalogue(lang: str) -> None:
    used = _named(STORY_SOURCES + CONSOLE_SOURCES + ORGANIZE_SOURCES)
    assert len([k for k in used if k.startswith("story.")]) > 60, "is the pattern still right?"
    assert len([k for k in used if k.startswith("console.")]) > 40, "is the pattern still right?"
    assert len([k for k in used if k.startswith("organize.")]) > 25, "the pattern, still right?"
    assert len([k for k in used if k.startswith("admin.")]) > 10, "the pattern, still right?"
    missing = {key: where for key, where in used.items() if key not in WORDS[lang]}
    assert missing == {}, f"missing in {lang}"
    for phase in ("hinrunde", "playoff", "rueckrunde"):  # told by family: story.phase.<phase>
        assert f"story.phase.{phase}" in WORDS[lang]
    for path in STORY_SOURCES:
        for found in FAMILY.findall(path.read_text(encoding="utf-8")):
            family = next(p for p in found if p)
            assert any(k.startswith(family + ".") for k in WORDS[lang]), family


def test_both_narrators_speak_from_the_same_keys() -> None:
    """story.js and cli/table_story.py are one narrator twice: the same keys, or one of
    them tells something the other does not (the browser test shows which)."""
    pages, terminal = (_named((path,)) for path in STORY_SOURCES)
    told = {k for k in pages if k.startswith(("story.", "count."))}
    assert told == {k for k in terminal if k.startswith(("story.", "count."))}
    assert all(k in for_scripts("de") for k in told), "the pages get every story key"


def test_no_sentence_is_left_in_the_narrator_or_the_console() -> None:
    """A string literal that reads as an English sentence (a capital, then three or more
    lowercase words) in the console's or the organizer's modules is a sentence written past
    the catalogue."""
    sentence = re.compile(r'(?<![\w.])f?"([A-Z][a-z]+(?: [a-z]+){2,}[^"]*)"')
    for path in (*CONSOLE_SOURCES[:2], ROOT / "cli" / "table_story.py", *ORGANIZE_SOURCES):
        code = re.sub(r'"""[\s\S]*?"""', "", path.read_text(encoding="utf-8"))  # docstrings
        code = "\n".join(line.split("  #")[0] for line in code.splitlines())  # comments
        assert sentence.findall(code) == [], path.name


def test_numbers_and_counts_follow_the_language() -> None:
    assert number("de", 1234567) == "1.234.567"
    assert number("en", 1234567) == "1,234,567"
    assert count("de", 1, "tables") == "1 Tisch"
    assert count("de", 2000, "tables") == "2.000 Tische"
    assert count("en", 1, "players") == "1 player"
    assert say("xx", "bracket.final") == "Final"  # an unknown language is English
