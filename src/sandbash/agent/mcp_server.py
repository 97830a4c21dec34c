"""`sandbash mcp`: the sandbox as a Model Context Protocol server, on the
official `mcp` SDK (`pip install 'sandbash[mcp]'`), over stdio (default) or
streamable HTTP (`--transport http`, on 127.0.0.1 unless `--host` says
otherwise; any other address needs a bearer token and an allowed-hosts list).

Tools: `bash` (the tool contract of `sandbash.agent.tool`), `read_file`,
`write_file`, `list_dir`; each takes an optional `session_id` (relative paths
resolve against that session's cwd). Input is checked by the tool contract's
own validator: a bad call gets the same one-line message as `BashTool`.

What clients share and what they do not: every client of one server shares its
*filesystem*; *shell state* (cwd, variables, exported secrets, functions) is
private. A session is bound to the client's MCP session (stdio: the one
client; HTTP: the `mcp-session-id` the SDK issued), so two clients using the
same `session_id` get two shells. A stateless HTTP client has no MCP session:
its session ids are made by the server (128 random bits, returned as
`session_id` in the result) and a name the server did not issue starts a new
session. Shells are bounded in number and forgotten after an idle time.

The configuration file (`--config FILE`, TOML; flags win over it) is described
in `CONFIG_HELP` below (`sandbash mcp --help` prints it).
"""

# no `from __future__ import annotations`: the SDK inspects the tool functions'
# signatures (the Context parameter) at registration.

import argparse
import errno
import hmac
import ipaddress
import os
import posixpath
import sys
import threading
import tomllib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..commands.gnuquote import char_escape, quoteaf
from ..config import build_filesystem, parse_limit, parse_mount, setting_error, start_cwd
from ..limits import Limits
from ..net import NetworkConfig
from ..policy import Policy, PolicyError
from ..stdio.streams import StreamError
from ..vfs.errors import FsError, strerror
from ..vfs.facade import FileStream, FsView
from .tool import (
    DEFAULT_MAX_CONCURRENT_CALLS,
    DEFAULT_MAX_OUTPUT_CHARS,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_MEMORY,
    DEFAULT_SESSION_IDLE_TIMEOUT,
    INPUT_SCHEMA,
    BashTool,
    ToolInputError,
    ToolRequest,
    binary_notice,
    clean_input,
    is_binary,
    truncate_middle,
    validate,
)

TOKEN_ENV = "SANDBASH_MCP_TOKEN"
# tool calls the server holds at once, running or waiting for one of max_concurrent_calls turns
DEFAULT_MAX_PENDING_CALLS = 64
MIN_TOKEN_CHARS = 16
LOCAL_SCOPE = "local"  # the one client of a stdio (or in-process) server
ISSUED_SCOPE = "issued"  # sessions of stateless HTTP clients: server-made ids only
LOOPBACK_HOSTS = ["127.0.0.1:*", "localhost:*", "[::1]:*"]

CONFIG_HELP = """\
configuration file (--config FILE, TOML; every key optional; flags win):
  [sandbox]
  cwd = "/work"                  where each call starts (default: / with a root
                                 directory, else /home/user)
  profile = "default"            limits profile: default, hardened, generous
  timeout = 30                   seconds per call (a [limits] entry)
  max_output_chars = 30000       stdout and stderr are each cut to this
  max_sessions = 64              shells kept for all clients (least recently used
                                 forgotten first)
  session_idle_timeout = 3600    seconds before an unused shell is forgotten
  max_sessions_memory = 1073741824  bytes all kept shells may hold together
                                 (least recently used forgotten first)
  max_concurrent_calls = 8       bash calls run at once (more wait their turn)
  max_pending_calls = 64         tool calls the server holds at once, running or
                                 waiting (past it a call is refused: try again)
  [limits]                       any Limits field, e.g. max_command_count = 5000
  [network]
  allow_urls = ["https://api.example.com/"]   curl/wget reach only these prefixes
  methods = ["GET", "HEAD"]
  [filesystem]
  root = "./project"             host directory as / (copy-on-write: never written)
  store = "state.db"             or: / kept in a SQLite file
  mounts = ["./data:/data:ro", "./out:/out:rw"]
  [server]
  transport = "stdio"            or "http"
  host = "127.0.0.1"             HTTP address; a non-loopback one needs token and
  port = 8000                    allowed_hosts
  path = "/mcp"
  token = "..."                  bearer token clients must send (also the
                                 SANDBASH_MCP_TOKEN variable or --token)
  allowed_hosts = ["mcp.example.com:*"]       Host header values accepted (instead of
                                 the loopback names: add "127.0.0.1:*" to keep them)
  allowed_origins = ["https://app.example.com"]
  [sessions]
  store = "redis://127.0.0.1:6379/0"  keep every session in a store (memory://,
                                 sqlite:///path.db, redis://, postgresql://): any
                                 replica on the same store serves any session
  stateless = true               HTTP without MCP sessions (any replica answers any
                                 request: put several behind a load balancer)
  workers = 4                    run each bash call in a worker process (needs store)
  worker_memory = 2147483648     a worker's address-space limit, in bytes
  [host]                         host mode (ps, ss, ip, systemctl... read this machine)
  paths = ["/var/log:ro"]        host directories shown at their real paths
  proc_path = "/proc"            where the inspection commands read (and sys_path)
  [policy]                       the same TOML as a --policy FILE, e.g.
  mode = "read-only"
  paths = ["/data:ro", "/out:rw"]
  [policy.commands]
  deny = ["rm"]
SANDBASH_ALLOWED_COMMANDS, SANDBASH_DENIED_COMMANDS, SANDBASH_ALLOWED_PATHS and
SANDBASH_MODE override parts of the policy, as for the CLI.

Clients share the filesystem; each client's shells (cwd, variables, exported
values) are its own."""


