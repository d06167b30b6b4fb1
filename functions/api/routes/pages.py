"""Pages for organizers and spectators: the bracket (HTML and SVG), a table to watch.

These routes only read, through `infra.services.bracket_reader`: the tournament, at most
the tables of each round that the picture draws (`DRAWN_PER_ROUND`), and the names of the
players at them (from the table items). Drawing is the job of the pure
`functions.pages` package, imported when a page is first asked for: a cold
start for any other request does not pay its ~10 ms. The pages stay out of the OpenAPI
document: they are for browsers, not API clients.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import quote

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.shared.cookies import Cookie

from core.bracket import BracketPlan, TableRef
from core.errors import KnobelcupError
from functions.wiring import services
from infra.errors import NotFound
from infra.store.table_item import TableRecord
from infra.store.tournament_items import Status, TournamentRecord

if TYPE_CHECKING:
    from functions.pages.bracket_svg import Picture, TableBox
    from functions.pages.html import TournamentInfo

router = Router()
HTML = "text/html; charset=utf-8"
SVG = "image/svg+xml"
LIVE = "no-cache"  # a live page must be asked for again, never served from a cache
BRACKET = "/tournaments/<tournament_id>/bracket"
_HOST = re.compile(r"[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?")


@router.get("/", include_in_schema=False)
def landing() -> Response[str]:
    """A form that opens a tournament's bracket by its id, and links to the docs."""
    from functions.pages import html  # noqa: PLC0415  # only pages pay for pages

    return html_answer(lambda: html.landing_page(*page_language()))


@router.get("/open", include_in_schema=False)
def open_bracket(
    tournament: Annotated[str, Query(min_length=1, max_length=100)],
    to: Annotated[str, Query(max_length=10)] = "",
) -> Response[str]:
    """The landing page's form: on to the bracket of the tournament it names, or to its
    play page (`to=play`)."""
    named = tournament.strip()
    page = "play" if to == "play" else "bracket"
    location = f"tournaments/{quote(named, safe='')}/{page}" if named else "./"
    return Response(303, HTML, "", headers={"Location": location})


@router.get(BRACKET, include_in_schema=False, compress=True, cache_control=LIVE)
def bracket_page(
    tournament_id: str,
    projector: Annotated[str, Query(max_length=5)] = "",
    code: Annotated[str, Query(max_length=64)] = "",
) -> Response[str]:
    """The bracket as a page that updates itself in place until the tournament is
    finished; `?projector=1`: for a pub's projector, with the QR code to the play page.
    `&code=` (the organizer's projector link, never shown by the API): the tournament's
    join code, which the QR code then carries to the play page if it is the right one."""
    from functions.pages import html  # noqa: PLC0415
    from functions.pages.projector import projector_page  # noqa: PLC0415
    from functions.pages.qr import qr_svg  # noqa: PLC0415

    def page() -> str:
        tournament = services().tournaments.get(tournament_id)
        plan = services().brackets.plan(tournament)
        tables = [] if plan is None else _read_bracket(tournament.id, plan)
        standings = [(row["place"], row["player"]) for row in tournament.top_standings]
        names = _names(tournament.id, tables, [p for _, p in standings])
        picture = None if plan is None else _picture(plan, tables, tournament, names)
        drawn = sum(len(column.drawn) for column in picture.rounds) if picture else 0
        info = tournament_info(tournament)
        right_code = bool(code) and _is_join_code(tournament, code)
        lang, switch = page_language(
            tournament, ("projector", "code") if right_code else ("projector",)
        )
        named = [(place, names.get(p, p)) for place, p in standings]
        champion = picture.champion if picture else None
        refresh = _refresh(tournament, drawn)
        if projector in ("1", "true", "yes"):
            if picture is not None:
                picture = _at_play(picture, tables)
            play = site_url(f"tournaments/{quote(tournament.id, safe='')}/play") or "play"
            if right_code:
                play += f"?code={quote(code.strip(), safe='')}"
            return projector_page(
                info,
                picture,
                champion=champion,
                standings=named,
                qr=qr_svg(play),
                play_url=play,
                refresh=refresh,
                socket=socket_url(),
                lang=lang,
                switch=switch,
            )
        return html.bracket_page(
            info,
            picture,
            champion=champion,
            standings=named,
            refresh=refresh,
            socket=socket_url(),
            lang=lang,
            switch=switch,
        )

    return html_answer(page)


