"""Host directory access confined to one root (the only module that calls `os`).

Every operation walks the path from an fd held on the root, one component at
a time, with `O_DIRECTORY | O_NOFOLLOW` and `dir_fd`: no host path string is
ever built, so `..` (never passed here), symlinks swapped in by a racing
writer and absolute link targets cannot lead outside the root. The last
component is acted on with `*at` calls that do not follow links.

The directory fds a walk opens go into a small LRU cache that is trimmed as
the walk goes, so a path of a thousand components holds a handful of fds,
not one per component. Pseudo-filesystems (procfs, sysfs and the like, found
by the device number of what was opened and the kernel's mount table) are
refused with EACCES unless the embedder allows them: `/proc/<pid>/environ`
of the embedding process is not a file of the tree.
"""

from __future__ import annotations

import _thread  # (threading's locks are _thread's: threading.py itself is ~0.8 ms of a start-up)
import errno
import os
import stat as st
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from .base import Stat, parent_name, split_path
from .errors import MESSAGES, FsError
from .quota import DiskQuota

_CACHED_DIRS = 64
# open host files one tree holds at once: a script opening files without end (`exec {fd}<f` in a
# loop) gets EMFILE here instead of using up the embedding process's descriptors
MAX_OPEN_FILES = 256
# kernel filesystems that show the host's processes, devices and settings rather than files
PSEUDO_FSTYPES = frozenset(
    {
        "proc",
        "sysfs",
        "devtmpfs",
        "devpts",
        "cgroup",
        "cgroup2",
        "securityfs",
        "debugfs",
        "tracefs",
        "configfs",
        "fusectl",
        "pstore",
        "bpf",
        "mqueue",
        "binfmt_misc",
        "efivarfs",
        "autofs",
        "rpc_pipefs",
        "nsfs",
        "selinuxfs",
        "hugetlbfs",
        "fuse.lxcfs",
    }
)
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
O_RDONLY = os.O_RDONLY
O_WRONLY = os.O_WRONLY
O_RDWR = os.O_RDWR
O_CREAT_EXCL = os.O_CREAT | os.O_EXCL
HostStat = os.stat_result


def host_error(e: OSError) -> FsError:
    if isinstance(e, FsError):
        return e
    code = e.errno if e.errno in MESSAGES else errno.EIO
    return FsError(code or errno.EIO)


