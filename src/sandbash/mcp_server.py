"""`sandbash mcp`: the sandbox as a Model Context Protocol server, on the
official `mcp` SDK (`pip install 'sandbash[mcp]'`), over stdio (default) or
streamable HTTP (`--transport http`, on 127.0.0.1 unless `--host` says
otherwise).

Tools: `bash` (the tool contract of `sandbash.tool`), `read_file`,
`write_file`, `list_dir`; each takes an optional `session_id` (relative paths
resolve against that session's cwd). Every client of one server shares its
filesystem. The sandbox's limits, network, filesystem and policy come from a TOML
file (`--config`) and flags, flags winning:

    [sandbox]       cwd = "/home/user", profile = "default", timeout = 30, max_output_chars = 30000
    [limits]        any Limits field, e.g. max_command_count = 5000
    [network]       allow_urls = ["https://api.example.com/"], methods = ["GET", "HEAD"]
    [filesystem]    root = "/srv/data" | store = "state.db", mounts = ["/host/dir:/data:ro"]
    [server]        transport = "stdio" | "http", host = "127.0.0.1", port = 8000, path = "/mcp"
    [policy]        name, mode, paths, [policy.commands] allow/deny (or --policy FILE; SANDBASH_*
                    environment variables apply over either, as for the CLI)
"""

# no `from __future__ import annotations`: the SDK reads the tool functions'
# annotations to build their input schemas, and these closures' types must be
# real objects, not strings to resolve.

import argparse
import os
import posixpath
import sys
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from .cli import build_filesystem
from .limits import Limits
from .net import NetworkConfig
from .policy import Policy
from .tool import (
    DEFAULT_MAX_OUTPUT_CHARS,
    INPUT_SCHEMA,
    BashTool,
    ToolInputError,
    binary_notice,
    is_binary,
    truncate_middle,
)
from .vfs.errors import FsError, strerror
from .vfs.facade import FsView


