"""The one HTTP client behind curl and wget.

Every hop of every request passes `HttpClient.check` (allow-list, method,
private literal addresses, the policy gate) and then `PinnedTransport`, which
validates the address actually connected to. Redirects are followed here, one
re-validated hop at a time; `Authorization`, `Cookie` and `Proxy-Authorization`
set by the script are dropped when a hop changes origin, and credentials
from the configuration are injected per hop, only where their prefix matches,
and never shown to the script. Bodies stream and stop at `max_response_size`,
counted on the decoded bytes as they are made when a content coding is undone
(one layer of gzip or deflate, in bounded steps; anything else is refused).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

import httpx

from .addresses import blocked_reason, parse_ip
from .config import NetworkConfig
from .errors import (
    AccessDenied,
    BadEncoding,
    BadUrl,
    NetError,
    TimedOut,
    TooLarge,
    TooManyRedirects,
    Unsupported,
)
from .transport import ConnectHook, PinnedBackend, PinnedTransport
from .url import UnsupportedScheme, Url, UrlError, join, matches_any, matches_prefix

Header = tuple[str, str]
REDACTED = "[injected by the sandbox; hidden]"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# headers a script sets for one origin; a hop to another origin drops them
_ORIGIN_BOUND = frozenset({"authorization", "cookie", "proxy-authorization"})
_BODY_HEADERS = frozenset({"content-type", "content-length", "content-encoding", "transfer-encoding"})
# the most decoded output one zlib call may make: a 2.6 KB "gzip, gzip" body can expand
# to gigabytes in a single unbounded call
DECODE_STEP = 64 * 1024
# content codings undone (at most one layer), as zlib window bits: gzip's header, or
# zlib's (raw deflate is tried when a "deflate" body has no zlib header, as servers send it)
_CODINGS = {"gzip": 31, "x-gzip": 31, "deflate": 15}


def _zlib_header(data: bytes) -> bool:
    return len(data) < 2 or (data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0)


def _inflate(chunks: Iterable[bytes], wbits: int) -> Iterator[bytes]:
    """Undo one gzip/deflate layer, DECODE_STEP bytes of output at a time."""
    dec = None
    try:
        for data in chunks:
            if not data:
                continue
            if dec is None:
                dec = zlib.decompressobj(-15 if wbits == 15 and not _zlib_header(data) else wbits)
            while not dec.eof:
                out = dec.decompress(data, DECODE_STEP)
                if out:
                    yield out
                data = dec.unconsumed_tail
                # a full step may leave output pending even when all input was taken
                if not data and len(out) < DECODE_STEP:
                    break
    except zlib.error as e:
        raise BadEncoding(f"Error while processing content unencoding: {e}")


def content_codings(value: str | None) -> list[str]:
    """The codings a Content-Encoding header lists, in the order they were applied."""
    if value is None:
        return []
    return [c.strip().lower() for c in value.split(",") if c.strip() and c.strip().lower() != "identity"]


@dataclass
class Request:
    method: str
    url: Url
    headers: list[Header] = field(default_factory=list)  # in order, without Host
    body: bytes | None = None


def url_failure(e: UrlError) -> NetError:
    """A URL that cannot be requested, as curl reports it (exit 1 or 3)."""
    if isinstance(e, UnsupportedScheme):
        return Unsupported(f'Protocol "{e.scheme}" not supported or disabled in libcurl')
    return BadUrl("URL using bad/illegal format or missing URL")


class Response:
    """A response whose body has not been read yet."""

    def __init__(self, url: Url, inner: httpx.Response, shown_headers: list[Header], limit: int) -> None:
        self.url = url
        self._inner = inner
        self.shown_request_headers = shown_headers  # as sent, injected values hidden
        self._limit = limit
        self.status = inner.status_code
        reason = inner.extensions.get("reason_phrase", b"")
        self.reason = reason.decode("latin-1") if isinstance(reason, bytes) else str(reason)
        version = inner.extensions.get("http_version", b"HTTP/1.1")
        self.http_version = version.decode("ascii") if isinstance(version, bytes) else str(version)
        self.headers: list[Header] = [
            (k.decode("latin-1"), v.decode("latin-1")) for k, v in inner.headers.raw
        ]
        self.redirects = 0
        stream = inner.extensions.get("network_stream")
        peer = stream.get_extra_info("server_addr") if stream is not None else None
        self.remote: tuple[str, int] | None = (str(peer[0]), int(peer[1])) if peer else None

    def header(self, name: str) -> str | None:
        name = name.lower()
        return next((v for k, v in self.headers if k.lower() == name), None)

    def iter_body(self, decode: bool = False) -> Iterator[bytes]:
        """The body as it arrives; `decode` undoes Content-Encoding (curl --compressed).
        Raises TooLarge past the limit, counting decoded bytes too (compression bombs)."""
        length = self.header("content-length")
        if length is not None and length.strip().isdigit() and int(length) > self._limit:
            raise TooLarge(self._limit)
        chunks: Iterator[bytes] = self._inner.iter_raw()
        codings = content_codings(self.header("content-encoding")) if decode else []
        if len(codings) > 1:
            raise BadEncoding(
                f"Reject response due to {len(codings)} content encodings (only one layer is decoded)"
            )
        if codings:
            wbits = _CODINGS.get(codings[0])
            if wbits is None:
                raise BadEncoding(
                    "Unrecognized content encoding type. libcurl understands deflate, gzip content encodings."
                )
            chunks = _inflate(chunks, wbits)
        total = 0
        for chunk in chunks:
            total += len(chunk)
            if total > self._limit:
                raise TooLarge(self._limit)
            yield chunk

    def close(self) -> None:
        self._inner.close()


class HttpClient:
    """One per command invocation; `close()` (or `with`) releases its connections."""

    def __init__(
        self,
        config: NetworkConfig,
        *,
        max_time: float | None = None,  # seconds for the whole operation (curl -m)
        connect_timeout: float | None = None,
        max_response_size: int | None = None,  # lower than the configuration's (curl --max-filesize)
        run_remaining: Callable[[], float] | None = None,  # the run's deadline
        on_connect: ConnectHook | None = None,
        on_request: Callable[[Request, list[Header]], None] | None = None,
    ) -> None:
        self.config = config
        self._prefixes = config.prefixes()
        self._credentials = config.credential_prefixes()
        self._op_deadline = time.monotonic() + max_time if max_time else float("inf")
        self._connect_timeout = connect_timeout
        self._run_remaining = run_remaining or (lambda: float("inf"))
        self._on_request = on_request
        self._backend = PinnedBackend(config.resolver, config.deny_private_ranges)
        self._backend.on_connect = on_connect
        self._backend.gate = config.gate
        limit = config.max_response_size
        self._limit = limit if max_response_size is None else min(limit, max_response_size)
        self._transport = PinnedTransport(self._backend, self._limit)

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._transport.close()

    # ------------------------------------------------------------ rules

    def check(self, req: Request) -> None:
        """Everything decidable before connecting; raises AccessDenied."""
        cfg = self.config
        url = req.url
        if not cfg.dangerously_allow_full_internet_access and not matches_any(url, self._prefixes):
            raise AccessDenied(f"URL not in allow-list: {url}")
        if not cfg.allows_method(req.method):
            raise AccessDenied(f"method {req.method} not allowed (allowed: {', '.join(cfg.allowed_methods)})")
        ip = parse_ip(url.host)
        why = blocked_reason(ip) if ip is not None and cfg.deny_private_ranges else None
        if why:
            raise AccessDenied(f"{url.host} is a {why} address (private ranges are blocked)")
        host = next((v for k, v in req.headers if k.lower() == "host"), None)
        if host is not None and host.strip().lower() != url.netloc:
            raise AccessDenied("a Host header must name the URL's own host")
        if cfg.gate is not None and not cfg.gate(f"http:{req.method}", str(url)):
            raise AccessDenied(f"refused by policy: {req.method} {url}")

    def _headers(self, req: Request) -> tuple[list[Header], list[Header]]:
        """(sent, shown): injected credentials replace the script's headers of the same name."""
        injected: dict[str, Header] = {}
        for prefix, cred in self._credentials:
            if matches_prefix(req.url, prefix):
                injected.update((k.lower(), (k, v)) for k, v in cred.headers.items())
        own = [(k, v) for k, v in req.headers if k.lower() not in injected and k.lower() != "host"]
        host = [("Host", req.url.netloc)]
        sent = host + own + list(injected.values())
        shown = host + own + [(k, REDACTED) for k, _ in injected.values()]
        return sent, shown

    # ------------------------------------------------------------ one hop

    def send(self, req: Request) -> Response:
        try:
            self.check(req)
            sent, shown = self._headers(req)
            if self._on_request is not None:
                self._on_request(req, shown)
            now = time.monotonic()
            deadline = min(now + self.config.timeout, self._op_deadline, now + self._run_remaining())
            if deadline <= now:
                raise TimedOut()
            self._backend.deadline = deadline
            timeouts = {"connect": self._connect_timeout, "read": None, "write": None, "pool": None}
            hx = httpx.Request(
                req.method, str(req.url), headers=sent, content=req.body, extensions={"timeout": timeouts}
            )
            if (hx.url.raw_path.decode("ascii"), hx.url.raw_host.decode("ascii")) != (
                req.url.target,
                req.url.host,
            ):
                raise BadUrl("URL using bad/illegal format or missing URL")  # sent must equal matched
            response = Response(req.url, self._transport.handle_request(hx), shown, self._limit)
        except NetError as e:
            self._audit(req, error=e.message)
            raise
        self._audit(req, status=response.status)
        return response

    def _audit(self, req: Request, **outcome: object) -> None:
        if self.config.audit is not None:
            self.config.audit({"action": f"http:{req.method}", "url": str(req.url), **outcome})

    # ------------------------------------------------------------ redirects

    def next_hop(self, resp: Response, req: Request) -> Request | None:
        """The request a redirect asks for, or None when `resp` is not a redirect."""
        location = resp.header("location")
        if resp.status not in _REDIRECTS or location is None:
            return None
        try:
            url = join(req.url, location)
        except UrlError as e:
            raise url_failure(e)
        method, body, headers = req.method, req.body, req.headers
        if (resp.status == 303 and method != "HEAD") or (resp.status in (301, 302) and method == "POST"):
            method, body = "GET", None
            headers = [(k, v) for k, v in headers if k.lower() not in _BODY_HEADERS]
        if url.origin != req.url.origin:
            headers = [(k, v) for k, v in headers if k.lower() not in _ORIGIN_BOUND]
        return replace(req, method=method, url=url, headers=headers, body=body)

    def fetch(
        self,
        req: Request,
        *,
        follow: bool = True,
        max_redirects: int | None = None,
        prepare: Callable[[Request], Request] | None = None,
        on_response: Callable[[Response, bool], None] | None = None,
    ) -> Response:
        """Send `req`, following redirects when asked; returns the last response, unread.
        `prepare` adds to each hop before it is sent (cookies); `on_response(resp, final)`
        sees every response (headers only for intermediate hops); `final` is true when no
        further hop will be sent (no redirect to follow, or the redirect limit is reached)."""
        limit = (
            self.config.max_redirects
            if max_redirects is None
            else min(max_redirects, self.config.max_redirects)
        )
        hops = 0
        while True:
            # prepared additions (cookies from a jar) are per hop: the next hop starts from `req`
            resp = self.send(prepare(req) if prepare is not None else req)
            resp.redirects = hops
            nxt = self.next_hop(resp, req) if follow else None
            if on_response is not None:
                on_response(resp, nxt is None or hops >= limit)
            if nxt is None:
                return resp
            resp.close()
            if hops >= limit:
                raise TooManyRedirects(limit)
            hops += 1
            req = nxt
