"""The bracket as an SVG picture (docs/rules.md §5): a column per round, a box per table,
lines to the table each one's survivors go on to, the champion at the right end.

Pure: `render` draws a `Picture` that the route assembled from stored tables. A round
shows its first `DRAWN_PER_ROUND` tables (the route reads no more) and sums up the rest
under its column, so a round of 170,000 tables costs no more than one of 256.
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

from core.words import count, say
from functions.pages.markup import clip, esc

WAITING, PLAYING, OVER, BYE = "waiting", "playing", "over", "bye"
ON, OUT = "on", "out"
DRAWN_PER_ROUND = 256

MARGIN = 24
HEADING = 44  # the column titles above the boxes
HEAD = 24  # a box's title line
LINE = 17  # one name
PAD = 8
NAME_WIDTH = 108
GAP_X = 44
GAP_Y = 12
CHAMPION_HEIGHT = 62
CHAR_WIDTH = 7  # a 12 px name's average character, for clipping

STYLE = """
.bracket{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.bracket .box{fill:#fff;stroke:#c3cad3;stroke-width:1.2}
.bracket .waiting .box{fill:#f6f7f9;stroke-dasharray:4 3}
.bracket .bye .box{fill:#fafbfc;stroke-dasharray:2 3}
.bracket .playing .box{fill:#eef4ff;stroke:#2563eb;stroke-width:2}
.bracket .final .box{stroke:#d4a017;stroke-width:2}
.bracket a:hover .box{stroke:#1f2933}
.bracket .ref{font-size:12px;font-weight:700;fill:#1f2933}
.bracket .state{font-size:11px;fill:#52606d}
.bracket .playing .state{fill:#2563eb;font-weight:600}
.bracket .name{font-size:12px;fill:#1f2933}
.bracket .name.on{font-weight:600;fill:#166534}
.bracket .name.out{fill:#616e7c;text-decoration:line-through}
.bracket .name.gold{font-weight:700;fill:#a16207}
.bracket .slot{fill:#e4e7eb}
.bracket .link{fill:none;stroke:#d5dae0;stroke-width:1.5}
.bracket .link.done{stroke:#52606d}
.bracket .heading{font-size:14px;font-weight:700;fill:#323f4b}
.bracket .sub,.bracket .more{font-size:11px;fill:#52606d}
.bracket .more{font-style:italic}
.bracket .champion .box{fill:#fff7d6;stroke:#d4a017;stroke-width:2.5}
.bracket .champion.open .box{fill:#fffdf5;stroke-dasharray:5 4}
.bracket .champion .label{font-size:11px;font-weight:700;fill:#a16207;letter-spacing:.08em}
.bracket .champion .who{font-size:17px;font-weight:800;fill:#7c4a03}
.bracket .champion.open .who{fill:#c9b27a;font-weight:600}
"""


class Seat(NamedTuple):
    """A player at a table: their name and what the table did with them."""

    name: str
    fate: str = ""  # ON: goes on (or won the final), OUT: stayed behind, "": still playing
    points: str = ""  # while playing, where the game counts them (the projector shows them)
    to_act: bool = False  # while playing: whose turn it is


class TableBox(NamedTuple):
    """One table as the picture shows it."""

    ref: str
    state: str  # WAITING (not seated yet), PLAYING, OVER or BYE
    seats: tuple[Seat, ...]  # seat order while playing, best first once over; none waiting
    planned: int  # how many sit there
    # the next round's tables its survivors go to (two where the plan splits them,
    # docs/rules.md §5.5); none for the final
    successors: tuple[int, ...]
    version: int = 0


class RoundColumn(NamedTuple):
    """A round: how many tables it has, and its first ones (all of them up to the cap)."""

    number: int
    total: int
    tables: tuple[TableBox, ...]  # tables[i] is the round's table with index i

    @property
    def drawn(self) -> tuple[TableBox, ...]:
        """The tables the picture shows: the first `DRAWN_PER_ROUND`."""
        return self.tables[:DRAWN_PER_ROUND]


class Picture(NamedTuple):
    """What `render` draws: every round, left to right, and the champion once known."""

    rounds: tuple[RoundColumn, ...]
    champion: str | None = None


class _Layout(NamedTuple):
    columns: int  # names side by side in a box
    width: int
    height: int
    clip: int  # characters of a name that fit


def render(
    picture: Picture,
    *,
    links: str = "",
    title: str = "",
    standalone: bool = True,
    shrink: float = 1.0,
    lang: str = "en",
) -> str:
    """The picture as SVG; each box links to `{links}tables/{ref}/watch`. A standalone
    document carries the XML declaration; without it, it is for inlining into HTML, where
    `shrink` < 1 lets it narrow down to that share of its width to fit the page."""
    layout = _layout(picture)
    top = MARGIN + HEADING
    parts: list[str] = []
    centres: list[dict[int, int]] = []  # per round: table index -> vertical centre
    bottom = top
    x = MARGIN
    for column in picture.rounds:
        feeders: dict[int, list[int]] = defaultdict(list)
        if centres:
            for index, table in enumerate(picture.rounds[len(centres) - 1].drawn):
                if index in centres[-1]:
                    for successor in table.successors:
                        feeders[successor].append(centres[-1][index])
        placed: dict[int, int] = {}
        below = top - GAP_Y  # the lowest edge drawn so far in this column
        final = column is picture.rounds[-1]
        parts.append(_heading(x, column, final, lang))
        for index, table in enumerate(column.drawn):
            fed = feeders.get(index)
            y = below + GAP_Y
            if fed:
                y = max(y, (min(fed) + max(fed)) // 2 - layout.height // 2)
            placed[index] = y + layout.height // 2
            parts.append(_box(table, x, y, layout, links=links, final=final, lang=lang))
            below = y + layout.height
        if column.total > len(column.drawn):
            below += 22
            more = count(lang, column.total - len(column.drawn), "more_tables")
            text = esc(say(lang, "bracket.and_more", more=more))
            parts.append(f'<text class="more" x="{x}" y="{below}">{text}</text>')
        bottom = max(bottom, below)
        if centres:
            parts.append(_links(picture.rounds[len(centres) - 1], centres[-1], placed, x))
        centres.append(placed)
        x += layout.width + GAP_X
    if picture.rounds and centres[-1]:
        parts.append(_champion(picture, x, centres[-1][0], layout, lang))
        bottom = max(bottom, centres[-1][0] + CHAMPION_HEIGHT // 2)
        x += layout.width + GAP_X
    width = x - GAP_X + MARGIN
    height = bottom + MARGIN
    label = esc(title or say(lang, "bracket.picture_untitled"))
    head = '<?xml version="1.0" encoding="UTF-8"?>\n' if standalone else ""
    fit = (
        f' style="max-width:100%;height:auto;min-width:{int(width * shrink)}px"'
        if shrink < 1
        else ""
    )
    return (
        f'{head}<svg xmlns="http://www.w3.org/2000/svg" '
        f'xmlns:xlink="http://www.w3.org/1999/xlink" class="bracket" role="group" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}"{fit} '
        f'aria-label="{label}"><title>{label}</title><style>{STYLE}</style>'
        f'<rect width="{width}" height="{height}" fill="#f5f7fa"/>' + "".join(parts) + "</svg>"
    )


def _layout(picture: Picture) -> _Layout:
    seats = max((t.planned for r in picture.rounds for t in r.drawn), default=1)
    columns = 1 if seats <= 3 else 2
    rows = -(-seats // columns)
    name_width = NAME_WIDTH if columns == 2 else NAME_WIDTH + 40
    return _Layout(
        columns,
        2 * PAD + columns * name_width,
        HEAD + rows * LINE + PAD,
        (name_width - 10) // CHAR_WIDTH,
    )


def _heading(x: int, column: RoundColumn, final: bool, lang: str = "en") -> str:
    name = say(lang, "bracket.final") if final else say(lang, "bracket.round", number=column.number)
    tables = esc(count(lang, column.total, "tables"))
    return (
        f'<text class="heading" x="{x}" y="{MARGIN + 14}">{esc(name)}</text>'
        f'<text class="sub" x="{x}" y="{MARGIN + 30}">{tables}</text>'
    )


def _box(
    table: TableBox, x: int, y: int, layout: _Layout, *, links: str, final: bool, lang: str = "en"
) -> str:
    ref = esc(table.ref)
    href = f"{esc(links)}tables/{ref}/watch"
    known = table.state in (WAITING, PLAYING, OVER, BYE)
    state = esc(
        say(lang, "state.playing_turn", turn=table.version)
        if table.state == PLAYING
        else say(lang, f"state.{table.state}")
        if known
        else table.state
    )
    kind = f"table {esc(table.state)}{' final' if final else ''}"
    body = [
        f'<rect class="box" width="{layout.width}" height="{layout.height}" rx="6"/>',
        f'<text class="ref" x="{PAD}" y="16">{ref}</text>',
        f'<text class="state" x="{layout.width - PAD}" y="16" text-anchor="end">{state}</text>',
    ]
    column_width = (layout.width - 2 * PAD) // layout.columns
    if table.state == WAITING:
        for seat in range(table.planned):
            row, column = divmod(seat, layout.columns)
            body.append(
                f'<rect class="slot" x="{PAD + column * column_width}" '
                f'y="{HEAD + row * LINE + 3}" width="{column_width - 16}" height="8" rx="4"/>'
            )
    ranked = table.state == OVER
    for seat, player in enumerate(table.seats):
        row, column = divmod(seat, layout.columns)
        fate = "gold" if final and player.fate == ON else player.fate
        shown = f"{seat + 1}. " if ranked else ""
        name = clip(player.name, layout.clip - len(shown))
        tip = f"<title>{esc(player.name)}</title>" if name != player.name else ""
        body.append(
            f'<text class="name {fate}" x="{PAD + column * column_width}" '
            f'y="{HEAD + row * LINE + 11}">{tip}{shown}{esc(name)}</text>'
        )
    return (
        f'<a href="{href}" xlink:href="{href}">'
        f'<g class="{kind}" data-ref="{ref}" transform="translate({x},{y})">'
        f"<title>{ref}: {state}</title>" + "".join(body) + "</g></a>"
    )


def _links(before: RoundColumn, centres: dict[int, int], placed: dict[int, int], x: int) -> str:
    """Lines from each drawn table of the round before to its drawn successors."""
    lines = []
    start = x - GAP_X
    middle = start + GAP_X // 2
    for index, table in enumerate(before.drawn):
        if index not in centres:
            continue
        done = " done" if table.state in (OVER, BYE) else ""
        for successor in table.successors:
            if successor not in placed:
                continue
            lines.append(
                f'<path class="link{done}" d="M{start},{centres[index]}H{middle}'
                f'V{placed[successor]}H{x}"/>'
            )
    return "".join(lines)


def _champion(picture: Picture, x: int, centre: int, layout: _Layout, lang: str = "en") -> str:
    """The champion's box right of the final, joined to it by a line."""
    known = picture.champion is not None
    y = centre - CHAMPION_HEIGHT // 2
    start = x - GAP_X
    name = clip(picture.champion or say(lang, "bracket.to_be_decided"), layout.clip + 2)
    tip = f"<title>{esc(picture.champion)}</title>" if known and name != picture.champion else ""
    label = esc(say(lang, "bracket.champion").upper())
    return (
        f'<path class="link{" done" if known else ""}" d="M{start},{centre}H{x}"/>'
        f'<g class="champion{"" if known else " open"}" transform="translate({x},{y})">'
        f'<rect class="box" width="{layout.width}" height="{CHAMPION_HEIGHT}" rx="8"/>'
        f'<text class="label" x="{PAD + 4}" y="21">★ {label}</text>'
        f'<text class="who" x="{PAD + 4}" y="46">{tip}{esc(name)}</text></g>'
    )
