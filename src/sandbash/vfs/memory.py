"""The in-memory filesystem (the default backend).

Inodes hold directories (name -> inode), regular files (a bytearray, or a
loader called on first read), symbolic links and character devices. Hard
links share an inode. A `DiskQuota` bounds total bytes and entries.
"""

from __future__ import annotations

import errno
import threading
import time
from collections.abc import Callable, Mapping

from .base import S_IFCHR, S_IFDIR, S_IFLNK, S_IFMT, S_IFREG, Stat, split_path
from .errors import FsError

FileContent = bytes | str | Callable[[], bytes | str]


class DiskQuota:
    """Limits on a backend: bytes of content/targets/names and number of entries."""

    def __init__(self, max_bytes: int = 64 << 20, max_files: int = 10_000) -> None:
        self.max_bytes = max_bytes
        self.max_files = max_files
        self.used_bytes = 0
        self.used_files = 0

    def charge(self, nbytes: int, nfiles: int = 0) -> None:
        if nbytes > 0 and self.used_bytes + nbytes > self.max_bytes:
            raise FsError(errno.ENOSPC)
        if nfiles > 0 and self.used_files + nfiles > self.max_files:
            raise FsError(errno.ENOSPC)
        self.used_bytes += nbytes
        self.used_files += nfiles

    def release(self, nbytes: int, nfiles: int = 0) -> None:
        self.used_bytes = max(0, self.used_bytes - nbytes)
        self.used_files = max(0, self.used_files - nfiles)


class Inode:
    __slots__ = ("mode", "uid", "gid", "atime", "mtime", "ctime", "ino", "nlink", "data", "entries", "target", "loader",
                 "rdev")

    def __init__(self, mode: int, ino: int, uid: int, gid: int, now: float) -> None:
        self.mode = mode
        self.ino = ino
        self.uid = uid
        self.gid = gid
        self.atime = self.mtime = self.ctime = now
        self.nlink = 1
        self.data: bytearray | None = None
        self.entries: dict[str, Inode] | None = None
        self.target: str | None = None
        self.loader: Callable[[], bytes | str] | None = None
        self.rdev = 0

    @property
    def kind(self) -> int:
        return self.mode & S_IFMT

    def content(self) -> bytearray:
        if self.data is None:
            loader = self.loader
            self.loader = None
            raw = loader() if loader is not None else b""
            self.data = bytearray(raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else raw)
        return self.data

    def size(self) -> int:
        if self.kind == S_IFREG:
            return len(self.content())
        if self.kind == S_IFLNK:
            return len((self.target or "").encode("utf-8", "surrogateescape"))
        if self.kind == S_IFDIR:
            return 4096
        return 0


class MemHandle:
    def __init__(self, fs: MemoryFs, node: Inode, readable: bool, writable: bool, append: bool) -> None:
        self.fs = fs
        self.node = node
        self.readable = readable
        self.writable = writable
        self.append = append
        self.pos = 0

    def read(self, n: int = -1) -> bytes:
        if not self.readable:
            raise FsError(errno.EBADF)
        data = self.node.content()
        pos = self.pos
        end = len(data) if n < 0 else min(len(data), pos + n)
        chunk = bytes(data[pos:end])
        self.pos = max(pos, end)
        self.node.atime = self.fs.clock()
        return chunk

    def write(self, chunk: bytes) -> int:
        if not self.writable:
            raise FsError(errno.EBADF)
        data = self.node.content()
        with self.fs.lock:
            if self.append:
                self.pos = len(data)
            pos = self.pos
            end = pos + len(chunk)
            growth = end - len(data)
            if growth > 0:
                self.fs.quota.charge(growth)
            if pos > len(data):
                data.extend(bytes(pos - len(data)))
            data[pos:end] = chunk
            self.pos = end
            self.node.mtime = self.node.ctime = self.fs.clock()
        return len(chunk)

    def seek(self, pos: int, whence: int = 0) -> int:
        if whence == 0:
            self.pos = pos
        elif whence == 1:
            self.pos += pos
        else:
            self.pos = len(self.node.content()) + pos
        self.pos = max(self.pos, 0)
        return self.pos

    def truncate(self, size: int) -> None:
        self.fs._truncate_node(self.node, size)

    def close(self) -> None:
        pass


