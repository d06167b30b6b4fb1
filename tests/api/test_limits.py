"""Limits on abuse, through the real handler on moto: registrations per tournament and
per source address, creations per address, the organizer key."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from apiclient import Stack
from conftest import NOW, TABLE
from suite_dice import suite_seed

from functions.api.app import lambda_handler
from functions.wiring import use_services
from infra.bootstrap import build_services
from infra.dice import SeededDice
from infra.services.admission import Admission, key_matches
from infra.settings import Settings
from infra.store.rate_limits import Limit
from local.lambda_events import HttpAnswer, LocalContext, http_api_event, invoke_http
from local.provision import load_template

GAME = {"game": "maexchen", "table_size": 4, "advance": 1}
KEY = "pub-night-key-0123456789"


class Clock:
    """A clock the test moves on."""

    def __init__(self) -> None:
        self.now = NOW + 0.25  # a quarter second into a window

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def configure(stack: Stack, clock: Clock) -> Iterator[Callable[..., None]]:
    """Run the API with these settings (besides the test table)."""

    def wire(**settings: Any) -> None:
        chosen = Settings(table_name=TABLE, event_bus="bus", **settings)
        use_services(
            build_services(
                chosen, client=stack.dynamodb, dice=SeededDice(suite_seed("limits")), clock=clock
            )
        )

    yield wire
    use_services(None)


def call(
    method: str, path: str, body: object = None, *, address: str = "203.0.113.7", **headers: str
) -> HttpAnswer:
    """A request from `address`, as API Gateway reports it."""

    def from_address(event: dict[str, Any], context: Any) -> dict[str, Any]:
        event["requestContext"]["http"]["sourceIp"] = address
        return lambda_handler(event, context)

    return invoke_http(from_address, method, path, body, headers=headers)


def open_tournament(**headers: str) -> str:
    made = call("POST", "/tournaments", GAME, **headers)
    assert made.status == 201, made.body
    tournament: str = made.body["tournament_id"]
    token = made.body["organizer_token"]
    opened = call(
        "POST", f"/tournaments/{tournament}/registration/open", Authorization=f"Bearer {token}"
    )
    assert opened.status == 200, opened.body
    return tournament


def register(tournament: str, name: str, address: str = "203.0.113.7") -> HttpAnswer:
    return call("POST", f"/tournaments/{tournament}/players", {"name": name}, address=address)


# --- parsing -----------------------------------------------------------------------------


def test_a_limit_is_count_per_seconds_and_empty_or_zero_is_none() -> None:
    assert Limit.parse("30/60") == Limit(30, 60)
    assert Limit.parse(" 5 ") == Limit(5, 1)
    assert Limit.parse("") is None and Limit.parse("0") is None and Limit.parse("0/60") is None
    assert Limit.parse("1000/10", shards=8) == Limit(1000, 10, 8)
    assert Limit.parse("3/10", shards=8) == Limit(3, 10, 3)  # never a shard with no place
    assert Limit(1000, 10, 8).per_shard == 125
    with pytest.raises(ValueError):
        Limit.parse("5/0")
    with pytest.raises(ValueError):
        Limit.parse("many")


def test_locally_by_default_nothing_is_limited_and_no_key_is_needed() -> None:
    admission = Admission.from_settings(Settings.from_env({}), limiter=None)  # type: ignore[arg-type]
    assert admission == dataclasses.replace(Admission(), limiter=None)
    assert not admission.organizer_key_required


# --- registrations -----------------------------------------------------------------------


def test_registrations_per_address_answer_429_with_the_real_wait(
    configure: Callable[..., None], clock: Clock
) -> None:
    configure(registrations_per_address="3/60")
    tournament = open_tournament()
    for n in range(3):
        assert register(tournament, f"Anna {n}").status == 201
    refused = register(tournament, "Anna 3")
    assert refused.status == 429
    assert refused.body["code"] == "rate_limited"
    assert refused.headers["retry-after"] == "60"  # the window began 0.25 s ago
    assert refused.headers["content-type"] == "application/json"
    clock.now += 30
    assert register(tournament, "Anna 4").headers["retry-after"] == "30"
    # another address (another pub) is not held back by this one
    assert register(tournament, "Bernd", address="198.51.100.1").status == 201
    clock.now += 30  # the next window
    assert register(tournament, "Anna 5").status == 201


def test_a_pub_of_fifty_behind_one_address_fits_the_template_default(
    configure: Callable[..., None],
) -> None:
    configure(registrations_per_address=template_default("RegistrationsPerAddress"))
    tournament = open_tournament()
    answers = [register(tournament, f"Gast {n}").status for n in range(50)]
    assert answers == [201] * 50


def test_registrations_per_tournament_hold_across_addresses(
    configure: Callable[..., None],
) -> None:
    configure(registrations_per_tournament="8/10")
    tournament = open_tournament()
    statuses = [register(tournament, f"P{n}", address=f"192.0.2.{n}").status for n in range(40)]
    assert statuses.count(201) <= 8  # each of the 8 shards takes its share, one
    assert 429 in statuses
    other = open_tournament()  # another tournament has its own count
    assert register(other, "Cem", address="192.0.2.99").status == 201


def test_a_refused_registration_registers_nobody(
    configure: Callable[..., None], stack: Stack
) -> None:
    configure(registrations_per_address="1/60")
    tournament = open_tournament()
    assert register(tournament, "Anna").status == 201
    assert register(tournament, "Bernd").status == 429
    read = call("GET", f"/tournaments/{tournament}")
    assert read.body["player_count"] == 1


# --- creations and the organizer key -----------------------------------------------------


def test_without_a_key_creations_per_address_are_limited(configure: Callable[..., None]) -> None:
    configure(creations_per_address="2/3600")
    assert call("POST", "/tournaments", GAME).status == 201
    assert call("POST", "/tournaments", GAME).status == 201
    refused = call("POST", "/tournaments", GAME)
    assert refused.status == 429 and refused.body["code"] == "rate_limited"
    assert int(refused.headers["retry-after"]) > 3000
    assert call("POST", "/tournaments", GAME, address="198.51.100.1").status == 201


def test_with_a_key_creating_needs_it_and_is_not_rate_limited(
    configure: Callable[..., None],
) -> None:
    configure(
        organizer_key_hash=hashlib.sha256(KEY.encode()).hexdigest(), creations_per_address="1/3600"
    )
    missing = call("POST", "/tournaments", GAME)
    assert missing.status == 401
    assert missing.body["code"] == "unauthorized"
    assert "organizer key" in missing.body["message"]
    wrong = call("POST", "/tournaments", GAME, Authorization="Bearer not-the-key")
    assert wrong.status == 401
    malformed = call("POST", "/tournaments", GAME, Authorization="Basic abc")
    assert malformed.status == 401
    for _ in range(3):
        made = call("POST", "/tournaments", GAME, Authorization=f"Bearer {KEY}")
        assert made.status == 201, made.body


def test_without_a_key_an_authorization_header_is_ignored(configure: Callable[..., None]) -> None:
    configure()
    assert call("POST", "/tournaments", GAME, Authorization="Basic abc").status == 201


def test_keys_match_by_their_hash() -> None:
    digest = hashlib.sha256(KEY.encode()).hexdigest()
    assert key_matches(KEY, digest) and key_matches(KEY, digest.upper())
    assert not key_matches(KEY + " ", digest) and not key_matches("", digest)


def test_the_settings_read_the_key_hash_and_limits_from_the_environment() -> None:
    env = {
        "KNOBELCUP_ORGANIZER_KEY_HASH": "AB" * 32,
        "KNOBELCUP_REGISTRATIONS_PER_TOURNAMENT": "1000/10",
        "KNOBELCUP_REGISTRATIONS_PER_ADDRESS": "120/60",
        "KNOBELCUP_CREATIONS_PER_ADDRESS": "10/3600",
    }
    admission = Admission.from_settings(Settings.from_env(env), limiter=None)  # type: ignore[arg-type]
    assert admission.organizer_key_hash == "ab" * 32
    assert admission.registrations_per_tournament == Limit(1000, 10, 8)
    assert admission.registrations_per_address == Limit(120, 60)
    assert admission.creations_per_address == Limit(10, 3600)


def test_429_is_documented_with_the_error_body_on_create_and_register(stack: Stack) -> None:
    document = stack.api.call("GET", "/openapi.json").body
    create = document["paths"]["/tournaments"]["post"]
    assert {"401", "429"} <= set(create["responses"])
    assert create["security"] == [{}, {"bearerAuth": []}]
    register_op = document["paths"]["/tournaments/{tournament_id}/players"]["post"]
    assert "429" in register_op["responses"]


def template_default(parameter: str) -> str:
    """A parameter's default in template.yaml."""
    default: str = load_template()["Parameters"][parameter]["Default"]
    return default


def test_the_raw_event_carries_the_source_address() -> None:
    event = http_api_event("GET", "/", source_ip="192.0.2.5")
    assert event["requestContext"]["http"]["sourceIp"] == "192.0.2.5"
    assert LocalContext().function_name


def test_the_template_hands_the_limits_to_the_api_function() -> None:
    template = load_template()
    key = template["Parameters"]["OrganizerKeyHash"]
    assert key["NoEcho"] is True and "Default" not in key  # a deployment must decide
    variables = template["Resources"]["ApiFunction"]["Properties"]["Environment"]["Variables"]
    assert variables["KNOBELCUP_ORGANIZER_KEY_HASH"] == {
        "Fn::If": ["OrganizerKeyOpen", "", {"Ref": "OrganizerKeyHash"}]
    }
    for variable, parameter in {
        "KNOBELCUP_CREATIONS_PER_ADDRESS": "CreationsPerAddress",
        "KNOBELCUP_REGISTRATIONS_PER_ADDRESS": "RegistrationsPerAddress",
        "KNOBELCUP_REGISTRATIONS_PER_TOURNAMENT": "RegistrationsPerTournament",
        "KNOBELCUP_CORS_ORIGINS": "CorsAllowedOrigins",
    }.items():
        assert variables[variable] == {"Ref": parameter}
        default = template["Parameters"][parameter]["Default"]
        if parameter != "CorsAllowedOrigins":
            assert Limit.parse(default) is not None  # on by default in a deployment
    assert template["Parameters"]["CorsAllowedOrigins"]["Default"] == ""
