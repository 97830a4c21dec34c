"""What find knows about the file being visited, and the run-wide state."""

from __future__ import annotations

import datetime as _dt

from ...stdio.streams import Stream
from ...vfs.base import Stat
from ..context import Ctx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass, field


class Entry:
    """One visited file: its path as printed, and its status (lstat, and the
    status the symlink policy asks for, computed once)."""

    __slots__ = ("path", "start", "depth", "lst", "_st", "follow", "_target_st")

    def __init__(
        self, path: str, start: str, depth: int, lst: Stat, follow: bool, st: Stat | None = None
    ) -> None:
        self.path = path
        self.start = start
        self.depth = depth
        self.lst = lst
        self.follow = follow
        self._st = st
        self._target_st: Stat | bool | None = False

    def target_stat(self, ctx: Ctx) -> Stat | None:
        """The status of what a symlink points to (None when dangling)."""
        if not self.lst.is_link:
            return self.lst
        if self._target_st is False:
            self._target_st = ctx.fs.try_stat(self.path)
        return self._target_st if isinstance(self._target_st, Stat) else None

    def stat(self, ctx: Ctx) -> Stat:
        """Status under the symlink policy: followed with -L (or -H on a
        starting point), falling back to the link itself when it dangles."""
        if self._st is not None:
            return self._st
        st = self.lst
        if self.follow and st.is_link:
            st = self.target_stat(ctx) or st
        self._st = st
        return st

    @property
    def name(self) -> str:
        """The base name, as find -name sees it (trailing slashes ignored)."""
        p = self.path
        stripped = p.rstrip("/")
        if not stripped:
            return "/"
        return stripped.rsplit("/", 1)[-1]


class Quit(Exception):
    """-quit: stop the traversal."""


@dataclass
class State:
    ctx: Ctx
    now: float
    tz: _dt.tzinfo
    day_start: float
    # where -mtime and friends count from: a day before now, or (-daystart) today's midnight
    day_origin: float = 0.0
    follow: str = "P"  # P, H, L
    maxdepth: int | None = None
    mindepth: int = 0
    depth_first: bool = False
    status: int = 0
    prune: bool = False
    out: list[bytes] = field(default_factory=list)
    out_size: int = 0
    files: dict[str, Stream] = field(default_factory=dict)

    def emit(self, data: bytes) -> None:
        self.out.append(data)
        self.out_size += len(data)
        if self.out_size > 65536:
            self.flush()

    def flush(self) -> None:
        if self.out:
            self.ctx.stdout.write(b"".join(self.out))
            self.out = []
            self.out_size = 0
