"""Monty's OS callbacks answered from the virtual filesystem.

Every path Monty hands over is absolute (it resolves against the sandbox cwd first) and goes
through the command context's filesystem facade, so policy grants, quota and read-only mounts
apply. `/dev/stdin`, `/dev/stdout` and `/dev/stderr` are the command's streams. Errors become
the OSError subclasses CPython raises, worded `[Errno N] strerror: 'path'`.
"""

from __future__ import annotations

import errno
import posixpath
import stat as statmod

from ...limits import LimitExceeded, LimitKind, MemoryHold
from ...vfs.errors import FsError, strerror
from ...vfs.facade import FileStream
from ..context import Ctx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_OS_ERRORS: dict[int, type[OSError]] = {
    errno.ENOENT: FileNotFoundError,
    errno.EEXIST: FileExistsError,
    errno.EISDIR: IsADirectoryError,
    errno.ENOTDIR: NotADirectoryError,
    errno.EACCES: PermissionError,
    errno.EPERM: PermissionError,
    errno.EROFS: PermissionError,
}
_STREAMS = ("/dev/stdin", "/dev/stdout", "/dev/stderr")


def os_error(code: int, path: str) -> OSError:
    cls = _OS_ERRORS.get(int(code), OSError)
    return cls(int(code), strerror(code), path)


def _text(data: bytes) -> str:
    # Monty's strings cannot hold lone surrogates: undecodable bytes become U+FFFD
    return data.decode("utf-8", "replace")


def _path(arg: Any) -> str:
    """A path argument: Monty sends a PurePosixPath, or a MontyFileHandle for an open file."""
    path = getattr(arg, "path", None)
    return path if isinstance(path, str) else str(arg)


def _join(directory: str, name: str) -> str:
    return f"{directory.rstrip('/')}/{name}"


_ENTRY_BYTES = 120  # a dict entry and two str objects, beyond the text


