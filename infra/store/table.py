"""The plumbing every store shares: one DynamoDB table and the calls to it, with
capacity refusals turned into `Throttled` (HTTP 429), unprocessed batch items sent again
after a back-off, conditional writes and transactions answered as True/False or their
cancellation reasons. Each store of `infra.store` is one of these over the same table,
holding only the reads and writes of its own items."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import count
from typing import Any, TypeVar

from botocore.exceptions import ClientError

from infra.errors import Throttled
from infra.store.table_item import table_key

_THROTTLING = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
}
_BATCH_WRITE_LIMIT = 25
_BATCH_GET_LIMIT = 100
_BATCH_ATTEMPTS = 8
T = TypeVar("T")


class TableStore:
    """The single table `table_name` over the DynamoDB `client`."""

    def __init__(self, client: Any, table_name: str) -> None:
        self._client = client
        self._table = table_name

    def _get(self, key: dict[str, Any]) -> dict[str, Any] | None:
        response = self._call(
            self._client.get_item, TableName=self._table, Key=key, ConsistentRead=True
        )
        item: dict[str, Any] | None = response.get("Item")
        return item

    def _batch_get(
        self, tournament: str, refs: Sequence[str], extra: dict[str, Any] | None = None
    ) -> Iterator[dict[str, Any]]:
        return self._batch_get_keys([table_key(tournament, ref) for ref in refs], extra)

    def _batch_get_keys(
        self, keys: Sequence[dict[str, Any]], extra: dict[str, Any] | None = None
    ) -> Iterator[dict[str, Any]]:
        for chunk in _chunks(keys, _BATCH_GET_LIMIT):
            request = {"Keys": list(chunk), "ConsistentRead": True, **(extra or {})}
            pending: dict[str, Any] = {self._table: request}
            for attempt in count():
                page = self._call(self._client.batch_get_item, RequestItems=pending)
                yield from page["Responses"].get(self._table, [])
                pending = page.get("UnprocessedKeys") or {}
                if not pending:
                    break
                _back_off(attempt)

    def _batch_write(self, items: Iterable[dict[str, Any]]) -> None:
        for chunk in _chunks(list(items), _BATCH_WRITE_LIMIT):
            pending: dict[str, Any] = {self._table: [{"PutRequest": {"Item": i}} for i in chunk]}
            for attempt in count():
                response = self._call(self._client.batch_write_item, RequestItems=pending)
                pending = response.get("UnprocessedItems") or {}
                if not pending:
                    break
                _back_off(attempt)

    def _transact_if(self, items: list[dict[str, Any]]) -> list[str] | None:
        """A transaction; None if it was written, else every action's cancellation reason
        code ("None" for an action that was not the cause). A conflict with another
        transaction on the same items is retried after a short wait."""
        for attempt in count():
            try:
                self._call(self._client.transact_write_items, TransactItems=items)
            except ClientError as error:
                if code_of(error) != "TransactionCanceledException":
                    raise
                reasons = [
                    str(reason.get("Code", "None"))
                    for reason in error.response.get("CancellationReasons", [])
                ]
                if "TransactionConflict" in reasons:
                    _back_off(attempt)
                    continue
                return reasons or ["Unknown"]
            return None
        raise AssertionError("unreachable")  # count() never ends

    def _write_if(self, operation: Callable[..., Any], **kwargs: Any) -> bool:
        """A conditional write; False, with nothing written, if its condition failed."""
        try:
            self._call(operation, **kwargs)
        except ClientError as error:
            if code_of(error) == "ConditionalCheckFailedException":
                return False
            raise
        return True

    @staticmethod
    def _call(operation: Callable[..., Any], **kwargs: Any) -> Any:
        try:
            return operation(**kwargs)
        except ClientError as error:
            if code_of(error) in _THROTTLING:
                raise Throttled(
                    "the table is busy; retry after a short wait", rule="DynamoDB capacity"
                ) from error
            raise


def _back_off(attempt: int) -> None:
    """Wait before resending what a batch left unprocessed, as AWS advises: the partition
    was busy, and asking again at once would only be refused again."""
    if attempt >= _BATCH_ATTEMPTS:
        raise Throttled("the table stayed too busy for a batch", rule="DynamoDB capacity")
    time.sleep(min(0.05 * 2**attempt, 2.0))


def code_of(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def _chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
