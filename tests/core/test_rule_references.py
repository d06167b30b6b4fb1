"""Every rule the code names is a section of docs/rules.md.

Errors name their rule as `rules §N.M topic` (in `KnobelcupError.rule`, the API's `rule`
field and the message's brackets); code comments and docs write `docs/rules.md §N.M` or
link `rules.md#sN-M`. A reference to a section that does not exist, or a topic that is
not in its section's title, fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "docs" / "rules.md"
SOURCES = ("core", "infra", "functions", "cli", "local", "bench", "examples")
TEXTS = (*SOURCES, "tests", "docs")
TOP_FILES = ("README.md", "template.yaml", "Makefile", "pyproject.toml")
SUFFIXES = {".py", ".md", ".js", ".yaml", ".yml", ".html", ".css", ".txt", ".toml"}

_HEADING = re.compile(r"^#{2,3} §(\d+(?:\.\d+)?) (.+)$")
_ANCHOR = re.compile(r'^<a id="(s\d+(?:-\d+)?)"></a>$')
# What an error names: "rules §1.4 doubt" (the whole string).
_ERROR_RULE = re.compile(r"rules §(\d+\.\d+) (\S.*)")
# Any mention in code or docs: "rules §5", "docs/rules.md §5.2", JSON's "rules \u00a71.4".
_MENTION = re.compile(r"rules(?:\.md)? (?:§|\\u00a7)(\d+(?:\.\d+)?)")
_LINK = re.compile(r"rules\.md#(s\d+(?:-\d+)?)")
_OLD_DOCUMENT = "RULES" + ".md"  # the referee's file, which users of the repository lack


def sections() -> dict[str, str]:
    """Section number → title (lower case, no backticks), each checked for its anchor."""
    found: dict[str, str] = {}
    lines = RULES.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading is None:
            continue
        number, title = heading[1], heading[2]
        anchor = _ANCHOR.match(lines[index - 1]) if index else None
        assert anchor is not None and anchor[1] == "s" + number.replace(".", "-"), (
            f'docs/rules.md: "§{number} {title}" needs <a id="s{number.replace(".", "-")}"></a>'
            " on the line above it"
        )
        assert number not in found, f"docs/rules.md numbers §{number} twice"
        found[number] = title.replace("`", "").lower()
    return found


def _python_files() -> list[Path]:
    return sorted(
        path
        for top in SOURCES
        for path in (ROOT / top).rglob("*.py")
        if ".venv" not in path.parts and "knobelcup.egg-info" not in path.parts
    )


def _text_files() -> list[Path]:
    found = [ROOT / name for name in TOP_FILES if (ROOT / name).is_file()]
    for top in TEXTS:
        found.extend(
            path
            for path in (ROOT / top).rglob("*")
            if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts
        )
    this = Path(__file__).resolve()  # its examples of wrong references are on purpose
    return sorted(path for path in found if path.resolve() != this)


def error_rules() -> list[tuple[str, str]]:
    """(where, rule) for every string in the code that names a rule as errors do."""
    found: list[tuple[str, str]] = []
    for path in _python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.JoinedStr):
                parts = [v.value for v in node.values if isinstance(v, ast.Constant)]
                assert not any("rules §" in str(part) for part in parts), (
                    f"{where}: name the rule in a plain string, not an f-string, to be checked"
                )
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value.startswith("rules §")
            ):
                found.append((where, node.value))
    return found


def test_every_section_of_the_rules_has_its_anchor_and_a_unique_number() -> None:
    numbered = sections()
    chapters = [number for number in numbered if "." not in number]
    assert chapters == [str(n) for n in range(1, len(chapters) + 1)]
    for number in numbered:
        chapter = number.split(".")[0]
        assert chapter in numbered, f"§{number} has no chapter §{chapter}"


def test_every_rule_an_error_names_is_a_section_of_the_rules() -> None:
    numbered = sections()
    named = error_rules()
    assert len(named) > 30, "the scan found too few rule names: is it still looking?"
    for where, rule in named:
        match = _ERROR_RULE.fullmatch(rule)
        assert match is not None, f"{where}: {rule!r} is not 'rules §N.M topic'"
        number, topic = match[1], match[2]
        assert number in numbered, f"{where}: {rule!r}: docs/rules.md has no §{number}"
        assert topic.lower() in numbered[number], (
            f"{where}: {rule!r}: '{topic}' is not in the title of §{number}, '{numbered[number]}'"
        )


def test_every_rule_reference_in_code_and_docs_names_a_section() -> None:
    numbered = sections()
    anchors = {"s" + number.replace(".", "-") for number in numbered}
    checked = 0
    for path in _text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        where = path.relative_to(ROOT)
        assert _OLD_DOCUMENT not in text, (
            f"{where} points to {_OLD_DOCUMENT}, which users do not have: point to a "
            "section of docs/rules.md"
        )
        for mention in _MENTION.finditer(text):
            checked += 1
            assert mention[1] in numbered, (
                f"{where}: '{mention[0]}' names a section docs/rules.md does not have"
            )
        for link in _LINK.finditer(text):
            checked += 1
            assert link[1] in anchors, f"{where}: '{link[0]}' links to no section of the rules"
    assert checked > 50, "the scan found too few references: is it still looking?"


def test_a_reference_to_a_missing_section_is_caught() -> None:
    """The checks above would notice a typo in a section number or topic."""
    numbered = sections()
    assert "1.4" in numbered and "9.9" not in numbered
    good = _ERROR_RULE.fullmatch("rules §1.4 doubt")
    assert good is not None and good[2] in numbered[good[1]]
    wrong_topic = _ERROR_RULE.fullmatch("rules §1.4 einstellen")
    assert wrong_topic is not None and wrong_topic[2] not in numbered[wrong_topic[1]]
    assert _ERROR_RULE.fullmatch("rules §1 doubt") is None  # a chapter is not precise enough
    missing = _MENTION.search("see docs/rules.md §9.9")
    assert missing is not None and missing[1] not in numbered
