"""Cruvero's `bash_exec` contract as a ready profile: `BashTool.cruvero()`.

Cruvero's manual (docs/manual/bash-exec.md, "Bash Exec Tool") describes the
tool this profile reproduces on sandbash's in-process sandbox:

- its input fields (`command`, `timeout_ms`, `env`, `allow_network`,
  `max_output_kb`, `max_file_kb`, `files`), plus the tool contract's optional
  `session_id` and `restart` (a call that leaves them out runs as Cruvero's
  does), any other key refused; its output (`stdout`, `stderr`, `exit_code`,
  `result_json` from a `__RESULT__:` line) within the contract's output object;
- defaults: 2 s per call, 64 KiB per output stream, 256 KiB per input file;
  `timeout_ms` may raise the time limit up to the operator's ceiling
  (`max_timeout_ms`, 30 s unless configured), and lower it freely;
- a command allow-list (`CRUVERO_COMMANDS`): the manual's default list as far
  as the published page shows it (awk ... sort), completed with the read-only
  text commands `tail`, `tr`, `uniq` and `wc`; the shell's builtins stay
  available, as they reach nothing by themselves;
- network commands (`CRUVERO_NETWORK_COMMANDS`: curl and wget, the only ones
  sandbash has) exist only when the operator enabled the network (a
  `NetworkConfig` allow-list *and* `SANDBASH_ALLOW_NETWORK=1` or
  `allow_network=True`) *and* the call says `allow_network: true`;
- one audit record per call (`tool.call`: command text, exit code, output
  sizes, duration; a call refused for its input gets one with `error`) sent to
  the `Audit` given, or to the `sandbash.audit` logger.

Environment overrides, in the `SANDBASH_` namespace of the policy variables:
`SANDBASH_ALLOWED_COMMANDS` (comma or space separated; replaces the allow-list),
`SANDBASH_ALLOW_NETWORK` (1/true/yes/on or 0/false/no/off), `SANDBASH_MAX_OUTPUT_KB`,
`SANDBASH_MAX_FILE_KB`, `SANDBASH_TIMEOUT_MS`, `SANDBASH_MAX_TIMEOUT_MS`;
`SANDBASH_DENIED_COMMANDS`, `SANDBASH_ALLOWED_PATHS` and `SANDBASH_MODE` apply
as everywhere else (`Policy.from_env`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ...limits import Limits
from ...net import NetworkConfig
from ...policy import Policy, split_list

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ...audit import Audit
    from ..tool import BashTool

CRUVERO_COMMANDS = (
    "awk",
    "basename",
    "cat",
    "cut",
    "date",
    "dirname",
    "echo",
    "env",
    "find",
    "grep",
    "head",
    "jq",
    "ls",
    "printf",
    "pwd",
    "rg",
    "sed",
    "sort",
    "tail",
    "tr",
    "uniq",
    "wc",
)
CRUVERO_NETWORK_COMMANDS = ("curl", "wget")

ENV_ALLOWED_COMMANDS = "SANDBASH_ALLOWED_COMMANDS"
ENV_ALLOW_NETWORK = "SANDBASH_ALLOW_NETWORK"
ENV_MAX_OUTPUT_KB = "SANDBASH_MAX_OUTPUT_KB"
ENV_MAX_FILE_KB = "SANDBASH_MAX_FILE_KB"
ENV_TIMEOUT_MS = "SANDBASH_TIMEOUT_MS"
ENV_MAX_TIMEOUT_MS = "SANDBASH_MAX_TIMEOUT_MS"

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


@dataclass(frozen=True)
class CruveroSettings:
    """The operator's settings of the profile (`from_env` reads the overrides)."""

    allowed_commands: tuple[str, ...] = CRUVERO_COMMANDS
    network_commands: tuple[str, ...] = CRUVERO_NETWORK_COMMANDS
    allow_network: bool = False  # the operator's switch; a call still has to ask
    max_output_kb: int = 64
    max_file_kb: int = 256
    timeout_ms: int = 2000
    max_timeout_ms: int = 30_000

    def __post_init__(self) -> None:
        for name in ("max_output_kb", "max_file_kb", "timeout_ms", "max_timeout_ms"):
            if getattr(self, name) < 1:
                raise ValueError(f"cruvero: {name} must be at least 1")
        if self.timeout_ms > self.max_timeout_ms:
            raise ValueError("cruvero: timeout_ms must not exceed max_timeout_ms")

    @classmethod
    def from_env(cls, environ: Mapping[str, str], base: CruveroSettings | None = None) -> CruveroSettings:
        """`base` (default settings) with each `SANDBASH_*` override that is set; a bad value is a ValueError."""
        s = base or cls()
        changes: dict[str, Any] = {}
        if (text := environ.get(ENV_ALLOWED_COMMANDS)) is not None:
            changes["allowed_commands"] = tuple(split_list(text))
        if (text := environ.get(ENV_ALLOW_NETWORK)) is not None:
            changes["allow_network"] = _flag(ENV_ALLOW_NETWORK, text)
        for var, key in (
            (ENV_MAX_OUTPUT_KB, "max_output_kb"),
            (ENV_MAX_FILE_KB, "max_file_kb"),
            (ENV_TIMEOUT_MS, "timeout_ms"),
            (ENV_MAX_TIMEOUT_MS, "max_timeout_ms"),
        ):
            if (text := environ.get(var)) is not None:
                changes[key] = _positive(var, text)
        return replace(s, **changes)


