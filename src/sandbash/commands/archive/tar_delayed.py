"""tar's delayed symbolic links (GNU tar 1.34's create_placeholder_file and apply_delayed_links).

Without -P, a symlink member whose target is absolute or climbs with `..` is not made at once: an
empty placeholder file (mode 0) stands in its place until every member is extracted, and only then
is it replaced by the link. So a later member cannot be written, made a directory or hard-linked
*through* the link (`d -> /work/keep`, then `d/k`: 'Cannot open: Not a directory'), which would
reach outside the extraction directory. A hard link to a placeholder is one more name that gets
the same link at the end.
"""

from __future__ import annotations

from collections.abc import Callable

from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..fsutil import quote


def needs_delay(linkname: str) -> bool:
    """A target GNU delays: absolute, or with a `..` component."""
    return linkname.startswith("/") or ".." in linkname.split("/")


class _Placeholder:
    __slots__ = ("dev", "ino", "linkname", "mtime_ns", "names")

    def __init__(
        self, dev: int, ino: int, linkname: str, mtime_ns: int | None, name: tuple[str, str]
    ) -> None:
        self.dev = dev
        self.ino = ino
        self.linkname = linkname
        self.mtime_ns = mtime_ns
        self.names = [name]  # (path, the member's name for messages)


class DelayedLinks:
    """The placeholders made by one extraction, replaced by their links when it ends."""

    def __init__(self, ctx: Ctx, error: Callable[[str], None]) -> None:
        self.ctx = ctx
        self.error = error
        self.held: list[_Placeholder] = []

    def place(self, target: str, name: str, linkname: str, mtime_ns: int | None) -> None:
        """Put the empty placeholder at `target` in place of the link to `linkname` just made there
        (made first, so the policy decided on the link itself, with its own refusal)."""
        fs = self.ctx.fs
        fs.unlink(target)
        fs.open(target, "x").close()
        fs.chmod(target, 0)
        st = fs.lstat(target)
        self.held.append(_Placeholder(st.dev, st.ino, linkname, mtime_ns, (target, name)))

    def linked(self, source: str, target: str, name: str) -> None:
        """`target` was made a hard link of `source`: a placeholder's new name gets its link too."""
        st = self.ctx.fs.try_lstat(source)
        if st is None:
            return
        for held in self.held:
            if (held.dev, held.ino) == (st.dev, st.ino):
                held.names.append((target, name))
                return

    def apply(self) -> None:
        """Each name still holding its placeholder becomes the link (one replaced or removed by a
        later member is left as it is, as GNU does)."""
        fs = self.ctx.fs
        for held in self.held:
            for path, name in held.names:
                self.ctx.checkpoint()
                st = fs.try_lstat(path)
                if st is None or (st.dev, st.ino) != (held.dev, held.ino) or st.size:
                    continue
                try:
                    fs.unlink(path)
                    fs.symlink(held.linkname, path)
                    if held.mtime_ns is not None:
                        fs.utime(path, held.mtime_ns, held.mtime_ns, follow=False)
                except FsError as e:
                    why = strerror(e.errno or 0)
                    self.error(f"{name}: Cannot create symlink to {quote(held.linkname)}: {why}")
        self.held = []
