"""`knobelcup organize VERB`: run a tournament from the terminal, with the organizer token.

knobelcup organize create --name "Stammtisch Cup" [--game maexchen --table-size 6 ...]
knobelcup organize list                       (the tournaments this computer created)
knobelcup organize open|close|start|cancel|rotate-token TOURNAMENT
knobelcup organize status TOURNAMENT [--watch SECONDS]
knobelcup organize standings TOURNAMENT       (places decided so far, during play)
knobelcup organize disqualify TOURNAMENT PLAYER [--reason TEXT]
knobelcup organize log TOURNAMENT             (the audit trail of organizer actions)

`create` prints the organizer token once and keeps it in the key ring
(`cli.organizer_tokens`, mode 0600); every other verb takes the token from there, or
from `--token`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TextIO
from urllib.parse import quote

import segno

from cli.api_client import ApiClient, ApiError, RetriesExhausted, Retrying
from cli.options import add_url_option
from cli.organizer_tokens import KeptTournament, TokenFile

TOURNAMENT_VERBS = (
    "open",
    "close",
    "start",
    "cancel",
    "rotate-token",
    "status",
    "standings",
    "log",
)


UNAUTHORIZED = 401


class TokenRefused(RuntimeError):
    """The service refused the organizer token, and no newer one is kept."""


class Requests(Protocol):
    """What the verbs need of the service: `Retrying` over an `ApiClient`, or a stand-in."""

    def ok(self, method: str, path: str, body: object = None, **request: Any) -> Any: ...


def add_parser(commands: Any) -> None:
    """`organize` and its verbs on the `knobelcup` command line."""
    organize = commands.add_parser("organize", help="create and run tournaments (organizer)")
    verbs = organize.add_subparsers(dest="verb", required=True, metavar="VERB")
    create = verbs.add_parser("create", help="create a tournament; prints its token once")
    _common(create)
    create.add_argument("--name", required=True, help="shown on the pages")
    create.add_argument("--game", default="maexchen", help="maexchen, mariechen, zweiundvierzig")
    create.add_argument("--table-size", type=int, default=6)
    create.add_argument("--advance", type=int, default=2)
    create.add_argument("--player-limit", type=int)
    create.add_argument("--turn-timeout", type=int, metavar="SECONDS")
    create.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a rule option"
    )
    create.add_argument("--no-qr", action="store_true", help="no QR code of the join link")
    create.add_argument(
        "--join-code", help="players must type this code to register (4-32 letters, digits, -)"
    )
    create.add_argument(
        "--language",
        choices=("de", "en"),
        help="the pages' language for this tournament (default: each browser's own)",
    )
    create.add_argument(
        "--organizer-key",
        default=os.environ.get("KNOBELCUP_ORGANIZER_KEY"),
        help="the deployment's key for creating tournaments, where it sets one"
        " (default: $KNOBELCUP_ORGANIZER_KEY)",
    )
    _common(verbs.add_parser("list", help="the tournaments this computer created"))
    for verb in TOURNAMENT_VERBS:
        parser = verbs.add_parser(verb, help=_HELP[verb])
        _common(parser)
        parser.add_argument("tournament", help="the tournament id")
        if verb == "status":
            parser.add_argument("--watch", type=float, metavar="SECONDS", help="repeat every")
        if verb == "start":
            parser.add_argument("--seed", help="shuffle the players by this seed")
    disqualify = verbs.add_parser("disqualify", help="remove (before the start) or disqualify")
    _common(disqualify)
    disqualify.add_argument("tournament")
    disqualify.add_argument("player", help="the player id")
    disqualify.add_argument("--reason", default="", help="kept in the audit trail")


_HELP = {
    "open": "open registration",
    "close": "close registration",
    "start": "seed and start",
    "cancel": "cancel: every table stops, nothing more is seated",
    "rotate-token": "a new organizer token; the old one stops working",
    "status": "live: rounds, tables playing and waiting, stalled tables",
    "standings": "the places decided so far",
    "log": "the audit trail: who did what, when",
}


def _common(parser: argparse.ArgumentParser) -> None:
    add_url_option(parser)
    parser.add_argument("--token", help="the organizer token (default: the key ring's)")
    parser.add_argument("--tokens-file", type=Path, help="the key ring (default: config folder)")


def run(
    args: argparse.Namespace, requests: Requests | None = None, out: TextIO = sys.stdout
) -> int:
    """Run one verb; returns the exit code."""
    ring = TokenFile(args.tokens_file)
    client = requests or Retrying(ApiClient(args.url))
    try:
        return Organizer(client, ring, args.url, out).run(args)
    except (ApiError, RetriesExhausted, TokenRefused) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except LookupError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise  # the reader went away (`| head`): `cli.main` ends quietly
    except OSError as error:
        print(f"error: cannot reach {args.url}: {error}", file=sys.stderr)
        return 1


class Organizer:
    """The verbs, over one service and one key ring."""

    def __init__(
        self,
        requests: Requests,
        ring: TokenFile,
        url: str,
        out: TextIO,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._requests, self._ring, self._url, self._out = requests, ring, url.rstrip("/"), out
        self._sleep = sleep

    def run(self, args: argparse.Namespace) -> int:
        """Dispatch `args.verb`."""
        if args.verb == "create":
            return self.create(args)
        if args.verb == "list":
            return self.list()
        token = args.token or self._kept_token(args.tournament)
        base = f"/tournaments/{args.tournament}"
        post = self._post
        if args.verb in ("open", "close"):
            shown = post(f"{base}/registration/{args.verb}", token)
            self._say(f"{args.tournament}: {shown['status']}, {shown['player_count']} players")
        elif args.verb == "start":
            body = {"seed": args.seed} if args.seed else None
            shown = post(f"{base}/start", token, body)
            self._say(f"{args.tournament}: {shown['status']}, seed {shown['seed']}")
        elif args.verb == "cancel":
            self.cancel(base, token)
        elif args.verb == "rotate-token":
            self.rotate(args.tournament, token)
        elif args.verb == "disqualify":
            body = {"reason": args.reason} if args.reason else None
            done = post(f"{base}/players/{args.player}/disqualify", token, body)
            where = f" at {done['table']}" if done["table"] else ""
            self._say(f"{done['name']} ({done['player']}): {done['outcome']}{where}")
        elif args.verb == "status":
            self.status(args.tournament, token, args.watch, kept=args.token is None)
        elif args.verb == "standings":
            self.standings(base, token)
        else:
            self.log(base, token)
        return 0

    def create(self, args: argparse.Namespace) -> int:
        """Create, keep the token, print it once with the join link and its QR code."""
        body: dict[str, Any] = {
            "game": args.game,
            "name": args.name,
            "table_size": args.table_size,
            "advance": args.advance,
            "options": dict(_option(text) for text in args.option),
        }
        if args.player_limit is not None:
            body["player_limit"] = args.player_limit
        if args.turn_timeout is not None:
            body["turn_timeout_seconds"] = args.turn_timeout
        if args.join_code:
            body["join_code"] = args.join_code
        if args.language:
            body["language"] = args.language
        made = self._requests.ok(
            "POST", "/tournaments", body, idempotent=False, token=args.organizer_key
        )
        tournament, token = made["tournament_id"], made["organizer_token"]
        now = datetime.now(UTC).isoformat(timespec="seconds")
        self._ring.keep(KeptTournament(tournament, self._url, token, args.name, now))
        code = f"?code={quote(args.join_code)}" if args.join_code else ""
        # the service's own join link: on its public address (`serve --lan`), which
        # phones can open, where this command may talk to it on loopback
        join = (made.get("play_url") or f"{self._url}/tournaments/{tournament}/play") + code
        self._say(f"Tournament {tournament} created ({made['status']}).")
        self._say(f"Organizer token (shown only now; kept in {self._ring.path}):\n  {token}")
        self._say(f"Players join at {join}")
        projector = f"{self._url}/tournaments/{tournament}/bracket?projector=1"
        self._say(f"Projector: {projector}{code.replace('?', '&')}")
        if not args.no_qr:
            segno.make(join, error="m", micro=False).terminal(out=self._out, compact=True)
        return 0

    def list(self) -> int:
        """The kept tournaments, newest first, as the service sees them now."""
        kept = [t for t in self._ring.all() if t.url.rstrip("/") == self._url]
        if not kept:
            self._say(f"No tournaments created from here on {self._url}.")
            return 0
        for entry in reversed(kept):
            try:
                seen = self._requests.ok("GET", f"/tournaments/{entry.tournament_id}")
            except ApiError as error:
                self._say(f"{entry.tournament_id}  ({error.code})  {entry.name}")
                continue
            self._say(
                f"{entry.tournament_id}  {seen['status']:<9} {seen['game']:<14}"
                f" {seen['player_count']:>6} players  {seen['name']}"
            )
        return 0

    def rotate(self, tournament: str, token: str) -> None:
        """A new token: kept in the ring in place of the old one, printed once."""
        rotated = self._post(f"/tournaments/{tournament}/organizer/token", token)
        kept = self._ring.find(tournament)
        name = kept.name if kept else ""
        created = kept.created_at if kept else ""
        fresh = rotated["organizer_token"]
        self._ring.keep(KeptTournament(tournament, self._url, fresh, name, created))
        self._say(f"New organizer token (generation {rotated['token_generation']}; the old one")
        self._say(f"no longer works; kept in {self._ring.path}):\n  {fresh}")

    def cancel(self, base: str, token: str) -> None:
        """Cancel, then follow the job that stops the tables in play until it is done."""
        shown = self._post(f"{base}/cancel", token)
        while shown["cancel_progress"] and shown["cancel_progress"]["stopping"]:
            self._sleep(1)
            shown = self._requests.ok("GET", base)
        stopped = shown["cancel_progress"]["tables_stopped"] if shown["cancel_progress"] else 0
        self._say(f"{shown['tournament_id']}: cancelled, {stopped} tables stopped")

    def status(self, tournament: str, token: str, watch: float | None, *, kept: bool) -> None:
        """The live status, once or every `watch` seconds until Ctrl-C or the end. A
        token from the key ring (`kept`) that stops working mid-watch is looked up again:
        a `rotate-token` from this computer put its successor there."""
        path = f"/tournaments/{tournament}/organizer/status"
        while True:
            try:
                shown = self._requests.ok("GET", path, token=token)
            except ApiError as error:
                if error.status != UNAUTHORIZED:
                    raise
                token = self._token_after_rotation(tournament, token, kept, error)
                continue
            self._say(_status_text(shown))
            if not watch or shown["status"] in ("finished", "cancelled"):
                return
            self._sleep(watch)

    def _token_after_rotation(
        self, tournament: str, refused: str, kept: bool, error: ApiError
    ) -> str:
        """The key ring's token of `tournament` when it is not the `refused` one;
        otherwise `TokenRefused`, saying what to do."""
        fresh = self._ring.find(tournament) if kept else None
        if fresh is not None and fresh.token != refused:
            self._say("(the organizer token was rotated: going on with the new one)")
            return fresh.token
        where = "the key ring's" if kept else "the --token"
        raise TokenRefused(
            f"{where} organizer token of {tournament} was refused ({error.code}): if it was"
            f" rotated on another computer, run `knobelcup organize status {tournament}"
            " --token NEW-TOKEN` with the token `rotate-token` printed there"
        )

    def standings(self, base: str, token: str) -> None:
        """Every place decided so far, page by page."""
        offset: int | None = 0
        while offset is not None:
            page = self._requests.ok(
                "GET", f"{base}/organizer/standings", token=token, query={"offset": offset}
            )
            if offset == 0:
                self._say(f"{page['placed']} players placed so far ({page['status']})")
            for row in page["standings"]:
                place = row["place"] or f"{row['place_from']}-{row['place_to']}"
                mark = "  disqualified" if row["disqualified"] else ""
                if row.get("forfeited") and not row["disqualified"]:
                    mark = "  forfeited"
                self._say(
                    f"{place!s:>11}  {row['name']}  (round {row['round']}, {row['table']},"
                    f" place {row['table_place']}){mark}"
                )
            offset = page["next_offset"]

    def log(self, base: str, token: str) -> None:
        """The audit trail, oldest first."""
        after: str | None = None
        while True:
            query = {"after": after} if after else {}
            page = self._requests.ok("GET", f"{base}/organizer/log", token=token, query=query)
            for entry in page["entries"]:
                detail = json.dumps(entry["detail"], ensure_ascii=False) if entry["detail"] else ""
                self._say(
                    f"{entry['at']}  {entry['actor']} (token {entry['token_generation']})"
                    f"  {entry['action']}  {detail}".rstrip()
                )
            after = page["next_after"]
            if after is None:
                return

    def _post(self, path: str, token: str, body: object = None) -> Any:
        return self._requests.ok("POST", path, body, token=token, idempotent=False)

    def _kept_token(self, tournament: str) -> str:
        kept = self._ring.find(tournament)
        if kept is None:
            raise LookupError(f"no token kept for {tournament} in {self._ring.path}: give --token")
        return kept.token

    def _say(self, line: str) -> None:
        print(line, file=self._out, flush=True)


def _status_text(shown: dict[str, Any]) -> str:
    title = shown["name"] or shown["tournament_id"]
    lines = [f"{title}: {shown['status']}, {shown['player_count']} players"]
    for r in shown["rounds"]:
        final = " (final)" if r["final"] else ""
        lines.append(
            f"  round {r['round']}{final}: {r['tables']} tables — {r['playing']} playing,"
            f" {r['waiting']} waiting, {r['over']} over"
            + (f", {r['cancelled']} cancelled" if r["cancelled"] else "")
        )
    if shown["stalled_count"]:
        tables = ", ".join(f"{s['table']} ({s['overdue_seconds']} s)" for s in shown["stalled"])
        lines.append(f"  stalled past their deadline: {shown['stalled_count']}: {tables}")
    return "\n".join(lines)


def _option(text: str) -> tuple[str, object]:
    key, equals, raw = text.partition("=")
    if not equals or not key:
        raise LookupError(f"--option must be KEY=VALUE, got {text!r}")
    value: object = raw
    if raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    elif raw.lstrip("-").isdigit():
        value = int(raw)
    return key, value