@router.get(BRACKET + ".svg", include_in_schema=False, compress=True, cache_control=LIVE)
def bracket_picture(tournament_id: str) -> Response[str]:
    """The bracket picture alone, a complete SVG document (404 before the start)."""
    from functions.pages.bracket_svg import render  # noqa: PLC0415

    tournament = services().tournaments.get(tournament_id)
    plan = services().brackets.plan(tournament)
    if plan is None:
        raise NotFound(
            f"tournament {tournament_id} has no bracket before the start", rule="bracket"
        )
    tables = _read_bracket(tournament.id, plan)
    picture = _picture(plan, tables, tournament, _names(tournament.id, tables))
    links = site_url(f"tournaments/{quote(tournament.id, safe='')}/")
    return Response(
        200,
        SVG,
        render(picture, links=links, title=f"Bracket of {tournament.name or tournament.id}"),
    )


@router.get(
    "/tournaments/<tournament_id>/tables/<table>/watch",
    include_in_schema=False,
    compress=True,
    cache_control=LIVE,
)
def watch_table(tournament_id: str, table: str) -> Response[str]:
    """One table for spectators: the public view and the log, updating until it is over."""
    from functions.pages import watch  # noqa: PLC0415

    def page() -> str:
        tournament = services().tournaments.get(tournament_id)
        plan, ref = services().brackets.table_in(tournament, table)
        info = tournament_info(tournament)
        lang, switch = page_language(tournament)
        if plan.is_bye(ref):
            seated, _ = services().tournaments.round_tables(tournament.id, ref.round, ref.index, 1)
            if seated:
                player = seated[0].ranking[0]
                name = services().brackets.names(tournament.id, seated).get(player, player)
                return watch.pending_table_page(
                    info, table, feeders=(), bye=name, socket=socket_url(), lang=lang, switch=switch
                )
        else:
            try:
                view = services().turns.spectator_view(tournament.id, table)
            except NotFound:
                view = None
            if view is not None:
                log = services().turns.audit_log(tournament.id, table)
                return watch.watch_page(
                    info,
                    table,
                    view=view["view"],
                    over=view["over"],
                    records=log["records"],
                    names=_seat_names(tournament.id, view["players"]),
                    socket=socket_url(),
                    dice_check=dice_check(log) if view["over"] else None,
                    lang=lang,
                    switch=switch,
                )
        feeders = [str(TableRef(ref.round - 1, i)) for i in plan.feeders(ref)]
        return watch.pending_table_page(
            info, table, feeders=feeders, bye=None, socket=socket_url(), lang=lang, switch=switch
        )

    return html_answer(page)


def _is_join_code(tournament: TournamentRecord, code: str) -> bool:
    """Whether `code` is `tournament`'s join code."""
    from infra.services.join_codes import check_join_code  # noqa: PLC0415

    if not tournament.join_code_hash:
        return False
    try:
        check_join_code(tournament.join_code_hash, code)
    except KnobelcupError:
        return False
    return True


def dice_check(log: dict[str, Any]) -> str | None:
    """What a finished table's page says of its dice (docs/dice.md): verified against the
    commitment shown since the seating, or the first throw that is not; None for a table
    seated before verifiable dice."""
    from core.dice_proof import prove_table  # noqa: PLC0415

    head = log.get("dice")
    if not head:
        return None
    repeatable = "" if head.get("secret", True) else " (repeatable dice, not secret)"
    try:
        proof = prove_table(log)
    except KnobelcupError as error:
        return f"dice NOT verified: {error}{repeatable}"
    return f"dice verified ✓ ({proof.throws} throws){repeatable}"


# --- reading -------------------------------------------------------------------------


def _read_bracket(tournament: str, plan: BracketPlan) -> list[dict[int, TableRecord]]:
    """Per round, the seated ones among the tables the picture draws, by index."""
    from functions.pages.bracket_svg import DRAWN_PER_ROUND  # noqa: PLC0415

    return services().brackets.drawn_tables(tournament, plan, DRAWN_PER_ROUND)


