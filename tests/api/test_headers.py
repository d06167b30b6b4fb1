"""Every answer says nosniff; pages carry a Content-Security-Policy; CORS only for the
origins the deployment names (`KNOBELCUP_CORS_ORIGINS`)."""

from __future__ import annotations

import base64
import hashlib
import re
from functools import partial
from typing import Any

import pytest
from apiclient import Stack

from functions.api.app import answer, make_app
from infra.settings import Settings
from local.lambda_events import HttpAnswer, LocalContext, http_api_event, invoke_http

GAME = {"game": "maexchen", "table_size": 4, "advance": 1}


def policy_of(answer: HttpAnswer) -> dict[str, list[str]]:
    """The answer's Content-Security-Policy as directive → sources."""
    text = answer.headers["content-security-policy"]
    directives = (part.split() for part in text.split(";") if part.strip())
    return {name: sources for name, *sources in directives}


def created(stack: Stack) -> str:
    tournament: str = stack.api.call("POST", "/tournaments", GAME).body["tournament_id"]
    return tournament


def test_every_answer_json_and_pages_says_nosniff(stack: Stack) -> None:
    tournament = created(stack)
    for path in ("/", f"/tournaments/{tournament}", "/tournaments/t_nope", "/openapi.json"):
        answer = stack.api.call("GET", path)
        assert answer.headers["x-content-type-options"] == "nosniff", path
    refused = stack.api.call("POST", "/tournaments", "{", headers={"content-type": "text/plain"})
    assert refused.status == 415
    assert refused.headers["x-content-type-options"] == "nosniff"


def test_pages_allow_scripts_from_the_service_alone(stack: Stack) -> None:
    tournament = created(stack)
    for path in ("/", f"/tournaments/{tournament}/bracket"):
        answer = stack.api.call("GET", path, headers={"host": "pub.example"})
        policy = policy_of(answer)
        assert policy["default-src"] == ["'self'"], path
        assert policy["script-src"] == ["'self'"], path  # no inline script runs
        assert policy["object-src"] == ["'none'"]
        assert policy["frame-ancestors"] == ["'none'"]
        assert policy["connect-src"] == ["'self'", "ws://pub.example"]  # its /ws
        assert "data:" in policy["img-src"]
        assert answer.headers["referrer-policy"] == "no-referrer"
        # the only script elements in the page are the service's files and JSON data
        for tag in re.findall(r"<script[^>]*>", answer.raw):
            assert "src=" in tag or 'type="application/json"' in tag, tag
    missing = stack.api.call("GET", "/tournaments/t_nope/bracket")
    assert missing.status == 404 and "script-src" in policy_of(missing)


def test_pages_may_connect_to_the_configured_websocket(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "KNOBELCUP_SOCKET_URL", "wss://abc.execute-api.eu-central-1.amazonaws.com/live"
    )
    tournament = created(stack)
    answer = stack.api.call("GET", f"/tournaments/{tournament}/bracket")
    assert policy_of(answer)["connect-src"] == [
        "'self'",
        "wss://abc.execute-api.eu-central-1.amazonaws.com",
    ]


def test_swagger_ui_runs_its_inline_scripts_by_hash_alone(stack: Stack) -> None:
    answer = stack.api.call("GET", "/docs")
    assert answer.status == 200
    sources = policy_of(answer)["script-src"]
    scripts = re.findall(r"<script>(.*?)</script>", answer.raw, re.DOTALL)
    assert scripts, "Swagger UI inlines its scripts"
    digests = {base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() for s in scripts}
    assert sources[0] == "'self'"
    assert set(sources[1:]) == {f"'sha256-{d}'" for d in digests}
    assert "'unsafe-inline'" not in sources


def test_json_answers_carry_no_page_policy(stack: Stack) -> None:
    answer = stack.api.call("GET", f"/tournaments/{created(stack)}")
    assert "content-security-policy" not in answer.headers


# --- CORS --------------------------------------------------------------------------------


def calls(origins: tuple[str, ...]) -> Any:
    """`invoke_http` on an API made with these CORS origins."""
    resolver = make_app(origins)
    return partial(invoke_http, lambda event, context: answer(resolver, event, context))


def test_without_origins_no_cors_headers_and_preflight_is_refused(stack: Stack) -> None:
    call = calls(())
    read = call("GET", "/", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in read.headers
    preflight = call(
        "OPTIONS",
        "/tournaments",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status == 405
    assert "access-control-allow-origin" not in preflight.headers


def test_an_allowed_origin_gets_its_preflight_and_its_answers(stack: Stack) -> None:
    call = calls(("https://pub.example", "https://cup.example"))
    origin = {"Origin": "https://cup.example"}
    preflight = call(
        "OPTIONS",
        "/tournaments/t_x/players",
        headers={**origin, "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status == 204
    assert preflight.headers["access-control-allow-origin"] == "https://cup.example"
    assert "POST" in preflight.headers["access-control-allow-methods"]
    allowed = preflight.headers["access-control-allow-headers"].lower()
    assert "authorization" in allowed and "idempotency-key" in allowed
    made = call("POST", "/tournaments", GAME, headers=origin)
    assert made.status == 201
    assert made.headers["access-control-allow-origin"] == "https://cup.example"
    assert "Retry-After" in made.headers["access-control-expose-headers"]
    other = call("GET", "/", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in other.headers


def test_the_deployed_handler_reads_its_origins_from_the_environment() -> None:
    env = {"KNOBELCUP_CORS_ORIGINS": " https://a.example , https://b.example,"}
    assert Settings.from_env(env).cors_origins == ("https://a.example", "https://b.example")
    assert Settings.from_env({}).cors_origins == ()


def test_a_raw_event_without_headers_still_gets_nosniff() -> None:
    event = http_api_event("GET", "/nowhere")
    event["headers"] = {}
    result = answer(make_app(()), event, LocalContext())
    assert result["statusCode"] == 404
    assert result["headers"]["X-Content-Type-Options"] == "nosniff"
