"""tail -f / -F: print what is appended to the files until the run ends it.

As with GNU tail, following never ends on its own: the run's deadline, a `timeout` around it or a
signal (`kill` of a background `tail -f &`) stops it, with the status bash shows for that. Files are
polled every --sleep-interval seconds (1 by default) through the Vfs, so what another command of
the run appends (a background writer, a later pipeline stage) shows up.
"""

from __future__ import annotations

from ...vfs.errors import FsError
from ...vfs.facade import FileStream
from ..context import Ctx
from .common import Out

_CHUNK = 1 << 16


class Follower:
    def __init__(self, ctx: Ctx, out: Out, names: list[str], headers: bool, by_name: bool) -> None:
        self.ctx = ctx
        self.out = out
        self.headers = headers
        self.by_name = by_name  # -F / --follow=name: a file that goes away is waited for
        self.pos: dict[str, int] = {}
        for name in names:
            st = ctx.fs.try_stat(name)
            if st is not None or by_name:
                # a device (`tail -f /dev/null`, the classic "wait forever") is followed too
                self.pos[name] = st.size if st is not None and st.is_file else 0
        self.last = names[-1] if names else ""  # the file whose header was printed last

    def run(self, interval: float) -> None:
        """Poll forever; only a limit, a timeout or a signal ends this."""
        if not self.pos:
            return
        while True:
            self.ctx.budget.sleep(interval)
            self.ctx.checkpoint()
            for name in list(self.pos):
                self._poll(name)
            self.out.flush()

    def _poll(self, name: str) -> None:
        st = self.ctx.fs.try_stat(name)
        if st is None or not st.is_file:
            if st is None and self.by_name:
                self.pos[name] = 0  # printed from the start when it comes back
            return
        pos = self.pos[name]
        if st.size < pos:
            self.out.flush()
            self.ctx.error(f"{name}: file truncated")
            pos = 0
        if st.size > pos:
            self._print_from(name, pos, st.size)
        self.pos[name] = st.size

    def _print_from(self, name: str, start: int, end: int) -> None:
        try:
            stream = self.ctx.fs.open(name)
        except FsError:
            return
        try:
            if isinstance(stream, FileStream):
                stream.handle.seek(start)
            else:
                stream.read(start)
            if self.headers and name != self.last:
                self.out.write(f"\n==> {name} <==\n".encode("utf-8", "surrogateescape"))
            self.last = name
            left = end - start
            while left > 0:
                data = stream.read(min(left, _CHUNK))
                if not data:
                    break
                self.out.write(data)
                left -= len(data)
                self.ctx.checkpoint()
        finally:
            stream.close()
