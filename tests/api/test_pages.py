"""The pages for people: landing, bracket (HTML and SVG) and a table to watch, through the
real handler on moto; the bracket picture's cap on synthetic data; how much a page reads."""

from __future__ import annotations

import base64
import dataclasses
import gzip
import json
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from apiclient import Stack

from core.bracket import BracketPlan, TableRef
from core.match import Seating
from functions.api.routes import pages
from functions.pages import bracket_svg
from functions.pages.bracket_svg import DRAWN_PER_ROUND, Picture, RoundColumn, Seat, TableBox
from functions.pages.markup import esc
from functions.pages.qr import qr_svg
from functions.site.files import site_files
from functions.wiring import services, use_services
from infra.services.bracket_reader import BracketReader
from infra.store.stores import Stores
from infra.store.table_item import TableRecord
from infra.store.tournament_items import PlayerRecord

SVG_NS = "{http://www.w3.org/2000/svg}"
REFRESH = '<meta http-equiv="refresh"'
EVIL = "<script>alert(1)</script>"
QUOTES = "\"&'"
ESCAPED = ("&lt;script&gt;alert(1)&lt;/script&gt;", "&quot;&amp;&#x27;")
SITE = {"Host": "knobelcup.example", "X-Forwarded-Proto": "https"}
NAMES = [EVIL, QUOTES, "Anna", "Bernd", "Carla", "Dieter", "Emil", "Frieda"]


@dataclass
class Cup:
    """A started Mäxchen tournament of 8 at tables of 4, one going on from each."""

    id: str
    tokens: dict[str, str]  # player id -> token
    names: dict[str, str]  # player id -> name
    tables: dict[str, list[str]] = field(default_factory=dict)  # table -> seated player ids


def start_cup(stack: Stack, *, start: bool = True) -> Cup:
    api = stack.api
    created = api.call(
        "POST",
        "/tournaments",
        {"game": "maexchen", "name": f"Cup {EVIL} {QUOTES}", "table_size": 4, "advance": 1},
    )
    tournament, organizer = created.body["tournament_id"], created.body["organizer_token"]
    api.call("POST", f"/tournaments/{tournament}/registration/open", token=organizer)
    cup = Cup(tournament, {}, {})
    for name in NAMES:
        player = api.call("POST", f"/tournaments/{tournament}/players", {"name": name}).body
        cup.tokens[player["player_id"]] = player["player_token"]
        cup.names[player["player_id"]] = name
    if start:
        order = {"order": list(cup.tokens)}  # R1-1: the first four, EVIL and QUOTES among them
        answer = api.call("POST", f"/tournaments/{tournament}/start", order, token=organizer)
        assert answer.status == 202, answer.body
        listing = api.call("GET", f"/tournaments/{tournament}/rounds/1").body["tables"]
        cup.tables = {t["table"]: t["players"] for t in listing}
    return cup


def play(stack: Stack, cup: Cup, table: str, *, actions: int, seed: int = 3) -> dict[str, Any]:
    """Random legal actions at `table` (at most `actions`); the spectator view after."""
    path = f"/tournaments/{cup.id}/tables/{table}"
    chance = random.Random(seed)
    for _ in range(actions):
        seen = stack.api.call("GET", path).body
        if seen["over"]:
            break
        player = seen["view"]["to_act"]
        mine = stack.api.call("GET", path + "/me", token=cup.tokens[player]).body["view"]
        action = chance.choice(mine["legal_actions"])
        body = {"version": mine["version"], "action": action}
        answer = stack.api.call("POST", path + "/actions", body, token=cup.tokens[player])
        assert answer.status == 200, answer.body
    view: dict[str, Any] = stack.api.call("GET", path).body
    return view


def page(stack: Stack, path: str, **request: Any) -> str:
    answer = stack.api.call("GET", path, **request)
    assert answer.status == 200, answer.raw[:300]
    return answer.raw


