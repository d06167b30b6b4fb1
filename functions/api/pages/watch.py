"""The page of one table: the spectator view and the story of its log, live.

It shows only what `TurnService.spectator_view` and `audit_log` answer, which hide every
die under the cup until the table is over; names come in as a mapping from player id.
The seats are drawn here for the first paint; the page's script (`assets/watch.js`) tells
the log in sentences with the dice as pips, and follows the table over the WebSocket (the
event feed when the socket is lost), redrawing in place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from functions.api.pages.bracket_svg import BYE, OVER, PLAYING, WAITING
from functions.api.pages.html import (
    TournamentInfo,
    document,
    header,
    json_data,
    live_main,
    tournament_title,
)
from functions.api.pages.markup import esc

_NOT_FACTS = {"game", "version", "options", "seats", "to_act", "legal_actions", "ranking"}
BACK = " · <a href='../../bracket'>← bracket</a>"


def watch_page(
    info: TournamentInfo,
    ref: str,
    *,
    view: Mapping[str, Any],
    over: bool,
    records: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    socket: str = "",
    dice_check: str | None = None,
) -> str:
    """One table: the spectator view and the audit log, told in sentences; a finished
    table's `dice_check` (verified, or not) under its seats."""
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
    data = {
        "table": ref,
        "game": info.game,
        "view": dict(view),
        "over": over,
        "names": dict(names),
        "records": list(records),
    }
    parts = [
        header(info, title, BACK),
        live_main(info.id, None, socket, narrow=True),
        "<section class=card id=table-card>",
        f"<h2>{esc(ref)} <span class='badge {state}' id=state>{state}</span> "
        f"<span class=muted id=turn>· turn {esc(view.get('version', 0))} · {line}</span></h2>",
        f"<div id=seats>{_seats(view, names)}</div>",
        f"<p class=muted id=dice-check>{esc(dice_check)}</p>" if dice_check else "",
        "</section>",
        f"<div id=facts>{_facts(view, names)}</div>",
        "<section class=card><h2>What happened</h2>",
        "<noscript><p class=muted>The story of the table needs JavaScript; "
        "its log is at <a href=log>log</a>.</p></noscript>",
        "<ol class=story id=story></ol></section>",
        json_data("table-data", data),
        "</main>",
    ]
    return document(
        title,
        "".join(parts),
        refresh=None if over else 3,
        scripts=["story.js", "live.js", "table.js", "watch.js"],
        root="../../../../",
    )


def pending_table_page(
    info: TournamentInfo,
    ref: str,
    *,
    feeders: Sequence[str],
    bye: str | None,
    socket: str = "",
) -> str:
    """A table not seated yet (waiting for its feeders), or a bye."""
    title = f"{ref} · {tournament_title(info)}"
    if bye is not None:
        text = f"{esc(bye)} goes on to the next round without playing (a bye)."
    else:
        text = f"This table is seated once {esc(', '.join(feeders))} are over."
    state = BYE if bye is not None else WAITING
    refresh = None if bye is not None else 3
    body = (
        header(info, title, BACK)
        + live_main(info.id, refresh, socket)
        + f"<section class=card><h2>{esc(ref)} <span class='badge {state}'>{state}"
        f"</span></h2><p>{text}</p></section></main>"
    )
    return document(
        title, body, refresh=refresh, scripts=["live.js", "bracket.js"], root="../../../../"
    )


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
