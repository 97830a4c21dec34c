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
import time
from collections.abc import Callable, Iterator

from ..stdio.streams import Stream, StreamError
from .base import (
    S_IFCHR,
    S_IFDIR,
    S_IFLNK,
    S_IFMT,
    Backend,
    FileHandle,
    Stat,
    normpath,
    parent_name,
    split_path,
)
from .bindir import FSTYPE as BIN_FSTYPE
from .devices import DEVICES, make_devfs, open_device
from .errors import FsError
from .memory import Inode, MemoryFs
from .mount import MountFs, MountInfo
from .ops import FileOp

TYPE_CHECKING = False
if TYPE_CHECKING:
    import random
    from typing import Any

MAX_SYMLINKS = 40
_READ, _CREATE, _WRITE = FileOp.READ, FileOp.CREATE, FileOp.WRITE  # (the hot paths' actions)
_DEVICE_PATHS = frozenset("/dev/" + name for name in DEVICES)  # (Vfs._open_device)
_PLAIN_MAX = 256  # paths whose _plain_parts a Vfs keeps (then it starts again)
MAX_NAME = 255
MAX_PATH = 4096
# Gate signature: (action, canonical path) -> None, raising FsError(EACCES) to refuse
Gate = Callable[[FileOp, str], None]


def _strip_slash(path: str) -> tuple[str, bool]:
    """`path` without its trailing slashes, and whether it had any ('/' stays itself)."""
    bare = path.rstrip("/")
    if bare and bare != path:
        return bare, True
    return path, False


def _plain_parts(path: str) -> tuple[tuple[str, ...], str]:
    """The names of `path` and its canonical form when Vfs._open_mem may take it: no NUL,
    '..', '/.' or trailing slash, at most 32 names of at most 63 characters (longer ones are
    the general walk's to measure); else no names. Lexical only: the same for every tree."""
    if "\0" in path or len(path) > MAX_PATH // 4 or path[-1:] == "/" or path.endswith("/."):
        return (), ""
    todo = split_path(path)
    if not todo or len(todo) > 32 or ".." in todo or max(map(len, todo)) > 63:
        return (), ""
    return tuple(todo), "/" + "/".join(todo)


class _SlashNotDir(FsError):
    """ENOTDIR because a trailing slash (the path's, or a last link target's)
    asked for a directory: opening to create answers EISDIR instead."""


def _walk_error(code: int, path: str, walked: str) -> FsError:
    """A failure of the walk over `path`, which stopped at the canonical `walked`."""
    err = FsError(code, path)
    err.walked = walked
    return err


class FileWriteError(FsError, StreamError):
    """A write to an open file that failed (a full filesystem: ENOSPC): a file's error to a command
    that writes files it opened itself (`cp: error writing 'b'`), the writer's write error to the one
    whose standard output it is (`seq: write error: ...`, as write(2)'s failure reads in GNU's
    tools; as a plain file error it named no file: `seq: : No space left on device`)."""


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
            try:
                self.handle.write(data)
            except FsError as e:
                failed = FileWriteError(e.code, self.path)
                failed.size = len(data)
                raise failed from None

    def seek_start(self) -> None:
        self.handle.seek(0)
        self._drop_read_ahead()

    def tell(self) -> int:
        """Where the next read starts in the file (what was read ahead is not yet read)."""
        return self.handle.seek(0, 1) - self.buffered()

    def reposition(self, pos: int) -> None:
        """Make `pos` the read position: a command that read more of a regular input than it used
        leaves the rest for the next reader of the descriptor, as GNU's tools lseek back (`head -n
        1`, `head -n -N`, `sed 2q`); by position, so nothing stays held in memory."""
        self.handle.seek(max(pos, 0))
        self._drop_read_ahead()

    def size(self) -> int:
        """The open file's size, by its handle (fstat's answer, its name gone or not), the handle
        and what was read ahead left as they were."""
        h = self.handle
        at = h.seek(0, 1)
        end = h.seek(0, 2)
        h.seek(at)
        return end

    def unread_size(self) -> int:
        """How many bytes are left from the read position to the end of the file (0 when the
        position is past it), without reading or moving: `wc -c` of a regular standard input,
        which GNU sizes by fstat and the offset."""
        return max(self.size() - self.tell(), 0)

    def close(self) -> None:
        self.handle.close()


def reopened_path(stream: object) -> str:
    """The file a descriptor's stream has open, which Linux's /dev/fd/N and /dev/stdin|stdout|stderr
    (links into /proc/self/fd) open anew, with the mode and truncation asked for (`exec 3<f; echo x
    >/dev/fd/3` writes f): "" for a pipe, a device or a buffer, which are shared as they are."""
    return stream.path if isinstance(stream, FileStream) else ""


class _OwnOffset(FileStream):
    """A descriptor's file opened anew when its name is gone (removed, or renamed away): Linux's
    /dev/fd/N opens the inode itself, with an offset of its own, so `exec 3<f; rm f; cat /dev/fd/3;
    cat <&3` reads f twice. It reads and writes the descriptor's handle at its own position (the
    handle's is put back after each call) and closing it leaves the descriptor's file open."""

    def __init__(self, base: FileStream, flags: str) -> None:
        super().__init__(base.handle, "r" in flags, flags != "r", base.path)
        self.append = flags.startswith("a")
        self.pos = 0
        if flags.startswith("w"):
            self.handle.truncate(0)

    def _at(self, pos: int, whence: int, op: Callable[[], Any]) -> Any:
        h = self.handle
        here = h.seek(0, 1)
        try:
            self.pos = h.seek(pos, whence)
            done = op()
            self.pos = h.seek(0, 1)
            return done
        finally:
            h.seek(here)

    def _fill(self, n: int) -> bytes:
        data: bytes = self._at(self.pos, 0, lambda: self.handle.read(n))
        return data

    def write(self, data: bytes) -> None:
        if data:
            self._at(
                0 if self.append else self.pos, 2 if self.append else 0, lambda: FileStream.write(self, data)
            )

    def seek_start(self) -> None:
        self.reposition(0)

    def tell(self) -> int:
        return self.pos - self.buffered()

    def reposition(self, pos: int) -> None:
        self.pos = max(pos, 0)
        self._drop_read_ahead()

    def close(self) -> None:
        pass  # (the descriptor's handle stays open)


