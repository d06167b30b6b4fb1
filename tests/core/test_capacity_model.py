"""The capacity model (core/capacity): quotas by Region and overrides, the binding quota,
the increases it recommends and the largest tournament the defaults carry."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.capacity.calibration import Calibration
from core.capacity.model import (
    Plan,
    Shape,
    build_plan,
    peak_rates,
    table_seconds,
    tables_in_play,
    warm_throughput,
    with_increases,
)
from core.capacity.prices import cost
from core.capacity.quotas import UnknownQuota, load_quotas
from core.capacity.report import largest_at, raised, render
from infra.settings import Settings

CAL = Calibration.load()
PEOPLE = Shape(pace="people")


def test_a_million_people_at_once_are_bound_by_the_api_gateway_account_throttle() -> None:
    quotas, _ = load_quotas("us-east-1")
    plan = build_plan(CAL, quotas, 1_000_000, PEOPLE)
    assert plan.binding.quota.name == "apigateway_rps"
    assert plan.binding.share > 10
    assert plan.rounds[0].tables == 166_667
    # paced to the budget, 70% of the binding quota, the first round takes its actions at
    # 70% of the rate that quota allows
    first = plan.rounds[0]
    quota_rate = first.tables / 4.0 / plan.binding.share
    assert first.seconds == pytest.approx(first.actions / (0.7 * quota_rate), rel=0.001)
    assert first.seconds == pytest.approx(first.actions / (tables_in_play(CAL, quotas, PEOPLE) / 4))


def test_with_the_increases_it_recommends_every_adjustable_quota_holds() -> None:
    quotas, _ = load_quotas("us-east-1")
    plan = build_plan(CAL, quotas, 1_000_000, PEOPLE)
    increases = with_increases(plan)
    assert {"apigateway_rps", "scheduler_create_tps", "scheduler_delete_tps"} <= set(increases)
    again = build_plan(CAL, raised(quotas, increases), 1_000_000, PEOPLE)
    assert all(d.share <= 1 for d in again.demands if d.quota.adjustable)
    assert again.play_seconds < plan.play_seconds
    assert warm_throughput(again)[0] > 4000


def test_the_largest_tournament_fits_and_one_table_more_does_not() -> None:
    quotas, _ = load_quotas("us-east-1")
    largest = largest_at(CAL, quotas, PEOPLE)
    assert 1_000 < largest < 1_000_000

    def fits(players: int) -> bool:
        plan = build_plan(CAL, quotas, players, PEOPLE)
        return all(d.share <= 1 for d in plan.demands if d.paces)

    assert fits(largest)
    assert not fits(largest + 6)


def test_a_region_and_an_override_file_change_the_quotas(tmp_path: Path) -> None:
    east, _ = load_quotas("us-east-1")
    frankfurt, read = load_quotas("eu-central-1")
    assert east["eventbridge_putevents_tps"].value > frankfurt["eventbridge_putevents_tps"].value
    assert read.startswith("2026-12")
    mine = tmp_path / "quotas.toml"
    mine.write_text("apigateway_rps = 50000\n", encoding="utf-8")
    raised_quotas, _ = load_quotas("us-east-1", mine)
    assert raised_quotas["apigateway_rps"].value == 50_000
    assert raised_quotas["apigateway_rps"].overridden
    wrong = tmp_path / "quotas.json"
    wrong.write_text('{"api_rps": 1}', encoding="utf-8")
    with pytest.raises(UnknownQuota, match="api_rps"):
        load_quotas("us-east-1", wrong)


def test_the_report_names_every_quota_the_binding_one_and_the_cost() -> None:
    quotas, read = load_quotas("us-east-1")
    plan = build_plan(CAL, quotas, 100_000, PEOPLE)
    text = render(
        plan, CAL, game="maexchen", table_size=6, advance=2, region="us-east-1", read=read
    )
    for demand in plan.demands:
        assert demand.quota.name in text
    assert "<- binding" in text
    assert "hottest partition keys" in text
    assert "TableWarmWriteUnits=" in text
    assert sum(cost(plan, CAL).values()) > 0


def test_people_join_on_phones_whose_pages_and_tickets_count_against_the_api() -> None:
    quotas, _ = load_quotas("us-east-1")
    people = build_plan(CAL, quotas, 1_000_000, PEOPLE)
    bots = build_plan(CAL, quotas, 1_000_000, Shape(pace="bots"))

    def joining(plan_: Plan) -> float:
        return next(
            d.peak
            for d in plan_.demands
            if d.quota.name == "apigateway_rps" and "registration" in d.unit
        )

    phone, _ = CAL.per_person("people")
    # a phone: the registration, its reads, the socket's ticket on the API; the page and
    # its scripts from the site's distribution, never the API
    assert phone["cdn:GET /tournaments/{}/play"] == 1
    assert phone["cdn:GET /assets/{}"] >= 4
    assert not [k for k in phone if k in ("http:GET /tournaments/{}/play", "http:GET /assets/{}")]
    assert phone["http:POST /tournaments/{}/me/socket-ticket"] == 1
    requests = sum(v for k, v in phone.items() if k.startswith(("http:", "apigateway:")))
    assert joining(people) == pytest.approx(requests * 1_000_000 / 1800)
    # the distribution serves the page and its scripts, and the API's requests pass it
    [play_, site] = [d for d in people.demands if d.quota.name == "cloudfront_rps"]
    through = sum(v for k, v in phone.items() if k.startswith(("cdn:", "http:")))
    assert site.peak == pytest.approx(through * 1_000_000 / 1800) and site.share < 1
    rates = peak_rates(CAL, 166_667 / 4.0)
    assert play_.peak == pytest.approx(sum(v for k, v in rates.items() if k.startswith("http:")))
    # a bot registers and connects: two requests; a phone several times as many (the
    # page and its scripts not among them)
    assert joining(people) > 3 * joining(bots)
    assert people.totals["http:POST /tournaments/{}/me/socket-ticket"] == pytest.approx(1_000_000)
    assert "http:POST /tournaments/{}/me/socket-ticket" not in bots.totals


def test_a_quota_met_twice_is_raised_to_the_larger_of_its_demands() -> None:
    quotas, _ = load_quotas("us-east-1")
    # registering a million people in 3 minutes: the API's registration rate exceeds it too
    plan = build_plan(CAL, quotas, 1_000_000, Shape(pace="people", registration_minutes=3))
    on_api = [d for d in plan.demands if d.quota.name == "apigateway_rps"]
    assert len(on_api) == 2 and all(d.share > 1 for d in on_api)
    assert with_increases(plan)["apigateway_rps"] == max(d.recommended for d in on_api)


def test_the_pacing_budget_is_70_percent_of_what_the_binding_quota_carries() -> None:
    quotas, _ = load_quotas("us-east-1")
    budget = tables_in_play(CAL, quotas, PEOPLE)
    largest = largest_at(CAL, quotas, PEOPLE)  # every first-round table at once
    assert budget == pytest.approx(0.7 * largest / 6, rel=0.01)
    template = (Path(__file__).parents[2] / "template.yaml").read_text(encoding="utf-8")
    assert f"TablesInPlayBudget:\n    Type: Number\n    Default: {budget}\n" in template
    # the settings' typical table (a queued table's expected start) is the counted one
    assert table_seconds(CAL, 6, 4.0) == pytest.approx(Settings("t", "b").table_seconds, rel=0.02)
    # the capacity item's writes at that budget stay far below a key's 1,000 WCU/s
    assert 2 * 2 * budget / table_seconds(CAL, 6, 4.0) < 100


def test_the_pacing_budget_never_asks_more_of_the_capacity_key_than_it_carries() -> None:
    quotas, _ = load_quotas("us-east-1")
    plan = build_plan(CAL, quotas, 1_000_000, PEOPLE)
    # with the increases API Gateway would carry ~200,000 tables; the one key does not
    budget = tables_in_play(CAL, raised(quotas, with_increases(plan)), PEOPLE)
    seconds = table_seconds(CAL, 6, 4.0)
    assert 4 * budget / seconds <= 0.7 * 1000  # WCU/s on the capacity item, with headroom
    assert budget == pytest.approx(0.7 * 1000 / 4 * seconds, abs=1)
