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

from core.words import WORDS, language, say
from functions.pages.bracket_svg import BYE, OVER, PLAYING, WAITING
from functions.pages.html import (
    TournamentInfo,
    document,
    header,
    json_data,
    live_main,
    tournament_title,
)
from functions.pages.markup import esc

_NOT_FACTS = {"game", "version", "options", "seats", "to_act", "legal_actions", "ranking"}


def _back(lang: str) -> str:
    return f" · <a href='../../bracket'>{esc(say(lang, 'link.back_to_bracket'))}</a>"


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
    lang: str = "en",
    switch: str = "",
) -> str:
    """One table: the spectator view and the audit log, told in sentences; a finished
    table's `dice_check` (verified, or not) under its seats."""
    title = f"{ref} · {tournament_title(info, lang)}"
    state = OVER if over else PLAYING
    to_act = view.get("to_act")
    line = esc(
        say(lang, "state.over")
        if over
        else say(lang, "watch.to_act", name=names.get(to_act, to_act))
        if to_act
        else say(lang, "watch.waiting_dice")
    )
    turn = esc(say(lang, "watch.turn", turn=view.get("version", 0)))
    data = {
        "table": ref,
        "game": info.game,
        "view": dict(view),
        "over": over,
        "names": dict(names),
        "records": list(records),
    }
    parts = [
        header(info, title, _back(lang), lang),
        live_main(info.id, None, socket, narrow=True),
        "<section class=card id=table-card>",
        f"<h2>{esc(ref)} <span class='badge {state}' id=state>{esc(say(lang, 'state.' + state))}"
        f"</span> <span class=muted id=turn>· {turn} · {line}</span></h2>",
        f"<div id=seats>{_seats(view, names, lang)}</div>",
        f"<p class=muted id=dice-check>{esc(dice_check)}</p>" if dice_check else "",
        "</section>",
        f"<div id=facts>{_facts(view, names, lang)}</div>",
        f"<section class=card><h2 id=story-title>{esc(say(lang, 'watch.story'))}</h2>",
        f"<noscript><p class=muted>{esc(say(lang, 'watch.story_needs_script'))} "
        f"<a href=log>{esc(say(lang, 'watch.log'))}</a>.</p></noscript>",
        "<div id=story-log role=log aria-live=polite aria-labelledby=story-title>"
        "<ol class=story id=story></ol></div></section>",
        json_data("table-data", data),
        "</main>",
    ]
    return document(
        title,
        "".join(parts),
        refresh=None if over else 3,
        scripts=["story.js", "live.js", "table.js", "watch.js"],
        root="../../../../",
        lang=lang,
        switch=switch,
    )


def pending_table_page(
    info: TournamentInfo,
    ref: str,
    *,
    feeders: Sequence[str],
    bye: str | None,
    socket: str = "",
    lang: str = "en",
    switch: str = "",
) -> str:
    """A table not seated yet (waiting for its feeders), or a bye."""
    title = f"{ref} · {tournament_title(info, lang)}"
    if bye is not None:
        text = esc(say(lang, "watch.bye", name=bye))
    else:
        text = esc(say(lang, "watch.seated_once", feeders=", ".join(feeders)))
    state = BYE if bye is not None else WAITING
    refresh = None if bye is not None else 3
    body = (
        header(info, title, _back(lang), lang)
        + live_main(info.id, refresh, socket)
        + f"<section class=card><h2>{esc(ref)} <span class='badge {state}'>"
        f"{esc(say(lang, 'state.' + state))}"
        f"</span></h2><p>{text}</p></section></main>"
    )
    return document(
        title,
        body,
        refresh=refresh,
        scripts=["live.js", "bracket.js"],
        root="../../../../",
        lang=lang,
        switch=switch,
    )


def _seats(view: Mapping[str, Any], names: Mapping[str, str], lang: str = "en") -> str:
    seats: list[Mapping[str, Any]] = list(view.get("seats") or [])
    if not seats:
        return ""
    keys = [key for key in seats[0] if key != "player"]
    ranking = list(view.get("ranking") or [])
    survivors = int(view.get("survivors") or 0)
    place_word, player_word = esc(say(lang, "watch.place")), esc(say(lang, "watch.player"))
    head = (f"<th>{place_word}</th>" if ranking else "") + f"<th>{player_word}</th>"
    head += "".join(f"<th>{esc(_word(key, lang))}</th>" for key in keys)
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
        cells = "".join(f"<td>{esc(_show(seat[key], names, lang, key))}</td>" for key in keys)
        rows.append(f"<tr class='{kind}'>{place}<td>{esc(names.get(player, player))}</td>{cells}")
    return f"<table class=seats><tr>{head}</tr>{''.join(rows)}</table>"


def _facts(view: Mapping[str, Any], names: Mapping[str, str], lang: str = "en") -> str:
    facts = [(key, value) for key, value in view.items() if key not in _NOT_FACTS]
    options = view.get("options") or {}
    if options:
        facts.append((say(lang, "watch.rules"), options))
    if not facts:
        return ""
    items = "".join(
        f"<dt>{esc(_word(key, lang))}</dt><dd>{esc(_show(value, names, lang, key))}</dd>"
        for key, value in facts
    )
    heading = esc(say(lang, "watch.at_the_table"))
    return f"<section class=card><h2>{heading}</h2><dl class=facts>{items}</dl></section>"


def _word(key: str, lang: str) -> str:
    """A fact's name in the catalogue's words (`fact.<key>`), else the key as words: the
    page shows "Phase", never "stage"."""
    said = f"fact.{key}"
    return say(lang, said) if said in WORDS[language(lang)] else key.replace("_", " ")


def _show(value: Any, names: Mapping[str, str], lang: str = "en", key: str = "") -> str:
    """A view's or event's value in words (`fact.<key>.<value>`: "announce" → "Ansage"),
    players by name."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return say(lang, "watch.yes" if value else "watch.no")
    if isinstance(value, str):
        said = f"fact.{key}.{value}"
        return say(lang, said) if said in WORDS[language(lang)] else names.get(value, value)
    if isinstance(value, list | tuple):
        return ", ".join(_show(v, names, lang) for v in value) or "—"
    if isinstance(value, dict):
        return "; ".join(f"{_word(k, lang)}: {_show(v, names, lang, k)}" for k, v in value.items())
    return str(value)