def boxes_by_round(svg: ET.Element) -> dict[int, list[ET.Element]]:
    found: dict[int, list[ET.Element]] = {}
    for group in svg.iter(SVG_NS + "g"):
        if "table" in group.get("class", "").split():
            ref = TableRef.parse(group.get("data-ref", ""))
            found.setdefault(ref.round, []).append(group)
    return found


# --- landing -------------------------------------------------------------------------


def test_the_landing_page_opens_a_bracket_by_id_and_links_to_the_docs(stack: Stack) -> None:
    answer = stack.api.call("GET", "/")
    assert answer.status == 200
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    assert '<form method="get" action="open">' in answer.raw and 'name="tournament"' in answer.raw
    assert 'href="docs"' in answer.raw
    opened = stack.api.call("GET", "/open", query="tournament=t-abc")
    assert opened.status == 303 and opened.headers["location"] == "tournaments/t-abc/bracket"
    odd = stack.api.call("GET", "/open", query="tournament=a/b%3Fc")
    assert odd.headers["location"] == "tournaments/a%2Fb%3Fc/bracket"
    blank = stack.api.call("GET", "/open", query="tournament=%20")
    assert blank.status == 303 and blank.headers["location"] == "./"
    played = stack.api.call("GET", "/open", query="tournament=t-abc&to=play")
    assert played.status == 303 and played.headers["location"] == "tournaments/t-abc/play"
    assert stack.api.call("GET", "/docs").status == 200  # `/` took nothing from the docs


def test_pages_stay_out_of_the_openapi_document(stack: Stack) -> None:
    paths = stack.api.call("GET", "/openapi.json").body["paths"]
    assert "/tournaments/{tournament_id}" in paths
    pages = ("bracket", "watch", "play")
    assert not [p for p in paths if p in ("/", "/open") or p.endswith(pages)]
    assert not [p for p in paths if p.startswith("/assets")]
    assert not [p for p in paths if p.endswith(".svg")]


# --- the bracket ---------------------------------------------------------------------


def test_before_the_start_the_page_waits_and_there_is_no_picture(stack: Stack) -> None:
    cup = start_cup(stack, start=False)
    html = page(stack, f"/tournaments/{cup.id}/bracket")
    assert "Not started yet" in html and "8 players registered" in html and REFRESH in html
    missing = stack.api.call("GET", f"/tournaments/{cup.id}/bracket.svg")
    assert missing.status == 404 and missing.body["code"] == "not_found"


def test_a_running_bracket_refreshes_and_draws_every_table_with_links(stack: Stack) -> None:
    cup = start_cup(stack)
    play(stack, cup, "R1-2", actions=3)
    answer = stack.api.call("GET", f"/tournaments/{cup.id}/bracket")
    assert answer.status == 200
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    html = answer.raw
    assert f"<noscript>{REFRESH}" in html  # reloads only where scripts do not run
    assert 'data-refresh="3"' in html  # where they do, its script reads it again in place
    sources = re.findall(r'<script src="([^"]*)"', html)
    assert sources == ["../../assets/live.js", "../../assets/bracket.js"]
    head = html.split("<body>")[0]
    assert head.count('<link rel="icon" href="data:,">') == 1  # no icon asked for, either
    head = head.replace('<link rel="icon" href="data:,">', "")
    assert not re.search(r"<link|url\(|https?://", head)  # nothing outside
    site = site_files()  # the scripts are the site's, not the API's
    for source in sources:
        key = source.removeprefix("../../")
        assert "javascript" in site[key].content_type
        assert stack.api.call("GET", "/" + key).status == 404
    assert "CHAMPION</div>" not in html  # no champion banner while running
    for ref in ("R1-1", "R1-2", "R2-1"):
        assert f'href="tables/{ref}/watch"' in html

    answer = stack.api.call("GET", f"/tournaments/{cup.id}/bracket.svg")
    assert answer.status == 200 and answer.headers["content-type"] == "image/svg+xml"
    assert answer.raw.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')
    svg = ET.fromstring(answer.raw)
    assert svg.tag == SVG_NS + "svg"
    assert int(svg.get("width", 0)) > 0 and int(svg.get("height", 0)) > 0
    assert svg.get("viewBox") == f"0 0 {svg.get('width')} {svg.get('height')}"
    plan = BracketPlan.build(8, 4, 1)
    boxes = boxes_by_round(svg)
    assert (
        {r: len(b) for r, b in boxes.items()}
        == {1: 2, 2: 1}
        == {r: plan.tables_in(r) for r in range(1, plan.rounds + 1)}
    )
    states = {b.get("data-ref"): b.get("class", "").split()[1] for bs in boxes.values() for b in bs}
    assert states == {"R1-1": "playing", "R1-2": "playing", "R2-1": "waiting"}
    links = sorted(a.get("href", "") for a in svg.iter(SVG_NS + "a"))
    assert links == [f"tables/{ref}/watch" for ref in ("R1-1", "R1-2", "R2-1")]
    assert len(list(svg.iter(SVG_NS + "path"))) == 3  # two tables to the final, final to champion


