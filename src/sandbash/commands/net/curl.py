"""curl: HTTP(S) transfers through the sandbox's network client.

Exit codes and messages follow curl 7.88 (`curl: (6) Could not resolve host: x`,
7, 22, 28, 47, 52, 56, 63). A request the configuration refuses (allow-list,
method, private address, policy) fails with `curl: (7) Access denied: <why>`
and status 7, like a connection that could not be made. No progress meter is
drawn; `-k` is accepted but certificates are always verified.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from ...net.client import HttpClient, Request, Response, url_failure
from ...net.config import NetworkConfig
from ...net.cookies import CookieJar
from ...net.errors import ConnectFailed, NetError, TimedOut, WriteFailed
from ...net.url import UrlError, join, parse_url
from ...stdio.streams import Stream
from ...vfs.errors import FsError, strerror
from ..context import CommandExit, Ctx
from ..options import CommandSpec, HelpRequested, Opt, Parsed, UsageError, parse_args
from ..record import Effects, declare
from .common import basic_auth, network_config, timed_out, wait
from .curl_body import Body, Header, compose, custom_headers, data_body, form_body
from .writeout import Transfer, write_out

CURL_VERSION = "7.88.1"
_RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


def _o(short: str | None, long: str, arg: str = "none", multi: bool = False, count: bool = False) -> Opt:
    return Opt(short, long, arg, multi=multi, count=count)


SPEC = CommandSpec(
    name="curl",
    usage="[options...] <url>",
    usage_status=2,
    summary="Transfer a URL over HTTP or HTTPS, within the sandbox's network allow-list.",
    opts=(
        _o("s", "silent"),
        _o("S", "show-error"),
        _o("f", "fail"),
        _o(None, "fail-with-body"),
        _o("L", "location"),
        _o(None, "max-redirs", "required"),
        _o("X", "request", "required"),
        _o("H", "header", "required", True),
        _o("d", "data", "required", True),
        _o(None, "data-ascii", "required", True),
        _o(None, "data-raw", "required", True),
        _o(None, "data-binary", "required", True),
        _o(None, "data-urlencode", "required", True),
        _o(None, "json", "required", True),
        _o("F", "form", "required", True),
        _o(None, "form-string", "required", True),
        _o("G", "get"),
        _o("I", "head"),
        _o("i", "include"),
        _o("o", "output", "required", True),
        _o("O", "remote-name", count=True),
        _o(None, "remote-name-all"),
        _o(None, "create-dirs"),
        _o("D", "dump-header", "required"),
        _o("w", "write-out", "required"),
        _o("u", "user", "required"),
        _o("A", "user-agent", "required"),
        _o("e", "referer", "required"),
        _o("b", "cookie", "required", True),
        _o("c", "cookie-jar", "required"),
        _o("m", "max-time", "required"),
        _o(None, "connect-timeout", "required"),
        _o(None, "max-filesize", "required"),
        _o(None, "retry", "required"),
        _o(None, "retry-delay", "required"),
        _o(None, "retry-max-time", "required"),
        _o(None, "retry-connrefused"),
        _o("k", "insecure"),
        _o(None, "compressed"),
        _o("v", "verbose"),
        _o(None, "url", "required", True),
        _o("#", "progress-bar"),
        _o(None, "no-progress-meter"),
        _o("N", "no-buffer"),
        _o(None, "http1.1"),
    ),
)


def _usage(ctx: Ctx, message: str) -> CommandExit:
    ctx.stderr.write(
        f"curl: {message}\ncurl: try 'curl --help' or 'curl --manual' for more information\n".encode()
    )
    return CommandExit(2)


def _curl_usage(message: str) -> str:
    """GNU getopt's wording (from the shared parser) in curl's."""
    quoted = message.split("'")[1] if message.count("'") >= 2 else ""
    option = quoted if quoted.startswith("--") else f"-{quoted}"
    if "requires" in message:
        return f"option {option}: requires parameter"
    if "ambiguous" in message:
        return f"option {option}: is ambiguous"
    return f"option {option}: is unknown"


def _number(ctx: Ctx, opts: Parsed, key: str, integer: bool = False) -> float | None:
    value = opts.get(key)
    if value is None:
        return None
    try:
        number = int(value) if integer else float(value)
    except ValueError:
        raise _usage(ctx, f"option --{key.replace('_', '-')}: expected a proper numerical parameter")
    return number


class _Sink:
    """Where a transfer's output goes: stdout, or a file opened at the first write."""

    def __init__(self, ctx: Ctx, path: str | None, create_dirs: bool) -> None:
        self._ctx, self.path, self._create_dirs = ctx, path, create_dirs
        self._stream: Stream | None = ctx.stdout if path in (None, "-") else None

    def write(self, data: bytes) -> None:
        if self._stream is None:
            assert self.path is not None
            try:
                if self._create_dirs and "/" in self.path.rstrip("/"):
                    self._ctx.fs.mkdir(self.path.rsplit("/", 1)[0] or "/", parents=True)
                self._stream = self._ctx.open_out(self.path)
            except FsError as e:
                self._ctx.stderr.write(
                    f"Warning: Failed to open the file {self.path}: {strerror(e.code)}\n".encode()
                )
                raise WriteFailed() from None
        if data:
            self._stream.write(data)

    def close(self) -> None:
        if self._stream is not None and self._stream is not self._ctx.stdout:
            self._stream.close()


