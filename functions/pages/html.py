"""The HTML pages: landing, bracket and errors, and the frame every page shares.

Pure and self-contained: CSS inline, scripts only from the service itself (`assets/`),
nothing from elsewhere, so a page works offline on the pub's screen. Every value from
users passes through `esc` (or `json_data` for what a script reads). Live pages update in
place from their scripts; without scripts they reload themselves until what they show is
over (a meta refresh inside `<noscript>`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple

from core.registry import game_title
from core.words import count, for_scripts, number, say
from functions.pages.bracket_svg import (
    BYE,
    OVER,
    PLAYING,
    WAITING,
    Picture,
    RoundColumn,
    render,
)
from functions.pages.language import other
from functions.pages.live_css import LIVE_CSS
from functions.pages.markup import esc

CSS = """
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",
Arial,sans-serif;color:#1f2933;background:#f5f7fa}
a{color:#1d4ed8}
header{background:#1f2933;color:#fff;padding:18px 120px 18px 28px}
.lang-switch{position:absolute;top:10px;right:12px;z-index:2;display:inline-block;
min-height:24px;padding:4px 12px;border-radius:8px;background:#fff;color:#1f2933;font-weight:700;
text-decoration:none;border:2px solid #1f2933}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid #f59e0b;
outline-offset:2px;box-shadow:0 0 0 5px #1f2933}
header h1{margin:0;font-size:28px;font-weight:750}
header .meta{color:#cbd2d9;margin-top:4px}
header a{color:#9fc1ff}
main{padding:20px 28px 40px}
h2{font-size:17px;margin:0 0 10px}
.badge{display:inline-block;padding:1px 10px;border-radius:999px;font-size:12px;font-weight:700;
text-transform:uppercase;letter-spacing:.06em;vertical-align:middle;background:#e4e7eb;color:#323f4b}
.badge.running,.badge.playing{background:#dbeafe;color:#1d4ed8}
.badge.finished,.badge.over{background:#fef3c7;color:#92400e}
.badge.open{background:#dcfce7;color:#166534}
.champion{display:flex;align-items:center;gap:18px;background:linear-gradient(#fff8dc,#fdeeb8);
border:2px solid #d4a017;border-radius:12px;padding:14px 24px;margin:0 0 18px}
.champion .star{font-size:46px;color:#d4a017;line-height:1}
.champion .label{font-size:12px;font-weight:800;letter-spacing:.12em;color:#a16207}
.champion .who{font-size:32px;font-weight:800;color:#7c4a03}
.card{background:#fff;border:1px solid #e4e7eb;border-radius:10px;padding:14px 18px;
margin:0 0 18px}
.picture{overflow:auto;border:1px solid #e4e7eb;border-radius:10px;margin:0 0 18px;
background:#f5f7fa}
.picture svg{display:block}
ol.standings{margin:0;padding-left:26px;columns:2;column-gap:40px}
ol.standings li:first-child{font-weight:700;color:#a16207}
.round{margin:0 0 12px}
.round h3{font-size:14px;margin:0 0 6px}
.round .counts{font-weight:400;color:#52606d}
.chips{display:flex;flex-wrap:wrap;gap:6px}
.chips a{display:inline-block;padding:2px 9px;border-radius:6px;border:1px solid #c3cad3;
background:#fff;color:#1f2933;text-decoration:none;font-size:13px;font-variant-numeric:tabular-nums}
.chips a.playing{border-color:#2563eb;background:#eef4ff;color:#1d4ed8;font-weight:600}
.chips a.over{background:#f1f3f5;color:#52606d}
.chips a.waiting,.chips a.bye{border-style:dashed;color:#52606d}
.muted{color:#52606d}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #eef0f2;vertical-align:top}
th{font-size:12px;text-transform:uppercase;letter-spacing:.05em;color:#52606d;font-weight:700}
tr.to-act td{background:#eef4ff;font-weight:600}
tr.on td:first-child{color:#166534;font-weight:700}
tr.out td{color:#616e7c}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0}
dl.facts dt{color:#52606d}
dl.facts dd{margin:0;font-weight:600}
td.events ul{margin:0;padding-left:18px}
table.log td:not(.events){white-space:nowrap}
.hidden{color:#616e7c;font-style:italic}
form{display:flex;flex-wrap:wrap;gap:8px;margin:10px 0}
input{font:inherit;padding:8px 10px;border:1px solid #c3cad3;border-radius:8px;min-width:0;
flex:1 1 220px}
button{font:inherit;padding:8px 16px;border:0;border-radius:8px;background:#1f2933;color:#fff}
header h1,.card h2,.who{overflow-wrap:anywhere}
@media (max-width:600px){header{padding:14px 110px 14px 16px}header h1{font-size:23px}
main{padding:14px 10px 30px}.card{padding:12px 12px}ol.standings{columns:1}
.champion{padding:10px 14px}.champion .who{font-size:26px}}
"""


class TournamentInfo(NamedTuple):
    """What a page's header says about the tournament."""

    id: str
    name: str
    game: str
    status: str
    players: int
    table_size: int
    advance: int


def document(
    title: str,
    body: str,
    *,
    refresh: int | None = None,
    scripts: Sequence[str] = (),
    root: str = "",
    css: str = "",
    body_class: str = "",
    lang: str = "en",
    switch: str = "",
) -> str:
    """A whole HTML page (`css` added to the shared style, `body_class` on its body).
    `scripts` are names in the service's `assets/`, reached through `root` (the way from
    the page's URL to the site's root, e.g. "../../"); `refresh` seconds make it reload
    itself where scripts do not run. `lang`: the page's language (`<html lang>`), with a
    link to the other one (`switch`, by default `?lang=<other>`) and the catalogue's words
    for the scripts (`#words`)."""
    meta = (
        f'<noscript><meta http-equiv="refresh" content="{refresh}"></noscript>' if refresh else ""
    )
    tags = "".join(
        f'<script src="{esc(root)}assets/{esc(name)}" defer></script>' for name in scripts
    )
    offered = other(lang)
    link = (
        f'<a class=lang-switch href="{esc(switch or "?lang=" + offered)}" hreflang={offered} '
        f'lang={offered} title="{esc(say(lang, "language.switch_label"))}">'
        f"{esc(say(lang, 'language.switch'))}</a>"
    )
    words = json_data("words", for_scripts(lang)) if scripts else ""
    return (
        f'<!doctype html><html lang="{esc(lang)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        # no icon: a browser would otherwise ask every phone's first visit for /favicon.ico
        '<link rel="icon" href="data:,">'
        f"{meta}<title>{esc(title)}</title><style>{CSS}{LIVE_CSS}{css}</style>{tags}</head>"
        f"<body{f' class={esc(body_class)}' if body_class else ''}>{link}{body}{words}"
        "</body></html>"
    )


def json_data(element_id: str, value: object) -> str:
    """`value` as JSON in a `<script type="application/json">` a page's script reads:
    `<`, `>` and `&` escaped, so no text in it can end the element or open another."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f'<script type="application/json" id="{esc(element_id)}">{text}</script>'


def landing_page(lang: str = "en", switch: str = "") -> str:
    """The start page: play in a tournament, or watch its bracket, by its id."""
    body = (
        f"<header><h1>Knobelcup</h1><div class=meta>{esc(say(lang, 'site.tagline'))}</div>"
        f"</header><main><div class=card><h2>{esc(say(lang, 'site.play_or_watch'))}</h2>"
        '<form method="get" action="open"><input name="tournament" required '
        f'placeholder="{esc(say(lang, "site.tournament_id_example"))}" '
        f'aria-label="{esc(say(lang, "site.tournament_id"))}">'
        f'<button name="to" value="play">{esc(say(lang, "site.play"))}</button>'
        f"<button>{esc(say(lang, 'site.open_bracket'))}</button></form>"
        f"<p class=muted>{esc(say(lang, 'site.scan_instead'))}</p>"
        f'<p class=muted>{esc(say(lang, "site.api"))} <a href="docs">/docs</a> '
        '(<a href="openapi.json">OpenAPI</a>).</p></div></main>'
    )
    return document("Knobelcup", body, lang=lang, switch=switch)


def error_page(status: int, message: str, *, home: str = "/", lang: str = "en") -> str:
    """A small page for a status that is not 200 (the same status goes with it)."""
    body = (
        f"<header><h1>{status}</h1><div class=meta>{esc(message)}</div></header>"
        f'<main><p><a href="{esc(home)}">{esc(say(lang, "site.another"))}</a></p></main>'
    )
    return document(f"{status} · Knobelcup", body, lang=lang)


def status_word(status: str, lang: str) -> str:
    """A tournament's status in words ("running", "läuft")."""
    key = f"status.{status}"
    return say(lang, key) if key in STATUS_KEYS else status


STATUS_KEYS = frozenset(
    f"status.{s}"
    for s in ("draft", "open", "closed", "starting", "running", "finished", "cancelled")
)


def header(info: TournamentInfo, title: str, extra: str = "", lang: str = "en") -> str:
    """The dark bar on top: the title, the game, the numbers and the status (the
    `players` and `status` spans are kept current by the live pages' script)."""
    game = game_title(info.game)
    tables = say(lang, "tournament.tables", size=info.table_size, advance=info.advance)
    return (
        f"<header><h1>{esc(title)}</h1><div class=meta>{esc(game)} · "
        f"<span class=players>{esc(count(lang, info.players, 'players'))}</span> · "
        f"{esc(tables)} · <span class='badge {esc(info.status)}' data-status="
        f"'{esc(info.status)}'>{esc(status_word(info.status, lang))}"
        f"</span>{extra}</div></header>"
    )


def tournament_title(info: TournamentInfo, lang: str = "en") -> str:
    """The tournament's name, or its id when it has none."""
    return info.name or say(lang, "tournament.unnamed", id=info.id)


def bracket_page(
    info: TournamentInfo,
    picture: Picture | None,
    *,
    champion: str | None,
    standings: Sequence[tuple[int, str]],
    refresh: int | None,
    socket: str = "",
    lang: str = "en",
    switch: str = "",
) -> str:
    """The bracket page: champion, standings, every round's tables and the picture. It
    updates in place every `refresh` seconds (and at once when the tournament finishes,
    pushed over the WebSocket at `socket`) until the tournament is finished."""
    title = tournament_title(info, lang)
    projector = f'<a href="bracket?projector=1">{esc(say(lang, "link.projector"))}</a>'
    links = (
        f' · <a href="play">{esc(say(lang, "link.play"))}</a> · {projector}'
        if info.status != "finished"
        else f" · {projector}"
    )
    parts = [header(info, title, links, lang), live_main(info.id, refresh, socket)]
    if champion is not None:
        parts.append(
            "<section class=champion><div class=star aria-hidden=true>★</div><div>"
            f"<div class=label>{esc(say(lang, 'bracket.champion').upper())}"
            f"</div><div class=who>{esc(champion)}</div></div></section>"
        )
    if standings:
        rows = "".join(f'<li value="{place}">{esc(name)}</li>' for place, name in standings)
        parts.append(
            f"<section class=card><h2>{esc(say(lang, 'bracket.standings'))}</h2>"
            f"<ol class=standings>{rows}</ol></section>"
        )
    if picture is None:
        registered = say(lang, "bracket.registered", players=count(lang, info.players, "players"))
        parts.append(
            f"<section class=card><h2>{esc(say(lang, 'bracket.not_started'))}</h2>"
            f"<p>{esc(registered)}</p></section>"
        )
    else:
        parts.append(f"<section class=card><h2>{esc(say(lang, 'bracket.rounds'))}</h2>")
        parts.extend(
            _round_list(column, column is picture.rounds[-1], lang) for column in picture.rounds
        )
        parts.append("</section>")
        svg = render(
            picture,
            title=say(lang, "bracket.picture", title=title),
            standalone=False,
            shrink=0.9,
            lang=lang,
        )
        parts.append(f"<section class=picture>{svg}</section>")
    if refresh:
        parts.append(f"<p class=muted>{esc(say(lang, 'bracket.follows'))}</p>")
    parts.append('<p class=muted><a href="../../">Knobelcup</a></p></main>')
    return document(
        say(lang, "bracket.title", title=title),
        "".join(parts),
        refresh=refresh,
        scripts=["live.js", "bracket.js"],
        root="../../",
        lang=lang,
        switch=switch,
    )


def live_main(tournament: str, refresh: int | None, socket: str, *, narrow: bool = False) -> str:
    """The `<main>` a live page's script swaps in place: how often to read the page
    again (none: it is final), and where the tournament's pushes come from; `narrow`
    keeps a page of one table readable on a wide screen."""
    every = f' data-refresh="{refresh}"' if refresh else ""
    kind = " class=narrow" if narrow else ""
    return (
        f'<main id=live{kind} data-tournament="{esc(tournament)}" '
        f'data-socket="{esc(socket)}"{every}>'
    )


def _round_list(column: RoundColumn, final: bool, lang: str = "en") -> str:
    states = [table.state for table in column.drawn]
    counts = [
        count(lang, states.count(state), f"in_{state}")
        for state in (PLAYING, OVER, WAITING)
        if states.count(state)
    ]
    if states.count(BYE):
        counts.append(count(lang, states.count(BYE), "byes"))
    shown = len(column.drawn)
    if column.total > shown:
        counts.append(
            say(
                lang,
                "bracket.first_shown",
                shown=number(lang, shown),
                total=number(lang, column.total),
            )
        )
    name = say(lang, "bracket.final") if final else say(lang, "bracket.round", number=column.number)
    chips = "".join(
        f'<a class="{esc(t.state)}" href="tables/{esc(t.ref)}/watch" '
        f'title="{esc(", ".join(s.name for s in t.seats) or say(lang, "state." + t.state))}">'
        f"{esc(t.ref)}</a>"
        for t in column.drawn
    )
    return (
        f"<div class=round><h3>{esc(name)} <span class=counts>· "
        f"{esc(count(lang, column.total, 'tables'))}"
        f"{' · ' if counts else ''}{esc(' · '.join(counts))}</span></h3>"
        f"<div class=chips>{chips}</div></div>"
    )