@dataclass
class ServerConfig:
    cwd: str | None = None  # None: where the CLI would start for the same filesystem
    profile: str = "default"
    limits: dict[str, float] = field(default_factory=dict)
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS
    max_sessions: int = DEFAULT_MAX_SESSIONS
    max_sessions_memory: int = DEFAULT_MAX_SESSIONS_MEMORY
    max_concurrent_calls: int = DEFAULT_MAX_CONCURRENT_CALLS
    max_pending_calls: int = DEFAULT_MAX_PENDING_CALLS
    session_idle_timeout: float = DEFAULT_SESSION_IDLE_TIMEOUT
    allow_urls: list[str] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    root: str | None = None
    store: str | None = None
    mounts: list[str] = field(default_factory=list)
    policy: dict[str, Any] | None = None
    policy_toml: str | None = None  # --policy FILE's text (wins over [policy])
    transport: str = "stdio"
    host: str = "127.0.0.1"
    port: int = 8000
    path: str = "/mcp"
    token: str | None = None
    allowed_hosts: list[str] = field(default_factory=list)
    allowed_origins: list[str] = field(default_factory=list)
    # [host]: host mode (sandbash.host.HostAccess) when the table is present
    host_mode: bool = False
    paths: list[str] = field(default_factory=list)
    proc_path: str = "/proc"
    sys_path: str = "/sys"
    # [sessions]: where sessions live (sandbash.sessions.open_store URL) and stateless HTTP
    session_store: str | None = None
    stateless: bool = False
    workers: int = 0  # >0: `bash` calls run in that many worker processes (needs session_store)
    worker_memory: int = 2 << 30

    SECTIONS = {
        "sandbox": (
            "cwd",
            "profile",
            "max_output_chars",
            "timeout",
            "max_sessions",
            "max_sessions_memory",
            "max_concurrent_calls",
            "max_pending_calls",
            "session_idle_timeout",
        ),
        "filesystem": ("root", "store", "mounts"),
        "server": ("transport", "host", "port", "path", "token", "allowed_hosts", "allowed_origins"),
        "network": ("allow_urls", "methods"),
        "host": ("paths", "proc_path", "sys_path"),
        "sessions": ("store", "stateless", "workers", "worker_memory"),
    }

    @classmethod
    def from_toml(cls, text: str) -> "ServerConfig":
        data = tomllib.loads(text)
        unknown = set(data) - {*cls.SECTIONS, "limits", "policy"}
        if unknown:
            raise ValueError(f"unknown section(s): {', '.join(sorted(unknown))}")
        cfg = cls()
        for section, keys in cls.SECTIONS.items():
            table = data.get(section, {})
            if not isinstance(table, dict):
                raise ValueError(f"[{section}] must be a table")
            for key, value in table.items():
                if key not in keys:
                    raise ValueError(f"[{section}]: unknown setting {key!r}")
                if key == "store" and section == "sessions":
                    cfg.session_store = value
                elif key != "timeout":  # a limit: goes with [limits]
                    setattr(cfg, key, value)
        cfg.limits = dict(data.get("limits", {}))
        if "timeout" in data.get("sandbox", {}):
            cfg.limits["timeout"] = data["sandbox"]["timeout"]
        cfg.policy = data.get("policy")
        cfg.host_mode = "host" in data
        return cfg

    def build_limits(self) -> Limits:
        return Limits.profile(self.profile).with_overrides(**self.limits)

    def start_cwd(self) -> str:
        """--cwd, else where the CLI starts for the same filesystem (one rule: `cli.start_cwd`)."""
        return start_cwd(self.cwd, self.root)


def _network(cfg: ServerConfig) -> NetworkConfig | None:
    if not cfg.allow_urls:
        return None
    if cfg.methods:
        return NetworkConfig(allowed_url_prefixes=cfg.allow_urls, allowed_methods=cfg.methods)
    return NetworkConfig(allowed_url_prefixes=cfg.allow_urls)


def build_policy(cfg: ServerConfig) -> Policy | None:
    """--policy FILE, else the [policy] table (the same format: `Policy.from_mapping` of the
    parsed TOML); then the SANDBASH_* environment variables, as the CLI."""
    if cfg.policy_toml is not None:
        base: Policy | None = Policy.from_toml(cfg.policy_toml)
    else:
        base = Policy.from_mapping(cfg.policy) if cfg.policy is not None else None
    environ = os.environ  # the server's own environment (a host-facing owner of os)
    return Policy.from_env(environ, base)


