"""The filesystem facade every command and redirection goes through.

`Vfs` owns a backend, the devices under /dev and the permission model (a
non-root user). `FsView` is a Vfs seen from a working directory: commands get
one, so relative paths work and each subshell can `cd` on its own.

Path resolution happens here, one component at a time, following symbolic
links (at most 40) before the backend sees a path: backends only ever get
paths without links in their parent components.
"""

from __future__ import annotations

import errno
import random
import time
from collections.abc import Callable, Iterator

from ..stdio.streams import FullStream, NullStream, RandomStream, Stream, ZeroStream
from .base import S_IFCHR, S_IFDIR, S_IFMT, Backend, FileHandle, Stat, normpath, split_path
from .errors import FsError
from .memory import MemoryFs

MAX_SYMLINKS = 40
MAX_NAME = 255
MAX_PATH = 4096
DEVICES = {"null": 0x103, "zero": 0x105, "full": 0x107, "random": 0x108, "urandom": 0x109}
# Gate signature: (action, canonical path) -> None, raising FsError(EACCES) to refuse
Gate = Callable[[str, str], None]


class FileStream(Stream):
    """A stream over an open regular file."""

    def __init__(self, handle: FileHandle, readable: bool, writable: bool, path: str = "") -> None:
        super().__init__()
        self.handle = handle
        self.readable = readable
        self.writable = writable
        self.path = path

    def _fill(self, n: int) -> bytes:
        return self.handle.read(n)

    def write(self, data: bytes) -> None:
        if data:
            self.handle.write(data)

    def seek_start(self) -> None:
        self.handle.seek(0)
        self._rbuf = b""

    def close(self) -> None:
        self.handle.close()


