"""`ReadWriteFs`: real disk I/O confined to a host directory.

Paths are resolved by `HostTree` (dir_fd + O_NOFOLLOW, component by
component). A regular file with several hard links is read-only: a link may
have been made on the host to a file outside the root, so writing through it
could change that file (writes, truncation, chmod and utime give EPERM).
The quota counts what the sandbox adds less what it removes.

Host layout stays private: the mount table names the type, not the host
directory; a host symlink whose target leaves the root reads as EACCES (an
absolute one inside the root reads as a relative target, as OverlayFs shows
it), and the sandbox cannot create a symlink whose target leaves the root (a
host program reading the directory would follow it to host files): an
absolute target inside the same mount is stored relative by `MountFs`, any
other is refused. A relative link that stays inside where it was made may
climb out once moved higher up (`mv d/l l`, `ln -P d/l l`, or a directory
holding it moved up), so a rename or hard link to a shallower place checks
the links it carries (a directory of more than `_LINK_SCAN` entries gives
EXDEV: `mv` then copies, and each copied link is checked on creation).
`outside_symlinks=True` lifts all of this (targets as they are).
Pseudo-filesystems inside the root are refused unless `allow_pseudo`.
"""

from __future__ import annotations

import errno
import stat as st
import time
from collections.abc import Callable

from .base import Stat, parent_name, split_path
from .errors import FsError
from .hostio import (
    O_CREAT_EXCL,
    O_RDONLY,
    O_RDWR,
    O_WRONLY,
    HostHandle,
    HostStat,
    HostTree,
    stays_inside,
    to_stat,
)
from .quota import DiskQuota, name_cost

_MODES = {"r": O_RDONLY, "rw": O_RDWR, "w": O_WRONLY, "a": O_WRONLY, "x": O_WRONLY}
_LINK_SCAN = 10_000  # entries a directory moved higher up is searched for links before EXDEV


def _depth(path: str) -> int:
    return len(split_path(parent_name(path)[0]))


def _climbs_then_descends(link: str, target: str) -> bool:
    """Whether a new link's target is relative, climbs ('..') only before its
    first name and no higher than the root. The host kernel follows a link
    in the middle of a target before a later '..' ('up/../x' with 'up' a link
    to '..' leaves the root), so a '..' after a name is refused; with every
    link of this shape, each one resolves inside the root."""
    if target.startswith("/"):
        return False
    named = False
    for part in target.split("/"):
        if part == "..":
            if named:
                return False
        elif part not in ("", "."):
            named = True
    return stays_inside(link, target)


