"""wget: download URLs through the sandbox's network client.

Exit statuses follow GNU wget (1 generic, 2 usage, 3 file I/O, 4 network,
5 TLS, 8 server error; with several failures the lowest non-1 code wins).
A request the configuration refuses prints `wget: Access denied: <why>` and
counts as a network failure (4). The progress bar is not drawn.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ...net.client import HttpClient, Request, Response
from ...net.config import NetworkConfig
from ...net.errors import (
    AccessDenied,
    ConnectFailed,
    EmptyReply,
    NetError,
    RecvFailed,
    ResolveFailed,
    TimedOut,
    TlsFailed,
    TooManyRedirects,
)
from ...net.url import UnsupportedScheme, Url, UrlError, join, parse_url
from ...stdio.streams import Stream
from ...vfs.errors import FsError, strerror
from ..context import CommandExit, Ctx
from ..options import CommandSpec, HelpRequested, Opt, Parsed, UsageError, parse_args
from ..record import Effects, declare
from .common import basic_auth, network_config, timed_out, wait

WGET_VERSION = "1.21.3"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})

SPEC = CommandSpec(
    name="wget",
    usage="[OPTION]... [URL]...",
    summary="Download URLs over HTTP or HTTPS, within the sandbox's network allow-list.",
    opts=(
        Opt("q", "quiet"),
        Opt("v", "verbose"),
        Opt(None, "no-verbose"),
        Opt("n", None, "required", dest="n"),
        Opt("O", "output-document", "required"),
        Opt("P", "directory-prefix", "required"),
        Opt(None, "header", "required", multi=True),
        Opt(None, "post-data", "required"),
        Opt(None, "post-file", "required"),
        Opt(None, "method", "required"),
        Opt(None, "body-data", "required"),
        Opt(None, "body-file", "required"),
        Opt("S", "server-response"),
        Opt("T", "timeout", "required"),
        Opt("t", "tries", "required"),
        Opt(None, "retry-connrefused"),
        Opt(None, "waitretry", "required"),
        Opt("U", "user-agent", "required"),
        Opt(None, "max-redirect", "required"),
        Opt(None, "user", "required"),
        Opt(None, "password", "required"),
        Opt(None, "no-check-certificate"),
        Opt(None, "content-on-error"),
        Opt(None, "no-clobber"),
        Opt(
            None,
            "compression",
            "required",
            help="choose compression, one of auto, gzip and none. (default: none)",
        ),
    ),
)


@dataclass
class _Outcome:
    code: int = 0
    size: int = 0
    name: str = ""


def _usage(ctx: Ctx, message: str) -> CommandExit:
    ctx.stderr.write(
        f"wget: {message}\nUsage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.\n".encode()
    )
    return CommandExit(2)


class Wget:
    def __init__(self, ctx: Ctx, cfg: NetworkConfig, opts: Parsed) -> None:
        self.ctx, self.cfg, self.opts = ctx, cfg, opts
        letters = str(opts.get("n") or "")
        self.quiet = bool(opts.get("quiet"))
        self.brief = not self.quiet and (bool(opts.get("no_verbose")) or "v" in letters)
        self.no_clobber = bool(opts.get("no_clobber")) or "c" in letters
        self.timeout = self._number("timeout")
        tries = self._number("tries")
        self.tries = 20 if tries is None else (int(tries) or 20)
        waitretry = self._number("waitretry")
        self.waitretry = 10.0 if waitretry is None else waitretry
        redirect = self._number("max_redirect")
        self.max_redirect = 20 if redirect is None else int(redirect)
        self.output: Stream | None = None  # -O FILE, opened once for every URL
        choice = opts.get("compression")
        self.compression = "none" if choice is None else str(choice).lower()
        if self.compression not in ("auto", "gzip", "none"):
            ctx.stderr.write(
                f"wget: --compression: Invalid value ‘{choice}’.\n".encode("utf-8", "surrogateescape")
            )
            raise CommandExit(2)
        self._connected = False  # a request went out on this hop and awaits its response

    def _number(self, key: str) -> float | None:
        value = self.opts.get(key)
        if value is None:
            return None
        try:
            return float(value)
        except ValueError:
            self.ctx.stderr.write(f"wget: --{key.replace('_', '-')}: Invalid number ‘{value}’.\n".encode())
            raise CommandExit(2)

    # ------------------------------------------------------------ logging

    def log(self, text: str, when: str = "verbose") -> None:
        """`when`: "verbose" (the default log), "brief" (-nv only) or "always" (unless -q)."""
        if not self.quiet and (when == "always" or (when == "brief") == self.brief):
            self.ctx.stderr.write(text.encode("utf-8", "surrogateescape"))

    def _now(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(self.ctx.clock()))

    def _on_connect(self, host: str, address: str, port: int, connected: bool) -> None:
        if connected:
            self.log("connected.\n")
            self._connected = True
        elif host == address:
            self.log(f"Connecting to {host}:{port}... ")
        else:
            self.log(
                f"Resolving {host} ({host})... {address}\nConnecting to {host} ({host})|{address}|:{port}... "
            )

    def _on_response(self, resp: Response, final: bool) -> None:
        self._connected = False
        self.log("HTTP request sent, awaiting response... ")
        if self.opts.get("server_response"):
            self.log(f"\n  {resp.http_version} {resp.status} {resp.reason}\n")
            self.log("".join(f"  {k}: {v}\n" for k, v in resp.headers))
        else:
            self.log(f"{resp.status} {resp.reason}\n")
        location = resp.header("location")
        if resp.status in _REDIRECTS and location is not None:
            self.log(f"Location: {location} [following]\n")
            if not final:
                self.log(f"--{self._now()}--  {join(resp.url, location)}\n")

    # ------------------------------------------------------------ requests

    def request(self, url: Url) -> Request:
        opts = self.opts
        headers = [
            ("User-Agent", str(opts.get("user_agent") or f"Wget/{WGET_VERSION}")),
            ("Accept", "*/*"),
            ("Accept-Encoding", "identity" if self.compression == "none" else "gzip"),
            ("Connection", "Keep-Alive"),
        ]
        user = opts.get("user") or url.username
        if user is not None:
            password = opts.get("password") or url.password or ""
            headers.insert(0, ("Authorization", basic_auth(f"{user}:{password}")))
        body: bytes | None = None
        for key in ("post_data", "body_data"):
            if opts.get(key) is not None:
                body = str(opts[key]).encode("utf-8", "surrogateescape")
        for key in ("post_file", "body_file"):
            if opts.get(key) is not None:
                try:
                    body = self.ctx.read_input(str(opts[key]))
                except FsError as e:
                    self.ctx.stderr.write(f"wget: {opts[key]}: {strerror(e.code)}\n".encode())
                    raise CommandExit(3)
        method = str(opts.get("method") or ("POST" if body is not None else "GET")).upper()
        if body is not None:
            headers += [
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Content-Length", str(len(body))),
            ]
        custom: list[tuple[str, str]] = []
        for line in opts.get("header") or []:
            name, colon, value = str(line).partition(":")
            if colon and name.strip():
                custom.append((name.strip(), value.strip()))
        names = {n.lower() for n, _ in custom}
        return Request(method, url, [h for h in headers if h[0].lower() not in names] + custom, body)

    def _filename(self, url: Url) -> str:
        name = url.filename or "index.html"
        prefix = self.opts.get("directory_prefix")
        path = f"{str(prefix).rstrip('/')}/{name}" if prefix else name
        if self.no_clobber:
            return path
        candidate, n = path, 0
        while self.ctx.fs.exists(candidate):
            n += 1
            candidate = f"{path}.{n}"
        return candidate

    def _open(self, url: Url) -> tuple[Stream, str]:
        doc = self.opts.get("output_document")
        if doc == "-":
            return self.ctx.stdout, "-"
        if doc is not None:
            if self.output is None:
                self.output = self.ctx.open_out(str(doc))
            return self.output, str(doc)
        name = self._filename(url)
        prefix = self.opts.get("directory_prefix")
        if prefix:
            self.ctx.fs.mkdir(str(prefix), parents=True)
        return self.ctx.open_out(name), name

    def _save(self, resp: Response, url: Url, out: _Outcome) -> None:
        length = resp.header("content-length")
        ctype = resp.header("content-type")
        self.log(f"Length: {length or 'unspecified'}{f' [{ctype}]' if ctype else ''}\n")
        if (
            self.no_clobber
            and self.opts.get("output_document") is None
            and self.ctx.fs.exists(self._filename(url))
        ):
            self.log(f"File ‘{self._filename(url)}’ already there; not retrieving.\n\n")
            return
        try:
            stream, name = self._open(url)
        except FsError as e:
            self.ctx.stderr.write(f"{self._filename(url)}: {strerror(e.code)}\n".encode())
            out.code = 3
            return
        out.name = name
        self.log(f"Saving to: ‘{'STDOUT' if name == '-' else name}’\n\n")
        started = time.monotonic()
        try:
            for chunk in resp.iter_body(decode=self._decodes(resp)):
                self.ctx.checkpoint(1 + len(chunk) // 4096)
                stream.write(chunk)
                out.size += len(chunk)
        finally:
            if stream is not self.ctx.stdout and stream is not self.output:
                stream.close()
        total = f"{out.size}/{length}" if length else f"{out.size}"
        speed = _speed(out.size, time.monotonic() - started)
        if name == "-":
            self.log(f"{self._now()} ({speed}) - written to stdout [{total}]\n\n")
        else:
            self.log(f"{self._now()} ({speed}) - ‘{name}’ saved [{total}]\n\n")
        self.log(f'{self._now()} URL:{resp.url} [{total}] -> "{name}" [1]\n', "brief")

    def _decodes(self, resp: Response) -> bool:
        """wget undoes exactly one "gzip" coding (a list of codings is saved as it came),
        except for a .gz/.tgz file, which broken servers label gzip; the decoded bytes
        count against the response limit (client.iter_body)."""
        coding = (resp.header("content-encoding") or "").strip().lower()
        path = resp.url.path.lower()
        return self.compression != "none" and coding == "gzip" and not path.endswith((".gz", ".tgz"))

    def retrieve(self, url_text: str) -> _Outcome:
        out = _Outcome()
        try:
            url = parse_url(url_text, default_scheme="http")
        except UnsupportedScheme as e:
            self.ctx.stderr.write(f"{url_text}: Unsupported scheme ‘{e.scheme}’.\n".encode())
            out.code = 1
            return out
        except UrlError:
            self.ctx.stderr.write(f"{url_text}: Invalid URL.\n".encode())
            out.code = 1
            return out
        req = self.request(url)
        for attempt in range(1, self.tries + 1):
            self.log(f"--{self._now()}--  {f'(try:{attempt:2d})  ' if attempt > 1 else ''}{url}\n")
            try:
                self._once(req, out)
                return out
            except (TimedOut, RecvFailed, EmptyReply, ConnectFailed) as e:
                timed_out(self.ctx, e)
                self._log_failure(e)
                out.code = 4
                if isinstance(e, ConnectFailed) and not self.opts.get("retry_connrefused"):
                    return out
                if attempt == self.tries:
                    self.log("Giving up.\n\n")
                    return out
                self.log("Retrying.\n\n")
                wait(self.ctx, min(float(attempt), self.waitretry))
            except NetError as e:
                out.code = self._fatal(e, url)
                return out
        return out

    def _once(self, req: Request, out: _Outcome) -> None:
        with HttpClient(
            self.cfg,
            max_time=self.timeout,
            run_remaining=self.ctx.budget.remaining,
            on_connect=self._on_connect,
        ) as client:
            resp = client.fetch(req, max_redirects=self.max_redirect, on_response=self._on_response)
            try:
                if resp.status >= 400:
                    self.log(f"{self._now()} ERROR {resp.status}: {resp.reason}.\n\n", "always")
                    out.code = 6 if resp.status in (401, 407) else 8
                    if self.opts.get("content_on_error"):
                        self._save(resp, req.url, out)
                    return
                self._save(resp, req.url, out)
            finally:
                resp.close()

    def _log_failure(self, e: NetError) -> None:
        if self._connected:
            self.log("HTTP request sent, awaiting response... ")
            self._connected = False
        if isinstance(e, ConnectFailed):
            self.log(
                "failed: Connection refused.\n"
                if "connect to server" in e.reason
                else f"failed: {e.reason}.\n"
            )
        elif isinstance(e, TimedOut):
            self.log("Read error (Connection timed out) in headers.\n")
        else:
            self.log(f"Read error ({e.message}) in headers.\n")

    def _fatal(self, e: NetError, url: Url) -> int:
        if isinstance(e, ResolveFailed):
            self.log(f"Resolving {e.host} ({e.host})... failed: Name or service not known.\n")
            self.ctx.stderr.write(f"wget: unable to resolve host address ‘{e.host}’\n".encode())
            return 4
        if isinstance(e, TooManyRedirects):
            self.log(f"{e.limit} redirections exceeded.\n", "always")
            return 8
        if isinstance(e, TlsFailed):
            self.ctx.stderr.write(f"ERROR: cannot verify {url.host}'s certificate: {e.message}\n".encode())
            return 5
        if isinstance(e, AccessDenied):
            self.ctx.stderr.write(f"wget: {e.message}\n".encode("utf-8", "surrogateescape"))
            return 4
        self.ctx.stderr.write(f"wget: {e.message}\n".encode("utf-8", "surrogateescape"))
        return 1 if e.curl_code != 23 else 3


def _speed(size: int, seconds: float) -> str:
    """wget's rate: three significant digits in B/s, KB/s, MB/s or GB/s."""
    rate = size / max(seconds, 1e-6)
    unit = "B/s"
    for bigger in ("KB/s", "MB/s", "GB/s"):
        if rate < 1024:
            break
        rate, unit = rate / 1024, bigger
    return f"{rate:.2f} {unit}" if rate < 10 else f"{rate:.1f} {unit}" if rate < 100 else f"{rate:.0f} {unit}"


