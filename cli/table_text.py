"""How a player's view of a table reads in a terminal at their turn: the seats, the
situation and the choices. Pure functions of views (JSON as the API sends it), with
display names where the caller has them (ids otherwise), in `lang` (every sentence is the
catalogue's, `core.words`: `console.*`, the counts and `table.you`); games this module
does not know get a plain fallback. What happened in between is told from the table's
event feed, by `cli.table_story`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.words import DEFAULT, WORDS, count, language, say

View = dict[str, Any]
Names = Mapping[str, str]
NO_NAMES: Names = {}


def _who(player: str | None, me: str, names: Names = NO_NAMES, lang: str = DEFAULT) -> str:
    return say(lang, "story.you") if player == me else names.get(str(player), str(player))


def _fact(lang: str, key: str, value: object) -> str:
    """A fact's value in words (`fact.<key>.<value>`: "hinrunde" → "Hinrunde"), else as is."""
    said = f"fact.{key}.{value}"
    return say(lang, said) if said in WORDS[language(lang)] else str(value)


# --- seats -----------------------------------------------------------------------------


def _standing(game: str, seat: dict[str, Any], lang: str) -> str:
    if game == "maexchen":
        text = count(lang, seat["penalty_points"], "penalty_points")
        return say(lang, "console.standing_out", standing=text) if seat["eliminated"] else text
    if game == "mariechen":
        throws = " ".join(map(str, seat["throws"])) or "-"
        text = say(lang, "console.score_throws", score=seat["score"], throws=throws)
        return say(lang, "console.standing_forfeited", standing=text) if seat["forfeited"] else text
    if game == "zweiundvierzig":
        return f"{count(lang, seat['sticks'], 'sticks')}, {_fact(lang, 'status', seat['status'])}"
    return ", ".join(f"{k} {v}" for k, v in seat.items() if k != "player")


def seat_lines(view: View, me: str, names: Names = NO_NAMES, lang: str = DEFAULT) -> list[str]:
    """One line per seat with its standing; `>` marks the player to act."""
    lines = []
    for seat in view["seats"]:
        marker = ">" if seat["player"] == view.get("to_act") else " "
        name = names.get(seat["player"], seat["player"])
        if seat["player"] == me:
            name = say(lang, "table.you", name=name)
        lines.append(f" {marker} {name}: {_standing(view['game'], seat, lang)}")
    return lines


# --- the situation at a turn -------------------------------------------------------------


def situation_lines(view: View, me: str, names: Names = NO_NAMES, lang: str = DEFAULT) -> list[str]:
    """What a player needs to know before choosing: announcement, own dice, targets."""
    game = view["game"]
    lines: list[str] = []
    if game == "maexchen":
        if view["announcement"] is None:
            lines.append(say(lang, "console.no_announcement", round=view["round"]))
        else:
            by = _who(view["announcer"], me, names, lang)
            lines.append(
                say(
                    lang,
                    "console.announcement",
                    round=view["round"],
                    value=view["announcement"],
                    name=by,
                )
            )
        if view.get("your_throw") is not None:
            lines.append(say(lang, "console.under_cup", dice=view["your_throw"]))
    elif game == "mariechen":
        if view.get("throw") is not None:
            lines.append(say(lang, "console.target", throw=view["throw"], target=view["target"]))
        if view.get("throw_off"):
            off = view["throw_off"]
            lines.append(
                say(
                    lang,
                    "console.throw_off",
                    first=off["first_place"],
                    last=off["last_place"],
                    players=", ".join(_who(p, me, names, lang) for p in off["players"]),
                    faces=off["faces"],
                )
            )
    elif game == "zweiundvierzig" and view.get("round"):
        round_ = view["round"]
        lines.append(
            say(
                lang,
                "console.pot",
                pot=count(lang, view["pot"], "sticks"),
                phase=_fact(lang, "phase", view["phase"]),
                number=round_["number"],
                name=_who(round_["starter"], me, names, lang),
                limit=round_["throw_limit"],
            )
        )
        for done in round_["finished"]:
            lines.append(f"  {_who(done['player'], me, names, lang)}: {_last_throw(done, lang)}")
        if round_["throws"]:
            throws = ", ".join(map(str, round_["throws"]))
            lines.append(say(lang, "console.your_throws", throws=throws))
    return lines


def _last_throw(done: dict[str, Any], lang: str) -> str:
    if done["last_throw"] is not None:
        return f"{done['last_throw']} {count(lang, done['throws'], 'after_throws')}"
    return say(lang, "console.no_throw" if done["throws"] == 0 else "console.covered_fifth")


# --- choices ---------------------------------------------------------------------------


def choice_label(
    action: dict[str, Any], view: View, me: str, names: Names = NO_NAMES, lang: str = DEFAULT
) -> str:
    """A legal action in words."""
    kind = action["kind"]
    if kind == "announce":
        value = action["value"]
        own = value == view.get("your_throw")
        label = say(lang, "console.announce_own" if own else "console.announce", value=value)
        return say(lang, "console.announce_maexchen", label=label) if value == 21 else label
    if kind == "doubt":
        announcer = _who(view.get("announcer"), me, names, lang)
        return say(lang, "console.doubt", name=announcer, value=view.get("announcement"))
    if kind == "throw":
        if view["game"] == "maexchen" and view.get("stage") == "response":
            return say(lang, "console.believe", value=view.get("announcement"))
        round_ = view.get("round")
        if view["game"] == "zweiundvierzig" and round_ and round_["throws"]:
            return say(lang, "console.throw_again")
        return say(
            lang, "console.throw_die" if view["game"] == "mariechen" else "console.throw_dice"
        )
    if kind == "stop":
        round_ = view.get("round") or {}
        throws = round_.get("throws") or []
        return (
            say(lang, "console.stop_with", value=throws[-1])
            if throws
            else say(lang, "console.stop")
        )
    if kind == "concede":
        return say(lang, "console.concede")
    if kind == "blind_reroll":
        return say(lang, "console.blind_reroll")
    extra = {k: v for k, v in action.items() if k != "kind"}
    return f"{kind} {extra}" if extra else kind


def announcement_line(legal: list[dict[str, Any]], view: View, lang: str = DEFAULT) -> str | None:
    """The values that may be announced now, to be typed as they are; the player's own
    throw in brackets. None when no announcement is allowed."""
    values = [action["value"] for action in legal if action["kind"] == "announce"]
    if not values:
        return None
    own = view.get("your_throw")
    shown = " ".join(f"[{v}]" if v == own else str(v) for v in values)
    if own in values:
        return say(lang, "console.values_own", values=shown, own=own)
    return say(lang, "console.values", values=shown)
