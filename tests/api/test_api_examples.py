"""Every JSON answer docs/api.md shows after a `curl` has the keys the server sends for
that route now: the examples' requests are played here (`docs/api_examples.py`), and
each example must show every key all of its route's answers have and none that no
answer has, two levels into the objects it nests (an example marked with `…` may leave
keys out). An example that lacks a field the server now sends (`start_progress`,
`dice`, ...), or shows one it no longer does, fails here."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from apiclient import Stack

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs"))
import api_examples  # docs/api_examples.py, which the examples come from

API_MD = Path(__file__).resolve().parents[2] / "docs" / "api.md"
# the shell variables docs/api.md sets, as OpenAPI path templates
VARIABLES = {
    "$B": "",
    "$A": "/tournaments/{tournament_id}/tables/{table}",
    "$T": "{tournament_id}",
}
_CURL = re.compile(r"curl\b[^\n]*?(?:-X (?P<method>[A-Z]+) )?(?P<url>\$[AB][^\s\"']*)")
_BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.S)


def _examples() -> list[tuple[int, str, str, dict[str, Any]]]:
    """(line, method, OpenAPI path, answer) for each JSON object right after a one-curl
    shell block."""
    text = API_MD.read_text(encoding="utf-8")
    found, shell = [], ""
    for block in _BLOCK.finditer(text):
        language, body = block.group(1), block.group(2)
        if language == "sh":
            shell = body
            continue
        curls = list(_CURL.finditer(shell)) if language == "json" else []
        shell = ""
        if len(curls) != 1 or not body.lstrip().startswith("{"):
            continue
        url = curls[0].group("url").split("?")[0]
        for variable, template in VARIABLES.items():
            url = url.replace(variable, template)
        url = re.sub(r"/t-[a-z0-9]+(?=/|$)", "/{tournament_id}", url)
        url = re.sub(r"/players/p-[a-z0-9]+", "/players/{player}", url)
        url = re.sub(r"/rounds/[0-9]+", "/rounds/{round_number}", url)
        line = text[: block.start()].count("\n") + 2
        try:
            answer = json.loads(_elided(body))
        except ValueError:  # several answers, one a line: not one route's
            continue
        found.append((line, (curls[0].group("method") or "GET").lower(), url, answer))
    return found


ELIDED = "…"  # an object shown in part: its other keys left out


def _elided(body: str) -> str:
    """An example with its elisions (`…`) as JSON: in an object, an `ELIDED` key marks it
    as shown in part; in a list, it is dropped."""
    out, stack, in_string = [], [], False
    for at, char in enumerate(body):
        if in_string:
            in_string = char != '"' or body[at - 1] == "\\"
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append(char)
        elif char in "}]":
            stack.pop()
        elif char == ELIDED:
            out.append('"…": true' if stack and stack[-1] == "{" else "")
            continue
        out.append(char)
    text = re.sub(r",(\s*,)+", ",", "".join(out))  # a list's dropped item between commas
    text = re.sub(r'("…": true)(\s*")', r"\1,\2", text)  # a line of its own: no comma
    text = re.sub(r"([\[{]\s*),", r"\1", text)
    return re.sub(r",(\s*[}\]])", r"\1", text)


def _mismatches(example: Any, answers: list[Any], where: str, depth: int) -> list[str]:
    """How `example` differs from what `answers` (the server's, at the same place) show."""
    if isinstance(example, list):
        items = [item for answer in answers if isinstance(answer, list) for item in answer]
        return _mismatches(example[0], items, f"{where}[0]", depth) if example and items else []
    objects = [answer for answer in answers if isinstance(answer, dict)]
    if not isinstance(example, dict) or not objects or depth > 2:
        return []
    always = set.intersection(*(set(answer) for answer in objects))
    ever = set.union(*(set(answer) for answer in objects))
    shown, partial = set(example) - {ELIDED}, ELIDED in example
    wrong = []
    missing = set() if partial else always - shown
    if missing or shown - ever:
        wrong.append(
            f"{where or 'answer'}: missing {sorted(missing)}, never sent {sorted(shown - ever)}"
        )
    for key in shown & ever:
        below = [answer[key] for answer in objects if key in answer]
        wrong += _mismatches(example[key], below, f"{where}.{key}", depth + 1)
    return wrong


def _route(document: dict[str, Any], path: str) -> str:
    """The OpenAPI path template `path` is an instance of."""
    for template in document["paths"]:
        if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", template), path):
            return str(template)
    return path


def test_every_json_example_has_the_keys_the_server_sends(stack: Stack) -> None:
    document = stack.api.call("GET", "/openapi.json").body
    answers: dict[tuple[str, str], list[Any]] = {}

    def call(method: str, path: str, body: object = None, token: str | None = None) -> Any:
        route, _, query = path.partition("?")
        answer = stack.api.call(method, route, body, token=token, query=query)
        assert 200 <= answer.status < 300, (method, path, answer.body)
        answers.setdefault((method.lower(), _route(document, route)), []).append(answer.body)
        return answer.body

    api_examples.play(call, lambda _tournament: None)  # the stack runs the start job
    examples = _examples()
    assert len(examples) >= 20  # the parser still finds them
    wrong = []
    for line, method, path, example in examples:
        assert path in document["paths"], f"docs/api.md:{line}: no route {method.upper()} {path}"
        if "code" in example and "message" in example:
            continue  # an error: the API's `ErrorBody`, whose optional fields come and go
        played = answers.get((method, path))
        assert played, f"docs/api.md:{line}: docs/api_examples.py plays no {method} {path}"
        wrong += [
            f"docs/api.md:{line} {method.upper()} {path}: {difference}"
            for difference in _mismatches(example, played, "", 0)
        ]
    assert not wrong, "\n".join(wrong)
