"""grep, egrep, fgrep (GNU grep 3.8) and rg (the common ripgrep options).

core.py holds the chunked searcher and grep's command line; rg.py maps
ripgrep's options onto the same searcher. The registry imports the module of
each command itself, so this package imports nothing: a grep run does not pay
for rg's modules.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WHERE = {"cmd_egrep": "core", "cmd_fgrep": "core", "cmd_grep": "core", "cmd_rg": "rg"}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # (__import__ with a fromlist gives the submodule; the importlib package is not imported by a run)
    return getattr(__import__(f"{__name__}.{_WHERE[name]}", fromlist=[name]), name)
