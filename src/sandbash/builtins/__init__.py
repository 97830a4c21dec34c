"""Builtins: commands that see and change the shell's state.

Each builtin is `fn(sh: Shell, argv: list[str]) -> int`, writing through the
shell's current fd table (`sh.out`, `sh.builtin_error`).
"""

from __future__ import annotations

# the table and its decorator live with the interpreter (interp/builtin_table.py), which
# dispatches from it; importing this package fills it
from ..interp.builtin_table import BUILTINS, DECLARATION, SPECIAL, Builtin, builtin

__all__ = ["BUILTINS", "DECLARATION", "SPECIAL", "Builtin", "builtin"]


# The modules (compgen, complete, core, dirs, history, io, jobs, misc, testcmd, ulimit, varcmds) are imported
# by the table as their builtins are needed (builtin_table.HOME), not here: start-up loads only those
# a script runs.
