"""Bracket plans, built once per container: every service that moves a tournament on
needs the plan, and none should build it again for every request or event."""

from __future__ import annotations

from functools import lru_cache

from core.bracket import BracketPlan


@lru_cache(maxsize=64)
def bracket_plan(player_count: int, table_size: int, advance: int) -> BracketPlan:
    """Plans are immutable and a million-player one takes a noticeable share of a second
    to build: every read of a running tournament and every page of its rounds would
    otherwise rebuild it."""
    return BracketPlan.build(player_count, table_size, advance)
