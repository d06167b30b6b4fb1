"""Settings from the environment, as the SAM template sets them for every function."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

DAY = 86_400


@dataclass(frozen=True, slots=True)
class Settings:
    """Where the service keeps its data and how long."""

    table_name: str
    event_bus: str
    retention_days: int = 180  # every item gets a TTL; DynamoDB deletes it after this
    # where turn deadlines go (EventBridge Scheduler), and what they invoke
    schedule_group: str = "knobelcup-turns"
    timeout_function_arn: str = ""
    scheduler_role_arn: str = ""
    timeout_dead_letter_arn: str = ""
    # the WebSocket API's management endpoint (https://{api}.execute-api.{region}.
    # amazonaws.com/{stage}); empty: nobody is pushed to
    socket_endpoint: str = ""
    # the address players' phones open (http://192.168.1.20:3000, https://cup.example):
    # every QR code and join link is built on it; empty: on the host each request names
    public_url: str = ""
    # the value of `X-Knobelcup-Origin` by which a request is known to come through the
    # site's CloudFront distribution (template.yaml: OriginSecret); empty: none does
    origin_secret: str = ""
    # limits on abuse (docs/operations.md#limits-on-abuse): the origins whose pages may
    # call the API (CORS; none: no CORS headers), the SHA-256 (hex) of the key that
    # creating a tournament needs (empty: anyone may create), and request limits as
    # "COUNT/SECONDS" (empty or "0": no limit)
    cors_origins: tuple[str, ...] = ()
    organizer_key_hash: str = ""
    registrations_per_tournament: str = ""
    registrations_per_address: str = ""
    creations_per_address: str = ""
    # pacing (docs/capacity.md#pacing): the most tables in play at once across every
    # tournament of the deployment, the rest queued (0: unpaced, every table at once);
    # and a table's typical seconds, from which a queued table's expected start is told
    # (62 actions of people 4 s apart: core/capacity/calibration.json)
    tables_in_play: int = 0
    table_seconds: int = 247

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        """Read the `KNOBELCUP_*` variables the template sets."""
        return cls(
            table_name=env.get("KNOBELCUP_TABLE", "knobelcup"),
            event_bus=env.get("KNOBELCUP_EVENT_BUS", "knobelcup-events"),
            retention_days=int(env.get("KNOBELCUP_RETENTION_DAYS", "180")),
            schedule_group=env.get("KNOBELCUP_SCHEDULE_GROUP", "knobelcup-turns"),
            timeout_function_arn=env.get("KNOBELCUP_TIMEOUT_FUNCTION_ARN", ""),
            scheduler_role_arn=env.get("KNOBELCUP_SCHEDULER_ROLE_ARN", ""),
            timeout_dead_letter_arn=env.get("KNOBELCUP_TIMEOUT_DLQ_ARN", ""),
            socket_endpoint=env.get("KNOBELCUP_SOCKET_ENDPOINT", ""),
            public_url=env.get("KNOBELCUP_PUBLIC_URL", "").strip().rstrip("/"),
            origin_secret=env.get("KNOBELCUP_ORIGIN_SECRET", ""),
            cors_origins=tuple(
                o.strip() for o in env.get("KNOBELCUP_CORS_ORIGINS", "").split(",") if o.strip()
            ),
            organizer_key_hash=env.get("KNOBELCUP_ORGANIZER_KEY_HASH", "").strip().lower(),
            registrations_per_tournament=env.get("KNOBELCUP_REGISTRATIONS_PER_TOURNAMENT", ""),
            registrations_per_address=env.get("KNOBELCUP_REGISTRATIONS_PER_ADDRESS", ""),
            creations_per_address=env.get("KNOBELCUP_CREATIONS_PER_ADDRESS", ""),
            tables_in_play=int(env.get("KNOBELCUP_TABLES_IN_PLAY", "") or 0),
            table_seconds=int(env.get("KNOBELCUP_TABLE_SECONDS", "") or 247),
        )

    @property
    def retention_seconds(self) -> int:
        """`retention_days` in seconds."""
        return self.retention_days * DAY
