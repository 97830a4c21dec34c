"""The host side of `node` / `js`: the requests of the JavaScript prelude (js_prelude.py), answered
from the sandbox. Files go through the command's filesystem facade (policy grants, quota), stdin
is the command's stdin, shell commands run in the sandbox's own shell (policy, limits, audit).

Bytes cross the pipe as latin-1 strings (one character per byte), text as str; errors come back as
node's error fields (code, errno, syscall, path) with libuv's wording.
"""

from __future__ import annotations

import base64
import binascii
import errno
from collections.abc import Callable

from ...limits import MemoryHold
from ...stdio.streams import BufferWriter, BytesReader
from ...vfs.errors import FsError, strerror
from ..context import Ctx

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# libuv's wording of the errors scripts meet (node prints these, not the C library's)
_UV = {
    errno.ENOENT: "no such file or directory",
    errno.EACCES: "permission denied",
    errno.EEXIST: "file already exists",
    errno.ENOTDIR: "not a directory",
    errno.EISDIR: "illegal operation on a directory",
    errno.ENOTEMPTY: "directory not empty",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on device",
    errno.ELOOP: "too many symbolic links encountered",
    errno.EINVAL: "invalid argument",
    errno.EBADF: "bad file descriptor",
}


# bytes JSON writes as 6-character escapes: control characters, the quote, the backslash and everything past ASCII
_ESCAPED = bytes(range(0x20)) + b'"\\' + bytes(range(0x7F, 0x100))


def _json_cost(n: int, escaped: int) -> int:
    """Bytes a reply of `n` characters (`escaped` of them written as JSON escapes) holds until it is
    sent: the value, its JSON text and the encoded frame."""
    return 2 * n + 2 * (n + 5 * escaped)