def reopen_target(fs: FsView, stream: object, flags: str) -> str | Stream | None:
    """What /dev/fd/N of `stream` opens with `flags` ("r", "w", "a", "rw"): the file's name to open
    anew through the filesystem (its policy and limits), a stream of its own over the descriptor's
    file when that name is gone (one the descriptor's mode allows: its grant was checked when it was
    opened), or None when the descriptor's stream is shared as it is (a pipe, a device, a buffer)."""
    real = reopened_path(stream)
    if not real:
        return None
    assert isinstance(stream, FileStream)
    try:
        fs.vfs.lstat(fs.abspath(real))
        return real
    except FsError as e:
        if e.code != errno.ENOENT:
            return real  # (opening it says why: its error, named /dev/fd/N)
    if ("r" in flags and not stream.readable) or (flags != "r" and not stream.writable):
        return None
    return _OwnOffset(stream, flags)


class _FreshRng:
    """`Vfs.rng` of an unseeded filesystem or run, made on first read (random.py and what it imports
    are ~3 M instructions, and a run that reads no /dev/urandom needs none of it): a non-data
    descriptor, so the generator then sits in the instance's dict and is read as a plain attribute.
    Two threads reading it first at once get the same one (setdefault)."""

    def __get__(self, obj: Vfs | None, owner: type) -> random.Random:
        if obj is None:
            raise AttributeError("rng")
        import random

        made: random.Random = obj.__dict__.setdefault("rng", random.Random())
        return made