class VfsOS:
    """An `os=` handler for Monty: `handler(name=..., args=..., kwargs=..., is_async=...)`."""

    def __init__(self, ctx: Ctx, pm: Any) -> None:
        self.ctx = ctx
        self.pm = pm
        self.stdin_read = False
        # the path as the program wrote it in its last open() (Monty hands over absolute paths)
        self.given: str | None = None
        # the program's changes to os.environ (None: deleted), seen by os.environ, os.getenv and
        # the commands it runs, as CPython's os.environ is the environment its children inherit
        self.env_changes: dict[str, str | None] = {}
        # their bytes, charged to the run while the program runs (python.py sets the hold): the
        # host keeps them, outside Monty's own memory limit
        self.env_hold: MemoryHold | None = None
        self.env_bytes = 0

    def __call__(
        self, *, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], is_async: bool, **_more: Any
    ) -> Any:
        self.ctx.budget.check_time()
        method = getattr(self, "op_" + name.replace(".", "_"), None)
        if method is None:
            return self.pm.NOT_HANDLED
        try:
            return method(*args, **kwargs)
        except FsError as e:
            path = _path(args[0]) if args else e.path
            if name == "open" and self.given is not None and self.ctx.fs.abspath(self.given) == path:
                path = self.given
            raise os_error(e.errno or errno.EIO, path) from None
        finally:
            if name == "open":
                self.given = None

    # ------------------------------------------------------------ queries

    def path_given(self, path: object) -> None:
        self.given = path if isinstance(path, str) else None

    def op_Path_exists(self, p: Any) -> bool:
        return _path(p) in _STREAMS or self.ctx.fs.try_stat(_path(p)) is not None

    def op_Path_is_file(self, p: Any) -> bool:
        st = self.ctx.fs.try_stat(_path(p))
        return st is not None and st.is_file

    def op_Path_is_dir(self, p: Any) -> bool:
        st = self.ctx.fs.try_stat(_path(p))
        return st is not None and st.is_dir

    def op_Path_is_symlink(self, p: Any) -> bool:
        st = self.ctx.fs.try_lstat(_path(p))
        return st is not None and statmod.S_ISLNK(st.mode)

    def op_Path_stat(self, p: Any) -> Any:
        st = self.ctx.fs.stat(_path(p))
        return self.pm.StatResult(
            st.mode, st.ino, st.dev, st.nlink, st.uid, st.gid, st.size, st.atime, st.mtime, st.ctime
        )

    def op_Path_iterdir(self, p: Any) -> list[str]:
        base = _path(p)
        names = self.ctx.fs.listdir(base)
        self.ctx.checkpoint(len(names) + 1)
        return [_join(base, n) for n in sorted(names)]

    def op_Path_scan(
        self, p: Any, *, max_depth: int | None = None, follow_symlinks: bool = False, **_glob: Any
    ) -> list[Any]:
        """A subtree in one reply (os.walk, os.scandir, Path.glob): the root as '' then every entry
        down to max_depth; a directory below the root that cannot be listed reads as empty."""
        fs, scan = self.ctx.fs, self.pm.ScanEntry
        root = _path(p)
        entries = [self._entry(scan, "", root)]
        stack = [(root, "", 0)] if entries[0].is_dir else []
        limit = 64 if max_depth is None and follow_symlinks else max_depth
        with self.ctx.hold_memory() as mem:
            while stack:
                directory, rel, depth = stack.pop()
                if limit is not None and depth >= limit:
                    continue
                try:
                    names = sorted(fs.listdir(directory))
                except FsError:
                    if depth == 0:
                        raise
                    continue
                self.ctx.checkpoint(len(names) + 1)
                for name in names:
                    child_rel = f"{rel}/{name}" if rel else name
                    mem.charge(2 * (len(directory) + len(child_rel)) + 128)
                    entry = self._entry(scan, child_rel, _join(directory, name))
                    entries.append(entry)
                    if entry.is_dir and (follow_symlinks or not entry.is_symlink):
                        stack.append((_join(directory, name), child_rel, depth + 1))
        return entries

    def _entry(self, scan: Any, rel: str, path: str) -> Any:
        lst = self.ctx.fs.try_lstat(path)
        if lst is None:
            raise FsError(errno.ENOENT, path)
        link = statmod.S_ISLNK(lst.mode)
        st = self.ctx.fs.try_stat(path) if link else lst
        return scan(rel, st is not None and st.is_dir, st is not None and st.is_file, link)

    def op_Path_resolve(self, p: Any) -> str:
        return self.ctx.fs.realpath(_path(p))

    def op_Path_absolute(self, p: Any) -> str:
        return self.ctx.fs.abspath(_path(p))

    def op_os_getenv(self, key: str, default: str | None = None) -> str | None:
        return self.environ().get(key, default)

    def op_os_environ(self) -> dict[str, str]:
        return self.environ()

    def environ(self) -> dict[str, str]:
        """The program's environment: the command's, with the program's changes."""
        env = dict(self.ctx.env)
        for key, value in self.env_changes.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env

    def setenv(self, key: object, value: object) -> None:
        """`os.environ[key] = value` (the rewritten statement)."""
        if not isinstance(key, str):
            raise TypeError(f"str expected, not {type(key).__name__}")
        if not isinstance(value, str):
            raise TypeError(f"str expected, not {type(value).__name__}")
        if "\0" in key or "\0" in value:
            raise ValueError("embedded null byte")
        if "=" in key:
            raise ValueError("illegal environment variable name")
        if not key:
            raise OSError(errno.EINVAL, "Invalid argument")
        if len(key) + len(value) > self.ctx.limits.max_string_length:
            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, self.ctx.limits.max_string_length)
        self._change(key, value)

    def _change(self, key: str, value: str | None) -> None:
        old = self.env_changes.get(key)
        size = self.env_bytes - (0 if old is None else len(old)) + (0 if value is None else len(value))
        if key not in self.env_changes:
            size += len(key) + _ENTRY_BYTES
        if self.env_hold is not None:
            self.env_hold.set(size)
        self.env_bytes = size
        self.env_changes[key] = value

    def unsetenv(self, key: object) -> None:
        """`del os.environ[key]` (the rewritten statement): KeyError if it is not set."""
        if not isinstance(key, str) or key not in self.environ():
            raise KeyError(key)
        self._change(key, None)

    # ------------------------------------------------------------ reading

    def op_open(self, p: Any, mode: str) -> Any:
        path = _path(p)
        if path not in _STREAMS:
            if "w" in mode:
                self.ctx.fs.write_bytes(path, b"")
            elif "a" in mode or "x" in mode:
                if "x" in mode and self.ctx.fs.try_stat(path) is not None:
                    raise FsError(errno.EEXIST, path)
                self.ctx.fs.write_bytes(path, b"", append=True)
            else:
                st = self.ctx.fs.stat(path)
                if st.is_dir:
                    raise FsError(errno.EISDIR, path)
        return self.pm.MontyFileHandle(path, mode.replace("x", "w"))

    def read_lines(self) -> list[str]:
        """The next lines of stdin, about 64 KiB of them (the last one completed); [] at the end."""
        ctx = self.ctx
        ctx.checkpoint()
        chunk = ctx.stdin.read(65536)
        if chunk and not chunk.endswith(b"\n"):
            chunk += ctx.stdin.readline(limit=ctx.limits.max_string_length)
        with ctx.hold_memory() as mem:
            mem.charge(len(chunk) * 3)
            # CPython's sys.stdin ends a line at "\n" alone (str.splitlines also cuts at \r, \f,
            # U+2028 and others, and "\r\n" stays as read)
            parts = _text(chunk).split("\n")
            lines = [part + "\n" for part in parts[:-1]]
            if parts[-1]:
                lines.append(parts[-1])
            return lines

    def read_text(self, n: int) -> str:
        """sys.stdin.read(n): about `n` bytes of stdin as text (all of it when n < 0), a character
        cut at the end completed."""
        data = self.read_bytes(n)
        for _ in range(3):
            try:
                data[-4:].decode("utf-8")
            except UnicodeDecodeError as e:
                if e.reason != "unexpected end of data":
                    break
                more = self.ctx.stdin.read(1)
                if not more:
                    break
                data += more
                continue
            break
        with self.ctx.hold_memory() as mem:
            mem.charge(len(data) * 2)
            return _text(data)

    def read_bytes(self, n: int) -> bytes:
        """sys.stdin.buffer: up to `n` bytes of stdin as they are (all of them when n < 0)."""
        ctx = self.ctx
        if n < 0:  # (the parts and their joined copy charged, as every whole input is)
            return ctx.read_all(ctx.stdin)
        with ctx.hold_memory() as mem:
            chunks: list[bytes] = []
            left = n
            while left:
                ctx.checkpoint()
                chunk = ctx.stdin.read(65536 if left < 0 else min(left, 65536))
                if not chunk:
                    break
                mem.charge(len(chunk))
                chunks.append(chunk)
                if left > 0:
                    left -= len(chunk)
            return b"".join(chunks)

    def _read(self, path: str) -> bytes:
        ctx = self.ctx
        if path == "/dev/stdin":
            # Monty reads an open file whole, then serves read/readline/iteration from it
            self.stdin_read = True
            return ctx.read_all(ctx.stdin)
        if path in _STREAMS:
            raise FsError(errno.EBADF, path)
        st = ctx.fs.stat(path)
        if st.is_dir:
            raise FsError(errno.EISDIR, path)
        with ctx.hold_memory() as mem:
            mem.charge(st.size)
            return ctx.fs.read_bytes(path)

    def op_Path_read_text(self, p: Any) -> str:
        data = self._read(_path(p))
        with self.ctx.hold_memory() as mem:
            mem.charge(len(data) * 2)
            return _text(data)

    def op_Path_read_bytes(self, p: Any) -> bytes:
        return self._read(_path(p))

    # ------------------------------------------------------------ writing

    def _write(self, path: str, data: bytes, append: bool) -> None:
        if path == "/dev/stdout":
            self.ctx.stdout.write(data)
        elif path == "/dev/stderr":
            self.ctx.stderr.write(data)
        elif path == "/dev/stdin":
            raise FsError(errno.EBADF, path)
        else:
            self.ctx.fs.write_bytes(path, data, append=append)

    def _write_at(self, stream: Any, path: str, pos: int, data: bytes) -> None:
        """Write `data` at offset `pos` of the file `stream` opened "rw", and close it."""
        try:
            if not isinstance(stream, FileStream):
                raise FsError(errno.ESPIPE, path)
            stream.handle.seek(pos)
            stream.handle.write(data)
        finally:
            stream.close()

    def pwrite(self, path: str, pos: int, data: bytes) -> None:
        """Write `data` at offset `pos` of an existing file (a gap past its end reads as zeros: the
        backend's); the prelude's write file calls it after a seek away from the end."""
        try:
            stream = self.ctx.fs.open(path, "rw")
        except FsError as e:
            raise os_error(e.errno or errno.EIO, path) from None
        try:
            self._write_at(stream, path, pos, bytes(data))
        except FsError as e:  # as CPython's write(): no file name
            code = e.errno or errno.EIO
            raise _OS_ERRORS.get(code, OSError)(code, strerror(code)) from None

    def op_Path_write_bytes_at(self, p: Any, offset: int, data: bytes) -> int:
        """A binary file handle's write (Monty 1.7 on: its handles write at their position through
        this). As Monty's own: a write that starts past the end is a ValueError (no gap of zeros)."""
        path = _path(p)
        data = bytes(data)
        if path in _STREAMS:
            self._write(path, data, append=True)
            return len(data)
        if offset < 0:
            raise ValueError("write range exceeds the supported file-position range")
        st = self.ctx.fs.stat(path)
        if st.is_dir:
            raise FsError(errno.EISDIR, path)
        if offset > st.size:
            raise ValueError("write offset is past the end of the file")
        if data:
            self._write_at(self.ctx.fs.open(path, "rw"), path, offset, data)
        return len(data)

    def truncate(self, path: str, size: int) -> None:
        try:
            self.ctx.fs.truncate(path, size)
        except FsError as e:
            raise os_error(e.errno or errno.EIO, path) from None

    def op_Path_write_text(self, p: Any, data: str) -> int:
        self._write(_path(p), data.encode("utf-8", "surrogateescape"), append=False)
        return len(data)

    def op_Path_write_bytes(self, p: Any, data: bytes) -> int:
        self._write(_path(p), bytes(data), append=False)
        return len(data)

    def op_Path_append_text(self, p: Any, data: str) -> int:
        self._write(_path(p), data.encode("utf-8", "surrogateescape"), append=True)
        return len(data)

    def op_Path_append_bytes(self, p: Any, data: bytes) -> int:
        self._write(_path(p), bytes(data), append=True)
        return len(data)

    # ------------------------------------------------------------ changing the tree

    def op_Path_mkdir(self, p: Any, parents: bool = False, exist_ok: bool = False) -> None:
        path = _path(p)
        fs = self.ctx.fs
        st = fs.try_stat(path)
        if st is not None:
            if exist_ok and st.is_dir:
                return
            raise FsError(errno.EEXIST, path)
        parent = posixpath.dirname(path.rstrip("/")) or "/"
        if parents and parent != path and fs.try_stat(parent) is None:
            self.op_Path_mkdir(parent, parents=True, exist_ok=True)
        fs.mkdir(path)

    def op_Path_unlink(self, p: Any) -> None:
        self.ctx.fs.unlink(_path(p))

    def op_Path_rmdir(self, p: Any) -> None:
        self.ctx.fs.rmdir(_path(p))

    def op_Path_rename(self, p: Any, target: Any) -> None:
        self.ctx.fs.rename(_path(p), _path(target))

    # ------------------------------------------------------------ time

    def op_time_sleep(self, seconds: float) -> None:
        self.ctx.budget.sleep(max(0.0, float(seconds)))

    op_system_sleep = op_time_sleep