class Vfs:
    def __init__(
        self,
        backend: Backend | None = None,
        *,
        uid: int = 1000,
        gid: int = 1000,
        clock: Callable[[], float] = time.time,
        seed: int | None = None,
    ) -> None:
        self.backend: Backend = backend if backend is not None else MemoryFs(clock=clock, uid=uid, gid=gid)
        self.uid = uid
        self.gid = gid
        self.clock = clock
        self.rng = random.Random(seed)
        self.gate: Gate | None = None
        self.checkpoint: Callable[[], None] | None = None
        self._ensure_dev()

    def _ensure_dev(self) -> None:
        be = self.backend
        if isinstance(be, MemoryFs):
            try:
                be.lstat("/dev")
            except FsError:
                be.mkdir("/dev", 0o755, 0, 0)
            for name, rdev in DEVICES.items():
                try:
                    be.lstat("/dev/" + name)
                except FsError:
                    be.add_device("/dev/" + name, rdev)
            for name in ("fd",):
                try:
                    be.lstat("/dev/" + name)
                except FsError:
                    be.mkdir("/dev/" + name, 0o755, 0, 0)

    def view(self, cwd: str = "/", umask: int = 0o022) -> FsView:
        return FsView(self, cwd, umask)

    def random_bytes(self, n: int) -> bytes:
        return self.rng.randbytes(n)

    # ------------------------------------------------------------ resolution

    def _check_name(self, path: str) -> None:
        if "\0" in path:
            raise FsError(errno.EINVAL, path)
        if len(path.encode("utf-8", "surrogateescape")) > MAX_PATH:
            raise FsError(errno.ENAMETOOLONG, path)

    def resolve(self, path: str, follow: bool = True, must_exist: bool = False) -> str:
        """Canonical absolute path: symlinks in parents always followed, the last
        component followed when `follow`. `path` must be absolute."""
        self._check_name(path)
        be = self.backend
        todo = split_path(path)
        todo.reverse()
        done: list[str] = []
        hops = 0
        while todo:
            name = todo.pop()
            if name == "..":
                if done:
                    done.pop()
                continue
            if len(name.encode("utf-8", "surrogateescape")) > MAX_NAME:
                raise FsError(errno.ENAMETOOLONG, path)
            candidate = "/" + "/".join(done + [name]) if done else "/" + name
            last = not todo
            if last and not follow:
                done.append(name)
                break
            try:
                st = be.lstat(candidate)
            except FsError as e:
                if e.code == errno.ENOENT and last and not must_exist:
                    done.append(name)
                    break
                raise FsError(e.code, path)
            if (st.mode & S_IFMT) == 0o120000:
                hops += 1
                if hops > MAX_SYMLINKS:
                    raise FsError(errno.ELOOP, path)
                target = be.readlink(candidate)
                if target.startswith("/"):
                    done = []
                parts = split_path(target)
                parts.reverse()
                todo.extend(parts)
                continue
            if not last:
                if (st.mode & S_IFMT) != S_IFDIR:
                    raise FsError(errno.ENOTDIR, path)
                self._need(st, 1, path)
            done.append(name)
        return "/" + "/".join(done)

    def _need(self, st: Stat, bit: int, path: str) -> None:
        """Permission check for the sandbox user: bit 4=r, 2=w, 1=x."""
        mode = st.mode
        if st.uid == self.uid:
            ok = mode & (bit << 6)
        elif st.gid == self.gid:
            ok = mode & (bit << 3)
        else:
            ok = mode & bit
        if not ok:
            raise FsError(errno.EACCES, path)

    def _gate(self, action: str, path: str) -> None:
        if self.gate is not None:
            self.gate(action, path)

    def _parent_writable(self, canon: str, path: str) -> None:
        parent = canon.rsplit("/", 1)[0] or "/"
        try:
            st = self.backend.lstat(parent)
        except FsError as e:
            raise FsError(e.code, path)
        if (st.mode & S_IFMT) != S_IFDIR:
            raise FsError(errno.ENOTDIR, path)
        self._need(st, 2, path)
        self._need(st, 1, path)

    # ------------------------------------------------------------ queries

    def stat(self, path: str) -> Stat:
        canon = self.resolve(path, must_exist=True)
        self._gate("stat", canon)
        try:
            return self.backend.lstat(canon)
        except FsError as e:
            raise FsError(e.code, path)

    def lstat(self, path: str) -> Stat:
        canon = self.resolve(path, follow=False)
        self._gate("stat", canon)
        try:
            return self.backend.lstat(canon)
        except FsError as e:
            raise FsError(e.code, path)

    def exists(self, path: str) -> bool:
        try:
            self.stat(path)
            return True
        except FsError:
            return False

    def readlink(self, path: str) -> str:
        canon = self.resolve(path, follow=False)
        try:
            return self.backend.readlink(canon)
        except FsError as e:
            raise FsError(e.code, path)

    def listdir(self, path: str) -> list[str]:
        canon = self.resolve(path, must_exist=True)
        self._gate("list", canon)
        try:
            st = self.backend.lstat(canon)
            if (st.mode & S_IFMT) != S_IFDIR:
                raise FsError(errno.ENOTDIR, path)
            self._need(st, 4, path)
            return self.backend.listdir(canon)
        except FsError as e:
            raise FsError(e.code, path)

    # ------------------------------------------------------------ opening

    def open(self, path: str, flags: str = "r", mode: int = 0o666, umask: int = 0o022) -> Stream:
        """Open a file as a stream. flags: r, w, a, rw, x (exclusive create)."""
        canon = self.resolve(path, follow=True)
        be = self.backend
        try:
            st: Stat | None = be.lstat(canon)
        except FsError as e:
            if e.code != errno.ENOENT:
                raise FsError(e.code, path)
            st = None
        if st is not None and (st.mode & S_IFMT) == S_IFCHR:
            return self._device(canon, path)
        if st is None:
            if flags == "r":
                raise FsError(errno.ENOENT, path)
            self._gate("create", canon)
            self._parent_writable(canon, path)
        else:
            if (st.mode & S_IFMT) == S_IFDIR:
                raise FsError(errno.EISDIR, path)
            if flags == "x":
                raise FsError(errno.EEXIST, path)
            if flags in ("r", "rw"):
                self._gate("read", canon)
                self._need(st, 4, path)
            if flags != "r":
                self._gate("write", canon)
                self._need(st, 2, path)
        try:
            handle = be.open(canon, flags, mode & ~umask & 0o7777, self.uid, self.gid)
        except FsError as e:
            raise FsError(e.code, path)
        return FileStream(handle, flags in ("r", "rw"), flags != "r", canon)

    def _device(self, canon: str, path: str) -> Stream:
        name = canon.rsplit("/", 1)[-1]
        if canon == "/dev/null":
            return NullStream()
        if canon == "/dev/zero":
            return ZeroStream(self.checkpoint)
        if canon == "/dev/full":
            return FullStream(self.checkpoint)
        if name in ("random", "urandom"):
            return RandomStream(self.random_bytes, self.checkpoint)
        raise FsError(errno.ENXIO, path)

    def read_bytes(self, path: str) -> bytes:
        stream = self.open(path, "r")
        try:
            return stream.read()
        finally:
            stream.close()

    def write_bytes(self, path: str, data: bytes, append: bool = False, umask: int = 0o022) -> None:
        stream = self.open(path, "a" if append else "w", umask=umask)
        try:
            stream.write(data)
        finally:
            stream.close()

    # ------------------------------------------------------------ changes

    def mkdir(self, path: str, mode: int = 0o777, umask: int = 0o022) -> None:
        canon = self.resolve(path, follow=False)
        if canon == "/":
            raise FsError(errno.EEXIST, path)
        self._gate("create", canon)
        self._parent_writable(canon, path)
        try:
            self.backend.mkdir(canon, mode & ~umask & 0o7777, self.uid, self.gid)
        except FsError as e:
            raise FsError(e.code, path)

    def rmdir(self, path: str) -> None:
        canon = self.resolve(path, follow=False)
        if canon == "/":
            raise FsError(errno.EBUSY, path)
        self._gate("delete", canon)
        try:
            st = self.backend.lstat(canon)
        except FsError as e:
            raise FsError(e.code, path)
        if (st.mode & S_IFMT) != S_IFDIR:
            raise FsError(errno.ENOTDIR, path)
        self._parent_writable(canon, path)
        try:
            self.backend.rmdir(canon)
        except FsError as e:
            raise FsError(e.code, path)

    def unlink(self, path: str) -> None:
        canon = self.resolve(path, follow=False)
        self._gate("delete", canon)
        try:
            st = self.backend.lstat(canon)
        except FsError as e:
            raise FsError(e.code, path)
        if (st.mode & S_IFMT) == S_IFDIR:
            raise FsError(errno.EISDIR, path)
        self._parent_writable(canon, path)
        try:
            self.backend.unlink(canon)
        except FsError as e:
            raise FsError(e.code, path)

    def rename(self, src: str, dst: str) -> None:
        csrc = self.resolve(src, follow=False)
        cdst = self.resolve(dst, follow=False)
        self._gate("rename", csrc)
        self._gate("rename", cdst)
        try:
            self.backend.lstat(csrc)
        except FsError as e:
            raise FsError(e.code, src)
        self._parent_writable(csrc, src)
        self._parent_writable(cdst, dst)
        if cdst == csrc:
            return
        if cdst.startswith(csrc + "/"):
            raise FsError(errno.EINVAL, dst)
        try:
            self.backend.rename(csrc, cdst)
        except FsError as e:
            raise FsError(e.code, dst if e.code in (errno.EISDIR, errno.ENOTEMPTY, errno.ENOTDIR) else src)

    def symlink(self, target: str, path: str) -> None:
        canon = self.resolve(path, follow=False)
        self._gate("create", canon)
        self._parent_writable(canon, path)
        try:
            self.backend.symlink(target, canon, self.uid, self.gid)
        except FsError as e:
            raise FsError(e.code, path)

    def link(self, src: str, dst: str) -> None:
        csrc = self.resolve(src, follow=False)
        cdst = self.resolve(dst, follow=False)
        self._gate("create", cdst)
        self._parent_writable(cdst, dst)
        try:
            self.backend.link(csrc, cdst)
        except FsError as e:
            raise FsError(e.code, src if e.code == errno.ENOENT else dst)

    def chmod(self, path: str, mode: int, follow: bool = True) -> None:
        canon = self.resolve(path, follow=follow, must_exist=True)
        self._gate("chmod", canon)
        try:
            st = self.backend.lstat(canon)
            if st.uid != self.uid:
                raise FsError(errno.EPERM, path)
            self.backend.chmod(canon, mode)
        except FsError as e:
            raise FsError(e.code, path)

    def chown(self, path: str, uid: int, gid: int, follow: bool = True) -> None:
        canon = self.resolve(path, follow=follow, must_exist=True)
        self._gate("chmod", canon)
        try:
            st = self.backend.lstat(canon)
            # an unprivileged user may only "change" to the same owner
            if (uid >= 0 and uid != st.uid) or st.uid != self.uid:
                raise FsError(errno.EPERM, path)
            self.backend.chown(canon, uid, gid)
        except FsError as e:
            raise FsError(e.code, path)

    def utime(self, path: str, atime: float | None = None, mtime: float | None = None, follow: bool = True) -> None:
        canon = self.resolve(path, follow=follow, must_exist=True)
        self._gate("write", canon)
        now = self.clock()
        try:
            st = self.backend.lstat(canon)
            self.backend.utime(canon, st.atime if atime is None else atime, st.mtime if mtime is None else mtime)
        except FsError as e:
            raise FsError(e.code, path)
        del now

    def truncate(self, path: str, size: int) -> None:
        canon = self.resolve(path, must_exist=True)
        self._gate("write", canon)
        try:
            st = self.backend.lstat(canon)
            self._need(st, 2, path)
            self.backend.truncate(canon, size)
        except FsError as e:
            raise FsError(e.code, path)


