"""Box mode's egress proxy: the only way out for a host program whose `[tool.<name>.network]` says
`contain_egress = true`. The program runs with no network of its own (bubblewrap's
--unshare-net); the relay inside its sandbox (egress_relay.py) listens on the sandbox's
127.0.0.1, sets HTTP(S)_PROXY to it and forwards each connection over a Unix socket to this
proxy, which decides it with sandbash's own network rules: the run's `NetworkConfig` (the
`[network]` allow-list, methods, private ranges) and its policy gate (`http:request`, then
`net:connect` for each address, recorded in the run's audit).

- A plain-HTTP request (absolute URI) is checked as curl's requests are (`HttpClient.check`),
  sent on with `Connection: close` to the address the pinned resolver validated, and its answer
  streamed back. One request per connection.
- `CONNECT host:port` opens a tunnel only to an origin the allow-list grants whole
  (`https://host[:port]/`): the request inside TLS cannot be seen, so neither its path nor its
  method can be checked.
- A refusal is a 403 with `X-Sandbash-Egress: refused` and the reason as its body; an upstream
  failure a 502. One proxy serves one spawn and is closed with it (every connection ends).

Owns a socket: the Unix listener and the splices (upstream sockets come from net/transport)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

from ..net.addresses import blocked_reason, parse_ip
from ..net.client import Header, HttpClient, Request
from ..net.config import NetworkConfig
from ..net.errors import AccessDenied, NetError
from ..net.transport import PinnedBackend
from ..net.url import Url, UrlError, parse_url

MAX_HEAD = 64 * 1024  # a request line and headers longer than this are refused (431)
MAX_CONNECTIONS = 32  # at once, per spawn
HEAD_TIMEOUT = 30.0  # seconds for a client to send its request head
CHUNK = 64 * 1024
# hop-by-hop headers: the proxy's, not the origin's
_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authorization",
        "proxy-authenticate",
        "te",
        "trailer",
        "upgrade",
        "host",
    }
)


class _Refused(Exception):
    """An answer to the client instead of a connection: status, reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class EgressProxy:
    """An HTTP proxy on the Unix socket `path`, deciding with `config` (the run's, with its gate
    and audit hooks); `remaining()` bounds each upstream connect by the run's deadline."""

    def __init__(self, path: str, config: NetworkConfig | None, remaining: Callable[[], float]) -> None:
        self.config = config or NetworkConfig()  # none configured: every destination is refused
        self.remaining = remaining
        self.path = path
        self._checker = HttpClient(self.config)
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(path)
        self._listener.listen(MAX_CONNECTIONS)
        threading.Thread(target=self._accept, daemon=True, name="sandbash-egress").start()

    def close(self) -> None:
        """Stop accepting and end every connection (the program has ended)."""
        with self._lock:
            self._closed = True
            live = list(self._open)
        for s in (self._listener, *live):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        self._checker.close()

    def _track(self, s: socket.socket) -> bool:
        with self._lock:
            if self._closed or len(self._open) >= 2 * MAX_CONNECTIONS:
                return False
            self._open.add(s)
            return True

    def _forget(self, *socks: socket.socket | None) -> None:
        for s in socks:
            if s is None:
                continue
            with self._lock:
                self._open.discard(s)
            s.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # closed
            if not self._track(conn):
                conn.close()
                continue
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream: socket.socket | None = None
        try:
            client.settimeout(HEAD_TIMEOUT)
            head, rest = _read_head(client)
            client.settimeout(None)
            method, target, headers = _parse_head(head)
            if method == "CONNECT":
                url = self._check_tunnel(target)
                upstream = self._connect(url)
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                _splice(client, upstream, rest)
                return
            url, sent = self._check_request(method, target, headers)
            body = _body_framing(headers)
            upstream = self._connect(url)
            upstream.sendall(sent)
            # exactly the body its framing declares (whatever follows is never sent on unchecked),
            # while the answer comes back: a server may answer first (100 Continue, 413)
            threading.Thread(target=_Body(client, rest).forward, args=(body, upstream), daemon=True).start()
            _copy(upstream, client)
        except _Refused as e:
            _answer(client, e.status, e.reason)
        except OSError:
            pass  # the client or the server went away (or the proxy was closed)
        except Exception as e:  # the thread's boundary: an answer, never a traceback on the service's stderr
            _answer(client, 502, f"internal error ({type(e).__name__})")
        finally:
            self._forget(client, upstream)

    def _check_tunnel(self, target: str) -> Url:
        try:
            url = parse_url(f"https://{target}/")
        except UrlError:
            raise _Refused(400, f"bad CONNECT target: {target}") from None
        if url.username is not None or url.path != "/" or url.query is not None or ":" not in target:
            raise _Refused(400, f"bad CONNECT target: {target}")
        cfg = self.config
        whole = any(p.origin == url.origin and p.path == "/" for p in cfg.prefixes())
        if not (whole or cfg.dangerously_allow_full_internet_access):
            raise _Refused(
                403,
                f"Access denied: no allow-list entry grants the whole origin {url} "
                "(what is sent inside a tunnel cannot be checked)",
            )
        ip = parse_ip(url.host)
        why = blocked_reason(ip) if ip is not None and cfg.deny_private_ranges else None
        if why:
            raise _Refused(403, f"Access denied: {url.host} is a {why} address (private ranges are blocked)")
        if cfg.gate is not None and not cfg.gate("http:CONNECT", str(url)):  # the policy's http:request
            raise _Refused(403, f"Access denied: refused by policy: CONNECT {url}")
        return url

    def _check_request(self, method: str, target: str, headers: list[Header]) -> tuple[Url, bytes]:
        """The request as it will be sent (origin-form, `Connection: close`), after the checks."""
        if not target.startswith("http://"):
            raise _Refused(400, "a proxy request names an absolute http:// URL (https goes through CONNECT)")
        try:
            url = parse_url(target)
        except UrlError:
            raise _Refused(400, f"bad URL: {target}") from None
        own = [(k, v) for k, v in headers if k.lower() not in _HOP]
        host = [(k, v) for k, v in headers if k.lower() == "host"]
        try:
            self._checker.check(Request(method, url, own + host))
        except AccessDenied as e:
            raise _Refused(403, e.message) from None
        lines = [
            f"{method} {url.target} HTTP/1.1",
            f"Host: {url.netloc}",
            *(f"{k}: {v}" for k, v in own),
            "Connection: close",
        ]
        return url, ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def _connect(self, url: Url) -> socket.socket:
        """A connection to the address the pinned resolver validated (net:connect decided)."""
        backend = PinnedBackend(self.config.resolver, self.config.deny_private_ranges)
        backend.gate = self.config.gate
        backend.deadline = time.monotonic() + max(0.0, min(self.config.timeout, self.remaining()))
        try:
            stream = backend.connect_tcp(url.host, url.port)
        except AccessDenied as e:
            raise _Refused(403, e.message) from None
        except NetError as e:
            raise _Refused(502, e.message) from None
        sock: socket.socket = stream.get_extra_info("socket")
        sock.settimeout(None)
        if not self._track(sock):
            sock.close()
            raise OSError("the proxy is closed")
        return sock


