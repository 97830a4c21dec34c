"""The host side of Lua's `io` and `os` libraries, over the sandbox.

The Lua prelude (lua_prelude.py) builds `io`/`os` tables whose functions call the methods of
`LuaHost` below; scripts never see these Python callables (they are upvalues of the prelude's
closures, and lupa's attribute filter refuses every Python attribute anyway). Files are opened
through the command's filesystem facade (policy, quota), held in memory while open (charged to
max_memory) and written back on flush/close; io.stdin/stdout/stderr are the command's streams;
io.popen/os.execute run shell text through the sandbox's own shell (policy, limits, audit).

Every callback returns plain values (bytes, numbers, booleans, None, tuples of them): a Python
exception other than the run's own stop signals must never reach Lua.
"""

from __future__ import annotations

import datetime as _dt
import errno
import time
from collections.abc import Callable
from typing import Any

from ...limits import MemoryHold
from ...posix.zones import local_zone
from ...stdio.streams import BufferWriter, BytesReader, Stream, StreamError
from ...vfs.errors import FsError, strerror
from ...vfs.facade import FileStream
from ..context import Ctx
from ..date.fmt import FormatTooLong, Moment, format_moment
from .common import read_program_stream

# glibc gives a pipe's stdout a buffer of this size: real lua's output reaches a pipe in these
# pieces, after its error message on stderr (kept so `lua ... 2>&1` reads the same)
_STDOUT_BUFFER = 4096
_NUMERAL_MAX = 200  # lua's l_getn gives up on longer numerals

# the first value of a callback's answer that means "raise the message after it as a Lua error"
ERROR_MARK = b"\0sandbash: lua error\0"
# the answer of a callback once the run must end
STOP_MARK = b"\0sandbash: stop\0"

Result = Any  # what a callback hands to Lua: bytes | int | float | bool | None | tuple of them


class LuaExit(Exception):
    """os.exit(code): unwinds the Lua stack (pcall cannot stop it, see the prelude)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _fail(e: OSError, name: str | None) -> tuple[None, bytes, int]:
    """luaL_fileresult: nil, "name: strerror", errno."""
    text = strerror(e.errno or errno.EIO)
    msg = f"{name}: {text}" if name is not None else text
    return None, msg.encode("utf-8", "surrogateescape"), int(e.errno or errno.EIO)


class _Handle:
    """One Lua file. `data`/`pos` for a file held in memory, `stream` for the command's streams."""

    __slots__ = (
        "path",
        "readable",
        "writable",
        "append",
        "data",
        "pos",
        "dirty",
        "flushed",
        "stream",
        "out",
        "closed",
        "on_close",
        "std",
        "owns",
    )

    def __init__(self, path: str | None, readable: bool, writable: bool, append: bool = False) -> None:
        self.path = path
        self.readable = readable
        self.writable = writable
        self.append = append
        self.data = bytearray()
        self.pos = 0
        self.dirty = False
        self.flushed = 0  # for append modes: how much of `data` the file already has
        self.stream: Stream | None = None
        self.out = bytearray()  # buffered output of a stream handle
        self.closed = False
        self.on_close: Callable[[_Handle], Result] | None = None
        self.std = False  # io.stdin/stdout/stderr: never closed
        self.owns = False  # a stream this handle opened (a device): closed with it


