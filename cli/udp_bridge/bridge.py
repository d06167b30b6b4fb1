"""The bridge: classic UDP Mäxchen bots as players of one Knobelcup tournament.

It registers each bot over the HTTP API and holds its token, finds the tables its bots
(or, once a spectator listens, all players) sit at, and gives each such table a thread
(`tables.TableDriver`) that tells it and drives its bots' turns.
"""

from __future__ import annotations

import logging
import queue
import threading
from pathlib import Path
from typing import Any

from cli.api_client import ApiClient, ApiError
from cli.seeds import registration_body
from cli.udp_bridge import protocol as p
from cli.udp_bridge.endpoint import Endpoint
from cli.udp_bridge.prompts import DUPLICATE, UNKNOWN_SENDER, Address, Prompts, Tally
from cli.udp_bridge.roster import Bot, Roster, Spectator
from cli.udp_bridge.tables import TableDriver, Wiring

log = logging.getLogger("knobelcup.udp_bridge")


class BridgeError(RuntimeError):
    """The bridge cannot serve this tournament."""


class Bridge:
    """Serves one tournament's classic bots on one UDP port until stopped."""

    def __init__(
        self,
        url: str,
        tournament: str,
        *,
        host: str = "127.0.0.1",
        port: int = 9000,
        state: Path | None = None,
        answer_timeout: float | None = None,
        poll: float = 0.25,
    ) -> None:
        self.tally = Tally()
        self.roster = Roster(state, tournament)
        self.prompts = Prompts(self.tally, self._address_of)
        self.stop_event = threading.Event()
        self.finished = threading.Event()  # the tournament is over and all of it told
        self._url = url
        self._tournament = tournament
        self._poll = poll
        self._answer_timeout = answer_timeout
        self._endpoint = Endpoint(host, port, self._handle, self.tally)
        self._registrations: queue.Queue[tuple[str, str | None, Address]] = queue.Queue()
        self._waiting: set[tuple[str, str | None, Address]] = set()
        self._drivers: dict[str, TableDriver] = {}
        self._settled_rounds: set[int] = set()
        self._threads = [
            threading.Thread(target=self._register_loop, name="udp-register", daemon=True),
            threading.Thread(target=self._discover_loop, name="udp-discover", daemon=True),
        ]

    @property
    def address(self) -> Address:
        """Where bots send their datagrams."""
        return self._endpoint.address

    def start(self) -> None:
        """Check the tournament, then listen; `BridgeError` if it cannot be served."""
        client = ApiClient(self._url)
        try:
            tournament = client.ok("GET", f"/tournaments/{self._tournament}")
        except ApiError as error:
            raise BridgeError(f"tournament {self._tournament}: {error.message}") from error
        finally:
            client.close()
        if tournament["game"] != "maexchen":
            raise BridgeError(
                f"tournament {self._tournament} plays {tournament['game']}; "
                "the classic UDP protocol knows only Mäxchen"
            )
        self._endpoint.start()
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        """Stop listening and telling; what the bots registered stays in the state file."""
        self.stop_event.set()
        self._registrations.put(("", None, ("", 0)))  # wakes the registration thread
        for thread in self._threads:
            if thread.is_alive():
                thread.join(timeout=5)
        for driver in list(self._drivers.values()):
            driver.thread.join(timeout=5)
        self._endpoint.close()

    # --- datagrams --------------------------------------------------------------------

    def _handle(self, datagram: p.Datagram, sender: Address) -> None:
        if datagram.command in (p.REGISTER, p.REGISTER_SPECTATOR):
            request = (datagram.command, datagram.field(0), sender)
            if request in self._waiting:  # the same request again before its answer
                self.tally.add(DUPLICATE)
                return
            self._waiting.add(request)
            self._registrations.put(request)
            return
        if self.roster.bot_at(sender) is None:
            self.tally.add(UNKNOWN_SENDER)
            return
        self.prompts.offer(datagram, sender)

    def _address_of(self, player_id: str) -> Address | None:
        bot = self.roster.bot(player_id)
        return None if bot is None else bot.address

    # --- registration -----------------------------------------------------------------

    def _register_loop(self) -> None:
        client = ApiClient(self._url)
        try:
            while not self.stop_event.is_set():
                request = self._registrations.get()
                if self.stop_event.is_set():
                    return
                command, name, sender = request
                try:
                    answer = self._register(client, name, sender, command == p.REGISTER_SPECTATOR)
                except Exception:
                    log.exception("registering %r failed", name)
                    answer = p.rejected(p.SERVICE_UNAVAILABLE)
                finally:
                    self._waiting.discard(request)
                self._endpoint.send(sender, answer)
        finally:
            client.close()

    def _register(
        self, client: ApiClient, name: str | None, sender: Address, spectator: bool
    ) -> str:
        """The answer to `REGISTER;name` (or `REGISTER_SPECTATOR;name`) from `sender`."""
        if name is None or not p.valid_name(name):
            return p.rejected(p.INVALID_NAME)
        known: Bot | Spectator | None = self.roster.bots.get(name)
        known = known or self.roster.spectators.get(name)
        if known is not None:
            # The classic rule: the same name again is the same client if it comes from
            # the same host (a restarted bot gets a new port).
            if known.host != sender[0] or spectator != isinstance(known, Spectator):
                return p.rejected(p.NAME_ALREADY_TAKEN)
            if isinstance(known, Bot):
                self.roster.move(known, sender)
            else:
                self.roster.add_spectator(Spectator(name, *sender))
            log.info("%s registered again from %s:%s", name, *sender)
            return p.registered()
        if spectator:
            self.roster.add_spectator(Spectator(name, *sender))
            log.info("spectator %s registered from %s:%s", name, *sender)
            return p.registered()
        try:
            path = f"/tournaments/{self._tournament}/players"
            made = client.ok("POST", path, registration_body(name))
        except ApiError as error:
            log.info("%s rejected: %s", name, error)
            return p.rejected(_rejection(error))
        except OSError as error:
            log.warning("%s not registered: cannot reach the service: %s", name, error)
            client.close()
            return p.rejected(p.SERVICE_UNAVAILABLE)
        self.roster.add_bot(Bot(name, made["player_id"], made["player_token"], *sender))
        log.info("%s registered from %s:%s as %s", name, *sender, made["player_id"])
        return p.registered()

    # --- finding the tables -----------------------------------------------------------

    def _discover_loop(self) -> None:
        client = ApiClient(self._url)
        try:
            while not self.stop_event.is_set():
                try:
                    if self._discover(client):
                        self.finished.set()
                        return
                except (ApiError, OSError) as error:
                    log.warning("cannot read the tournament: %s; trying again", error)
                    client.close()
                self.stop_event.wait(self._poll)
        finally:
            client.close()

    def _discover(self, client: ApiClient) -> bool:
        """Start a thread for every table to tell; whether the tournament is over and
        every table told to its end."""
        tournament = client.ok("GET", f"/tournaments/{self._tournament}")
        for summary in tournament["rounds"]:
            number = summary["round"]
            if number not in self._settled_rounds:
                self._discover_round(client, number, summary["tables"])
        if tournament["status"] != "finished":
            return False
        if any(not driver.done for driver in self._drivers.values()):
            return False
        champion = tournament["champion"]
        log.info("the tournament is over; champion: %s", champion and self.roster.name_of(champion))
        return True

    def _discover_round(self, client: ApiClient, number: int, planned: int) -> None:
        offset: int | None = 0
        listed, all_over = 0, True
        while offset is not None:
            page = client.ok(
                "GET",
                f"/tournaments/{self._tournament}/rounds/{number}",
                query={"offset": offset, "limit": 100},
            )
            for table in page["tables"]:
                listed += 1
                all_over = all_over and table["over"]
                self._consider(table)
            offset = page["next_offset"]
        if listed >= planned and all_over:
            self._settled_rounds.add(number)

    def _consider(self, table: dict[str, Any]) -> None:
        ref = table["table"]
        driver = self._drivers.get(ref)
        if driver is not None and (driver.done or driver.thread.is_alive()):
            return
        if driver is None and (table["over"] or len(table["players"]) < 2):
            return  # over before the bridge saw it, or a bye: nothing to play
        ours = self.roster.player_ids()
        if not ours.intersection(table["players"]) and not self.roster.spectators:
            return
        resume = self.roster.begin_table(ref) or driver is not None
        driver = TableDriver(self._wiring(), ref, resume=resume)
        self._drivers[ref] = driver
        log.info("table %s: %s", ref, "going on" if resume else "telling it")
        driver.start()

    def _wiring(self) -> Wiring:
        return Wiring(
            url=self._url,
            tournament=self._tournament,
            roster=self.roster,
            prompts=self.prompts,
            send=self._endpoint.send,
            tally=self.tally,
            answer_timeout=self._answer_timeout,
            poll=self._poll,
            stop=self.stop_event,
        )


def _rejection(error: ApiError) -> str:
    """The `REJECTED` reason for the service's refusal to register a player."""
    if error.code == "name_taken":
        return p.NAME_ALREADY_TAKEN
    if error.code == "invalid_field":
        return p.INVALID_NAME
    if error.status >= 500 or error.status == 429:
        return p.SERVICE_UNAVAILABLE
    return error.code.upper()  # e.g. REGISTRATION_CLOSED, NOT_FOUND
