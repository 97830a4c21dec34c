"""box.toml: the agent's home and workspace, its filesystem grants, and the `[tool.<name>]` tables
that let a host program run in its own OS sandbox. Parsed once when the service starts; a bad
file is a `BoxConfigError` naming the key."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..net.config import NetworkConfig
from ..policy import Policy, PolicyError, normpath

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KIB = 1024
MIB = 1024 * KIB


class BoxConfigError(ValueError):
    """box.toml is malformed: the message names the key."""


@dataclass(frozen=True)
class ToolTable:
    """`[tool.<name>]`: `command` is the program with its fixed leading arguments; the lists are
    host paths bound into the program's sandbox (read-only, read-write, listable) or masked."""

    name: str
    command: tuple[str, ...]
    workspace: bool = True
    env: Mapping[str, str] = field(default_factory=dict)
    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    read_file: tuple[str, ...] = ()
    write_file: tuple[str, ...] = ()
    list: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    network: bool = False  # `[tool.x.network] allow = true`: the host network (no --unshare-net)
    contain_egress: bool = False


@dataclass(frozen=True)
class BoxLimits:
    """The seed's limits: per command time, command text, in-memory file size and entries."""

    timeout: float = 30.0
    max_command_bytes: int = 256 * KIB
    max_file_bytes: int = 10 * MIB
    max_entries: int = 10_000
    messages: str = "seed"  # "seed": `strands-shell: ...`; "sandbash": `sandbash: ...`

    @property
    def prefix(self) -> str:
        return "strands-shell" if self.messages == "seed" else "sandbash"


@dataclass(frozen=True)
class BoxConfig:
    home: str
    workspace: str
    operator_home: str | None = None
    read: tuple[str, ...] = ()  # [agent.filesystem] grants (host paths, mounted at the same path)
    write: tuple[str, ...] = ()
    exec_entries: tuple[tuple[str, ...], ...] = ()
    tools: tuple[ToolTable, ...] = ()
    limits: BoxLimits = BoxLimits()
    policy: Policy | None = None
    own_paths: tuple[str, ...] = ()  # the config file and the socket's directory: never reachable
    network: NetworkConfig | None = None  # [network]: curl's rules, and a contained program's egress

    def roots(self) -> tuple[str, ...]:
        """The host directories the agent may reach (the reachable-paths check)."""
        return tuple(p for p in (self.operator_home, self.home, self.workspace) if p)


