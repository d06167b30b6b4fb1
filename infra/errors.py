"""Errors of the service around the core; each maps to one HTTP status in functions/api."""

from __future__ import annotations

from core.errors import KnobelcupError


class NotFound(KnobelcupError):
    """No tournament, player or table with that id."""

    code = "not_found"


class Unauthorized(KnobelcupError):
    """The request carries no token, or one that does not match."""

    code = "unauthorized"


class JoinCodeRequired(Unauthorized):
    """The tournament needs its join code to register, and none came."""

    code = "join_code_required"
    field = "join_code"


class WrongJoinCode(Unauthorized):
    """A join code that is not the tournament's."""

    code = "wrong_join_code"
    field = "join_code"


class Forbidden(KnobelcupError):
    """A valid token, but not one that may do this (another player's seat, organizer-only)."""

    code = "forbidden"


class StaleVersion(KnobelcupError):
    """The action was taken on a version of the table that is no longer current."""

    code = "stale_version"

    def __init__(self, message: str, *, current_version: int) -> None:
        super().__init__(message, rule="optimistic concurrency")
        self.current_version = current_version


class IdempotencyKeyReused(KnobelcupError):
    """The same Idempotency-Key came with a different request body."""

    code = "idempotency_key_reused"


class WrongStatus(KnobelcupError):
    """The tournament is not in a status that allows this (say, registering once started)."""

    code = "wrong_status"


class RegistrationClosed(WrongStatus):
    """A registration came after registration closed (by the organizer or the start)."""

    code = "registration_closed"


class RegistrationChanged(WrongStatus):
    """A player registered between the start's count and its close: start again."""

    code = "registration_changed"


class NameTaken(KnobelcupError):
    """Another player of the tournament registered the same name (compared as
    `core.names.name_key` does)."""

    code = "name_taken"
    field = "name"


class PlayerLimitReached(KnobelcupError):
    """Registration is full."""

    code = "player_limit_reached"


class Throttled(KnobelcupError):
    """DynamoDB refused for capacity; the client should retry after a short wait."""

    code = "throttled"


class RateLimited(Throttled):
    """Too many requests of one kind from one source or for one tournament: the client
    may try again after `retry_after` seconds (the window's end)."""

    code = "rate_limited"

    def __init__(self, message: str, *, rule: str, retry_after: int) -> None:
        super().__init__(message, rule=rule)
        self.retry_after = retry_after


class TurnConflict(KnobelcupError):
    """Not this player's turn, or the table is over: 409 with the table's current version."""

    code = "turn_conflict"

    def __init__(self, cause: KnobelcupError, *, current_version: int) -> None:
        super().__init__(str(cause))
        self.code = cause.code
        self.rule = cause.rule
        self.current_version = current_version


class TableQueued(WrongStatus):
    """The table waits for one of the deployment's slots (docs/capacity.md#pacing): no one
    acts there before it starts."""

    code = "table_queued"
