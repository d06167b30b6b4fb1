"""`make serve --host 0.0.0.0` on a pub's Wi-Fi: the front answers there, moto's
server (the whole database and queues, no credentials checked) does not."""

from __future__ import annotations

import http.client
import socket

import boto3
import pytest
from botocore.exceptions import EndpointConnectionError
from served import lan_address, serve_in_session


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
