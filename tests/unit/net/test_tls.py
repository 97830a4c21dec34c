"""HTTPS: certificates are always verified, and the TLS name (SNI) is the URL's
host even though the connection goes to the address validated for it."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from sandbash.net import NetworkConfig

from .netfixtures import Guard, StubResolver, run_net


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "3")
        self.end_headers()
        self.wfile.write(b"hi\n")

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[int, list[str | None]]]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=secure.example",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    names: list[str | None] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda sock, name, ctx: names.append(name)  # type: ignore[assignment, func-returns-value]
    httpd = _Quiet(("127.0.0.1", 0), _Hello)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1], names
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_certificates_are_verified_with_the_urls_name(
    tls_server: tuple[int, list[str | None]], guard: Guard
) -> None:
    port, names = tls_server
    resolver = StubResolver({"secure.example": [["127.0.0.1"]]})
    cfg = NetworkConfig(
        allowed_url_prefixes=[f"https://secure.example:{port}/"], resolver=resolver, deny_private_ranges=False
    )
    r = run_net(["curl", "-k", f"https://secure.example:{port}/"], cfg)
    assert r.status == 60 and "curl: (60) SSL certificate problem:" in r.stderr.decode()
    assert names == ["secure.example"] and guard.attempts == [("127.0.0.1", port)]
    r = run_net(["wget", "-q", f"https://secure.example:{port}/"], cfg)
    assert r.status == 5
