"""`MountFs`: several backends under mount points.

A path goes to the mount with the longest matching mount point, relative to
that backend's root. Directories above a mount point that the parent backend
lacks are shown as empty read-only directories, so `/mnt/data` works on a
root without `/mnt`. Renames and hard links across mounts fail with EXDEV
(as on Linux: `mv` then copies and deletes); mount points cannot be removed
or renamed (EBUSY); a read-only mount refuses changes with EROFS.
"""

from __future__ import annotations

import errno
import itertools
from collections.abc import Iterator

from .base import S_IFDIR, Backend, FileHandle, Stat, lstat_chain, lstat_many, normpath, parent_name
from .errors import FsError
from .memory import MemoryFs
from .quota import DiskQuota

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass


@dataclass
class Mount:
    path: str
    fs: Backend
    read_only: bool = False
    source: str = ""
    fstype: str = ""
    dev: int = 1


@dataclass
class MountInfo:
    """One line of `mount`/`df`: where, what, and the quota it draws on."""

    path: str
    source: str
    fstype: str
    read_only: bool
    quota: DiskQuota | None


_DEVICES = itertools.count(1)  # one device number per mount, unique in the process


def _label(fs: object, attr: str, default: str) -> str:
    value = getattr(fs, attr, default)
    return value if isinstance(value, str) else default