def files_note(cfg: ServerConfig) -> str:
    """Where the user's files are, for the tool description (which already says where calls start)."""
    parts = []
    if cfg.root:
        parts.append("The user's directory is the root / (a copy-on-write view: changes stay in the sandbox)")
    for spec in cfg.mounts:
        _, path, mode = parse_mount(spec)
        kind = {"ro": "read-only", "rw": "read-write", "cow": "copy-on-write"}.get(mode, mode)
        parts.append(f"the user's directory {path} is mounted {kind}")
    if not parts:
        return ""
    text = "; ".join(parts) + "."
    return text[0].upper() + text[1:]


def build_host(cfg: ServerConfig) -> Any:
    """The HostAccess of a [host] table (None without one)."""
    if not cfg.host_mode:
        return None
    from ..host import HostAccess

    return HostAccess(paths=tuple(cfg.paths), proc_path=cfg.proc_path, sys_path=cfg.sys_path)


def build_tool(cfg: ServerConfig) -> BashTool:
    limits = cfg.build_limits()
    policy = build_policy(cfg)
    fs = build_filesystem(cfg.root, cfg.store, cfg.mounts, limits)
    from .sandbox import new_bash

    cwd = cfg.start_cwd()
    bash = new_bash(fs=fs, cwd=cwd, limits=limits, network=_network(cfg), policy=policy, host=build_host(cfg))
    return BashTool(
        bash,
        max_output_chars=cfg.max_output_chars,
        max_sessions=cfg.max_sessions,
        max_sessions_memory=cfg.max_sessions_memory,
        max_concurrent_calls=cfg.max_concurrent_calls,
        session_idle_timeout=cfg.session_idle_timeout,
        files_note=files_note(cfg),
        store=cfg.session_store,
    )


# ------------------------------------------------------------------ the tools

_PATH = {"type": "string", "description": "A path in the sandbox (relative to the session's cwd)."}
_SESSION = INPUT_SCHEMA["properties"]["session_id"]
READ_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"path": _PATH, "session_id": _SESSION},
    "required": ["path"],
    "additionalProperties": False,
}
WRITE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": _PATH,
        "content": {"type": "string", "description": "The text to write."},
        "session_id": _SESSION,
        "append": {"type": "boolean", "description": "Append instead of replacing the file."},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}
LIST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {**_PATH, "default": "."}, "session_id": _SESSION},
    "additionalProperties": False,
}


def client_scope(headers: Mapping[str, str] | None) -> str | None:
    """The scope of a call's sessions: the stdio client, the HTTP client's MCP session,
    or None for a stateless HTTP client (no identity: server-issued ids only)."""
    if headers is None:
        return LOCAL_SCOPE
    sid = headers.get("mcp-session-id")
    return f"mcp:{sid}" if sid else None


class Drain:
    """Calls running now, and whether the server is stopping: on SIGTERM an HTTP server stops
    being ready (`/readyz` 503), waits until no call runs (at most `limit` seconds), then exits."""

    def __init__(self) -> None:
        self.running = 0
        self.draining = False
        self._cond = threading.Condition()

    def __enter__(self) -> None:
        with self._cond:
            self.running += 1

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self.running -= 1
            self._cond.notify_all()

    def wait_idle(self, limit: float) -> None:
        with self._cond:
            self._cond.wait_for(lambda: self.running == 0, timeout=limit)


class Admission:
    """The tool calls the server holds at once, running or waiting for a turn: each waiting
    `bash` call holds a thread (`aio.run_cancellable`) and its request, so a client sending
    thousands at once grew the server without bound. Past `cap` a call is answered at once
    with a one-line error and holds nothing."""

    def __init__(self, cap: int = DEFAULT_MAX_PENDING_CALLS) -> None:
        if cap < 1:
            raise ValueError("max_pending_calls must be at least 1")
        self.cap = cap
        self.held = 0
        self._lock = threading.Lock()  # (the HTTP and stdio servers call from one loop; embedders may not)

    def enter(self) -> bool:
        with self._lock:
            if self.held >= self.cap:
                return False
            self.held += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self.held -= 1


