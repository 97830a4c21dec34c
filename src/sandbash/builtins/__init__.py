"""Builtins: commands that see and change the shell's state.

Each builtin is `fn(sh: Shell, argv: list[str]) -> int`, writing through the
shell's current fd table (`sh.out`, `sh.builtin_error`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..interp.shell import Shell

Builtin = Callable[["Shell", list[str]], int]

BUILTINS: dict[str, Builtin] = {}
# POSIX special builtins (errors in them are fatal in posix mode; listed by `enable -s`)
SPECIAL = frozenset({":", ".", "break", "continue", "eval", "exec", "exit", "export", "readonly", "return", "set",
                     "shift", "times", "trap", "unset", "source"})
DECLARATION = frozenset({"declare", "typeset", "local", "export", "readonly"})


def builtin(*names: str) -> Callable[[Builtin], Builtin]:
    def deco(fn: Builtin) -> Builtin:
        for n in names:
            BUILTINS[n] = fn
        return fn

    return deco


def _load() -> None:
    from . import complete, core, dirs, io, jobs, misc, testcmd, ulimit, varcmds  # noqa: F401


_load()
