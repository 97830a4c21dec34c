"""`[tool.<name>.network] contain_egress = true`: the program's only way out is sandbash's egress
proxy, which holds it to the box's `[network]` rules and the policy (T-BOX-2), and sends on only
what it checked (T-BOX-3). Local servers on 127.0.0.1 only: an HTTP server that records what
reaches it."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from sandbash.box import spawn
from sandbash.box.config import parse_config
from sandbash.box.runner import BoxRunner
from sandbash.box.spawn import resolve_program
from sandbash.policy import Action, Decision

pytestmark = pytest.mark.skipif(
    resolve_program("bwrap") is None or resolve_program("curl") is None,
    reason="bubblewrap and curl are needed",
)


@dataclass
class Server:
    port: int
    seen: list[str] = field(default_factory=list)  # "METHOD PATH Connection"
    bodies: list[bytes] = field(default_factory=list)
    keep_open: bool = False  # a server that ignores `Connection: close` (it closes when idle 2 s)


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    record = Server(0)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 2

        def _read_body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                data = b""
                while size := int(self.rfile.readline().split(b";")[0], 16):
                    data += self.rfile.read(size)
                    self.rfile.readline()
                while self.rfile.readline() not in (b"\r\n", b""):
                    pass
                return data
            return self.rfile.read(int(self.headers.get("Content-Length", "0")))

        def _answer(self) -> None:
            record.seen.append(f"{self.command} {self.path} {self.headers.get('Connection')}")
            if self.command == "POST":
                record.bodies.append(self._read_body())
            body = f"reached {self.path}\n".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = not record.keep_open and self.headers.get("Connection") == "close"

        do_GET = do_POST = _answer

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    record.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield record
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(10)


def _runner(root: Path, port: int, network: str) -> BoxRunner:
    for d in ("home", "ws"):
        (root / d).mkdir(parents=True, exist_ok=True)
    return BoxRunner(
        parse_config(f"""
[agent]
home = "{root}/home"
workspace = "{root}/ws"
{network}
[tool.netcurl]
command = ["/usr/bin/curl", "-sS"]
[tool.netcurl.network]
contain_egress = true

[tool.nonetcurl]
command = ["/usr/bin/curl", "-sS"]

[tool.netgit]
command = ["git"]
[tool.netgit.network]
contain_egress = true

[tool.netpy]
command = ["/usr/bin/python3", "-I", "-S", "-c", {json.dumps(RAW_CLIENT)}]
[tool.netpy.network]
contain_egress = true
""")
    )


# a client that sends the bytes given in hex to the proxy and prints the answer's status line
RAW_CLIENT = """
import os, socket, sys
host, port = os.environ["http_proxy"][len("http://"):].rsplit(":", 1)
conn = socket.create_connection((host, int(port)))
pad = int(sys.argv[2]) if len(sys.argv) > 2 else 0
conn.sendall(bytes.fromhex(sys.argv[1]).replace(b"@PAD@", b"x" * pad))
answer = b""
while True:
    data = conn.recv(65536)
    if not data:
        break
    answer += data
