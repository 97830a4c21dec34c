"""/dev: always in memory, mounted over whatever backend holds the rest
(the backend's own /dev is hidden). `tty` exists but does not open (ENXIO), as for a process without a
controlling terminal (bash run by a tool or CI), so `[ -c /dev/tty ]` and the error text match bash there."""

from __future__ import annotations

import errno
import time
from collections.abc import Callable

from ..stdio.streams import FullStream, NullStream, RandomStream, Stream, ZeroStream
from .errors import FsError
from .memory import MemoryFs
from .quota import DiskQuota

DEVICES = {"null": 0x103, "zero": 0x105, "full": 0x107, "random": 0x108, "urandom": 0x109}
PTS0 = 0x8800
TTY = 0x500  # major 5, minor 0


def make_devfs(uid: int = 1000, gid: int = 1000, clock: Callable[[], float] = time.time) -> MemoryFs:
    fs = MemoryFs(quota=DiskQuota(1 << 16, 64), clock=clock, uid=0, gid=0)
    fs.source_name = "udev"
    fs.fstype = "devtmpfs"
    for name, rdev in DEVICES.items():
        fs.add_device("/" + name, rdev)
    fs.add_device("/tty", TTY, 0o666, 0, 0)
    fs.mkdir("/fd", 0o500, uid, gid)
    for n, name in enumerate(("stdin", "stdout", "stderr")):
        # the interpreter serves these itself; they exist so `test -e` and `stat` see them
        fs.add_device(f"/fd/{n}", PTS0, 0o620, uid, gid)
        fs.symlink(f"fd/{n}", "/" + name, 0, 0)
    return fs


def open_device(canon: str, rng: Callable[[int], bytes], checkpoint: Callable[[], None] | None) -> Stream:
    """The stream behind a character device at canonical path `canon`."""
    name = canon[5:] if canon.startswith("/dev/") else ""
    if name == "null":
        return NullStream()
    if name == "zero":
        return ZeroStream(checkpoint)
    if name == "full":
        return FullStream(checkpoint)
    if name in ("random", "urandom"):
        return RandomStream(rng, checkpoint)
    raise FsError(errno.ENXIO, canon)