def mount_types() -> dict[int, str] | None:
    """st_dev -> filesystem type of every mount this process sees (the kernel's
    mount table), or None when it cannot be read."""
    try:
        with open("/proc/self/mountinfo", "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    out: dict[int, str] = {}
    for line in text.splitlines():
        fields = line.split()
        try:
            sep = fields.index("-", 6)
            major, minor = fields[2].split(":")
            out[os.makedev(int(major), int(minor))] = fields[sep + 1]
        except (ValueError, IndexError):
            continue
    return out


def stays_inside(link: str, target: str) -> bool:
    """Whether a relative symlink target, read from the directory holding the
    link at `link` ('/a/b/l', relative to a root), never climbs above that
    root (lexically: '..' may not go past the top)."""
    depth = len(split_path(parent_name(link)[0]))
    for part in target.split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return False
        elif part not in ("", "."):
            depth += 1
    return True


def to_stat(s: os.stat_result, uid: int, gid: int) -> Stat:
    """A host stat as the sandbox sees it: files belong to the sandbox user."""
    return Stat(
        mode=s.st_mode,
        size=s.st_size,
        ino=s.st_ino,
        nlink=s.st_nlink,
        uid=uid,
        gid=gid,
        atime_ns=s.st_atime_ns,
        mtime_ns=s.st_mtime_ns,
        ctime_ns=s.st_ctime_ns,
        dev=s.st_dev,
        rdev=s.st_rdev,
    )


class HostHandle:
    """An open host file (from `HostTree.open_fd`, which counts it until closed).
    With a quota, growth is charged before each write."""

    def __init__(
        self, fd: int, quota: DiskQuota | None = None, append: bool = False, *, tree: HostTree | None = None
    ) -> None:
        self.fd = fd
        self.quota = quota
        self.append = append
        self.tree = tree

    def read(self, n: int = -1) -> bytes:
        try:
            if n >= 0:
                return os.read(self.fd, n)
            parts = []
            while chunk := os.read(self.fd, 1 << 20):
                parts.append(chunk)
            return b"".join(parts)
        except OSError as e:
            raise host_error(e)

    def write(self, data: bytes) -> int:
        fd = self.fd
        try:
            pos = os.lseek(fd, 0, os.SEEK_END if self.append else os.SEEK_CUR)
            growth = 0
            if self.quota is not None:
                growth = max(0, pos + len(data) - os.fstat(fd).st_size)
                self.quota.charge(growth)
            view = memoryview(data)
            done = 0
            try:
                while done < len(data):
                    done += os.write(fd, view[done:])
            except OSError:
                if self.quota is not None:
                    self.quota.release(max(0, pos + len(data) - os.fstat(fd).st_size))
                raise
            return done
        except OSError as e:
            raise host_error(e)

    def seek(self, pos: int, whence: int = 0) -> int:
        try:
            return os.lseek(self.fd, pos, whence)
        except OSError as e:
            raise host_error(e)

    def truncate(self, size: int) -> None:
        try:
            old = os.fstat(self.fd).st_size
            if self.quota is not None and size > old:
                self.quota.charge(size - old)
            os.ftruncate(self.fd, size)
            if self.quota is not None and size < old:
                self.quota.release(old - size)
        except OSError as e:
            raise host_error(e)

    def fstat(self) -> os.stat_result:
        return os.fstat(self.fd)

    def close(self) -> None:
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            os.close(fd)
            if self.tree is not None:
                self.tree.file_closed()

    def __del__(self) -> None:  # a handle dropped without close() still gives its fd back
        if getattr(self, "fd", -1) >= 0:
            self.close()


class HostTree:
    """Operations on paths ('/a/b', relative to the root) inside one host directory."""

    def __init__(self, root: str, *, allow_pseudo: bool = False) -> None:
        self.root_fd = -1
        self._dirs: OrderedDict[str, int] = OrderedDict()
        self._held: list[int] = []  # fds an operation is using: never trimmed under it
        self._lock = _thread.RLock()
        self._depth = 0
        self.allow_pseudo = allow_pseudo
        self._pseudo: dict[int, bool] = {}  # st_dev -> refused (a pseudo-filesystem)
        self.open_files = 0  # files opened by open_fd and not yet closed
        self.max_open_files = MAX_OPEN_FILES
        try:
            self.root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            self.real_root = os.path.realpath(root)
            self.root_dev = os.fstat(self.root_fd).st_dev
            if not allow_pseudo and self._is_pseudo(self.root_dev):
                raise FsError(errno.EACCES)  # `--root /proc`: a pseudo-filesystem as the root
        except OSError as e:
            self.close()
            raise FsError(host_error(e).code, root)
        self.root = root

    def _is_pseudo(self, dev: int) -> bool:
        """Whether the filesystem with this device number is a kernel pseudo-
        filesystem. An unknown device is one only when the mount table cannot
        be read and the device is anonymous (major 0, as procfs and sysfs are;
        btrfs subvolumes, unlisted in the table, pass when it can be read)."""
        known = self._pseudo.get(dev)
        if known is not None:
            return known
        types = mount_types()
        if types is None:
            bad = os.major(dev) == 0
        else:
            bad = types.get(dev, "") in PSEUDO_FSTYPES
        self._pseudo[dev] = bad
        return bad

    def _check_dev(self, dev: int) -> None:
        """Refuse what lies on a pseudo-filesystem, unless the embedder allowed them."""
        if dev != self.root_dev and not self.allow_pseudo and self._is_pseudo(dev):
            raise FsError(errno.EACCES)

    def close(self) -> None:
        self._forget()
        if self.root_fd >= 0:
            fd, self.root_fd = self.root_fd, -1
            os.close(fd)

    def __del__(self) -> None:
        try:
            self.close()
        except OSError:
            pass

    @contextmanager
    def at(self, path: str) -> Iterator[tuple[int, str]]:
        """(fd of the parent directory, last name); name is '' for the root.
        Operations are serialised: cached directory fds must not be closed
        (and their numbers reused) while another thread acts on them."""
        with self._lock:
            self._depth += 1
            held = len(self._held)
            try:
                fd, name = self._locate(path)
                self._held.append(fd)
                yield fd, name
            except OSError as e:
                raise host_error(e)
            finally:
                del self._held[held:]
                self._depth -= 1
                if self._depth == 0 and len(self._dirs) > _CACHED_DIRS:
                    self._trim()

    def _locate(self, path: str) -> tuple[int, str]:
        """`at` without the context manager, for the hot single-step calls:
        the caller holds the lock (and trims afterwards)."""
        head, _, name = path.rpartition("/")
        if name == "..":
            raise FsError(errno.EINVAL)  # never sent by the facade; never looked up here
        if head and name and name != "." and "//" not in path and "/./" not in path and path[0] == "/":
            # a clean '/a/b/c': the parent's cache key is 'a/b', as _dir spells it
            fd = self._dirs.get(head[1:])
            if fd is not None:
                self._dirs.move_to_end(head[1:])
                return fd, name
        parts = split_path(path)
        if not parts:
            return self.root_fd, ""
        name = parts.pop()
        if name == "..":
            raise FsError(errno.EINVAL)
        return self._dir(parts), name

    def _trim(self, keep: int = -1) -> None:
        """Close the least recently used directory fds down to the cache size,
        never one an operation holds (`_held`) nor `keep` (the walk's own)."""
        dirs = self._dirs
        spare: list[tuple[str, int]] = []
        while dirs and len(dirs) + len(spare) > _CACHED_DIRS:
            key, fd = dirs.popitem(last=False)
            if fd == keep or fd in self._held:
                spare.append((key, fd))
            else:
                os.close(fd)
        for key, fd in spare:
            dirs[key] = fd

    def _dir(self, parts: list[str]) -> int:
        """An fd on the directory `parts`, opened component by component
        from the deepest cached ancestor (never through a link). Each fd
        opened goes into the LRU cache, trimmed as the walk goes: a deep path
        holds at most the cache's fds, not one per component."""
        if not parts:
            return self.root_fd
        key = "/".join(parts)
        fd = self._dirs.get(key)
        if fd is not None:
            self._dirs.move_to_end(key)
            return fd
        # the deepest cached ancestor: cut the key back one component at a time
        depth = len(parts) - 1
        head = key
        fd = self.root_fd
        while depth > 0:
            head = head[: head.rfind("/")]
            cached = self._dirs.get(head)
            if cached is not None:
                fd = cached
                break
            depth -= 1
        prefix = head if depth > 0 else ""
        for name in parts[depth:]:
            fd = self._child(prefix, fd, name)
            prefix = f"{prefix}/{name}" if prefix else name
        return fd

    def _child(self, prefix: str, parent: int, name: str) -> int:
        """The cached fd of directory `prefix/name`, opened from `parent` (the
        fd of `prefix`) when not cached; the cache is trimmed around it."""
        key = f"{prefix}/{name}" if prefix else name
        fd = self._dirs.get(key)
        if fd is not None:
            self._dirs.move_to_end(key)
            return fd
        fd = self._open_dir(parent, name)
        self._dirs[key] = fd
        if len(self._dirs) > _CACHED_DIRS:
            self._trim(keep=fd)
        return fd

    def _open_dir(self, parent: int, name: str) -> int:
        if name == "..":
            raise FsError(errno.EINVAL)  # '..' would leave the directory: never looked up
        try:
            fd = os.open(name, _DIR, dir_fd=parent)
        except OSError as e:
            # a symlink where a directory should be: a race, or a link made on the host
            if e.errno == errno.ENOTDIR and st.S_ISLNK(
                os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
            ):
                raise FsError(errno.ELOOP)
            raise
        try:
            self._check_dev(os.fstat(fd).st_dev)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _forget(self) -> None:
        """Drop cached directory fds: a rename or rmdir may have moved what a path names."""
        while self._dirs:
            os.close(self._dirs.popitem()[1])

    def lstat(self, path: str) -> os.stat_result:
        # `at` inlined: the facade calls this once per path component
        with self._lock:
            try:
                fd, name = self._locate(path)
                return os.stat(name, dir_fd=fd, follow_symlinks=False) if name else os.fstat(fd)
            except OSError as e:
                raise host_error(e)
            finally:
                if self._depth == 0 and len(self._dirs) > _CACHED_DIRS:
                    self._trim()

    def readlink(self, path: str) -> str:
        with self.at(path) as (fd, name):
            if not name:
                raise FsError(errno.EINVAL)
            return os.readlink(name, dir_fd=fd)

    def inside_target(self, path: str) -> str:
        """The target of the host symlink `path` as the tree shows it: a
        relative target that stays inside the root as it is, an absolute one
        inside the root made relative (so it points inside wherever the tree
        is mounted). Any other is refused with EACCES: where it points on the
        host is not the sandbox's to see or follow."""
        target = self.readlink(path)
        if not target.startswith("/"):
            if not stays_inside(path, target):
                raise FsError(errno.EACCES)
            return target
        root = self.real_root.rstrip("/")
        if target != root and not target.startswith(root + "/"):
            raise FsError(errno.EACCES)
        inside = target[len(root) :].lstrip("/")
        return ("../" * len(split_path(parent_name(path)[0])) + inside) or "."

    def listdir(self, path: str) -> list[str]:
        with self.at(path) as (fd, name):
            if not name:
                return os.listdir(fd)
            dfd = self._open_dir(fd, name)
            try:
                return os.listdir(dfd)
            finally:
                os.close(dfd)

    def lstat_chain(self, parts: list[str]) -> list[os.stat_result | FsError]:
        """lstat of '/p0', '/p0/p1', ... (fstatat without following links, from
        the directory fds `_dir` opens with O_NOFOLLOW), stopping after the
        first entry that is not a directory or fails. May stop early without
        an error (a name that is not a plain entry name, a directory that
        cannot be opened): the caller then looks the rest up one by one."""
        out: list[os.stat_result | FsError] = []
        last = len(parts) - 1
        with self._lock:
            self._depth += 1
            try:
                fd = self.root_fd
                prefix = ""
                for i, name in enumerate(parts):
                    if not name or name in (".", "..") or "/" in name or "\0" in name:
                        break
                    try:
                        s = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    except OSError as e:
                        out.append(host_error(e))
                        break
                    out.append(s)
                    if i == last or not st.S_ISDIR(s.st_mode):
                        break
                    try:  # one step down from the fd in hand (the cache keeps a few, not all)
                        fd = self._child(prefix, fd, name)
                    except OSError:
                        break
                    prefix = f"{prefix}/{name}" if prefix else name
            finally:
                self._depth -= 1
                if self._depth == 0 and len(self._dirs) > _CACHED_DIRS:
                    self._trim()
        return out

    def lstat_many(self, path: str, names: list[str]) -> list[os.stat_result | FsError]:
        """lstat of each entry `name` of the directory `path`, through one fd
        on that directory (opened like any other, never through a link); each
        entry is looked up with fstatat(AT_SYMLINK_NOFOLLOW). Names must be
        plain entry names: one holding '/', or '.', '..' or '', gets EINVAL."""
        with self.at(path) as (fd, name):
            dfd = self._open_dir(fd, name) if name else fd
            try:
                out: list[os.stat_result | FsError] = []
                for n in names:
                    if not n or n in (".", "..") or "/" in n or "\0" in n:
                        out.append(FsError(errno.EINVAL))
                        continue
                    try:
                        out.append(os.stat(n, dir_fd=dfd, follow_symlinks=False))
                    except OSError as e:
                        out.append(host_error(e))
                return out
            finally:
                if name:
                    os.close(dfd)

    def open_fd(self, path: str, flags: int, mode: int = 0o644) -> int:
        """Open a regular file (never a link, FIFO or device). The fd counts
        against `max_open_files` until `file_closed()` (HostHandle.close)."""
        with self.at(path) as (fd, name):
            if not name:
                raise FsError(errno.EISDIR)
            if self.open_files >= self.max_open_files:
                raise FsError(errno.EMFILE)
            ffd = os.open(name, flags | _FILE, mode, dir_fd=fd)
            try:
                fs = os.fstat(ffd)
                self._check_dev(fs.st_dev)  # a pseudo-filesystem mounted on a file
                kind = fs.st_mode
                if not st.S_ISREG(kind):
                    raise FsError(errno.EISDIR if st.S_ISDIR(kind) else errno.ENXIO)
                if flags & os.O_CREAT and kind & 0o7777 != mode:
                    os.fchmod(ffd, mode)  # the host umask must not change the sandbox's mode
            except BaseException:
                os.close(ffd)
                raise
            self.open_files += 1
            return ffd

    def file_closed(self) -> None:
        with self._lock:
            self.open_files -= 1

    def mkdir(self, path: str, mode: int) -> None:
        with self.at(path) as (fd, name):
            if not name:
                raise FsError(errno.EEXIST)
            os.mkdir(name, mode, dir_fd=fd)
            self._chmod_at(fd, name, mode)

    def rmdir(self, path: str) -> None:
        with self.at(path) as (fd, name):
            if not name:
                raise FsError(errno.EBUSY)
            os.rmdir(name, dir_fd=fd)
            self._forget()

    def unlink(self, path: str) -> None:
        with self.at(path) as (fd, name):
            if not name:
                raise FsError(errno.EISDIR)
            os.unlink(name, dir_fd=fd)

    def rename(self, src: str, dst: str) -> None:
        with self.at(src) as (sfd, sname), self.at(dst) as (dfd, dname):
            if not sname or not dname:
                raise FsError(errno.EBUSY)
            os.rename(sname, dname, src_dir_fd=sfd, dst_dir_fd=dfd)
            self._forget()

    def symlink(self, target: str, path: str) -> None:
        with self.at(path) as (fd, name):
            if not name:
                raise FsError(errno.EEXIST)
            os.symlink(target, name, dir_fd=fd)

    def link(self, src: str, dst: str) -> None:
        with self.at(src) as (sfd, sname), self.at(dst) as (dfd, dname):
            if not sname or not dname:
                raise FsError(errno.EPERM if not sname else errno.EEXIST)
            os.link(sname, dname, src_dir_fd=sfd, dst_dir_fd=dfd, follow_symlinks=False)

    def chmod(self, path: str, mode: int) -> None:
        with self.at(path) as (fd, name):
            if not name:
                os.fchmod(fd, mode)
            else:
                self._chmod_at(fd, name, mode)

    @staticmethod
    def _chmod_at(fd: int, name: str, mode: int) -> None:
        # fchmodat cannot refuse links on Linux: chmod the inode an O_PATH fd holds
        pfd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
        try:
            if st.S_ISLNK(os.fstat(pfd).st_mode):
                raise FsError(errno.EOPNOTSUPP)
            try:
                os.chmod(f"/proc/self/fd/{pfd}", mode)
            except FileNotFoundError:  # no /proc: open the inode for real
                rfd = os.open(name, os.O_RDONLY | _FILE, dir_fd=fd)
                try:
                    os.fchmod(rfd, mode)
                finally:
                    os.close(rfd)
        finally:
            os.close(pfd)

    def utime(self, path: str, atime_ns: int, mtime_ns: int) -> None:
        ns = (atime_ns, mtime_ns)
        with self.at(path) as (fd, name):
            if not name:
                os.utime(fd, ns=ns)
            else:
                os.utime(name, ns=ns, dir_fd=fd, follow_symlinks=False)


class HostSource:
    """A host file's content, opened afresh for each reader (streamed)."""

    def __init__(self, tree: HostTree, path: str, size: int) -> None:
        self.tree = tree
        self.path = path
        self.size = size

    def open(self) -> HostHandle:
        return HostHandle(self.tree.open_fd(self.path, O_RDONLY), tree=self.tree)