def test_a_saved_svg_links_to_the_host_it_came_from(stack: Stack) -> None:
    cup = start_cup(stack)
    headers = {"Host": "cup.example.org", "X-Forwarded-Proto": "https"}
    svg = ET.fromstring(page(stack, f"/tournaments/{cup.id}/bracket.svg", headers=headers))
    base = f"https://cup.example.org/tournaments/{cup.id}/tables/"
    assert {a.get("href") for a in svg.iter(SVG_NS + "a")} == {
        f"{base}{ref}/watch" for ref in ("R1-1", "R1-2", "R2-1")
    }
    forged = {"Host": 'evil"><script>', "X-Forwarded-Proto": "https"}
    svg = ET.fromstring(page(stack, f"/tournaments/{cup.id}/bracket.svg", headers=forged))
    assert {a.get("href") for a in svg.iter(SVG_NS + "a")} == {"tables/R1-1/watch"} | {
        "tables/R1-2/watch",
        "tables/R2-1/watch",
    }


def test_unknown_tournaments_and_tables_are_404(stack: Stack) -> None:
    cup = start_cup(stack)
    for path in (
        "/tournaments/t-nope/bracket",
        f"/tournaments/{cup.id}/tables/R9-1/watch",
        f"/tournaments/{cup.id}/tables/R1-3/watch",
        f"/tournaments/{cup.id}/tables/<b>R1-1/watch",
        "/tournaments/t-nope/tables/R1-1/watch",
    ):
        answer = stack.api.call("GET", path)
        assert answer.status == 404, path
        assert answer.headers["content-type"] == "text/html; charset=utf-8"
        assert "<script>" not in answer.raw
    answer = stack.api.call("GET", "/tournaments/t-nope/bracket.svg")
    assert answer.status == 404 and answer.body["code"] == "not_found"


def test_names_are_escaped_on_every_page(stack: Stack) -> None:
    cup = start_cup(stack)
    evil_table = next(
        t for t, seated in cup.tables.items() if any(cup.names[p] == EVIL for p in seated)
    )
    play(stack, cup, evil_table, actions=2)
    for path, query in (
        ("bracket", ""),
        ("bracket", "projector=1"),
        ("bracket.svg", ""),
        (f"tables/{evil_table}/watch", ""),
    ):
        raw = page(stack, f"/tournaments/{cup.id}/{path}", query=query)
        assert "<script>" not in raw and QUOTES not in raw, path
        assert all(escaped in raw for escaped in ESCAPED), path
    ET.fromstring(page(stack, f"/tournaments/{cup.id}/bracket.svg"))