@dataclass
class _Target:
    path: str | None  # None: stdout
    remote: bool = False


def _targets(opts: Parsed) -> list[_Target]:
    """-o and -O in command-line order; each applies to the next URL."""
    return [
        _Target(str(v)) if k == "output" else _Target(None, True)
        for k, v in opts.order
        if k in ("output", "remote_name")
    ]


class Curl:
    def __init__(self, ctx: Ctx, cfg: NetworkConfig, opts: Parsed) -> None:
        self.ctx, self.cfg, self.opts = ctx, cfg, opts
        self.show_errors = not opts.get("silent") or bool(opts.get("show_error"))
        self.verbose = bool(opts.get("verbose"))
        self.include = bool(opts.get("include") or opts.get("head"))
        self.max_time = _number(ctx, opts, "max_time")
        self.connect_timeout = _number(ctx, opts, "connect_timeout")
        self.max_filesize = _number(ctx, opts, "max_filesize", True)
        redirs = _number(ctx, opts, "max_redirs", True)
        self.max_redirs = None if redirs is None or redirs < 0 else int(redirs)
        self.retries = int(_number(ctx, opts, "retry", True) or 0)
        self.retry_delay = _number(ctx, opts, "retry_delay")
        self.retry_max_time = _number(ctx, opts, "retry_max_time")
        order = opts.order
        self.data = data_body(ctx, order)
        self.form = form_body(ctx, order)
        if self.data is not None and self.form is not None:
            raise _usage(
                ctx,
                "You can only select one HTTP request method! "
                "You asked for both POST (-d, --data) and multipart formpost (-F, --form).",
            )
        self.custom = custom_headers(ctx, opts.get("header") or [])
        self.literal_cookie, self.jar = self._cookies(opts.get("cookie") or [])
        self.dump: _Sink | None = (
            _Sink(ctx, str(opts["dump_header"]), False) if opts.get("dump_header") else None
        )
        self._pending: list[str] = []  # -v request lines, printed once connected

    # ------------------------------------------------------------ setup

    def _cookies(self, values: Sequence[str]) -> tuple[str | None, CookieJar | None]:
        literal = [v for v in values if "=" in v]
        jar = CookieJar() if values or self.opts.get("cookie_jar") else None
        for name in (v for v in values if "=" not in v):
            try:
                text = self.ctx.read_input(name).decode("utf-8", "surrogateescape")
            except FsError:
                continue  # curl starts with an empty jar when the file is missing
            assert jar is not None
            jar.load_netscape(text, self.ctx.clock())
        return ("; ".join(literal) or None), jar

    def request(self, url_text: str) -> Request:
        try:
            url = given = parse_url(url_text, default_scheme="http")
            body: Body | None = self.data or self.form
            if self.opts.get("get") and self.data is not None:
                query = self.data.data.decode("utf-8", "surrogateescape")
                url = parse_url(f"{url}{'&' if url.query is not None else '?'}{query}")
                body = None
        except UrlError as e:
            raise url_failure(e)
        opts = self.opts
        method = str(opts.get("request") or ("HEAD" if opts.get("head") else "POST" if body else "GET"))
        builtin: list[Header] = []
        userpass = opts.get("user") or (
            f"{given.username}:{given.password or ''}" if given.username is not None else None
        )
        if userpass is not None:
            builtin.append(("Authorization", basic_auth(str(userpass))))
        agent = opts.get("user_agent", f"curl/{CURL_VERSION}")
        if agent:
            builtin.append(("User-Agent", str(agent)))
        builtin.append(("Accept", "*/*"))
        if opts.get("referer"):
            builtin.append(("Referer", str(opts["referer"])))
        if self.literal_cookie:
            builtin.append(("Cookie", self.literal_cookie))
        if opts.get("compressed"):
            builtin.append(("Accept-Encoding", "deflate, gzip"))
        headers = compose(builtin, self.custom, body.headers if body else ())
        return Request(method, url, headers, body.data if body else None)

    def _prepare(self, req: Request) -> Request:
        """Cookies from the jar for this hop, merged into one Cookie header."""
        found = self.jar.header(req.url, self.ctx.clock()) if self.jar else None
        if not found:
            return req
        own = next((v for k, v in req.headers if k.lower() == "cookie"), None)
        headers = [(k, v) for k, v in req.headers if k.lower() != "cookie"]
        headers.append(("Cookie", f"{own}; {found}" if own else found))
        return Request(req.method, req.url, headers, req.body)

    # ------------------------------------------------------------ tracing

    def _trace(self, text: str) -> None:
        self.ctx.stderr.write(text.encode("utf-8", "surrogateescape"))

    def _on_connect(self, host: str, address: str, port: int, connected: bool) -> None:
        if not self.verbose:
            return
        shown = f"[{address}]" if ":" in address else address
        if not connected:
            self._trace(f"*   Trying {shown}:{port}...\n")
            return
        self._trace(f"* Connected to {host} ({address}) port {port} (#0)\n")
        self._flush_request()

    def _on_request(self, req: Request, shown: list[Header]) -> None:
        if self.verbose:
            self._pending = [f"> {req.method} {req.url.target} HTTP/1.1\r\n"]
            self._pending += [
                f"> {k}: {v}\r\n" for k, v in shown if k.lower() != "content-length" or req.body
            ]
            self._pending.append("> \r\n")

    def _flush_request(self) -> None:
        if self._pending:
            self._trace("".join(self._pending))
            self._pending = []

    # ------------------------------------------------------------ one transfer

    def transfer(self, url_text: str, target: _Target) -> int:
        t = Transfer(url=url_text)
        started = time.monotonic()
        sink: _Sink | None = None
        try:
            req = self.request(url_text)
            t.method = req.method
            path = target.path
            if target.remote:
                path = req.url.filename
                if not path:
                    self._trace("curl: Remote file name has no length!\n")
                    return 23
            t.filename = path or ""
            sink = _Sink(self.ctx, path, bool(self.opts.get("create_dirs")))
            code = self._with_retries(req, sink, t, started)
        except NetError as e:
            timed_out(self.ctx, e)
            code = e.curl_code
            t.exitcode, t.errormsg = code, self._message(e, t, started)
            self._pending = []  # never connected, so never sent
            if self.show_errors:
                self._trace(f"curl: ({code}) {t.errormsg}\n")
        finally:
            if sink is not None:
                sink.close()
        t.time_total = time.monotonic() - started
        t.exitcode = code
        if self.verbose and t.remote:
            self._trace("* Closing connection 0\n")
        if self.opts.get("write_out"):
            self._write_out(t)
        return code

    def _message(self, e: NetError, t: Transfer, started: float) -> str:
        ms = int((time.monotonic() - started) * 1000)
        if isinstance(e, ConnectFailed):
            host = e.host or t.effective
            return f"Failed to connect to {host} port {e.port} after {ms} ms: {e.reason}"
        if isinstance(e, TimedOut):
            if e.phase == "connect":
                return f"Connection timed out after {ms} milliseconds"
            if e.phase == "resolve":
                return f"Resolving timed out after {ms} milliseconds"
            return f"Operation timed out after {ms} milliseconds with {t.size_download} bytes received"
        return e.message

    def _with_retries(self, req: Request, sink: _Sink, t: Transfer, started: float) -> int:
        delay = self.retry_delay or 1.0
        for attempt in range(self.retries + 1):
            left = self.retries - attempt
            if self.retry_max_time and time.monotonic() - started + delay > self.retry_max_time:
                left = 0
            try:
                code = self._attempt(req, sink, t, retrying=left > 0)
                if code >= 0:
                    return code
                problem = "HTTP error"
            except (TimedOut, ConnectFailed) as e:
                timed_out(self.ctx, e)
                refused = isinstance(e, ConnectFailed)
                if left <= 0 or (refused and not self.opts.get("retry_connrefused")):
                    raise
                problem = "connection refused" if refused else "timeout"
            if self.show_errors:
                self._trace(
                    f"Warning: Problem : {problem}. Will retry in {int(delay)} seconds. "
                    f"{left} retries left.\n"
                )
            wait(self.ctx, delay)
            if not self.retry_delay:
                delay = min(delay * 2, 600.0)
        raise AssertionError("unreachable")

    def _attempt(self, req: Request, sink: _Sink, t: Transfer, retrying: bool) -> int:
        """One try; -1 asks for a retry (a transient HTTP status with retries left)."""
        with HttpClient(
            self.cfg,
            max_time=self.max_time,
            connect_timeout=self.connect_timeout,
            max_response_size=None if self.max_filesize is None else int(self.max_filesize),
            run_remaining=self.ctx.budget.remaining,
            on_connect=self._on_connect,
            on_request=self._on_request,
        ) as client:
            resp = client.fetch(
                req,
                follow=bool(self.opts.get("location")),
                max_redirects=self.max_redirs,
                prepare=self._prepare,
                on_response=lambda r, final: self._on_response(r, final, sink, t),
            )
            try:
                return self._finish(resp, sink, t, retrying)
            finally:
                resp.close()

    def _on_response(self, resp: Response, final: bool, sink: _Sink, t: Transfer) -> None:
        self._flush_request()
        head = f"{resp.http_version} {resp.status} {resp.reason}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in resp.headers) + "\r\n"
        t.size_header += len(head)
        t.size_request += sum(len(k) + len(v) + 4 for k, v in resp.shown_request_headers)
        if self.verbose:
            self._trace("".join(f"< {line}\r\n" for line in head.split("\r\n")[:-1]))
        if self.jar is not None:
            for k, v in resp.headers:
                if k.lower() == "set-cookie":
                    self.jar.set_from_header(resp.url, v, self.ctx.clock())
        if self.dump is not None:
            self.dump.write(head.encode("latin-1"))
        fails = resp.status >= 400 and self.opts.get("fail") and not self.opts.get("fail_with_body")
        if self.include and not (fails and not self.opts.get("include")):
            sink.write(head.encode("latin-1"))

    def _finish(self, resp: Response, sink: _Sink, t: Transfer, retrying: bool) -> int:
        t.status, t.http_version, t.headers = resp.status, resp.http_version, resp.headers
        t.effective, t.redirects, t.remote = str(resp.url), resp.redirects, resp.remote
        t.redirect_url = ""
        if (
            resp.status in (301, 302, 303, 307, 308)
            and resp.header("location")
            and not self.opts.get("location")
        ):
            try:
                t.redirect_url = str(join(resp.url, resp.header("location") or ""))
            except UrlError:
                pass
        if retrying and resp.status in _RETRY_STATUSES:
            return -1
        failed = resp.status >= 400 and (self.opts.get("fail") or self.opts.get("fail_with_body"))
        if failed and not self.opts.get("fail_with_body"):
            return self._http_error(resp, t)
        for chunk in resp.iter_body(decode=bool(self.opts.get("compressed"))):
            self.ctx.checkpoint(1 + len(chunk) // 4096)
            t.size_download += len(chunk)
            sink.write(chunk)
        sink.write(b"")  # -o creates the file even for an empty body
        return self._http_error(resp, t) if failed else 0

    def _http_error(self, resp: Response, t: Transfer) -> int:
        t.errormsg = f"The requested URL returned error: {resp.status}"
        if self.show_errors:
            self._trace(f"curl: (22) {t.errormsg}\n")
        return 22

    def _write_out(self, t: Transfer) -> None:
        fmt = str(self.opts["write_out"])
        if fmt.startswith("@"):
            try:
                fmt = self.ctx.read_input(fmt[1:]).decode("utf-8", "surrogateescape")
            except FsError:
                return
        enc = "utf-8"
        write_out(
            fmt,
            t,
            lambda s: self.ctx.stdout.write(s.encode(enc, "surrogateescape")),
            lambda s: self.ctx.stderr.write(s.encode(enc, "surrogateescape")),
            self._trace,
        )

    def save_jar(self) -> None:
        path = self.opts.get("cookie_jar")
        if path and self.jar is not None:
            sink = _Sink(self.ctx, str(path), False)
            try:
                sink.write(self.jar.dump_netscape(self.ctx.clock()).encode("utf-8", "surrogateescape"))
            except WriteFailed:
                pass
            finally:
                sink.close()


@declare("curl", spec=SPEC, network=True, effects=Effects.CURL)
def cmd_curl(ctx: Ctx) -> int:
    cfg = network_config(ctx)
    try:
        opts, operands = parse_args(SPEC, ctx.args)
    except UsageError as e:
        raise _usage(ctx, _curl_usage(e.message))
    except HelpRequested as h:
        ctx.stdout.write(h.text.encode())
        return 0
    urls = [*operands, *(opts.get("url") or [])]
    if not urls:
        raise _usage(ctx, "no URL specified!")
    if opts.get("insecure"):
        ctx.stderr.write(b"Warning: --insecure is ignored: this sandbox always verifies TLS certificates\n")
    curl = Curl(ctx, cfg, opts)
    targets = _targets(opts)
    remote_all = bool(opts.get("remote_name_all"))
    status = 0
    for i, url in enumerate(urls):
        target = targets[i] if i < len(targets) else _Target(None, remote_all)
        status = curl.transfer(url, target)  # curl reports the last transfer's result
    if curl.dump is not None:
        curl.dump.close()
    curl.save_jar()
    return status
