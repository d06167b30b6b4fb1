"""The bracket for a projector in the pub (`bracket?projector=1`): one 1920×1080 screen,
large type, the QR code to the play page on the left, the rounds side by side and the
standings; no scrolling, whatever the tournament's size (what does not fit is counted).

Pure like the other pages: the route hands in the picture, the standings and the QR
code (an SVG made by `functions.pages.qr`).
"""

from __future__ import annotations

from collections.abc import Sequence

from core.registry import game_title
from core.words import count, number, say
from functions.pages.bracket_svg import OUT, PLAYING, Picture, RoundColumn, TableBox
from functions.pages.html import (
    TournamentInfo,
    document,
    live_main,
    status_word,
    tournament_title,
)
from functions.pages.markup import esc

STATES = ("waiting", "playing", "over", "bye")
BOARD_HEIGHT = 900  # px the round columns may fill below their headings
SLOTS = 6  # card columns side by side on the board
CARD_TOP = 62  # a card's title line and padding
NAME_ROW = 44  # one name a row, in 32 px type: readable across the room
STANDINGS_SHOWN = 10
GROWTH = 1.4  # how much larger than the least the cards' type may grow where room is
PODIUM_HEIGHT = 330  # the top places, large, once the tournament is finished

CSS = """
body.projector{background:#111827;color:#f9fafb;font-size:20px;overflow:hidden}
.projector a{color:inherit;text-decoration:none}
.projector main{display:grid;grid-template-columns:440px 1fr;gap:28px;height:100vh;
box-sizing:border-box;padding:24px 28px}
.join{display:flex;flex-direction:column;gap:10px;min-width:0}
.join h1{font-size:44px;line-height:1.1;margin:0;overflow-wrap:anywhere}
.join .game{font-size:26px;color:#e5e7eb}
.join .qr{background:#fff;border-radius:14px;padding:14px;width:320px;height:320px}
.join .qr svg{width:100%;height:100%;display:block}
.join .scan{font-size:34px;font-weight:800;margin:0}
.join .url{font-size:20px;color:#e5e7eb;margin:0;overflow-wrap:anywhere}
.standings h2,.round h2{font-size:30px;margin:0 0 8px;color:#fcd34d}
.standings ol{margin:0;padding:0;list-style:none;font-size:32px}
.standings li{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.standings li b{display:inline-block;min-width:56px;color:#fcd34d}
.standings .stat{font-size:30px;margin:4px 0}
.board{display:flex;flex-direction:column;gap:14px;min-width:0}
.crown{display:flex;gap:24px;align-items:center;background:#fcd34d;color:#451a03;
border-radius:14px;padding:10px 28px;font-size:36px;font-weight:700}
.crown .who{font-size:72px;font-weight:900;overflow-wrap:anywhere;line-height:1.1}
.podium ol{columns:2;column-gap:40px;font-size:36px}
.podium li{line-height:1.45}
.podium li:nth-child(-n+3){font-size:44px;font-weight:800}
.podium li:first-child{color:#fcd34d}
.rounds{display:flex;gap:16px;min-height:0;flex:1}
.round{min-width:0;display:flex;flex-direction:column}
.round h2{white-space:nowrap;margin:0}
.round .sub{color:#e5e7eb;font-size:24px;margin:0 0 8px;white-space:nowrap}
.round .sub .over{white-space:normal}
.cards{display:grid;gap:10px;align-content:start}
.tbl{display:block;background:#1f2937;border:2px solid #374151;border-radius:10px;
padding:6px 10px 8px;min-width:0}
.tbl.playing{border-color:#60a5fa;background:#1e3a5f}
.tbl.final{border-color:#fcd34d}
.tbl .head{display:flex;justify-content:space-between;gap:8px;font-weight:800;
font-size:calc(28px * var(--s, 1))}
.tbl .state{font-weight:400;color:#e5e7eb;font-size:22px;white-space:nowrap}
.tbl .names{display:grid;grid-template-columns:1fr;font-size:calc(32px * var(--s, 1));
line-height:calc(44px * var(--s, 1))}
.tbl .names>span{display:flex;gap:8px;justify-content:space-between;border-radius:6px;
padding:0 6px;margin:0 -6px}
.tbl .names .n{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;min-width:0}
.tbl .names .pts{font-variant-numeric:tabular-nums;color:#fde68a;flex:none}
.tbl .names .act{background:#fcd34d;color:#111827;font-weight:800}
.tbl .names .act .pts{color:#111827}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.tbl .on{color:#86efac;font-weight:700}
.tbl .out{color:#b8bfca;text-decoration:line-through}
.projector .lang-switch{font-size:20px;color:#1f2933;top:auto;right:auto;bottom:14px;left:28px}
.round .more{font-size:24px;color:#e5e7eb;margin-top:8px}
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
    lang: str = "en",
    switch: str = "",
) -> str:
    """The whole screen: how to join, the rounds, the standings; once finished, the
    champion and the top places large above the last rounds."""
    title = tournament_title(info, lang)
    game = game_title(info.game)
    joining = info.status in ("draft", "created", "open")
    call = say(
        lang,
        "projector.scan_join"
        if joining
        else "projector.scan_place"
        if info.status == "finished"
        else "projector.scan_play",
    )
    crowned = champion is not None
    aside = (
        f"<aside class=join><h1>{esc(title)}</h1>"
        f"<div class=game>{esc(game)} · <span class=players>"
        f"{esc(count(lang, info.players, 'players'))}</span> · "
        f"<span data-status='{esc(info.status)}'>{esc(status_word(info.status, lang))}</span>"
        f"</div><div class=qr aria-hidden=true>{qr}</div><p class=scan>{esc(call)}</p>"
        f"<p class=url>{esc(play_url)}</p>"
        f"{'' if crowned else _standings(info, picture, standings, lang)}</aside>"
    )
    board = ["<section class=board>"]
    if crowned:
        board.append(
            f"<div class=crown><span aria-hidden=true>★</span> "
            f"{esc(say(lang, 'bracket.champion'))} <span class=who>{esc(champion)}</span></div>"
        )
        board.append(_podium(standings, lang))
    if picture is None:
        registered = say(lang, "projector.registered", players=count(lang, info.players, "players"))
        board.append(
            f"<div class=round><h2>{esc(say(lang, 'bracket.not_started'))}</h2>"
            f"<p class=stat>{esc(registered)}</p></div>"
        )
    else:
        board.append(_rounds(picture, crowned=crowned, lang=lang))
    board.append("</section>")
    body = live_main(info.id, refresh, socket) + aside + "".join(board) + "</main>"
    return document(
        say(lang, "projector.title", title=title),
        body,
        refresh=refresh,
        scripts=["live.js", "bracket.js"],
        root="../../",
        css=CSS,
        body_class="projector",
        lang=lang,
        switch=switch,
    )


def _podium(standings: Sequence[tuple[int, str]], lang: str) -> str:
    """The top places, large: the first three larger still."""
    rows = "".join(
        f"<li><b>{place}.</b> {esc(name)}</li>" for place, name in standings[:STANDINGS_SHOWN]
    )
    return (
        f"<div class='standings podium'><h2>{esc(say(lang, 'bracket.standings'))}</h2>"
        f"<ol>{rows}</ol></div>"
    )


def _standings(
    info: TournamentInfo,
    picture: Picture | None,
    standings: Sequence[tuple[int, str]],
    lang: str = "en",
) -> str:
    heading = f"<h2>{esc(say(lang, 'bracket.standings'))}</h2>"
    if standings:
        rows = "".join(
            f"<li><b>{place}.</b> {esc(name)}</li>" for place, name in standings[:STANDINGS_SHOWN]
        )
        return f"<div class=standings>{heading}<ol>{rows}</ol></div>"
    if picture is None:
        return ""
    tables = [table for column in picture.rounds for table in column.drawn]
    out = sum(1 for table in tables for seat in table.seats if seat.fate == OUT)
    playing = sum(1 for table in tables if table.state == PLAYING)
    current = max((c.number for c in picture.rounds if _started(c)), default=1)
    left = number(lang, info.players - out)
    players = count(lang, info.players, "players")
    in_play = count(lang, playing, "tables")
    stats = (
        say(lang, "projector.still_in", left=left, players=players),
        say(lang, "projector.tables_playing", tables=in_play),
        say(lang, "projector.round_of", current=current, rounds=len(picture.rounds)),
    )
    return (
        f"<div class=standings>{heading}"
        + "".join(f"<p class=stat>{esc(stat)}</p>" for stat in stats)
        + "</div>"
    )


def _started(column: RoundColumn) -> bool:
    return any(table.state != "waiting" for table in column.drawn)


def _rounds(picture: Picture, *, crowned: bool, lang: str = "en") -> str:
    """The rounds side by side: each gets card columns by how many tables it has; the
    earliest rounds give way when there are more rounds than columns."""
    columns = list(picture.rounds[-SLOTS:])
    name_rows = max((t.planned for c in columns for t in c.drawn), default=1)
    height = BOARD_HEIGHT - (130 + PODIUM_HEIGHT if crowned else 0)
    per_slot = max(1, height // (CARD_TOP + NAME_ROW * name_rows))
    slots = [1] * len(columns)
    while sum(slots) < SLOTS:
        wanting = [i for i, c in enumerate(columns) if len(c.drawn) > slots[i] * per_slot]
        if not wanting:
            break
        slots[max(wanting, key=lambda i: len(columns[i].drawn) / slots[i])] += 1
    skipped = len(picture.rounds) - len(columns)
    # what the tallest column needs, and so how much larger the type may grow to fill
    # the screen (a few tables in a pub: half as large again)
    card = CARD_TOP + NAME_ROW * name_rows
    tallest = max(
        (-(-min(len(c.drawn), s * per_slot) // s) for c, s in zip(columns, slots, strict=True)),
        default=1,
    )
    scale = max(1.0, min(GROWTH, height / max(1, tallest * (card + 10))))
    parts = [f'<div class=rounds style="--s:{scale:.2f}">']
    for index, (column, width) in enumerate(zip(columns, slots, strict=True)):
        final = column is picture.rounds[-1]
        earlier = skipped if index == 0 else 0
        parts.append(_round(column, width, width * per_slot, final, earlier, lang))
    parts.append("</div>")
    return "".join(parts)


def _round(  # noqa: PLR0917  # the round's place on the board, all needed
    column: RoundColumn, slots: int, room: int, final: bool, skipped: int, lang: str = "en"
) -> str:
    tables = sorted(column.drawn, key=lambda t: t.state != PLAYING)[:room]
    tables.sort(key=column.drawn.index)
    hidden = column.total - len(tables)
    name = say(lang, "bracket.final") if final else say(lang, "bracket.round", number=column.number)
    over = say(lang, "projector.rounds_over", last=skipped)
    note = f" <span class=over>{esc(over)}</span>" if skipped and not final else ""
    cards = "".join(_card(table, final, lang) for table in tables)
    more_text = say(lang, "bracket.and_more", more=count(lang, hidden, "more_tables"))
    more = f"<div class=more>{esc(more_text)}</div>" if hidden else ""
    return (
        f'<div class=round style="flex:{slots} 1 0"><h2>{esc(name)}</h2><p class=sub>'
        f"{esc(count(lang, column.total, 'tables'))}{note}</p>"
        f'<div class=cards style="grid-template-columns:repeat({slots},minmax(0,1fr))">'
        f"{cards}</div>{more}</div>"
    )


def _card(table: TableBox, final: bool, lang: str = "en") -> str:
    turn = esc(say(lang, "projector.to_act"))
    names = "".join(
        f"<span class='{seat.fate or 'in'}{' act' if seat.to_act else ''}'>"
        f"<span class=n>{esc(seat.name)}</span>"
        + (f"<span class=sr> ({turn})</span>" if seat.to_act else "")
        + (f"<span class=pts>{esc(seat.points)}</span>" if seat.points else "")
        + "</span>"
        for seat in table.seats
    )
    if not table.seats:
        names = f"<span class=in>{esc(count(lang, table.planned, 'seats'))}</span>"
    kind = f"tbl {esc(table.state)}{' final' if final else ''}"
    state = say(lang, f"state.{table.state}") if table.state in STATES else table.state
    return (
        f'<a class="{kind}" href="tables/{esc(table.ref)}/watch"><div class=head>'
        f"<span>{esc(table.ref)}</span><span class=state>{esc(state)}</span></div>"
        f"<div class=names>{names}</div></a>"
    )