def test_a_name_xml_forbids_still_makes_a_valid_svg() -> None:
    assert esc("a\x01b\ud800c") == "a\ufffdb\ufffdc"
    box = TableBox("R1-1", bracket_svg.PLAYING, (Seat("x\x00y"), Seat(EVIL)), 2, ())
    svg = bracket_svg.render(Picture((RoundColumn(1, 1, (box,)),), champion="\x1b"))
    ET.fromstring(svg)
    svg.encode()  # no lone surrogate left to fail the UTF-8 body


# --- watching a table ----------------------------------------------------------------


def test_the_watch_page_shows_no_hidden_die_until_the_table_is_over(stack: Stack) -> None:
    cup = start_cup(stack)
    watch = f"/tournaments/{cup.id}/tables/R1-1/watch"
    seen = play(stack, cup, "R1-1", actions=9)
    assert not seen["over"]
    live = page(stack, watch)
    log = stack.api.call("GET", f"/tournaments/{cup.id}/tables/R1-1/log").body
    assert not log["complete"]
    thrown = [e for r in log["records"] for e in r["events"] if e["type"] == "DiceThrown"]
    hidden = [e for e in thrown if e["dice"] is None]
    assert hidden, "Mäxchen throws under the cup: the test needs a hidden one"
    data = embedded(live, "table-data")
    told = [e for r in data["records"] for e in r["events"] if e["type"] == "DiceThrown"]
    assert told == thrown  # what the script tells is the spectator's log, no die more
    assert not any("dice" in record for record in data["records"])
    assert data["view"] == seen["view"] and data["over"] is False
    assert REFRESH in live and "href='../../bracket'" in live
    for player in cup.tables["R1-1"]:
        assert esc(cup.names[player]) in live
        assert data["names"][player] == cup.names[player]
    assert EVIL not in live.split('id="table-data">')[1]  # the JSON escapes its <
    to_act = seen["view"]["to_act"]
    assert f"{esc(cup.names[to_act])} to act" in live
    assert f"turn {seen['view']['version']}" in live

    play(stack, cup, "R1-1", actions=10_000)
    over = page(stack, watch)
    revealed = stack.api.call("GET", f"/tournaments/{cup.id}/tables/R1-1/log").body
    assert revealed["complete"]
    data = embedded(over, "table-data")
    assert data["records"] == revealed["records"] and data["over"] is True
    told = [e for r in data["records"] for e in r["events"] if e["type"] == "DiceThrown"]
    assert all(e["dice"] is not None for e in told) and len(told) > len(thrown) - len(hidden)
    assert REFRESH not in over
    # the finished table's dice, checked against the commitment shown since the seating
    assert "id=dice-check" not in live
    throws = sum(1 for r in revealed["records"] if r.get("dice"))
    assert f"dice verified ✓ ({throws} throws)" in over


def test_a_finished_table_whose_dice_do_not_follow_from_its_seeds_is_not_verified() -> None:
    log = {
        "tournament": "t-1",
        "table": "R1-1",
        "dice": {"server_seed": "AA==", "commitment": "0" * 64, "player_seeds": [], "secret": True},
        "records": [{"version": 0}],
    }
    told = pages.dice_check(log)
    assert told is not None and told.startswith("dice NOT verified: ")
    assert pages.dice_check({**log, "dice": None}) is None  # seated before verifiable dice


def embedded(html: str, element: str) -> Any:
    """The JSON a page embeds for its script."""
    found = re.search(f'<script type="application/json" id="{element}">(.*?)</script>', html)
    assert found is not None, element
    return json.loads(found[1])


def test_the_projector_view_carries_a_qr_code_of_the_play_page(stack: Stack) -> None:
    cup = start_cup(stack)
    html = page(stack, f"/tournaments/{cup.id}/bracket", query="projector=1", headers=SITE)
    play_url = f"https://knobelcup.example/tournaments/{cup.id}/play"
    assert esc(play_url) in html
    assert qr_svg(play_url) in html  # the code of that very address
    assert html.count('class="tbl ') == 3  # R1-1, R1-2 and the final
    assert 'data-refresh="3"' in html and "body class=projector" in html
    plain = page(stack, f"/tournaments/{cup.id}/bracket", query="projector=0")
    assert "body class=projector" not in plain


