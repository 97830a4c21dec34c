"""A host file descriptor as a script's standard input (the CLI's own stdin).

The one place a run reads from the host outside the filesystem backends: the
embedding program hands the descriptor over explicitly. Reads wait in short
slices so that the run's time limit and cancellation still end a script whose
input never arrives (an inherited pipe nobody writes to)."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable

from .streams import Stream, StreamReadError

_WAIT = 0.05  # seconds between checks of the run's deadline while no input is ready


class HostInput(Stream):
    readable = True

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd
        self.checkpoint: Callable[[], None] | None = None
        self._eof = False

    @property
    def holds_data(self) -> bool:
        """Whether the descriptor is a pipe, socket or regular file: where a search tool such as
        ripgrep reads its input from stdin (a terminal or /dev/null means "search the directory")."""
        import stat

        try:
            mode = os.fstat(self.fd).st_mode
        except OSError:
            return False
        return stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)

    def _fill(self, n: int) -> bytes:
        if self._eof:
            return b""
        while True:
            if self.checkpoint is not None:
                self.checkpoint()
            import select  # (a C extension, ~0.4 M instructions to load: only a run that reads it)

            try:
                ready, _, _ = select.select([self.fd], [], [], _WAIT)
            except (OSError, ValueError):
                break  # not selectable (some files): a plain read does not block for long
            if ready:
                break
        try:
            data = os.read(self.fd, n)
        except OSError as e:
            code = e.errno or errno.EIO
            raise StreamReadError(code, os.strerror(code)) from None
        if not data:
            self._eof = True
        return data