class MountFs:
    fstype = "mountfs"

    def __init__(self, root: Backend | None = None, *, read_only: bool = False) -> None:
        self.mounts: list[Mount] = []  # longest mount point first
        self._virtual: dict[str, set[str]] = {}  # directory -> names of mount points below it
        self._root: Mount  # the mount at "/" (set by _rebuild, as the two below)
        self.tops: set[str] = set()  # the first name of every other mount point
        self._points: set[str] = set()  # every mount point
        self._leading: set[str] = set()  # every name in a mount point's path
        self.devfs: MemoryFs | None = None  # /dev when Vfs.open may find its devices directly
        self.memroot: MemoryFs | None = None  # the writable in-memory "/" (Vfs.open's inode walk)
        self.mount("/", root if root is not None else MemoryFs(), read_only=read_only)

    # ------------------------------------------------------------ table

    def mount(
        self,
        path: str,
        fs: Backend,
        read_only: bool = False,
        source: str | None = None,
        fstype: str | None = None,
    ) -> None:
        path = normpath(path)
        self.mounts = [m for m in self.mounts if m.path != path]
        self.mounts.append(
            Mount(
                path,
                fs,
                read_only,
                source or _label(fs, "source_name", "none"),
                fstype or _label(fs, "fstype", "none"),
                next(_DEVICES),
            )
        )
        self._rebuild()

    def umount(self, path: str) -> None:
        path = normpath(path)
        if path == "/" or not any(m.path == path for m in self.mounts):
            raise FsError(errno.EINVAL, path)
        self.mounts = [m for m in self.mounts if m.path != path]
        self._rebuild()

    def _rebuild(self) -> None:
        self.mounts.sort(key=lambda m: len(m.path), reverse=True)
        self._virtual = {}
        self._root = self.mounts[-1]  # "/": the shortest mount point
        self._points = {m.path for m in self.mounts}
        self._leading = {name for m in self.mounts for name in m.path.split("/") if name}
        self.tops = {m.path.split("/")[1] for m in self.mounts if m.path != "/"}
        # the in-memory /dev when nothing is mounted below it: Vfs.open finds its devices directly
        dev = [m.fs for m in self.mounts if m.path == "/dev" and isinstance(m.fs, MemoryFs)]
        nested = any(m.path.startswith("/dev/") for m in self.mounts)
        self.devfs = dev[0] if dev and not nested else None
        # (a path whose first name is in tops may cross a mount point: only the others take it;
        # exactly MemoryFs, as a subclass may answer otherwise)
        root = self._root
        self.memroot = root.fs if type(root.fs) is MemoryFs and not root.read_only else None
        for m in self.mounts:
            p = m.path
            while p != "/":
                head, name = parent_name(p)
                self._virtual.setdefault(head, set()).add(name)
                p = head

    def table(self) -> list[MountInfo]:
        """Every mount, nested MountFs included, in mount-point order."""
        return sorted(self._flat(""), key=lambda m: m.path)

    def _flat(self, prefix: str) -> Iterator[MountInfo]:
        for m in self.mounts:
            where = normpath(prefix + m.path)
            if isinstance(m.fs, MountFs):
                yield from m.fs._flat(where)
            else:
                yield MountInfo(where, m.source, m.fstype, m.read_only, getattr(m.fs, "quota", None))

    def _route(self, path: str) -> tuple[Mount, str]:
        for m in self.mounts:
            mp = m.path
            if mp == "/":
                return m, path
            if path.startswith(mp):
                if len(path) == len(mp):
                    return m, "/"
                if path[len(mp)] == "/":
                    return m, path[len(mp) :]
        raise FsError(errno.ENOENT)  # unreachable: "/" is always mounted

    def _pinned(self, path: str) -> bool:
        """A mount point, or a directory that leads to one."""
        return path in self._virtual or path in self._points

    def _change(self, path: str) -> tuple[Mount, str]:
        m, rel = self._route(path)
        if m.read_only:
            raise FsError(errno.EROFS)
        return m, rel

    def _fixed(self, path: str) -> None:
        if path != "/" and self._pinned(path):
            raise FsError(errno.EBUSY)

    # ------------------------------------------------------------ queries

    def lstat(self, path: str) -> Stat:
        m, rel = self._route(path)
        try:
            s = m.fs.lstat(rel)
        except FsError as e:
            if e.code != errno.ENOENT or path not in self._virtual:
                raise
            return Stat(S_IFDIR | 0o755, 4096, nlink=2, uid=0, gid=0, dev=m.dev)
        if not isinstance(m.fs, MountFs):  # a nested table numbers its own mounts
            s.dev = m.dev
        return s

    def lstat_chain(self, parts: list[str]) -> list[Stat | FsError]:
        """lstat of each leading part of '/' + '/'.join(parts) (see base.lstat_chain):
        the components down to the mount holding the whole path one by one,
        the rest in one call to that mount's backend. A missing entry on the
        way that is shown as a directory leading to a mount point is left to
        the caller's own lookup."""
        # (a path whose first name leads to no mount point is on the root mount: no routing)
        m = self._root if parts[0] not in self.tops else self._route("/" + "/".join(parts))[0]
        out: list[Stat | FsError] = []
        k = 0
        plain = not isinstance(m.fs, MountFs)
        if m is not self._root:
            k = m.path.count("/")
            path = ""
            for name in parts[: k - 1]:  # above the mount point: on other mounts
                path += "/" + name
                try:
                    s = self.lstat(path)
                except FsError as e:
                    out.append(e)
                    return out
                out.append(s)
                if (s.mode & 0o170000) != S_IFDIR:
                    return out
            s = m.fs.lstat("/")  # the mount point: its backend's root (what lstat() routes to)
            if plain:
                s.dev = m.dev
            out.append(s)
            if k >= len(parts):
                return out
        rest = lstat_chain(m.fs, parts[k:] if k else parts)
        for i, r in enumerate(rest):
            if isinstance(r, FsError):
                if (
                    r.code != errno.ENOENT
                    or parts[k + i] not in self._leading  # (no need to build the path to know)
                    or "/" + "/".join(parts[: k + i + 1]) not in self._virtual
                ):
                    out.append(r)
                break
            if plain:
                r.dev = m.dev
            out.append(r)
        return out

    def lstat_many(self, path: str, names: list[str]) -> list[Stat | FsError]:
        """lstat of each entry of the directory `path`; entries that are (or
        lead to) mount points, and every entry when the directory itself is
        not plainly on one backend, are looked up one by one."""
        base = path.rstrip("/") + "/"
        m, rel = self._route(path)
        bulk: list[Stat | FsError] | None = None
        # (the entries of `path` that are, or lead to, mount points: _pinned's names there)
        pinned = self._virtual.get(path.rstrip("/") or "/")
        if not pinned or pinned.isdisjoint(names):
            try:
                bulk = lstat_many(m.fs, rel, names)
            except FsError:
                bulk = None
        if bulk is None:
            out: list[Stat | FsError] = []
            for n in names:
                try:
                    out.append(self.lstat(base + n))
                except FsError as e:
                    out.append(e)
            return out
        if not isinstance(m.fs, MountFs):
            for s in bulk:
                if isinstance(s, Stat):
                    s.dev = m.dev
        return bulk

    def readlink(self, path: str) -> str:
        m, rel = self._route(path)
        return m.fs.readlink(rel)

    def listdir(self, path: str) -> list[str]:
        m, rel = self._route(path)
        extra = self._virtual.get(path)
        try:
            names = m.fs.listdir(rel)
        except FsError as e:
            if e.code != errno.ENOENT or extra is None:
                raise
            names = []
        if extra:
            seen = set(names)
            names.extend(sorted(n for n in extra if n not in seen))
        return names

    # ------------------------------------------------------------ changes

    def open(self, path: str, flags: str, mode: int, uid: int, gid: int) -> FileHandle:
        m, rel = self._route(path) if flags == "r" else self._change(path)
        return m.fs.open(rel, flags, mode, uid, gid)

    def truncate(self, path: str, size: int) -> None:
        m, rel = self._change(path)
        m.fs.truncate(rel, size)

    def mkdir(self, path: str, mode: int, uid: int, gid: int) -> None:
        if self._pinned(path):
            raise FsError(errno.EEXIST)
        m, rel = self._change(path)
        m.fs.mkdir(rel, mode, uid, gid)

    def rmdir(self, path: str) -> None:
        self._fixed(path)
        m, rel = self._change(path)
        m.fs.rmdir(rel)

    def unlink(self, path: str) -> None:
        self._fixed(path)
        m, rel = self._change(path)
        m.fs.unlink(rel)

    def rename(self, src: str, dst: str) -> None:
        self._fixed(src)
        self._fixed(dst)
        ms, rs = self._route(src)
        md, rd = self._route(dst)
        if ms is not md:
            raise FsError(errno.EXDEV)
        self._change(src)
        ms.fs.rename(rs, rd)

    def symlink(self, target: str, path: str, uid: int, gid: int) -> None:
        if self._pinned(path):
            raise FsError(errno.EEXIST)
        m, rel = self._change(path)
        if target.startswith("/") and getattr(m.fs, "host_links", False):
            # a real host link: an absolute target inside this mount is stored relative, so a
            # host program reading the directory is led inside it too (any other is refused)
            mt, trel = self._route(normpath(target))
            if mt is m:
                depth = len([p for p in parent_name(rel)[0].split("/") if p])
                target = ("../" * depth + trel.lstrip("/")) or "."
        m.fs.symlink(target, rel, uid, gid)

    def link(self, src: str, dst: str) -> None:
        if self._pinned(dst):
            raise FsError(errno.EEXIST)
        ms, rs = self._route(src)
        md, rd = self._route(dst)
        if ms is not md:
            raise FsError(errno.EXDEV)
        self._change(dst)
        ms.fs.link(rs, rd)

    def materialize(self, path: str, mode: int, uid: int, gid: int) -> None:
        """Make `path`, a directory shown only to lead to a mount point below it, a real directory
        of the backend holding it (its parents likewise), with this mode and owner; nothing when
        it is real already or its mount is read-only. For the directories an embedder's sandbox
        needs writable (/tmp, the home directory, the cwd): `--mount ./p:/home/user/p` left the
        home directory a read-only stand-in, so `echo x > ~/f` was refused."""
        m, rel = self._route(path)
        if isinstance(m.fs, MountFs):
            m.fs.materialize(rel, mode, uid, gid)
            return
        if m.read_only or path not in self._virtual:
            return
        try:
            m.fs.lstat(rel)
            return
        except FsError:
            pass
        head = parent_name(path)[0]
        if head != path and rel != "/":
            self.materialize(head, 0o755, uid, gid)
        m.fs.mkdir(rel, mode, uid, gid)

    def _meta(self, path: str) -> tuple[Mount, str]:
        m, rel = self._change(path)
        if rel != "/" and path in self._virtual:
            try:
                m.fs.lstat(rel)
            except FsError:
                raise FsError(errno.EPERM)  # a directory shown only to reach a mount point
        return m, rel

    def chmod(self, path: str, mode: int) -> None:
        m, rel = self._meta(path)
        m.fs.chmod(rel, mode)

    def chown(self, path: str, uid: int, gid: int) -> None:
        m, rel = self._meta(path)
        m.fs.chown(rel, uid, gid)

    def utime(self, path: str, atime_ns: int, mtime_ns: int) -> None:
        m, rel = self._meta(path)
        m.fs.utime(rel, atime_ns, mtime_ns)
