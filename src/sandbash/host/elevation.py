"""`sudo` in host mode is a marker, as in rshell: no privilege changes inside sandbash. A
command in the policy's `elevatable_commands` (which still needs its own command grant) is
handed to the embedder's callback, which performs the elevated action itself (its privileged
helper) and returns what the command printed and its status."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ElevationRequest:
    argv: tuple[str, ...]  # the command to run elevated (after `sudo`)
    cwd: str
    env: Mapping[str, str] = field(default_factory=dict)  # `elevated_env` of the run's environment
    stdin: bytes = b""


@dataclass(frozen=True)
class ElevationResult:
    status: int
    stdout: bytes = b""
    stderr: bytes = b""


class ElevationRefused(Exception):
    """Raised by a callback that will not perform the request; the message is shown."""


Elevate = Callable[[ElevationRequest], ElevationResult]

# sudo's secure_path (Debian's default): the PATH a host program gets, elevated or in box mode
SECURE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# what sudo's env_reset keeps of the caller's variables (and env_check: no '/' or '%' in them)
_KEPT = frozenset(("TERM", "COLORTERM", "LANG", "LANGUAGE", "LINGUAS", "TZ"))


def elevated_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment of an elevated command, as sudo's env_reset makes it: PATH is the secure
    path, and only terminal and locale variables without '/' or '%' stay. The run's other
    variables never reach the embedder's privileged helper: a PATH leading to a script the run
    wrote into a `:rw` grant, LD_PRELOAD, BASH_ENV would change what runs there, past the check."""
    kept = {
        k: v for k, v in env.items() if (k in _KEPT or k.startswith("LC_")) and "/" not in v and "%" not in v
    }
    kept["PATH"] = SECURE_PATH
    return kept
