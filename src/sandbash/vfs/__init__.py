"""Virtual filesystems: the backend protocol, backends, and the facade commands use.

Host-backed backends (`OverlayFs`, `ReadWriteFs`, `SqliteFs`) are imported
lazily: an embedder who never grants host access never loads the modules that
can reach it, and start-up stays short."""

from __future__ import annotations

from .base import Backend, Stat
from .errors import FsError
from .facade import FsView, Vfs
from .memory import MemoryFs
from .mount import MountFs, MountInfo
from .quota import DiskQuota

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .overlay import OverlayFs
    from .readwrite import ReadWriteFs
    from .sqlite import SqliteFs

__all__ = [
    "Backend",
    "DiskQuota",
    "FsError",
    "FsView",
    "MemoryFs",
    "MountFs",
    "MountInfo",
    "OverlayFs",
    "ReadWriteFs",
    "SqliteFs",
    "Stat",
    "Vfs",
]
_LAZY = {"OverlayFs": ".overlay", "ReadWriteFs": ".readwrite", "SqliteFs": ".sqlite"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        # (__import__ with a fromlist gives the submodule; importlib is not imported at start-up)
        return getattr(__import__(__name__ + _LAZY[name], fromlist=[name]), name)
    raise AttributeError(name)