print(answer.split(b"\\r\\n")[0].decode())
"""


def _allow(port: int, *urls: str, private: bool = False, methods: str = '["GET", "HEAD"]') -> str:
    listed = ", ".join(f'"{u.format(port=port)}"' for u in urls)
    return (
        f"[network]\nallow_urls = [{listed}]\nmethods = {methods}\n"
        f"deny_private_ranges = {'true' if private else 'false'}\n"
    )


def _run(runner: BoxRunner, script: str) -> tuple[str, str, int]:
    out: list[bytes] = []
    err: list[bytes] = []
    status = runner.run(script, out.append, err.append)
    return b"".join(out).decode(), b"".join(err).decode(), status


def _refused(reason: str) -> str:
    return f"sandbash egress: Access denied: {reason}\n"


@pytest.fixture
def allowed(tmp_path: Path, server: Server) -> BoxRunner:
    server.seen.clear()
    server.bodies.clear()
    return _runner(
        tmp_path,
        server.port,
        _allow(
            server.port, "http://127.0.0.1:{port}/ok/", "https://127.0.0.1:{port}/", methods='["GET", "POST"]'
        ),
    )


def test_allowed_request_goes_through_the_proxy(allowed: BoxRunner, server: Server) -> None:
    base = f"http://127.0.0.1:{server.port}"
    out, err, status = _run(allowed, f"netcurl {base}/ok/a; netcurl {base}/ok/b | tr a-z A-Z")
    assert (out, err, status) == ("reached /ok/a\nREACHED /OK/B\n", "", 0)
    # one request per connection: the proxy asks the server to close
    assert server.seen == ["GET /ok/a close", "GET /ok/b close"]


@pytest.mark.parametrize(
    ("script", "answer"),
    [
        ("netcurl {base}/no/x", _refused("URL not in allow-list: {base}/no/x")),
        ("netcurl {base}/ok/../no/x", _refused("URL not in allow-list: {base}/no/x")),
        ("netcurl -X PUT {base}/ok/x", _refused("method PUT not allowed (allowed: GET, POST)")),
        (
            "netcurl http://127.0.0.2:{port}/ok/x",
            _refused("URL not in allow-list: http://127.0.0.2:{port}/ok/x"),
        ),
        ("netcurl -H 'Host: elsewhere' {base}/ok/x", _refused("a Host header must name the URL's own host")),
    ],
)
def test_refused_requests_never_leave(allowed: BoxRunner, server: Server, script: str, answer: str) -> None:
    base = f"http://127.0.0.1:{server.port}"
    out, err, status = _run(allowed, script.format(base=base, port=server.port) + "; echo status=$?")
    assert (out, err, status) == (answer.format(base=base, port=server.port) + "status=0\n", "", 0)
    assert server.seen == []


def test_refusal_is_marked(allowed: BoxRunner, server: Server) -> None:
    out, _, _ = _run(allowed, f"netcurl -i http://127.0.0.1:{server.port}/no/x")
    assert out.startswith("HTTP/1.1 403 Forbidden\r\n") and "X-Sandbash-Egress: refused\r\n" in out


def test_a_program_that_ignores_the_proxy_reaches_nothing(allowed: BoxRunner, server: Server) -> None:
    """Its own network namespace has loopback only: the host's 127.0.0.1 is not there."""
    base = f"http://127.0.0.1:{server.port}"
    out, err, status = _run(
        allowed, f"netcurl --noproxy '*' {base}/ok/x; echo status=$?; nonetcurl {base}/ok/x; echo status=$?"
    )
    assert (out, status) == ("status=7\nstatus=7\n", 0)
    assert err.count("Couldn't connect to server") == 2 and server.seen == []


def test_tunnel_to_a_whole_origin(tmp_path: Path, server: Server) -> None:
    """CONNECT opens a tunnel only where the allow-list grants the whole origin (what is sent
    inside a tunnel cannot be checked)."""
    server.seen.clear()
    through = f"netcurl -p http://127.0.0.1:{server.port}/any/path; echo status=$?"
    whole = _runner(tmp_path, server.port, _allow(server.port, "https://127.0.0.1:{port}/"))
    assert _run(whole, through) == ("reached /any/path\nstatus=0\n", "", 0)
    assert server.seen == ["GET /any/path None"]  # inside the tunnel: the client's own request
    part = _runner(tmp_path, server.port, _allow(server.port, "https://127.0.0.1:{port}/ok/"))
    out, err, _ = _run(part, through)
    assert (out, err) == ("status=56\n", "curl: (56) CONNECT tunnel failed, response 403\n")
    assert len(server.seen) == 1


def test_private_ranges_are_refused_by_default(tmp_path: Path, server: Server) -> None:
    server.seen.clear()
    runner = _runner(tmp_path, server.port, _allow(server.port, "http://127.0.0.1:{port}/", private=True))
    out, _, _ = _run(runner, f"netcurl http://127.0.0.1:{server.port}/x")
    assert out == _refused("127.0.0.1 is a loopback address (private ranges are blocked)")
    assert server.seen == []


def test_no_network_table_refuses_everything(tmp_path: Path, server: Server) -> None:
    server.seen.clear()
    out, _, _ = _run(_runner(tmp_path, server.port, ""), f"netcurl http://127.0.0.1:{server.port}/ok/x")
    assert (
        out == _refused(f"URL not in allow-list: http://127.0.0.1:{server.port}/ok/x") and server.seen == []
    )


