"""`make serve --host 0.0.0.0` on a pub's Wi-Fi: the front answers there, moto's
server (the whole database and queues, no credentials checked) does not; with `--lan` or
`--public-url`, every QR code and join link points where phones can go."""

from __future__ import annotations

import html
import http.client
import io
import re
import socket
import urllib.request
from pathlib import Path

import boto3
import pytest
from botocore.exceptions import EndpointConnectionError
from served import lan_address, serve_in_session

from cli.main import build_parser
from cli.organize import run
from functions.pages.qr import qr_svg


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].rstrip("/"))


def test_only_the_front_answers_from_the_network_whatever_host_says(aws_env: None) -> None:
    lan = lan_address()
    with serve_in_session("--host", "0.0.0.0", "--memory") as (_, url, printed):
        [moto_url] = [line.split()[-1] for line in printed.splitlines() if "moto (AWS)" in line]
        assert moto_url.startswith("http://127.0.0.1:")
        front = http.client.HTTPConnection(lan, _port(url), timeout=10)
        front.request("GET", "/openapi.json")
        assert front.getresponse().status == 200
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((lan, _port(moto_url)), timeout=10).close()
        # what the issue tried from another address: ListTables with made-up credentials
        stranger = boto3.client(
            "dynamodb",
            endpoint_url=f"http://{lan}:{_port(moto_url)}",
            aws_access_key_id="made",
            aws_secret_access_key="up",
        )
        with pytest.raises(EndpointConnectionError):
            stranger.list_tables()
        # the same server answers on loopback: refused for the address, not for being down
        local = boto3.client("dynamodb", endpoint_url=moto_url)
        assert any("knobelcup" in name for name in local.list_tables()["TableNames"])


def _create_with_organize(url: str, tmp_path: Path, *extra: str) -> str:
    """What `knobelcup organize create --url URL` prints against the service at `url`."""
    out = io.StringIO()
    args = build_parser().parse_args(
        [
            "organize",
            "create",
            "--url",
            url,
            "--tokens-file",
            str(tmp_path / "tokens.json"),
            "--game",
            "maexchen",
            "--name",
            "Pub cup",
            *extra,
        ]
    )
    assert run(args, out=out) == 0
    return out.getvalue()


def _projector_page(url: str, tournament: str, query: str = "") -> str:
    with urllib.request.urlopen(
        f"{url}/tournaments/{tournament}/bracket?projector=1{query}", timeout=30
    ) as answer:
        return str(answer.read().decode())


def test_with_lan_every_qr_code_and_join_link_is_on_the_lan_address(
    aws_env: None, tmp_path: Path
) -> None:
    """The projector's browser opens the service at 0.0.0.0 (or on loopback): the QR code
    and the join link it shows carry the LAN address, which a phone can open, and so does
    the join link `organize create` prints while talking to the service on loopback."""
    lan = lan_address()
    with serve_in_session("--lan", "--memory") as (_, url, printed):
        public = f"http://{lan}:{_port(url)}"
        assert f"Phones open    {public}" in printed
        loopback = f"http://127.0.0.1:{_port(url)}"
        said = _create_with_organize(loopback, tmp_path, "--join-code", "PUB-7", "--no-qr")
        [tournament] = re.findall(r"Tournament (\S+) created", said)
        play = f"{public}/tournaments/{tournament}/play"
        assert f"Players join at {play}?code=PUB-7" in said
        for opened_at in (f"http://0.0.0.0:{_port(url)}", loopback):
            page = _projector_page(opened_at, tournament, "&code=PUB-7")
            assert qr_svg(f"{play}?code=PUB-7") in page  # the QR code's payload, exactly
            assert html.escape(f"{play}?code=PUB-7") in page
            assert "http://0.0.0.0" not in page and "http://127.0.0.1" not in page
        # the projector's own socket stays on the host its browser reached
        assert f'data-socket="ws://127.0.0.1:{_port(url)}/ws"' in page


def test_public_url_names_the_address_phones_open(aws_env: None, tmp_path: Path) -> None:
    """`--public-url`: a name (or a forwarded port) the machine cannot detect."""
    with serve_in_session("--public-url", "http://cup.example:8080/", "--memory") as (
        _,
        url,
        printed,
    ):
        assert "Phones open    http://cup.example:8080" in printed
        said = _create_with_organize(url, tmp_path)
        [tournament] = re.findall(r"Tournament (\S+) created", said)
        play = f"http://cup.example:8080/tournaments/{tournament}/play"
        assert f"Players join at {play}\n" in said
        assert qr_svg(play) in _projector_page(url, tournament)
