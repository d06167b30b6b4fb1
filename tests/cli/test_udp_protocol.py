"""The UDP bridge's pure parts: the classic protocol's words, a table told in them
(from records the real rules engine makes), the stand-in's choice, the matching of
replies to questions, and the roster file."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from cli.udp_bridge import protocol as p
from cli.udp_bridge.prompts import (
    ANSWERED,
    DUPLICATE,
    LATE,
    UNEXPECTED,
    UNKNOWN_TOKEN,
    WRONG_SENDER,
    Prompts,
    Tally,
)
from cli.udp_bridge.roster import Bot, Roster, Spectator
from cli.udp_bridge.story import RoundOpening, TableStory, stand_in_action
from core.actions import Action, Announce, Doubt, Throw, Timeout
from core.audit import LogEntry, entry_record
from core.games.maexchen import GAME

# --- the words ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"HELLO;x",
        b"roll;abc",  # commands are upper case
        b"\xff\xfe ROLL",
        b"ROLL;" + b"x" * p.MAX_DATAGRAM,
        b"YOUR TURN;t",  # a server message sent back
    ],
)
def test_anything_but_a_client_message_is_not_parsed(data: bytes) -> None:
    assert p.parse(data) is None


def test_a_reply_carries_its_token_where_the_protocol_puts_it() -> None:
    assert p.parse(b"ROLL;t-1") == p.Datagram("ROLL", ("t-1",))
    assert p.parse(b"ROLL;t-1").token == "t-1"  # type: ignore[union-attr]
    announce = p.parse(b"ANNOUNCE;3,1;t-2\n")  # a line-based client's newline is dropped
    assert announce is not None and announce.token == "t-2" and announce.field(0) == "3,1"
    assert p.parse(b"SEE").token is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("name", "valid"),
    [("anna", True), ("x" * 20, True), ("x" * 21, False), ("", False), (None, False)]
    + [(f"a{bad}b", False) for bad in (" ", "\t", ",", ";", ":")],
)
def test_names_follow_the_classic_rule(name: str | None, valid: bool) -> None:
    assert p.valid_name(name) is valid


def test_dice_are_written_higher_die_first_and_read_in_either_order() -> None:
    assert [p.dice_text(v) for v in (21, 52, 11, 66)] == ["2,1", "5,2", "1,1", "6,6"]
    assert [p.parse_dice(t) for t in ("2,1", "1,2", "5,5", " 6 ,3")] == [21, 21, 55, 63]
    for bad in (None, "", "7,1", "0,3", "3", "3,1,2", "a,b", "3;1"):
        assert p.parse_dice(bad) is None


def test_server_messages_are_the_documented_ones() -> None:
    assert p.round_started(3, ["a", "b"]) == "ROUND STARTED;3;a,b"
    assert p.rolled(41, "t") == "ROLLED;4,1;t"
    assert p.announced("a", 21) == "ANNOUNCED;a;2,1"
    assert p.player_lost(["a"], p.SEE_FAILED) == "PLAYER LOST;a;SEE_FAILED"
    assert p.score({"a": 0, "b": -2}) == "SCORE;a:0,b:-2"


# --- a table told ------------------------------------------------------------------------


class Table:
    """A Mäxchen table on the real rules, its log records as a spectator reads them."""

    def __init__(self, players: tuple[str, ...] = ("ann", "bob", "cem"), **options: Any) -> None:
        self.state, events = GAME.seat(players, options, 1)
        self.records = [entry_record(LogEntry(0, None, None, (), events), None, False)]

    def act(self, player: str, action: Action, *dice: int) -> dict[str, Any]:
        self.state, events = GAME.apply(self.state, player, action, dice)
        entry = LogEntry(self.state.version, player, action, dice, events)
        self.records.append(entry_record(entry, None, False))
        return self.records[-1]


def told(story: TableStory, records: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for record in records:
        for item in story.read(record):
            lines.append(item if isinstance(item, str) else f"(opening {item.order})")
    return lines


def test_a_doubted_lie_about_mia_is_told_as_the_classic_server_tells_it() -> None:
    table = Table()
    table.act("ann", Throw(), 3, 1)
    table.act("ann", Announce(21))
    table.act("bob", Doubt())
    story = TableStory(str.upper)
    assert told(story, table.records) == [
        "(opening ('ann', 'bob', 'cem'))",
        "PLAYER ROLLS;ANN",
        "ANNOUNCED;ANN;2,1",
        "PLAYER WANTS TO SEE;BOB",
        "ACTUAL DICE;3,1",
        "PLAYER LOST;ANN;LIED_ABOUT_MIA",
        "SCORE;ANN:-2,BOB:0,CEM:0",  # a doubted 21 costs 2 (docs/rules.md §1.4)
        "(opening ('ann', 'bob', 'cem'))",  # the one in the wrong starts the next round
    ]
    assert (story.to_act, story.stage, story.round) == ("ann", "opening", 2)


def test_the_story_knows_whose_turn_it_is_and_who_is_out() -> None:
    table = Table(penalty_limit=1)
    story = TableStory(str)
    told(story, [table.records[0]])
    assert (story.to_act, story.stage) == ("ann", "opening")
    told(story, [table.act("ann", Throw(), 6, 5)])
    assert (story.to_act, story.stage) == ("ann", "announce")
    told(story, [table.act("ann", Announce(65))])
    assert (story.to_act, story.stage, story.announcement) == ("bob", "response", 65)
    lines = told(story, [table.act("bob", Doubt())])
    assert lines == [
        "PLAYER WANTS TO SEE;bob",
        "ACTUAL DICE;6,5",
        "PLAYER LOST;bob;SEE_FAILED",
        "PLAYER LOST;bob;ELIMINATED",
        "SCORE;ann:0,bob:-1,cem:0",
        "(opening ('cem', 'ann'))",  # bob is out: the next active player starts
    ]
    assert story.to_act == "cem" and story.eliminated == {"bob"}


def test_a_timeout_is_told_with_the_classic_reason_for_what_the_bot_left_undone() -> None:
    table = Table(("ann", "bob"))
    story = TableStory(str)
    told(story, table.records)
    assert told(story, [table.act("ann", Timeout())])[0] == "PLAYER LOST;ann;DID_NOT_TAKE_TURN"
    told(story, [table.act("ann", Throw(), 4, 2)])
    assert told(story, [table.act("ann", Timeout())])[0] == "PLAYER LOST;ann;DID_NOT_ANNOUNCE"
    story.refused["ann"] = p.SEE_BEFORE_FIRST_ROLL  # the bridge saw its reply refused
    lines = told(story, [table.act("ann", Timeout())])
    assert lines[:3] == [
        "PLAYER LOST;ann;SEE_BEFORE_FIRST_ROLL",
        "PLAYER LOST;ann;ELIMINATED",
        "SCORE;ann:-3,bob:0",
    ]
    assert story.over


def test_a_record_read_twice_is_told_once() -> None:
    table = Table()
    story = TableStory(str)
    assert told(story, table.records)
    record = table.act("ann", Throw(), 2, 2)
    assert told(story, [record]) == ["PLAYER ROLLS;ann"]
    assert told(story, [record]) == []


def test_a_story_goes_on_from_the_spectator_view() -> None:
    table = Table()
    table.act("ann", Throw(), 2, 2)
    table.act("ann", Announce(22))
    view = {"over": False, "view": GAME.view(table.state, None)}
    story = TableStory.from_view(str, view)
    assert (story.version, story.to_act, story.stage, story.announcement) == (
        2,
        "bob",
        "response",
        22,
    )
    assert told(story, [table.act("bob", Doubt())])[-1] == "(opening ('bob', 'cem', 'ann'))"
    assert isinstance(story.read(table.records[0]), list)


def test_round_openings_list_the_players_in_the_order_they_act() -> None:
    story = TableStory(str, seats=["a", "b", "c", "d"], eliminated={"c"})
    assert story.active_order("b") == ("b", "d", "a")
    assert RoundOpening(2, ("b",)).round == 2


# --- the stand-in ------------------------------------------------------------------------


def test_the_stand_in_doubts_when_it_can_else_throws_and_announces_what_is_allowed() -> None:
    table = Table()
    view = GAME.view(table.state, "ann")
    assert stand_in_action(view) == {"kind": "throw"}
    table.act("ann", Throw(), 5, 3)
    assert stand_in_action(GAME.view(table.state, "ann")) == {"kind": "announce", "value": 53}
    table.act("ann", Announce(61))
    assert stand_in_action(GAME.view(table.state, "bob")) == {"kind": "doubt"}
    table.act("bob", Throw(), 3, 2)  # 32 does not beat 61: the lowest value that does
    assert stand_in_action(GAME.view(table.state, "bob")) == {"kind": "announce", "value": 62}


# --- replies to questions ----------------------------------------------------------------

HOME = ("127.0.0.1", 5000)


def prompts() -> tuple[Prompts, Tally]:
    tally = Tally()
    return Prompts(tally, lambda player: HOME if player == "ann" else None), tally


def test_a_reply_counts_once_with_its_token_from_its_bot() -> None:
    book, tally = prompts()
    prompt = book.ask("ann", frozenset({p.ROLL, p.SEE}))
    assert book.offer(p.Datagram("ROLL", ("made-up",)), HOME) == UNKNOWN_TOKEN
    assert book.offer(p.Datagram("ROLL", (prompt.token,)), ("127.0.0.1", 5001)) == WRONG_SENDER
    assert book.offer(p.Datagram("ANNOUNCE", ("3,1", prompt.token)), HOME) == UNEXPECTED
    assert prompt.wait(0) is None
    assert book.offer(p.Datagram("SEE", (prompt.token,)), HOME) == ANSWERED
    assert prompt.wait(0) == p.Datagram("SEE", (prompt.token,))
    assert book.offer(p.Datagram("ROLL", (prompt.token,)), HOME) == DUPLICATE
    assert tally.snapshot() == {
        UNKNOWN_TOKEN: 1,
        WRONG_SENDER: 1,
        UNEXPECTED: 1,
        ANSWERED: 1,
        DUPLICATE: 1,
    }


def test_unreadable_dice_leave_the_question_open() -> None:
    book, _ = prompts()
    prompt = book.ask("ann", frozenset({p.ANNOUNCE}))
    assert book.offer(p.Datagram("ANNOUNCE", ("9,9", prompt.token)), HOME) == UNEXPECTED
    assert book.offer(p.Datagram("ANNOUNCE", ("3,1", prompt.token)), HOME) == ANSWERED


def test_a_new_question_retires_the_old_token_but_not_the_rounds_join() -> None:
    book, _ = prompts()
    join = book.ask("ann", frozenset({p.JOIN}))
    first = book.ask("ann", frozenset({p.ROLL, p.SEE}))
    second = book.ask("ann", frozenset({p.ROLL, p.SEE}))
    assert book.offer(p.Datagram("ROLL", (first.token,)), HOME) == LATE
    assert book.offer(p.Datagram("JOIN", (join.token,)), HOME) == ANSWERED
    assert book.close(second) is None
    assert book.offer(p.Datagram("ROLL", (second.token,)), HOME) == LATE


# --- the roster file ---------------------------------------------------------------------


def test_the_roster_survives_a_restart_in_a_file_only_its_owner_reads(tmp_path: Path) -> None:
    path = tmp_path / "bridge.json"
    roster = Roster(path, "t-1")
    bot = Bot("anna", "p-1", "p-1.secret", "127.0.0.1", 4000)
    roster.add_bot(bot)
    roster.add_spectator(Spectator("eve", "127.0.0.1", 4001))
    roster.move(bot, ("127.0.0.1", 4002))
    assert roster.begin_table("R1-1") is False
    assert roster.begin_table("R1-1") is True
    Roster(path, "t-2").add_bot(Bot("bert", "p-9", "p-9.x", "127.0.0.1", 4003))

    again = Roster(path, "t-1")
    assert again.bot("p-1") == Bot("anna", "p-1", "p-1.secret", "127.0.0.1", 4002)
    assert again.bot_at(("127.0.0.1", 4002)) is not None and again.bot_at(bot.address)
    assert again.bot_at(("127.0.0.1", 4000)) is None
    assert again.name_of("p-1") == "anna" and again.name_of("p-x") == "p-x"
    assert again.listeners() == [("127.0.0.1", 4001)]
    assert again.tables == {"R1-1"}
    assert set(json.loads(path.read_text())["tournaments"]) == {"t-1", "t-2"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
