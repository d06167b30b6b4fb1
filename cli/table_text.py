"""How a player's view of a table reads in a terminal at their turn: the seats, the
situation and the choices. Pure functions of views (JSON as the API sends it), with
display names where the caller has them (ids otherwise); games this module does not
know get a plain fallback. What happened in between is told from the table's event
feed, by `cli.table_story`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

View = dict[str, Any]
Names = Mapping[str, str]
NO_NAMES: Names = {}


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _who(player: str | None, me: str, names: Names = NO_NAMES) -> str:
    return "you" if player == me else names.get(str(player), str(player))


# --- seats -----------------------------------------------------------------------------


def _standing(game: str, seat: dict[str, Any]) -> str:
    if game == "maexchen":
        text = _plural(seat["penalty_points"], "penalty point")
        return text + (", out" if seat["eliminated"] else "")
    if game == "mariechen":
        throws = " ".join(map(str, seat["throws"])) or "-"
        return f"score {seat['score']}, throws {throws}" + (
            ", forfeited" if seat["forfeited"] else ""
        )
    if game == "zweiundvierzig":
        return f"{_plural(seat['sticks'], 'stick')}, {seat['status']}"
    return ", ".join(f"{k} {v}" for k, v in seat.items() if k != "player")


def seat_lines(view: View, me: str, names: Names = NO_NAMES) -> list[str]:
    """One line per seat with its standing; `>` marks the player to act."""
    lines = []
    for seat in view["seats"]:
        marker = ">" if seat["player"] == view.get("to_act") else " "
        name = names.get(seat["player"], seat["player"]) + (
            " (you)" if seat["player"] == me else ""
        )
        lines.append(f" {marker} {name}: {_standing(view['game'], seat)}")
    return lines


# --- the situation at a turn -------------------------------------------------------------


def situation_lines(view: View, me: str, names: Names = NO_NAMES) -> list[str]:
    """What a player needs to know before choosing: announcement, own dice, targets."""
    game = view["game"]
    lines: list[str] = []
    if game == "maexchen":
        if view["announcement"] is None:
            lines.append(f"Round {view['round']}: no announcement yet.")
        else:
            by = _who(view["announcer"], me, names)
            announced = view["announcement"]
            lines.append(f"Round {view['round']}: the announcement is {announced}, by {by}.")
        if view.get("your_throw") is not None:
            lines.append(f"Your dice under the cup: {view['your_throw']}")
    elif game == "mariechen":
        if view.get("throw") is not None:
            lines.append(f"Throw {view['throw']} of 6: the target is {view['target']}.")
        if view.get("throw_off"):
            off = view["throw_off"]
            lines.append(
                f"Throw-off for places {off['first_place']}-{off['last_place']} among "
                f"{', '.join(_who(p, me, names) for p in off['players'])}; faces so far: "
                f"{off['faces']}"
            )
    elif game == "zweiundvierzig" and view.get("round"):
        round_ = view["round"]
        lines.append(
            f"Pot: {_plural(view['pot'], 'stick')} ({view['phase']}). Round {round_['number']}, "
            f"started by {_who(round_['starter'], me, names)}: at most {round_['throw_limit']} "
            "throws."
        )
        for done in round_["finished"]:
            lines.append(f"  {_who(done['player'], me, names)}: {_last_throw(done)}")
        if round_["throws"]:
            lines.append("Your throws: " + ", ".join(map(str, round_["throws"])))
    return lines


def _last_throw(done: dict[str, Any]) -> str:
    if done["last_throw"] is not None:
        return f"{done['last_throw']} after {_plural(done['throws'], 'throw')}"
    return "no throw" if done["throws"] == 0 else "a covered fifth throw"


# --- choices ---------------------------------------------------------------------------


def choice_label(action: dict[str, Any], view: View, me: str, names: Names = NO_NAMES) -> str:
    """A legal action in words."""
    kind = action["kind"]
    if kind == "announce":
        value = action["value"]
        label = f"Announce {value}"
        if value == view.get("your_throw"):
            label += " (your throw)"
        return label + (" - Maexchen!" if value == 21 else "")
    if kind == "doubt":
        announcer = _who(view.get("announcer"), me, names)
        return f"Doubt {announcer}'s {view.get('announcement')}: lift the cup"
    if kind == "throw":
        if view["game"] == "maexchen" and view.get("stage") == "response":
            return f"Believe the {view.get('announcement')} and throw"
        round_ = view.get("round")
        if view["game"] == "zweiundvierzig" and round_ and round_["throws"]:
            return "Throw again"
        return "Throw the die" if view["game"] == "mariechen" else "Throw the dice"
    if kind == "stop":
        round_ = view.get("round") or {}
        throws = round_.get("throws") or []
        return f"Stop with {throws[-1]}" if throws else "Stop"
    if kind == "concede":
        return "Concede: take the stick now"
    if kind == "blind_reroll":
        return "Throw again without looking"
    extra = {k: v for k, v in action.items() if k != "kind"}
    return f"{kind} {extra}" if extra else kind


def announcement_line(legal: list[dict[str, Any]], view: View) -> str | None:
    """The values that may be announced now, to be typed as they are; the player's own
    throw in brackets. None when no announcement is allowed."""
    values = [action["value"] for action in legal if action["kind"] == "announce"]
    if not values:
        return None
    own = view.get("your_throw")
    shown = " ".join(f"[{v}]" if v == own else str(v) for v in values)
    note = f"; [{own}] is your throw" if own in values else ""
    return f"Announce a value: {shown}{note}"