class MemoryFs:
    """A complete POSIX-like filesystem held in memory."""

    def __init__(
        self,
        files: Mapping[str, FileContent] | None = None,
        *,
        quota: DiskQuota | None = None,
        clock: Callable[[], float] = time.time,
        uid: int = 1000,
        gid: int = 1000,
    ) -> None:
        self.lock = threading.RLock()
        self.clock = clock
        self.quota = quota or DiskQuota()
        self._next_ino = 2
        self.root = Inode(S_IFDIR | 0o755, 2, uid, gid, clock())
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

    def _walk(self, parts: list[str]) -> Inode:
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

    def _parent(self, path: str) -> tuple[Inode, str]:
        parts = split_path(path)
        if not parts:
            raise FsError(errno.EEXIST if True else errno.EINVAL)
        parent = self._walk(parts[:-1])
        if parent.entries is None:
            raise FsError(errno.ENOTDIR)
        return parent, parts[-1]

    def _new(self, mode: int, uid: int, gid: int) -> Inode:
        return Inode(mode, self._ino(), uid, gid, self.clock())

    def add_file(self, path: str, content: FileContent, mode: int = 0o644) -> None:
        """Create a file (and its parent directories) directly, for set-up."""
        parts = split_path(path)
        node = self.root
        with self.lock:
            for name in parts[:-1]:
                assert node.entries is not None
                child = node.entries.get(name)
                if child is None:
                    child = self._new(S_IFDIR | 0o755, self.uid, self.gid)
                    child.entries = {}
                    child.nlink = 2
                    node.entries[name] = child
                    self.quota.charge(len(name), 1)
                node = child
                if node.entries is None:
                    raise FsError(errno.ENOTDIR, path)
            assert node.entries is not None
            f = self._new(S_IFREG | mode, self.uid, self.gid)
            if callable(content):
                f.loader = content
            else:
                raw = content.encode("utf-8", "surrogateescape") if isinstance(content, str) else bytes(content)
                f.data = bytearray(raw)
                self.quota.charge(len(raw))
            self.quota.charge(len(parts[-1]), 1)
            node.entries[parts[-1]] = f

    def add_device(self, path: str, rdev: int) -> None:
        parent, name = self._parent(path)
        assert parent.entries is not None
        node = self._new(S_IFCHR | 0o666, 0, 0)
        node.rdev = rdev
        parent.entries[name] = node

    # ------------------------------------------------------------ protocol

    def lstat(self, path: str) -> Stat:
        node = self._node(path)
        return Stat(
            mode=node.mode,
            size=node.size(),
            ino=node.ino,
            nlink=node.nlink,
            uid=node.uid,
            gid=node.gid,
            atime=node.atime,
            mtime=node.mtime,
            ctime=node.ctime,
            rdev=node.rdev,
        )

    def readlink(self, path: str) -> str:
        node = self._node(path)
        if node.kind != S_IFLNK:
            raise FsError(errno.EINVAL)
        return node.target or ""

    def listdir(self, path: str) -> list[str]:
        node = self._node(path)
        if node.entries is None:
            raise FsError(errno.ENOTDIR)
        node.atime = self.clock()
        return list(node.entries)

    def open(self, path: str, flags: str, mode: int, uid: int, gid: int) -> MemHandle:
        """flags: 'r', 'w' (truncate), 'a' (append), 'rw', 'x' (exclusive create)."""
        with self.lock:
            parent, name = self._parent(path)
            assert parent.entries is not None
            node = parent.entries.get(name)
            if node is None:
                if flags == "r":
                    raise FsError(errno.ENOENT)
                self.quota.charge(len(name), 1)
                node = self._new(S_IFREG | mode, uid, gid)
                node.data = bytearray()
                parent.entries[name] = node
                parent.mtime = parent.ctime = self.clock()
            else:
                if flags == "x":
                    raise FsError(errno.EEXIST)
                if node.kind == S_IFDIR:
                    raise FsError(errno.EISDIR)
                if node.kind == S_IFLNK:
                    raise FsError(errno.ELOOP)
                if flags == "w":
                    self._truncate_node(node, 0)
            readable = flags in ("r", "rw")
            writable = flags != "r"
            return MemHandle(self, node, readable, writable, flags == "a")

    def _truncate_node(self, node: Inode, size: int) -> None:
        with self.lock:
            data = node.content()
            if size < len(data):
                self.quota.release(len(data) - size)
                del data[size:]
            elif size > len(data):
                self.quota.charge(size - len(data))
                data.extend(bytes(size - len(data)))
            node.mtime = node.ctime = self.clock()

    def truncate(self, path: str, size: int) -> None:
        node = self._node(path)
        if node.kind == S_IFDIR:
            raise FsError(errno.EISDIR)
        self._truncate_node(node, size)

    def mkdir(self, path: str, mode: int, uid: int, gid: int) -> None:
        with self.lock:
            parent, name = self._parent(path)
            assert parent.entries is not None
            if name in parent.entries:
                raise FsError(errno.EEXIST)
            self.quota.charge(len(name), 1)
            node = self._new(S_IFDIR | mode, uid, gid)
            node.entries = {}
            node.nlink = 2
            parent.entries[name] = node
            parent.nlink += 1
            parent.mtime = parent.ctime = self.clock()

    def rmdir(self, path: str) -> None:
        with self.lock:
            parent, name = self._parent(path)
            assert parent.entries is not None
            node = parent.entries.get(name)
            if node is None:
                raise FsError(errno.ENOENT)
            if node.entries is None:
                raise FsError(errno.ENOTDIR)
            if node.entries:
                raise FsError(errno.ENOTEMPTY)
            del parent.entries[name]
            parent.nlink -= 1
            parent.mtime = parent.ctime = self.clock()
            self.quota.release(len(name), 1)

    def unlink(self, path: str) -> None:
        with self.lock:
            parent, name = self._parent(path)
            assert parent.entries is not None
            node = parent.entries.get(name)
            if node is None:
                raise FsError(errno.ENOENT)
            if node.kind == S_IFDIR:
                raise FsError(errno.EISDIR)
            del parent.entries[name]
            node.nlink -= 1
            parent.mtime = parent.ctime = self.clock()
            freed = len(name)
            if node.nlink <= 0:
                freed += node.size() if node.kind != S_IFCHR else 0
            self.quota.release(freed, 1)

    def rename(self, src: str, dst: str) -> None:
        with self.lock:
            sparent, sname = self._parent(src)
            dparent, dname = self._parent(dst)
            assert sparent.entries is not None and dparent.entries is not None
            node = sparent.entries.get(sname)
            if node is None:
                raise FsError(errno.ENOENT)
            if sparent is dparent and sname == dname:
                return
            existing = dparent.entries.get(dname)
            if node.kind == S_IFDIR:
                # a directory cannot move inside itself
                probe: Inode | None = dparent
                if self._is_ancestor(node, dparent):
                    raise FsError(errno.EINVAL)
                del probe
            if existing is not None:
                if existing.kind == S_IFDIR:
                    if node.kind != S_IFDIR:
                        raise FsError(errno.EISDIR)
                    if existing.entries:
                        raise FsError(errno.ENOTEMPTY)
                    dparent.nlink -= 1
                elif node.kind == S_IFDIR:
                    raise FsError(errno.ENOTDIR)
                existing.nlink -= 1
                freed = len(dname) + (existing.size() if existing.nlink <= 0 and existing.kind == S_IFREG else 0)
                self.quota.release(freed, 1)
            del sparent.entries[sname]
            dparent.entries[dname] = node
            self.quota.release(len(sname))
            self.quota.used_bytes += len(dname)
            if node.kind == S_IFDIR and sparent is not dparent:
                sparent.nlink -= 1
                dparent.nlink += 1
            now = self.clock()
            sparent.mtime = sparent.ctime = dparent.mtime = dparent.ctime = now
            node.ctime = now

    def _is_ancestor(self, node: Inode, candidate: Inode) -> bool:
        # walk the whole tree from node: is candidate inside it?
        if node is candidate:
            return True
        stack = [node]
        while stack:
            n = stack.pop()
            if n.entries:
                for child in n.entries.values():
                    if child is candidate:
                        return True
                    if child.entries is not None:
                        stack.append(child)
        return False

    def symlink(self, target: str, path: str, uid: int, gid: int) -> None:
        with self.lock:
            parent, name = self._parent(path)
            assert parent.entries is not None
            if name in parent.entries:
                raise FsError(errno.EEXIST)
            self.quota.charge(len(name) + len(target.encode("utf-8", "surrogateescape")), 1)
            node = self._new(S_IFLNK | 0o777, uid, gid)
            node.target = target
            parent.entries[name] = node
            parent.mtime = parent.ctime = self.clock()

    def link(self, src: str, dst: str) -> None:
        with self.lock:
            node = self._node(src)
            if node.kind == S_IFDIR:
                raise FsError(errno.EPERM)
            parent, name = self._parent(dst)
            assert parent.entries is not None
            if name in parent.entries:
                raise FsError(errno.EEXIST)
            self.quota.charge(len(name), 1)
            parent.entries[name] = node
            node.nlink += 1
            node.ctime = self.clock()

    def chmod(self, path: str, mode: int) -> None:
        node = self._node(path)
        node.mode = (node.mode & S_IFMT) | (mode & 0o7777)
        node.ctime = self.clock()

    def chown(self, path: str, uid: int, gid: int) -> None:
        node = self._node(path)
        if uid >= 0:
            node.uid = uid
        if gid >= 0:
            node.gid = gid
        node.ctime = self.clock()

    def utime(self, path: str, atime: float, mtime: float) -> None:
        node = self._node(path)
        node.atime = atime
        node.mtime = mtime
        node.ctime = self.clock()