def test_a_table_not_seated_yet_names_its_feeders_and_waits(stack: Stack) -> None:
    cup = start_cup(stack)
    html = page(stack, f"/tournaments/{cup.id}/tables/R2-1/watch")
    assert "seated once R1-1, R1-2 are over" in html and REFRESH in html


# --- the picture's cap and the page's reads ------------------------------------------


def synthetic_picture(players: int, table_size: int, advance: int) -> tuple[BracketPlan, Picture]:
    """Every table of every round over, each player named after their seat."""
    plan = BracketPlan.build(players, table_size, advance)
    rounds = []
    for number in range(1, plan.rounds + 1):
        boxes = []
        for index in range(plan.tables_in(number)):
            ref = TableRef(number, index)
            seats = tuple(
                Seat(f"{ref}/{seat}", bracket_svg.ON if seat < plan.survivors(ref) else "out")
                for seat in range(plan.seats_at(ref))
            )
            successor = tuple(route.table.index for route in plan.routes(ref))
            boxes.append(TableBox(str(ref), bracket_svg.OVER, seats, len(seats), successor))
        rounds.append(RoundColumn(number, plan.tables_in(number), tuple(boxes)))
    return plan, Picture(tuple(rounds), champion="R-final/0")


def test_a_round_larger_than_the_cap_is_drawn_up_to_it_and_summed_up() -> None:
    plan, picture = synthetic_picture(6_000, 6, 2)
    assert plan.tables_in(1) == 1_000 > DRAWN_PER_ROUND
    text = bracket_svg.render(picture)
    svg = ET.fromstring(text)
    boxes = boxes_by_round(svg)
    assert {r: len(b) for r, b in boxes.items()} == {
        r: min(plan.tables_in(r), DRAWN_PER_ROUND) for r in range(1, plan.rounds + 1)
    }
    summaries = [t.text for t in svg.iter(SVG_NS + "text") if "more table" in (t.text or "")]
    assert summaries == [
        f"… and {plan.tables_in(r) - DRAWN_PER_ROUND:,} more tables"
        for r in range(1, plan.rounds + 1)
        if plan.tables_in(r) > DRAWN_PER_ROUND
    ]
    assert "… and 744 more tables" in summaries
    assert len(list(svg.iter(SVG_NS + "a"))) == sum(len(b) for b in boxes.values())
    assert "R-final/0" in text and len(text) < 2_000_000


def test_a_thousand_player_bracket_draws_every_table() -> None:
    plan, picture = synthetic_picture(1_000, 6, 2)
    assert plan.tables_in(1) == 167
    svg = ET.fromstring(bracket_svg.render(picture))
    assert {r: len(b) for r, b in boxes_by_round(svg).items()} == {
        r: plan.tables_in(r) for r in range(1, plan.rounds + 1)
    }
    assert not [t for t in svg.iter(SVG_NS + "text") if "more table" in (t.text or "")]


class CountedReads:
    """The tables' and players' stores, counting what is asked of them: each batch of
    tables, each player; over `stores`, or without (`over`: every table asked for is
    there and over)."""

    def __init__(self, stores: Stores | None = None, *, over: bool = False) -> None:
        self.stores = stores
        self.over = over
        self.batches: list[list[str]] = []  # the refs of each table read
        self.players: list[str] = []

    def get_tables(self, tournament: str, refs: Sequence[str]) -> list[TableRecord]:
        self.batches.append(list(refs))
        if self.stores is not None:
            return self.stores.tables.get_tables(tournament, refs)
        seating = Seating("maexchen", ("a", "b"), {}, 1)
        return [
            TableRecord(tournament, ref, seating, ("-", "-"), ranking=("a", "b"))
            for ref in (refs if self.over else ())
        ]

    def get_players(self, tournament: str, players: Sequence[str]) -> list[PlayerRecord]:
        self.players.extend(players)
        return [] if self.stores is None else self.stores.players.get_players(tournament, players)


