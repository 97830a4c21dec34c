"""The in-memory filesystem (the default backend, and OverlayFs's upper layer).

Inodes hold directories (name -> inode), regular files, symbolic links and
character devices; hard links share an inode. A regular file's content is a
bytearray, or until first needed either a loader the embedder supplied
(called on first read) or a `FileSource` streamed from elsewhere (OverlayFs's
lazy copy-up: read in chunks, copied in only on the first change).
A `DiskQuota` bounds the bytes of contents, symlink targets and names, and
the number of entries.
"""

from __future__ import annotations

import _thread  # (threading's locks are _thread's: threading.py itself is ~0.8 ms of a start-up)
import errno
import time
from collections.abc import Callable, Mapping, Sequence

from .base import (
    S_IFCHR,
    S_IFDIR,
    S_IFLNK,
    S_IFMT,
    S_IFREG,
    FileHandle,
    FileSource,
    Stat,
    check_replace,
    ns_clock,
    split_path,
)
from .errors import FsError
from .quota import DiskQuota, name_cost

__all__ = ["DiskQuota", "FileContent", "Inode", "MemoryFs"]

FileContent = bytes | str | Callable[[], bytes | str]


def _to_bytes(raw: bytes | str) -> bytes:
    return raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else bytes(raw)


class Inode:
    __slots__ = (
        "mode",
        "uid",
        "gid",
        "atime_ns",
        "mtime_ns",
        "ctime_ns",
        "ino",
        "nlink",
        "data",
        "entries",
        "target",
        "loader",
        "source",
        "rdev",
    )

    def __init__(self, mode: int, ino: int, uid: int, gid: int, now: int) -> None:
        self.mode = mode
        self.ino = ino
        self.uid = uid
        self.gid = gid
        self.atime_ns = self.mtime_ns = self.ctime_ns = now
        self.nlink = 1
        self.data: bytearray | None = None
        self.entries: dict[str, Inode] | None = None
        self.target: str | None = None
        self.loader: Callable[[], bytes | str] | None = None
        self.source: FileSource | None = None
        self.rdev = 0

    @property
    def kind(self) -> int:
        return self.mode & S_IFMT


class MemHandle:
    def __init__(self, fs: MemoryFs, node: Inode, readable: bool, writable: bool, append: bool) -> None:
        self.fs = fs
        self.node = node
        self.readable = readable
        self.writable = writable
        self.append = append
        self.pos = 0
        self._src: FileHandle | None = None

    def read(self, n: int = -1) -> bytes:
        if not self.readable:
            raise FsError(errno.EBADF)
        node = self.node
        node.atime_ns = self.fs.clock_ns()
        if node.data is None and node.source is not None:
            # stream from the source: a big lower file is never held whole
            if self._src is None:
                self._src = node.source.open()
            self._src.seek(self.pos)
            chunk = self._src.read(n)
            self.pos += len(chunk)
            return chunk
        data = self.fs._loaded(node)
        pos = self.pos
        end = len(data) if n < 0 else min(len(data), pos + n)
        chunk = bytes(data[pos:end])
        self.pos = max(pos, end)
        return chunk

    def write(self, chunk: bytes) -> int:
        if not self.writable:
            raise FsError(errno.EBADF)
        fs = self.fs
        with fs.lock:
            data = fs._materialise(self.node)
            if self.append:
                self.pos = len(data)
            pos = self.pos
            end = pos + len(chunk)
            growth = end - len(data)
            if growth > 0:
                fs.quota.charge(growth)
            if pos > len(data):
                data.extend(bytes(pos - len(data)))
            data[pos:end] = chunk
            self.pos = end
            self.node.mtime_ns = self.node.ctime_ns = fs.clock_ns()
        return len(chunk)

    def seek(self, pos: int, whence: int = 0) -> int:
        if whence == 0:
            self.pos = pos
        elif whence == 1:
            self.pos += pos
        else:
            self.pos = self.fs._size(self.node) + pos
        self.pos = max(self.pos, 0)
        return self.pos

    def truncate(self, size: int) -> None:
        if not self.writable:
            raise FsError(errno.EINVAL)
        self.fs._truncate_node(self.node, size)

    def close(self) -> None:
        if self._src is not None:
            self._src.close()
            self._src = None


