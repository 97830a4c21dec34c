"""The backend protocol every filesystem implements, and shared types.

Backends receive absolute, normalised paths whose parent components contain no
symbolic links (the facade resolves them first) and never follow a symlink in
the last component: `lstat`, `readlink` and friends act on the link itself.
A backend that sees a symlink where a directory should be raises ELOOP, so a
race cannot walk it out of its root.
"""

from __future__ import annotations

import errno
import math
import stat as st
import time

from ..leanclass import Declared
from .errors import FsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from dataclasses import dataclass
    from typing import Protocol
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass

    Protocol = object  # the protocols are the type checker's: a plain base at run time (typing is ~2 ms of a start-up)

NS = 1_000_000_000
S_IFMT = 0o170000
S_IFDIR = st.S_IFDIR
S_IFREG = st.S_IFREG
S_IFLNK = st.S_IFLNK
S_IFCHR = st.S_IFCHR
S_IFIFO = st.S_IFIFO


@dataclass(slots=True)
class Stat(metaclass=Declared):
    mode: int
    size: int = 0
    ino: int = 0
    nlink: int = 1
    uid: int = 1000
    gid: int = 1000
    # times are integer nanoseconds since the epoch, as the kernel keeps them: a float of
    # seconds has about 0.2 us of resolution today, so `touch -d ...123456789` would not
    # read back (`stat -c %.9Y`, `date -r f +%N`) and two files touched within the same
    # microsecond would compare equal (`find -newer`, `test -nt`)
    atime_ns: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0
    dev: int = 1
    rdev: int = 0

    # float seconds, for readers that show or compare whole seconds (ls without
    # --full-time, tar headers, find -mtime); anything finer reads the _ns fields
    @property
    def atime(self) -> float:
        return self.atime_ns / NS

    @property
    def mtime(self) -> float:
        return self.mtime_ns / NS

    @property
    def ctime(self) -> float:
        return self.ctime_ns / NS

    @property
    def is_dir(self) -> bool:
        return (self.mode & S_IFMT) == S_IFDIR

    @property
    def is_file(self) -> bool:
        return (self.mode & S_IFMT) == S_IFREG

    @property
    def is_link(self) -> bool:
        return (self.mode & S_IFMT) == S_IFLNK

    @property
    def is_chr(self) -> bool:
        return (self.mode & S_IFMT) == S_IFCHR

    @property
    def is_program(self) -> bool:
        """A regular file with an execute bit: what a PATH search runs, what `hash`, `type -a`,
        `which` and completion list (execve refuses a directory or a device even with the bit)."""
        return (self.mode & S_IFMT) == S_IFREG and bool(self.mode & 0o111)

    @property
    def perm(self) -> int:
        return self.mode & 0o7777

    @property
    def blocks(self) -> int:
        return ((self.size + 4095) // 4096) * 8


def seconds_to_ns(t: float) -> int:
    """Float seconds to integer nanoseconds, rounding the fraction alone (t * 1e9 as one
    product would carry the float error of the whole seconds into the nanoseconds)."""
    whole = math.floor(t)
    return whole * NS + round((t - whole) * NS)


def ns_clock(clock: Callable[[], float]) -> Callable[[], int]:
    """A backend's clock in nanoseconds: time.time_ns itself for the real clock (its
    float would round the nanoseconds away), else the injected clock's seconds."""
    if clock is time.time:
        return time.time_ns
    return lambda: seconds_to_ns(clock())


class FileHandle(Protocol):
    """An open regular file."""

    def read(self, n: int = -1) -> bytes: ...
    def write(self, data: bytes) -> int: ...
    def seek(self, pos: int, whence: int = 0) -> int: ...
    def truncate(self, size: int) -> None: ...
    def close(self) -> None: ...


class FileSource(Protocol):
    """Read-only content a file can point at without holding it in memory
    (OverlayFs copies a host file up this way until its first write)."""

    size: int

    def open(self) -> FileHandle: ...


class Backend(Protocol):
    def lstat(self, path: str) -> Stat: ...
    def readlink(self, path: str) -> str: ...
    def listdir(self, path: str) -> list[str]: ...
    def open(self, path: str, flags: str, mode: int, uid: int, gid: int) -> FileHandle: ...
    def mkdir(self, path: str, mode: int, uid: int, gid: int) -> None: ...
    def rmdir(self, path: str) -> None: ...
    def unlink(self, path: str) -> None: ...
    def rename(self, src: str, dst: str) -> None: ...
    def symlink(self, target: str, path: str, uid: int, gid: int) -> None: ...
    def link(self, src: str, dst: str) -> None: ...
    def chmod(self, path: str, mode: int) -> None: ...
    def chown(self, path: str, uid: int, gid: int) -> None: ...
    def utime(self, path: str, atime_ns: int, mtime_ns: int) -> None: ...
    def truncate(self, path: str, size: int) -> None: ...


def lstat_many(fs: Backend, path: str, names: list[str]) -> list[Stat | FsError]:
    """lstat of each entry `name` of the directory `path` ('/a' + '/' + name):
    the backend's own `lstat_many` when it has one (one directory lookup for
    all entries), else one lstat per entry. A failure for the directory itself
    raises; a failure for one entry is that entry's result."""
    many = getattr(fs, "lstat_many", None)
    if many is not None:
        result: list[Stat | FsError] = many(path, names)
        return result
    base = path.rstrip("/") + "/"
    out: list[Stat | FsError] = []
    for n in names:
        try:
            out.append(fs.lstat(base + n))
        except FsError as e:
            out.append(e)
    return out


def lstat_chain(fs: Backend, parts: list[str]) -> list[Stat | FsError]:
    """lstat of '/p0', '/p0/p1', ... in order, stopping after the first that is
    not a directory or fails (its FsError is then the last item): the
    backend's own `lstat_chain` when it has one. A shorter answer is allowed
    (the caller looks the rest up one by one)."""
    many = getattr(fs, "lstat_chain", None)
    if many is not None:
        result: list[Stat | FsError] = many(parts)
        return result
    out: list[Stat | FsError] = []
    path = ""
    for name in parts:
        path += "/" + name
        try:
            s = fs.lstat(path)
        except FsError as e:
            out.append(e)
            break
        out.append(s)
        if (s.mode & S_IFMT) != S_IFDIR:
            break
    return out


def check_replace(src: Stat, dst: Stat | None, dst_empty: bool) -> None:
    """rename(2) rules for replacing `dst` with `src` (shared by the backends
    that implement rename themselves)."""
    if dst is None:
        return
    if dst.is_dir:
        if not src.is_dir:
            raise FsError(errno.EISDIR)
        if not dst_empty:
            raise FsError(errno.ENOTEMPTY)
    elif src.is_dir:
        raise FsError(errno.ENOTDIR)


def parent_name(path: str) -> tuple[str, str]:
    """('/a/b', 'c') for '/a/b/c'; ('/', '') for '/'."""
    head, _, name = path.rstrip("/").rpartition("/")
    return head or "/", name


def split_path(path: str) -> list[str]:
    return [p for p in path.split("/") if p and p != "."]


def join_path(parts: list[str]) -> str:
    return "/" + "/".join(parts)


def normpath(path: str) -> str:
    """Lexical normalisation of an absolute path (`..` removes a component)."""
    out: list[str] = []
    for p in path.split("/"):
        if not p or p == ".":
            continue
        if p == "..":
            if out:
                out.pop()
            continue
        out.append(p)
    return "/" + "/".join(out)
