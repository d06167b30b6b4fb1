"""How a player's view of a table reads in a terminal: the seats, the situation, the
choices, and what changed since the last look. Pure functions of views (JSON as the
API sends it); games this module does not know get a plain fallback."""

from __future__ import annotations

from typing import Any

View = dict[str, Any]


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _who(player: str | None, me: str) -> str:
    return "you" if player == me else str(player)


def _does(player: str | None, me: str, verb: str, for_you: str) -> str:
    """`player` and a present-tense verb that agrees: "p-x starts", "you start"."""
    return f"you {for_you}" if player == me else f"{player} {verb}"


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


def seat_lines(view: View, me: str) -> list[str]:
    """One line per seat with its standing; `>` marks the player to act."""
    lines = []
    for seat in view["seats"]:
        marker = ">" if seat["player"] == view.get("to_act") else " "
        name = seat["player"] + (" (you)" if seat["player"] == me else "")
        lines.append(f" {marker} {name}: {_standing(view['game'], seat)}")
    return lines


# --- the situation at a turn -------------------------------------------------------------


def situation_lines(view: View, me: str) -> list[str]:
    """What a player needs to know before choosing: announcement, own dice, targets."""
    game = view["game"]
    lines: list[str] = []
    if game == "maexchen":
        if view["announcement"] is None:
            lines.append(f"Round {view['round']}: no announcement yet.")
        else:
            by = _who(view["announcer"], me)
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
                f"{', '.join(off['players'])}; faces so far: {off['faces']}"
            )
    elif game == "zweiundvierzig" and view.get("round"):
        round_ = view["round"]
        lines.append(
            f"Pot: {_plural(view['pot'], 'stick')} ({view['phase']}). Round {round_['number']}, "
            f"started by {_who(round_['starter'], me)}: at most {round_['throw_limit']} throws."
        )
        for done in round_["finished"]:
            lines.append(f"  {_who(done['player'], me)}: {_last_throw(done)}")
        if round_["throws"]:
            lines.append("Your throws: " + ", ".join(map(str, round_["throws"])))
    return lines


def _last_throw(done: dict[str, Any]) -> str:
    if done["last_throw"] is not None:
        return f"{done['last_throw']} after {_plural(done['throws'], 'throw')}"
    return "no throw" if done["throws"] == 0 else "a covered fifth throw"


# --- choices ---------------------------------------------------------------------------


def choice_label(action: dict[str, Any], view: View, me: str) -> str:
    """A legal action in words."""
    kind = action["kind"]
    if kind == "announce":
        value = action["value"]
        label = f"Announce {value}"
        if value == view.get("your_throw"):
            label += " (your throw)"
        return label + (" - Maexchen!" if value == 21 else "")
    if kind == "doubt":
        return f"Doubt {_who(view.get('announcer'), me)}'s {view.get('announcement')}: lift the cup"
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


# --- what changed --------------------------------------------------------------------


def change_lines(before: View | None, after: View, me: str) -> list[str]:
    """What happened between two views of the same table, in words."""
    if before is None:
        return []
    game = after["game"]
    lines: list[str] = []
    if game == "maexchen":
        lines += _maexchen_changes(before, after, me)
    elif game == "mariechen":
        lines += _mariechen_changes(before, after, me)
    elif game == "zweiundvierzig":
        lines += _zweiundvierzig_changes(before, after, me)
    if after.get("to_act") != before.get("to_act") and after.get("to_act") not in (None, me):
        lines.append(f"It is {after['to_act']}'s turn.")
    return lines


def _maexchen_changes(before: View, after: View, me: str) -> list[str]:
    lines = []
    for old, new in zip(before["seats"], after["seats"], strict=True):
        gained = new["penalty_points"] - old["penalty_points"]
        if gained > 0:
            lines.append(
                f"{_who(new['player'], me)} got {_plural(gained, 'penalty point')} "
                f"({new['penalty_points']} now)."
            )
        if new["eliminated"] and not old["eliminated"]:
            lines.append(f"{_does(new['player'], me, 'is', 'are')} out of this table.")
    if after["round"] != before["round"] and after.get("to_act"):
        lines.append(f"Round {after['round']}: {_does(after['to_act'], me, 'starts', 'start')}.")
    announced = (after["announcement"], after["announcer"])
    if after["announcement"] is not None and announced != (
        before["announcement"],
        before["announcer"],
    ):
        lines.append(f"{_who(after['announcer'], me)} announced {after['announcement']}.")
    return lines


def _mariechen_changes(before: View, after: View, me: str) -> list[str]:
    lines = []
    for old, new in zip(before["seats"], after["seats"], strict=True):
        for face in new["throws"][len(old["throws"]) :]:
            lines.append(f"{_who(new['player'], me)} threw {face}.")
        if new["score"] != old["score"]:
            lines.append(f"{_does(new['player'], me, 'scores', 'score')} {new['score']}.")
    return lines


def _zweiundvierzig_changes(before: View, after: View, me: str) -> list[str]:
    lines = []
    old_round, new_round = before.get("round") or {}, after.get("round") or {}
    same_round = old_round.get("number") == new_round.get("number")
    if same_round:
        for done in new_round["finished"][len(old_round["finished"]) :]:
            lines.append(f"{_who(done['player'], me)} finished: {_last_throw(done)}.")
        if len(new_round["throws"]) > len(old_round["throws"]):
            lines.append(f"{_who(after['to_act'], me)} threw {new_round['throws'][-1]}.")
    for old, new in zip(before["seats"], after["seats"], strict=True):
        if new["sticks"] != old["sticks"]:
            held = _plural(new["sticks"], "stick")
            lines.append(f"{_does(new['player'], me, 'holds', 'hold')} {held} now.")
        if new["status"] != old["status"]:
            lines.append(f"{_who(new['player'], me)}: {new['status']}.")
    if new_round and not same_round:
        starter = _does(new_round["starter"], me, "starts", "start")
        lines.append(f"Round {new_round['number']}: {starter}.")
    return lines


def result_lines(view: View, me: str) -> list[str]:
    """The table's ranking once it is over, and whether the player goes on."""
    ranking: list[str] = view.get("ranking") or []
    places = ", ".join(f"{n}. {_who(p, me)}" for n, p in enumerate(ranking, start=1))
    lines = [f"The table is over: {places}."]
    if me in ranking:
        place, survivors = ranking.index(me) + 1, view.get("survivors", 1)
        through = "through to what comes next" if place <= survivors else "out"
        lines.append(f"Your place at this table: {place} of {len(ranking)}, {through}.")
    return lines
