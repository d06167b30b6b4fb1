"""`knobelcup organize` against the API's handler on moto: the key ring, every verb."""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import stat
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import boto3
import pytest
from moto import mock_aws
from suite_dice import suite_seed

from cli.api_client import ApiError
from cli.main import build_parser
from cli.organize import Organizer, run
from cli.organizer_tokens import TokenFile
from functions.api.app import lambda_handler
from functions.wiring import services, use_services
from infra.bootstrap import build_jobs, build_services
from infra.dice import SeededDice
from infra.jobs.runner import JobRunner
from infra.services.admission import Admission
from infra.settings import Settings
from local.lambda_events import invoke_http
from local.provision import create_tables

URL = "http://127.0.0.1:3000"
NOW = 1_800_000_000.0


class InProcess:
    """`Requests` through the API's Lambda handler; a start runs its job to the end."""

    def __init__(self, jobs: JobRunner) -> None:
        self.jobs = jobs

    def ok(self, method: str, path: str, body: object = None, **request: Any) -> Any:
        request.pop("idempotent", None)
        query = request.pop("query", "")
        answer = invoke_http(
            lambda_handler,
            method,
            path,
            body,
            query=urlencode(query) if isinstance(query, dict) else query,
            **request,
        )
        if not 200 <= answer.status < 300:
            raise ApiError(method, path, answer)
        if answer.status == 202 and path.endswith(("/start", "/cancel")):
            self.jobs.run_to_end(answer.body["tournament_id"])
        return answer.body


