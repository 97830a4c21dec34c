"""`check_remote(script, RemotePolicy(...))`: the static check against the grants of ANOTHER host.

Nothing local is consulted: no filesystem (links, existing files), no environment but the policy's
own `env`, a fresh deadline for every call (`timeout`, default 5 s) and the remote working
directory `dir`. A file operation the grants allow as written is still `indeterminate`
(`requires_execution`): only the remote host knows whether a symbolic link there leads elsewhere,
as rshell reports it. A denial stays a denial. The TOML form (`sandbash --check --remote-policy
FILE`) takes the keys `commands`, `paths`, `mode`, `services`, `elevatable_commands`, `env`, `dir`
and `timeout`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..policy import READ_ONLY, Policy, PolicyError, ServiceGrant
from . import DEFAULT_DEADLINE, CheckReport, check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KEYS = ("commands", "paths", "mode", "services", "elevatable_commands", "env", "dir", "timeout")


@dataclass(frozen=True)
class RemotePolicy:
    """The remote host's grants. `commands` None means every command (as Policy); rshell's
    default mode is read-only."""

    commands: Sequence[str] | None = None
    paths: Sequence[str] = ()
    mode: str = READ_ONLY
    services: Sequence[ServiceGrant | str] = ()
    elevatable_commands: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    dir: str | None = None
    timeout: float = DEFAULT_DEADLINE

    def __post_init__(self) -> None:
        if self.dir is not None and not self.dir.startswith("/"):
            raise PolicyError(f"dir: expected an absolute path, not '{self.dir}'")
        if not self.timeout > 0:
            raise PolicyError(f"timeout: expected a positive number of seconds, not {self.timeout!r}")
        self.policy()  # a malformed grant is an error now, not at check time

    def policy(self) -> Policy:
        return Policy(
            self.commands,
            list(self.paths),
            self.mode,
            services=list(self.services),
            elevatable_commands=list(self.elevatable_commands),
            name="remote",
        )

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> RemotePolicy:
        unknown = set(data) - set(KEYS)
        if unknown:
            raise PolicyError(
                f"remote policy: unknown key(s) {', '.join(sorted(unknown))} (expected {', '.join(KEYS)})"
            )
        env = data.get("env", {})
        if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
            raise PolicyError("env: expected a table of strings")
        for key in ("commands", "paths", "services", "elevatable_commands"):
            value = data.get(key)
            if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                raise PolicyError(f"{key}: expected a list of strings")
        timeout = data.get("timeout", DEFAULT_DEADLINE)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float):
            raise PolicyError("timeout: expected a number of seconds")
        mode = data.get("mode", READ_ONLY)
        if not isinstance(mode, str):
            raise PolicyError("mode: expected a string")
        directory = data.get("dir")
        if directory is not None and not isinstance(directory, str):
            raise PolicyError("dir: expected a string")
        return cls(
            data.get("commands"),
            data.get("paths", []),
            mode,
            data.get("services", []),
            data.get("elevatable_commands", []),
            dict(env),
            directory,
            float(timeout),
        )

    @classmethod
    def from_toml(cls, text: str | bytes) -> RemotePolicy:
        import tomllib

        if isinstance(text, bytes):
            text = text.decode("utf-8")
        try:
            return cls.from_mapping(tomllib.loads(text))
        except tomllib.TOMLDecodeError as e:
            raise PolicyError(f"remote policy file: {e}") from None


def check_remote(script: str, remote: RemotePolicy) -> CheckReport:
    """The check of `script` against `remote` (see the module docstring)."""
    return check(
        script,
        remote.policy(),
        fs=None,
        cwd=remote.dir,
        env=dict(remote.env),
        deadline=remote.timeout,
        remote=True,
    )