def _names(
    tournament: str, tables: list[dict[int, TableRecord]], others: list[str] | None = None
) -> dict[str, str]:
    """Player id → name for everyone at the drawn `tables` and for `others`."""
    seated = (table for round in tables for table in round.values())
    return services().brackets.names(tournament, seated, others or ())


def _seat_names(tournament: str, players: list[dict[str, str]]) -> dict[str, str]:
    """Player id → name for a view's `players`: their names as the table item carries
    them, read for a table seated before names were stored (its names are the ids)."""
    names = {player["id"]: player["name"] for player in players}
    unnamed = [player for player, name in names.items() if name == player]
    return names | services().brackets.names(tournament, (), unnamed)


# --- building what the pages draw ----------------------------------------------------


def _picture(
    plan: BracketPlan,
    tables: list[dict[int, TableRecord]],
    tournament: TournamentRecord,
    names: dict[str, str],
) -> Picture:
    from functions.pages.bracket_svg import (  # noqa: PLC0415
        DRAWN_PER_ROUND,
        Picture,
        RoundColumn,
    )

    columns = []
    for round, seated in enumerate(tables, start=1):
        total = plan.tables_in(round)
        boxes = tuple(
            _box(plan, TableRef(round, index), seated.get(index), names)
            for index in range(min(total, DRAWN_PER_ROUND))
        )
        columns.append(RoundColumn(round, total, boxes))
    champion = tournament.champion
    return Picture(tuple(columns), names.get(champion, champion) if champion else None)


def _box(
    plan: BracketPlan, ref: TableRef, table: TableRecord | None, names: dict[str, str]
) -> TableBox:
    from functions.pages import bracket_svg as svg  # noqa: PLC0415

    successor = tuple(route.table.index for route in plan.routes(ref))
    planned = plan.seats_at(ref)
    if table is None:
        return svg.TableBox(str(ref), svg.WAITING, (), planned, successor)
    if table.bye:
        seat = svg.Seat(names.get(table.ranking[0], table.ranking[0]), svg.ON)
        return svg.TableBox(str(ref), svg.BYE, (seat,), 1, successor)
    if table.over:
        keep = plan.survivors(ref)
        seats = tuple(
            svg.Seat(names.get(p, p), svg.ON if place < keep else svg.OUT)
            for place, p in enumerate(table.ranking)
        )
        return svg.TableBox(str(ref), svg.OVER, seats, planned, successor, table.version)
    seats = tuple(svg.Seat(names.get(p, p)) for p in table.seating.seats)
    return svg.TableBox(str(ref), svg.PLAYING, seats, planned, successor, table.version)


# seat keys that count what a player has (or has against them), the first one found shown
POINTS = ("penalty_points", "score", "points", "lives", "sticks", "chips")
AT_PLAY_SHOWN = 48  # tables in play whose points the projector shows at most (a replay each)


def _at_play(picture: Picture, tables: list[dict[int, TableRecord]]) -> Picture:
    """`picture` with each table in play's points and whose turn it is (the projector's),
    from the table items already read."""
    from functions.pages import bracket_svg as svg  # noqa: PLC0415

    budget = AT_PLAY_SHOWN
    columns = []
    for column, seated in zip(picture.rounds, tables, strict=False):
        boxes = []
        for index, box in enumerate(column.drawn):
            record = seated.get(index)
            if box.state != svg.PLAYING or record is None or budget <= 0:
                boxes.append(box)
                continue
            budget -= 1
            view = services().turns.public_view(record)
            by_player = {seat.get("player"): seat for seat in view.get("seats") or []}
            seats = []
            for player, seat in zip(record.seating.seats, box.seats, strict=False):
                shown = by_player.get(player, {})
                points = next((shown[k] for k in POINTS if isinstance(shown.get(k), int)), None)
                limit = (view.get("options") or {}).get("penalty_limit")
                text = "" if points is None else f"{points}/{limit}" if limit else str(points)
                seats.append(seat._replace(points=text, to_act=player == view.get("to_act")))
            boxes.append(box._replace(seats=tuple(seats)))
        columns.append(column._replace(tables=(*boxes, *column.tables[len(boxes) :])))
    return picture._replace(rounds=tuple(columns))


