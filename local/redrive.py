"""The redrive off AWS: the stream readers' handlers run in this process.

moto cannot run a Lambda function, so the local `Invoker` calls the same
`lambda_handler`s the local stack's delivery calls, with the same template filters.
A pointer names its function by ARN; locally the functions are named
`<prefix>-<logical id>` (`local_function_arn`), on AWS SAM names them
`<stack>-<logical id>-<suffix>`: both are found by the logical id in the name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from infra.bootstrap import build_publisher, build_timers
from infra.settings import Settings
from local.event_filters import passes, stream_filters
from local.lambda_events import LocalContext

Handler = Callable[[dict[str, Any], Any], Any]
ACCOUNT = "123456789012"  # the local stack's (local.stack)
REGION = "eu-central-1"


def local_function_arn(prefix: str, logical_id: str) -> str:
    """The ARN a local function of `prefix`'s stack goes by."""
    return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{prefix}-{logical_id}"


def logical_id_in(function_arn: str, logical_ids: list[str]) -> str:
    """The logical id a function ARN's name carries (`ValueError` if none)."""
    name = function_arn.split(":function:", 1)[-1].split(":", 1)[0]
    for logical_id in logical_ids:
        if logical_id in name.split("-"):
            return logical_id
    raise ValueError(f"{function_arn} names none of the stream readers {logical_ids}")


@dataclass(frozen=True)
class InProcessTarget:
    """A stream reader's handler, called here, behind its template filters."""

    handler: Handler
    filters: list[dict[str, Any]]
    context: LocalContext

    def accepts(self, record: dict[str, Any]) -> bool:
        """The template's filters, as the local delivery applies them."""
        return passes(self.filters, record)

    def invoke(self, event: dict[str, Any]) -> Any:
        """The handler's answer; its exception if it died."""
        return self.handler(event, self.context)


class InProcessInvoker:
    """The stream readers as handlers in this process, by template logical id."""

    def __init__(self, handlers: Mapping[str, Handler]) -> None:
        self._handlers = dict(handlers)

    def target(self, function_arn: str, stream_arn: str) -> InProcessTarget:
        """The handler the ARN names (the stream is the local table's only one)."""
        logical_id = logical_id_in(function_arn, list(self._handlers))
        name = function_arn.split(":function:", 1)[-1]
        return InProcessTarget(
            self._handlers[logical_id], stream_filters(logical_id), LocalContext(name)
        )


def stream_reader_handlers() -> dict[str, Handler]:
    """The template's two stream readers and their handlers (imported now: the functions
    read the environment when imported)."""
    from functions.publisher import app as publisher_app  # noqa: PLC0415
    from functions.timers import app as timers_app  # noqa: PLC0415

    return {
        "PublisherFunction": publisher_app.lambda_handler,
        "TimerFunction": timers_app.lambda_handler,
    }


def wire_stream_readers(prefix: str, clients: Mapping[str, Any]) -> None:
    """Point the publisher and timer handlers at a running local stack named `prefix`
    (`make serve` uses `knobelcup`): its bus and schedule group, through `clients`
    ("events", "scheduler"). The names are the ones `start_local_stack` gives."""
    from functions.publisher import app as publisher_app  # noqa: PLC0415
    from functions.timers import app as timers_app  # noqa: PLC0415

    settings = local_settings(prefix)
    publisher_app.publisher.use(build_publisher(settings, client=clients["events"]))
    timers_app.timers.use(build_timers(settings, client=clients["scheduler"]))


def unwire_stream_readers() -> None:
    """Put the publisher and timer handlers back on the environment's services."""
    from functions.publisher import app as publisher_app  # noqa: PLC0415
    from functions.timers import app as timers_app  # noqa: PLC0415

    publisher_app.publisher.use(None)
    timers_app.timers.use(None)


def local_settings(prefix: str) -> Settings:
    """The settings `start_local_stack(prefix)` runs its handlers with."""
    return Settings(
        table_name=f"{prefix}-table",
        event_bus=f"{prefix}-events",
        schedule_group=f"{prefix}-turns",
        timeout_function_arn=f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{prefix}-timeout",
        scheduler_role_arn=f"arn:aws:iam::{ACCOUNT}:role/{prefix}-scheduler",
    )