def counting_pages(stack: Stack) -> CountedReads:
    """The pages' reads, counted from here to the end of the test (the stack's fixture
    puts its own services back in place afterwards)."""
    counted = CountedReads(stack.stores())
    reader = BracketReader(services().tournaments, counted, counted)  # type: ignore[arg-type]
    use_services(dataclasses.replace(services(), brackets=reader))
    return counted


@pytest.mark.parametrize("over", [False, True], ids=["nothing-over", "everything-over"])
def test_a_million_player_bracket_reads_a_bounded_number_of_tables(over: bool) -> None:
    plan = BracketPlan.build(1_000_000, 6, 2)
    assert plan.tables_in(1) > 160_000
    counted = CountedReads(over=over)
    reader = BracketReader(None, counted, counted)  # type: ignore[arg-type]  # no tournament
    read = reader.drawn_tables("t-big", plan, DRAWN_PER_ROUND)
    assert len(counted.batches) <= plan.rounds
    assert all(len(batch) <= DRAWN_PER_ROUND for batch in counted.batches)
    assert sum(map(len, counted.batches)) <= DRAWN_PER_ROUND * plan.rounds
    if over:
        assert [len(r) for r in read] == [
            min(plan.tables_in(r), DRAWN_PER_ROUND) for r in range(1, plan.rounds + 1)
        ]


def test_later_rounds_of_a_running_bracket_are_not_read(stack: Stack) -> None:
    cup = start_cup(stack)
    counted = counting_pages(stack)
    page(stack, f"/tournaments/{cup.id}/bracket")
    assert counted.batches == [["R1-1", "R1-2"]]  # no round-1 table is over: no final yet


def test_the_bracket_takes_its_names_from_its_tables_and_reads_the_others_once(
    stack: Stack,
) -> None:
    cup = start_cup(stack)
    counted = counting_pages(stack)
    first = page(stack, f"/tournaments/{cup.id}/bracket")
    assert counted.players == []  # everyone is seated: the table items carry the names
    assert all(esc(name) in first for name in cup.names.values())
    drawn = len(counted.batches)
    page(stack, f"/tournaments/{cup.id}/tables/R1-1/watch")
    assert counted.players == []  # the view carries the names too
    assert len(counted.batches) == drawn  # the watch page reads its table through turns


def test_names_a_table_does_not_carry_are_read_once(stack: Stack) -> None:
    cup = start_cup(stack)
    counted = CountedReads(stack.stores())
    reader = BracketReader(services().tournaments, counted, counted)  # type: ignore[arg-type]
    players = sorted(cup.names)[:2]
    seated_before_names = TableRecord(  # names=(): seated before tables carried them
        cup.id, "R1-1", Seating("maexchen", tuple(players), {}, 1), ("-", "-")
    )
    assert reader.names(cup.id, [seated_before_names]) == {p: cup.names[p] for p in players}
    assert sorted(counted.players) == players
    again = reader.names(cup.id, [seated_before_names], others=players)
    assert again == {p: cup.names[p] for p in players}
    assert sorted(counted.players) == players  # kept: a name never changes


def test_big_pages_go_gzipped_to_browsers_that_take_it(stack: Stack) -> None:
    cup = start_cup(stack)
    answer = stack.api.call(
        "GET", f"/tournaments/{cup.id}/bracket.svg", headers={"Accept-Encoding": "gzip"}
    )
    assert answer.status == 200
    assert answer.headers["content-encoding"] == "gzip"
    assert answer.headers["cache-control"] == "no-cache"  # live: always asked for again
    svg = gzip.decompress(base64.b64decode(answer.raw)).decode()
    assert svg == page(stack, f"/tournaments/{cup.id}/bracket.svg")
