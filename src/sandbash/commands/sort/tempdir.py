"""Where GNU sort would write its temporary files, and whether it could: sort keeps its runs in
memory (spill.py), yet a script that names a missing -T directory fails where GNU's would."""

from __future__ import annotations

import errno
import re

from ...stdio.streams import Stream
from ...vfs.errors import strerror
from ..context import CommandExit, Ctx
from ..textbasic.common import quoteaf

_S_SIZE = re.compile(r"([0-9]+)([kKmMgGtTpPeEzZyYbB%]?)$")


def die(ctx: Ctx, message: str) -> CommandExit:
    ctx.error(message)
    return CommandExit(2)


# what a line takes of GNU sort's buffer besides its text (its `struct line` and the sort's
# room for more), as measured with 80-byte lines: -S 1M holds 559 KB of them, -S 2M 1.12 MB
_GNU_LINE = 70
# GNU sort's buffer for input of unknown size (a pipe), as measured: 4.6 MB of such lines sort
# with a missing -T, 4.8 MB fail
_GNU_UNSIZED = 8_700_000
# and its least (-S 0 or -S 1b still holds a few lines)
_GNU_MIN_BUFFER = 1024


class TempDirs:
    """Where GNU sort would write its temporary files, checked (never written: runs stay in
    memory, spill.py) when GNU would need one, a buffer's worth of input after another: its
    buffer is the -S size, else the size of its inputs when all are regular files (no temporary
    file, as far as a sandbox's memory goes), else a few megabytes. Each temporary file goes to
    the next -T directory, round robin, as GNU's do. A directory that is missing, not a directory
    or not writable fails as GNU's mkstemp there: `cannot create temporary file in 'DIR'`."""

    def __init__(self, ctx: Ctx, dirs: list[str], size: str | None, opened: list[tuple[str, Stream]]) -> None:
        from ...vfs.facade import FileStream  # (a regular file's stream)

        self.ctx = ctx
        self.dirs = dirs or [ctx.env.get("TMPDIR") or "/tmp"]
        self.next = 0
        self.seen = 0
        # (0: no temporary file is ever needed)
        if size is not None:
            self.buffer = _buffer_bytes(size)
        else:
            self.buffer = 0 if all(isinstance(st, FileStream) for _n, st in opened) else _GNU_UNSIZED

    def read(self, batch: list[bytes]) -> None:
        """A batch of lines more taken into GNU's buffer."""
        self.seen += sum(map(len, batch)) + _GNU_LINE * len(batch)
        if self.seen > self.buffer * (self.next + 1):
            self._check(self.dirs[self.next % len(self.dirs)])
            self.next += 1

    def finish(self) -> None:
        """The input's end: once GNU writes temporary files, its last part goes to one too."""
        if self.next:
            self._check(self.dirs[self.next % len(self.dirs)])

    def _check(self, path: str) -> None:
        fs = self.ctx.fs
        err = fs.stat_error(path)
        code = err.errno if err is not None else None
        if code is None and not fs.is_dir(path):
            code = errno.ENOTDIR
        elif code is None and not fs.access(path, 3):
            code = errno.EACCES
        if code is not None:
            raise die(self.ctx, f"cannot create temporary file in {quoteaf(path)}: {strerror(code or 5)}")


def _buffer_bytes(size: str) -> int:
    """-S's size in bytes (a bare number is KiB; a share of memory: 0, as good as no bound)."""
    m = _S_SIZE.match(size)
    if m is None or m.group(2) == "%":
        return 0
    unit = m.group(2).upper() or "K"
    power = 0 if unit == "B" else "KMGTPEZY".index(unit) + 1
    return max(_GNU_MIN_BUFFER, int(m.group(1)) << (10 * power))
