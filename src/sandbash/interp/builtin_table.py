"""The one seam between the interpreter and its builtins: the table the executor dispatches
builtins from. The table lives here, below the builtins; the `sandbash.builtins` package fills
it as its modules are imported (builtins import the interpreter, never the other way), and
`load()`, called for every new Runtime, imports that package the first time."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .shell import Shell

Builtin = Callable[["Shell", list[str]], int]

BUILTINS: dict[str, Builtin] = {}
# POSIX special builtins (errors in them are fatal in posix mode; listed by `enable -s`)
SPECIAL = frozenset({":", ".", "break", "continue", "eval", "exec", "exit", "export", "readonly", "return", "set",
                     "shift", "times", "trap", "unset", "source"})
DECLARATION = frozenset({"declare", "typeset", "local", "export", "readonly"})


def builtin(*names: str) -> Callable[[Builtin], Builtin]:
    """Register a builtin under `names` (the builtins package's modules use it as a decorator)."""

    def deco(fn: Builtin) -> Builtin:
        for n in names:
            BUILTINS[n] = fn
        return fn

    return deco


def load() -> None:
    """Fill the table once: importing the builtins package registers every builtin."""
    if not BUILTINS:
        from .. import builtins  # noqa: F401  (the interpreter's one import of its builtins)