class LuaHost:
    """The callbacks behind the prelude's io/os tables, for one run of `lua`."""

    def __init__(self, ctx: Ctx, mem: MemoryHold, lua_memory: Callable[[], int]) -> None:
        self.ctx = ctx
        self.mem = mem  # what the Lua heap and the open files hold, kept in step with the budget
        self.lua_memory = lua_memory
        self.files: dict[int, _Handle] = {}
        self.held = 0  # bytes of open in-memory files
        self.stop: BaseException | None = None  # a limit, a cancellation or os.exit: the run ends
        self.dead = False  # the run is over: Lua finalizers run at lua_close reach nothing
        self.cpu0 = time.thread_time()
        self._next = 3
        for fd, stream in ((0, ctx.stdin), (1, ctx.stdout), (2, ctx.stderr)):
            h = _Handle(None, fd == 0, fd != 0)
            h.stream, h.std = stream, True
            self.files[fd] = h

    # ------------------------------------------------------------ the run's stop signals

    def guard(self, fn: Callable[..., Result]) -> Callable[..., Result]:
        """Wrap a callback so that nothing Python raises crosses into Lua: a stop signal (limit,
        cancellation, os.exit) is kept for the front end to raise once Lua has unwound, and the
        prelude turns STOP_MARK into an error pcall cannot keep (lupa keeps the traceback of an
        exception raised through it, and its frames would keep the Lua state alive); a stray
        Python error becomes a Lua error message."""

        def call(*args: Any) -> Result:
            if self.stop is not None or self.dead:
                return STOP_MARK
            try:
                return fn(*args)
            except (_LuaError, StreamError, FsError, ValueError, TypeError, OverflowError) as e:
                return ERROR_MARK, str(e).encode("utf-8", "surrogateescape")
            except BaseException as e:  # kept and re-raised by the front end, never swallowed
                self.stop = e.with_traceback(None)
                return STOP_MARK

        return call

    def tick(self) -> None:
        """The instruction hook: deadline, cancellation, and the Lua heap charged to max_memory."""
        self.ctx.budget.check_time()
        self.mem.set(self.lua_memory() + self.held)

    def stopping(self) -> bool:
        return self.stop is not None or self.dead

    # ------------------------------------------------------------ opening and closing

    def _add(self, h: _Handle) -> int:
        fid = self._next
        self._next += 1
        self.files[fid] = h
        return fid

    def _hold(self, n: int) -> None:
        self.held += n
        self.mem.set(self.lua_memory() + self.held)

    def open(self, path: bytes, mode: bytes) -> Result:
        name = path.decode("utf-8", "surrogateescape")
        kind = mode.decode("ascii", "replace").replace("b", "")
        plus = kind.endswith("+")
        base = kind[:1]
        h = _Handle(name, base == "r" or plus, base != "r" or plus, append=base == "a")
        fs = self.ctx.fs
        try:
            st = None if name.startswith("/dev/fd/") else fs.try_stat(name)
            if name.startswith("/dev/") and (st is None or not (st.is_file or st.is_dir)):
                # a device, a fifo, /dev/stdout or /dev/fd/N: streamed, never held whole
                h.stream = self.ctx.open_in(name) if base == "r" else self.ctx.open_out(name, base == "a")
                h.owns = not name.startswith(("/dev/std", "/dev/fd/"))
                return self._add(h)
            if base == "r" or (base == "a" and plus):
                if base == "a" and st is None:
                    fs.write_bytes(name, b"", append=True)
                if st is not None and st.is_dir and not h.writable:
                    h.data = bytearray()  # reading a directory fails on read, as with C stdio
                else:
                    self._load(h, name)
            elif plus:  # w+: read and write, held in memory
                fs.write_bytes(name, b"")
            else:
                # w / a: written through to the file as the program writes (the quota bounds it)
                h.stream, h.owns = fs.open(name, "w" if base == "w" else "a"), True
                h.pos = st.size if base == "a" and st is not None else 0
        except FsError as e:
            return _fail(e, name)
        h.flushed = len(h.data) if h.append else 0
        return self._add(h)

    def _load(self, h: _Handle, name: str) -> None:
        st = self.ctx.fs.stat(name)
        if st.is_dir:
            raise FsError(errno.EISDIR, name)
        self._hold(st.size)
        data = self.ctx.fs.read_bytes(name)
        self._hold(len(data) - st.size)
        h.data = bytearray(data)

    def tmpfile(self) -> Result:
        h = _Handle(None, True, True)
        return self._add(h)

    def _get(self, fid: int) -> _Handle:
        h = self.files.get(fid)
        if h is None or h.closed:
            raise _LuaError("attempt to use a closed file")
        return h

    def isopen(self, fid: int) -> bool:
        h = self.files.get(fid)
        return h is not None and not h.closed

    def close(self, fid: int) -> Result:
        h = self._get(fid)
        result = self.flush(fid)
        if result is not True:
            return result
        if h.std:
            return None, b"cannot close standard file"
        h.closed = True
        if h.owns and h.stream is not None:
            h.stream.close()
        self._hold(-len(h.data))
        del self.files[fid]
        if h.on_close is not None:
            return h.on_close(h)
        return True

    def close_all(self) -> None:
        """At the end of the run (as lua_close does): every file is flushed."""
        for fid, h in list(self.files.items()):
            if not h.closed:
                try:
                    self.flush(fid)
                except (FsError, StreamError):  # as lua_close: a failed flush at the end is silent
                    pass

    def flush(self, fid: int) -> Result:
        h = self._get(fid)
        if h.stream is not None:
            if h.out:
                data = bytes(h.out)
                h.out.clear()
                try:
                    h.stream.write(data)
                except StreamError as e:  # a closed stdout (`>&-`): fflush fails, the script goes on
                    return _fail(e, None)
            return True
        if not h.dirty or h.path is None:
            return True
        try:
            if h.append:
                self.ctx.fs.write_bytes(h.path, bytes(h.data[h.flushed :]), append=True)
                h.flushed = len(h.data)
            else:
                self.ctx.fs.write_bytes(h.path, bytes(h.data))
        except FsError as e:
            return _fail(e, h.path)
        h.dirty = False
        return True

    # ------------------------------------------------------------ writing

    def write(self, fid: int, *parts: bytes) -> Result:
        h = self._get(fid)
        if not h.writable:
            return None, b"Bad file descriptor", errno.EBADF
        data = b"".join(parts)
        if h.stream is not None:
            try:
                self._write_stream(fid, h, data)
            except (FsError, StreamError) as e:  # a full quota, a closed pipe end: as C's fwrite
                return _fail(e, None)
            return True
        if h.append:
            h.pos = len(h.data)
        end = h.pos + len(data)
        if end > len(h.data):
            self._hold(end - len(h.data))
        if h.pos > len(h.data):  # written past the end (after a seek): the gap reads as zeros, as in C
            h.data.extend(bytes(h.pos - len(h.data)))
        h.data[h.pos : end] = data
        h.pos = end
        h.dirty = True
        return True

    def _write_stream(self, fid: int, h: _Handle, data: bytes) -> None:
        assert h.stream is not None
        h.pos += len(data)
        if fid != 1:  # stderr, pipes and files opened w/a are unbuffered
            h.stream.write(data)
            if h.append and isinstance(h.stream, FileStream):
                h.pos = h.stream.handle.seek(0, 2)  # an append always lands at the end
            return
        h.out += data
        if len(h.out) >= _STDOUT_BUFFER:
            self.flush(fid)

    def seek(self, fid: int, whence: bytes, offset: int) -> Result:
        h = self._get(fid)
        if isinstance(h.stream, FileStream):  # a file opened w/a: written through, seekable as in C
            handle = h.stream.handle
            base = {b"set": 0, b"cur": h.pos, b"end": 0}[whence]
            if whence == b"end":
                base = handle.seek(0, 2)
            if base + offset < 0:
                return None, b"Invalid argument", errno.EINVAL
            h.pos = handle.seek(base + offset, 0)  # a write past the end leaves zeros (the backend's)
            return h.pos
        if h.stream is not None:
            if h.owns and h.writable and offset == 0 and whence in (b"cur", b"end"):
                return h.pos  # where a file written through is (its end)
            return None, b"Illegal seek", errno.ESPIPE
        base = {b"set": 0, b"cur": h.pos, b"end": len(h.data)}[whence]
        if base + offset < 0:
            return None, b"Invalid argument", errno.EINVAL
        h.pos = base + offset
        return h.pos

    # ------------------------------------------------------------ reading

    def read(self, fid: int, *fmts: bytes | int) -> Result:
        """file:read(...): one value per format, stopping at the first that fails (nil)."""
        h = self._get(fid)
        if not h.readable:
            return None, b"Bad file descriptor", errno.EBADF
        if h.stream is not None and 1 in self.files and not self.files[1].closed:
            self.flush(1)  # C stdio flushes line-buffered output before reading a terminal; cheap here
        out: list[Result] = []
        for f in fmts:
            self.ctx.budget.check_time()
            value = self._read_one(h, f)
            out.append(value)
            if value is None:
                break
        return tuple(out)

    def _read_one(self, h: _Handle, f: bytes | int) -> Result:
        if isinstance(f, int):
            if f == 0:
                return b"" if self._peek(h) else None
            data = self._take(h, f)
            return data or None
        if f == b"a":
            return self._take(h, -1)
        if f in (b"l", b"L"):
            line = self._line(h)
            if not line:
                return None
            return line if f == b"L" or not line.endswith(b"\n") else line[:-1]
        return _lua_number(self._numeral(h))

    def read_stdin_all(self) -> bytes:
        """The program text when it comes on stdin."""
        return self._take(self.files[0], -1)

    def _peek(self, h: _Handle) -> bool:
        if h.stream is None:
            return h.pos < len(h.data)
        c = h.stream.read(1)
        if c:
            h.stream.unread(c)
        return bool(c)

    def _take(self, h: _Handle, n: int) -> bytes:
        if h.stream is None:
            end = len(h.data) if n < 0 else h.pos + n
            data = bytes(h.data[h.pos : end])
            h.pos += len(data)
            return data
        if n < 0:  # (the parts and their joined copy charged, as every whole input is)
            return self.ctx.read_all(h.stream)
        with self.ctx.hold_memory() as mem:
            parts: list[bytes] = []
            got = 0
            while got < n:
                chunk = h.stream.read(min(65536, n - got))
                if not chunk:
                    break
                mem.charge(len(chunk))
                parts.append(chunk)
                got += len(chunk)
                self.ctx.budget.check_time()
            return b"".join(parts)

    def _line(self, h: _Handle) -> bytes:
        if h.stream is not None:
            return h.stream.readline(b"\n", self.ctx.limits.max_string_length)
        end = h.data.find(b"\n", h.pos)
        end = len(h.data) if end < 0 else end + 1
        line = bytes(h.data[h.pos : end])
        h.pos = end
        return line

    def _getc(self, h: _Handle) -> bytes:
        if h.stream is not None:
            return h.stream.read(1)
        if h.pos < len(h.data):
            h.pos += 1
            return bytes(h.data[h.pos - 1 : h.pos])
        return b""

    def _ungetc(self, h: _Handle, c: bytes) -> None:
        if not c:
            return
        if h.stream is not None:
            h.stream.unread(c)
        else:
            h.pos -= 1

    def _numeral(self, h: _Handle) -> Result:
        """The 'n' format as lua's l_getn: the longest prefix that can start a numeral (the
        prelude converts it with tonumber; a bad numeral reads as nil)."""
        c = self._getc(h)
        while c and c in b" \t\n\r\f\v":
            c = self._getc(h)
        buf = bytearray()

        def take(chars: bytes) -> bool:
            nonlocal c
            if c and c in chars and len(buf) < _NUMERAL_MAX:
                buf.extend(c)
                c = self._getc(h)
                return True
            return False

        take(b"+-")
        digits = b"0123456789"
        count = 0
        if take(b"0"):
            count = 1
            if take(b"xX"):
                digits, count = b"0123456789abcdefABCDEF", 0
        while take(digits):
            count += 1
        if take(b"."):
            while take(digits):
                count += 1
        if count > 0 and take(b"pP" if len(digits) > 10 else b"eE"):
            take(b"+-")
            while take(b"0123456789"):
                pass
        self._ungetc(h, c)
        return bytes(buf)

    # ------------------------------------------------------------ shell commands

    def popen(self, cmd: bytes, mode: bytes) -> Result:
        script = cmd.decode("utf-8", "surrogateescape")
        # (no flush of io.stdout first: C's popen/system do not flush stdio either)
        if mode.startswith(b"r"):
            out = BufferWriter(charge=self.mem.charge)
            status = self._shell(script, None, out)
            data = out.getvalue()
            self.mem.release(len(data))
            h = _Handle(None, True, False)
            self._hold(len(data))
            h.data = bytearray(data)
            h.on_close = lambda _h: _status(status)
            return self._add(h)
        h = _Handle(None, False, True)

        def run_at_close(w: _Handle) -> Result:
            return _status(self._shell(script, bytes(w.data), self.ctx.stdout))

        h.on_close = run_at_close
        return self._add(h)

    def execute(self, cmd: bytes | None) -> Result:
        if cmd is None:
            return True
        return _status(self._shell(cmd.decode("utf-8", "surrogateescape"), None, self.ctx.stdout))

    def _shell(self, script: str, stdin: bytes | None, stdout: Stream) -> int:
        ctx = self.ctx
        inp = ctx.stdin if stdin is None else BytesReader(stdin)
        return ctx.run_script(script, stdin=inp, stdout=stdout, stderr=ctx.stderr)

    # ------------------------------------------------------------ os

    def getenv(self, name: bytes) -> Result:
        value = self.ctx.env.get(name.decode("utf-8", "surrogateescape"))
        return None if value is None else value.encode("utf-8", "surrogateescape")

    def clock(self) -> float:
        return time.thread_time() - self.cpu0

    def now(self) -> int:
        return int(self.ctx.clock())

    def exit(self, status: int) -> None:
        self.close_all()
        raise LuaExit(status)

    def remove(self, path: bytes) -> Result:
        name = path.decode("utf-8", "surrogateescape")
        try:
            if self.ctx.fs.is_dir(name):
                self.ctx.fs.rmdir(name)
            else:
                self.ctx.fs.unlink(name)
        except FsError as e:
            return _fail(e, name)
        return True

    def rename(self, src: bytes, dst: bytes) -> Result:
        try:
            self.ctx.fs.rename(src.decode("utf-8", "surrogateescape"), dst.decode("utf-8", "surrogateescape"))
        except FsError as e:
            return _fail(e, None)
        return True

    def tmpname(self) -> Result:
        for _ in range(100):
            name = "/tmp/lua_" + "".join(
                self.ctx.rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
                for _ in range(6)
            )
            if not self.ctx.fs.exists(name):
                try:
                    self.ctx.fs.write_bytes(name, b"")
                except FsError:
                    break
                return name.encode()
        raise _LuaError("unable to generate a unique filename")

    def date(self, fmt: bytes, when: int | None) -> Result:
        """os.date: a formatted string, or the fields of '*t' / '!*t' as a tuple."""
        utc = fmt.startswith(b"!")
        if utc:
            fmt = fmt[1:]
        tz: _dt.tzinfo = _dt.UTC if utc else local_zone(self.ctx.env)
        seconds = self.now() if when is None else when
        try:
            m = Moment(seconds, 0, tz)
        except (OverflowError, ValueError, OSError):
            raise _LuaError("date result cannot be represented in this installation") from None
        if fmt.startswith(b"*t"):
            dt = m.dt
            return (
                dt.year,
                dt.month,
                dt.day,
                dt.hour,
                dt.minute,
                dt.second,
                (dt.weekday() + 1) % 7 + 1,
                m.number("j"),
                bool(dt.dst()),
            )
        try:
            text = format_moment(fmt.decode("utf-8", "surrogateescape"), m, self.ctx.limits.max_string_length)
        except FormatTooLong:
            raise _LuaError("date format too long") from None
        return text.encode("utf-8", "surrogateescape")

    def mktime(self, year: int, month: int, day: int, hour: int, minute: int, sec: int) -> Result:
        """os.time{...}: fields normalised as mktime does (month 13 is January of the next year)."""
        tz = local_zone(self.ctx.env)
        y, mo = year + (month - 1) // 12, (month - 1) % 12 + 1
        try:
            base = _dt.datetime(y, mo, 1, tzinfo=tz)
            delta = _dt.timedelta(days=day - 1, hours=hour, minutes=minute, seconds=sec)
            return int((base + delta).timestamp())
        except (OverflowError, ValueError):
            raise _LuaError("time result cannot be represented in this installation") from None

    def readfile(self, path: bytes) -> Result:
        """The text of a Lua source file (dofile, loadfile, require), or nil and the reason."""
        name = path.decode("utf-8", "surrogateescape")
        if self.ctx.names_fd(name):  # `lua <(cmd)`, dofile("/dev/stdin"): the descriptor itself
            try:
                return read_program_stream(self.ctx, self.ctx.open_in(name))
            except (FsError, StreamError) as e:
                return None, strerror(e.errno or errno.EIO).encode()
        try:
            st = self.ctx.fs.stat(name)
            if st.is_dir:
                raise FsError(errno.EISDIR, name)
            self.mem.charge(st.size)
            try:
                return self.ctx.fs.read_bytes(name)
            finally:
                self.mem.release(st.size)
        except FsError as e:
            return None, strerror(e.errno or errno.EIO).encode()

    def readable(self, path: bytes) -> bool:
        return self.ctx.fs.is_file(path.decode("utf-8", "surrogateescape"))

    # ------------------------------------------------------------ the table the prelude gets

    def callbacks(self) -> dict[bytes, Callable[..., Result]]:
        names = (
            "tick",
            "stopping",
            "open",
            "tmpfile",
            "isopen",
            "close",
            "flush",
            "write",
            "seek",
            "read",
            "popen",
            "execute",
            "getenv",
            "clock",
            "now",
            "exit",
            "remove",
            "rename",
            "tmpname",
            "date",
            "mktime",
            "readfile",
            "readable",
        )
        table = {n.encode(): self.guard(getattr(self, n)) for n in names}
        table[b"stopping"] = self.stopping  # raises nothing; the message handler asks it
        return table


class _LuaError(Exception):
    """A failure the prelude reports as a Lua error with this text."""


def _lua_number(text: bytes) -> int | float | None:
    """lua_stringtonumber for what _numeral read: decimal integers (a float past 64 bits), hex
    integers (wrapping), decimal and hex floats; None when it is not a numeral."""
    s = text.decode("ascii")
    body = s.lstrip("+-")
    neg = s.startswith("-")
    try:
        if body[:2].lower() == "0x":
            if "." in body or "p" in body.lower():
                value = float.fromhex(("-" if neg else "") + body)
                return value
            n = int(body[2:], 16) & 0xFFFFFFFFFFFFFFFF
            n = -n if neg else n
            return (n + 2**63) % 2**64 - 2**63
        if body.isdigit():
            n = int(s)
            return n if -(2**63) <= n < 2**63 else float(n)
        return float(s) if body and body[0] in "0123456789." else None
    except (ValueError, OverflowError):
        return None


def _status(status: int) -> tuple[bool | None, bytes, int]:
    """os.execute / pclose results: true|nil, "exit"|"signal", code."""
    if status > 128 and status - 128 < 65:
        return None, b"signal", status - 128
    return (True if status == 0 else None), b"exit", status
