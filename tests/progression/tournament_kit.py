"""What the progression tests share besides their fixture: requests to the API handler
and bots on a local stack. (Imported by name: test modules cannot import a conftest
reliably when several directories have one.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from functions.api.app import lambda_handler
from local.bots import BotTournament, Strategy, any_legal_action
from local.lambda_events import HttpAnswer, invoke_http
from local.stack import LocalStack

NOW = 1_800_000_000.0
StackFactory = Callable[..., LocalStack]


def http(method: str, path: str, body: object = None, **request: Any) -> HttpAnswer:
    """A request to the API's real Lambda handler."""
    return invoke_http(lambda_handler, method, path, body, **request)


def bot_tournament(
    stack: LocalStack, seed: str = "bots", strategy: Strategy = any_legal_action
) -> BotTournament:
    """Bots over the API handler on `stack`."""
    return BotTournament(http, stack, seed, strategy)
