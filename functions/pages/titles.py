"""The games' titles for the pages' scripts, written from the game modules (`Game.title`).

`assets/story.js` carries them as one generated line, since a script cannot ask the
registry; `python -m functions.pages.titles` writes that line again after a game is
added or renamed, and a test fails while the line and the game modules disagree.
"""

from __future__ import annotations

import json
from pathlib import Path

from core.registry import game_names, game_title

STORY_JS = Path(__file__).resolve().parent / "assets" / "story.js"
_DECLARATION = "  const TITLES = "


def titles_line() -> str:
    """The declaration of story.js's `TITLES`, every registered game by its title."""
    pairs = ", ".join(
        f"{name}: {json.dumps(game_title(name), ensure_ascii=False)}" for name in game_names()
    )
    return f"{_DECLARATION}{{ {pairs} }};"


def written(script: str) -> str:
    """`script` with its `TITLES` declaration written from the game modules."""
    lines = script.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(_DECLARATION))
    lines[at] = titles_line()
    return "\n".join(lines)


def main() -> None:
    """Write story.js's `TITLES` from the game modules."""
    STORY_JS.write_text(written(STORY_JS.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
