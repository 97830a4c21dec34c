"""T-MCP-3: the MCP HTTP transport answers only a client with the bearer token, under an
allowed Host name and Origin (issue 22). One `sandbash mcp --transport http`
server on 127.0.0.1 with a token and two allowed Host names; each case is one
raw HTTP request that must be refused before it reaches the MCP app (401 no or
wrong token, 421 a Host not listed: DNS rebinding, 403 an Origin not listed),
and the accepted spellings that must still work. The refusal to start on a
public address without a token or a host list is in tests/unit/test_mcp.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'sandbash[mcp]')")

import httpx2

from unit.mcphttp import INITIALIZE, http_server

TOKEN = "s3cret-t0ken-for-the-http-table"
PROBE = INITIALIZE
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
GOOD = f"Bearer {TOKEN}"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    path: Path = tmp_path_factory.mktemp("mcp") / "c.toml"
    path.write_text(
        '[sandbox]\ntimeout = 20\n[server]\nallowed_hosts = ["127.0.0.1:*", "mcp.sandbash.test:*"]\n'
    )
    with http_server(
        ["-m", "sandbash", "mcp", "--config", str(path)], env={"SANDBASH_MCP_TOKEN": TOKEN}
    ) as u:
        yield u


def _port(url: str) -> str:
    return url.split(":")[2].split("/")[0]


REFUSED: list[tuple[str, dict[str, str], int]] = [
    ("no token", {}, 401),
    ("empty bearer", {"Authorization": "Bearer"}, 401),
    ("token prefix", {"Authorization": f"Bearer {TOKEN[:-1]}"}, 401),
    ("token with a suffix", {"Authorization": f"Bearer {TOKEN}x"}, 401),
    ("token in another case", {"Authorization": f"Bearer {TOKEN.upper()}"}, 401),
    ("token without scheme", {"Authorization": TOKEN}, 401),
    ("token as basic", {"Authorization": f"Basic {TOKEN}"}, 401),
    ("token as a cookie", {"Cookie": f"token={TOKEN}"}, 401),
    ("token in another header", {"X-Api-Key": TOKEN}, 401),
    ("rebinding name", {"Authorization": GOOD, "Host": "evil.example:{port}"}, 421),
    ("name under an allowed one", {"Authorization": GOOD, "Host": "x.mcp.sandbash.test:{port}"}, 421),
    (
        "allowed name as a prefix",
        {"Authorization": GOOD, "Host": "mcp.sandbash.test.evil.example:{port}"},
        421,
    ),
    ("loopback name not listed", {"Authorization": GOOD, "Host": "localhost:{port}"}, 421),
    ("foreign origin", {"Authorization": GOOD, "Origin": "http://evil.example"}, 403),
    ("null origin", {"Authorization": GOOD, "Origin": "null"}, 403),
    ("origin under an allowed name", {"Authorization": GOOD, "Origin": "https://x.mcp.sandbash.test"}, 403),
]


@pytest.mark.parametrize("name, headers, status", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_requests(url: str, name: str, headers: dict[str, str], status: int) -> None:
    sent = {k: v.format(port=_port(url)) for k, v in headers.items()}
    with httpx2.Client(timeout=30) as http:
        resp = http.post(url, json=PROBE, headers={**ACCEPT, **sent})
    assert resp.status_code == status, (name, resp.status_code, resp.text)
    assert "sandbash" not in resp.text  # nothing of the server's answer


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
def test_every_method_needs_the_token(url: str, method: str) -> None:
    with httpx2.Client(timeout=30) as http:
        assert http.request(method, url, headers=ACCEPT).status_code == 401
        assert http.request(method, url + "/../other", headers=ACCEPT).status_code == 401


ACCEPTED: list[tuple[str, dict[str, str]]] = [
    ("token", {"Authorization": GOOD}),
    ("scheme in lower case", {"Authorization": f"bearer {TOKEN}"}),
    ("listed name", {"Authorization": GOOD, "Host": "mcp.sandbash.test:{port}"}),
    ("listed name on the default port", {"Authorization": GOOD, "Host": "mcp.sandbash.test"}),
    ("listed origin", {"Authorization": GOOD, "Origin": "https://mcp.sandbash.test"}),
    ("listed origin with a port", {"Authorization": GOOD, "Origin": "http://mcp.sandbash.test:8443"}),
]


@pytest.mark.parametrize("name, headers", ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_accepted_requests(url: str, name: str, headers: dict[str, str]) -> None:
    sent = {k: v.format(port=_port(url)) for k, v in headers.items()}
    with httpx2.Client(timeout=30) as http:
        resp = http.post(url, json=PROBE, headers={**ACCEPT, **sent})
    assert resp.status_code == 200, (name, resp.status_code, resp.text)
    assert '"sandbash"' in resp.text  # the server's initialize answer