def _read_head(conn: socket.socket) -> tuple[bytes, bytes]:
    """The request head (up to the blank line) and what followed it."""
    buf = b""
    while b"\r\n\r\n" not in buf and len(buf) <= MAX_HEAD:
        data = conn.recv(CHUNK)
        if not data:
            raise OSError("the client closed before its request head ended")
        buf += data
    head, _, rest = buf.partition(b"\r\n\r\n")
    if len(head) > MAX_HEAD:
        raise _Refused(431, "request head too large")
    return head, rest


def _parse_head(head: bytes) -> tuple[str, str, list[Header]]:
    """(METHOD, target, headers); a bare CR or LF, a folded or nameless header is refused (a
    second Host smuggled past the check would reach another site on the allowed address)."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[0].isalpha() or not parts[2].startswith("HTTP/1."):
        raise _Refused(400, "malformed request line")
    headers: list[Header] = []
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip() or "\r" in line or "\n" in line or "\0" in line:
            raise _Refused(400, "malformed header line")
        headers.append((name, value.strip()))
    return parts[0].upper(), parts[1], headers


def _body_framing(headers: list[Header]) -> int | None:
    """The request body's length, None for chunked; one framing only (else 400)."""
    te = [v.lower() for k, v in headers if k.lower() == "transfer-encoding"]
    cl = [v for k, v in headers if k.lower() == "content-length"]
    if te and (cl or te != ["chunked"]):
        raise _Refused(400, "unsupported request body framing")
    if te:
        return None
    if len(set(cl)) > 1 or (cl and not cl[0].isdigit()):
        raise _Refused(400, "bad Content-Length")
    return int(cl[0]) if cl else 0


