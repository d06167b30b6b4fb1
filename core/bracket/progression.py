"""How players move through the bracket: pure functions of the plan and finished tables.

Rules: docs/rules.md §5. Whoever keeps the tournament's progress (the in-memory `Bracket`, or
a consumer storing items) calls these and only stores what they return:

1. `first_round` seats round 1 from the seeded order;
2. for each finished table: `check_outcome`, then `advancing` (who goes on) and `exits`
   (who leaves, with what they need for the standings);
3. the advancers go where `plan.routes(ref)` says: each route's players wait at its
   table in position `route.slot`; once every feeder has sent its players to a table,
   `seat_next` seats that table or gives a bye;
4. after the final, `standings` orders every exit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter
from typing import NamedTuple

from core.bracket.decisions import ByeGiven, SeatTable, Standing
from core.bracket.plan import BracketPlan, InvalidBracket, TableRef
from core.bracket.seeding import organizer_order
from core.events import PlayerId
from core.outcome import Outcome


class Exit(NamedTuple):
    """Where a player's tournament ended: every eliminated player and everyone in the final.

    `measure` is `Outcome.standing_measure` of their placement (lower is better);
    `forfeited`: they did not play that table to its end (docs/rules.md §5.9).
    """

    player: PlayerId
    round: int
    table_place: int
    measure: int
    forfeited: bool = False


def _seat_or_bye(
    plan: BracketPlan, ref: TableRef, players: tuple[PlayerId, ...]
) -> SeatTable | ByeGiven:
    if len(players) == 1:
        return ByeGiven(ref, players[0])
    return SeatTable(ref, players, plan.survivors(ref), plan.is_final(ref))


def first_round(
    plan: BracketPlan, seeded_players: Sequence[PlayerId]
) -> tuple[SeatTable | ByeGiven, ...]:
    """Round 1: the seeded order cut into chunks of the round-1 table sizes.

    A chunk of one player (only possible with `table_size` 2 and an odd count) is a bye;
    a single entrant gets no table at all: they are champion without playing.
    """
    players = organizer_order(seeded_players)
    if len(players) != plan.player_count:
        raise InvalidBracket(
            f"the bracket was planned for {plan.player_count} players, got {len(players)}",
            rule="rules §5.2 seeding",
        )
    if plan.player_count == 1:
        return ()
    return first_round_tables(plan, 0, plan.tables_in(1), players)


def first_round_tables(
    plan: BracketPlan, first: int, count: int, players: Sequence[PlayerId]
) -> tuple[SeatTable | ByeGiven, ...]:
    """Round 1's tables `first` to `first + count - 1`, for a start that seats a page at
    a time: `players` is the seeded order from table `first`'s first seat on (at least
    as many as those tables seat)."""
    sizes = plan.table_sizes(1)[first : first + count]
    if sum(sizes) > len(players):
        raise InvalidBracket(
            f"round 1's tables {first + 1} to {first + len(sizes)} seat {sum(sizes)} players, "
            f"got {len(players)}",
            rule="rules §5.2 seeding",
        )
    decisions: list[SeatTable | ByeGiven] = []
    start = 0
    for index, size in enumerate(sizes, start=first):
        seated = tuple(players[start : start + size])
        decisions.append(_seat_or_bye(plan, TableRef(1, index), seated))
        start += size
    return tuple(decisions)


def check_outcome(ref: TableRef, players: Sequence[PlayerId], outcome: Outcome) -> None:
    """Raise `InvalidBracket` unless `outcome` ranks exactly the players seated at `ref`."""
    ranked = outcome.ranking
    if (
        len(ranked) != len(players)
        or set(ranked) != set(players)
        or len(set(ranked)) != len(ranked)
    ):
        raise InvalidBracket(
            f"the outcome of {ref} ranks {', '.join(ranked)}, but {', '.join(players)} sat there",
            rule="rules §5.4 outcome",
        )


def _check_size(plan: BracketPlan, ref: TableRef, outcome: Outcome) -> None:
    seats = plan.seats_at(ref)
    if len(outcome.placements) != seats or seats < 2:
        raise InvalidBracket(
            f"{ref} seats {seats} player(s); an outcome of {len(outcome.placements)} "
            f"cannot be its result",
            rule="rules §5.4 outcome",
        )


def advancing(plan: BracketPlan, ref: TableRef, outcome: Outcome) -> tuple[PlayerId, ...]:
    """The players `ref` sends on: its top `plan.survivors(ref)`, best first."""
    _check_size(plan, ref, outcome)
    return outcome.top(plan.survivors(ref))


def exits(plan: BracketPlan, ref: TableRef, outcome: Outcome) -> tuple[Exit, ...]:
    """The players whose tournament ends at `ref`: those not advancing, or all in the final."""
    _check_size(plan, ref, outcome)
    leaving = (
        outcome.placements if plan.is_final(ref) else outcome.placements[plan.survivors(ref) :]
    )
    return tuple(
        Exit(p.player, ref.round, p.place, outcome.standing_measure(p), p.forfeited)
        for p in leaving
    )


def seat_next(
    plan: BracketPlan, ref: TableRef, arrivals: Sequence[tuple[PlayerId, ...]]
) -> SeatTable | ByeGiven:
    """Seat `ref` once all its feeders have finished; a lone player gets a bye.

    `arrivals` are the feeders' advancers sent to `ref` (`plan.routes`), in feeder
    order; the seat order is the feeders in order, each feeder's advancers in place order.
    """
    feeders = plan.feeders(ref)
    if not feeders:
        raise InvalidBracket(f"{ref} is in round 1: seat it with first_round", rule="tables")
    if len(arrivals) != len(feeders):
        raise InvalidBracket(
            f"{ref} is fed by {len(feeders)} tables, got arrivals from {len(arrivals)}",
            rule="rules §5.6 feeders",
        )
    players: list[PlayerId] = []
    for feeder, expected, arrived in zip(feeders, plan.arrivals(ref), arrivals, strict=True):
        if len(arrived) != expected:
            raise InvalidBracket(
                f"R{ref.round - 1}-{feeder + 1} sends {expected} player(s) to {ref}, "
                f"got {len(arrived)}",
                rule="rules §5.4 advance",
            )
        players.extend(arrived)
    if len(set(players)) != len(players):
        raise InvalidBracket(f"a player arrived twice at {ref}", rule="rules §5.6 feeders")
    return _seat_or_bye(plan, ref, tuple(players))


def standings(exits: Iterable[Exit], seed_position: Mapping[PlayerId, int]) -> tuple[Standing, ...]:
    """Every exit in tournament order, places from 1 (docs/rules.md §5.9 standings).

    Order: later round reached first, then place at the last table, then (decision of
    2026-12-02) those who played that table to its end before those who did not, then
    the game's measure (lower better), then (decision) the seeding position, earlier first.
    """
    try:
        ordered = sorted(exits, key=lambda e: seed_position[e.player])
    except KeyError as missing:
        raise InvalidBracket(
            f"player {missing} has no seeding position", rule="rules §5.9 standings"
        ) from None
    # Stable sorts, least significant key first: about 3x faster than one sort on tuple
    # keys for a million exits, most of which tie on round, place and measure.
    ordered.sort(key=attrgetter("measure"))
    ordered.sort(key=attrgetter("forfeited"))  # False (played to the end) first
    ordered.sort(key=attrgetter("table_place"))
    ordered.sort(key=attrgetter("round"), reverse=True)  # reverse=True keeps stability
    return tuple(
        Standing(place, e.player, e.round, e.table_place, e.measure, forfeited=e.forfeited)
        for place, e in enumerate(ordered, start=1)
    )
