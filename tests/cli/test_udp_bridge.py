"""`knobelcup udp-bridge` on the served stack: bots of the classic UDP protocol
(examples/udp_bot.py, written from the protocol document) play whole tournaments
through it; the noise of a network, silent bots and a restart of the bridge do not
stop them."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cli.api_client import ApiClient
from cli.udp_bridge.bridge import Bridge
from examples.udp_bot import MiaBot

FINISH_SECONDS = 120


class Cup:
    """A Mäxchen tournament on the served stack, created and opened by its organizer."""

    def __init__(self, url: str, **settings: Any) -> None:
        self.url = url
        self.api = ApiClient(url)
        made = self.api.ok(
            "POST", "/tournaments", {"game": "maexchen", "name": "UDP cup", **settings}
        )
        self.id, self._organizer = made["tournament_id"], made["organizer_token"]
        self.api.ok("POST", f"/tournaments/{self.id}/registration/open", token=self._organizer)

    def start(self) -> None:
        self.api.ok("POST", f"/tournaments/{self.id}/start", {"seed": "udp"}, token=self._organizer)

    def read(self) -> dict[str, Any]:
        tournament: dict[str, Any] = self.api.ok("GET", f"/tournaments/{self.id}")
        return tournament

    def logs(self) -> list[list[dict[str, Any]]]:
        """Every table's log records, round by round."""
        logs = []
        for summary in self.read()["rounds"]:
            tables = self.api.ok("GET", f"/tournaments/{self.id}/rounds/{summary['round']}")
            for table in tables["tables"]:
                path = f"/tournaments/{self.id}/tables/{table['table']}/log"
                logs.append(self.api.ok("GET", path)["records"])
        return logs


@contextmanager
def bridge_for(cup: Cup, **options: Any) -> Iterator[Bridge]:
    bridge = Bridge(cup.url, cup.id, port=0, state=None, poll=0.1, **options)
    bridge.start()
    try:
        yield bridge
    finally:
        bridge.stop()


@contextmanager
def bots(*made: MiaBot) -> Iterator[list[MiaBot]]:
    started = [bot.start() for bot in made]
    try:
        for bot in started:
            assert bot.registered.wait(10), f"{bot.name} heard no answer to its registration"
        yield started
    finally:
        for bot in started:
            bot.stop()


def events(logs: list[list[dict[str, Any]]], kind: str) -> list[dict[str, Any]]:
    return [e for records in logs for r in records for e in r["events"] if e["type"] == kind]


def test_classic_bots_play_a_tournament_to_its_champion(service_url: str) -> None:
    cup = Cup(service_url, table_size=4, advance=2)
    with bridge_for(cup) as bridge:
        players = [MiaBot(f"bot-{n}", bridge.address) for n in range(1, 9)]
        watcher = MiaBot("watcher", bridge.address, spectator=True)
        with bots(*players, watcher):
            assert all(bot.rejected is None for bot in [*players, watcher])
            cup.start()
            assert bridge.finished.wait(FINISH_SECONDS)
            tally = bridge.tally.snapshot()
    finished = cup.read()
    assert finished["status"] == "finished" and finished["player_count"] == 8
    champion = bridge.roster.name_of(finished["champion"])
    assert champion in {bot.name for bot in players}
    assert set(tally) == {"answered"}  # nothing ignored, nobody stood in for

    logs = cup.logs()
    assert len(logs) == 3  # two tables of four, then the final
    for bot in players:
        out = bot.heard(f"PLAYER LOST;{bot.name};ELIMINATED")
        assert len(out) == (0 if bot.name == champion else 1), bot.name
        # The dice each bot was told it rolled are the ones the service threw for it.
        thrown = [
            ",".join(map(str, sorted(e["dice"], reverse=True)))
            for e in events(logs, "DiceThrown")
            if bridge.roster.name_of(e["player"]) == bot.name
        ]
        assert [text.split(";")[1] for text in bot.heard("ROLLED;")] == thrown
        assert bot.heard("YOUR TURN;") and bot.heard("ROUND STARTING;")

    # The spectator heard every table: each round, penalty and elimination.
    lost = Counter(text.split(";")[2] for text in watcher.heard("PLAYER LOST;"))
    assert lost.pop("ELIMINATED") == len(events(logs, "PlayerEliminated")) == 7
    assert sum(lost.values()) == len(events(logs, "PenaltyGiven"))
    assert set(lost) <= {"SEE_FAILED", "CAUGHT_BLUFFING", "LIED_ABOUT_MIA"}
    assert len(watcher.heard("ROUND STARTED;")) == len(events(logs, "RoundStarted"))
    assert len(watcher.heard("SCORE;")) == len(events(logs, "PenaltyGiven"))
    assert not watcher.heard("YOUR TURN") and not watcher.heard("ROLLED")


class NoisyBot(MiaBot):
    """Says everything thrice: under a made-up token first, then twice for real; and
    sends some rubbish besides."""

    def send(self, text: str) -> None:
        command, *fields = text.split(";")
        if command in ("ROLL", "SEE", "ANNOUNCE"):
            super().send(";".join([command, *fields[:-1], "not-a-token"]))
            super().send(text)
            self.socket.sendto(b"\xff\xfe\x00garbage", self.server)
            self.socket.sendto(b"ROLL;" + b"9" * 5000, self.server)
        super().send(text)


