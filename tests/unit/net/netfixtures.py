"""Shared by the network tests: a loopback HTTP server, a guard that keeps every
connection on loopback, resolver stubs, and a curl/wget runner."""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from ipaddress import IPv4Address, ip_address
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

import sandbash.net.client as client_mod
import sandbash.net.transport as transport_mod
from sandbash.limits import Limits
from sandbash.net import NetworkConfig
from sandbash.net.addresses import IPAddress, blocked_reason
from sandbash.testing import CommandResult, run_command


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Server:
    port: int
    requests: list[Seen] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _reply(
            self, status: int, body: bytes = b"", headers: Sequence[tuple[str, str]] = (), length: bool = True
        ) -> None:
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            if length:
                self.send_header("Content-Length", str(len(body)))
            else:
                self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _serve(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n else b""
            server.requests.append(Seen(self.command, self.path, dict(self.headers.items()), body))
            url = urlsplit(self.path)
            q = {k: v[0] for k, v in parse_qs(url.query).items()}
            route = url.path.removeprefix("/api")  # the same routes under /api/, for path allow-lists
            if route.startswith("/redirect"):
                self._reply(int(q.get("code", "302")), headers=[("Location", q["to"])])
            elif route.startswith("/status/"):
                self._reply(int(route.split("/")[2]), f"status {route.split('/')[2]}\n".encode())
            elif route == "/big":
                size = int(q["n"])
                if q.get("stream"):  # no Content-Length: the body ends when the connection closes
                    self.close_connection = True
                    self._reply(200, b"x" * size, length=False)
                else:
                    self._reply(200, b"x" * size)
            elif route in ("/gzip", "/file.gz"):
                raw = b"y" * int(q["n"])
                self._reply(200, gzip.compress(raw), [("Content-Encoding", "gzip")])
            elif route == "/slow":
                time.sleep(float(q.get("s", "3")))
                self._reply(200, b"late\n")
            elif route == "/trickle":  # headers at once, then a byte every `s` seconds
                self.send_response(200)
                self.send_header("Content-Length", "100")
                self.end_headers()
                for _ in range(100):
                    try:
                        self.wfile.write(b"z")
                        self.wfile.flush()
                    except OSError:
                        return
                    time.sleep(float(q.get("s", "0.2")))
            elif route == "/cookie":
                self._reply(200, b"ok\n", [("Set-Cookie", "sid=abc123; Path=/"), ("Set-Cookie", "lang=en")])
            elif route == "/close":
                self.close_connection = True
            elif route == "/text":
                self._reply(200, q.get("body", "hello\n").encode(), [("Content-Type", "text/plain")])
            else:  # echo what arrived
                echo = {
                    "method": self.command,
                    "path": self.path,
                    "headers": dict(self.headers.items()),
                    "body": body.decode("utf-8", "replace"),
                }
                self._reply(200, json.dumps(echo).encode() + b"\n", [("Content-Type", "application/json")])

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = _serve

    return Handler


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that give up early (timeouts, size limits) are expected here


@contextmanager
def http_server() -> Iterator[Server]:
    state = Server(0)
    httpd = _Quiet(("127.0.0.1", 0), _handler(state))
    state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


@dataclass
class Guard:
    """Every outgoing connection the code under test attempted."""

    attempts: list[tuple[str, int]] = field(default_factory=list)
    lookups: list[str] = field(default_factory=list)


@contextmanager
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[Guard]:
    """No test may reach anything but loopback: other addresses are refused before a
    packet leaves, and the host's DNS is never asked about anything but localhost."""
    guard = Guard()
    real_connect = socket.create_connection
    real_getaddrinfo = socket.getaddrinfo

    def create_connection(address: tuple[str, int], *args: Any, **kw: Any) -> socket.socket:
        host, port = address[0], int(address[1])
        guard.attempts.append((str(host), port))
        if not ip_address(host).is_loopback:
            raise ConnectionRefusedError(111, "Connection refused (test guard: not loopback)")
        return real_connect(address, *args, **kw)

    def getaddrinfo(host: Any, *args: Any, **kw: Any) -> Any:
        guard.lookups.append(str(host))
        if host not in ("localhost", "127.0.0.1", "::1"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known (test guard)")
        return real_getaddrinfo(host, *args, **kw)

    monkeypatch.setattr(socket, "create_connection", create_connection)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield guard


def exempt_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let 127.0.0.1 itself through the private-range rule (the test server lives
    there) while every other special address stays refused."""

    def reason(ip: IPAddress) -> str | None:
        return None if ip == IPv4Address("127.0.0.1") else blocked_reason(ip)

    monkeypatch.setattr(transport_mod, "blocked_reason", reason)
    monkeypatch.setattr(client_mod, "blocked_reason", reason)


class StubResolver:
    """Answers from a table; a list of answers is used one call at a time (rebinding)."""

    def __init__(self, table: dict[str, list[list[str]]]) -> None:
        self.table = table
        self.calls: list[str] = []

    def __call__(self, host: str) -> list[str]:
        self.calls.append(host)
        answers = self.table.get(host)
        if not answers:
            return []
        return answers.pop(0) if len(answers) > 1 else answers[0]


def local_config(*servers: Server, **kw: Any) -> NetworkConfig:
    kw.setdefault("deny_private_ranges", False)
    kw.setdefault("allowed_url_prefixes", [s.url + "/" for s in servers])
    return NetworkConfig(**kw)


def run_net(
    argv: Sequence[str],
    cfg: NetworkConfig | None,
    stdin: bytes = b"",
    files: dict[str, bytes | str] | None = None,
    limits: Limits | None = None,
) -> CommandResult:
    return run_command(list(argv), stdin=stdin, files=files, limits=limits, network=cfg)


def echoed(result: CommandResult) -> dict[str, Any]:
    """The echo route's JSON from a command's stdout."""
    data: dict[str, Any] = json.loads(result.stdout.decode())
    return data
