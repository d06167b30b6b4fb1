"""The finish as a job (`infra.jobs.runner`): the standings a bounded step at a time, at any size.

After the final the progression begins this job instead of sorting every player in one
invocation; the tournament stays `running` until the job completes. The standings order
is (round reached, descending; table place; measure; seeding position), and players who
tie on the first three form a *group* (`core.bracket.paged_standings`):
1. `count`: `COUNT_PAGES` query pages of the players' exits a step, counting the players
   of each group; the counts travel in the cursor, `[round, table place, measure, n]` in
   standings order (rounds × places × the measures that occur: a few hundred groups,
   some 16 bytes each on the tournament item);
2. `place`: `PLACE_PAGE` players a step in seeding order, read from the start job's
   chunks of the order (`T#<t>#ORDER`) and their exits by BatchGetItem: each player's
   place is their group's first place plus the players of their group seen before
   them, carried in the cursor (`seen`, aligned with `counts`). The step writes the
   places by seeding position (for `GET /me`) and one standings segment per group it
   met (for `/standings`), with the players' names from the same read;
then the completion marks the tournament `finished` with its champion and top places, in
the one conditional write that removes the job. A step run again after a crash rewrites
the same items, computed from the same cursor.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from core.bracket import InvalidBracket
from core.bracket.paged_standings import (
    STANDINGS_RULE,
    Group,
    count_groups,
    group_starts,
    in_standings_order,
    place_page,
)
from infra.jobs.runner import NextStep
from infra.jobs.start import ORDER
from infra.store.job_store import ORDER_CHUNK, JobStore
from infra.store.players import PlayerStore
from infra.store.progress_store import SEGMENT_ROWS, ProgressStore
from infra.store.tournament_items import JobState, Status, TournamentRecord

COUNT_PAGE = 5_000  # players a query page asks for; a step reads `COUNT_PAGES` of them
COUNT_PAGES = 4
PLACE_PAGE = 20_000  # players a `place` step places: two chunks of the order
TOP_STANDINGS = 10


def begin() -> JobState:
    """The finish job's first state."""
    return JobState("finish", 0, "count", "", 0)


class FinishJob:
    """Writes the standings and finishes the tournament (see the module's docstring)."""

    name = "finish"

    def __init__(
        self,
        *,
        players: PlayerStore,
        progress: ProgressStore,
        jobs: JobStore,
        count_page: int = COUNT_PAGE,
        count_pages: int = COUNT_PAGES,
        place_page: int = PLACE_PAGE,
        segment_rows: int = SEGMENT_ROWS,
    ) -> None:
        self._players = players
        self._progress = progress
        self._jobs = jobs
        self._count_page = count_page
        self._count_pages = count_pages
        self._place_page = place_page
        self._segment_rows = segment_rows

    def step(self, tournament: TournamentRecord, state: JobState) -> NextStep | None:
        if state.phase == "count":
            return self._count(tournament, state)
        return self._place(tournament, state)

    def complete(self, tournament: TournamentRecord, state: JobState) -> bool:
        top = self._progress.standings_page(tournament.id, 0, TOP_STANDINGS)
        if not top:
            raise InvalidBracket("no standings were written", rule=STANDINGS_RULE)
        return self._jobs.end_job(
            tournament.id,
            state,
            Status.FINISHED,
            {
                "champion": {"S": top[0].player},
                "top_standings": {
                    "S": json.dumps([row._asdict() for row in top], separators=(",", ":"))
                },
            },
        )

    # --- phases ----------------------------------------------------------------------

    def _count(self, tournament: TournamentRecord, state: JobState) -> NextStep:
        cursor = json.loads(state.cursor) if state.cursor else {}
        after: dict[str, Any] | None = cursor.get("after")
        counts = _counts_from(cursor.get("counts", []))
        for _ in range(self._count_pages):
            page, after = self._players.exits_page(tournament.id, after, self._count_page)
            missing = [player for player, exit in page if exit is None]
            if missing:  # cannot happen: every table reports before its successor seats
                raise InvalidBracket(
                    f"{len(missing)} players have no exit yet, such as {missing[0]}",
                    rule=STANDINGS_RULE,
                )
            counts = count_groups((exit for _, exit in page if exit is not None), counts)
            if after is None:
                break
        counted = sum(counts.values())
        if after is not None:
            following = {"after": after, "counts": _counts_to(counts)}
            return NextStep(JobState("finish", state.step + 1, "count", json.dumps(following)))
        if counted != tournament.player_count:
            raise InvalidBracket(
                f"{tournament.player_count} players started, {counted} exits found",
                rule=STANDINGS_RULE,
            )
        placing = {"counts": _counts_to(counts), "seen": [0] * len(counts), "next": 0}
        return NextStep(JobState("finish", state.step + 1, "place", json.dumps(placing)))

    def _place(self, tournament: TournamentRecord, state: JobState) -> NextStep | None:
        cursor = json.loads(state.cursor)
        counts = _counts_from(cursor["counts"])
        groups = in_standings_order(counts)  # the order of `counts` and `seen` in the cursor
        seen = Counter(dict(zip(groups, cursor["seen"], strict=True)))
        first: int = cursor["next"]
        end = min(first + self._place_page, tournament.player_count)
        if first >= end:
            if seen != counts:
                raise InvalidBracket(
                    "the players placed differ from the players counted", rule=STANDINGS_RULE
                )
            return None
        chunks = range(first // ORDER_CHUNK, (end - 1) // ORDER_CHUNK + 1)
        order = self._jobs.id_chunks(tournament.id, ORDER, chunks)
        skip = first - chunks[0] * ORDER_CHUNK
        players = order[skip : skip + end - first]
        found = self._players.exits_of(tournament.id, players)
        for position, player in enumerate(players, start=first):
            if player not in found or found[player][0] != position:
                raise InvalidBracket(
                    f"player {player} at seeding position {position} has no exit there",
                    rule=STANDINGS_RULE,
                )
        places, segments, seen_after = place_page(
            [found[player][1] for player in players],
            group_starts(counts),
            seen,
            self._segment_rows,
        )
        names = {player: found[player][2] for player in players}
        self._progress.put_standings(
            tournament.id, segments, first, places, tournament.expires_at, names=names
        )
        running = [seen_after.get(group, 0) for group in groups]
        following = {"counts": cursor["counts"], "seen": running, "next": end}
        return NextStep(JobState("finish", state.step + 1, "place", json.dumps(following), end))


def _counts_to(counts: Counter[Group]) -> list[list[int]]:
    """Counts per group as the cursor keeps them: `[round, table place, measure,
    forfeited (0 or 1), n]`."""
    return [
        [g.round, g.table_place, g.measure, int(g.forfeited), counts[g]]
        for g in in_standings_order(counts)
    ]


def _counts_from(rows: list[list[int]]) -> Counter[Group]:
    """The inverse of `_counts_to`; a cursor written before forfeits counted has rows
    `[round, table place, measure, n]`."""
    return Counter(
        {Group(row[0], row[1], row[2], len(row) == 5 and bool(row[3])): row[-1] for row in rows}
    )
