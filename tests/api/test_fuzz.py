"""Arbitrary bodies never crash the API: every answer is a documented status with the
JSON error shape, and a rejected action leaves the table as it was."""

from __future__ import annotations

import json
from typing import Any

from apiclient import Stack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_errors import first_turn

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
KINDS = st.sampled_from(["throw", "blind_reroll", "announce", "doubt", "stop", "concede", "x"])
ACTIONS = st.fixed_dictionaries(
    {"version": st.integers(-2, 3) | JSON, "action": st.fixed_dictionaries({"kind": KINDS})},
    optional={"extra": JSON},
) | st.fixed_dictionaries(
    {
        "version": st.integers(0, 2),
        "action": st.fixed_dictionaries({"kind": KINDS, "value": st.integers(-5, 70) | JSON}),
    }
)
DOCUMENTED = {200, 201, 400, 401, 403, 404, 409, 422}
FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def assert_documented(answer: Any) -> None:
    assert answer.status in DOCUMENTED, (answer.status, answer.raw)
    if answer.status >= 400:
        assert isinstance(answer.body["code"], str) and answer.body["message"]


@FUZZ
@given(body=JSON | st.dictionaries(st.sampled_from(["game", "table_size", "options"]), JSON))
def test_any_body_to_create_is_answered_cleanly(stack: Stack, body: Any) -> None:
    assert_documented(stack.api.call("POST", "/tournaments", body))


@FUZZ
@given(raw=st.text(max_size=40))
def test_any_text_as_a_body_is_answered_cleanly(stack: Stack, raw: str) -> None:
    answer = stack.api.call(
        "POST", "/tournaments", raw, headers={"content-type": "application/json"}
    )
    assert_documented(answer)


def test_any_action_body_is_answered_cleanly_and_rejections_change_nothing(stack: Stack) -> None:
    tournament, _, acting, _, _ = first_turn(stack)
    path = f"/tournaments/{tournament}/tables/R1-1"

    @FUZZ
    @given(body=ACTIONS | JSON)
    def check(body: Any) -> None:
        before = stack.api.call("GET", path).body["view"]["version"]
        answer = stack.api.call("POST", path + "/actions", body, token=acting["player_token"])
        assert_documented(answer)
        after = stack.api.call("GET", path).body["view"]["version"]
        applied = answer.status == 200 and answer.body["view"]["version"] == before + 1
        # a 200 for an older version is a recognised retry: it applies nothing again
        assert after == before + applied, json.dumps(body)

    check()
