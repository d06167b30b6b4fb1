"""The bracket for a projector in the pub (`bracket?projector=1`): one 1920×1080 screen,
large type, the QR code to the play page on the left, the rounds side by side and the
standings; no scrolling, whatever the tournament's size (what does not fit is counted).

Pure like the other pages: the route hands in the picture, the standings and the QR
code (an SVG made by `functions.api.pages.qr`).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import ceil

from core.registry import game_title
from functions.api.pages.bracket_svg import OUT, PLAYING, Picture, RoundColumn, TableBox
from functions.api.pages.html import (
    TournamentInfo,
    document,
    live_main,
    tournament_title,
)
from functions.api.pages.markup import count, esc

BOARD_HEIGHT = 900  # px the round columns may fill below their headings
SLOTS = 6  # card columns side by side on the board
CARD_TOP = 56  # a card's title line and padding
NAME_ROW = 31  # two names a row
STANDINGS_SHOWN = 10

CSS = """
body.projector{background:#111827;color:#f9fafb;font-size:20px;overflow:hidden}
.projector a{color:inherit;text-decoration:none}
.projector main{display:grid;grid-template-columns:440px 1fr;gap:28px;height:100vh;
box-sizing:border-box;padding:24px 28px}
.join{display:flex;flex-direction:column;gap:10px;min-width:0}
.join h1{font-size:40px;line-height:1.1;margin:0;overflow-wrap:anywhere}
.join .game{font-size:20px;color:#d1d5db}
.join .qr{background:#fff;border-radius:14px;padding:14px;width:340px;height:340px}
.join .qr svg{width:100%;height:100%;display:block}
.join .scan{font-size:30px;font-weight:800;margin:0}
.join .url{font-size:18px;color:#d1d5db;margin:0;overflow-wrap:anywhere}
.standings h2,.round h2{font-size:22px;margin:0 0 8px;color:#fcd34d}
.standings ol{margin:0;padding:0;list-style:none;font-size:22px}
.standings li{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.standings li b{display:inline-block;min-width:40px;color:#fcd34d}
.standings .stat{font-size:20px;margin:2px 0}
.board{display:flex;flex-direction:column;gap:14px;min-width:0}
.crown{display:flex;gap:18px;align-items:center;background:#fcd34d;color:#451a03;
border-radius:14px;padding:10px 24px;font-size:24px;font-weight:700}
.crown .who{font-size:44px;font-weight:900;overflow-wrap:anywhere}
.rounds{display:flex;gap:16px;min-height:0;flex:1}
.round{min-width:0;display:flex;flex-direction:column}
.round h2 .sub{color:#d1d5db;font-weight:400;font-size:18px}
.cards{display:grid;gap:10px;align-content:start}
.tbl{display:block;background:#1f2937;border:2px solid #374151;border-radius:10px;
padding:6px 10px 8px;min-width:0}
.tbl.playing{border-color:#60a5fa;background:#1e3a5f}
.tbl.final{border-color:#fcd34d}
.tbl .head{display:flex;justify-content:space-between;font-weight:800;font-size:22px}
.tbl .state{font-weight:400;color:#d1d5db;font-size:16px}
.tbl .names{display:grid;grid-template-columns:1fr 1fr;gap:0 10px;font-size:21px}
.tbl .names span{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.tbl .on{color:#86efac;font-weight:700}
.tbl .out{color:#9ca3af;text-decoration:line-through}
.round .more{font-size:18px;color:#d1d5db;margin-top:8px}
"""


def projector_page(
    info: TournamentInfo,
    picture: Picture | None,
    *,
    champion: str | None,
    standings: Sequence[tuple[int, str]],
    qr: str,
    play_url: str,
    refresh: int | None,
    socket: str,
) -> str:
    """The whole screen: how to join, the rounds, the standings."""
    title = tournament_title(info)
    game = game_title(info.game)
    joining = info.status in ("created", "open")
    call = (
        "Scan to join and play"
        if joining
        else "Scan for your place"
        if info.status == "finished"
        else "Scan to play your table"
    )
    aside = (
        f"<aside class=join><h1>{esc(title)}</h1>"
        f"<div class=game>{esc(game)} · {count(info.players, 'player')} · "
        f"{esc(info.status)}</div>"
        f"<div class=qr>{qr}</div><p class=scan>{call}</p>"
        f"<p class=url>{esc(play_url)}</p>{_standings(info, picture, standings)}</aside>"
    )
    board = ["<section class=board>"]
    if champion is not None:
        board.append(f"<div class=crown>★ Champion <span class=who>{esc(champion)}</span></div>")
    if picture is None:
        board.append(
            f"<div class=round><h2>Not started yet</h2><p>{count(info.players, 'player')} "
            "registered so far: scan the code to join.</p></div>"
        )
    else:
        board.append(_rounds(picture, crowned=champion is not None))
    board.append("</section>")
    body = live_main(info.id, refresh, socket) + aside + "".join(board) + "</main>"
    return document(
        f"{title} · projector",
        body,
        refresh=refresh,
        scripts=["live.js", "bracket.js"],
        root="../../",
        css=CSS,
        body_class="projector",
    )


def _standings(
    info: TournamentInfo, picture: Picture | None, standings: Sequence[tuple[int, str]]
) -> str:
    if standings:
        rows = "".join(
            f"<li><b>{place}.</b> {esc(name)}</li>" for place, name in standings[:STANDINGS_SHOWN]
        )
        return f"<div class=standings><h2>Standings</h2><ol>{rows}</ol></div>"
    if picture is None:
        return ""
    tables = [table for column in picture.rounds for table in column.drawn]
    out = sum(1 for table in tables for seat in table.seats if seat.fate == OUT)
    playing = sum(1 for table in tables if table.state == PLAYING)
    current = max((c.number for c in picture.rounds if _started(c)), default=1)
    return (
        "<div class=standings><h2>Standings</h2>"
        f"<p class=stat>{info.players - out:,} of {count(info.players, 'player')} still in</p>"
        f"<p class=stat>{count(playing, 'table')} playing</p>"
        f"<p class=stat>round {current} of {len(picture.rounds)}</p></div>"
    )


def _started(column: RoundColumn) -> bool:
    return any(table.state != "waiting" for table in column.drawn)


def _rounds(picture: Picture, *, crowned: bool) -> str:
    """The rounds side by side: each gets card columns by how many tables it has; the
    earliest rounds give way when there are more rounds than columns."""
    columns = list(picture.rounds[-SLOTS:])
    name_rows = max((ceil(t.planned / 2) for c in columns for t in c.drawn), default=1)
    height = BOARD_HEIGHT - (110 if crowned else 0)
    per_slot = max(1, height // (CARD_TOP + NAME_ROW * name_rows))
    slots = [1] * len(columns)
    while sum(slots) < SLOTS:
        wanting = [i for i, c in enumerate(columns) if len(c.drawn) > slots[i] * per_slot]
        if not wanting:
            break
        slots[max(wanting, key=lambda i: len(columns[i].drawn) / slots[i])] += 1
    skipped = len(picture.rounds) - len(columns)
    parts = ["<div class=rounds>"]
    for index, (column, width) in enumerate(zip(columns, slots, strict=True)):
        final = column is picture.rounds[-1]
        earlier = skipped if index == 0 else 0
        parts.append(_round(column, width, width * per_slot, final, earlier))
    parts.append("</div>")
    return "".join(parts)


def _round(column: RoundColumn, slots: int, room: int, final: bool, skipped: int) -> str:
    tables = sorted(column.drawn, key=lambda t: t.state != PLAYING)[:room]
    tables.sort(key=column.drawn.index)
    hidden = column.total - len(tables)
    name = "Final" if final else f"Round {column.number}"
    note = f" <span class=sub>(rounds 1–{skipped} over)</span>" if skipped and not final else ""
    cards = "".join(_card(table, final) for table in tables)
    more = f"<div class=more>… and {count(hidden, 'more table')}</div>" if hidden else ""
    return (
        f'<div class=round style="flex:{slots} 1 0"><h2>{name} <span class=sub>· '
        f"{count(column.total, 'table')}</span>{note}</h2>"
        f'<div class=cards style="grid-template-columns:repeat({slots},minmax(0,1fr))">'
        f"{cards}</div>{more}</div>"
    )


def _card(table: TableBox, final: bool) -> str:
    names = "".join(
        f"<span class={seat.fate or 'in'}>{esc(seat.name)}</span>" for seat in table.seats
    )
    if not table.seats:
        names = f"<span class=in>{count(table.planned, 'seat')}</span>"
    kind = f"tbl {esc(table.state)}{' final' if final else ''}"
    return (
        f'<a class="{kind}" href="tables/{esc(table.ref)}/watch"><div class=head>'
        f"<span>{esc(table.ref)}</span><span class=state>{esc(table.state)}</span></div>"
        f"<div class=names>{names}</div></a>"
    )
