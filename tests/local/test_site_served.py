"""The served stack's front serves the site as CloudFront serves it from its bucket:
the play page's shells and the scripts, chosen by `functions.site.routing`, with the
pages' headers, and never an invocation of the API's function."""

from __future__ import annotations

import gzip
import urllib.error
import urllib.request

import pytest

from cli.api_client import ApiClient
from cli.stack_counts import read_counts
from functions.site.files import site_files


def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def test_the_play_page_and_its_scripts_cost_the_api_nothing(service_url: str) -> None:
    tournament = ApiClient(service_url).ok("POST", "/tournaments", {"game": "maexchen"})[
        "tournament_id"
    ]
    play = f"{service_url}/tournaments/{tournament}/play"
    before = read_counts(service_url)["calls"]
    status, headers, body = fetch(play, **{"Accept-Language": "de-DE,de;q=0.9"})
    assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
    assert body == site_files()["play.de.html"].body  # the bucket's very file
    assert headers["cache-control"] == "public, max-age=300"
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    _, _, english = fetch(play + "?lang=en", **{"Accept-Language": "de"})
    assert english == site_files()["play.en.html"].body
    _, _, kept = fetch(play, Cookie="knobelcup_lang=en")
    assert kept == site_files()["play.en.html"].body
    status, headers, script = fetch(f"{service_url}/assets/play.js", **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-type"] == "text/javascript; charset=utf-8"
    assert headers["content-encoding"] == "gzip"
    assert gzip.decompress(script) == site_files()["assets/play.js"].body
    assert fetch(f"{service_url}/assets/secrets.txt")[0] == 404
    after = read_counts(service_url)["calls"]
    assert after.get("lambda:ApiFunction", 0) == before.get("lambda:ApiFunction", 0)
    assert (
        after["cdn:GET /tournaments/{}/play"] - before.get("cdn:GET /tournaments/{}/play", 0) == 3
    )
    assert after["cdn:GET /assets/{}"] - before.get("cdn:GET /assets/{}", 0) == 2


def test_what_is_not_the_sites_is_the_apis(service_url: str) -> None:
    status, headers, _ = fetch(f"{service_url}/tournaments/t-nothing00/bracket")
    assert status == 404 and headers["content-type"].startswith("text/html")  # the API's page
    status, _, body = fetch(f"{service_url}/tournaments/t-nothing00")
    assert status == 404 and b"not_found" in body
    request = urllib.request.Request(
        f"{service_url}/tournaments/t-nothing00/play",
        method="POST",
        data=b"{}",
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 404  # the API's: the site serves only reads
    assert b"no_route" in refused.value.read()
