"""The distribution's router (template.yaml: `SiteRouter`, CloudFront Functions'
JavaScript) and its twin the local front runs (`functions.site.routing`) choose the same
file for the same requests: the template's very code, run in Chromium."""

from __future__ import annotations

from typing import Any

import pytest
from browser import chromium

from functions.site.routing import site_key
from local.provision import TEMPLATE_PATH, load_template

REQUESTS = [
    ("/tournaments/t-abc/play", "", "", ""),
    ("/tournaments/t-abc/play", "", "", "de-DE,de;q=0.9,en;q=0.8"),
    ("/tournaments/t-abc/play", "", "", "en-US,en;q=0.9,de;q=0.95"),
    ("/tournaments/t-abc/play", "", "", "fr, en;q=0.5, de;q=0.7"),
    ("/tournaments/t-abc/play", "", "", "fr-FR"),
    ("/tournaments/t-abc/play", "", "", "de;q=oops, en;q=0.1"),
    ("/tournaments/t-abc/play", "", "", "DE-at"),
    ("/tournaments/t-abc/play", "", "de", "en"),
    ("/tournaments/t-abc/play", "", "xx", "de"),
    ("/tournaments/t-abc/play", "en", "de", "de"),
    ("/tournaments/t-abc/play", "de", "", ""),
    ("/tournaments/t-abc/play", "fr", "", "de"),
    ("/tournaments/t%20b/play", "", "", ""),
    ("/tournaments/t-abc/play/", "", "", ""),
    ("/tournaments/t-abc/bracket", "de", "", "de"),
    ("/tournaments/t-abc/players", "", "", ""),
    ("/tournaments/t-abc", "", "", ""),
    ("/", "", "", ""),
]


def event(path: str, lang: str, cookie: str, accept: str) -> dict[str, Any]:
    """A viewer-request event as CloudFront Functions 2.0 hand it over."""
    headers = {"host": {"value": "d111.cloudfront.net"}}
    if accept:
        headers["accept-language"] = {"value": accept}
    return {
        "version": "1.0",
        "viewer": {"ip": "203.0.113.7"},
        "request": {
            "method": "GET",
            "uri": path,
            "querystring": {"lang": {"value": lang}} if lang else {},
            "headers": headers,
            "cookies": {"knobelcup_lang": {"value": cookie}} if cookie else {},
        },
    }


@pytest.fixture(scope="module")
def routed() -> list[dict[str, Any]]:
    """Each of `REQUESTS` as the template's router leaves it."""
    code = load_template(TEMPLATE_PATH)["Resources"]["SiteRouter"]["Properties"]["FunctionCode"]
    with chromium() as browser:
        page = browser.new_page()
        result: list[dict[str, Any]] = page.evaluate(
            "([code, events]) => { const handler = new Function(code + '; return handler;')();"
            " return events.map((e) => handler(e)); }",
            [code, [event(*request) for request in REQUESTS]],
        )
    return result


def test_the_router_chooses_the_shell_its_twin_chooses(routed: list[dict[str, Any]]) -> None:
    for (path, lang, cookie, accept), request in zip(REQUESTS, routed, strict=True):
        key = site_key(
            path,
            {"lang": lang} if lang else {},
            {"knobelcup_lang": cookie} if cookie else {},
            accept,
        )
        expected = "/" + key if key is not None else path
        assert request["uri"] == expected, (path, lang, cookie, accept)


def test_the_api_hears_who_asked_at_which_host(routed: list[dict[str, Any]]) -> None:
    for (path, *_), request in zip(REQUESTS, routed, strict=True):
        headers = request["headers"]
        if request["uri"].startswith("/play."):
            assert "x-knobelcup-viewer" not in headers  # the bucket needs neither
            continue
        assert headers["x-knobelcup-viewer"] == {"value": "203.0.113.7"}, path
        assert headers["x-forwarded-host"] == {"value": "d111.cloudfront.net"}, path