def _strings(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BoxConfigError(f"{where}.{key}: a list of strings")
    return tuple(value)


def _path(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.startswith("/"):
        raise BoxConfigError(f"{where}: an absolute path")
    return normpath(value)


def _paths(table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    return tuple(_path(p, f"{where}.{key}") for p in _strings(table, key, where))


def _table(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise BoxConfigError(f"{where}{key}: a table")
    return value


def _known(table: Mapping[str, Any], keys: set[str], where: str) -> None:
    unknown = sorted(set(table) - keys)
    if unknown:
        raise BoxConfigError(f"{where}: unknown key(s) {', '.join(unknown)}")


def _tool(name: str, table: Mapping[str, Any]) -> ToolTable:
    where = f"tool.{name}"
    _known(table, {"command", "workspace", "env", "filesystem", "network"}, where)
    command = table.get("command", [name])
    if isinstance(command, str):
        command = [command]
    if not isinstance(command, list) or not command or not all(isinstance(c, str) and c for c in command):
        raise BoxConfigError(f"{where}.command: a program and its fixed leading arguments")
    env = _table(table, "env", where + ".")
    if not all(isinstance(v, str) for v in env.values()):
        raise BoxConfigError(f"{where}.env: string values")
    fs = _table(table, "filesystem", where + ".")
    _known(fs, {"read", "write", "read_file", "write_file", "list", "deny"}, where + ".filesystem")
    net = _table(table, "network", where + ".")
    _known(net, {"allow", "contain_egress"}, where + ".network")
    workspace = table.get("workspace", True)
    if not isinstance(workspace, bool):
        raise BoxConfigError(f"{where}.workspace: true or false")
    for key in ("allow", "contain_egress"):
        if not isinstance(net.get(key, False), bool):
            raise BoxConfigError(f"{where}.network.{key}: true or false")
    sub = where + ".filesystem"
    return ToolTable(
        name,
        tuple(command),
        workspace,
        dict(env),
        _paths(fs, "read", sub),
        _paths(fs, "write", sub),
        _paths(fs, "read_file", sub),
        _paths(fs, "write_file", sub),
        _paths(fs, "list", sub),
        _paths(fs, "deny", sub),
        bool(net.get("allow", False)),
        bool(net.get("contain_egress", False)),
    )


def _limits(data: Mapping[str, Any]) -> BoxLimits:
    table = _table(data, "limits", "")
    _known(table, {"timeout", "max_command_bytes", "max_file_bytes", "max_entries", "messages"}, "limits")
    base = BoxLimits()
    numbers: dict[str, float] = {}
    for key in ("timeout", "max_command_bytes", "max_file_bytes", "max_entries"):
        value = table.get(key, getattr(base, key))
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise BoxConfigError(f"limits.{key}: a positive number")
        numbers[key] = value
    messages = table.get("messages", "seed")
    if messages not in ("seed", "sandbash"):
        raise BoxConfigError('limits.messages: "seed" or "sandbash"')
    return BoxLimits(
        float(numbers["timeout"]),
        int(numbers["max_command_bytes"]),
        int(numbers["max_file_bytes"]),
        int(numbers["max_entries"]),
        messages,
    )


def _network(data: Mapping[str, Any]) -> NetworkConfig | None:
    """`[network]`: allow_urls (URL prefixes), methods, deny_private_ranges; None without the table."""
    if "network" not in data:
        return None
    table = _table(data, "network", "")
    _known(table, {"allow_urls", "methods", "deny_private_ranges"}, "network")
    private = table.get("deny_private_ranges", True)
    if not isinstance(private, bool):
        raise BoxConfigError("network.deny_private_ranges: true or false")
    methods = _strings(table, "methods", "network") or ("GET", "HEAD")
    try:
        return NetworkConfig(
            allowed_url_prefixes=_strings(table, "allow_urls", "network"),
            allowed_methods=methods,
            deny_private_ranges=private,
        )
    except ValueError as e:
        raise BoxConfigError(f"network.allow_urls: {e}") from None


def parse_config(text: str, own_paths: tuple[str, ...] = ()) -> BoxConfig:
    """box.toml's text -> BoxConfig (BoxConfigError with the key when it is malformed)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BoxConfigError(f"box.toml: {e}") from None
    _known(data, {"agent", "tool", "limits", "policy", "network"}, "box.toml")
    agent = _table(data, "agent", "")
    _known(agent, {"home", "workspace", "operator_home", "filesystem"}, "agent")
    if "home" not in agent or "workspace" not in agent:
        raise BoxConfigError("agent: home and workspace are required")
    fs = _table(agent, "filesystem", "agent.")
    _known(fs, {"read", "write", "exec"}, "agent.filesystem")
    exec_entries = tuple(tuple(e.split()) for e in _strings(fs, "exec", "agent.filesystem") if e.split())
    tools = tuple(_tool(name, t) for name, t in _table(data, "tool", "").items() if isinstance(t, dict))
    if len(tools) != len(_table(data, "tool", "")):
        raise BoxConfigError("tool: each [tool.<name>] must be a table")
    policy = None
    if "policy" in data:
        try:
            policy = Policy.from_mapping(_table(data, "policy", ""))
        except PolicyError as e:
            raise BoxConfigError(f"policy: {e}") from None
    operator = agent.get("operator_home")
    return BoxConfig(
        _path(agent["home"], "agent.home"),
        _path(agent["workspace"], "agent.workspace"),
        _path(operator, "agent.operator_home") if operator is not None else None,
        _paths(fs, "read", "agent.filesystem"),
        _paths(fs, "write", "agent.filesystem"),
        exec_entries,
        tools,
        _limits(data),
        policy,
        tuple(normpath(p) for p in own_paths),
        _network(data),
    )