def test_the_policy_decides_each_connection(allowed: BoxRunner, server: Server) -> None:
    """`decide` sees the request (http:request) and each address (net:connect), as for curl."""
    asked: list[tuple[str, str]] = []

    def decide(action: Action) -> Decision | None:
        if action.kind in ("http:request", "net:connect"):
            asked.append((action.kind, action.target))
            if action.kind == "net:connect":
                return Decision.deny("no-loopback", "loopback is closed")
        return None

    from sandbash.policy import Policy

    assert allowed.config.policy is None

    runner = BoxRunner(replace(allowed.config, policy=Policy(decide=decide)))
    out, _, _ = _run(runner, f"netcurl http://127.0.0.1:{server.port}/ok/x")
    assert out == _refused(f"refused by policy: connect to tcp://127.0.0.1:{server.port}")
    assert asked == [
        ("http:request", f"http://127.0.0.1:{server.port}/ok/x"),
        ("net:connect", f"tcp://127.0.0.1:{server.port}"),
    ]
    assert server.seen == []


def test_git_goes_through_the_proxy(tmp_path: Path, server: Server) -> None:
    server.seen.clear()
    runner = _runner(tmp_path, server.port, _allow(server.port, "http://127.0.0.1:{port}/ok/"))
    out, err, _ = _run(runner, f"netgit ls-remote http://127.0.0.1:{server.port}/ok/r.git; echo status=$?")
    assert out == "status=128\n"  # the server is no git server
    assert server.seen == ["GET /ok/r.git/info/refs?service=git-upload-pack close"]
    out, err, _ = _run(runner, f"netgit ls-remote http://127.0.0.1:{server.port}/no/r.git; echo status=$?")
    assert out == "status=128\n" and "403" in err and len(server.seen) == 1