class MemoryFs:
    """A complete POSIX-like filesystem held in memory."""

    fstype = "tmpfs"
    source_name = "sandbox"

    def __init__(
        self,
        files: Mapping[str, FileContent] | None = None,
        *,
        quota: DiskQuota | None = None,
        clock: Callable[[], float] = time.time,
        uid: int = 1000,
        gid: int = 1000,
    ) -> None:
        self.lock = _thread.RLock()
        self.clock = clock
        self.clock_ns = ns_clock(clock)
        self.quota = quota or DiskQuota()
        self._next_ino = 2
        self.root = Inode(S_IFDIR | 0o755, 2, uid, gid, self.clock_ns())
        self.root.entries = {}
        self.root.nlink = 2
        self.uid = uid
        self.gid = gid
        if files:
            for path, content in files.items():
                self.add_file(path, content)

    # ------------------------------------------------------------ helpers

    def _ino(self) -> int:
        self._next_ino += 1
        return self._next_ino

    def _walk(self, parts: Sequence[str]) -> Inode:
        node = self.root
        for name in parts:
            entries = node.entries
            if entries is None:
                raise FsError(errno.ENOTDIR if node.kind != S_IFLNK else errno.ELOOP)
            child = entries.get(name)
            if child is None:
                raise FsError(errno.ENOENT)
            node = child
        return node

    def _node(self, path: str) -> Inode:
        return self._walk(split_path(path))

    def _parent(self, path: str) -> tuple[dict[str, Inode], Inode, str]:
        parts = split_path(path)
        if not parts:
            raise FsError(errno.EEXIST)
        parent = self._walk(parts[:-1])
        if parent.entries is None:
            raise FsError(errno.ENOTDIR if parent.kind != S_IFLNK else errno.ELOOP)
        return parent.entries, parent, parts[-1]

    def _new(self, mode: int, uid: int, gid: int) -> Inode:
        return Inode(mode, self._ino(), uid, gid, self.clock_ns())

    def _loaded(self, node: Inode) -> bytearray:
        """The content for reading; an embedder's loader runs now (its bytes
        count against the quota but never fail the read)."""
        data = node.data
        if data is None:
            with self.lock:
                if node.data is None:
                    loader, node.loader = node.loader, None
                    raw = _to_bytes(loader()) if loader is not None else b""
                    self.quota.charge(len(raw), force=True)
                    node.data = bytearray(raw)
                data = node.data
        return data

    def _materialise(self, node: Inode, keep: int = -1) -> bytearray:
        """The content for changing: a streamed source is copied in (at most
        `keep` bytes when the caller truncates), charged strictly."""
        if node.data is None and node.source is not None:
            src = node.source
            want = src.size if keep < 0 else min(keep, src.size)
            self.quota.charge(want)
            h = src.open()
            try:
                buf = bytearray()
                while len(buf) < want:
                    chunk = h.read(min(1 << 20, want - len(buf)))
                    if not chunk:
                        break
                    buf += chunk
            except BaseException:
                self.quota.release(want)
                raise
            finally:
                h.close()
            self.quota.release(want - len(buf))
            node.data = buf
            node.source = None
        return self._loaded(node)

    def _size(self, node: Inode) -> int:
        kind = node.kind
        if kind == S_IFREG:
            if node.data is None and node.source is not None:
                return node.source.size
            return len(self._loaded(node))
        if kind == S_IFLNK:
            return name_cost(node.target or "")
        if kind == S_IFDIR:
            return 4096
        return 0

    def _held(self, node: Inode) -> int:
        """Bytes this inode holds against the quota."""
        if node.kind == S_IFREG:
            return len(node.data) if node.data is not None else 0
        if node.kind == S_IFLNK:
            return name_cost(node.target or "")
        return 0

    def _mkparents(self, parts: list[str], path: str) -> dict[str, Inode]:
        node = self.root
        for name in parts:
            assert node.entries is not None
            child = node.entries.get(name)
            if child is None:
                self.quota.charge(name_cost(name), 1)
                child = self._new(S_IFDIR | 0o755, self.uid, self.gid)
                child.entries = {}
                child.nlink = 2
                node.entries[name] = child
                node.nlink += 1
            node = child
            if node.entries is None:
                raise FsError(errno.ENOTDIR, path)
        assert node.entries is not None
        return node.entries

    def add_file(self, path: str, content: FileContent, mode: int = 0o644) -> None:
        """Create a file (and its parent directories) directly, for set-up."""
        parts = split_path(path)
        with self.lock:
            entries = self._mkparents(parts[:-1], path)
            f = self._new(S_IFREG | mode, self.uid, self.gid)
            if callable(content):
                f.loader = content
            else:
                raw = _to_bytes(content)
                self.quota.charge(len(raw))
                f.data = bytearray(raw)
            self.quota.charge(name_cost(parts[-1]), 1)
            old = entries.pop(parts[-1], None)
            if old is not None:
                self._drop(old, parts[-1])
            entries[parts[-1]] = f

    def add_device(self, path: str, rdev: int, mode: int = 0o666, uid: int = 0, gid: int = 0) -> None:
        with self.lock:
            entries, _, name = self._parent(path)
            node = self._new(S_IFCHR | mode, uid, gid)
            node.rdev = rdev
            entries[name] = node

    def add_source(self, path: str, source: FileSource, st: Stat) -> None:
        """A regular file whose content streams from `source` until changed."""
        with self.lock:
            entries, _, name = self._parent(path)
            if name in entries:
                raise FsError(errno.EEXIST)
            self.quota.charge(name_cost(name), 1)
            node = self._new(S_IFREG | (st.mode & 0o7777), st.uid, st.gid)
            node.source = source
            node.atime_ns, node.mtime_ns, node.ctime_ns = st.atime_ns, st.mtime_ns, st.ctime_ns
            entries[name] = node

    def _drop(self, node: Inode, name: str) -> None:
        """Account for a name removed from its directory."""
        node.nlink -= 1
        freed = name_cost(name)
        if node.nlink <= 0:
            freed += self._held(node)
        self.quota.release(freed, 1)

    # ------------------------------------------------------------ protocol

    def _stat(self, node: Inode) -> Stat:
        # positional: Stat's field order (mode size ino nlink uid gid atime_ns mtime_ns ctime_ns dev rdev),
        # a third of the keyword call's cost on every component of every path walk
        size = 4096 if node.entries is not None else self._size(node)
        return Stat(
            node.mode,
            size,
            node.ino,
            node.nlink,
            node.uid,
            node.gid,
            node.atime_ns,
            node.mtime_ns,
            node.ctime_ns,
            1,
            node.rdev,
        )

    def lstat(self, path: str) -> Stat:
        return self._stat(self._walk(split_path(path)))

    def device_root(self, name: str) -> Stat | None:
        """The lstat of the root when its entry `name` is a character device, else None: what a
        walk to /dev/NAME needs to know when this is /dev (Vfs.open of /dev/null and its kin)."""
        entries = self.root.entries
        child = None if entries is None else entries.get(name)
        if child is None or (child.mode & S_IFMT) != S_IFCHR:
            return None
        return self._stat(self.root)

    def lstat_chain(self, parts: list[str]) -> list[Stat | FsError]:
        """lstat of '/p0', '/p0/p1', ... (see base.lstat_chain) in one walk from the root
        instead of one walk per component."""
        out: list[Stat | FsError] = []
        node = self.root
        for name in parts:
            entries = node.entries
            if entries is None:  # (only the root can get here: a walk stops after a non-directory)
                out.append(FsError(errno.ENOTDIR))
                break
            child = entries.get(name)
            if child is None:
                out.append(FsError(errno.ENOENT))
                break
            out.append(self._stat(child))
            node = child
            if child.entries is None:
                break
        return out

    def lstat_many(self, path: str, names: list[str]) -> list[Stat | FsError]:
        """lstat of each entry `name` of the directory `path` (see base.lstat_many): the
        directory is walked to once, not once per entry."""
        node = self._node(path)
        entries = node.entries
        if entries is None:
            raise FsError(errno.ENOTDIR if node.kind != S_IFLNK else errno.ELOOP)
        out: list[Stat | FsError] = []
        for name in names:
            child = entries.get(name)
            out.append(FsError(errno.ENOENT) if child is None else self._stat(child))
        return out

    def readlink(self, path: str) -> str:
        node = self._node(path)
        if node.kind != S_IFLNK:
            raise FsError(errno.EINVAL)
        return node.target or ""

    def listdir(self, path: str) -> list[str]:
        node = self._node(path)
        if node.entries is None:
            raise FsError(errno.ENOTDIR)
        node.atime_ns = self.clock_ns()
        return list(node.entries)

    def walk_entry(self, parts: Sequence[str]) -> tuple[list[Inode], Inode | None] | None:
        """The directories '/p0', '/p0/p1', ... holding the last of `parts`, and that last
        entry itself (None when missing), for Vfs.open's walk without a Stat per name; None
        when a name on the way is missing or no directory (the general walk says why)."""
        dirs: list[Inode] = []
        node = self.root
        for name in parts[:-1]:
            child = node.entries.get(name) if node.entries is not None else None
            if child is None or (child.mode & S_IFMT) != S_IFDIR:
                return None
            dirs.append(child)
            node = child
        entries = node.entries
        if entries is None:
            return None
        return dirs, entries.get(parts[-1])

    def open(self, path: str, flags: str, mode: int, uid: int, gid: int) -> MemHandle:
        """flags: 'r', 'w' (truncate), 'a' (append), 'rw', 'x' (exclusive create)."""
        return self.open_parts(split_path(path), flags, mode, uid, gid)

    def open_parts(self, parts: Sequence[str], flags: str, mode: int, uid: int, gid: int) -> MemHandle:
        """open() of the path '/' + '/'.join(parts), already split."""
        if not parts:
            raise FsError(errno.EEXIST)
        with self.lock:
            parent = self._walk(parts[:-1])
            entries = parent.entries
            if entries is None:
                raise FsError(errno.ENOTDIR if parent.kind != S_IFLNK else errno.ELOOP)
            name = parts[-1]
            node = entries.get(name)
            if node is None:
                if flags == "r":
                    raise FsError(errno.ENOENT)
                self.quota.charge(name_cost(name), 1)
                node = self._new(S_IFREG | mode, uid, gid)
                node.data = bytearray()
                entries[name] = node
                parent.mtime_ns = parent.ctime_ns = self.clock_ns()
            else:
                if flags == "x":
                    raise FsError(errno.EEXIST)
                if node.kind == S_IFDIR:
                    raise FsError(errno.EISDIR)
                if node.kind == S_IFLNK:
                    raise FsError(errno.ELOOP)
                if flags == "w":
                    self._truncate_node(node, 0)
            return MemHandle(self, node, flags in ("r", "rw"), flags != "r", flags == "a")

    def _truncate_node(self, node: Inode, size: int) -> None:
        if node.kind != S_IFREG:
            raise FsError(errno.EISDIR if node.kind == S_IFDIR else errno.EINVAL)
        with self.lock:
            if node.data is None and node.source is not None and size == 0:
                node.source = None
                node.data = bytearray()
            data = self._materialise(node, size)
            if size < len(data):
                self.quota.release(len(data) - size)
                del data[size:]
            elif size > len(data):
                self.quota.charge(size - len(data))
                data.extend(bytes(size - len(data)))
            node.mtime_ns = node.ctime_ns = self.clock_ns()

    def truncate(self, path: str, size: int) -> None:
        self._truncate_node(self._node(path), size)

    def mkdir(self, path: str, mode: int, uid: int, gid: int) -> None:
        with self.lock:
            entries, parent, name = self._parent(path)
            if name in entries:
                raise FsError(errno.EEXIST)
            self.quota.charge(name_cost(name), 1)
            node = self._new(S_IFDIR | mode, uid, gid)
            node.entries = {}
            node.nlink = 2
            entries[name] = node
            parent.nlink += 1
            parent.mtime_ns = parent.ctime_ns = self.clock_ns()

    def rmdir(self, path: str) -> None:
        with self.lock:
            entries, parent, name = self._parent(path)
            node = entries.get(name)
            if node is None:
                raise FsError(errno.ENOENT)
            if node.entries is None:
                raise FsError(errno.ENOTDIR)
            if node.entries:
                raise FsError(errno.ENOTEMPTY)
            del entries[name]
            parent.nlink -= 1
            parent.mtime_ns = parent.ctime_ns = self.clock_ns()
            self.quota.release(name_cost(name), 1)

    def unlink(self, path: str) -> None:
        with self.lock:
            entries, parent, name = self._parent(path)
            node = entries.get(name)
            if node is None:
                raise FsError(errno.ENOENT)
            if node.kind == S_IFDIR:
                raise FsError(errno.EISDIR)
            del entries[name]
            parent.mtime_ns = parent.ctime_ns = self.clock_ns()
            self._drop(node, name)

    def rename(self, src: str, dst: str) -> None:
        with self.lock:
            sentries, sparent, sname = self._parent(src)
            dentries, dparent, dname = self._parent(dst)
            node = sentries.get(sname)
            if node is None:
                raise FsError(errno.ENOENT)
            existing = dentries.get(dname)
            if existing is node:
                return
            if node.kind == S_IFDIR and dst.startswith(src.rstrip("/") + "/"):
                raise FsError(errno.EINVAL)
            if existing is not None:
                check_replace(self.lstat(src), self.lstat(dst), not existing.entries)
            self.quota.adjust(name_cost(dname) - name_cost(sname))
            if existing is not None:
                if existing.kind == S_IFDIR:
                    dparent.nlink -= 1
                self._drop(existing, dname)
            del sentries[sname]
            dentries[dname] = node
            if node.kind == S_IFDIR and sparent is not dparent:
                sparent.nlink -= 1
                dparent.nlink += 1
            now = self.clock_ns()
            sparent.mtime_ns = sparent.ctime_ns = dparent.mtime_ns = dparent.ctime_ns = now
            node.ctime_ns = now

    def symlink(self, target: str, path: str, uid: int, gid: int) -> None:
        with self.lock:
            entries, parent, name = self._parent(path)
            if name in entries:
                raise FsError(errno.EEXIST)
            self.quota.charge(name_cost(name) + name_cost(target), 1)
            node = self._new(S_IFLNK | 0o777, uid, gid)
            node.target = target
            entries[name] = node
            parent.mtime_ns = parent.ctime_ns = self.clock_ns()

    def link(self, src: str, dst: str) -> None:
        with self.lock:
            node = self._node(src)
            if node.kind == S_IFDIR:
                raise FsError(errno.EPERM)
            entries, _, name = self._parent(dst)
            if name in entries:
                raise FsError(errno.EEXIST)
            self.quota.charge(name_cost(name), 1)
            entries[name] = node
            node.nlink += 1
            node.ctime_ns = self.clock_ns()

    def chmod(self, path: str, mode: int) -> None:
        node = self._node(path)
        node.mode = (node.mode & S_IFMT) | (mode & 0o7777)
        node.ctime_ns = self.clock_ns()

    def chown(self, path: str, uid: int, gid: int) -> None:
        node = self._node(path)
        if uid >= 0:
            node.uid = uid
        if gid >= 0:
            node.gid = gid
        node.ctime_ns = self.clock_ns()

    def utime(self, path: str, atime_ns: int, mtime_ns: int) -> None:
        node = self._node(path)
        node.atime_ns = atime_ns
        node.mtime_ns = mtime_ns
        node.ctime_ns = self.clock_ns()
