"""One-use tickets for the WebSocket's `$connect`, so that no token is put in its URL.

A browser cannot set headers on a WebSocket handshake, and whatever it puts in the URL
lands in access logs (API Gateway's, a proxy's, the local front's). So the play page
asks for a ticket over HTTP, with its token in the `Authorization` header, and connects
with the ticket instead; a ticket opens one connection, within `TICKET_SECONDS`.

Item (docs/data-model.md, "socket ticket"): `TICKET#<SHA-256 of the ticket>` / `TICKET`,
holding the tournament and the player it speaks for, and `expires_at` (the TTL, so
DynamoDB deletes the tickets never used). Only the hash is stored: a read of the table
gives nobody a ticket. A ticket is taken by one conditional `DeleteItem` (the item must
exist and not have expired, since TTL deletes late) that returns the deleted item: of
two connects with one ticket, exactly one gets it.

Why not a signed (HMAC), expiring ticket: it needs no write, but anyone who reads it in
a log may connect with it as often as they like until it expires; one-use needs state.
Costs: issuing is one `PutItem` (~150 B, 1 WCU); taking it one `DeleteItem` (1 WCU),
which replaces the `GetItem` of the player item that a connect with a token makes.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from botocore.exceptions import ClientError

from infra.store.table import TableStore, code_of

TICKET_SECONDS = 60  # a page connects right after asking; a reconnect asks again
_SK = "TICKET"


@dataclass(frozen=True, slots=True)
class SocketTicket:
    """What a ticket lets its holder listen to: a player's own tables."""

    tournament: str
    player: str
    expires_at: int


def new_ticket() -> str:
    """A fresh ticket: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def _key(ticket: str) -> dict[str, dict[str, str]]:
    digest = hashlib.sha256(ticket.encode()).hexdigest()
    return {"pk": {"S": f"TICKET#{digest}"}, "sk": {"S": _SK}}


class SocketTicketStore(TableStore):
    """The tickets, on the service's one table."""

    def put(self, ticket: str, granted: SocketTicket) -> None:
        """Store `ticket` for `granted` (a fresh ticket never exists already)."""
        self._call(
            self._client.put_item,
            TableName=self._table,
            Item={
                **_key(ticket),
                "kind": {"S": "socket_ticket"},
                "tournament": {"S": granted.tournament},
                "player": {"S": granted.player},
                "expires_at": {"N": str(granted.expires_at)},
            },
            ConditionExpression="attribute_not_exists(pk)",
        )

    def take(self, ticket: str, now: int) -> SocketTicket | None:
        """Delete `ticket` and say what it granted; None if it is unknown, used already
        or expired (an expired one is left to the TTL)."""
        try:
            answer = self._call(
                self._client.delete_item,
                TableName=self._table,
                Key=_key(ticket),
                ConditionExpression="attribute_exists(pk) AND expires_at > :now",
                ExpressionAttributeValues={":now": {"N": str(now)}},
                ReturnValues="ALL_OLD",
            )
        except ClientError as error:
            if code_of(error) == "ConditionalCheckFailedException":
                return None
            raise
        item = answer["Attributes"]
        return SocketTicket(
            item["tournament"]["S"], item["player"]["S"], int(item["expires_at"]["N"])
        )
