"""A whole tournament played in this process: bracket engine, game engine, bots, dice.

The demo and the benchmark use it; the serverless stack runs the same core functions
with state in DynamoDB instead of memory. Tables are played in the order the bracket
seats them, so a next-round table starts as soon as its feeders are done.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.actions import Action
from core.audit import LogEntry
from core.bracket import (
    Bracket,
    BracketPlan,
    Decision,
    SeatTable,
    organizer_order,
    seeded_order,
)
from core.events import PlayerId
from core.outcome import Outcome
from core.protocol import Game
from core.registry import get_game
from infra.dice import DiceSource


class Bot(Protocol):
    """Chooses the next action of the player to act at an in-process table."""

    def choose(self, game: Game[Any], state: Any) -> Action: ...


class RandomBot:
    """Picks uniformly among the legal actions; seeded, so runs can be repeated."""

    def __init__(self, seed: int | str) -> None:
        self._random = random.Random(seed).random

    def choose(self, game: Game[Any], state: Any) -> Action:
        """Any legal action of the player to act, each equally likely."""
        legal = game.legal_actions(state)
        return legal[int(self._random() * len(legal))]


@dataclass(slots=True)
class TablePlayed:
    """A finished table: who sat there, the result, and how much play it took."""

    seating: SeatTable
    outcome: Outcome
    actions: int
    turns: int
    log: list[LogEntry] = field(default_factory=list)


@dataclass(slots=True)
class TournamentRun:
    """What a tournament run produced, for printing and measuring."""

    bracket: Bracket
    final: TablePlayed | None = None
    tables: int = 0
    actions: int = 0
    turns: int = 0


def play_table(
    game: Game[Any],
    seating: SeatTable,
    options: Mapping[str, object] | None,
    dice: DiceSource,
    bot: Bot,
    *,
    keep_log: bool = False,
) -> TablePlayed:
    """Play one table to its end; a turn is a run of actions by the same player."""
    state, events = game.seat(seating.players, options, seating.survivors)
    log = [LogEntry(0, None, None, (), events)] if keep_log else []
    actions = turns = 0
    previous: PlayerId | None = None
    while (player := game.to_act(state)) is not None:
        action = bot.choose(game, state)
        needed = game.dice_needed(state, action)
        rolled = dice.roll(needed) if needed else ()
        state, events = game.apply(state, player, action, rolled)
        actions += 1
        if player != previous:
            turns += 1
            previous = player
        if keep_log:
            log.append(LogEntry(state.version, player, action, rolled, events))
    return TablePlayed(seating, game.outcome(state), actions, turns, log)


def run_tournament(
    game_name: str,
    players: Sequence[PlayerId],
    *,
    table_size: int,
    advance: int,
    seed: str | None,
    options: Mapping[str, object] | None,
    dice: DiceSource,
    bot: Bot,
    on_decision: Callable[[Decision], None] | None = None,
    on_table: Callable[[TablePlayed], None] | None = None,
) -> TournamentRun:
    """Seed (by `seed`, or in the given order when None), then play every table."""
    game = get_game(game_name)
    game.parse_options(options)  # reject bad options before anyone sits down
    order = seeded_order(players, seed) if seed is not None else organizer_order(players)
    bracket = Bracket(BracketPlan.build(len(order), table_size, advance), order)
    run = TournamentRun(bracket)
    waiting: deque[SeatTable] = deque()

    def take(decisions: list[Decision]) -> None:
        for decision in decisions:
            if isinstance(decision, SeatTable):
                waiting.append(decision)
            if on_decision is not None:
                on_decision(decision)

    take(bracket.start())
    while waiting:
        seating = waiting.popleft()
        played = play_table(game, seating, options, dice, bot, keep_log=seating.final)
        run.tables += 1
        run.actions += played.actions
        run.turns += played.turns
        if seating.final:
            run.final = played
        if on_table is not None:
            on_table(played)
        take(bracket.record(seating.table, played.outcome))
    return run
