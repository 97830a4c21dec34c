"""The connection layer: resolve once, validate, connect to that address.

httpcore opens connections through a `NetworkBackend`; ours resolves the
host name exactly once per connection, refuses the connection if any
resolved address is in a denied range, connects to the validated address
itself (never to the name, so a second DNS answer cannot be used), and
checks the peer address of the socket it got. The original host name stays
on the request, so TLS (SNI, certificate check) and the Host header use it.
Every socket operation is also clamped to the request's deadline.

With `socket` imported here and in client.py only (a test enforces it).
"""

from __future__ import annotations

import functools
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager

import httpcore
import httpx

from .addresses import blocked_reason, parse_ip
from .config import Resolver
from .errors import (
    AccessDenied,
    BadReply,
    ConnectFailed,
    EmptyReply,
    NetError,
    RecvFailed,
    ResolveFailed,
    SendFailed,
    TimedOut,
    TlsFailed,
    TooLarge,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# on_connect(host, address, port, connected): curl -v's "Trying" (False) and "Connected" (True) lines
ConnectHook = Callable[[str, str, int, bool], None]


def system_resolver(host: str) -> list[str]:
    """The host's resolver: every address, in the order getaddrinfo gives them."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return []
    seen: list[str] = []
    for info in infos:
        addr = str(info[4][0])
        if addr not in seen:
            seen.append(addr)
    return seen


def _resolve_within(resolver: Resolver, host: str, timeout: float) -> Sequence[str]:
    """getaddrinfo cannot be interrupted: run it in a thread and stop waiting at the timeout."""
    box: list[Sequence[str] | BaseException] = []

    def work() -> None:
        try:
            box.append(list(resolver(host)))
        except Exception as e:  # the resolver's failure becomes "could not resolve"
            box.append(e)

    worker = threading.Thread(target=work, name="sandbash-resolve", daemon=True)
    worker.start()
    worker.join(max(timeout, 0.0))
    if not box:
        raise TimedOut("resolve")
    result = box[0]
    if isinstance(result, BaseException):
        raise ResolveFailed(host)
    return result


class PinnedBackend(httpcore.NetworkBackend):
    def __init__(self, resolver: Resolver | None, deny_private: bool) -> None:
        self._inner = httpcore.SyncBackend()
        self._resolver = resolver or system_resolver
        self._deny_private = deny_private
        self.deadline = float("inf")  # monotonic; set by the client before each request
        self.on_connect: ConnectHook | None = None
        self.gate: Callable[[str, str], bool] | None = None  # NetworkConfig.gate, asked about net:connect

    def remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimedOut()
        return left

    def check_address(self, host: str, address: str) -> None:
        ip = parse_ip(address)
        if ip is None:
            raise ResolveFailed(host)
        why = blocked_reason(ip) if self._deny_private else None
        if why:
            shown = address if host == address else f"{host} resolves to {address},"
            raise AccessDenied(f"{shown} a {why} address (private ranges are blocked)")

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        limit = min(timeout if timeout is not None else float("inf"), self.remaining())
        addresses: Sequence[str] = [host] if parse_ip(host) else _resolve_within(self._resolver, host, limit)
        if not addresses:
            raise ResolveFailed(host)
        for address in addresses:  # all of them, before any connection: a mixed answer is refused
            self.check_address(host, address)
        failure: NetError = ConnectFailed(host, port)
        for address in addresses:
            target = f"tcp://[{address}]:{port}" if ":" in address else f"tcp://{address}:{port}"
            if self.gate is not None and not self.gate("net:connect", target):
                raise AccessDenied(f"refused by policy: connect to {target}")
            if self.on_connect:
                self.on_connect(host, address, port, False)
            try:
                stream = self._inner.connect_tcp(
                    address, port, timeout=min(limit, self.remaining()), socket_options=socket_options
                )
            except httpcore.ConnectTimeout:
                failure = TimedOut("connect")
                continue
            except httpcore.ConnectError as e:
                failure = ConnectFailed(host, port, _os_reason(e))
                continue
            peer = stream.get_extra_info("server_addr")
            # the socket must be connected where we validated, nowhere else
            if not peer or parse_ip(str(peer[0])) != parse_ip(address):
                stream.close()
                raise AccessDenied(f"connected to an unexpected address for {host}")
            self.check_address(host, str(peer[0]))
            if self.on_connect:
                self.on_connect(host, address, port, True)
            return _DeadlineStream(stream, self)
        raise failure

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise AccessDenied("unix sockets are not reachable")

    def sleep(self, seconds: float) -> None:
        time.sleep(min(seconds, max(self.deadline - time.monotonic(), 0.0)))


def _os_reason(e: Exception) -> str:
    cause = e.__cause__
    if isinstance(cause, ConnectionRefusedError):
        return "Couldn't connect to server"
    if isinstance(cause, OSError) and cause.strerror:
        return str(cause.strerror)
    return "Couldn't connect to server"


class _DeadlineStream(httpcore.NetworkStream):
    """Clamps every read/write timeout to what is left of the request's time."""

    def __init__(self, inner: httpcore.NetworkStream, backend: PinnedBackend) -> None:
        self._inner = inner
        self._backend = backend

    def _clamp(self, timeout: float | None) -> float:
        left = self._backend.remaining()
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._clamp(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._clamp(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        try:
            inner = self._inner.start_tls(ssl_context, server_hostname, self._clamp(timeout))
        except httpcore.ConnectError as e:
            cause = e.__cause__
            if isinstance(cause, ssl.SSLCertVerificationError):
                raise TlsFailed(f"SSL certificate problem: {cause.verify_message}", verify=True)
            raise TlsFailed(f"TLS connect error: {cause or e}")
        return _DeadlineStream(inner, self._backend)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


@contextmanager
def _mapped() -> Iterator[None]:
    """httpcore's exceptions as curl's failure kinds."""
    try:
        yield
    except httpcore.TimeoutException:
        raise TimedOut()
    except httpcore.RemoteProtocolError as e:
        if "without sending" in str(e):
            raise EmptyReply()
        raise BadReply(f"Weird server reply: {e}")
    except httpcore.ReadError as e:
        raise RecvFailed(f"Recv failure: {_os_reason(e) if e.__cause__ else e}")
    except httpcore.WriteError as e:
        raise SendFailed(f"Send failure: {_os_reason(e) if e.__cause__ else e}")
    except httpcore.LocalProtocolError as e:
        raise SendFailed(f"Malformed request: {e}")
    except httpcore.ConnectError as e:
        raise ConnectFailed("", 0, _os_reason(e))


class _ResponseStream(httpx.SyncByteStream):
    """The body off the wire, cut at `limit` raw bytes (the client also caps decoded bytes)."""

    def __init__(self, inner: Iterable[bytes], limit: int) -> None:
        self._inner = inner
        self._limit = limit

    def __iter__(self) -> Iterator[bytes]:
        total = 0
        with _mapped():
            for chunk in self._inner:
                total += len(chunk)
                if total > self._limit:
                    raise TooLarge(self._limit)
                yield chunk

    def close(self) -> None:
        close = getattr(self._inner, "close", None)
        if close is not None:
            with _mapped():
                close()


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """Built once: loading the CA bundle costs more than a local request. Verification
    always on; never the host's SSL_CERT_* settings."""
    return httpx.create_ssl_context(trust_env=False)


class PinnedTransport(httpx.BaseTransport):
    """An httpx transport over a connection pool that uses `PinnedBackend`."""

    def __init__(self, backend: PinnedBackend, max_body: int) -> None:
        self.backend = backend
        self._max_body = max_body
        self._pool = httpcore.ConnectionPool(
            ssl_context=_tls_context(),
            http1=True,
            http2=False,
            retries=0,
            max_connections=4,
            network_backend=backend,
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, Iterable)
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _mapped():
            resp = self._pool.handle_request(core)
        assert isinstance(resp.stream, Iterable)
        return httpx.Response(
            status_code=resp.status,
            headers=resp.headers,
            extensions=resp.extensions,
            stream=_ResponseStream(resp.stream, self._max_body),
            request=request,
        )

    def close(self) -> None:
        with _mapped():
            self._pool.close()
