"""SnapStart: what a snapshot holds is renewed in every restored execution environment.

`functions.wiring` registers `prime` before the snapshot and `renew` after each restore
with Lambda's runtime hooks (`snapshot_restore_py`), and only in a SnapStart
initialization; the template offers SnapStart for ApiFunction, off by default.
"""

from __future__ import annotations

import random
import sys
import types
from collections.abc import Callable
from typing import Any

import pytest

from functions import wiring
from functions.wiring import Wired
from infra.bootstrap import aws_client
from infra.settings import Settings
from local.provision import load_template


class Built:
    """What a `Wired` builds: counts its builds."""

    count = 0

    def __init__(self, settings: Settings) -> None:
        Built.count += 1
        self.settings = settings


@pytest.fixture
def wired(monkeypatch: pytest.MonkeyPatch) -> Wired[Built]:
    """The one `Wired` the hooks know of (the functions' own stay untouched)."""
    monkeypatch.setenv("KNOBELCUP_TABLE", "t")
    monkeypatch.setattr(wiring, "_EVERY", [])
    return Wired(Built)


def test_renew_rebuilds_what_the_environment_built(wired: Wired[Built]) -> None:
    first = wired()
    assert wired() is first, "one instance per execution environment"
    wiring.renew()
    second = wired()
    assert second is not first, "a restored environment builds its own"


def test_renew_keeps_what_was_put_in_place(wired: Wired[Built]) -> None:
    mine = Built(Settings.from_env({"KNOBELCUP_TABLE": "t"}))
    wired.use(mine)
    wiring.renew()
    assert wired() is mine, "tests and the local stack keep their own"
    wired.use(None)
    assert wired() is not mine


def test_prime_builds_every_wired_before_the_snapshot(wired: Wired[Built]) -> None:
    before = Built.count
    wiring.prime()
    assert Built.count == before + 1
    built = wired()
    assert Built.count == before + 1 and isinstance(built, Built)


def test_renew_reseeds_random(wired: Wired[Built]) -> None:
    """Every environment restored from one snapshot would draw the same numbers (retry
    jitter included) unless `random` gets fresh entropy."""
    random.seed(7)
    snapshot = random.getstate()
    expected = [random.random() for _ in range(4)]
    random.setstate(snapshot)
    wiring.renew()
    assert [random.random() for _ in range(4)] != expected


@pytest.fixture
def runtime_hooks(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Callable[[], Any]]]:
    """A stand-in for Lambda's `snapshot_restore_py`, recording what is registered."""
    registered: dict[str, list[Callable[[], Any]]] = {"before": [], "after": []}
    module = types.ModuleType("snapshot_restore_py")
    module.register_before_snapshot = registered["before"].append  # type: ignore[attr-defined]
    module.register_after_restore = registered["after"].append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", module)
    return registered


def test_hooks_are_registered_in_a_snapstart_initialization(
    runtime_hooks: dict[str, list[Callable[[], Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "snap-start")
    assert wiring._register_snapstart_hooks() is True
    assert runtime_hooks == {"before": [wiring.prime], "after": [wiring.renew]}


@pytest.mark.parametrize("initialization", [None, "on-demand", "provisioned-concurrency"])
def test_no_hooks_without_snapstart(
    runtime_hooks: dict[str, list[Callable[[], Any]]],
    monkeypatch: pytest.MonkeyPatch,
    initialization: str | None,
) -> None:
    if initialization is None:
        monkeypatch.delenv("AWS_LAMBDA_INITIALIZATION_TYPE", raising=False)
    else:
        monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", initialization)
    assert wiring._register_snapstart_hooks() is False
    assert runtime_hooks == {"before": [], "after": []}


def test_a_runtime_without_the_hooks_library_is_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_LAMBDA_INITIALIZATION_TYPE", "snap-start")
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", None)  # import fails
    assert wiring._register_snapstart_hooks() is False


def test_clients_built_again_share_the_parsed_models(aws_env: None) -> None:
    """After a restore, a client is built anew (own session: credentials, connections)
    from the service models parsed before the snapshot."""
    first, second = aws_client("dynamodb"), aws_client("dynamodb")
    assert first is not second
    assert first._endpoint is not second._endpoint, "connections are not shared"
    shared = first.meta.service_model._service_description
    assert shared is second.meta.service_model._service_description, "the models are"


def test_the_template_offers_snapstart_for_the_api_off_by_default() -> None:
    template = load_template()
    runtime = template["Globals"]["Function"]["Runtime"]
    assert runtime in ("python3.12", "python3.13"), "SnapStart needs Python 3.12 or later"
    assert template["Parameters"]["ApiSnapStart"]["Default"] == "off"
    assert template["Conditions"]["ApiSnapStartOn"] == {
        "Fn::Equals": [{"Ref": "ApiSnapStart"}, "on"]
    }
    api = template["Resources"]["ApiFunction"]["Properties"]
    assert api["AutoPublishAlias"], "SnapStart snapshots published versions only"
    assert api["SnapStart"] == {
        "ApplyOn": {"Fn::If": ["ApiSnapStartOn", "PublishedVersions", "None"]}
    }
    layer = template["Resources"]["DependenciesLayer"]["Properties"]
    assert layer["CompatibleRuntimes"] == [runtime]
