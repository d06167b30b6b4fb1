"""The pages of a finished tournament: bots play it to its champion on a local stack,
then the bracket shows the champion, stops refreshing, and every table's log is open."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

from tournament_kit import StackFactory, bot_tournament, http

from core.bracket import BracketPlan, TableRef
from functions.pages.markup import esc

SVG_NS = "{http://www.w3.org/2000/svg}"
REFRESH = '<meta http-equiv="refresh"'


def test_a_finished_bracket_crowns_its_champion_and_stops_refreshing(
    local_stack: StackFactory,
) -> None:
    # 5 players at tables of 2 (bracket rule 2): round 1 is a table of 2 and 3 byes, so
    # that round 2 is 2 tables of 2; nobody has a second bye
    run = bot_tournament(local_stack())
    run.create("maexchen", table_size=2, advance=1)
    run.register(["Anna", "Bernd", "<b>Carla</b>", "Dieter", "Emil"])
    run.start(in_registration_order=True)
    final = run.run()
    champion = run.bots[final["champion"]].name
    base = f"/tournaments/{run.tournament}"

    page = http("GET", base + "/bracket")
    assert page.status == 200 and page.headers["content-type"] == "text/html; charset=utf-8"
    assert REFRESH not in page.raw and "data-refresh" not in page.raw  # final: stops
    assert f"CHAMPION</div><div class=who>{esc(champion)}</div>" in page.raw
    assert "<b>Carla</b>" not in page.raw

    picture = http("GET", base + "/bracket.svg")
    assert picture.status == 200 and picture.headers["content-type"] == "image/svg+xml"
    svg = ET.fromstring(picture.raw)
    plan = BracketPlan.build(5, 2, 1)
    boxes: dict[int, list[str]] = {}
    for group in svg.iter(SVG_NS + "g"):
        kind = group.get("class", "").split()
        if "table" in kind:
            ref = TableRef.parse(group.get("data-ref", ""))
            boxes.setdefault(ref.round, []).append(kind[1])
    assert {r: len(states) for r, states in boxes.items()} == {
        r: plan.tables_in(r) for r in range(1, plan.rounds + 1)
    }
    assert boxes[1] == ["over", "bye", "bye", "bye"] and boxes[2] == ["over", "over"]
    assert boxes[3] == ["over"]
    crowned = [g for g in svg.iter(SVG_NS + "g") if g.get("class") == "champion"]
    assert len(crowned) == 1 and esc(champion) in ET.tostring(crowned[0], encoding="unicode")

    watch = http("GET", base + "/tables/R3-1/watch")
    assert watch.status == 200 and REFRESH not in watch.raw
    log = http("GET", base + "/tables/R3-1/log").body
    thrown = [e for r in log["records"] for e in r["events"] if e["type"] == "DiceThrown"]
    found = re.search(r'<script type="application/json" id="table-data">(.*?)</script>', watch.raw)
    assert found is not None
    told = json.loads(found[1])
    assert told["over"] is True and told["records"] == log["records"]
    assert all(e["dice"] is not None for e in thrown)  # the script draws every throw
    bye = http("GET", base + "/tables/R1-4/watch")
    assert bye.status == 200 and "goes on to the next round without playing" in bye.raw
    assert "Emil" in bye.raw and REFRESH not in bye.raw