@dataclass
class ServerConfig:
    cwd: str = "/home/user"
    profile: str = "default"
    limits: dict[str, float] = field(default_factory=dict)
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS
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

    @classmethod
    def from_toml(cls, text: str) -> "ServerConfig":
        data = tomllib.loads(text)
        known = {"sandbox", "limits", "network", "filesystem", "server", "policy"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown section(s): {', '.join(sorted(unknown))}")
        cfg = cls()
        sections = {"sandbox": ("cwd", "profile", "max_output_chars", "timeout"),
                    "filesystem": ("root", "store", "mounts"), "server": ("transport", "host", "port", "path"),
                    "network": ("allow_urls", "methods")}
        for section, keys in sections.items():
            for key, value in data.get(section, {}).items():
                if key not in keys:
                    raise ValueError(f"[{section}]: unknown setting {key!r}")
                if key != "timeout":  # a limit: goes with [limits]
                    setattr(cfg, key, value)
        cfg.limits = dict(data.get("limits", {}))
        if "timeout" in data.get("sandbox", {}):
            cfg.limits["timeout"] = data["sandbox"]["timeout"]
        cfg.policy = data.get("policy")
        return cfg

    def build_limits(self) -> Limits:
        return Limits.profile(self.profile).with_overrides(**self.limits)


def _network(cfg: ServerConfig) -> NetworkConfig | None:
    if not cfg.allow_urls:
        return None
    if cfg.methods:
        return NetworkConfig(allowed_url_prefixes=cfg.allow_urls, allowed_methods=cfg.methods)
    return NetworkConfig(allowed_url_prefixes=cfg.allow_urls)


def build_policy(cfg: ServerConfig) -> Policy | None:
    """--policy FILE, else the [policy] table; then the SANDBASH_* environment variables, as the CLI."""
    if cfg.policy_toml is not None:
        base: Policy | None = Policy.from_toml(cfg.policy_toml)
    else:
        base = Policy.from_mapping(cfg.policy) if cfg.policy is not None else None
    environ = os.environ  # the server's own environment (a host-facing owner of os)
    return Policy.from_env(environ, base)


def build_tool(cfg: ServerConfig) -> BashTool:
    limits = cfg.build_limits()
    policy = build_policy(cfg)
    fs = build_filesystem(cfg.root, cfg.store, cfg.mounts, limits)
    from .sandbox import new_bash

    bash = new_bash(fs=fs, cwd=cfg.cwd, limits=limits, network=_network(cfg), policy=policy)
    return BashTool(bash, max_output_chars=cfg.max_output_chars)


def build_server(tool: BashTool, name: str = "sandbash") -> Any:
    """An `MCPServer` with the four tools over `tool`'s sandbox."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import CallToolResult, TextContent
    from pydantic import Field

    server = MCPServer(name, instructions=tool.system_prompt(), log_level="WARNING")

    def view(session_id: str | None) -> FsView:
        cwd = tool.session(session_id).cwd if session_id else tool.bash.cwd
        return tool.bash.vfs.view(cwd)

    def fs_error(e: FsError, path: str) -> ToolError:
        return ToolError(f"{path}: {strerror(e.code)}")

    def doc(name: str) -> Any:
        return Field(description=INPUT_SCHEMA["properties"][name]["description"])

    async def bash(
        command: Annotated[str, doc("command")],
        session_id: Annotated[str | None, doc("session_id")] = None,
        timeout_ms: Annotated[int | None, doc("timeout_ms")] = None,
        env: Annotated[dict[str, str] | None, doc("env")] = None,
        files: Annotated[list[dict[str, str]] | None, doc("files")] = None,  # [{path, content}], checked by BashTool
        max_output_kb: Annotated[int | None, doc("max_output_kb")] = None,
        max_file_kb: Annotated[int | None, doc("max_file_kb")] = None,
        allow_network: Annotated[bool | None, doc("allow_network")] = None,
        restart: Annotated[bool, doc("restart")] = False,
    ) -> Any:
        request = {
            "command": command, "session_id": session_id, "timeout_ms": timeout_ms, "env": env,
            "files": files, "max_output_kb": max_output_kb, "max_file_kb": max_file_kb,
            "allow_network": allow_network, "restart": restart or None,
        }
        try:
            out = await tool.arun(request)
        except ToolInputError as e:
            raise ToolError(str(e)) from None
        return CallToolResult(content=[TextContent(type="text", text=out.text())],
                              structured_content=out.to_dict(), is_error=out.is_error)

    def read_file(path: str, session_id: str | None = None) -> str:
        """Read a text file from the sandbox (long files are cut in the middle)."""
        try:
            data = view(session_id).read_bytes(path)
        except FsError as e:
            raise fs_error(e, path) from None
        if is_binary(data):
            return binary_notice(len(data))
        return truncate_middle(data.decode("utf-8", "replace"), tool.max_output_chars)[0]

    def write_file(path: str, content: str, session_id: str | None = None, append: bool = False) -> str:
        """Write (or append to) a text file in the sandbox; parent directories are created."""
        fs = view(session_id)
        full = fs.abspath(path)
        data = content.encode("utf-8", "surrogateescape")
        try:
            fs.write_file(full, data, append=append, parents=True)
        except FsError as e:
            raise fs_error(e, path) from None
        return f"wrote {len(data)} bytes to {full}"

    def list_dir(path: str = ".", session_id: str | None = None) -> str:
        """List a directory of the sandbox: one entry per line, `name/` for directories, sizes for files."""
        fs = view(session_id)
        try:
            names = sorted(fs.listdir(path))
            lines = []
            for n in names:
                st = fs.lstat(posixpath.join(path, n))
                lines.append(f"{n}/" if st.is_dir else f"{n}\t{st.size}")
        except FsError as e:
            raise fs_error(e, path) from None
        return "\n".join(lines) if lines else "(empty directory)"

    server.add_tool(bash, name="bash", description=tool.description(), structured_output=False)
    for fn in (read_file, write_file, list_dir):
        server.add_tool(fn, structured_output=False)
    return server


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="sandbash mcp", description="Serve the sandbox over the Model Context Protocol.")
    p.add_argument("--config", metavar="FILE", help="TOML configuration (see the module's documentation)")
    p.add_argument("--transport", choices=["stdio", "http"], help="stdio (default) or streamable HTTP")
    p.add_argument("--host", help="HTTP address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="HTTP port (default 8000)")
    p.add_argument("--path", help="HTTP endpoint path (default /mcp)")
    p.add_argument("--limits", dest="profile", help="limits profile: default, hardened, generous")
    p.add_argument("--timeout", type=float, help="wall-clock limit per call, in seconds")
    p.add_argument("--cwd", help="working directory inside the sandbox")
    p.add_argument("--allow-url", metavar="PREFIX", action="append", default=[], help="network allow-list entry")
    p.add_argument("--policy", metavar="FILE", help="policy TOML file (as `sandbash --policy`)")
    p.add_argument("--root", metavar="DIR", help="root filesystem: copy-on-write view of host DIR")
    p.add_argument("--store", metavar="FILE", help="root filesystem kept in a SQLite file")
    p.add_argument("--mount", metavar="HOSTDIR:/PATH[:ro|:rw|:cow]", action="append", default=[])
    return p


def config_from_args(argv: Sequence[str], read_text: Callable[[str], str]) -> ServerConfig:
    args = _parser().parse_args(argv)
    cfg = ServerConfig.from_toml(read_text(args.config)) if args.config else ServerConfig()
    overrides: Mapping[str, Any] = {
        "transport": args.transport, "host": args.host, "port": args.port, "path": args.path,
        "profile": args.profile, "cwd": args.cwd, "root": args.root, "store": args.store,
    }
    for key, value in overrides.items():
        if value is not None:
            setattr(cfg, key, value)
    if args.timeout is not None:
        cfg.limits["timeout"] = args.timeout
    if args.policy:
        cfg.policy_toml = read_text(args.policy)
    cfg.allow_urls = [*cfg.allow_urls, *args.allow_url]
    cfg.mounts = [*cfg.mounts, *args.mount]
    return cfg


def main(argv: Sequence[str], read_text: Callable[[str], str]) -> int:
    try:
        cfg = config_from_args(argv, read_text)
        tool = build_tool(cfg)
    except (OSError, ValueError, TypeError, FsError, tomllib.TOMLDecodeError) as e:
        sys.stderr.write(f"sandbash mcp: {e}\n")
        return 2
    try:
        server = build_server(tool)
    except ImportError:
        sys.stderr.write("sandbash mcp: the MCP SDK is not installed (pip install 'sandbash[mcp]')\n")
        return 2
    try:
        if cfg.transport == "stdio":
            server.run("stdio")
        elif cfg.transport == "http":
            server.run("streamable-http", host=cfg.host, port=cfg.port, streamable_http_path=cfg.path)
        else:
            sys.stderr.write(f"sandbash mcp: unknown transport {cfg.transport!r} (stdio, http)\n")
            return 2
    except KeyboardInterrupt:
        pass
    return 0
