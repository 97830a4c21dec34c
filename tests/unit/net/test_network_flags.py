"""The network settings as documented: `dangerously_allow_full_internet_access`
allows every method (and URL), and the policy's `decide` callback is asked about
`net:connect` with the address each connection goes to (127.0.0.1 only)."""

from __future__ import annotations

import pytest

from sandbash import Bash
from sandbash.net import NetworkConfig
from sandbash.policy import Action, Policy

from .netfixtures import Server, local_config, run_net

SERVED = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]  # the test server answers these
METHODS = [*SERVED, "OPTIONS", "PROPFIND", "purge"]  # the others get its 501


@pytest.mark.parametrize("method", METHODS)
def test_full_access_allows_every_method(server: Server, method: str) -> None:
    cfg = NetworkConfig(dangerously_allow_full_internet_access=True, deny_private_ranges=False)
    assert cfg.allows_method(method)
    r = run_net(
        ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", method, f"{server.url}/m"], cfg
    )
    assert r.status == 0, r.stderr
    served = method in SERVED
    assert r.stdout == (b"200" if served else b"501")
    assert [s.method for s in server.requests] == ([method] if served else [])


@pytest.mark.parametrize("method", ["PUT", "PATCH", "DELETE", "PROPFIND"])
def test_an_allow_list_still_limits_methods(server: Server, method: str) -> None:
    cfg = local_config(server)
    assert not cfg.allows_method(method) and cfg.allows_method("get")
    r = run_net(["curl", "-sS", "-X", method, f"{server.url}/m"], cfg)
    assert r.status == 7 and f"method {method} not allowed" in r.stderr.decode()
    assert server.requests == []


@pytest.mark.parametrize("full", [False, True])
def test_full_access_keeps_private_ranges_closed(server: Server, full: bool) -> None:
    cfg = NetworkConfig(allowed_url_prefixes=[server.url + "/"], dangerously_allow_full_internet_access=full)
    r = run_net(["curl", "-sS", "-X", "PUT" if full else "GET", f"{server.url}/m"], cfg)
    assert r.status == 7 and "private ranges are blocked" in r.stderr.decode() and server.requests == []


def _bash(server: Server, seen: list[Action], refuse: str = "") -> Bash:
    def decide(action: Action) -> bool | None:
        seen.append(action)
        return False if refuse and action.kind == refuse else None

    return Bash(
        network=local_config(server, allowed_methods=("GET", "HEAD", "POST")), policy=Policy(decide=decide)
    )


def test_decide_is_asked_about_the_request_and_the_connection(server: Server) -> None:
    seen: list[Action] = []
    r = _bash(server, seen).exec(f"curl -s {server.url}/a -o /dev/null; echo $?")
    assert r.stdout == "0\n" and server.paths() == ["/a"]
    net = [(a.kind, a.target, a.method) for a in seen if a.kind.startswith(("http:", "net:"))]
    assert net == [
        ("http:request", f"{server.url}/a", "GET"),
        ("net:connect", f"tcp://127.0.0.1:{server.port}", ""),
    ]
    kinds = [
        e["action"] for e in r.events if e["kind"] == "decision" and str(e.get("action")).startswith("net:")
    ]
    assert kinds == ["net:connect"]


@pytest.mark.parametrize(
    "script",
    [
        "curl -sS {url}/a",
        "curl -sS -X POST -d x {url}/a",
        "wget -q -O - {url}/a",
        "curl -sS -L {url}/redirect?to=/b",
    ],
)
def test_decide_can_refuse_the_connection(server: Server, script: str) -> None:
    seen: list[Action] = []
    r = _bash(server, seen, refuse="net:connect").exec(script.format(url=server.url))
    assert r.exit_code in (4, 7), r.stderr  # wget: 4, curl: 7
    assert f"refused by policy: connect to tcp://127.0.0.1:{server.port}" in r.stderr
    assert server.requests == []
    assert any(a.kind == "net:connect" and a.target == f"tcp://127.0.0.1:{server.port}" for a in seen)


def test_a_denying_decide_on_requests_stops_before_connecting(server: Server) -> None:
    seen: list[Action] = []
    r = _bash(server, seen, refuse="http:request").exec(f"curl -sS {server.url}/a")
    assert r.exit_code == 7 and "refused by policy: GET" in r.stderr
    assert [a.kind for a in seen if a.kind.startswith("net:")] == [] and server.requests == []
