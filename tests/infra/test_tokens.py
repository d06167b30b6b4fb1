"""Tokens are random, stored only as hashes, and name their owner."""

from __future__ import annotations

from infra.tokens import hash_token, new_id, new_token, token_matches, token_owner


def test_a_token_matches_only_its_own_hash() -> None:
    token = new_token("p-abc")
    stored = hash_token(token)
    assert token not in stored and len(stored) == 22
    assert token_matches(token, stored)
    assert not token_matches(new_token("p-abc"), stored)
    assert not token_matches(token + "x", stored)


def test_a_token_names_its_owner() -> None:
    assert token_owner(new_token("p-abc")) == "p-abc"
    assert token_owner("no-dot") == ""


def test_ids_are_unique_and_url_safe() -> None:
    ids = {new_id("t") for _ in range(1000)}
    assert len(ids) == 1000
    assert all(i.startswith("t-") and i[2:].isalnum() for i in ids)
