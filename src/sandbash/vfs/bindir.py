"""/bin and /usr/bin: a read-only view of the commands this sandbox runs.

Nothing is stored: the directory lists the names the embedding program's sandbox offers (the
command table, minus what the network settings or the policy take away), asked when listed, so
that `ls /usr/bin`, `test -x /usr/bin/jq`, `which`, `type`, `command -v`, `compgen -c` and `hash`
agree, and creating a sandbox costs nothing. Each entry is a small executable text file saying
what it is; the executor runs the built-in command for any `/bin/NAME` or `/usr/bin/NAME`
(it never reads these files). Writes fail as on a read-only mount.
"""

from __future__ import annotations

import errno
import io
from collections.abc import Callable, Iterable

from .base import S_IFDIR, S_IFREG, FileHandle, Stat
from .errors import FsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .mount import MountFs

FSTYPE = "sandbash-bin"  # hidden from `mount`/`df`: on a real system these directories are not mounts
# where the built-in commands appear to live (Debian's merged /usr: /bin is /usr/bin); the executor,
# the static check and sandbash.testing run the built-in command for any NAME in them
COMMAND_DIRS = ("/bin", "/usr/bin")
SHELL_NAMES = ("bash", "sh")  # run by the interpreter itself, not the command table
_BOOT_TIME = 1_700_000_000 * 1_000_000_000  # a fixed, plausible install time: listing is deterministic


def stub(name: str) -> bytes:
    """What `cat /usr/bin/NAME` shows: not a host program, a command built into sandbash."""
    return (
        f"#!/bin/sh\n# {name}: a command built into sandbash; it runs inside the sandbox, "
        f"not on the host.\n# `{name} --help` or `help {name}` shows how to use it.\n"
    ).encode()


class _StubHandle:
    """An open entry: readable and seekable, never writable."""

    def __init__(self, data: bytes) -> None:
        self._buf = io.BytesIO(data)

    def read(self, n: int = -1) -> bytes:
        return self._buf.read(n)

    def write(self, data: bytes) -> int:
        raise FsError(errno.EBADF)

    def seek(self, pos: int, whence: int = 0) -> int:
        return self._buf.seek(pos, whence)

    def truncate(self, size: int) -> None:
        raise FsError(errno.EBADF)

    def close(self) -> None:
        self._buf.close()


class CommandDir:
    """The backend mounted at /bin and /usr/bin. `has(name)` answers one lookup (called for every
    `stat`, so it must be cheap); `names()` is asked only when the directory is listed."""

    source_name = "sandbash"
    fstype = FSTYPE

    def __init__(self, has: Callable[[str], bool], names: Callable[[], Iterable[str]]) -> None:
        self.has = has
        self.names = names

    def _entry(self, path: str) -> str:
        name = path.lstrip("/")
        if "/" in name:  # nothing below an entry
            raise FsError(errno.ENOTDIR if self.has(name.split("/", 1)[0]) else errno.ENOENT)
        if not self.has(name):
            raise FsError(errno.ENOENT)
        return name

    def lstat(self, path: str) -> Stat:
        if path == "/":
            return Stat(
                S_IFDIR | 0o755,
                4096,
                ino=2,
                nlink=2,
                uid=0,
                gid=0,
                atime_ns=_BOOT_TIME,
                mtime_ns=_BOOT_TIME,
                ctime_ns=_BOOT_TIME,
            )
        name = self._entry(path)
        return Stat(
            S_IFREG | 0o755,
            len(stub(name)),
            ino=3 + sum(name.encode()),
            uid=0,
            gid=0,
            atime_ns=_BOOT_TIME,
            mtime_ns=_BOOT_TIME,
            ctime_ns=_BOOT_TIME,
        )

    def readlink(self, path: str) -> str:
        self.lstat(path)
        raise FsError(errno.EINVAL)

    def listdir(self, path: str) -> list[str]:
        if path != "/":
            self._entry(path)
            raise FsError(errno.ENOTDIR)
        return sorted(n for n in set(self.names()) if "/" not in n and self.has(n))

    def open(self, path: str, flags: str, mode: int, uid: int, gid: int) -> FileHandle:
        if path == "/":
            raise FsError(errno.EISDIR)
        name = self._entry(path)
        if flags != "r":
            raise FsError(errno.EROFS)
        return _StubHandle(stub(name))

    def _refuse(self, *args: object) -> None:
        raise FsError(errno.EROFS)

    mkdir = rmdir = unlink = rename = symlink = link = chmod = chown = utime = truncate = _refuse


def mount_command_dirs(tree: MountFs, has: Callable[[str], bool], names: Callable[[], Iterable[str]]) -> None:
    """Mount the command directories (read-only) on `tree`; `has(name)` decides each entry,
    `names()` gives the candidates a listing shows."""
    backend = CommandDir(has, names)
    for path in COMMAND_DIRS:
        tree.mount(path, backend, read_only=True)