def _flag(var: str, text: str) -> bool:
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"{var}: expected 1/true/yes/on or 0/false/no/off, got {text!r}")


def _positive(var: str, text: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise ValueError(f"{var}: expected a positive integer, got {text!r}") from None
    if value < 1:
        raise ValueError(f"{var}: expected a positive integer, got {text!r}")
    return value


def cruvero_policy(settings: CruveroSettings, network: bool, environ: Mapping[str, str]) -> Policy:
    """The allow-list (plus the network commands when the network is on), then the other
    `SANDBASH_*` policy variables (the allow-list variable is already in `settings`)."""
    allow = list(settings.allowed_commands) + (list(settings.network_commands) if network else [])
    base = Policy(commands=allow, name="cruvero")
    rest = {k: v for k, v in environ.items() if k != ENV_ALLOWED_COMMANDS}
    return Policy.from_env(rest, base) or base


def cruvero_tool(
    *,
    network: NetworkConfig | None = None,
    settings: CruveroSettings | None = None,
    environ: Mapping[str, str] | None = None,
    audit: Audit | None = None,
    limits: Limits | str | None = None,
    **kw: Any,
) -> BashTool:
    """A `BashTool` named `bash_exec` with Cruvero's defaults. `environ` (default: none; pass
    `os.environ` to honour the operator's variables) overrides `settings`; `network` is the
    allow-list the network commands may reach once enabled; other keywords go to `BashTool`
    (`files`, `env`, `cwd`, `max_sessions`, ...)."""
    from ...audit import Audit, LoggingSink
    from ..tool import BashTool

    env = environ or {}
    s = CruveroSettings.from_env(env, settings)
    online = s.allow_network and network is not None
    base = limits if isinstance(limits, Limits) else Limits.profile(limits or "default")
    return BashTool(
        limits=base.with_overrides(timeout=s.timeout_ms / 1000),
        network=network if online else None,
        policy=cruvero_policy(s, online, env),
        audit=audit if audit is not None else Audit(sinks=[LoggingSink()]),
        max_output_chars=s.max_output_kb * 1024,
        max_file_bytes=s.max_file_kb * 1024,
        max_timeout=s.max_timeout_ms / 1000,
        network_by_default=False,
        name=kw.pop("name", "bash_exec"),
        **kw,
    )