def _worst(codes: list[int]) -> int:
    """wget: apart from 0 and 1, the lowest code wins."""
    serious = [c for c in codes if c > 1]
    return min(serious) if serious else max(codes, default=0)


@declare("wget", spec=SPEC, network=True, effects=Effects.WGET)
def cmd_wget(ctx: Ctx) -> int:
    cfg = network_config(ctx)
    try:
        opts, urls = parse_args(SPEC, ctx.args)
    except UsageError as e:
        raise _usage(ctx, e.message)
    except HelpRequested as h:
        ctx.stdout.write(h.text.encode())
        return 0
    if not urls:
        ctx.stderr.write(
            b"wget: missing URL\nUsage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.\n"
        )
        return 1
    wget = Wget(ctx, cfg, opts)
    if opts.get("no_check_certificate"):
        ctx.stderr.write(
            b"wget: --no-check-certificate is ignored: this sandbox always verifies certificates\n"
        )
    started = time.monotonic()
    try:
        outcomes = [wget.retrieve(url) for url in urls]
    finally:
        if wget.output is not None:
            wget.output.close()
    saved = [o for o in outcomes if o.name]
    if len(urls) > 1:
        wget.log(
            f"FINISHED --{wget._now()}--\nTotal wall clock time: {time.monotonic() - started:.3f}s\n"
            f"Downloaded: {len(saved)} files, {sum(o.size for o in saved)} bytes\n",
            "always",
        )
    return _worst([o.code for o in outcomes])
