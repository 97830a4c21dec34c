"""The one module of host mode that reads the real machine: /proc, /sys, uname, statvfs.

Every inspection command (ps, ss, ip, uptime, free, df, uname) and the grant checks of
`HostAccess` read the host only through a `ProcFs`; `tests/security/test_no_host_access.py`
lists this module as the owner of that capability. Reads are bounded: a file is read up to a
byte cap, a directory listing up to an entry cap, and nothing is ever written or executed.
`proc_path`/`sys_path` point the readers at a recorded tree (tests ship one under
tests/fixtures/proc); other platforms than Linux refuse with `HostUnavailable`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

MAX_FILE_BYTES = 4 << 20  # /proc/net/tcp of a busy server: 150 bytes a socket, ~28,000 sockets
MAX_ENTRIES = 10_000  # processes listed, interfaces, sockets per table (rshell caps processes the same)
MAX_CMDLINE = 4096

Charge = Callable[[int], None]  # MemoryHold.charge of the command reading


class HostUnavailable(Exception):
    """The host interface cannot be read (not Linux, no such proc tree)."""


@dataclass(frozen=True)
class Uname:
    sysname: str
    nodename: str
    release: str
    version: str
    machine: str


@dataclass(frozen=True)
class DiskUsage:
    blocks: int  # in 1K units
    used: int
    available: int
    inodes: int
    inodes_free: int


class ProcFs:
    """Bounded reads of a proc and sys tree (the real ones by default)."""

    def __init__(
        self, proc_path: str = "/proc", sys_path: str = "/sys", *, self_pid: int | None = None
    ) -> None:
        self.proc_path = proc_path.rstrip("/") or "/"
        self.sys_path = sys_path.rstrip("/") or "/"
        self._self_pid = self_pid
        self._charge: Charge | None = None

    def charged(self, charge: Charge) -> ProcFs:
        """The same reader, charging every read to `charge` (a command's MemoryHold)."""
        other = ProcFs(self.proc_path, self.sys_path, self_pid=self._self_pid)
        other._charge = charge
        return other

    # ------------------------------------------------------------ platform

    @staticmethod
    def linux() -> bool:
        return sys.platform.startswith("linux")

    def require(self) -> None:
        """Raise HostUnavailable unless the proc tree can be read here."""
        if self.proc_path == "/proc" and not self.linux():
            raise HostUnavailable(f"not supported on {sys.platform} (Linux only)")
        if not os.path.isdir(self.proc_path):
            raise HostUnavailable(f"cannot read {self.proc_path}: No such directory")

    def self_pid(self) -> int:
        """The process sandbash runs in (the session `ps` shows by default)."""
        if self._self_pid is not None:
            return self._self_pid
        if self.proc_path != "/proc":  # a recorded tree names its own process in `self`
            link = self._readlink(os.path.join(self.proc_path, "self"))
            if link is not None and link.isdigit():
                return int(link)
        return os.getpid()

    def clock_ticks(self) -> int:
        try:
            return int(os.sysconf("SC_CLK_TCK")) or 100
        except (ValueError, OSError, AttributeError):
            return 100

    # ------------------------------------------------------------ reads

    def read(self, rel: str, cap: int = MAX_FILE_BYTES, charge: Charge | None = None) -> bytes | None:
        """proc_path/rel, at most `cap` bytes; None when it is missing or unreadable (a
        process that ended between the listing and the read, a file the user may not read).
        `charge(n)` is called with each chunk's size as it is kept (the run's memory budget)."""
        return self._read(os.path.join(self.proc_path, rel), cap, charge or self._charge)

    def read_sys(self, rel: str, cap: int = 4096) -> bytes | None:
        return self._read(os.path.join(self.sys_path, rel), cap, self._charge)

    def text(self, rel: str, cap: int = MAX_FILE_BYTES, charge: Charge | None = None) -> str | None:
        data = self.read(rel, cap, charge)
        return None if data is None else data.decode("utf-8", "surrogateescape")

    def sys_text(self, rel: str) -> str | None:
        data = self.read_sys(rel)
        return None if data is None else data.decode("utf-8", "surrogateescape").strip()

    def pids(self, limit: int = MAX_ENTRIES) -> list[int]:
        out: list[int] = []
        for name in self._names(self.proc_path, limit * 2):
            if name.isdigit():
                out.append(int(name))
        out.sort()
        return out[:limit]

    def sys_names(self, rel: str, limit: int = MAX_ENTRIES) -> list[str]:
        return sorted(self._names(os.path.join(self.sys_path, rel), limit))

    def is_pid(self, pid: int) -> bool:
        return os.path.isdir(os.path.join(self.proc_path, str(pid)))

    # ------------------------------------------------------------ the machine

    def uname(self) -> Uname:
        u = os.uname()
        return Uname(u.sysname, u.nodename, u.release, u.version, u.machine)

    @staticmethod
    def cpu_count() -> int:
        try:
            return len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            return os.cpu_count() or 1

    def disk_usage(self, path: str) -> DiskUsage | None:
        try:
            st = os.statvfs(path)
        except OSError:
            return None
        unit = st.f_frsize or st.f_bsize
        blocks = st.f_blocks * unit // 1024
        free = st.f_bfree * unit // 1024
        avail = st.f_bavail * unit // 1024
        return DiskUsage(blocks, blocks - free, avail, st.f_files, st.f_ffree)

    @staticmethod
    def path_kind(path: str) -> str:
        """'dir', 'file', 'other' or '' (missing) for a host path (grant checks)."""
        try:
            st = os.stat(path)
        except OSError:
            return ""
        import stat as _stat

        if _stat.S_ISDIR(st.st_mode):
            return "dir"
        return "file" if _stat.S_ISREG(st.st_mode) else "other"

    @staticmethod
    def real_path(path: str) -> str:
        return os.path.realpath(path)

    # ------------------------------------------------------------ helpers

    @staticmethod
    def _read(path: str, cap: int, charge: Charge | None) -> bytes | None:
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        try:
            chunks: list[bytes] = []
            left = cap
            while left > 0:
                chunk = os.read(fd, min(65536, left))
                if not chunk:
                    break
                if charge is not None:
                    charge(len(chunk) * 2)  # the chunk and its share of the joined copy
                chunks.append(chunk)
                left -= len(chunk)
            return b"".join(chunks)
        except OSError:
            return None
        finally:
            os.close(fd)

    @staticmethod
    def _names(path: str, limit: int) -> list[str]:
        out: list[str] = []
        try:
            with os.scandir(path) as it:
                for entry in it:
                    out.append(entry.name)
                    if len(out) >= limit:
                        break
        except OSError:
            return []
        return out

    @staticmethod
    def _readlink(path: str) -> str | None:
        try:
            return os.readlink(path)
        except OSError:
            return None
