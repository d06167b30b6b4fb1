"""Bracket plans, built once per container: every service that moves a tournament on
needs the plan, and none should build it again for every request or event."""

from __future__ import annotations

from functools import lru_cache

from core.bracket import BracketPlan
from infra.store.tournament_items import TournamentRecord


@lru_cache(maxsize=64)
def bracket_plan(player_count: int, table_size: int, advance: int, rule: int) -> BracketPlan:
    """Plans are immutable and a million-player one takes a noticeable share of a second
    to build: every read of a running tournament and every page of its rounds would
    otherwise rebuild it. `rule` is the tournament's own (`TournamentRecord.bracket_rule`):
    a running tournament keeps the plan it started with."""
    return BracketPlan.build(player_count, table_size, advance, rule)


def plan_of(tournament: TournamentRecord) -> BracketPlan:
    """The tournament's plan, under the bracket rule it was created with (docs/rules.md
    §5.11): a stored tournament is never re-planned under a newer rule."""
    return bracket_plan(
        tournament.player_count, tournament.table_size, tournament.advance, tournament.bracket_rule
    )
