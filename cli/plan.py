"""`knobelcup plan`: what a tournament asks of AWS, before it is announced (docs/capacity.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from core.capacity.calibration import CALIBRATION_FILE, Calibration
from core.capacity.model import (
    SECONDS_PER_ACTION,
    Shape,
    build_plan,
    tables_in_play,
    with_increases,
)
from core.capacity.quotas import UnknownQuota, load_quotas
from core.capacity.report import largest_at, raised, render

REGION = "us-east-1"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`plan` and its options."""
    plan = commands.add_parser(
        "plan", help="peak AWS demand per quota, duration and cost of a tournament"
    )
    plan.add_argument("--players", type=int, required=True)
    plan.add_argument("--game", default="maexchen")
    plan.add_argument("--table-size", type=int, default=6)
    plan.add_argument("--advance", type=int, default=2)
    plan.add_argument("--pace", choices=sorted(SECONDS_PER_ACTION), default="people")
    plan.add_argument(
        "--seconds-per-action",
        type=float,
        metavar="X",
        help="seconds between two actions at a table (people 4, bots 0.5)",
    )
    plan.add_argument("--region", default=REGION, help=f"the Region's default quotas ({REGION})")
    plan.add_argument(
        "--quotas", type=Path, metavar="FILE", help="a JSON or TOML file: quota name = number"
    )
    plan.add_argument(
        "--with-increases",
        action="store_true",
        help="plan again with the quota increases the plan recommends",
    )
    plan.add_argument(
        "--largest", action="store_true", help="also find the largest tournament these quotas carry"
    )
    plan.add_argument("--calibration", type=Path, default=CALIBRATION_FILE, help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    """Print the plan."""
    try:
        quotas, read = load_quotas(args.region, args.quotas)
    except (UnknownQuota, OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.players < 1:
        print("error: --players must be at least 1", file=sys.stderr)
        return 2
    cal = Calibration.load(args.calibration)
    if (cal.data["source"]["game"], cal.data["source"]["table_size"]) != (
        args.game,
        args.table_size,
    ):
        print(
            f"note: counted on {cal.data['source']['game']} tables of"
            f" {cal.data['source']['table_size']}; actions per seat taken as the same",
            file=sys.stderr,
        )
    shape = Shape(args.table_size, args.advance, args.pace, args.seconds_per_action)
    plan = build_plan(cal, quotas, args.players, shape)
    if args.with_increases:
        quotas = raised(quotas, with_increases(plan))
        plan = build_plan(cal, quotas, args.players, shape)
    largest = largest_at(cal, quotas, shape) if args.largest else None
    where = {"game": args.game, "table_size": args.table_size, "advance": args.advance}
    budget = tables_in_play(cal, quotas, shape)
    text = render(plan, cal, **where, region=args.region, read=read, largest=largest, budget=budget)
    print(text, end="")
    return 0
