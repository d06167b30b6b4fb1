"""The HTML pages: landing, bracket, one table to watch, and errors.

Pure and self-contained: CSS inline, no scripts, no external assets, so a page works
offline on the pub's screen. Every value from users passes through `esc`. Live pages
reload themselves with a meta refresh until what they show is over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from functions.api.pages.bracket_svg import (
    BYE,
    OVER,
    PLAYING,
    WAITING,
    Picture,
    RoundColumn,
    render,
)
from functions.api.pages.markup import count, esc

GAMES = {"maexchen": "Mäxchen", "mariechen": "Mariechen", "zweiundvierzig": "42 muss kommen"}
_NOT_FACTS = {"game", "version", "options", "seats", "to_act", "legal_actions", "ranking"}

CSS = """
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",
Arial,sans-serif;color:#1f2933;background:#f5f7fa}
a{color:#1d4ed8}
header{background:#1f2933;color:#fff;padding:18px 28px}
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
.round .counts{font-weight:400;color:#7b8794}
.chips{display:flex;flex-wrap:wrap;gap:6px}
.chips a{display:inline-block;padding:2px 9px;border-radius:6px;border:1px solid #c3cad3;
background:#fff;color:#1f2933;text-decoration:none;font-size:13px;font-variant-numeric:tabular-nums}
.chips a.playing{border-color:#2563eb;background:#eef4ff;color:#1d4ed8;font-weight:600}
.chips a.over{background:#f1f3f5;color:#52606d}
.chips a.waiting,.chips a.bye{border-style:dashed;color:#7b8794}
.muted{color:#7b8794}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #eef0f2;vertical-align:top}
th{font-size:12px;text-transform:uppercase;letter-spacing:.05em;color:#7b8794;font-weight:700}
tr.to-act td{background:#eef4ff;font-weight:600}
tr.on td:first-child{color:#166534;font-weight:700}
tr.out td{color:#9aa5b1}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0}
dl.facts dt{color:#7b8794}
dl.facts dd{margin:0;font-weight:600}
td.events ul{margin:0;padding-left:18px}
table.log td:not(.events){white-space:nowrap}
.hidden{color:#9aa5b1;font-style:italic}
form{display:flex;gap:8px;margin:10px 0}
input{font:inherit;padding:8px 10px;border:1px solid #c3cad3;border-radius:8px;min-width:300px}
button{font:inherit;padding:8px 16px;border:0;border-radius:8px;background:#1f2933;color:#fff}
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


def document(title: str, body: str, *, refresh: int | None = None) -> str:
    """A whole HTML page; `refresh` seconds make it reload itself."""
    meta = f'<meta http-equiv="refresh" content="{refresh}">' if refresh else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"{meta}<title>{esc(title)}</title><style>{CSS}</style></head>"
        f"<body>{body}</body></html>"
    )


def landing_page() -> str:
    """The start page: open a tournament's bracket by its id."""
    body = (
        "<header><h1>Knobelcup</h1><div class=meta>Tournaments of Mäxchen, Mariechen "
        "and 42 muss kommen</div></header><main><div class=card><h2>Watch a tournament</h2>"
        '<form method="get" action="open"><input name="tournament" required '
        'placeholder="tournament id, e.g. t-k3x9m2p7qa" aria-label="tournament id">'
        "<button>Open the bracket</button></form>"
        '<p class=muted>The API and its documentation: <a href="docs">/docs</a> '
        '(<a href="openapi.json">OpenAPI</a>).</p></div></main>'
    )
    return document("Knobelcup", body)


def error_page(status: int, message: str, *, home: str = "/") -> str:
    """A small page for a status that is not 200 (the same status goes with it)."""
    body = (
        f"<header><h1>{status}</h1><div class=meta>{esc(message)}</div></header>"
        f'<main><p><a href="{esc(home)}">Open another tournament</a></p></main>'
    )
    return document(f"{status} · Knobelcup", body)


def _header(info: TournamentInfo, title: str, extra: str = "") -> str:
    game = GAMES.get(info.game, info.game)
    return (
        f"<header><h1>{esc(title)}</h1><div class=meta>{esc(game)} · "
        f"{count(info.players, 'player')} · tables of {info.table_size}, "
        f"{info.advance} go on · <span class='badge {esc(info.status)}'>{esc(info.status)}"
        f"</span>{extra}</div></header>"
    )


def tournament_title(info: TournamentInfo) -> str:
    """The tournament's name, or its id when it has none."""
    return info.name or f"Tournament {info.id}"


def bracket_page(
    info: TournamentInfo,
    picture: Picture | None,
    *,
    champion: str | None,
    standings: Sequence[tuple[int, str]],
    refresh: int | None,
) -> str:
    """The bracket page: champion, standings, the picture, and every round's tables."""
    title = tournament_title(info)
    parts = [_header(info, title), "<main>"]
    if champion is not None:
        parts.append(
            "<section class=champion><div class=star>★</div><div><div class=label>CHAMPION"
            f"</div><div class=who>{esc(champion)}</div></div></section>"
        )
    if standings:
        rows = "".join(f'<li value="{place}">{esc(name)}</li>' for place, name in standings)
        parts.append(f"<section class=card><h2>Standings</h2><ol class=standings>{rows}</ol>")
        parts.append("</section>")
    if picture is None:
        parts.append(
            "<section class=card><h2>Not started yet</h2><p>"
            f"{count(info.players, 'player')} registered so far. The bracket appears here "
            "once the organizer starts the tournament.</p></section>"
        )
    else:
        svg = render(picture, title=f"Bracket of {title}", standalone=False, shrink=0.75)
        parts.append(f"<section class=picture>{svg}</section>")
        parts.append("<section class=card><h2>Rounds</h2>")
        parts.extend(_round_list(column, column is picture.rounds[-1]) for column in picture.rounds)
        parts.append("</section>")
    if refresh:
        parts.append(f"<p class=muted>This page updates itself every {refresh} seconds.</p>")
    parts.append('<p class=muted><a href="../../">Knobelcup</a></p></main>')
    return document(f"{title} · bracket", "".join(parts), refresh=refresh)


def _round_list(column: RoundColumn, final: bool) -> str:
    states = [table.state for table in column.drawn]
    counts = [
        f"{states.count(state):,} {word}"
        for state, word in ((PLAYING, "playing"), (OVER, "over"), (WAITING, "waiting"))
        if states.count(state)
    ]
    if states.count(BYE):
        counts.append(count(states.count(BYE), "bye"))
    shown = len(column.drawn)
    if column.total > shown:
        counts.append(f"the first {shown:,} of {column.total:,} shown")
    name = "Final" if final else f"Round {column.number}"
    chips = "".join(
        f'<a class="{esc(t.state)}" href="tables/{esc(t.ref)}/watch" '
        f'title="{esc(", ".join(s.name for s in t.seats) or t.state)}">{esc(t.ref)}</a>'
        for t in column.drawn
    )
    return (
        f"<div class=round><h3>{name} <span class=counts>· {count(column.total, 'table')}"
        f"{' · ' if counts else ''}{esc(' · '.join(counts))}</span></h3>"
        f"<div class=chips>{chips}</div></div>"
    )


def watch_page(
    info: TournamentInfo,
    ref: str,
    *,
    view: Mapping[str, Any],
    over: bool,
    records: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
) -> str:
    """One table: the spectator view and the audit log, readable."""
    title = f"{ref} · {tournament_title(info)}"
    state = OVER if over else PLAYING
    to_act = view.get("to_act")
    line = (
        "over"
        if over
        else f"{esc(names.get(to_act, to_act))} to act"
        if to_act
        else "waiting for the dice"
    )
    parts = [
        _header(info, title, " · <a href='../../bracket'>← bracket</a>"),
        "<main><section class=card>",
        f"<h2>{esc(ref)} <span class='badge {state}'>{state}</span> "
        f"<span class=muted>· turn {esc(view.get('version', 0))} · {line}</span></h2>",
        _seats(view, names),
        "</section>",
        _facts(view, names),
        _log(records, names),
        "</main>",
    ]
    return document(title, "".join(parts), refresh=None if over else 3)


def pending_table_page(
    info: TournamentInfo, ref: str, *, feeders: Sequence[str], bye: str | None
) -> str:
    """A table not seated yet (waiting for its feeders), or a bye."""
    title = f"{ref} · {tournament_title(info)}"
    if bye is not None:
        text = f"{esc(bye)} goes on to the next round without playing (a bye)."
    else:
        text = f"This table is seated once {esc(', '.join(feeders))} are over."
    state = BYE if bye is not None else WAITING
    body = (
        _header(info, title, " · <a href='../../bracket'>← bracket</a>")
        + f"<main><section class=card><h2>{esc(ref)} <span class='badge {state}'>{state}"
        f"</span></h2><p>{text}</p></section></main>"
    )
    return document(title, body, refresh=None if bye is not None else 3)


def _seats(view: Mapping[str, Any], names: Mapping[str, str]) -> str:
    seats: list[Mapping[str, Any]] = list(view.get("seats") or [])
    if not seats:
        return ""
    keys = [key for key in seats[0] if key != "player"]
    ranking = list(view.get("ranking") or [])
    survivors = int(view.get("survivors") or 0)
    head = ("<th>place</th>" if ranking else "") + "<th>player</th>"
    head += "".join(f"<th>{esc(key.replace('_', ' '))}</th>" for key in keys)
    rows = []
    ordered = sorted(seats, key=lambda s: ranking.index(s["player"])) if ranking else seats
    for seat in ordered:
        player = seat["player"]
        kind = "to-act" if player == view.get("to_act") else ""
        place = ""
        if ranking:
            position = ranking.index(player) + 1
            kind = "on" if position <= survivors else "out"
            place = f"<td>{position}</td>"
        cells = "".join(f"<td>{esc(_show(seat[key], names))}</td>" for key in keys)
        rows.append(f"<tr class='{kind}'>{place}<td>{esc(names.get(player, player))}</td>{cells}")
    return f"<table class=seats><tr>{head}</tr>{''.join(rows)}</table>"


def _facts(view: Mapping[str, Any], names: Mapping[str, str]) -> str:
    facts = [(key, value) for key, value in view.items() if key not in _NOT_FACTS]
    options = view.get("options") or {}
    if options:
        facts.append(("rules", options))
    if not facts:
        return ""
    items = "".join(
        f"<dt>{esc(key.replace('_', ' '))}</dt><dd>{esc(_show(value, names))}</dd>"
        for key, value in facts
    )
    return f"<section class=card><h2>At the table</h2><dl class=facts>{items}</dl></section>"


def _log(records: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> str:
    revealed = any("dice" in record for record in records)
    head = "<th>turn</th><th>player</th><th>action</th>"
    head += "<th>dice</th>" if revealed else ""
    rows = []
    for record in reversed(records):
        player = record.get("player")
        action = record.get("action")
        dice = f"<td>{esc(_show(record.get('dice'), names))}</td>" if revealed else ""
        events = "".join(f"<li>{_event(e, names)}</li>" for e in record.get("events") or [])
        rows.append(
            f"<tr><td>{esc(record.get('version'))}</td>"
            f"<td>{esc(names.get(player, player) if player else '—')}</td>"
            f"<td>{esc(_action(action))}</td>{dice}"
            f"<td class=events><ul>{events}</ul></td></tr>"
        )
    note = (
        "Every throw is shown: the table is over."
        if revealed
        else "Dice under the cup stay hidden until the table is over."
    )
    return (
        f"<section class=card><h2>Log</h2><p class=muted>{note}</p>"
        f"<table class=log><tr>{head}<th>what happened</th></tr>{''.join(rows)}</table></section>"
    )


def _action(action: Mapping[str, Any] | None) -> str:
    if action is None:
        return "seated"
    words = [str(action.get("kind", "")).replace("_", " ")]
    words += [str(value) for key, value in action.items() if key != "kind"]
    return " ".join(words)


def _event(event: Mapping[str, Any], names: Mapping[str, str]) -> str:
    kind = str(event.get("type", ""))
    words = "".join(f" {c.lower()}" if c.isupper() else c for c in kind).strip().capitalize()
    fields = []
    for key, value in event.items():
        if key == "type":
            continue
        if key == "dice" and value is None:
            fields.append("dice <span class=hidden>hidden</span>")
            continue
        fields.append(f"{esc(key.replace('_', ' '))} <b>{esc(_show(value, names))}</b>")
    return f"{esc(words)}: " + ", ".join(fields) if fields else esc(words)


def _show(value: Any, names: Mapping[str, str]) -> str:
    """A view's or event's value in words, players by name."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list | tuple):
        return ", ".join(_show(v, names) for v in value) or "—"
    if isinstance(value, dict):
        return "; ".join(f"{k.replace('_', ' ')}: {_show(v, names)}" for k, v in value.items())
    return str(value)