class ReadWriteFs:
    fstype = "hostfs"

    def __init__(
        self,
        root: str,
        *,
        quota: DiskQuota | None = None,
        clock: Callable[[], float] = time.time,
        uid: int = 1000,
        gid: int = 1000,
        allow_pseudo: bool = False,
        outside_symlinks: bool = False,
    ) -> None:
        self.tree = HostTree(root, allow_pseudo=allow_pseudo)
        self.source_name = self.fstype  # `df`/`mount` show no host path
        self.outside_symlinks = outside_symlinks
        # MountFs stores an absolute target inside this mount as a relative one
        self.host_links = not outside_symlinks
        self.quota = quota or DiskQuota()
        self.clock = clock
        self.uid = uid
        self.gid = gid

    def close(self) -> None:
        self.tree.close()

    def _host(self, path: str) -> HostStat | None:
        try:
            return self.tree.lstat(path)
        except FsError as e:
            if e.code == errno.ENOENT:
                return None
            raise

    @staticmethod
    def _writable(s: HostStat) -> None:
        if st.S_ISREG(s.st_mode) and s.st_nlink > 1:
            raise FsError(errno.EPERM)

    def _held(self, path: str, s: HostStat) -> int:
        """Bytes a name and what only it holds count against the quota."""
        cost = name_cost(parent_name(path)[1])
        if st.S_ISREG(s.st_mode) and s.st_nlink <= 1:
            cost += s.st_size
        elif st.S_ISLNK(s.st_mode):
            cost += s.st_size
        return cost

    # ------------------------------------------------------------ queries

    def lstat(self, path: str) -> Stat:
        return to_stat(self.tree.lstat(path), self.uid, self.gid)

    def lstat_chain(self, parts: list[str]) -> list[Stat | FsError]:
        uid, gid = self.uid, self.gid
        return [r if isinstance(r, FsError) else to_stat(r, uid, gid) for r in self.tree.lstat_chain(parts)]

    def lstat_many(self, path: str, names: list[str]) -> list[Stat | FsError]:
        uid, gid = self.uid, self.gid
        return [
            r if isinstance(r, FsError) else to_stat(r, uid, gid) for r in self.tree.lstat_many(path, names)
        ]

    def readlink(self, path: str) -> str:
        return self.tree.readlink(path) if self.outside_symlinks else self.tree.inside_target(path)

    def listdir(self, path: str) -> list[str]:
        return self.tree.listdir(path)

    # ------------------------------------------------------------ files

    def open(self, path: str, flags: str, mode: int, uid: int, gid: int) -> HostHandle:
        base = _MODES[flags]
        if flags == "r":
            return HostHandle(self.tree.open_fd(path, base), tree=self.tree)
        cost = name_cost(parent_name(path)[1])
        self.quota.charge(cost, 1)
        try:
            fd = self.tree.open_fd(path, base | O_CREAT_EXCL, mode & 0o7777)
        except FsError as e:
            self.quota.release(cost, 1)
            if e.code != errno.EEXIST or flags == "x":
                raise
            fd = self.tree.open_fd(path, base)
            handle = HostHandle(fd, self.quota, flags == "a", tree=self.tree)
            try:
                self._writable(handle.fstat())
                if flags == "w":
                    handle.truncate(0)
            except BaseException:
                handle.close()
                raise
            return handle
        return HostHandle(fd, self.quota, flags == "a", tree=self.tree)

    def truncate(self, path: str, size: int) -> None:
        handle = HostHandle(self.tree.open_fd(path, O_WRONLY), self.quota, tree=self.tree)
        try:
            self._writable(handle.fstat())
            handle.truncate(size)
        finally:
            handle.close()

    # ------------------------------------------------------------ names

    def mkdir(self, path: str, mode: int, uid: int, gid: int) -> None:
        cost = name_cost(parent_name(path)[1])
        self.quota.charge(cost, 1)
        try:
            self.tree.mkdir(path, mode & 0o7777)
        except BaseException:
            self.quota.release(cost, 1)
            raise

    def rmdir(self, path: str) -> None:
        self.tree.rmdir(path)
        self.quota.release(name_cost(parent_name(path)[1]), 1)

    def unlink(self, path: str) -> None:
        s = self.tree.lstat(path)
        if st.S_ISDIR(s.st_mode):
            raise FsError(errno.EISDIR)
        self.tree.unlink(path)
        self.quota.release(self._held(path, s), 1)

    def _links_stay_inside(self, src: str, dst: str) -> None:
        """EACCES when moving (or hard-linking) `src` to `dst` would leave a
        relative symlink it holds pointing above the root: only a move to a
        shallower place can do that. Absolute targets are the host's own
        links (the sandbox cannot make one): they read as EACCES anyway."""
        if self.outside_symlinks or _depth(dst) >= _depth(src):
            return
        stack, seen = [(src, dst)], 0
        while stack:
            old, new = stack.pop()
            s = self.tree.lstat(old)
            if st.S_ISLNK(s.st_mode):
                target = self.tree.readlink(old)
                if not target.startswith("/") and not stays_inside(new, target):
                    raise FsError(errno.EACCES)
            elif st.S_ISDIR(s.st_mode):
                names = self.tree.listdir(old)
                seen += len(names)
                if seen > _LINK_SCAN:
                    raise FsError(errno.EXDEV)
                stack.extend((f"{old}/{n}", f"{new}/{n}") for n in names)

    def rename(self, src: str, dst: str) -> None:
        old = self._host(dst)
        if old is not None and old.st_ino == self.tree.lstat(src).st_ino:
            return  # two names of one file: rename does nothing
        self._links_stay_inside(src, dst)
        grow = name_cost(parent_name(dst)[1]) - name_cost(parent_name(src)[1])
        self.quota.adjust(grow)
        try:
            self.tree.rename(src, dst)
        except BaseException:
            self.quota.adjust(-grow)
            raise
        if old is not None:
            self.quota.release(self._held(dst, old), 1)

    def symlink(self, target: str, path: str, uid: int, gid: int) -> None:
        if not self.outside_symlinks and not _climbs_then_descends(path, target):
            raise FsError(errno.EACCES)  # a real link to a host path outside the root
        cost = name_cost(parent_name(path)[1]) + name_cost(target)
        self.quota.charge(cost, 1)
        try:
            self.tree.symlink(target, path)
        except BaseException:
            self.quota.release(cost, 1)
            raise

    def link(self, src: str, dst: str) -> None:
        self._links_stay_inside(src, dst)  # `ln -P` of a symlink names the link itself
        cost = name_cost(parent_name(dst)[1])
        self.quota.charge(cost, 1)
        try:
            self.tree.link(src, dst)
        except BaseException:
            self.quota.release(cost, 1)
            raise

    # ------------------------------------------------------------ metadata

    def chmod(self, path: str, mode: int) -> None:
        self._writable(self.tree.lstat(path))
        self.tree.chmod(path, mode & 0o7777)

    def chown(self, path: str, uid: int, gid: int) -> None:
        # host ownership never changes; every file already shows as the sandbox user's
        self.tree.lstat(path)

    def utime(self, path: str, atime_ns: int, mtime_ns: int) -> None:
        self._writable(self.tree.lstat(path))
        self.tree.utime(path, atime_ns, mtime_ns)


__all__ = ["ReadWriteFs"]
