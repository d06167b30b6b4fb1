"""docs/events.md is the subscribers' contract: it must show every event's schema exactly.

The schema blocks are `json.dumps(Model.model_json_schema(), indent=2, sort_keys=True)`;
changing a model in infra/outbox/events.py without pasting its new schema into the doc fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from infra.outbox.events import EVENT_TYPES, SOURCE, DomainEvent, TableFinished

DOC = Path(__file__).resolve().parents[2] / "docs" / "events.md"
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_FENCE = re.compile(r"^```(\w*)\s*$")
_NAMES = {model.__name__: model for model in EVENT_TYPES}


def _json_blocks(text: str) -> list[tuple[str, Any]]:
    """Every ```json block as (the nearest heading above it, its parsed content)."""
    blocks: list[tuple[str, Any]] = []
    heading, fence, body = "", None, []
    for number, line in enumerate(text.splitlines(), start=1):
        opening = _FENCE.match(line)
        if fence is None:
            if opening is not None:
                fence, body = (opening[1], number), []
                continue
            found = _HEADING.match(line)
            if found is not None:
                heading = found[2].strip("`")
        elif line.strip() == "```":
            language, start = fence
            fence = None
            if language == "json":
                try:
                    blocks.append((heading, json.loads("\n".join(body))))
                except json.JSONDecodeError as error:
                    pytest.fail(f"docs/events.md line {start}: the json block is no JSON: {error}")
        else:
            body.append(line)
    assert fence is None, "docs/events.md ends inside a fenced block"
    return blocks


def _headings(text: str) -> list[str]:
    """Every heading's text, outside fenced blocks, without backticks."""
    found, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.match(line)
        if heading is not None:
            found.append(heading[2].strip("`"))
    return found


def _is_schema(block: Any) -> bool:
    return isinstance(block, dict) and "properties" in block and "title" in block


def _is_event(block: Any) -> bool:
    """An EventBridge event (an event pattern lists its detail-types instead)."""
    return isinstance(block, dict) and isinstance(block.get("detail-type"), str)


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def blocks(doc: str) -> list[tuple[str, Any]]:
    return _json_blocks(doc)


@pytest.mark.parametrize("model", EVENT_TYPES, ids=lambda model: model.__name__)
def test_every_event_has_a_heading_and_its_exact_schema(
    model: type[DomainEvent], doc: str, blocks: list[tuple[str, Any]]
) -> None:
    name = model.__name__
    assert name in _headings(doc), f"docs/events.md has no heading naming {name}"
    schemas = [block for _, block in blocks if _is_schema(block) and block["title"] == name]
    assert len(schemas) == 1, f"docs/events.md should show {name}'s schema once"
    expected = json.dumps(model.model_json_schema(), indent=2, sort_keys=True)
    assert schemas[0] == model.model_json_schema(), (
        f"{name}'s schema in docs/events.md is out of date; paste this:\n{expected}"
    )


def test_each_schema_sits_under_the_heading_of_its_event(blocks: list[tuple[str, Any]]) -> None:
    for heading, block in blocks:
        if _is_schema(block):
            assert heading == block["title"], (
                f"the schema of {block['title']} is under the heading {heading!r}"
            )


def test_no_json_block_names_an_event_that_does_not_exist(
    blocks: list[tuple[str, Any]],
) -> None:
    for heading, block in blocks:
        if heading in _NAMES:
            assert _is_schema(block), f"the json block under {heading} is not its schema"
        if _is_schema(block):
            assert block["title"] in _NAMES, f"docs/events.md shows a schema of {block['title']}"
        if isinstance(block, dict) and "detail-type" in block:
            named = block["detail-type"]
            for detail_type in named if isinstance(named, list) else [named]:
                assert detail_type in _NAMES, f"docs/events.md names a {detail_type} event"
        if isinstance(block, dict) and "source" in block:
            source = block["source"]
            assert (source if isinstance(source, list) else [source]) == [SOURCE]


def test_the_example_event_is_a_valid_table_finished(blocks: list[tuple[str, Any]]) -> None:
    examples = [block for _, block in blocks if _is_event(block)]
    assert examples, "docs/events.md has no example EventBridge event"
    for example in examples:
        assert example["source"] == SOURCE
        model = _NAMES[example["detail-type"]]
        detail = model.model_validate(example["detail"])
        assert detail.detail_type == example["detail-type"]
    finished = [e for e in examples if e["detail-type"] == TableFinished.__name__]
    assert finished, "docs/events.md has no example TableFinished event"
    event = TableFinished.model_validate(finished[0]["detail"])
    assert event.event_id == f"TableFinished:{event.tournament}:{event.table}"
    assert [p.place for p in event.placements] == list(range(1, len(event.players) + 1))
    assert sorted(p.player for p in event.placements) == sorted(event.players)
