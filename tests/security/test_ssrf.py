"""SSRF: private addresses (in every spelling, behind DNS, after redirects, after
rebinding), allow-list escapes, and credential leaks across origins.

Every test runs under a guard that refuses any connection to a non-loopback
address before a packet leaves and any host DNS lookup but localhost's, and
records the attempts, so "refused" is checked as "never contacted".
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from sandbash.net import Credential, NetworkConfig
from unit.net.netfixtures import (
    Guard,
    Server,
    StubResolver,
    exempt_loopback,
    http_server,
    local_config,
    loopback_only,
    run_net,
)


@pytest.fixture(autouse=True)
def guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[Guard]:
    with loopback_only(monkeypatch) as g:
        yield g


@pytest.fixture
def server() -> Iterator[Server]:
    with http_server() as s:
        yield s


@pytest.fixture
def other() -> Iterator[Server]:
    with http_server() as s:
        yield s


def curl(cfg: NetworkConfig, *args: str) -> tuple[bytes, str, int]:
    r = run_net(["curl", *args], cfg)
    return r.stdout, r.stderr.decode(), r.status


FULL = {"dangerously_allow_full_internet_access": True}


def test_private_ranges_are_denied_by_default(server: Server, guard: Guard) -> None:
    cfg = NetworkConfig(allowed_url_prefixes=[server.url + "/"])
    _, err, status = curl(cfg, server.url + "/")
    assert (
        status == 7
        and err == "curl: (7) Access denied: 127.0.0.1 is a loopback address (private ranges are blocked)\n"
    )
    assert server.requests == [] and guard.attempts == []


def test_full_internet_access_still_denies_private_ranges(server: Server, guard: Guard) -> None:
    _, err, status = curl(NetworkConfig(**FULL), server.url + "/")
    assert status == 7 and "Access denied" in err and server.requests == [] and guard.attempts == []


def test_an_empty_allow_list_denies_everything(guard: Guard) -> None:
    _, err, status = curl(NetworkConfig(), "https://example.com/")
    assert status == 7 and "URL not in allow-list" in err and guard.attempts == guard.lookups == []


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "127.1",
        "2130706433",
        "0x7f.1",
        "0x7f000001",
        "0177.0.0.1",
        "017700000001",
        "127.255.255.254",
        "0.0.0.0",
        "0",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.0.1",
        "169.254.169.254",
        "100.64.0.1",
        "224.0.0.1",
        "255.255.255.255",
        "198.18.0.1",
        "192.0.2.10",
        "[::1]",
        "[::]",
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
        "[::ffff:169.254.169.254]",
        "[64:ff9b::127.0.0.1]",
        "[2002:7f00:1::1]",
        "[2002:a9fe:a9fe::]",
        "[fe80::1]",
        "[fc00::1]",
        "[fd00:ec2::254]",
        "[ff02::1]",
        "%31%32%37.0.0.1",
        "１２７．０．０．１",
    ],
)
def test_private_literals_in_any_spelling(host: str, guard: Guard) -> None:
    _, err, status = curl(NetworkConfig(**FULL), f"http://{host}/latest/meta-data/")
    assert status == 7 and "Access denied" in err and "private ranges are blocked" in err
    assert guard.attempts == []


@pytest.mark.parametrize(
    ("name", "answer"),
    [
        ("internal.example.com", ["10.0.0.5"]),
        ("metadata.example.com", ["169.254.169.254"]),
        ("v6.example.com", ["::1"]),
        ("mapped.example.com", ["::ffff:10.1.1.1"]),
        ("mixed.example.com", ["93.184.216.34", "127.0.0.1"]),  # one bad answer spoils all
    ],
)
def test_public_looking_names_resolving_privately(name: str, answer: list[str], guard: Guard) -> None:
    resolver = StubResolver({name: [answer]})
    _, err, status = curl(NetworkConfig(resolver=resolver, **FULL), f"http://{name}/")
    assert status == 7 and f"Access denied: {name} resolves to" in err
    assert guard.attempts == [] and guard.lookups == []


def test_localhost_through_the_system_resolver(server: Server, guard: Guard) -> None:
    _, err, status = curl(NetworkConfig(**FULL), f"http://localhost:{server.port}/")
    assert status == 7 and "Access denied: localhost resolves to" in err and guard.attempts == []


def test_dns_rebinding_is_refused_at_connect_time(server: Server, guard: Guard) -> None:
    """The name resolves to a public address first and to loopback next. The first
    connection goes to the validated public address (the guard refuses it without
    contact); the retry resolves again, gets loopback and is refused before connecting."""
    resolver = StubResolver({"rebind.example": [["93.184.216.34"], ["127.0.0.1"]]})
    cfg = NetworkConfig(resolver=resolver, **FULL)
    _, err, status = curl(
        cfg,
        "--retry",
        "1",
        "--retry-connrefused",
        "--retry-delay",
        "0.01",
        f"http://rebind.example:{server.port}/",
    )
    assert status == 7 and "Access denied: rebind.example resolves to 127.0.0.1" in err
    assert resolver.calls == ["rebind.example", "rebind.example"]
    assert guard.attempts == [("93.184.216.34", server.port)]
    assert server.requests == []


def test_the_connection_goes_to_the_validated_address(server: Server, guard: Guard) -> None:
    """Resolve once, connect to that address, keep the name in Host: a second answer is never used."""
    resolver = StubResolver({"api.example": [["127.0.0.1"], ["10.9.9.9"]]})
    cfg = NetworkConfig(
        allowed_url_prefixes=[f"http://api.example:{server.port}/"],
        resolver=resolver,
        deny_private_ranges=False,
    )
    out, _, status = curl(cfg, "-s", f"http://api.example:{server.port}/x")
    assert status == 0 and json.loads(out)["headers"]["Host"] == f"api.example:{server.port}"
    assert resolver.calls == ["api.example"] and guard.attempts == [("127.0.0.1", server.port)]


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://127.0.0.2:{port}/",
        "http://0x7f.0.0.2:{port}/",
        "http://[::1]:{port}/",
        "http://[::ffff:127.0.0.2]:{port}/",
        "http://192.168.1.1/admin",
    ],
)
def test_redirects_to_private_addresses(
    target: str, server: Server, guard: Guard, monkeypatch: pytest.MonkeyPatch
) -> None:
    exempt_loopback(monkeypatch)  # 127.0.0.1 only: the test server's own address
    location = target.format(port=server.port)
    _, err, status = curl(NetworkConfig(**FULL), "-sSL", f"{server.url}/redirect?to={location}")
    assert status == 7 and "Access denied" in err and "private ranges are blocked" in err
    assert len(server.requests) == 1 and set(guard.attempts) == {("127.0.0.1", server.port)}


def test_redirect_to_a_name_resolving_privately(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    exempt_loopback(monkeypatch)
    resolver = StubResolver({"innocent.example": [["10.0.0.7"]]})
    _, err, status = curl(
        NetworkConfig(resolver=resolver, **FULL), "-L", f"{server.url}/redirect?to=http://innocent.example/"
    )
    assert status == 7 and "innocent.example resolves to 10.0.0.7" in err


def test_redirects_outside_the_allow_list(server: Server, other: Server) -> None:
    cfg = local_config(allowed_url_prefixes=[server.url + "/api/"])
    _, err, status = curl(cfg, "-L", f"{server.url}/api/redirect?to=/admin")
    assert status == 7 and f"Access denied: URL not in allow-list: {server.url}/admin" in err
    _, err, status = curl(cfg, "-L", f"{server.url}/api/redirect?to=/api/../admin")
    assert status == 7
    _, err, status = curl(cfg, "-L", f"{server.url}/api/redirect?to={other.url}/api/")
    assert status == 7
    _, err, status = curl(cfg, "-L", f"{server.url}/api/redirect?to=file:///etc/passwd")
    assert status == 1 and 'Protocol "file" not supported' in err
    out, _, status = curl(cfg, "-sL", f"{server.url}/api/redirect?to=/api/text")
    assert (out, status) == (b"hello\n", 0)
    assert server.paths() == [f"/api/redirect?to={p}" for p in ("/admin", "/api/../admin")] + [
        f"/api/redirect?to={other.url}/api/",
        "/api/redirect?to=file:///etc/passwd",
        "/api/redirect?to=/api/text",
        "/api/text",
    ]
    assert other.requests == []


def test_redirects_change_methods_only_within_the_rules(server: Server) -> None:
    cfg = local_config(server, allowed_methods=["GET", "POST"])
    _, err, status = curl(cfg, "-L", "-X", "POST", f"{server.url}/redirect?code=307&to=/x")
    assert status == 0
    cfg = local_config(server, allowed_methods=["POST"])
    _, err, status = curl(cfg, "-L", "-d", "a", f"{server.url}/redirect?code=302&to=/x")
    assert status == 7 and "method GET not allowed" in err


@pytest.mark.parametrize(
    "path",
    [
        "/public/..%2fadmin",
        "/public/%2e%2e/admin",
        "/public/%2E%2E%2Fadmin",
        "/public\\..\\admin",
        "/public/..;/admin",
        "/public%2f..%2fadmin",
        "/public/./../admin",
        "/publicity",
        "/PUBLIC/x",
    ],
)
def test_allow_list_escapes(path: str, server: Server) -> None:
    cfg = local_config(allowed_url_prefixes=[server.url + "/public/"])
    _, err, status = curl(cfg, server.url + path)
    assert status == 7 and "URL not in allow-list" in err and server.requests == []


def test_userinfo_tricks(server: Server, guard: Guard) -> None:
    cfg = local_config(server)
    for url in (
        f"http://127.0.0.1:{server.port}@evil.example/",
        f"http://evil.example#@127.0.0.1:{server.port}/",
        f"http://evil.example\\@127.0.0.1:{server.port}/",
    ):
        _, err, status = curl(cfg, url)
        assert status == 7 and "http://evil.example/" in err
    assert server.requests == [] and guard.lookups == []


def test_a_host_header_cannot_retarget_the_request(server: Server) -> None:
    _, err, status = curl(local_config(server), "-H", "Host: internal.admin", server.url + "/")
    assert status == 7 and "Host header" in err and server.requests == []
    _, _, status = curl(local_config(server), "-s", "-H", f"Host: 127.0.0.1:{server.port}", server.url + "/")
    assert status == 0


def test_credentials_stay_with_their_origin(server: Server, other: Server) -> None:
    creds = [
        Credential(server.url + "/", {"Authorization": "Bearer A-SECRET", "X-Api-Key": "A-KEY"}),
        Credential(other.url + "/only/", {"X-Other": "B-SECRET"}),
    ]
    cfg = local_config(server, other, credentials=creds)
    r = run_net(
        [
            "curl",
            "-sv",
            "-L",
            "-H",
            "Authorization: mine",
            "-b",
            "sid=1",
            "-u",
            "u:p",
            f"{server.url}/redirect?to=/again",
            f"{server.url}/redirect?to={other.url}/x",
        ],
        cfg,
    )
    first, second = (json.loads(line) for line in r.stdout.splitlines())
    assert first["headers"]["Authorization"] == "Bearer A-SECRET" and first["headers"]["Cookie"] == "sid=1"
    assert [req.headers.get("X-Api-Key") for req in server.requests] == ["A-KEY"] * 3
    b = second["headers"]
    assert "Authorization" not in b and "Cookie" not in b and "X-Api-Key" not in b and "X-Other" not in b
    err = r.stderr.decode()
    assert "A-SECRET" not in err and "A-KEY" not in err and "B-SECRET" not in err
    r = run_net(["curl", "-s", f"{other.url}/only/x"], cfg)
    assert json.loads(r.stdout)["headers"]["X-Other"] == "B-SECRET"


def test_script_headers_never_override_injected_ones(server: Server) -> None:
    cfg = local_config(server, credentials=[Credential(server.url + "/", {"X-Api-Key": "REAL"})])
    r = run_net(["curl", "-s", "-H", "X-Api-Key: forged", "-H", "x-api-key: forged2", server.url + "/"], cfg)
    assert json.loads(r.stdout)["headers"]["X-Api-Key"] == "REAL"
    assert [k.lower() for k in server.requests[0].headers].count("x-api-key") == 1


def test_secrets_never_reach_env_or_audit(server: Server) -> None:
    events: list[dict[str, Any]] = []
    cfg = local_config(
        server,
        credentials=[Credential(server.url + "/", {"Authorization": "Bearer TOP"})],
        audit=lambda e: events.append(dict(e)),
    )
    r = run_net(["curl", "-s", "-L", f"{server.url}/redirect?to=/x", "http://127.0.0.1:1/"], cfg)
    assert r.status == 7
    assert [(e["action"], e.get("status"), "error" in e) for e in events] == [
        ("http:GET", 302, False),
        ("http:GET", 200, False),
        ("http:GET", None, True),
    ]
    assert "TOP" not in repr(events)


def test_the_policy_gate_is_asked_for_every_hop(server: Server) -> None:
    asked: list[tuple[str, str]] = []

    def gate(action: str, url: str) -> bool:
        asked.append((action, url))
        return url != f"{server.url}/secret"

    cfg = local_config(server, gate=gate)
    _, err, status = curl(cfg, "-L", f"{server.url}/redirect?to=/secret")
    assert status == 7 and f"Access denied: refused by policy: GET {server.url}/secret" in err
    # the connection is asked about too (net:connect, with the address), once: the second hop reuses it
    assert asked == [
        ("http:GET", f"{server.url}/redirect?to=/secret"),
        ("net:connect", f"tcp://127.0.0.1:{server.port}"),
        ("http:GET", f"{server.url}/secret"),
    ]
    assert len(server.requests) == 1


def test_wget_obeys_the_same_rules(server: Server, guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:
    r = run_net(["wget", "-q", "-O-", server.url + "/"], NetworkConfig(**FULL))
    assert r.status == 4 and b"Access denied: 127.0.0.1 is a loopback address" in r.stderr
    exempt_loopback(monkeypatch)
    r = run_net(
        ["wget", "-q", "-O-", f"{server.url}/redirect?to=http://169.254.169.254/"], NetworkConfig(**FULL)
    )
    assert r.status == 4 and b"169.254.169.254 is a link-local address" in r.stderr
    assert set(guard.attempts) == {("127.0.0.1", server.port)}
