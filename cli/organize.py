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

Every verb speaks German or English (`organize.*` in `core.words`): `--language`, else
the named tournament's language (the organizer's choice, one look at the tournament),
else the locale's, else English (`cli.play.console_language`). On `create`, `--language`
is also the pages' language for the new tournament. What the service says of an error
is shown as it says it.
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
from cli.play import console_language
from core.words import DEFAULT, WORDS, say

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
LANGUAGE_HELP = (
    "what this command says, German or English (default: the tournament's language,"
    " else the locale's)"
)


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
    _common(create, "the pages' language for this tournament, and what this command says")
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


def _common(parser: argparse.ArgumentParser, language: str = LANGUAGE_HELP) -> None:
    add_url_option(parser)
    parser.add_argument("--language", choices=("de", "en"), help=language)
    parser.add_argument("--token", help="the organizer token (default: the key ring's)")
    parser.add_argument("--tokens-file", type=Path, help="the key ring (default: config folder)")


def run(
    args: argparse.Namespace, requests: Requests | None = None, out: TextIO = sys.stdout
) -> int:
    """Run one verb; returns the exit code."""
    ring = TokenFile(args.tokens_file)
    client = requests or Retrying(ApiClient(args.url))
    lang = console_language(args.language)  # until the tournament's own is known
    try:
        lang = organize_language(client, args)
        return Organizer(client, ring, args.url, out, lang=lang).run(args)
    except (ApiError, RetriesExhausted, TokenRefused) as error:
        print(say(lang, "organize.error", error=error), file=sys.stderr)
        return 1
    except LookupError as error:
        print(say(lang, "organize.error", error=error), file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise  # the reader went away (`| head`): `cli.main` ends quietly
    except OSError as error:
        print(say(lang, "organize.unreachable", url=args.url, error=error), file=sys.stderr)
        return 1


def organize_language(requests: Requests, args: argparse.Namespace) -> str:
    """What a verb says: `--language`, else the named tournament's `language` (one look;
    a tournament not found leaves it to the locale and the verb to say so), else the
    locale's. A service not answering fails the look as it would fail the verb."""
    tournament = getattr(args, "tournament", None)
    if args.language or not tournament:
        return console_language(args.language)
    try:
        seen = requests.ok("GET", f"/tournaments/{tournament}")
    except ApiError:
        seen = None
    chosen = seen.get("language") if isinstance(seen, dict) else None
    return console_language(None, chosen)


class Organizer:
    """The verbs, over one service and one key ring."""

    def __init__(
        self,
        requests: Requests,
        ring: TokenFile,
        url: str,
        out: TextIO,
        *,
        sleep: Callable[[float], None] = time.sleep,
        lang: str = DEFAULT,
    ) -> None:
        self._requests, self._ring, self._url, self._out = requests, ring, url.rstrip("/"), out
        self._sleep = sleep
        self.lang = lang

    def w(self, key: str, **values: object) -> str:
        """The sentence `key` in this organizer's language."""
        return say(self.lang, key, **values)

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
            self._say(
                self.w(
                    "organize.registration",
                    tournament=args.tournament,
                    status=_word(self.lang, "status", shown["status"]),
                    players=shown["player_count"],
                )
            )
        elif args.verb == "start":
            body = {"seed": args.seed} if args.seed else None
            shown = post(f"{base}/start", token, body)
            status = _word(self.lang, "status", shown["status"])
            self._say(
                self.w(
                    "organize.started",
                    tournament=args.tournament,
                    status=status,
                    seed=shown["seed"],
                )
            )
        elif args.verb == "cancel":
            self.cancel(base, token)
        elif args.verb == "rotate-token":
            self.rotate(args.tournament, token)
        elif args.verb == "disqualify":
            body = {"reason": args.reason} if args.reason else None
            done = post(f"{base}/players/{args.player}/disqualify", token, body)
            said = {
                "name": done["name"],
                "player": done["player"],
                "outcome": _word(self.lang, "organize.outcome", done["outcome"]),
            }
            if done["table"]:
                self._say(self.w("organize.outcome_at", table=done["table"], **said))
            else:
                self._say(self.w("organize.outcome", **said))
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
            "options": dict(self._option(text) for text in args.option),
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
        status = _word(self.lang, "status", made["status"])
        self._say(self.w("organize.created", tournament=tournament, status=status))
        self._say(self.w("organize.token_once", path=self._ring.path, token=token))
        self._say(self.w("organize.join_at", link=join))
        projector = f"{self._url}/tournaments/{tournament}/bracket?projector=1"
        self._say(self.w("organize.projector", link=projector + code.replace("?", "&")))
        if not args.no_qr:
            segno.make(join, error="m", micro=False).terminal(out=self._out, compact=True)
        return 0

    def list(self) -> int:
        """The kept tournaments, newest first, as the service sees them now."""
        kept = [t for t in self._ring.all() if t.url.rstrip("/") == self._url]
        if not kept:
            self._say(self.w("organize.none_here", url=self._url))
            return 0
        for entry in reversed(kept):
            try:
                seen = self._requests.ok("GET", f"/tournaments/{entry.tournament_id}")
            except ApiError as error:
                self._say(f"{entry.tournament_id}  ({error.code})  {entry.name}")
                continue
            status = _word(self.lang, "status", seen["status"])
            self._say(
                self.w(
                    "organize.list_row",
                    tournament=entry.tournament_id,
                    status=f"{status:<9}",
                    game=f"{seen['game']:<14}",
                    players=f"{seen['player_count']:>6}",
                    name=seen["name"],
                )
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
        generation = rotated["token_generation"]
        self._say(
            self.w("organize.rotated", generation=generation, path=self._ring.path, token=fresh)
        )

    def cancel(self, base: str, token: str) -> None:
        """Cancel, then follow the job that stops the tables in play until it is done."""
        shown = self._post(f"{base}/cancel", token)
        while shown["cancel_progress"] and shown["cancel_progress"]["stopping"]:
            self._sleep(1)
            shown = self._requests.ok("GET", base)
        stopped = shown["cancel_progress"]["tables_stopped"] if shown["cancel_progress"] else 0
        self._say(self.w("organize.cancelled", tournament=shown["tournament_id"], stopped=stopped))

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
            self._say(_status_text(self.lang, shown))
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
            self._say(self.w("organize.rotated_here"))
            return fresh.token
        refused_key = "organize.refused_kept" if kept else "organize.refused_given"
        raise TokenRefused(self.w(refused_key, tournament=tournament, code=error.code))

    def standings(self, base: str, token: str) -> None:
        """Every place decided so far, page by page."""
        offset: int | None = 0
        while offset is not None:
            page = self._requests.ok(
                "GET", f"{base}/organizer/standings", token=token, query={"offset": offset}
            )
            if offset == 0:
                status = _word(self.lang, "status", page["status"])
                self._say(self.w("organize.placed_so_far", placed=page["placed"], status=status))
            for row in page["standings"]:
                place = row["place"] or f"{row['place_from']}-{row['place_to']}"
                mark = ""
                if row["disqualified"]:
                    mark = "  " + self.w("organize.outcome.disqualified")
                elif row.get("forfeited"):
                    mark = "  " + self.w("organize.outcome.forfeited")
                line = self.w(
                    "organize.standing",
                    place=f"{place!s:>11}",
                    name=row["name"],
                    round=row["round"],
                    table=row["table"],
                    table_place=row["table_place"],
                )
                self._say(line + mark)
            offset = page["next_offset"]

    def log(self, base: str, token: str) -> None:
        """The audit trail, oldest first."""
        after: str | None = None
        while True:
            query = {"after": after} if after else {}
            page = self._requests.ok("GET", f"{base}/organizer/log", token=token, query=query)
            for entry in page["entries"]:
                detail = json.dumps(entry["detail"], ensure_ascii=False) if entry["detail"] else ""
                line = self.w(
                    "organize.log_row",
                    at=entry["at"],
                    actor=entry["actor"],
                    generation=entry["token_generation"],
                    action=entry["action"],
                )
                self._say(f"{line}  {detail}".rstrip())
            after = page["next_after"]
            if after is None:
                return

    def _post(self, path: str, token: str, body: object = None) -> Any:
        return self._requests.ok("POST", path, body, token=token, idempotent=False)

    def _kept_token(self, tournament: str) -> str:
        kept = self._ring.find(tournament)
        if kept is None:
            path = self._ring.path
            raise LookupError(self.w("organize.no_token", tournament=tournament, path=path))
        return kept.token

    def _say(self, line: str) -> None:
        print(line, file=self._out, flush=True)

    def _option(self, text: str) -> tuple[str, object]:
        key, equals, raw = text.partition("=")
        if not equals or not key:
            raise LookupError(self.w("organize.option_form", text=repr(text)))
        value: object = raw
        if raw.lower() in ("true", "false"):
            value = raw.lower() == "true"
        elif raw.lstrip("-").isdigit():
            value = int(raw)
        return key, value


def _word(lang: str, family: str, value: str) -> str:
    """A service's word (a status, an outcome) in `lang` where the catalogue has it
    (`family.value`), else as the service sent it."""
    key = f"{family}.{value}"
    return say(lang, key) if key in WORDS["en"] else value


def _status_text(lang: str, shown: dict[str, Any]) -> str:
    title = shown["name"] or shown["tournament_id"]
    status = _word(lang, "status", shown["status"])
    head = say(
        lang, "organize.registration", tournament=title, status=status,
        players=shown["player_count"],
    )  # fmt: skip
    lines = [head]
    for r in shown["rounds"]:
        line = say(
            lang, "organize.final_round" if r["final"] else "organize.round", round=r["round"],
            tables=r["tables"], playing=r["playing"], waiting=r["waiting"], over=r["over"],
        )  # fmt: skip
        if r["cancelled"]:
            line += ", " + say(lang, "organize.round_cancelled", cancelled=r["cancelled"])
        lines.append(line)
    if shown["stalled_count"]:
        tables = ", ".join(f"{s['table']} ({s['overdue_seconds']} s)" for s in shown["stalled"])
        lines.append(say(lang, "organize.stalled", count=shown["stalled_count"], tables=tables))
    return "\n".join(lines)