def test_the_proxy_ends_with_the_program(
    allowed: BoxRunner, server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No listener, connection or staging directory outlives the program."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    before = len(list(tmp_path.iterdir()))
    assert _run(allowed, f"netcurl http://127.0.0.1:{server.port}/ok/x")[2] == 0
    deadline = time.monotonic() + 10
    while any(t.name == "sandbash-egress" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(t.name == "sandbash-egress" for t in threading.enumerate())
    assert len(list(tmp_path.iterdir())) == before


def test_no_relay_interpreter_is_125(allowed: BoxRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> tuple[str, tuple[str, ...]]:
        raise spawn.SpawnUnavailable(
            "contain_egress needs a python3 for the sandbox's egress relay, and none was found"
        )

    monkeypatch.setattr(spawn, "relay_python", missing)
    out, err, status = _run(allowed, "netcurl http://127.0.0.1:1/ok/; echo status=$?")
    assert (out, status) == ("status=125\n", 0)
    assert err == (
        "bash: line 1: netcurl: contain_egress needs a python3 for the sandbox's egress relay, "
        "and none was found\n"
    )


def test_shell_curl_uses_the_same_rules(allowed: BoxRunner, server: Server) -> None:
    """The [network] table is the shell's own curl's allow-list too."""
    base = f"http://127.0.0.1:{server.port}"
    out, err, _ = _run(allowed, f"curl -sS {base}/ok/c; curl -sS {base}/no/c; echo status=$?")
    assert out == "reached /ok/c\nstatus=7\n"
    assert err == f"curl: (7) Access denied: URL not in allow-list: {base}/no/c\n"


def _raw(allowed: BoxRunner, data: str, pad: int = 0) -> str:
    """The status line the proxy answers `data` with (`@PAD@` in it: `pad` x's)."""
    return _run(allowed, f"netpy {data.encode('latin-1').hex()} {pad}")[0]


def test_request_bodies_are_forwarded_as_framed(allowed: BoxRunner, server: Server) -> None:
    base = f"http://127.0.0.1:{server.port}"
    out, err, _ = _run(
        allowed,
        f"seq 3000 > body; netcurl -d @body {base}/ok/cl; "
        f"netcurl -H 'Transfer-Encoding: chunked' --data-binary @body {base}/ok/chunked",
    )
    assert (out, err) == ("reached /ok/cl\nreached /ok/chunked\n", "")
    numbers = "".join(f"{i}\n" for i in range(1, 3001)).encode()
    assert server.bodies == [numbers.replace(b"\n", b""), numbers]  # curl -d drops newlines


def test_nothing_after_the_body_is_sent_on(allowed: BoxRunner, server: Server) -> None:
    """A second request hidden after the declared body never reaches the server, even one that
    ignores `Connection: close`. T-BOX-3"""
    server.keep_open = True
    try:
        port = server.port
        hidden = f"GET /no/secret HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
        status = _raw(
            allowed,
            f"POST http://127.0.0.1:{port}/ok/a HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Length: 5\r\n\r\nhello{hidden}",
        )
        assert status == "HTTP/1.1 200 OK\n"
        chunked = _raw(
            allowed,
            f"POST http://127.0.0.1:{port}/ok/b HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n{hidden}",
        )
        assert chunked == "HTTP/1.1 200 OK\n"
    finally:
        server.keep_open = False
    assert server.seen == ["POST /ok/a close", "POST /ok/b close"] and server.bodies == [b"hello", b"abc"]


@pytest.mark.parametrize(
    "head",
    [
        "GET http://127.0.0.1:{port}/ok/a HTTP/1.1\r\nX: a\nHost: elsewhere\r\n\r\n",
        "GET http://127.0.0.1:{port}/ok/a HTTP/1.1\r\nX: a\r\n Host: elsewhere\r\n\r\n",
        "POST http://127.0.0.1:{port}/ok/a HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
        "POST http://127.0.0.1:{port}/ok/a HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
        "GET http://127.0.0.1:{port}/ok/a HTTP/2\r\n\r\n",
        "G/T http://127.0.0.1:{port}/ok/a HTTP/1.1\r\n\r\n",
        "GET https://127.0.0.1:{port}/ok/a HTTP/1.1\r\n\r\n",
        "CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n",
        "CONNECT user@127.0.0.1:{port} HTTP/1.1\r\n\r\n",
    ],
)
def test_malformed_requests_are_400(allowed: BoxRunner, server: Server, head: str) -> None:
    assert _raw(allowed, head.format(port=server.port)) == "HTTP/1.1 400 Bad Request\n"
    assert server.seen == []


def test_oversized_head_is_431(allowed: BoxRunner, server: Server) -> None:
    head = f"GET http://127.0.0.1:{server.port}/ok/a HTTP/1.1\r\nX: @PAD@\r\n\r\n"
    assert _raw(allowed, head, 70000) == "HTTP/1.1 431 Request Header Fields Too Large\n"
    assert server.seen == []


def test_an_internal_failure_is_an_answer(
    allowed: BoxRunner, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sandbash.box.egress import EgressProxy

    def broken(*args: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(EgressProxy, "_check_request", broken)
    out, err, _ = _run(allowed, f"netcurl http://127.0.0.1:{server.port}/ok/x")
    assert (out, err) == ("sandbash egress: internal error (RuntimeError)\n", "")
    assert server.seen == []


def test_git_clone_through_the_proxy(tmp_path: Path) -> None:
    """A whole `git clone` over HTTP from a local server (git's dumb protocol: static files),
    through the relay and the proxy, into the workspace."""
    import functools
    import subprocess

    served = tmp_path / "served"
    repo = served / "ok" / "repo.git"
    work = tmp_path / "src"
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True)
    (work / "README").write_text("cloned through the egress proxy\n")
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "README"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "update-server-info"], check=True)
    seen: list[str] = []

    class Files(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            seen.append(self.path)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Files, directory=str(served)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        port = httpd.server_address[1]
        runner = _runner(tmp_path / "box", port, _allow(port, "http://127.0.0.1:{port}/ok/"))
        out, err, status = _run(
            runner,
            f"netgit clone -q http://127.0.0.1:{port}/ok/repo.git cloned; "
            "cat cloned/README; netgit -C cloned log --format=%s",
        )
        assert (out, err, status) == ("cloned through the egress proxy\none\n", "", 0)
        assert (tmp_path / "box/ws/cloned/README").exists()  # the workspace is the host's
        assert seen and all(p.startswith("/ok/repo.git/") for p in seen)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(10)


def test_a_grant_over_the_relay_directory_is_refused(tmp_path: Path) -> None:
    """A table granting /run (where the relay and the proxy's socket go) would have bubblewrap make
    their mount points in the host's /run: the spawn is refused instead (125)."""
    for d in ("home", "ws"):
        (tmp_path / d).mkdir()
    runner = BoxRunner(
        parse_config(
            f'[agent]\nhome = "{tmp_path}/home"\nworkspace = "{tmp_path}/ws"\n'
            '[tool.runcurl]\ncommand = ["/usr/bin/curl"]\n'
            '[tool.runcurl.filesystem]\nread = ["/run"]\n'
            "[tool.runcurl.network]\ncontain_egress = true\n"
        )
    )
    out, err, status = _run(runner, "runcurl http://127.0.0.1:1/; echo status=$?")
    assert (out, err, status) == (
        "status=125\n",
        "bash: line 1: runcurl: contain_egress: a grant of /run covers /run/sandbash, where the relay goes\n",
        0,
    )
