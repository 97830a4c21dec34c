"""cat, tac, head, tail, tee, wc, rev and nl (and helpers shared by the text commands).

Nothing is imported here: the registry imports each command's module, and other
commands import `common` alone, so `grep` does not load cat, head or wc.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WHERE = {
    "cmd_cat": "cat",
    "cmd_rev": "cat",
    "cmd_tac": "cat",
    "cmd_tee": "cat",
    "cmd_head": "headtail",
    "cmd_tail": "headtail",
    "cmd_nl": "nl",
    "cmd_wc": "wc",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # (__import__ with a fromlist gives the submodule; the importlib package is not imported by a run)
    return getattr(__import__(f"{__name__}.{_WHERE[name]}", fromlist=[name]), name)