@pytest.fixture
def service(aws_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[InProcess]:
    monkeypatch.setenv("KNOBELCUP_TABLE", "knobelcup")
    with mock_aws():
        client = boto3.client("dynamodb")
        create_tables(client, names={"KnobelcupTable": "knobelcup"})
        settings = Settings.from_env()
        dice = SeededDice(suite_seed("organize"))
        wired = build_services(settings, client=client, dice=dice, clock=lambda: NOW)
        seconds = itertools.count(NOW)  # the audit trail's entries each a second apart
        wired.organizer._clock = lambda: float(next(seconds))
        use_services(wired)
        yield InProcess(build_jobs(settings, client=client, clock=lambda: NOW, dice=dice))
        use_services(None)


def organize(service: InProcess, ring: Path, *argv: str) -> tuple[int, str]:
    args = build_parser().parse_args(
        ["organize", argv[0], "--url", URL, "--tokens-file", str(ring), *argv[1:]]
    )
    out = io.StringIO()
    return run(args, service, out), out.getvalue()


def register(service: InProcess, tournament: str, name: str) -> dict[str, Any]:
    body: dict[str, Any] = service.ok("POST", f"/tournaments/{tournament}/players", {"name": name})
    return body


def test_create_prints_the_token_once_keeps_it_private_and_shows_a_qr_code(
    service: InProcess, tmp_path: Path
) -> None:
    ring = tmp_path / "config" / "tournaments.json"
    code, out = organize(service, ring, "create", "--name", "Stammtisch", "--table-size", "4")
    assert code == 0
    [kept] = TokenFile(ring).all()
    assert kept.token in out and f"{URL}/tournaments/{kept.tournament_id}/play" in out
    assert stat.S_IMODE(ring.stat().st_mode) == 0o600
    assert "█" in out or "▀" in out  # the QR code, in block characters
    code, listed = organize(service, ring, "list")
    assert code == 0 and kept.tournament_id in listed and "draft" in listed


def test_a_tournament_run_from_the_terminal(service: InProcess, tmp_path: Path) -> None:
    ring = tmp_path / "tournaments.json"
    organize(service, ring, "create", "--name", "Cup", "--table-size", "4", "--no-qr")
    tournament = TokenFile(ring).all()[0].tournament_id
    assert organize(service, ring, "open", tournament)[1].startswith(f"{tournament}: open")
    players = [register(service, tournament, f"p{n}") for n in range(9)]
    code, out = organize(service, ring, "disqualify", tournament, players[8]["player_id"])
    assert code == 0 and "removed" in out
    code, out = organize(service, ring, "start", tournament, "--seed", "abc")
    assert code == 0 and "seed abc" in out
    code, out = organize(service, ring, "status", tournament)
    assert "round 1: 2 tables — 2 playing, 0 waiting, 0 over" in out
    assert "round 2 (final): 1 tables — 0 playing, 1 waiting" in out
    code, out = organize(service, ring, "standings", tournament)
    assert code == 0 and "0 players placed so far (running)" in out
    code, out = organize(
        service, ring, "disqualify", tournament, players[0]["player_id"], "--reason", "cheating"
    )
    assert code == 0 and ("forfeited" in out or "disqualified" in out)
    old = TokenFile(ring).all()[0].token
    code, out = organize(service, ring, "rotate-token", tournament)
    new = TokenFile(ring).all()[0].token
    assert code == 0 and new != old and new in out
    code, out = organize(service, ring, "cancel", tournament)
    assert code == 0 and "cancelled, 2 tables stopped" in out
    code, out = organize(service, ring, "log", tournament)
    actions = [line.split("  ")[2] for line in out.splitlines()]
    assert actions == [
        "create",
        "open_registration",
        "disqualify",
        "start",
        "disqualify",
        "rotate_token",
        "cancel",
    ]
    assert "(token 2)  cancel" in out and '"reason": "cheating"' in out


def test_a_verb_without_a_kept_token_says_so(service: InProcess, tmp_path: Path) -> None:
    code, _ = organize(service, tmp_path / "none.json", "status", "t-abcdefghij")
    assert code == 2


def test_the_old_token_fails_after_a_rotation(service: InProcess, tmp_path: Path) -> None:
    ring = tmp_path / "tournaments.json"
    organize(service, ring, "create", "--name", "Cup", "--no-qr")
    kept = TokenFile(ring).all()[0]
    organize(service, ring, "rotate-token", kept.tournament_id)
    code, _ = organize(service, ring, "open", kept.tournament_id, "--token", kept.token)
    assert code == 1


def test_create_with_the_deployment_s_key_and_a_join_code(
    service: InProcess, tmp_path: Path
) -> None:
    key_hash = hashlib.sha256(b"pub-key").hexdigest()
    use_services(replace(services(), admission=Admission(organizer_key_hash=key_hash)))
    ring = tmp_path / "tournaments.json"
    code, _ = organize(service, ring, "create", "--name", "Stammtisch", "--no-qr")
    assert code != 0 and not TokenFile(ring).all()  # the deployment wants its key
    code, out = organize(
        service, ring, "create", "--name", "Stammtisch", "--no-qr",
        "--organizer-key", "pub-key", "--join-code", "WUERFEL",
    )  # fmt: skip
    [kept] = TokenFile(ring).all()
    assert code == 0 and f"/tournaments/{kept.tournament_id}/play?code=WUERFEL" in out
    assert "bracket?projector=1&code=WUERFEL" in out
    read = service.ok("GET", f"/tournaments/{kept.tournament_id}")
    assert read["join_code_required"] is True


def test_create_in_german_makes_the_pages_german(service: InProcess, tmp_path: Path) -> None:
    ring = tmp_path / "tournaments.json"
    code, out = organize(service, ring, "create", "--name", "Kneipe", "--no-qr", "--language", "de")
    [kept] = TokenFile(ring).all()
    assert code == 0
    assert service.ok("GET", f"/tournaments/{kept.tournament_id}")["language"] == "de"
    assert f"Turnier {kept.tournament_id} angelegt (Entwurf)." in out
    assert "Organisator-Token (nur jetzt zu sehen" in out and "Anmeldung der Spieler unter" in out


def test_the_organizer_s_commands_speak_the_tournament_s_language(
    service: InProcess, tmp_path: Path
) -> None:
    """No `--language`: a German tournament's verbs speak German (the locale is English
    here); `--language en` says it in English all the same."""
    ring = tmp_path / "tournaments.json"
    organize(service, ring, "create", "--name", "Kneipe", "--no-qr", "--language", "de")
    tournament = TokenFile(ring).all()[0].tournament_id
    code, out = organize(service, ring, "open", tournament)
    assert code == 0 and out.startswith(f"{tournament}: Anmeldung offen, 0 Spieler")
    for n in range(5):
        register(service, tournament, f"p{n}")
    organize(service, ring, "start", tournament, "--seed", "abc", "--language", "en")
    code, out = organize(service, ring, "status", tournament)
    assert code == 0 and "Kneipe: läuft, 5 Spieler" in out and "Runde 1" in out
    code, out = organize(service, ring, "status", tournament, "--language", "en")
    assert "Kneipe: running, 5 players" in out and "round 1" in out
    code, out = organize(service, ring, "cancel", tournament)
    assert code == 0 and "abgesagt" in out
    code, out = organize(service, ring, "list", "--language", "de")
    assert "abgesagt" in out and "Spieler" in out


def test_a_status_watch_goes_on_after_a_rotation_from_this_computer(
    service: InProcess, tmp_path: Path
) -> None:
    ring = tmp_path / "tournaments.json"
    organize(service, ring, "create", "--name", "Cup", "--no-qr")
    tournament = TokenFile(ring).all()[0].tournament_id
    organize(service, ring, "open", tournament)
    steps = iter(["rotate-token", "cancel"])  # between two looks: rotate; then end it

    def meanwhile(seconds: float) -> None:
        assert organize(service, ring, next(steps), tournament)[0] == 0

    out = io.StringIO()
    watcher = Organizer(service, TokenFile(ring), URL, out, sleep=meanwhile)
    args = build_parser().parse_args(
        ["organize", "status", tournament, "--watch", "5", "--tokens-file", str(ring)]
    )
    assert watcher.run(args) == 0
    said = out.getvalue()
    assert "the organizer token was rotated: going on with the new one" in said
    assert said.count("Cup: ") == 3 and "Cup: cancelled" in said


def test_a_token_rotated_elsewhere_says_what_to_do(service: InProcess, tmp_path: Path) -> None:
    ring = tmp_path / "tournaments.json"
    organize(service, ring, "create", "--name", "Cup", "--no-qr")
    kept = TokenFile(ring).all()[0]
    organize(service, tmp_path / "ring", "rotate-token", kept.tournament_id, "--token", kept.token)
    args = build_parser().parse_args(
        ["organize", "status", kept.tournament_id, "--tokens-file", str(ring), "--url", URL]
    )
    with contextlib.redirect_stderr(io.StringIO()) as err:
        assert run(args, service, io.StringIO()) == 1
    assert "--token NEW-TOKEN" in err.getvalue() and "Traceback" not in err.getvalue()
