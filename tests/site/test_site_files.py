"""The site's files (`functions.site.files`) and which one an address is
(`functions.site.routing`): what the bucket holds and the local front serves."""

from __future__ import annotations

import json
import re

import pytest

from core.words import LANGUAGES, WORDS
from functions.site.files import site_files
from functions.site.routing import site_key


def test_the_site_is_one_shell_per_language_and_every_script() -> None:
    files = site_files()
    shells = {f"play.{lang}.html" for lang in LANGUAGES}
    scripts = {"assets/" + name for name in ("bracket", "live", "play", "story", "table", "watch")}
    assert set(files) == shells | {f"{key}.js" for key in scripts}
    for key in shells:
        assert files[key].content_type == "text/html; charset=utf-8"
    assert all("javascript" in files[f"{key}.js"].content_type for key in scripts)
    assert {file.cache_control for file in files.values()} == {"public, max-age=300"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_shell_names_no_tournament_and_carries_its_language(lang: str) -> None:
    html = site_files(socket="wss://sockets.example/ws")[f"play.{lang}.html"].body.decode()
    assert f'<html lang="{lang}">' in html
    assert WORDS[lang]["play.join"] in html  # the frame in its language
    words = re.search(r'<script type="application/json" id="words">(.*?)</script>', html)
    assert words is not None
    carried = json.loads(words[1])
    assert carried["play.no_tournament"] == WORDS[lang]["play.no_tournament"]
    assert carried["tournament.tables"] == WORDS[lang]["tournament.tables"]  # the header's
    data = re.search(r'<script type="application/json" id="play-data">(.*?)</script>', html)
    assert data is not None and json.loads(data[1]) == {}  # the script reads the address
    assert 'data-tournament=""' in html and 'data-socket="wss://sockets.example/ws"' in html
    assert re.findall(r'<script src="([^"]*)"', html) == [
        f"../../assets/{name}.js" for name in ("story", "live", "table", "play")
    ]
    assert "<h1 id=tournament-name>Knobelcup</h1>" in html  # the script names the tournament


@pytest.mark.parametrize(
    ("path", "query", "cookies", "accept", "key"),
    [
        ("/assets/play.js", {}, {}, "", "assets/play.js"),
        ("/assets/nothing.js", {}, {}, "", "assets/nothing.js"),  # the bucket's 404
        ("/tournaments/t-abc/play", {}, {}, "", "play.en.html"),
        ("/tournaments/t-abc/play", {}, {}, "de-DE,de;q=0.9,en;q=0.8", "play.de.html"),
        ("/tournaments/t-abc/play", {}, {}, "fr, en;q=0.5, de;q=0.7", "play.de.html"),
        ("/tournaments/t-abc/play", {}, {"knobelcup_lang": "de"}, "en", "play.de.html"),
        ("/tournaments/t-abc/play", {"lang": "en"}, {"knobelcup_lang": "de"}, "de", "play.en.html"),
        ("/tournaments/t-abc/play", {"lang": "fr"}, {}, "de", "play.de.html"),
        ("/tournaments/t-abc/play/", {}, {}, "", None),
        ("/tournaments/t-abc/bracket", {}, {}, "", None),
        ("/tournaments/t-abc", {}, {}, "", None),
        ("/", {}, {}, "", None),
    ],
)
def test_an_address_is_a_file_of_the_site_or_the_apis(
    path: str, query: dict[str, str], cookies: dict[str, str], accept: str, key: str | None
) -> None:
    assert site_key(path, query, cookies, accept) == key