class _Calls:
    """The four tools over one BashTool, with sessions bound to the calling client."""

    def __init__(self, tool: BashTool, pool: Any = None, drain: Drain | None = None) -> None:
        self.tool = tool
        self.pool = pool  # a WorkerPool: `bash` calls run in its worker processes
        self.drain = drain or Drain()

    def _session_key(self, scope: str | None, session_id: str | None) -> tuple[str, str | None, bool]:
        """(scope, session id to use, whether the server issued a new one)."""
        if session_id is None or scope is not None:
            return scope or ISSUED_SCOPE, session_id, False
        if self.tool.has_session(session_id, scope=ISSUED_SCOPE):
            return ISSUED_SCOPE, session_id, False
        return ISSUED_SCOPE, self.tool.new_session_id(), True

    async def bash(self, arguments: dict[str, Any], scope: str | None) -> Any:
        from mcp_types import CallToolResult, TextContent

        try:
            req = ToolRequest.parse(arguments)
        except ToolInputError as e:
            self.tool.record_refused(arguments, str(e))
            return _error(str(e))
        try:
            key_scope, sid, issued = self._session_key(scope, req.session_id)
            req.session_id = sid
            with self.drain:
                if self.pool is not None:
                    import anyio

                    out = await anyio.to_thread.run_sync(lambda: self.pool.run(req, scope=key_scope))
                else:
                    out = await self.tool.arun(req, scope=key_scope)
        except ToolInputError as e:
            return _error(str(e))
        data = out.to_dict()
        text = out.text()
        if sid is not None:
            data["session_id"] = sid
        if issued:
            text += f"\n[session_id: {sid} (use this id to continue the session)]"
        return CallToolResult(
            content=[TextContent(type="text", text=text)], structured_content=data, is_error=out.is_error
        )

    def in_session(
        self, scope: str | None, session_id: str | None, fn: Callable[[FsView], str], save: bool
    ) -> str:
        """`fn` on the filesystem a session sees from its cwd (the tool's own without a session;
        in store mode the session's own files, saved again when `save`)."""
        tool = self.tool
        if session_id is None:
            return fn(tool.bash.vfs.view(tool.bash.cwd))
        out = tool.with_session(
            session_id, lambda s: fn(s.bash.vfs.view(s.cwd)), scope=scope or ISSUED_SCOPE, save=save
        )
        if out is None:
            raise ToolInputError(f"unknown session_id {session_id!r} (the bash tool starts sessions)")
        return out

    def read_file(self, args: dict[str, Any], scope: str | None) -> str:
        return self.in_session(scope, args.get("session_id"), lambda fs: self._read(fs, args), save=False)

    def write_file(self, args: dict[str, Any], scope: str | None) -> str:
        return self.in_session(scope, args.get("session_id"), lambda fs: self._write(fs, args), save=True)

    def list_dir(self, args: dict[str, Any], scope: str | None) -> str:
        return self.in_session(scope, args.get("session_id"), lambda fs: self._list(fs, args), save=False)

    def _read(self, fs: FsView, args: dict[str, Any]) -> str:
        path = args["path"]
        cap = self.tool.max_output_chars
        try:
            head, skipped, tail = read_ends(fs, path, 4 * cap)  # (4: the most bytes a character takes)
        except FsError as e:
            raise ToolInputError(f"{path}: {strerror(e.code)}") from None
        except StreamError as e:  # (a host file's read failing half-way)
            raise ToolInputError(f"{path}: {strerror(e.errno or errno.EIO)}") from None
        if is_binary(head):
            return binary_notice(len(head) + skipped + len(tail))
        text = head.decode("utf-8", "replace") + tail.decode("utf-8", "replace")
        return truncate_middle(text, cap, skipped)[0]

    def _write(self, fs: FsView, args: dict[str, Any]) -> str:
        path = args["path"]
        full = fs.abspath(path)
        data = args["content"].encode("utf-8", "surrogateescape")
        try:
            fs.write_file(full, data, append=bool(args.get("append")), parents=True)
        except FsError as e:
            raise ToolInputError(f"{path}: {strerror(e.code)}") from None
        return f"wrote {len(data)} bytes to {full}"

    def _list(self, fs: FsView, args: dict[str, Any]) -> str:
        path = args.get("path", ".")
        cap = self.tool.max_output_chars
        try:
            names = sorted(fs.listdir(path))
            lines, size = [], 0
            for i, n in enumerate(names):
                st = fs.lstat(posixpath.join(path, n))
                # a name with a newline, tab or escape is shown as `ls` quotes it: it cannot forge entries
                shown = quoteaf(n) if any(char_escape(c) is not None for c in n) else n
                line = f"{shown}/" if st.is_dir else f"{shown}\t{st.size}"
                size += len(line) + 1
                if size > cap:  # cut as read_file's text is: a directory may hold millions of names
                    lines.append(f"[… {len(names) - i:,} more entries not shown …]")
                    break
                lines.append(line)
        except FsError as e:
            raise ToolInputError(f"{path}: {strerror(e.code)}") from None
        return "\n".join(lines) if lines else "(empty directory)"


def read_ends(fs: FsView, path: str, keep: int) -> tuple[bytes, int, bytes]:
    """(head, bytes skipped, tail) of a file: the whole file when it holds at most 2 * `keep` bytes,
    else its first and last `keep` bytes. The server reads files outside any run's budget: a large
    host file (a mount, `--root`, a [host] path) read whole held its size in the server's memory
    for each call at once. A device is read whole (an endless one answers ENOMEM)."""
    stream = fs.open(path)
    try:
        if not isinstance(stream, FileStream):
            return fs.read_bytes(path), 0, b""
        handle = stream.handle
        size = handle.seek(0, 2)
        handle.seek(0)
        if size <= 2 * keep:
            return _read_up_to(stream, 2 * keep), 0, b""
        head = _read_up_to(stream, keep)
        handle.seek(size - keep)  # (FileStream reads ahead nothing: read(n) fills at most n)
        return head, size - 2 * keep, _read_up_to(stream, keep)
    finally:
        stream.close()


