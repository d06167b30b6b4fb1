"""Batches resend what DynamoDB leaves unprocessed, with a pause, and give up with 429."""

from __future__ import annotations

from typing import Any

import pytest

import infra.store.table
from infra.errors import Throttled
from infra.store.players import PlayerStore
from infra.store.tournament_items import PlayerRecord


class BusyTable:
    """Answers batch writes like a busy DynamoDB: leaves items unprocessed `busy` times."""

    def __init__(self, busy: int) -> None:
        self.busy = busy
        self.written: list[dict[str, Any]] = []

    def batch_write_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:  # noqa: N803
        if self.busy:
            self.busy -= 1
            return {"UnprocessedItems": RequestItems}
        self.written += [r["PutRequest"]["Item"] for r in RequestItems["t"]]
        return {"UnprocessedItems": {}}


def players(count: int) -> list[PlayerRecord]:
    return [PlayerRecord("t-x", f"p-{n}", f"p{n}", "h", 0, 0) for n in range(count)]


@pytest.fixture
def pauses(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr(infra.store.table.time, "sleep", slept.append)
    return slept


def test_unprocessed_items_are_resent_after_growing_pauses(pauses: list[float]) -> None:
    table = BusyTable(busy=3)
    PlayerStore(table, "t").put_players(players(30))
    assert len(table.written) == 30
    assert pauses == [0.05, 0.1, 0.2]


def test_a_table_that_stays_busy_ends_in_throttled(pauses: list[float]) -> None:
    with pytest.raises(Throttled):
        PlayerStore(BusyTable(busy=100), "t").put_players(players(1))
    assert len(pauses) == 8
