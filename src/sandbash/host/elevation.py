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
    env: Mapping[str, str] = field(default_factory=dict)
    stdin: bytes = b""


@dataclass(frozen=True)
class ElevationResult:
    status: int
    stdout: bytes = b""
    stderr: bytes = b""


class ElevationRefused(Exception):
    """Raised by a callback that will not perform the request; the message is shown."""


Elevate = Callable[[ElevationRequest], ElevationResult]
