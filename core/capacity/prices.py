"""What a tournament costs at public on-demand prices (`prices.json`, dated)."""

from __future__ import annotations

import json
from pathlib import Path

from core.capacity.calibration import Calibration
from core.capacity.model import FUNCTIONS, THROUGH_CDN, TIMED_OUT_TURNS, Plan, queued

PRICES_FILE = Path(__file__).with_name("prices.json")
ROUTED_PAGE = "cdn:GET /tournaments/{}/play"  # the site's file its router chooses


def load_prices() -> tuple[dict[str, float], str]:
    """Dollars per single unit, by name, and the date read."""
    data = json.loads(PRICES_FILE.read_text(encoding="utf-8"))
    return {k: v["usd"] / v["per"] for k, v in data["prices"].items()}, str(data["read"])


def usage(plan: Plan, cal: Calibration) -> dict[str, float]:
    """The billed units of the whole tournament (registration and play)."""
    counts = plan.totals
    players = plan.players
    actions = sum(r.actions for r in plan.rounds)
    turns = actions * cal.data["turns_per_seat"] / cal.data["actions_per_seat"]
    timeouts = max(counts.get("lambda:TimeoutFunction", 0.0), turns * TIMED_OUT_TURNS[plan.pace])
    invocations = {name: counts.get(f"lambda:{name}", 0.0) for name in FUNCTIONS}
    invocations["TimeoutFunction"] = timeouts
    invocations["SweeperFunction"] = plan.play_seconds / 60
    gb_seconds = sum(
        n * FUNCTIONS[name][0] / 1000 * FUNCTIONS[name][1] / 1024 for name, n in invocations.items()
    )
    socket = sum(v for k, v in counts.items() if k.startswith("apigateway:"))
    per_unit = cal.data["per_action_units"], cal.per_person(plan.pace)[1]
    items = cal.data["items_per_action"]
    return {
        "lambda_request": sum(invocations.values()),
        "lambda_gb_second": gb_seconds,
        "http_request": sum(v for k, v in counts.items() if k.startswith("http:")),
        # the API's requests reach it through the site's distribution too, and its router
        # runs on them and on the play page (not on the scripts)
        "cdn_request": sum(v for k, v in counts.items() if k.startswith(THROUGH_CDN)),
        "cdn_function": sum(
            v for k, v in counts.items() if k.startswith("http:") or k == ROUTED_PAGE
        ),
        "cdn_gb": players * cal.site_bytes(plan.pace) / 1e9,
        "websocket_message": socket,
        "websocket_connection_minute": players * plan.play_seconds / 60,
        "dynamodb_wru": per_unit[0].get("WCU", 0) * actions + per_unit[1].get("WCU", 0) * players,
        "dynamodb_rru": per_unit[0].get("RCU", 0) * actions + per_unit[1].get("RCU", 0) * players,
        "scheduler_invocation": timeouts,
        "eventbridge_event": items.get("events:PutEvents", 0.0) * actions,
        "sqs_request": 3 * queued(cal) * actions,
    }


def cost(plan: Plan, cal: Calibration) -> dict[str, float]:
    """Dollars per priced item, from `usage`."""
    prices, _ = load_prices()
    return {name: units * prices[name] for name, units in usage(plan, cal).items()}
