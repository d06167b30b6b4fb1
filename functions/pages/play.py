"""The play page: a person plays a tournament from a phone's browser.

The page is one static shell per language for every tournament (`functions.site`: a
million phones opening it ask the API for nothing); its script (`assets/play.js`) reads
which tournament from the page's address, fills the header in from the tournament's
public view and does the playing through the public API, as any client does: it
registers with a name, or resumes with a token from the link (`play#token=…`, a
fragment, so it never reaches a server or its logs), keeps the token in the browser only
(localStorage), shows the player's own dice under the cup, the legal actions as buttons
and the table's story, following it over the WebSocket.
"""

from __future__ import annotations

from core.words import say
from functions.pages.html import document, json_data, live_main
from functions.pages.markup import esc

PLAY_CSS = """
#join form{margin:6px 0 0}
#join input{font-size:18px}
#join button{font-size:18px}
#cup-card h2{display:flex;justify-content:space-between;gap:10px;align-items:baseline}
.countdown{font-size:20px;font-weight:600;font-variant-numeric:tabular-nums}
.countdown.short{color:#b42318}
.notice.offline{background:#fff4e5;border-color:#b54708}
button.quiet{font-size:14px;min-height:32px;background:none;border:1px solid #98a2b3;color:inherit}
"""


def play_shell(lang: str = "en", socket: str = "") -> str:
    """The play page in `lang` for any tournament: the script fills in the header (the
    tournament's name, game, numbers and status) and, where the tournament needs its
    join code, the form's field for it (filled in from the link's `?code=`, as the
    projector's QR code carries it). `socket`: the WebSocket API's URL ('': `/ws` beside
    the page)."""

    def w(key: str) -> str:
        return esc(say(lang, key))

    head = (
        "<header><h1 id=tournament-name>Knobelcup</h1><div class=meta><span class=game></span>"
        " · <span class=players></span> · <span class=tables></span> · "
        "<span class=badge data-status=''></span>"
        f" · <a href='bracket'>{w('link.bracket')}</a></div></header>"
    )
    body = "".join(
        [
            head,
            live_main("", None, socket, narrow=True),
            "<div id=notice class=notice role=status hidden></div>",
            f"<div id=link-state class='notice offline' role=status hidden>{w('play.offline')}"
            "</div>",
            f"<section class=card id=join hidden><h2>{w('play.join')}</h2>",
            "<form id=join-form><input id=name name=name required maxlength=40 "
            f'autocomplete=nickname placeholder="{w("play.your_name")}" '
            f'aria-label="{w("play.your_name")}">',
            "<input id=join-code name=join_code maxlength=32 autocomplete=off "
            f'autocapitalize=characters placeholder="{w("play.join_code")}" '
            f'aria-label="{w("play.join_code")}" hidden>',
            f"<button id=join-button>{w('play.join_button')}</button></form>",
            f"<p class=muted>{w('play.seat_kept')}</p></section>",
            f"<section class=card id=cup-card hidden><h2><span id=cup-title>{w('play.your_dice')}"
            "</span><span class=muted id=cup-table></span></h2>",
            "<div class=cup id=cup></div>",
            "<p class=status id=prompt></p><p class=countdown id=countdown hidden></p>",
            "<div class=actions id=actions></div>",
            "<p><button type=button id=sound class=quiet aria-pressed=false>"
            f"{w('play.sound_off')}</button></p></section>",
            f"<section class=card id=table-card hidden><h2 id=table-title>{w('play.your_table')}"
            "</h2><p class=status id=turn></p><div id=seats></div><div id=facts></div></section>",
            f"<section class=card id=story-card hidden><h2 id=story-title>{w('play.story')}</h2>",
            "<div id=story-log role=log aria-live=polite aria-labelledby=story-title>"
            "<ol class=story id=story></ol></div></section>",
            f"<section class=card id=you hidden><h2>{w('play.you')}</h2><p id=you-text></p>",
            f"<details><summary>{w('play.other_device')}</summary><p class=muted>"
            f"{w('play.other_device_hint')}</p>"
            "<p class=link><a id=resume-link></a></p></details></section>",
            f"<noscript><p class=notice>{w('play.needs_script')}</p></noscript>",
            json_data("play-data", {}),
            "</main>",
        ]
    )
    return document(
        say(lang, "play.title", title="Knobelcup"),
        body,
        scripts=["story.js", "live.js", "table.js", "play.js"],
        root="../../",
        css=PLAY_CSS,
        lang=lang,
    )
