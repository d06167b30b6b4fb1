"""One progress bar per tournament round, redrawn in place on a terminal.

Rounds overlap (a table starts as soon as its feeders are done), so every round keeps
its own bar. Where the output is not a terminal, each bar is printed once, when its
round completes. The bars speak German or English (`organize.progress.*`).
"""

from __future__ import annotations

import time
from typing import TextIO

from core.bracket import BracketPlan
from core.words import DEFAULT, say

BAR_WIDTH = 32
REDRAW_SECONDS = 0.05


class RoundProgress:
    """Counts finished tables per round and draws a bar for each."""

    def __init__(self, plan: BracketPlan, out: TextIO, lang: str = DEFAULT) -> None:
        self._plan = plan
        self._out = out
        self._lang = lang
        self._live = out.isatty()
        self._done = [0] * plan.rounds
        self._drawn_lines = 0
        self._last_draw = 0.0

    def table_finished(self, round_number: int) -> None:
        """A table of `round_number` finished (byes count as finished tables); off a
        terminal, a round's bar is printed once, when its last table finishes."""
        self._done[round_number - 1] += 1
        if self._live:
            self._maybe_redraw()
        elif self._done[round_number - 1] == self._plan.tables_in(round_number):
            print(self._line(round_number), file=self._out, flush=True)

    def close(self) -> None:
        """Draw the final state of every bar."""
        if self._live:
            self._redraw()

    def _maybe_redraw(self) -> None:
        now = time.monotonic()
        if now - self._last_draw >= REDRAW_SECONDS:
            self._last_draw = now
            self._redraw()

    def _redraw(self) -> None:
        started = [r for r in range(1, self._plan.rounds + 1) if self._done[r - 1]]
        if self._drawn_lines:
            self._out.write(f"\x1b[{self._drawn_lines}F")
        for round_number in started:
            self._out.write(self._line(round_number) + "\x1b[K\n")
        self._drawn_lines = len(started)
        self._out.flush()

    def _line(self, round_number: int) -> str:
        total = self._plan.tables_in(round_number)
        done = self._done[round_number - 1]
        filled = BAR_WIDTH * done // total
        if round_number == self._plan.rounds:
            label = say(self._lang, "organize.progress.final")
        else:
            label = say(self._lang, "organize.progress.round", number=round_number)
        bar = "█" * filled + "·" * (BAR_WIDTH - filled)
        done_text = f"{done:>{len(str(total))}}"
        tables = say(self._lang, "organize.progress.tables", done=done_text, total=total)
        return f"  {label:<8} [{bar}] {tables}"