class Vfs:
    """A backend seen through path resolution, permissions, the policy gate
    and /dev. `backend` is what the embedder gave; `tree` is what paths
    resolve against: that backend at / with the in-memory /dev on top."""

    if TYPE_CHECKING:
        rng: random.Random
    else:
        rng = _FreshRng()  # unseeded: made on first read; seeded: set in __init__ and bind

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
        self.tree = MountFs(self.backend)
        self.tree.mount("/dev", make_devfs(uid, gid, clock))
        self.uid = uid
        self.gid = gid
        self.clock = clock
        self.seeded = seed is not None
        if seed is not None:  # (unseeded, _FreshRng makes it when first read)
            import random

            self.rng = random.Random(seed)
        self.gate: Gate | None = None
        # the gate decides entry by entry (a policy's `decide`): a directory moved in one step is
        # asked about for each entry it carries too (see rename)
        self.gate_entries = False
        self.checkpoint: Callable[[], None] | None = None
        # path -> _plain_parts(path), for opens in loops; lexical, so its runs (bind) share it
        self._plain: dict[str, tuple[tuple[str, ...], str]] = {}

    def view(self, cwd: str = "/", umask: int = 0o022) -> FsView:
        return FsView(self, cwd, umask)

    def bind(self, gate: Gate | None, checkpoint: Callable[[], None] | None) -> Vfs:
        """This filesystem with one run's hooks: the same backend, tree and devices
        (referenced, not copied), its own policy gate (bound to the run's audit),
        deadline check and /dev/urandom source. The run's views use it; the shared
        Vfs never holds a run's hooks, so nothing of a run outlives it or reaches
        another run (T-TEN-1). The random source is the run's own so that no run can
        learn the generator's state from its output and predict another's bytes
        (T-TEN-6); with a seed it is drawn from the seeded one (reproducible)."""
        # a shallow copy as copy.copy makes it (importing copy brings weakref: ~0.3 ms of every start-up)
        run = object.__new__(self.__class__)
        run.__dict__.update(self.__dict__)
        run.gate = gate
        run.checkpoint = checkpoint
        if self.seeded:
            import random

            run.rng = random.Random(self.rng.getrandbits(128))
        else:
            run.__dict__.pop("rng", None)  # its own, made on first read (_FreshRng), never the shared one's
        return run

    def random_bytes(self, n: int) -> bytes:
        return self.rng.randbytes(n)

    def mounts(self) -> list[MountInfo]:
        """The mount table, for `mount` and `df` (/bin and /usr/bin are not mounts on a real system)."""
        return [m for m in self.tree.table() if m.fstype != BIN_FSTYPE]

    def statfs(self, path: str) -> MountInfo:
        """The mount holding `path` (resolved), for `df FILE` and `stat -f`."""
        canon = self._resolve_gated(path, FileOp.STAT)
        self._gate(FileOp.STAT, canon)  # df of a refused path tells nothing about it
        best = self.mounts()[0]
        for m in self.mounts():
            if canon == m.path or canon.startswith(m.path.rstrip("/") + "/"):
                if len(m.path) >= len(best.path):
                    best = m
        return best

    # ------------------------------------------------------------ resolution

    def _check_name(self, path: str) -> None:
        if "\0" in path:
            raise FsError(errno.EINVAL, path)
        # (a character is at most 4 bytes: a shorter path needs no encoding to be measured)
        if len(path) > MAX_PATH // 4 and len(path.encode("utf-8", "surrogateescape")) > MAX_PATH:
            raise FsError(errno.ENAMETOOLONG, path)

    def resolve(self, path: str, follow: bool = True, must_exist: bool = False) -> str:
        """Canonical absolute path: symlinks in parents always followed, the last
        component followed when `follow`. `path` must be absolute."""
        return self._resolve(path, follow, must_exist)[0]

    def _resolve(
        self, path: str, follow: bool = True, must_exist: bool = False
    ) -> tuple[str, Stat | None, Stat | None]:
        """resolve(), also giving the lstat of the canonical path (of the last
        name itself when not `follow`; None when it is missing, or could not be
        looked up: the caller's own lookup then says why) and of its parent
        directory when the walk made it (None otherwise). The stats belong to
        this one operation: nothing is kept between calls."""
        self._check_name(path)
        todo = split_path(path)
        if path[-1] != "/" and not path.endswith("/.") and ".." not in todo and 0 < len(todo) <= 32:
            plain = self._resolve_plain(path, todo, follow, must_exist)
            if plain is not None:
                return plain
        lstat = self.tree.lstat
        if len(todo) > 32 and self.checkpoint is not None:
            self.checkpoint()  # deep paths cost a lookup per component: keep the deadline
        # POSIX pathname resolution: 'NAME/' follows a last link and must name a directory;
        # 'NAME/.' looks '.' up in it too, which needs search permission there
        bare, want_dir = _strip_slash(path)
        search_last = bare.endswith("/.") and bool(todo)
        want_dir = want_dir or search_last
        follow = follow or want_dir
        # the lstats of the path's own components in one backend call; used in
        # order until the walk leaves that path (a link), then one at a time
        need = len(todo) if follow else len(todo) - 1
        chain: list[Stat | FsError] = (
            self.tree.lstat_chain(todo[:need]) if need > 0 and ".." not in todo else []
        )
        at = 0
        todo.reverse()
        done: list[str] = []
        prefix = ""  # "/" + "/".join(done), without the root's slash when empty
        hops = 0
        missing = False
        st: Stat | None = None
        prefix_st: Stat | None = None  # lstat of `prefix` when known
        parent_st: Stat | None = None
        while todo:
            name = todo.pop()
            st = None
            parent_st = prefix_st
            if name == "..":
                if done:
                    done.pop()
                    prefix = "/" + "/".join(done) if done else ""
                prefix_st = parent_st = None
                continue
            if len(name) > 63 and len(name.encode("utf-8", "surrogateescape")) > MAX_NAME:
                raise FsError(errno.ENAMETOOLONG, path)
            candidate = prefix + "/" + name
            last = not todo
            if last and not follow:
                done.append(name)
                prefix = candidate
                try:
                    st = lstat(candidate)
                except FsError:
                    st = None  # (missing or not looked up: not this walk's failure)
                break
            try:
                if at < len(chain):
                    got = chain[at]
                    at += 1
                    if isinstance(got, FsError):
                        raise got
                    st = got
                else:
                    st = lstat(candidate)
            except FsError as e:
                e.__traceback__ = None  # (`got` may hold it: its traceback would hold this frame)
                if e.code == errno.ENOENT and last and not must_exist:
                    st = None
                    missing = True
                    done.append(name)
                    prefix = candidate
                    break
                raise _walk_error(e.code, path, candidate) from None
            kind = st.mode & S_IFMT
            if kind == 0o120000:
                st = parent_st = None  # the walk goes on from the target (which may be empty)
                chain = []
                hops += 1
                if hops > MAX_SYMLINKS:
                    raise _walk_error(errno.ELOOP, path, candidate)
                target = self.tree.readlink(candidate)
                want_dir = want_dir or (last and target.endswith("/"))  # a link to 'f/' asks the same
                if target.startswith("/"):
                    done = []
                    prefix = ""
                    prefix_st = None
                parts = split_path(target)
                parts.reverse()
                todo.extend(parts)
                continue
            if not last:
                if kind != S_IFDIR:
                    raise _walk_error(errno.ENOTDIR, path, candidate)
                try:
                    self._need(st, 1, path)
                except FsError:
                    raise _walk_error(errno.EACCES, path, candidate) from None
            done.append(name)
            prefix = candidate
            prefix_st = st
        if st is None and follow and not missing:
            # the walk ended on a directory it reached through '..' or a link, or on '/': callers
            # take a None stat with `follow` for a missing name
            try:
                st = lstat(prefix or "/")
            except FsError as e:
                raise _walk_error(e.code, path, prefix or "/") from None
        if want_dir and st is not None and (st.mode & S_IFMT) != S_IFDIR:
            err = _SlashNotDir(errno.ENOTDIR, path)
            err.walked = prefix
            raise err
        if search_last and st is not None:
            self._need(st, 1, path)
        return prefix or "/", st, parent_st

    def _resolve_plain(
        self, path: str, todo: list[str], follow: bool, must_exist: bool
    ) -> tuple[str, Stat | None, Stat | None] | None:
        """_resolve() of the common path `path` (split into `todo`): no '..', no trailing '/'
        or '/.', and a walk that meets no symbolic link and fails nowhere but at its last
        name. It answers from one lstat_chain what the general walk would; None leaves
        anything else (a link, a failure on the way, a long name) to the general walk."""
        n = len(todo)
        if max(map(len, todo)) > 63:  # (a name that may be too long: the general walk measures it)
            return None
        chain = self.tree.lstat_chain(todo)
        if len(chain) < n:  # (stopped on the way: the general walk says why)
            return None
        parent: Stat | None = None
        for st in chain[: n - 1]:
            if isinstance(st, FsError) or (st.mode & S_IFMT) != S_IFDIR or not self._may(st, 1):
                return None
            parent = st
        canon = "/" + "/".join(todo)
        last = chain[n - 1]
        if not follow:  # the name itself, whatever it is (a failure is the caller's to find)
            return canon, None if isinstance(last, FsError) else last, parent
        if isinstance(last, FsError):
            if last.code == errno.ENOENT and not must_exist:
                return canon, None, parent
            raise _walk_error(last.code, path, canon)
        if (last.mode & S_IFMT) == S_IFLNK:
            return None
        return canon, last, parent

    def _may(self, st: Stat | Inode, bit: int) -> bool:
        """Whether the sandbox user has permission `bit` (4=r, 2=w, 1=x) on `st`."""
        if self.uid == 0:
            return True
        mode = st.mode
        if st.uid == self.uid:
            return bool(mode & (bit << 6))
        if st.gid == self.gid:
            return bool(mode & (bit << 3))
        return bool(mode & bit)

    def _need(self, st: Stat | Inode, bit: int, path: str) -> None:
        """Permission check for the sandbox user: bit 4=r, 2=w, 1=x."""
        if not self._may(st, bit):
            raise FsError(errno.EACCES, path)

    def _gate(self, action: FileOp, path: str) -> None:
        if self.gate is not None:
            self.gate(action, path)

    def _resolve_gated(self, path: str, action: FileOp, follow: bool = True, must_exist: bool = True) -> str:
        """resolve(), with the policy asked first even when the path does not
        resolve: a refused location answers EACCES, never whether it exists."""
        return self._resolve_gated_st(path, action, follow, must_exist)[0]

    def _resolve_gated_st(
        self, path: str, action: FileOp, follow: bool = True, must_exist: bool = True
    ) -> tuple[str, Stat | None, Stat | None]:
        """_resolve_gated() with the stat the walk made, as _resolve() gives it.
        Whatever stopped the walk (a missing or non-directory component, a
        loop, a permission), a refused path gets the policy's answer first."""
        try:
            return self._resolve(path, follow, must_exist)
        except FsError as e:
            if self.gate is not None and e.code != errno.EINVAL:
                try:
                    lexical = normpath(path)
                    self.gate(action, lexical)
                    # the walk may have left the name given (a link, '..'): where it stopped counts too
                    walked = e.walked
                    if walked and lexical != walked and not lexical.startswith(walked.rstrip("/") + "/"):
                        self.gate(FileOp.STAT, walked)
                except FsError as refused:
                    raise refused.at(path) from None
            raise

    def _resolve_change(
        self, path: str, action: FileOp, follow: bool = False, must_exist: bool = False
    ) -> tuple[str, Stat | None, Stat | None]:
        """The canonical path a change acts on, the policy asked about it
        before anything else can fail (see _resolve_gated_st), and /dev kept
        out of the script's reach: its entries are the sandbox's."""
        canon, st, parent_st = self._resolve_gated_st(path, action, follow, must_exist)
        self._gate(action, canon)
        if action is not FileOp.WRITE and (canon == "/dev" or canon.startswith("/dev/")):
            raise FsError(errno.EPERM if action is FileOp.CHMOD else errno.EACCES, path)
        return canon, st, parent_st

    def _resolve_entry(self, path: str, action: FileOp) -> tuple[str, Stat | None, Stat | None, bool]:
        """_resolve_change() for a call that acts on a directory entry itself
        (mkdir, rmdir, unlink, rename, the new name of link and symlink): the
        kernel looks the name up in its parent, so a trailing slash neither
        follows a last link nor fails here; the caller gets `slash` and applies
        its own rule (the policy decides on the same entry as without it)."""
        bare, slash = _strip_slash(path)
        if not slash:
            return (*self._resolve_change(path, action), False)
        try:
            return (*self._resolve_change(bare, action), True)
        except FsError as e:
            raise e.at(path) from None

    def _new_entry_slash(self, canon: str, path: str) -> None:
        """A non-directory created through 'NAME/' (link, symlink): the name
        taken answers EEXIST, a free one ENOENT (Linux's filename_create)."""
        try:
            self.tree.lstat(canon)
        except FsError:
            raise FsError(errno.ENOENT, path) from None
        raise FsError(errno.EEXIST, path)

    def _parent_writable(
        self, canon: str, path: str, victim: Stat | None = None, parent_st: Stat | None = None
    ) -> None:
        """Write and search permission on the directory holding `canon`; with
        `victim` (an entry being removed or replaced) the sticky bit applies.
        `parent_st`: that directory's lstat, when this operation's walk made it."""
        st = parent_st
        if st is None:
            try:
                st = self.tree.lstat(parent_name(canon)[0])
            except FsError as e:
                raise FsError(e.code, path)
        if (st.mode & S_IFMT) != S_IFDIR:
            raise FsError(errno.ENOTDIR, path)
        self._need(st, 2, path)
        self._need(st, 1, path)
        if victim is not None and st.mode & 0o1000 and self.uid not in (0, st.uid, victim.uid):
            raise FsError(errno.EPERM, path)

    # ------------------------------------------------------------ queries

    def stat(self, path: str) -> Stat:
        canon, st, _ = self._resolve_gated_st(path, FileOp.STAT)
        self._gate(FileOp.STAT, canon)
        if st is not None:
            return st
        try:
            return self.tree.lstat(canon)
        except FsError as e:
            raise FsError(e.code, path)

    def lstat(self, path: str) -> Stat:
        canon, st, _ = self._resolve_gated_st(path, FileOp.STAT, follow=False, must_exist=False)
        self._gate(FileOp.STAT, canon)
        if st is not None:
            return st
        try:
            return self.tree.lstat(canon)
        except FsError as e:
            raise FsError(e.code, path)

    def lstat_many(self, path: str, names: list[str]) -> list[Stat | FsError]:
        """What lstat(path + '/' + name) gives for each name (a Stat, or the
        FsError it raises), for walkers that list a directory and then look at
        every entry: the directory is resolved once and the backend looks the
        entries up from it. The policy is still asked about every entry."""
        sep = "" if path.endswith("/") else "/"
        plain = all(
            n and n not in (".", "..") and "/" not in n and "\0" not in n and len(n) <= 63 for n in names
        )
        canon: str | None = None
        if plain:
            try:
                canon, st, _ = self._resolve(path, True, True)
                if st is None or (st.mode & S_IFMT) != S_IFDIR:
                    canon = None
                else:
                    self._need(st, 1, path)
            except FsError:
                canon = None
        if canon is None:  # anything unusual: entry by entry, exactly as lstat() does it
            out: list[Stat | FsError] = []
            for n in names:
                try:
                    out.append(self.lstat(path + sep + n))
                except FsError as e:
                    out.append(e)
            return out
        base = canon.rstrip("/") + "/"
        allowed: list[str] = []
        refused: dict[str, FsError] = {}
        for n in names:
            if self.gate is not None:
                try:
                    self.gate(FileOp.STAT, base + n)
                except FsError as e:
                    refused[n] = FsError(e.code, path + sep + n)
                    continue
            allowed.append(n)
        found = iter(self.tree.lstat_many(canon, allowed))
        result: list[Stat | FsError] = []
        for n in names:
            bad = refused.get(n)
            if bad is not None:
                result.append(bad)
                continue
            r = next(found)
            result.append(FsError(r.code, path + sep + n) if isinstance(r, FsError) else r)
        return result

    def exists(self, path: str) -> bool:
        try:
            self.stat(path)
            return True
        except FsError:
            return False

    def readlink(self, path: str) -> str:
        canon = self._resolve_gated(path, FileOp.STAT, follow=False, must_exist=False)
        self._gate(FileOp.STAT, canon)
        try:
            return self.tree.readlink(canon)
        except FsError as e:
            raise FsError(e.code, path)

    def listdir(self, path: str) -> list[str]:
        canon, known, _ = self._resolve_gated_st(path, FileOp.LIST)
        self._gate(FileOp.LIST, canon)
        try:
            st = known if known is not None else self.tree.lstat(canon)
            if (st.mode & S_IFMT) != S_IFDIR:
                raise FsError(errno.ENOTDIR, path)
            self._need(st, 4, path)
            # one order on every backend (C locale byte order), as `ls` shows it
            return sorted(self.tree.listdir(canon))
        except FsError as e:
            raise FsError(e.code, path)

    # ------------------------------------------------------------ opening

    def open(self, path: str, flags: str = "r", mode: int = 0o666, umask: int = 0o022) -> Stream:
        """Open a file as a stream. flags: r, w, a, rw, x (exclusive create)."""
        if path in _DEVICE_PATHS and (stream := self._open_device(path, flags)) is not None:
            return stream
        mem = self.tree.memroot
        if (
            mem is not None
            and (stream := self._open_mem(mem, path, flags, mode & ~umask & 0o7777)) is not None
        ):
            return stream
        slash = False
        if path[-1:] == "/":
            bare, slash = _strip_slash(path)
            slash = slash and flags != "r"  # creating through 'NAME/' is EISDIR (Linux open_last_lookups)
        reading = flags == "r" or flags == "rw"
        try:
            # (the walk gives the stat of what it reached: st is None only for a missing name)
            canon, st, parent_st = self._resolve_gated_st(
                bare if slash else path, _READ if flags == "r" else _CREATE, must_exist=False
            )
        except _SlashNotDir:
            if flags == "r":
                raise
            # a last link to 'f/': O_CREAT gives EISDIR, O_EXCL never follows the link (EEXIST)
            raise FsError(errno.EEXIST if flags == "x" else errno.EISDIR, path) from None
        except FsError as e:
            if not slash:
                raise
            raise e.at(path) from None
        # the policy before any other answer, so a refused path answers the same whatever is
        # there (missing, a directory, a device); create and write are decided alike
        if self.gate is not None:
            if reading:
                self.gate(_READ, canon)
            if flags != "r":
                self.gate(_CREATE if st is None else _WRITE, canon)
        if slash:
            raise FsError(errno.EISDIR, path)
        if st is None:
            if flags == "r":
                raise FsError(errno.ENOENT, path)
            if canon.startswith("/dev/"):
                raise FsError(errno.EACCES, path)  # the devices are the sandbox's, not the script's
            self._parent_writable(canon, path, parent_st=parent_st)
        else:
            kind = st.mode & S_IFMT
            if kind == S_IFCHR:
                return self._device(canon, path)
            if kind == S_IFDIR:
                raise FsError(errno.EISDIR, path)
            if flags == "x":
                raise FsError(errno.EEXIST, path)
            if reading:
                self._need(st, 4, path)
            if flags != "r":
                self._need(st, 2, path)
        try:
            handle = self.tree.open(canon, flags, mode & ~umask & 0o7777, self.uid, self.gid)
        except FsError as e:
            raise FsError(e.code, path)
        return FileStream(handle, reading, flags != "r", canon)

    def _open_mem(self, mem: MemoryFs, path: str, flags: str, mode: int) -> Stream | None:
        """open() of a plain path on the in-memory root (`>>out.txt` in a loop) from one walk
        over its inodes, without a Stat per name (_resolve_plain) nor a second walk and the
        mount routing to open (tree.open): taken when the path has no '..', '/.' or trailing
        slash, its first name leads to no mount point, every name before the last is a
        directory the user may search, and the last is missing, a regular file or a
        directory. The policy, permissions and errors are open()'s, in its order; anything
        else (a link, a device, a failure on the way, a long name): None, and open() decides."""
        plain = self._plain
        known = plain.get(path)
        if known is None:
            known = _plain_parts(path)
            if known[0]:  # (only a path taken is kept: one refused may be max_string_length long)
                if len(plain) >= _PLAIN_MAX:
                    plain.clear()
                plain[path] = known
        todo, canon = known
        if not todo or todo[0] in self.tree.tops:
            return None
        walked = mem.walk_entry(todo)
        if walked is None:
            return None
        dirs, st = walked
        may = self._may
        for d in dirs:
            if not may(d, 1):
                return None
        if st is not None and (st.mode & S_IFMT) in (S_IFLNK, S_IFCHR):
            return None  # (a link is followed, a device opens as one: the general walk)
        reading = flags == "r" or flags == "rw"
        if self.gate is not None:  # (as open(): the policy before any other answer)
            if reading:
                self.gate(_READ, canon)
            if flags != "r":
                self.gate(_CREATE if st is None else _WRITE, canon)
        if st is None:
            if flags == "r":
                raise FsError(errno.ENOENT, path)
            if canon.startswith("/dev/"):
                raise FsError(errno.EACCES, path)  # (/dev unmounted: still not the script's)
            parent = dirs[-1] if dirs else mem.root  # (_parent_writable's tests)
            self._need(parent, 2, path)
            self._need(parent, 1, path)
        else:
            if (st.mode & S_IFMT) == S_IFDIR:
                raise FsError(errno.EISDIR, path)
            if flags == "x":
                raise FsError(errno.EEXIST, path)
            if reading:
                self._need(st, 4, path)
            if flags != "r":
                self._need(st, 2, path)
        try:
            handle = mem.open_parts(todo, flags, mode, self.uid, self.gid)
        except FsError as e:
            raise FsError(e.code, path) from None
        return FileStream(handle, reading, flags != "r", canon)

    def _open_device(self, path: str, flags: str) -> Stream | None:
        """open() of '/dev/null' and its kin (`>/dev/null` in a loop) without the walk: the
        script cannot change /dev's entries (_resolve_change), so the path is canonical while
        the sandbox's /dev is mounted with nothing below it and still holds the device. The
        walk's search permission on /dev and the policy are asked as open() asks them; a
        device opens before any other test, for every `flags`. None: open() decides."""
        devfs = self.tree.devfs
        root = None if devfs is None else devfs.device_root(path[5:])
        if root is None or not self._may(root, 1):
            return None
        if self.gate is not None:
            if flags == "r" or flags == "rw":
                self.gate(_READ, path)
            if flags != "r":
                self.gate(_WRITE, path)
        return self._device(path, path)

    def _device(self, canon: str, path: str) -> Stream:
        try:
            return open_device(canon, self.random_bytes, self.checkpoint)
        except FsError as e:
            raise FsError(e.code, path)

    def read_bytes(self, path: str) -> bytes:
        stream = self.open(path, "r")
        try:
            return stream.read()
        except StreamError as e:
            # a device read whole (`x=$(< /dev/zero)`, `bash /dev/urandom`) ends with ENOMEM: a
            # file's error, as callers report one (it escaped them as an internal error)
            raise FsError(e.errno or errno.EIO, path) from None
        finally:
            stream.close()

    def write_bytes(self, path: str, data: bytes, append: bool = False, umask: int = 0o022) -> None:
        stream = self.open(path, "a" if append else "w", umask=umask)
        try:
            stream.write(data)
        except StreamError as e:
            # a device that refuses the bytes (`/dev/full`: ENOSPC) is a file's error, as callers
            # report one (the MCP write_file tool and a tool call's `files` let it escape them)
            raise FsError(e.errno or errno.EIO, path) from None
        finally:
            stream.close()

    # ------------------------------------------------------------ changes

    def mkdir(self, path: str, mode: int = 0o777, umask: int = 0o022) -> None:
        canon, _, parent_st, _ = self._resolve_entry(path, FileOp.CREATE)
        if canon == "/":
            raise FsError(errno.EEXIST, path)
        self._parent_writable(canon, path, parent_st=parent_st)
        try:
            self.tree.mkdir(canon, mode & ~umask & 0o7777, self.uid, self.gid)
        except FsError as e:
            raise FsError(e.code, path)

    def rmdir(self, path: str) -> None:
        canon, st, parent_st, _ = self._resolve_entry(path, FileOp.DELETE)
        if canon == "/":
            raise FsError(errno.EBUSY, path)
        try:
            st = st if st is not None else self.tree.lstat(canon)
        except FsError as e:
            raise FsError(e.code, path)
        if (st.mode & S_IFMT) != S_IFDIR:
            raise FsError(errno.ENOTDIR, path)
        self._parent_writable(canon, path, st, parent_st)
        try:
            self.tree.rmdir(canon)
        except FsError as e:
            raise FsError(e.code, path)

    def unlink(self, path: str) -> None:
        canon, st, parent_st, slash = self._resolve_entry(path, FileOp.DELETE)
        try:
            st = st if st is not None else self.tree.lstat(canon)
        except FsError as e:
            raise FsError(e.code, path)
        if (st.mode & S_IFMT) == S_IFDIR:
            raise FsError(errno.EISDIR, path)
        if slash:
            raise FsError(errno.ENOTDIR, path)
        self._parent_writable(canon, path, st, parent_st)
        try:
            self.tree.unlink(canon)
        except FsError as e:
            raise FsError(e.code, path)

    def rename(self, src: str, dst: str) -> None:
        # the policy refuses a directory whose move would carry a stricter grant's tree
        csrc, _, _, src_slash = self._resolve_entry(src, FileOp.RENAME)
        cdst, _, _, dst_slash = self._resolve_entry(dst, FileOp.RENAME)
        try:
            sst = self.tree.lstat(csrc)
        except FsError as e:
            raise FsError(e.code, src)
        if (src_slash or dst_slash) and (sst.mode & S_IFMT) != S_IFDIR:
            raise FsError(errno.ENOTDIR, src if src_slash else dst)
        self._parent_writable(csrc, src, sst)
        try:
            dst_st: Stat | None = self.tree.lstat(cdst)
        except FsError:
            dst_st = None
        self._parent_writable(cdst, dst, dst_st)
        if cdst == csrc:
            return
        if cdst.startswith(csrc + "/"):
            raise FsError(errno.EINVAL, dst)
        if self.gate_entries and (sst.mode & S_IFMT) == S_IFDIR:
            try:
                self._gate_carried(csrc, cdst)
            except FsError as refused:
                raise refused.at(src) from None
        try:
            self.tree.rename(csrc, cdst)
        except FsError as e:
            raise FsError(e.code, dst if e.code in (errno.EISDIR, errno.ENOTEMPTY, errno.ENOTDIR) else src)

    def _gate_carried(self, src: str, dst: str) -> None:
        """A directory renamed moves every entry below it in one step. A gate that decides
        entry by entry (`decide` refusing /w/.env) is asked about each one, at its old path and
        at its new one: else `mv /w /t` would carry a refused name out from under its rule."""
        todo = [""]
        while todo:
            rel = todo.pop()
            for name in self.tree.listdir(src + rel):
                if self.checkpoint is not None:
                    self.checkpoint()
                entry = f"{rel}/{name}"
                self._gate(FileOp.RENAME, src + entry)
                self._gate(FileOp.RENAME, dst + entry)
                if (self.tree.lstat(src + entry).mode & S_IFMT) == S_IFDIR:
                    todo.append(entry)

    def symlink(self, target: str, path: str) -> None:
        if "\0" in target:
            raise FsError(errno.EINVAL, path)
        if not target:
            raise FsError(errno.ENOENT, path)
        if len(target.encode("utf-8", "surrogateescape")) >= MAX_PATH:
            raise FsError(errno.ENAMETOOLONG, path)
        canon, _, parent_st, slash = self._resolve_entry(path, FileOp.SYMLINK)
        if slash:
            self._new_entry_slash(canon, path)
        self._parent_writable(canon, path, parent_st=parent_st)
        try:
            self.tree.symlink(target, canon, self.uid, self.gid)
        except FsError as e:
            raise FsError(e.code, path)

    def link(self, src: str, dst: str) -> None:
        """A new name for a file. As Linux's protected_hardlinks, linking needs
        the right to write the file (the policy's `link` on the source, a
        write-like action, and write permission when the file is another
        user's): a hard link must never make a read-only file writable
        through a name in a writable place."""
        csrc, sst, _ = self._resolve_change(src, FileOp.LINK)
        cdst, _, _, slash = self._resolve_entry(dst, FileOp.CREATE)
        if slash:
            self._new_entry_slash(cdst, dst)
        if sst is None:
            try:
                sst = self.tree.lstat(csrc)
            except FsError as e:
                raise e.at(src)
        if sst.uid != self.uid and (sst.mode & S_IFMT) != S_IFDIR:
            self._need(sst, 4, src)
            self._need(sst, 2, src)
        self._parent_writable(cdst, dst)
        try:
            self.tree.link(csrc, cdst)
        except FsError as e:
            raise FsError(e.code, src if e.code == errno.ENOENT else dst)

    def chmod(self, path: str, mode: int, follow: bool = True) -> None:
        canon = self._resolve_change(path, FileOp.CHMOD, follow, must_exist=True)[0]
        try:
            st = self.tree.lstat(canon)
            if st.uid != self.uid and self.uid != 0:
                raise FsError(errno.EPERM, path)
            if (st.mode & S_IFMT) == S_IFLNK:
                raise FsError(errno.EOPNOTSUPP, path)  # Linux has no lchmod
            self.tree.chmod(canon, mode)
        except FsError as e:
            raise FsError(e.code, path)

    def chown(self, path: str, uid: int, gid: int, follow: bool = True) -> None:
        canon = self._resolve_change(path, FileOp.CHMOD, follow, must_exist=True)[0]
        try:
            st = self.tree.lstat(canon)
            # an unprivileged user may only "change" to the same owner
            if (uid >= 0 and uid != st.uid) or st.uid != self.uid:
                raise FsError(errno.EPERM, path)
            self.tree.chown(canon, uid, gid)
        except FsError as e:
            raise FsError(e.code, path)

    def utime(
        self, path: str, atime_ns: int | None = None, mtime_ns: int | None = None, follow: bool = True
    ) -> None:
        """Set a file's times in integer nanoseconds; None keeps that time as it is. A float is
        refused (TypeError, as os.utime's `ns=`): float seconds such as time.time() would
        otherwise be stored as a time in January 1970 without an error."""
        for t in (atime_ns, mtime_ns):
            if t is not None and (type(t) is not int):
                raise TypeError(
                    f"utime takes integer nanoseconds (None keeps a time), not {type(t).__name__}"
                )
        canon = self._resolve_change(path, FileOp.WRITE, follow, must_exist=True)[0]
        try:
            st = self.tree.lstat(canon)
            if canon.startswith("/dev/") or canon == "/dev":
                # `touch /dev/null` succeeds (a device's times are not kept); /dev itself is fixed
                if (st.mode & S_IFMT) != S_IFCHR:
                    raise FsError(errno.EPERM, path)
                self._need(st, 2, path)
                return
            self.tree.utime(
                canon,
                st.atime_ns if atime_ns is None else atime_ns,
                st.mtime_ns if mtime_ns is None else mtime_ns,
            )
        except FsError as e:
            raise FsError(e.code, path)

    def truncate(self, path: str, size: int) -> None:
        canon = self._resolve_change(path, FileOp.WRITE, True, must_exist=True)[0]
        try:
            st = self.tree.lstat(canon)
            self._need(st, 2, path)
            self.tree.truncate(canon, size)
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
            if not path:  # (the kernel's rule: an empty name is no file, never the directory)
                raise FsError(errno.ENOENT, path)
            path = self.cwd.rstrip("/") + "/" + path
        return path

    def normpath(self, path: str) -> str:
        return normpath(self.abspath(path))

    # a script's view: a path the walk cannot finish answers the policy's refusal first (`cd`,
    # `rm`'s root check and the like must not tell ENOTDIR from ENOENT under a refused path)
    # (and a path that resolves is one the policy lets the script see)
    def resolve(self, path: str, follow: bool = True, must_exist: bool = False) -> str:
        canon = self.vfs._resolve_gated(self.abspath(path), FileOp.STAT, follow, must_exist)
        self.vfs._gate(FileOp.STAT, canon)
        return canon

    def realpath(self, path: str) -> str:
        canon = self.vfs._resolve_gated(self.abspath(path), FileOp.STAT, True, True)
        self.vfs._gate(FileOp.STAT, canon)
        return canon

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

    def stat_error(self, path: str, follow: bool = True) -> FsError | None:
        """Why `path` cannot be stat'ed (None: it can). For a command that tests a name before it
        says why it failed: a name the policy refuses is reported as refused, with its rule (the
        FsError's errno), never as missing, the answer `try_stat(...) is None` would give."""
        try:
            (self.vfs.stat if follow else self.vfs.lstat)(self.abspath(path))
        except FsError as e:
            return e
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

    def lstat_many(self, path: str, names: list[str]) -> list[Stat | FsError]:
        """lstat(path/name) for every entry name of one directory (see Vfs.lstat_many)."""
        return self.vfs.lstat_many(self.abspath(path), names)

    def listdir(self, path: str) -> list[str]:
        return self.vfs.listdir(self.abspath(path))

    def open(self, path: str, flags: str = "r") -> Stream:
        return self.vfs.open(self.abspath(path), flags, umask=self.umask)

    def read_bytes(self, path: str) -> bytes:
        return self.vfs.read_bytes(self.abspath(path))

    def write_bytes(self, path: str, data: bytes, append: bool = False) -> None:
        self.vfs.write_bytes(self.abspath(path), data, append, umask=self.umask)

    def read_file(self, path: str) -> bytes:
        """The whole content of a file (the Python API's name for read_bytes)."""
        return self.vfs.read_bytes(self.abspath(path))

    def read_text(self, path: str) -> str:
        return self.read_file(path).decode("utf-8", "surrogateescape")

    def write_file(
        self, path: str, content: bytes | str, append: bool = False, parents: bool = False
    ) -> None:
        """Write (or append) a file; `parents` creates missing directories first."""
        full = self.normpath(path)
        if parents:
            self.mkdir(parent_name(full)[0], parents=True)
        data = content.encode("utf-8", "surrogateescape") if isinstance(content, str) else bytes(content)
        self.vfs.write_bytes(full, data, append, umask=self.umask)

    def mkdir(self, path: str, mode: int = 0o777, parents: bool = False) -> None:
        full = self.abspath(path)
        if not parents:
            self.vfs.mkdir(full, mode, self.umask)
            return
        # component by component as the kernel walks ('..' after a link climbs from its target)
        parts = [p for p in full.split("/") if p and p != "."]
        cur = ""
        for i, name in enumerate(parts):
            cur += "/" + name
            try:
                st: Stat | None = self.stat(cur)
            except FsError as e:
                if e.code != errno.ENOENT:
                    raise e.at(path) from None
                st = None
            if st is not None:
                if not st.is_dir:
                    raise FsError(errno.ENOTDIR if i < len(parts) - 1 else errno.EEXIST, path)
                continue
            self.vfs.mkdir(cur, mode if i == len(parts) - 1 else 0o777, self.umask)

    def rmdir(self, path: str) -> None:
        head, _, last = path.rstrip("/").rpartition("/")
        if last in (".", ".."):
            # the kernel's answer for a last component `.` (EINVAL) or `..` (ENOTEMPTY), once the
            # directory holding it is found: never the directory they name (`rmdir d/e/.`)
            try:
                holder = self.stat(head or ("/" if path.startswith("/") else "."))
            except FsError as e:
                raise e.at(path) from None
            if not holder.is_dir:
                raise FsError(errno.ENOTDIR, path)
            raise FsError(errno.EINVAL if last == "." else errno.ENOTEMPTY, path)
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

    def utime(
        self, path: str, atime_ns: int | None = None, mtime_ns: int | None = None, follow: bool = True
    ) -> None:
        self.vfs.utime(self.abspath(path), atime_ns, mtime_ns, follow)

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