def _read_up_to(stream: Any, n: int) -> bytes:
    parts: list[bytes] = []
    while n > 0:
        chunk = stream.read(min(n, 1 << 16))
        if not chunk:
            break
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def _error(message: str) -> Any:
    from mcp_types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def _raw_tool(
    name: str,
    description: str,
    schema: dict[str, Any],
    handler: Callable[[dict[str, Any], str | None], Awaitable[Any]],
    admission: Admission,
) -> Any:
    """An SDK tool whose arguments reach `handler` untouched, with `schema` published:
    the tool contract's validator (not pydantic's) judges them, so every client sees the
    same one-line message for the same mistake."""
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.tools import Tool
    from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
    from pydantic import ConfigDict

    class Arguments(ArgModelBase):
        model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

        def model_dump_one_level(self) -> dict[str, Any]:
            return {"arguments": dict(self.model_extra or {})}

    async def call(arguments: dict[str, Any], ctx: Context) -> Any:
        if not admission.enter():
            return _error(
                f"{name}: the server holds {admission.cap} calls already (max_pending_calls); try again"
            )
        try:
            return await handler(arguments, client_scope(ctx.headers))
        finally:
            admission.leave()

    return Tool(
        fn=call,
        name=name,
        title=None,
        annotations=None,
        description=description,
        parameters=schema,
        fn_metadata=FuncMetadata(arg_model=Arguments),
        is_async=True,
        context_kwarg="ctx",
    )


def _text_tool(
    fn: Callable[[dict[str, Any], str | None], str], schema: Mapping[str, Any]
) -> Callable[[dict[str, Any], str | None], Awaitable[Any]]:
    """A file tool: validated like `bash`, its errors one line, its text the result."""
    import anyio
    from mcp_types import CallToolResult, TextContent

    async def handler(arguments: dict[str, Any], scope: str | None) -> Any:
        args = {k: v for k, v in arguments.items() if v is not None}
        try:
            validate(args, schema)
            args = clean_input(args)
            text = await anyio.to_thread.run_sync(fn, args, scope)
        except ToolInputError as e:
            return _error(str(e))
        return CallToolResult(content=[TextContent(type="text", text=text)])

    return handler


def build_server(
    tool: BashTool,
    name: str = "sandbash",
    pool: Any = None,
    drain: Drain | None = None,
    max_pending_calls: int = DEFAULT_MAX_PENDING_CALLS,
) -> Any:
    """An `MCPServer` with the four tools over `tool`'s sandbox; at most `max_pending_calls`
    tool calls held at once over all four."""
    from mcp.server.mcpserver import MCPServer

    calls = _Calls(tool, pool, drain)
    admission = Admission(max_pending_calls)
    tools = [
        _raw_tool("bash", tool.description(), tool.input_schema, calls.bash, admission),
        _raw_tool(
            "read_file",
            "Read a text file from the sandbox (long files are cut in the middle).",
            READ_SCHEMA,
            _text_tool(calls.read_file, READ_SCHEMA),
            admission,
        ),
        _raw_tool(
            "write_file",
            "Write (or append to) a text file in the sandbox; parent directories are "
            "created. Files are shared by every session and client.",
            WRITE_SCHEMA,
            _text_tool(calls.write_file, WRITE_SCHEMA),
            admission,
        ),
        _raw_tool(
            "list_dir",
            "List a directory of the sandbox: one entry per line, `name/` for directories, sizes for files.",
            LIST_SCHEMA,
            _text_tool(calls.list_dir, LIST_SCHEMA),
            admission,
        ),
    ]
    return MCPServer(name, instructions=tool.system_prompt(), log_level="WARNING", tools=tools)