class JsExit(Exception):
    """process.exit(code): the run ends now."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _bytes(latin1: str) -> bytes:
    return latin1.encode("latin-1")


def _latin1(data: bytes) -> str:
    return data.decode("latin-1")


def node_error(e: FsError, syscall: str, path: str, dest: str | None = None) -> dict[str, Any]:
    code = int(e.errno or errno.EIO)
    text = _UV.get(code) or strerror(code).lower()
    rule = getattr(e.errno, "rule", "")
    if rule:
        text += f" [policy: {rule}]"
    err: dict[str, Any] = {
        "code": errno.errorcode.get(code, "EIO"),
        "errno": code,
        "syscall": syscall,
        "path": path,
        "message": text,
    }
    if dest is not None:
        err["dest"] = dest
    return err


class JsHost:
    """Answers one run's requests. `setup` is what the prelude reads first."""

    def __init__(self, ctx: Ctx, setup: dict[str, Any], inflight: MemoryHold) -> None:
        self.ctx = ctx
        self.setup = setup
        self.exit_code = 0
        self._stdin: str | None = None
        # what a reply holds until it is sent: the data, its str and its JSON (\u00XX per byte at
        # worst); the front end releases it once the frame is out
        self.inflight = inflight

    def _reply_of(self, n: int) -> None:
        self.inflight.charge(n)

    def _bytes_reply(self, data: bytes) -> str:
        """`data` as the latin-1 text of a reply, charged for what it holds until sent."""
        self._reply_of(_json_cost(len(data), len(data) - len(data.translate(None, _ESCAPED))))
        return _latin1(data)

    def _text_reply(self, text: str) -> str:
        self._reply_of(_json_cost(len(text), len(text) - len(text.encode("ascii", "ignore"))))
        return text

    def answer(self, name: str, args: list[Any]) -> dict[str, Any]:
        fn: Callable[..., Any] | None = getattr(self, "op_" + name, None)
        if fn is None:
            return {"err": {"message": f"sandbash: unknown host request {name!r}"}}
        try:
            return {"ok": fn(*args)}
        except _Failed as f:
            return {"err": f.err}
        except (UnicodeError, ValueError, TypeError, binascii.Error) as e:
            return {"err": {"message": str(e)}}

    # ------------------------------------------------------------ process

    def op_setup(self) -> dict[str, Any]:
        return self.setup

    def op_cwd(self) -> str:
        return self.ctx.cwd

    def op_now(self) -> float:
        return self.ctx.clock() * 1000.0

    def op_exit(self, code: int) -> None:
        raise JsExit(int(code) & 0xFF)

    def op_exitCode(self, code: int) -> None:
        self.exit_code = int(code) & 0xFF

    def op_readStdin(self) -> str:
        if self._stdin is None:
            with self.ctx.hold_memory() as mem:
                parts: list[bytes] = []
                while True:
                    chunk = self.ctx.stdin.read(65536)
                    if not chunk:
                        break
                    mem.charge(2 * len(chunk))
                    parts.append(chunk)
                    self.ctx.budget.check_time()
                self._stdin = b"".join(parts).decode("utf-8", "replace")
        return self._text_reply(self._stdin)

    def op_readStdinChunk(self) -> str | None:
        """The next piece of stdin as it comes (None at its end): `data` and `line` events stream."""
        chunk = self.ctx.stdin.read(65536)
        return self._bytes_reply(chunk) if chunk else None

    # ------------------------------------------------------------ text and bytes

    def op_utf8encode(self, text: str) -> str:
        return self._bytes_reply(text.encode("utf-8", "surrogatepass"))

    def op_utf8decode(self, data: str) -> str:
        return self._text_reply(_bytes(data).decode("utf-8", "replace"))

    def op_base64encode(self, data: str) -> str:
        return self._text_reply(base64.b64encode(_bytes(data)).decode("ascii"))

    def op_base64decode(self, text: str) -> str:
        return self._bytes_reply(base64.b64decode(text + "=" * (-len(text) % 4)))

    # ------------------------------------------------------------ files

    def op_readFile(self, path: str) -> str:
        fs = self.ctx.fs
        try:
            st = fs.stat(path)
            if st.is_dir:
                raise FsError(errno.EISDIR, path)
            with self.ctx.hold_memory() as mem:
                mem.charge(st.size)
                data = self.ctx.read_input(path)
            return self._bytes_reply(data)
        except FsError as e:
            raise _Failed(node_error(e, "open" if e.errno != errno.EISDIR else "read", path)) from None

    def op_writeFile(self, path: str, data: str, append: bool) -> None:
        try:
            self.ctx.fs.write_bytes(path, _bytes(data), append)
        except FsError as e:
            raise _Failed(node_error(e, "open", path)) from None

    def op_exists(self, path: str) -> bool:
        return self.ctx.fs.exists(path)

    def op_stat(self, path: str, follow: bool) -> dict[str, Any]:
        try:
            st = self.ctx.fs.stat(path) if follow else self.ctx.fs.lstat(path)
        except FsError as e:
            raise _Failed(node_error(e, "stat" if follow else "lstat", path)) from None
        return {
            "size": st.size,
            "mode": st.mode,
            "mtime": st.mtime,
            "isFile": st.is_file,
            "isDir": st.is_dir,
            "isLink": st.is_link,
        }

    def op_readdir(self, path: str) -> list[str]:
        try:
            return sorted(self.ctx.fs.listdir(path))
        except FsError as e:
            raise _Failed(node_error(e, "scandir", path)) from None

    def op_mkdir(self, path: str, recursive: bool) -> None:
        try:
            if recursive and self.ctx.fs.is_dir(path):
                return
            self.ctx.fs.mkdir(path, parents=recursive)
        except FsError as e:
            raise _Failed(node_error(e, "mkdir", path)) from None

    def op_unlink(self, path: str) -> None:
        try:
            if self.ctx.fs.is_dir(path) and not self.ctx.fs.lstat(path).is_link:
                raise FsError(errno.EISDIR, path)
            self.ctx.fs.unlink(path)
        except FsError as e:
            raise _Failed(node_error(e, "unlink", path)) from None

    def op_rm(self, path: str, recursive: bool, force: bool, dir_only: bool) -> None:
        fs = self.ctx.fs
        try:
            st = fs.lstat(path)
        except FsError as e:
            if force and e.errno == errno.ENOENT:
                return
            raise _Failed(node_error(e, "rmdir" if dir_only else "rm", path)) from None
        try:
            if not st.is_dir or st.is_link:
                if dir_only:
                    raise FsError(errno.ENOTDIR, path)
                fs.unlink(path)
            elif recursive:
                self._remove_tree(path)
            elif dir_only:
                fs.rmdir(path)
            else:
                raise _Failed(
                    {
                        "code": "ERR_FS_EISDIR",
                        "errno": errno.EISDIR,
                        "syscall": "rm",
                        "path": path,
                        "message": "Path is a directory",
                    }
                )
        except FsError as e:
            raise _Failed(node_error(e, "rm", path)) from None

    def _remove_tree(self, path: str) -> None:
        fs = self.ctx.fs
        for name in fs.listdir(path):
            self.ctx.budget.check_time()
            child = path.rstrip("/") + "/" + name
            st = fs.lstat(child)
            if st.is_dir and not st.is_link:
                self._remove_tree(child)
            else:
                fs.unlink(child)
        fs.rmdir(path)

    def op_rename(self, src: str, dst: str) -> None:
        try:
            self.ctx.fs.rename(src, dst)
        except FsError as e:
            raise _Failed(node_error(e, "rename", src, dst)) from None

    def op_realpath(self, path: str) -> str:
        try:
            return self.ctx.fs.realpath(path)
        except FsError as e:
            raise _Failed(node_error(e, "realpath", path)) from None

    # ------------------------------------------------------------ shell

    def op_exec(self, cmd: str, stdin: str | None) -> dict[str, Any]:
        """child_process.execSync / spawnSync: the command runs in the sandbox's shell."""
        ctx = self.ctx
        out = BufferWriter(charge=self._reply_of)
        err = BufferWriter(charge=self._reply_of)
        inp = BytesReader(_bytes(stdin)) if stdin is not None else BytesReader(b"")
        status = ctx.run_script(cmd, stdin=inp, stdout=out, stderr=err)
        return {
            "status": status,
            "stdout": self._bytes_reply(out.getvalue()),
            "stderr": self._bytes_reply(err.getvalue()),
        }


class _Failed(Exception):
    def __init__(self, err: dict[str, Any]) -> None:
        super().__init__(err.get("message", ""))
        self.err = err
