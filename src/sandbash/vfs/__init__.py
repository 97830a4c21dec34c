"""Virtual filesystems: the backend protocol, backends, and the facade commands use."""

from .base import Stat
from .errors import FsError
from .facade import FsView, Vfs
from .memory import DiskQuota, MemoryFs

__all__ = ["DiskQuota", "FsError", "FsView", "MemoryFs", "Stat", "Vfs"]
