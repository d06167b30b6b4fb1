"""Who may create a tournament and how fast anyone may register: the organizer key and
the request limits of the deployment (docs/operations.md#limits-on-abuse)."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from infra.errors import Unauthorized
from infra.settings import Settings
from infra.store.rate_limits import Limit, RateLimiter

# every registration of a tournament counts on one of these items: one item takes at
# most 1,000 writes a second, a tournament's limit may be more
TOURNAMENT_SHARDS = 8
ORGANIZER_KEY_RULE = "organizer key"


@dataclass(frozen=True, slots=True)
class Admission:
    """The deployment's organizer key (its SHA-256, hex; empty: none) and its limits."""

    limiter: RateLimiter | None = None
    organizer_key_hash: str = ""
    registrations_per_tournament: Limit | None = None
    registrations_per_address: Limit | None = None
    creations_per_address: Limit | None = None

    @classmethod
    def from_settings(cls, settings: Settings, limiter: RateLimiter) -> Admission:
        """The settings' key and limits, counted by `limiter`."""
        return cls(
            limiter,
            settings.organizer_key_hash,
            Limit.parse(settings.registrations_per_tournament, shards=TOURNAMENT_SHARDS),
            Limit.parse(settings.registrations_per_address),
            Limit.parse(settings.creations_per_address),
        )

    @property
    def organizer_key_required(self) -> bool:
        """Whether creating a tournament needs the organizer key."""
        return bool(self.organizer_key_hash)

    def admit_creation(self, address: str, key: str | None) -> None:
        """Let a tournament be created from `address` with `key` (the organizer key sent,
        if any): with a key configured, `Unauthorized` unless it is the key; without,
        `RateLimited` past the creations per address."""
        if self.organizer_key_required:
            if key is None or not key_matches(key, self.organizer_key_hash):
                raise Unauthorized(
                    "creating a tournament here needs the organizer key: send it as"
                    " 'Authorization: Bearer <organizer key>'",
                    rule=ORGANIZER_KEY_RULE,
                )
            return
        self._spend("create-by-address", address, self.creations_per_address, "tournaments")

    def admit_registration(self, tournament: str, address: str) -> None:
        """Count a registration to `tournament` from `address`; `RateLimited` past
        either limit."""
        what = "registrations"
        self._spend("register-by-address", address, self.registrations_per_address, what)
        self._spend("register-by-tournament", tournament, self.registrations_per_tournament, what)

    def _spend(self, kind: str, key: str, limit: Limit | None, what: str) -> None:
        if self.limiter is not None:
            self.limiter.spend(kind, key, limit, what)


def key_matches(key: str, expected_hash: str) -> bool:
    """Whether `key`'s SHA-256 (hex) is `expected_hash`, compared in constant time."""
    presented = hashlib.sha256(key.encode()).hexdigest()
    return hmac.compare_digest(presented, expected_hash.lower())
