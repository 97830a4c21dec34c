"""`OverlayFs`: a host directory seen copy-on-write; the host is never written.

The lower layer is the host tree (read through `HostTree`, confined to its
root); the upper layer is a `MemoryFs` holding every change, so the quota
counts the upper layer only. A deleted lower entry leaves a whiteout, which
also hides the lower subtree below a name recreated in the upper layer.
Changing a lower file copies it up lazily: metadata now, content streamed
from the host until its first write.

Host symlinks are refused (EACCES on readlink) unless `follow_symlinks`, and
then only those whose target stays inside the root (as ReadWriteFs shows
them: `HostTree.inside_target`). Pseudo-filesystems inside the host tree
(procfs, sysfs, ...) are refused unless `allow_pseudo`. The mount table names
the type, never the host directory.
"""

from __future__ import annotations

import errno
import stat as st
import time
from collections.abc import Callable

from .base import FileHandle, Stat, check_replace, parent_name, split_path
from .errors import FsError
from .hostio import O_RDONLY, HostHandle, HostSource, HostStat, HostTree, to_stat
from .memory import MemoryFs
from .quota import DiskQuota


class OverlayFs:
    fstype = "overlay"

    def __init__(
        self,
        root: str,
        read_only: bool = False,
        *,
        follow_symlinks: bool = False,
        allow_pseudo: bool = False,
        quota: DiskQuota | None = None,
        clock: Callable[[], float] = time.time,
        uid: int = 1000,
        gid: int = 1000,
    ) -> None:
        self.lower = HostTree(root, allow_pseudo=allow_pseudo)
        self.upper = MemoryFs(quota=quota, clock=clock, uid=uid, gid=gid)
        self.quota = self.upper.quota
        self.lock = self.upper.lock
        self.read_only = read_only
        self.follow_symlinks = follow_symlinks
        self.source_name = self.fstype  # `df`/`mount` show no host path
        self.uid = uid
        self.gid = gid
        self.whiteouts: set[str] = set()
        top = self.lower.lstat("/")
        r = self.upper.root
        r.mode, r.atime_ns, r.mtime_ns, r.ctime_ns = (
            top.st_mode,
            top.st_atime_ns,
            top.st_mtime_ns,
            top.st_ctime_ns,
        )

    def close(self) -> None:
        self.lower.close()

    # ------------------------------------------------------------ layers

    def _masked(self, path: str) -> bool:
        if not self.whiteouts:
            return False
        while path != "/":
            if path in self.whiteouts:
                return True
            path = parent_name(path)[0]
        return False

    def _lower(self, path: str) -> HostStat | None:
        """The visible lower entry at `path`, if any."""
        if self._masked(path):
            return None
        try:
            return self.lower.lstat(path)
        except FsError as e:
            if e.code in (errno.ENOENT, errno.ENOTDIR):
                return None
            raise

    def _find(self, path: str) -> tuple[bool, Stat]:
        """(in the upper layer, stat) of the merged entry; ENOENT when absent."""
        try:
            return True, self.upper.lstat(path)
        except FsError as e:
            if e.code != errno.ENOENT:
                raise
        if self._masked(path):
            raise FsError(errno.ENOENT)
        return False, to_stat(self.lower.lstat(path), self.uid, self.gid)

    def _exists(self, path: str) -> bool:
        try:
            self._find(path)
        except FsError as e:
            if e.code == errno.ENOENT:
                return False
            raise
        return True

    def _writable(self) -> None:
        if self.read_only:
            raise FsError(errno.EROFS)

    def _hide(self, path: str, had_lower: bool) -> None:
        """`path` was removed: mask the lower entry (and what is below it)."""
        if had_lower:
            self.whiteouts = {w for w in self.whiteouts if not w.startswith(path + "/")}
            self.whiteouts.add(path)

    # ------------------------------------------------------------ copy-up

    def lower_source(self, path: str) -> tuple[HostSource, Stat]:
        """The host file at `path` as a lazy source (a restored snapshot's unchanged copy-up)."""
        s = self.lower.lstat(path)
        if not st.S_ISREG(s.st_mode):
            raise FsError(errno.ENOENT)
        return HostSource(self.lower, path, s.st_size), to_stat(s, self.uid, self.gid)

    def _copy_node(self, path: str, s: HostStat) -> None:
        up = self.upper
        if st.S_ISDIR(s.st_mode):
            up.mkdir(path, s.st_mode & 0o7777, self.uid, self.gid)
            up.utime(path, s.st_atime_ns, s.st_mtime_ns)
        elif st.S_ISREG(s.st_mode):
            up.add_source(path, HostSource(self.lower, path, s.st_size), to_stat(s, self.uid, self.gid))
        elif st.S_ISLNK(s.st_mode):
            up.symlink(self._lower_link(path), path, self.uid, self.gid)
        else:
            raise FsError(errno.ENXIO)

    def _copy_parents(self, path: str) -> None:
        """Make every directory above `path` exist in the upper layer."""
        cur = ""
        for name in split_path(path)[:-1]:
            cur += "/" + name
            try:
                if not self.upper.lstat(cur).is_dir:
                    raise FsError(errno.ENOTDIR)
                continue
            except FsError as e:
                if e.code != errno.ENOENT:
                    raise
            s = self._lower(cur)
            if s is None:
                raise FsError(errno.ENOENT)
            if not st.S_ISDIR(s.st_mode):
                raise FsError(errno.ENOTDIR)
            self._copy_node(cur, s)

    def _copy_up(self, path: str) -> None:
        self._copy_parents(path)
        in_upper, _ = self._find(path)
        if not in_upper:
            s = self._lower(path)
            assert s is not None
            self._copy_node(path, s)

    def _copy_tree(self, top: str) -> None:
        """Copy a whole directory up (names and metadata; contents stay lazy)."""
        self._copy_up(top)
        stack = [top]
        while stack:
            d = stack.pop()
            for name in self.listdir(d):
                child = d.rstrip("/") + "/" + name
                in_upper, s = self._find(child)
                if not in_upper:
                    low = self._lower(child)
                    assert low is not None
                    self._copy_node(child, low)
                if s.is_dir:
                    stack.append(child)

    def _lower_link(self, path: str) -> str:
        """A host symlink's target as the sandbox sees it, if it may be followed."""
        if not self.follow_symlinks:
            self.lower.readlink(path)  # EINVAL/ENOENT as for any name; a link is refused
            raise FsError(errno.EACCES)
        return self.lower.inside_target(path)

    # ------------------------------------------------------------ queries

    def lstat(self, path: str) -> Stat:
        return self._find(path)[1]

    def readlink(self, path: str) -> str:
        in_upper, s = self._find(path)
        if in_upper:
            return self.upper.readlink(path)
        if not s.is_link:
            raise FsError(errno.EINVAL)
        return self._lower_link(path)

    def listdir(self, path: str) -> list[str]:
        in_upper = True
        try:
            names = self.upper.listdir(path)
        except FsError as e:
            if e.code != errno.ENOENT:
                raise
            in_upper, names = False, []
        if self._masked(path):
            if not in_upper:
                raise FsError(errno.ENOENT)
            return names
        try:
            low = self.lower.listdir(path)
        except FsError:
            if in_upper:
                return names
            raise
        seen = set(names)
        prefix = path.rstrip("/") + "/"
        wh = self.whiteouts
        names.extend(n for n in low if n not in seen and prefix + n not in wh)
        return names

    # ------------------------------------------------------------ files

    def open(self, path: str, flags: str, mode: int, uid: int, gid: int) -> FileHandle:
        if flags == "r":
            in_upper, s = self._find(path)
            if in_upper:
                return self.upper.open(path, flags, mode, uid, gid)
            if s.is_link:
                raise FsError(errno.ELOOP)
            return HostHandle(self.lower.open_fd(path, O_RDONLY), tree=self.lower)
        self._writable()
        with self.lock:
            if self._exists(path):
                in_upper, s = self._find(path)
                if flags == "x":
                    raise FsError(errno.EEXIST)
                if s.is_dir:
                    raise FsError(errno.EISDIR)
                if s.is_link:
                    raise FsError(errno.ELOOP)
                self._copy_up(path)
            else:
                self._copy_parents(path)
            return self.upper.open(path, flags, mode, uid, gid)

    def truncate(self, path: str, size: int) -> None:
        self._changed(path).truncate(path, size)

    # ------------------------------------------------------------ names

    def mkdir(self, path: str, mode: int, uid: int, gid: int) -> None:
        self._writable()
        with self.lock:
            if self._exists(path):
                raise FsError(errno.EEXIST)
            self._copy_parents(path)
            self.upper.mkdir(path, mode, uid, gid)

    def rmdir(self, path: str) -> None:
        self._writable()
        with self.lock:
            in_upper, s = self._find(path)
            if not s.is_dir:
                raise FsError(errno.ENOTDIR)
            if self.listdir(path):
                raise FsError(errno.ENOTEMPTY)
            had = self._lower(path) is not None
            if in_upper:
                self.upper.rmdir(path)
            self._hide(path, had)

    def unlink(self, path: str) -> None:
        self._writable()
        with self.lock:
            in_upper, s = self._find(path)
            if s.is_dir:
                raise FsError(errno.EISDIR)
            had = self._lower(path) is not None
            if in_upper:
                self.upper.unlink(path)
            self._hide(path, had)

    def rename(self, src: str, dst: str) -> None:
        self._writable()
        with self.lock:
            _, ss = self._find(src)
            ds = self.lstat(dst) if self._exists(dst) else None
            if src == dst:
                return
            if ss.is_dir and dst.startswith(src.rstrip("/") + "/"):
                raise FsError(errno.EINVAL)
            check_replace(ss, ds, ds is None or not ds.is_dir or not self.listdir(dst))
            src_had, dst_had = self._lower(src) is not None, self._lower(dst) is not None
            if ss.is_dir:
                self._copy_tree(src)
            else:
                self._copy_up(src)
            self._copy_parents(dst)
            self.upper.rename(src, dst)
            self._hide(src, src_had)
            self._hide(dst, dst_had)

    def symlink(self, target: str, path: str, uid: int, gid: int) -> None:
        self._writable()
        with self.lock:
            if self._exists(path):
                raise FsError(errno.EEXIST)
            self._copy_parents(path)
            self.upper.symlink(target, path, uid, gid)

    def link(self, src: str, dst: str) -> None:
        self._writable()
        with self.lock:
            if self.lstat(src).is_dir:
                raise FsError(errno.EPERM)
            if self._exists(dst):
                raise FsError(errno.EEXIST)
            self._copy_up(src)
            self._copy_parents(dst)
            self.upper.link(src, dst)

    # ------------------------------------------------------------ metadata

    def _changed(self, path: str) -> MemoryFs:
        """The upper layer, with `path` copied up into it."""
        self._writable()
        with self.lock:
            self._copy_up(path)
        return self.upper

    def chmod(self, path: str, mode: int) -> None:
        self._changed(path).chmod(path, mode)

    def chown(self, path: str, uid: int, gid: int) -> None:
        self._changed(path).chown(path, uid, gid)

    def utime(self, path: str, atime_ns: int, mtime_ns: int) -> None:
        self._changed(path).utime(path, atime_ns, mtime_ns)