class _Body:
    """The client's bytes after the request head, read as its framing says."""

    def __init__(self, conn: socket.socket, pending: bytes) -> None:
        self.conn, self.buf = conn, pending

    def _more(self) -> None:
        data = self.conn.recv(CHUNK)
        if not data:
            raise OSError("the client closed inside its request body")
        self.buf += data

    def _take(self, n: int) -> bytes:
        while not self.buf:
            self._more()
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def _line(self) -> bytes:
        while b"\r\n" not in self.buf:
            if len(self.buf) > MAX_HEAD:
                raise OSError("a chunk line too long")
            self._more()
        line, _, self.buf = self.buf.partition(b"\r\n")
        return line + b"\r\n"

    def _copy(self, n: int, dst: socket.socket) -> None:
        while n > 0:
            data = self._take(min(n, CHUNK))
            dst.sendall(data)
            n -= len(data)

    def forward(self, length: int | None, dst: socket.socket) -> None:
        """Send the body on: `length` bytes, or chunks up to the last one and its trailers (a
        connection that ends early, or is closed with the answer, just stops it)."""
        try:
            self._forward(length, dst)
        except OSError:
            pass

    def _forward(self, length: int | None, dst: socket.socket) -> None:
        if length is not None:
            self._copy(length, dst)
            return
        while True:
            line = self._line()
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise OSError("a bad chunk size") from None
            dst.sendall(line)
            if size == 0:
                break
            self._copy(size + 2, dst)  # the chunk and its CRLF
        while (trailer := self._line()) != b"\r\n":
            dst.sendall(trailer)
        dst.sendall(b"\r\n")


def _answer(conn: socket.socket, status: int, reason: str) -> None:
    titles = {
        400: "Bad Request",
        403: "Forbidden",
        431: "Request Header Fields Too Large",
        502: "Bad Gateway",
    }
    body = f"sandbash egress: {reason}\n".encode("utf-8", "replace")
    head = (
        f"HTTP/1.1 {status} {titles[status]}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"X-Sandbash-Egress: refused\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    try:
        conn.sendall(head.encode("latin-1") + body)
    except OSError:
        pass


def _splice(client: socket.socket, upstream: socket.socket, pending: bytes) -> None:
    """A tunnel: copy both ways until the server's side ends (then the client's is closed too)."""
    if pending:
        upstream.sendall(pending)
    up = threading.Thread(target=_copy, args=(client, upstream), daemon=True)
    up.start()
    _copy(upstream, client)
    try:
        client.shutdown(socket.SHUT_RDWR)  # the answer is complete: the client's send side ends too
    except OSError:
        pass
    up.join(5)


def _copy(src: socket.socket, dst: socket.socket) -> None:
    """Until `src` ends; then `dst`'s sending side ends too."""
    try:
        while data := src.recv(CHUNK):
            dst.sendall(data)
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass
