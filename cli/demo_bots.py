"""The demo's bots: many players, each with its own token, acting over HTTP only.

Every table in play moves at once, as it would with real players: worker threads take
turns at tables in rotation (one turn, then the next table), so no table waits long
enough for its turn deadline. The coordinator finds newly seated tables by listing the
rounds, counts finished tables for the progress bars, and knows the tournament is
over when the service says so.
"""

from __future__ import annotations

import queue
import random
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from cli.api_client import ApiClient, ApiError
from core.bracket import BracketPlan

Decide = Callable[[dict[str, Any]], dict[str, Any]]
DISCOVERY_SECONDS = 0.25
FINISH_WAIT_SECONDS = 120.0


def bot_names(count: int) -> list[str]:
    """bot0001, bot0002, …: as wide as the largest number."""
    width = len(str(count))
    return [f"bot{number:0{width}d}" for number in range(1, count + 1)]


def random_legal_action(view: dict[str, Any]) -> dict[str, Any]:
    """Any legal action, each equally likely."""
    action: dict[str, Any] = random.choice(view["legal_actions"])
    return action


@dataclass
class Seat:
    """A registered bot."""

    name: str
    player_id: str
    token: str
    decide: Decide


@dataclass
class _Turn:
    """A table to take a turn at; `to_act` when known from the last answer."""

    table: str
    to_act: str | None = None


@dataclass
class DemoBots:
    """The bots of one tournament on the service at `url`."""

    url: str
    tournament: str
    game: str
    workers: int = 4
    deciders: Sequence[Decide] = (random_legal_action,)  # handed out to the bots in turn
    seats: dict[str, Seat] = field(default_factory=dict)
    pace: float = 0.0  # seconds each bot waits before each action
    actions: int = 0
    _local: threading.local = field(default_factory=threading.local)
    _count_lock: threading.Lock = field(default_factory=threading.Lock)

    def name_of(self, player_id: str) -> str:
        """A bot's name (its id if it is not one of ours)."""
        seat = self.seats.get(player_id)
        return seat.name if seat else player_id

    def register(self, names: Sequence[str]) -> None:
        """Register every name, over HTTP, from the worker threads."""
        path = f"/tournaments/{self.tournament}/players"

        def register(numbered: tuple[int, str]) -> Seat:
            number, name = numbered
            answer = self._api().ok("POST", path, {"name": name})
            decide = self.deciders[number % len(self.deciders)]
            return Seat(name, answer["player_id"], answer["player_token"], decide)

        with ThreadPoolExecutor(self.workers) as pool:
            for seat in pool.map(register, enumerate(names)):
                self.seats[seat.player_id] = seat

    def play(self, plan: BracketPlan, table_finished: Callable[[int], None]) -> dict[str, Any]:
        """Play every table to the end; the finished tournament as the service reads it.
        `table_finished(round)` is called once per finished table (byes included)."""
        work: queue.Queue[_Turn | None] = queue.Queue()
        done: queue.Queue[tuple[_Turn, bool] | BaseException] = queue.Queue()
        threads = [
            threading.Thread(target=self._worker, args=(work, done), daemon=True)
            for _ in range(self.workers)
        ]
        for thread in threads:
            thread.start()
        seen: dict[str, int] = {}  # table → round
        finished = [0] * (plan.rounds + 1)
        in_play = 0
        next_look = 0.0
        try:
            while finished[plan.rounds] < plan.tables_in(plan.rounds):
                if time.monotonic() >= next_look:
                    for ref, round_number, over in self._new_tables(plan, seen, finished):
                        seen[ref] = round_number
                        if over:  # a bye
                            finished[round_number] += 1
                            table_finished(round_number)
                        else:
                            in_play += 1
                            work.put(_Turn(ref))
                    next_look = time.monotonic() + DISCOVERY_SECONDS
                try:
                    result = done.get(timeout=DISCOVERY_SECONDS)
                except queue.Empty:
                    continue
                if isinstance(result, BaseException):
                    raise result
                turn, over = result
                if over:
                    in_play -= 1
                    finished[seen[turn.table]] += 1
                    table_finished(seen[turn.table])
                else:
                    work.put(turn)  # back of the line: every table moves in turn
        finally:
            for _ in threads:
                work.put(None)
        return self._finished_tournament()

    # --- helpers ---------------------------------------------------------------------

    def _api(self) -> ApiClient:
        """This thread's client (one keep-alive connection per thread)."""
        client: ApiClient | None = getattr(self._local, "client", None)
        if client is None:
            client = self._local.client = ApiClient(self.url)
        return client

    def _new_tables(
        self, plan: BracketPlan, seen: dict[str, int], finished: list[int]
    ) -> list[tuple[str, int, bool]]:
        """Tables seated since the last look: (table, round, over). A round is listed
        only once its previous round has finished tables, until all of it is seen."""
        found: list[tuple[str, int, bool]] = []
        counted = [0] * (plan.rounds + 1)
        for round_number in seen.values():
            counted[round_number] += 1
        for round_number in range(1, plan.rounds + 1):
            if counted[round_number] == plan.tables_in(round_number):
                continue
            if round_number > 1 and not finished[round_number - 1]:
                break
            offset: int | None = 0
            while offset is not None:
                page = self._api().ok(
                    "GET",
                    f"/tournaments/{self.tournament}/rounds/{round_number}",
                    query={"offset": offset},
                )
                for table in page["tables"]:
                    if table["table"] not in seen:
                        found.append((table["table"], round_number, table["over"]))
                offset = page["next_offset"]
        return found

    def _worker(
        self, work: queue.Queue[_Turn | None], done: queue.Queue[tuple[_Turn, bool] | BaseException]
    ) -> None:
        while (turn := work.get()) is not None:
            try:
                done.put((turn, self._take_turn(turn)))
            except BaseException as error:  # the coordinator reports it
                done.put(error)
                return

    def _take_turn(self, turn: _Turn) -> bool:
        """The player to act at `turn.table` acts until someone else is to act; whether
        the table is over."""
        api = self._api()
        path = f"/tournaments/{self.tournament}/tables/{turn.table}"
        if turn.to_act is None:
            seen = api.ok("GET", path)
            if seen["over"]:
                return True
            turn.to_act = seen["view"]["to_act"]
        seat = self.seats[str(turn.to_act)]
        view = api.ok("GET", path + "/me", token=seat.token)["view"]
        while True:
            action = seat.decide(view)
            if self.pace > 0:
                time.sleep(self.pace)
            try:
                acted = api.ok(
                    "POST",
                    path + "/actions",
                    {"version": view["version"], "action": action},
                    token=seat.token,
                    headers={"Idempotency-Key": str(uuid.uuid4())},
                )
            except ApiError as error:
                if error.status != 409:  # a deadline moved the table on: look again
                    raise
                turn.to_act = None
                return False
            with self._count_lock:
                self.actions += 1
            if acted["over"]:
                return True
            view = acted["view"]
            if view["to_act"] != seat.player_id:
                turn.to_act = view["to_act"]
                return False

    def _finished_tournament(self) -> dict[str, Any]:
        """The tournament once the service has written its standings."""
        deadline = time.monotonic() + FINISH_WAIT_SECONDS
        while True:
            read: dict[str, Any] = self._api().ok("GET", f"/tournaments/{self.tournament}")
            if read["status"] == "finished":
                return read
            if time.monotonic() > deadline:
                raise TimeoutError(f"the final is over but the tournament is {read['status']}")
            time.sleep(0.1)
