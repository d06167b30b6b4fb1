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
        )

    @property
    def retention_seconds(self) -> int:
        """`retention_days` in seconds."""
        return self.retention_days * DAY
