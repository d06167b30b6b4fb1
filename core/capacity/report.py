"""The text `knobelcup plan` prints, from a `Plan`."""

from __future__ import annotations

from dataclasses import replace

from core.capacity.calibration import Calibration
from core.capacity.model import (
    PACING_SHARE,
    Plan,
    Shape,
    build_plan,
    table_seconds,
    warm_throughput,
    with_increases,
)
from core.capacity.prices import cost, load_prices
from core.capacity.quotas import Quota


def duration(seconds: float) -> str:
    """`1 h 05 min`, `12 min`, `40 s`."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def largest_at(cal: Calibration, quotas: dict[str, Quota], shape: Shape) -> int:
    """The most players these quotas carry with every first-round table playing at once."""

    def fits(players: int) -> bool:
        plan = build_plan(cal, quotas, players, shape)
        return all(d.share <= 1 for d in plan.demands if d.paces)

    low, high = shape.table_size, shape.table_size
    while fits(high) and high < 100_000_000:
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low if fits(low) else 0


def raised(quotas: dict[str, Quota], increases: dict[str, float]) -> dict[str, Quota]:
    """`quotas` with `increases` applied."""
    return {
        name: replace(q, value=increases[name], overridden=True) if name in increases else q
        for name, q in quotas.items()
    }


def render(
    plan: Plan, cal: Calibration, *, game: str, table_size: int, advance: int, region: str,
    read: str, largest: int | None = None, budget: int | None = None,
) -> str:  # fmt: skip
    """The whole report."""
    source = cal.data["source"]
    _, prices_read = load_prices()
    lines = [
        f"knobelcup plan: {plan.players:,} players, {game}, tables of {table_size},"
        f" {advance} advance; {plan.pace}, one action every {plan.seconds_per_action:g} s"
        " at each table",
        f"counted on the served stack: {source['players']} players, {source['game']} tables"
        f" of {source['table_size']}: {cal.data['actions_per_seat'] * table_size:.0f} actions"
        f" and {cal.data['turns_per_seat'] * table_size:.0f} turns per table of {table_size}",
        f"quotas: {region}, AWS defaults read {read}"
        + (" (some overridden)" if any(d.quota.overridden for d in plan.demands) else ""),
        "",
        f"{'quota':<28} {'peak demand':>14} {'quota':>13} {'share':>8}",
    ]
    binding = plan.binding
    for d in plan.demands:
        mark = "  <- binding" if d is binding and d.share > 1 else ""
        lines.append(
            f"{d.quota.name:<28} {d.peak:>14,.0f} {d.quota.value:>13,.0f}"
            f" {d.share:>7.0%}{mark}   {d.unit}"
        )
    lines += ["", "hottest partition keys at the peak (a key takes 1,000 WCU/s at most):"]
    for key in plan.hot_keys[:6]:
        lines.append(f"  {key.kind:<20} {key.writes_per_second:>10,.1f} writes/s  ({key.how})")
    writes, reads = warm_throughput(plan)
    lines += [
        f"recommended table warm throughput at the pace these quotas allow:"
        f" TableWarmWriteUnits={writes} TableWarmReadUnits={reads} (template.yaml parameters)",
    ]
    if budget is not None:
        seconds = table_seconds(cal, table_size, plan.seconds_per_action)
        lines += [
            f"recommended pacing budget: TablesInPlayBudget={budget} (template.yaml parameter,"
            f" KNOBELCUP_TABLES_IN_PLAY): {PACING_SHARE:.0%} of the tables in play"
            f" {binding.quota.name} carries, or of what the capacity item's key carries if"
            f" less; the capacity item then takes {2 * budget / seconds:,.0f} transactions/s"
            " (a key takes 1,000 WCU/s)",
        ]
    lines += [
        "",
        f"{'round':>5} {'tables':>10} {'longest table':>14} {'at these quotas':>16}",
    ]
    for r in plan.rounds:
        lines.append(
            f"{r.number:>5} {r.tables:>10,} {duration(r.table_seconds):>14}"
            f" {duration(r.seconds):>16}"
        )
    lines += [
        f"connecting every player's socket before the start: {duration(plan.connect_seconds)}",
        f"start to champion: {duration(plan.play_seconds)}"
        + (
            f" (paced by {binding.quota.name}: {binding.share:.1f}x over it at once)"
            if binding.share > 1
            else " (every quota holds; the pacing budget holds the first rounds back)"
            if any(r.seconds > r.table_seconds for r in plan.rounds)
            else " (every quota holds: nothing waits)"
        ),
    ]
    if plan.play_seconds > 2 * 3600:
        lines.append("  longer than a WebSocket lives (2 h): every socket reconnects at least once")
    dollars = cost(plan, cal)
    lines += ["", f"cost at us-east-1 on-demand prices ({prices_read}):"]
    for name, usd in sorted(dollars.items(), key=lambda item: -item[1]):
        lines.append(f"  {name:<28} ${usd:>12,.2f}")
    lines.append(f"  {'total':<28} ${sum(dollars.values()):>12,.2f}")
    increases = with_increases(plan)
    if increases:
        lines += ["", "quota increases to ask for (Service Quotas) to play everyone at once:"]
        lines += [f"  {name} -> {value:,.0f}" for name, value in increases.items()]
    fixed = [d for d in plan.demands if d.share > 1 and not d.quota.adjustable]
    lines += [
        f"  {d.quota.name} cannot be raised: {d.share:.1f}x over it"
        + ("" if d.paces else f" (the busiest function reaches its peak in {d.share:.0f} min)")
        for d in fixed
    ]
    if largest is not None:
        lines += ["", f"largest tournament these quotas carry at this pace: {largest:,} players"]
    return "\n".join(lines) + "\n"