class FsView:
    """A Vfs seen from a working directory, with the shell's umask."""

    __slots__ = ("vfs", "cwd", "umask")

    def __init__(self, vfs: Vfs, cwd: str = "/", umask: int = 0o022) -> None:
        self.vfs = vfs
        self.cwd = cwd
        self.umask = umask

    def copy(self) -> FsView:
        return FsView(self.vfs, self.cwd, self.umask)

    def abspath(self, path: str) -> str:
        if not path.startswith("/"):
            path = self.cwd.rstrip("/") + "/" + path
        return path

    def normpath(self, path: str) -> str:
        return normpath(self.abspath(path))

    def resolve(self, path: str, follow: bool = True, must_exist: bool = False) -> str:
        return self.vfs.resolve(self.abspath(path), follow, must_exist)

    def realpath(self, path: str) -> str:
        return self.vfs.resolve(self.abspath(path), True, True)

    def stat(self, path: str) -> Stat:
        return self.vfs.stat(self.abspath(path))

    def lstat(self, path: str) -> Stat:
        return self.vfs.lstat(self.abspath(path))

    def try_stat(self, path: str) -> Stat | None:
        try:
            return self.vfs.stat(self.abspath(path))
        except FsError:
            return None

    def try_lstat(self, path: str) -> Stat | None:
        try:
            return self.vfs.lstat(self.abspath(path))
        except FsError:
            return None

    def exists(self, path: str) -> bool:
        return self.try_stat(path) is not None

    def access(self, path: str, bits: int) -> bool:
        """Whether the sandbox user may read (4), write (2) or search/execute (1)."""
        st = self.try_stat(path)
        if st is None:
            return False
        try:
            self.vfs._need(st, bits, path)
        except FsError:
            return False
        return True

    def is_dir(self, path: str) -> bool:
        st = self.try_stat(path)
        return st is not None and st.is_dir

    def is_file(self, path: str) -> bool:
        st = self.try_stat(path)
        return st is not None and st.is_file

    def readlink(self, path: str) -> str:
        return self.vfs.readlink(self.abspath(path))

    def listdir(self, path: str) -> list[str]:
        return self.vfs.listdir(self.abspath(path))

    def open(self, path: str, flags: str = "r") -> Stream:
        return self.vfs.open(self.abspath(path), flags, umask=self.umask)

    def read_bytes(self, path: str) -> bytes:
        return self.vfs.read_bytes(self.abspath(path))

    def write_bytes(self, path: str, data: bytes, append: bool = False) -> None:
        self.vfs.write_bytes(self.abspath(path), data, append, umask=self.umask)

    def mkdir(self, path: str, mode: int = 0o777, parents: bool = False) -> None:
        full = self.abspath(path)
        if not parents:
            self.vfs.mkdir(full, mode, self.umask)
            return
        parts = split_path(normpath(full))
        cur = ""
        for i, name in enumerate(parts):
            cur += "/" + name
            st = self.try_stat(cur)
            if st is not None:
                if not st.is_dir:
                    raise FsError(errno.ENOTDIR if i < len(parts) - 1 else errno.EEXIST, path)
                continue
            self.vfs.mkdir(cur, mode if i == len(parts) - 1 else 0o777, self.umask)

    def rmdir(self, path: str) -> None:
        self.vfs.rmdir(self.abspath(path))

    def unlink(self, path: str) -> None:
        self.vfs.unlink(self.abspath(path))

    def rename(self, src: str, dst: str) -> None:
        self.vfs.rename(self.abspath(src), self.abspath(dst))

    def symlink(self, target: str, path: str) -> None:
        self.vfs.symlink(target, self.abspath(path))

    def link(self, src: str, dst: str) -> None:
        self.vfs.link(self.abspath(src), self.abspath(dst))

    def chmod(self, path: str, mode: int, follow: bool = True) -> None:
        self.vfs.chmod(self.abspath(path), mode, follow)

    def chown(self, path: str, uid: int, gid: int, follow: bool = True) -> None:
        self.vfs.chown(self.abspath(path), uid, gid, follow)

    def utime(self, path: str, atime: float | None = None, mtime: float | None = None, follow: bool = True) -> None:
        self.vfs.utime(self.abspath(path), atime, mtime, follow)

    def truncate(self, path: str, size: int) -> None:
        self.vfs.truncate(self.abspath(path), size)

    def walk(self, top: str) -> Iterator[tuple[str, list[str], list[str]]]:
        """Like os.walk (top-down, no symlink following)."""
        stack = [top]
        while stack:
            d = stack.pop()
            try:
                names = sorted(self.listdir(d))
            except FsError:
                continue
            dirs: list[str] = []
            files: list[str] = []
            for n in names:
                p = d.rstrip("/") + "/" + n
                st = self.try_lstat(p)
                if st is not None and st.is_dir:
                    dirs.append(n)
                else:
                    files.append(n)
            yield d, dirs, files
            for n in reversed(dirs):
                stack.append(d.rstrip("/") + "/" + n)