def test_noise_is_ignored_and_counted_and_the_game_goes_on(service_url: str) -> None:
    cup = Cup(service_url, table_size=3, advance=1)
    with bridge_for(cup) as bridge:
        first_try = MiaBot("restarted", bridge.address)
        with bots(first_try):
            pass  # a bot that registered, then stopped: it comes back on another port
        players = [NoisyBot("noisy", bridge.address), MiaBot("calm", bridge.address)]
        again = MiaBot("restarted", bridge.address)
        impostor = MiaBot("calm", bridge.address, host="127.0.0.2")
        bad_name = MiaBot("no spaces", bridge.address)
        with bots(*players, again, impostor, bad_name):
            assert again.rejected is None and impostor.rejected == "NAME_ALREADY_TAKEN"
            assert bad_name.rejected == "INVALID_NAME"
            stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            stranger.sendto(b"ROLL;whatever", bridge.address)
            stranger.close()
            cup.start()
            assert bridge.finished.wait(FINISH_SECONDS)
            tally = bridge.tally.snapshot()
    finished = cup.read()
    assert finished["status"] == "finished" and finished["player_count"] == 3
    assert again.heard("YOUR TURN;") and not first_try.heard("ROUND STARTING;")
    turns = len(players[0].heard("YOUR TURN;")) + len(players[0].heard("ROLLED;"))
    assert tally["unknown_token"] == turns and tally["duplicate"] == turns
    assert tally["garbage"] == tally["oversized"] == turns
    assert tally["unknown_sender"] == 1
    assert "stand_in" not in tally and "late" not in tally


class SlowBot(MiaBot):
    """Answers everything 0.6 s late."""

    def send(self, text: str) -> None:
        if not text.startswith(("REGISTER", "JOIN")):
            time.sleep(0.6)
        super().send(text)


def test_a_bot_that_answers_too_late_is_stood_in_for(service_url: str) -> None:
    cup = Cup(service_url, table_size=3, advance=1)
    with bridge_for(cup, answer_timeout=0.3) as bridge:
        slow = SlowBot("slow", bridge.address)
        with bots(slow, MiaBot("quick-1", bridge.address), MiaBot("quick-2", bridge.address)):
            cup.start()
            assert bridge.finished.wait(FINISH_SECONDS)
            time.sleep(0.7)  # the last late answer
            tally = bridge.tally.snapshot()
    assert cup.read()["status"] == "finished"
    asked = len(slow.heard("YOUR TURN;"))
    assert asked and tally["stand_in"] >= asked and tally["late"] >= asked - 1
    assert not slow.heard("ROLLED;")  # the stand-in threw for it: the dice are not its


class SeeingBot(MiaBot):
    """Always wants to see, even as the first of a round."""

    def answer_turn(self, token: str) -> None:
        self.send(f"SEE;{token}")


def test_a_refused_reply_meets_the_tables_own_turn_timeout(service_url: str) -> None:
    cup = Cup(
        service_url,
        table_size=2,
        advance=1,
        options={"turn_timeout_seconds": 1, "penalty_limit": 1},
    )
    with bridge_for(cup) as bridge:
        both = [SeeingBot("ann", bridge.address), SeeingBot("bob", bridge.address)]
        with bots(*both):
            cup.start()
            assert bridge.finished.wait(FINISH_SECONDS)
            tally = bridge.tally.snapshot()
    opener = both[0].heard("ROUND STARTED;1;")[0].split(";")[2].split(",")[0]
    for bot in both:
        assert bot.heard("PLAYER LOST;") == [
            f"PLAYER LOST;{opener};SEE_BEFORE_FIRST_ROLL",
            f"PLAYER LOST;{opener};ELIMINATED",
        ]
    assert tally["refused"] == 1
    champion = cup.read()["champion"]
    assert bridge.roster.name_of(champion) != opener


# --- the command, killed and started again ---------------------------------------------


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextmanager
def bridge_command(cup: Cup, port: int, state: Path) -> Iterator[subprocess.Popen[str]]:
    """`knobelcup udp-bridge` in a process of its own, once it listens."""
    command = ["udp-bridge", "--url", cup.url, "--tournament", cup.id, "--port", str(port)]
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", *command, "--state", str(state), "--poll", "0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        assert f"127.0.0.1:{port}" in process.stdout.readline()
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def test_a_bridge_killed_mid_game_goes_on_with_its_players(
    service_url: str, tmp_path: Path
) -> None:
    cup = Cup(service_url, table_size=4, advance=1)
    port, state = free_udp_port(), tmp_path / "bridge.json"
    players = [MiaBot(f"p{n}", ("127.0.0.1", port)) for n in range(4)]
    with bridge_command(cup, port, state) as first, bots(*players):
        cup.start()
        deadline = time.monotonic() + FINISH_SECONDS
        while not players[0].heard("ROUND STARTED;3;") and time.monotonic() < deadline:
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait()
        killed_at = time.monotonic()
        with bridge_command(cup, port, state) as second:
            assert second.wait(timeout=FINISH_SECONDS) == 0  # it ends with the tournament
            assert second.stdout is not None and "Stopped." in second.stdout.read()
    finished = cup.read()
    assert finished["status"] == "finished" and finished["player_count"] == 4
    assert all(bot.log[0].text == "REGISTER;" + bot.name for bot in players)
    assert sum(1 for h in players[0].log if h.sent and h.text.startswith("REGISTER")) == 1
    eliminated = sum(len(bot.heard(f"PLAYER LOST;{bot.name};ELIMINATED")) for bot in players)
    assert eliminated == 3
    asked_later = [
        h for bot in players for h in bot.log if h.at > killed_at and h.text.startswith("YOUR TURN")
    ]
    assert asked_later  # the second bridge drove the table on