# ------------------------------------------------------------------ HTTP


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def http_security(cfg: ServerConfig) -> tuple[list[str], list[str]]:
    """(allowed hosts, allowed origins) for the Host/Origin checks; raises ValueError
    for a non-loopback address without a token or an allowed-hosts list."""
    if not is_loopback(cfg.host):
        if not cfg.token:
            raise ValueError(
                f"--host {cfg.host} is not a loopback address: a bearer token is required "
                f"(set {TOKEN_ENV}, [server] token or --token)"
            )
        if not cfg.allowed_hosts:
            raise ValueError(
                f"--host {cfg.host} is not a loopback address: list the Host names clients use "
                "(--allowed-host NAME[:PORT|:*] or [server] allowed_hosts)"
            )
    if cfg.token is not None and len(cfg.token) < MIN_TOKEN_CHARS:
        raise ValueError(f"the bearer token must have at least {MIN_TOKEN_CHARS} characters")
    hosts = _any_port(list(cfg.allowed_hosts) or [*LOOPBACK_HOSTS, f"{cfg.host}:*"])
    origins = list(cfg.allowed_origins) or [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    return hosts, origins


def _any_port(hosts: list[str]) -> list[str]:
    """`NAME:*` also admits a bare `NAME`: the default port (a client behind a TLS proxy
    sends `Host: NAME`, a browser `Origin: https://NAME`), which the SDK's `:*` does not match."""
    out = list(hosts)
    for h in hosts:
        if h.endswith(":*") and h[:-2] not in out:
            out.append(h[:-2])
    return out


class BearerGate:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`
    (compared in constant time); others get 401 before reaching the MCP app."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = token.encode("utf-8")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            body = b"missing or wrong bearer token\n"
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"www-authenticate", b'Bearer realm="sandbash"'),
                        (b"content-type", b"text/plain"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _authorized(self, scope: dict[str, Any]) -> bool:
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                kind, _, given = bytes(value).partition(b" ")
                return kind.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.token)
        return False


def http_app(server: Any, cfg: ServerConfig) -> Any:
    from mcp.server.transport_security import TransportSecuritySettings

    hosts, origins = http_security(cfg)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )
    app = server.streamable_http_app(
        streamable_http_path=cfg.path,
        transport_security=security,
        host=cfg.host,
        stateless_http=cfg.stateless,
    )
    return BearerGate(app, cfg.token) if cfg.token else app


def add_health_routes(server: Any, tool: BashTool, drain: Drain | None = None) -> None:
    """`GET /healthz` (the process answers) and `GET /readyz` (it can serve: its session store
    answers), for load balancers and orchestrators; both outside the bearer token's reach only
    in what they say (a status word)."""
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse

    @server.custom_route("/healthz", methods=["GET"])  # type: ignore[untyped-decorator]
    async def healthz(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok\n")

    @server.custom_route("/readyz", methods=["GET"])  # type: ignore[untyped-decorator]
    async def readyz(request: Request) -> PlainTextResponse:
        import anyio

        if drain is not None and drain.draining:
            return PlainTextResponse("stopping\n", status_code=503)
        if tool.store is not None:
            try:
                await anyio.to_thread.run_sync(tool.store.load, "readyz-probe")
            except Exception as e:  # any client error: not ready
                return PlainTextResponse(f"session store unavailable: {type(e).__name__}\n", status_code=503)
        return PlainTextResponse("ready\n")


class _Unanswered:
    """The ids of the requests read from a stdio client and not answered yet."""

    def __init__(self) -> None:
        import anyio

        self.ids: set[str] = set()
        self._changed = anyio.Event()

    @staticmethod
    def _key(rid: object) -> str:
        return str(rid)  # the SDK may echo "7" as 7: the text is the identity

    def add(self, rid: object) -> None:
        self.ids.add(self._key(rid))

    def done(self, rid: object) -> None:
        import anyio

        self.ids.discard(self._key(rid))
        self._changed.set()
        self._changed = anyio.Event()

    async def wait_answered(self, quiet_limit: float) -> None:
        """Until every request is answered, or no answer came for `quiet_limit` seconds."""
        import anyio

        while self.ids:
            with anyio.move_on_after(quiet_limit) as scope:
                await self._changed.wait()
            if scope.cancelled_caught:
                return


class _StreamProxy:
    """Hands an SDK stream's closing and context management to the stream it wraps."""

    def __init__(self, inner: Any, unanswered: _Unanswered) -> None:
        self._inner = inner
        self._unanswered = unanswered

    async def __aenter__(self) -> Any:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)

    def close(self) -> None:
        self._inner.close()

    async def aclose(self) -> None:
        await self._inner.aclose()


class _ReadUntilAnswered(_StreamProxy):
    """The stdio read stream, whose end reaches the SDK only once every request read
    has been answered: at the end of input the SDK cancels the calls still running
    (each answered "Connection closed"), so a client that writes its requests and
    closes its side (`printf ... | sandbash mcp`) would lose every slow answer."""

    def __init__(self, inner: Any, unanswered: _Unanswered, quiet_limit: float) -> None:
        super().__init__(inner, unanswered)
        self._quiet_limit = quiet_limit

    @property
    def last_context(self) -> Any:  # the SDK reads the sender's contextvars from here
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        import anyio

        try:
            item = await self._inner.receive()
        except anyio.EndOfStream:
            await self._unanswered.wait_answered(self._quiet_limit)
            raise
        msg = getattr(item, "message", None)
        rid = getattr(msg, "id", None)
        method = getattr(msg, "method", None)
        if rid is not None and method is not None:
            self._unanswered.add(rid)
        elif method == "notifications/cancelled":
            # a cancelled request gets no answer: stop waiting for one
            params = getattr(msg, "params", None)
            cancelled = params.get("requestId") if isinstance(params, dict) else None
            if cancelled is not None:
                self._unanswered.done(cancelled)
        return item

    def __aiter__(self) -> "_ReadUntilAnswered":
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _WriteNotingAnswers(_StreamProxy):
    """The stdio write stream: an answer (a message with an id and no method) marks its
    request answered once it is handed to the stdout writer."""

    async def send(self, item: Any) -> None:
        await self._inner.send(item)
        msg = getattr(item, "message", None)
        rid = getattr(msg, "id", None)
        if rid is not None and getattr(msg, "method", None) is None:
            self._unanswered.done(rid)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def serve_stdio(server: Any, tool: BashTool) -> None:
    """Serve over stdin/stdout, answering every request read before the end of input ends
    the server (waiting at most a call's time limit, plus a margin, between answers)."""
    import anyio
    from mcp.server.stdio import stdio_server

    ceiling = tool.max_timeout or tool.bash.limits.timeout or 3600.0
    low = server._lowlevel_server  # what MCPServer.run_stdio_async runs, here over our wrappers

    async def run() -> None:
        unanswered = _Unanswered()
        async with stdio_server() as (read_stream, write_stream):
            await low.run(
                _ReadUntilAnswered(read_stream, unanswered, float(ceiling) + 10),
                _WriteNotingAnswers(write_stream, unanswered),
                low.create_initialization_options(),
            )

    anyio.run(run)


def serve_http(server: Any, cfg: ServerConfig, drain: Drain | None = None) -> None:
    import anyio
    import uvicorn

    app = http_app(server, cfg)
    limit = max(5.0, float(cfg.limits.get("timeout", 30)) + 5)
    config = uvicorn.Config(
        app, host=cfg.host, port=cfg.port, log_level="warning", timeout_graceful_shutdown=5
    )

    class Draining(uvicorn.Server):  # type: ignore[misc]
        """SIGTERM: stop being ready, let the running calls finish (up to their time limit), then
        shut down (uvicorn alone would close their streams mid-call). A second signal: at once."""

        def handle_exit(self, sig: int, frame: Any) -> None:
            if drain is None or drain.draining:
                super().handle_exit(sig, frame)
                return
            drain.draining = True
            stop = super().handle_exit

            def later() -> None:
                drain.wait_idle(limit)
                stop(sig, frame)

            threading.Thread(target=later, name="sandbash-drain", daemon=True).start()

        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:  # uvicorn logs only warnings: say where clients connect, once listening
                host = f"[{cfg.host}]" if ":" in cfg.host else cfg.host
                sys.stderr.write(f"sandbash mcp: serving on http://{host}:{cfg.port}{cfg.path}\n")
                sys.stderr.flush()

    anyio.run(Draining(config).serve)


# ------------------------------------------------------------------ command line


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="sandbash mcp",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=CONFIG_HELP,
        description="Serve the sandbox over the Model Context Protocol: tools bash, read_file, write_file, "
        "list_dir.",
    )
    p.add_argument("--config", metavar="FILE", help="TOML configuration (below)")
    p.add_argument("--transport", choices=["stdio", "http"], help="stdio (default) or streamable HTTP")
    p.add_argument(
        "--host",
        help="HTTP address to listen on (default 127.0.0.1; another address needs "
        "--token and --allowed-host)",
    )
    p.add_argument("--port", type=int, help="HTTP port (default 8000)")
    p.add_argument("--path", help="HTTP endpoint path (default /mcp)")
    p.add_argument(
        "--token",
        help=f"bearer token HTTP clients must send (visible in process listings: "
        f"prefer the {TOKEN_ENV} variable or the config file)",
    )
    p.add_argument(
        "--allowed-host",
        metavar="HOST[:PORT|:*]",
        action="append",
        default=[],
        help="Host header value HTTP clients may use (repeatable)",
    )
    p.add_argument(
        "--allowed-origin",
        metavar="ORIGIN",
        action="append",
        default=[],
        help="Origin header value browsers may send (repeatable)",
    )
    p.add_argument("--limits", dest="profile", help="limits profile: default, hardened, generous")
    p.add_argument("--timeout", type=float, help="wall-clock limit per call, in seconds")
    p.add_argument(
        "--limit",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="one limit, as for the CLI (e.g. --limit max_output_size=50MB --limit timeout=2m); "
        "repeatable, wins over [limits]",
    )
    p.add_argument(
        "--max-sessions", type=int, help=f"shells kept for all clients (default {DEFAULT_MAX_SESSIONS})"
    )
    p.add_argument(
        "--max-sessions-memory",
        type=int,
        metavar="BYTES",
        help="what all kept shells may hold together; the least recently used are forgotten first "
        f"(default {DEFAULT_MAX_SESSIONS_MEMORY})",
    )
    p.add_argument(
        "--max-concurrent-calls",
        type=int,
        metavar="N",
        help=f"bash calls run at once; more wait their turn (default {DEFAULT_MAX_CONCURRENT_CALLS})",
    )
    p.add_argument(
        "--max-pending-calls",
        type=int,
        metavar="N",
        help="tool calls held at once, running or waiting; past it a call is refused "
        f"(default {DEFAULT_MAX_PENDING_CALLS})",
    )
    p.add_argument(
        "--session-idle-timeout",
        type=float,
        metavar="SECONDS",
        help=f"forget a shell unused this long (default {DEFAULT_SESSION_IDLE_TIMEOUT:g})",
    )
    p.add_argument("--cwd", help="where each call starts (default: / with --root, else /home/user)")
    p.add_argument(
        "--allow-url",
        metavar="PREFIX",
        action="append",
        default=[],
        help="let curl and wget reach URLs under PREFIX (repeatable)",
    )
    p.add_argument(
        "--policy",
        metavar="FILE",
        help="policy TOML file (as `sandbash --policy`; wins over the config's [policy] table)",
    )
    p.add_argument(
        "--root",
        metavar="DIR",
        help="host DIR as the root / (copy-on-write: never written); calls start in /",
    )
    p.add_argument(
        "--store",
        metavar="FILE|URL",
        help="FILE: root filesystem kept in a SQLite file; URL "
        "(memory://, sqlite:///path.db, redis://host:port/db, postgresql://...): keep every session "
        "in that store, so replicas on one store serve any session",
    )
    p.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="run each bash call in one of N worker processes "
        "(an address-space limit, killed past the call's time limit; needs --store URL)",
    )
    p.add_argument(
        "--stateless",
        action="store_true",
        default=None,
        help="HTTP without MCP sessions (with --store URL: any replica answers any request)",
    )
    p.add_argument(
        "--mount",
        metavar="HOSTDIR:/PATH[:ro|:rw|:cow]",
        action="append",
        default=[],
        help="mount a host directory (repeatable; default mode cow)",
    )
    return p


def config_from_args(
    argv: Sequence[str], read_text: Callable[[str], str], environ: Mapping[str, str] | None = None
) -> ServerConfig:
    args = _parser().parse_args(argv)
    cfg = ServerConfig.from_toml(read_text(args.config)) if args.config else ServerConfig()
    env = os.environ if environ is None else environ
    overrides: Mapping[str, Any] = {
        "transport": args.transport,
        "host": args.host,
        "port": args.port,
        "path": args.path,
        "profile": args.profile,
        "cwd": args.cwd,
        "root": args.root,
        "store": args.store if args.store and "://" not in args.store else None,
        "session_store": args.store if args.store and "://" in args.store else None,
        "stateless": args.stateless,
        "workers": args.workers,
        "max_sessions": args.max_sessions,
        "max_sessions_memory": args.max_sessions_memory,
        "max_concurrent_calls": args.max_concurrent_calls,
        "max_pending_calls": args.max_pending_calls,
        "session_idle_timeout": args.session_idle_timeout,
        "token": args.token or env.get(TOKEN_ENV) or None,
    }
    for key, value in overrides.items():
        if value is not None:
            setattr(cfg, key, value)
    for spec in args.limit:
        name, value = parse_limit(spec)
        cfg.limits[name] = value
    if args.timeout is not None:
        cfg.limits["timeout"] = args.timeout
    if args.policy:
        cfg.policy_toml = read_text(args.policy)
    cfg.allow_urls = [*cfg.allow_urls, *args.allow_url]
    cfg.mounts = [*cfg.mounts, *args.mount]
    cfg.allowed_hosts = [*cfg.allowed_hosts, *args.allowed_host]
    cfg.allowed_origins = [*cfg.allowed_origins, *args.allowed_origin]
    if cfg.max_pending_calls < 1:
        raise ValueError("max_pending_calls must be at least 1")
    if cfg.workers and not cfg.session_store:
        raise ValueError("--workers needs --store URL: sessions must outlive a worker")
    if cfg.transport not in ("stdio", "http"):
        raise ValueError(f"unknown transport {cfg.transport!r} (stdio, http)")
    if cfg.transport == "http":
        http_security(cfg)  # refuse an unprotected public address before anything starts
    return cfg


def main(argv: Sequence[str], read_text: Callable[[str], str]) -> int:
    try:
        cfg = config_from_args(argv, read_text)
        tool = build_tool(cfg)
    except (OSError, ValueError, TypeError, FsError, tomllib.TOMLDecodeError) as e:
        kind = "policy" if isinstance(e, PolicyError) else ""
        sys.stderr.write(f"sandbash mcp: {kind + ': ' if kind else ''}{setting_error(e)}\n")
        return 2
    try:
        pool = None
        if cfg.workers:
            import functools

            from .workers import WorkerPool

            pool = WorkerPool(
                functools.partial(build_tool, cfg),
                workers=cfg.workers,
                memory=cfg.worker_memory,
                limits_tool=tool,
            )
        drain = Drain()
        server = build_server(tool, pool=pool, drain=drain, max_pending_calls=cfg.max_pending_calls)
        if cfg.transport == "http":
            add_health_routes(server, tool, drain)
    except ImportError:
        sys.stderr.write("sandbash mcp: the MCP SDK is not installed (pip install 'sandbash[mcp]')\n")
        return 2
    try:
        if cfg.transport == "stdio":
            serve_stdio(server, tool)
        else:
            serve_http(server, cfg, drain)
    except KeyboardInterrupt:
        pass
    return 0