def tournament_info(tournament: TournamentRecord) -> TournamentInfo:
    from functions.pages.html import TournamentInfo  # noqa: PLC0415

    return TournamentInfo(
        tournament.id,
        tournament.name,
        tournament.game,
        tournament.status,
        tournament.player_count,
        tournament.table_size,
        tournament.advance,
    )


# --- answering -----------------------------------------------------------------------


def _refresh(tournament: TournamentRecord, drawn: int) -> int | None:
    """Seconds until the bracket page reloads: none once finished; a big bracket, each
    reload of which reads up to hundreds of tables, less often."""
    if tournament.status == Status.FINISHED:
        return None
    return 3 if drawn <= 64 else 10


def html_answer(page: Callable[[], str]) -> Response[str]:
    """The page, or a small HTML page with the status for an unknown tournament or table;
    asked for with `?lang=`, the answer remembers that language in a cookie."""
    from functions.pages import html  # noqa: PLC0415
    from functions.pages.language import LANGUAGE_COOKIE  # noqa: PLC0415

    asked = _asked_language()
    cookies = []
    if asked:
        secure = router.current_event.headers.get("x-forwarded-proto") == "https"
        year = 365 * 24 * 3600
        cookies.append(Cookie(LANGUAGE_COOKIE, asked, path="/", secure=secure, max_age=year))
    try:
        return Response(200, HTML, page(), cookies=cookies)
    except NotFound as error:
        lang, _ = page_language()
        return Response(404, HTML, html.error_page(404, str(error), lang=lang), cookies=cookies)


def _asked_language() -> str:
    """The language `?lang=` asks for, '' for none of ours."""
    from core.words import LANGUAGES  # noqa: PLC0415

    asked = (router.current_event.query_string_parameters or {}).get("lang", "")
    return asked if asked in LANGUAGES else ""


def page_language(
    tournament: TournamentRecord | None = None, keep: tuple[str, ...] = ("projector",)
) -> tuple[str, str]:
    """The language a page is drawn in (`functions.pages.language.choose`) and the
    link of its switch to the other one, keeping the query parameters named in `keep`."""
    from functions.pages import language  # noqa: PLC0415

    event = router.current_event
    jar = [*(event.get("cookies") or []), *event.headers.get("cookie", "").split(";")]
    remembered = ""
    for cookie in jar:
        name, _, value = cookie.strip().partition("=")
        if name == language.LANGUAGE_COOKIE:
            remembered = value.strip()
    lang = language.choose(
        asked=_asked_language(),
        remembered=remembered,
        organizer=tournament.language if tournament is not None else "",
        accept=event.headers.get("accept-language", ""),
    )
    query = event.raw_event.get("rawQueryString") or ""
    return lang, language.switch_href(lang, query, keep)


def socket_url() -> str:
    """Where the pages' scripts connect for pushes: the WebSocket API's URL as the
    template names it (`KNOBELCUP_SOCKET_URL`), else `/ws` on the host asked, where the
    local service serves it (not on the public address: the browser asking reaches this
    host, and may not reach that one); '' (the script derives it from its page) without
    a host."""
    configured = os.environ.get("KNOBELCUP_SOCKET_URL", "")
    if configured:
        return configured
    site = _asked_url("ws")
    return "ws" + site.removeprefix("http") if site else ""


def site_url(path: str) -> str:
    """`path` as an absolute URL for links that leave this browser (QR codes, join links,
    a saved SVG file's links): on the public address the deployment names
    (`Settings.public_url`: the address phones open, whatever the projector's browser
    used), else on the host asked; '' (relative) without a plausible host."""
    public = services().public_url
    if public:
        return f"{public.rstrip('/')}/{path}"
    return _asked_url(path)


def _asked_url(path: str) -> str:
    """`path` on the host asked (the site's, which CloudFront's router names as
    `X-Forwarded-Host`: API Gateway sees its own); '' without a plausible host."""
    headers = router.current_event.headers
    host = headers.get("x-forwarded-host") or headers.get("host") or ""
    scheme = headers.get("x-forwarded-proto") or "http"  # API Gateway always sends it
    if not _HOST.fullmatch(host) or scheme not in ("http", "https"):
        return ""
    return f"{scheme}://{host}/{path}"
