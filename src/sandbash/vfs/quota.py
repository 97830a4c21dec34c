"""Disk quota shared by every backend: bytes of content, symlink targets and
entry names, and a number of entries (names)."""

from __future__ import annotations

import _thread  # (threading's locks are _thread's: threading.py itself is ~0.8 ms of a start-up)
import errno

from .errors import FsError


def name_cost(name: str) -> int:
    """Bytes an entry name or symlink target costs against the quota."""
    return len(name.encode("utf-8", "surrogateescape"))


class DiskQuota:
    """Limits on a backend. `charge` refuses with ENOSPC before anything is
    written, so a refused write leaves no partial data behind."""

    def __init__(self, max_bytes: int = 64 << 20, max_files: int = 10_000) -> None:
        self.max_bytes = max_bytes
        self.max_files = max_files
        self.used_bytes = 0
        self.used_files = 0
        self._lock = _thread.allocate_lock()

    def check(self, nbytes: int, nfiles: int = 0) -> None:
        """Raise ENOSPC if charging would go past a limit (without charging)."""
        if nbytes > 0 and self.used_bytes + nbytes > self.max_bytes:
            raise FsError(errno.ENOSPC)
        if nfiles > 0 and self.used_files + nfiles > self.max_files:
            raise FsError(errno.ENOSPC)

    def charge(self, nbytes: int, nfiles: int = 0, force: bool = False) -> None:
        """Account for growth; `force` for content the embedder supplied (lazy
        loaders), which may push usage past the limit but never fails a read."""
        with self._lock:
            if not force:
                self.check(nbytes, nfiles)
            self.used_bytes += nbytes
            self.used_files += nfiles

    def release(self, nbytes: int, nfiles: int = 0) -> None:
        with self._lock:
            self.used_bytes = max(0, self.used_bytes - nbytes)
            self.used_files = max(0, self.used_files - nfiles)

    def adjust(self, nbytes: int, nfiles: int = 0) -> None:
        """Charge (positive) or release (negative) a signed difference."""
        if nbytes > 0 or nfiles > 0:
            self.charge(max(nbytes, 0), max(nfiles, 0))
        if nbytes < 0 or nfiles < 0:
            self.release(max(-nbytes, 0), max(-nfiles, 0))
