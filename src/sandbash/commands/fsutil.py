"""Helpers shared by the file commands (fileops, ls, fileinfo, find).

GNU's ways of quoting file names in messages, mode strings, the virtual user
and group names, block counts, human-readable sizes, symbolic modes, the
mount table as df/stat -f/mount see it, the entry to date parsing
(touch -d, find -newermt) and in-place rewrites (FileRewrite) all live here once.
"""

from __future__ import annotations

import errno
import math
import re
from collections.abc import Mapping

from ..stdio.streams import NullStream, Stream
from ..vfs.base import NS, S_IFCHR, S_IFDIR, S_IFIFO, S_IFLNK, S_IFREG, Stat, seconds_to_ns
from ..vfs.errors import FsError, strerror
from ..vfs.facade import FileStream, FsView
from ..vfs.mount import MountInfo
from .gnuquote import needs_quoting as needs_quoting
from .gnuquote import quote as quote
from .gnuquote import quoteaf as quoteaf
from .gnuquote import shell_quote as shell_quote

# datetime (~1.3 ms with _datetime) and random (~1 ms with _sha512) are imported by the functions
# that use them: a first cat or grep loads this module and needs neither
TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt
    import random

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass

    from .context import Ctx
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ..leanclass import dataclass

S_IFMT = 0o170000  # the mask (the stdlib's stat.S_IFMT is a function)

S_IFBLK = 0o060000
S_IFSOCK = 0o140000


def errmsg(e: FsError | int) -> str:
    """The C library wording of an FsError (or errno), with the policy rule that refused it."""
    return e.message if isinstance(e, FsError) else strerror(e if isinstance(e, int) else (e.errno or 0))


# ------------------------------------------------------------ users and groups

# The sandbox has two accounts; everything else shows as a number (like GNU
# tools do for ids missing from /etc/passwd).
USERS: dict[int, str] = {0: "root", 1000: "user"}
GROUPS: dict[int, str] = {0: "root", 1000: "user"}


def user_name(uid: int) -> str:
    return USERS.get(uid, str(uid))


def group_name(gid: int) -> str:
    return GROUPS.get(gid, str(gid))


def lookup_user(name: str) -> int | None:
    for uid, n in USERS.items():
        if n == name:
            return uid
    return int(name) if name.isdigit() else None


def lookup_group(name: str) -> int | None:
    for gid, n in GROUPS.items():
        if n == name:
            return gid
    return int(name) if name.isdigit() else None


# ------------------------------------------------------------ file types and modes

_TYPE_CHARS = {
    S_IFREG: "-",
    S_IFDIR: "d",
    S_IFLNK: "l",
    S_IFCHR: "c",
    S_IFBLK: "b",
    S_IFIFO: "p",
    S_IFSOCK: "s",
}


def type_char(mode: int) -> str:
    """ls's file type letter (`-`, `d`, `l`, ...)."""
    return _TYPE_CHARS.get(mode & S_IFMT, "?")


def find_type_char(mode: int) -> str:
    """find's %y / -type letter (`f` for regular files)."""
    c = type_char(mode)
    return "f" if c == "-" else c


def mode_string(mode: int) -> str:
    """`drwxr-xr-x` with setuid/setgid/sticky letters."""
    chars = [type_char(mode)]
    for shift, special, letter in ((6, 0o4000, "s"), (3, 0o2000, "s"), (0, 0o1000, "t")):
        bits = (mode >> shift) & 7
        chars.append("r" if bits & 4 else "-")
        chars.append("w" if bits & 2 else "-")
        if mode & special:
            chars.append(letter if bits & 1 else letter.upper())
        else:
            chars.append("x" if bits & 1 else "-")
    return "".join(chars)


def type_description(st: Stat) -> str:
    """stat's %F wording."""
    kind = st.mode & S_IFMT
    if kind == S_IFREG:
        return "regular empty file" if st.size == 0 else "regular file"
    return {
        S_IFDIR: "directory",
        S_IFLNK: "symbolic link",
        S_IFCHR: "character special file",
        S_IFBLK: "block special file",
        S_IFIFO: "fifo",
        S_IFSOCK: "socket",
    }.get(kind, "weird file")


PROC_DEV = 0x17  # procfs, where a descriptor's link lives (/dev/fd is /proc/self/fd): no blocks


def blocks_512(st: Stat) -> int:
    """Allocated 512-byte blocks as ext4 would report them (4K blocks; short
    symlinks live in the inode; devices take none)."""
    kind = st.mode & S_IFMT
    if kind == S_IFLNK:
        return 0 if st.size < 60 or st.dev == PROC_DEV else 8
    if kind in (S_IFREG, S_IFDIR):
        return ((st.size + 4095) // 4096) * 8
    return 0


# ------------------------------------------------------------ paths


def join(directory: str, name: str) -> str:
    """`dir/name` without doubling a trailing slash (GNU keeps `a//b` as given
    only for operands, never when it builds child paths)."""
    if directory.endswith("/"):
        return directory + name
    return directory + "/" + name


def basename(path: str) -> str:
    stripped = path.rstrip("/")
    if not stripped:
        return "/" if path else ""
    return stripped.rsplit("/", 1)[-1]


def dirname(path: str) -> str:
    stripped = path.rstrip("/")
    if not stripped:
        return "/" if path else "."
    if "/" not in stripped:
        return "."
    head = stripped.rsplit("/", 1)[0].rstrip("/")
    return head or "/"


# ------------------------------------------------------------ sizes


def human_size(n: int | float, base: int = 1024, units: str = "KMGTPEZY") -> str:
    """GNU's human_readable with ceiling rounding: 1.5K, 12K, 1.0M."""
    if n < base:
        return str(math.ceil(n))
    exp = 1
    while n >= base ** (exp + 1) and exp < len(units):
        exp += 1
    while True:
        div = base**exp
        tenths = math.ceil(n * 10 / div)
        if tenths < 100:
            return f"{tenths // 10}.{tenths % 10}{units[exp - 1]}"
        whole = math.ceil(n / div)
        if whole >= base and exp < len(units):
            exp += 1
            continue
        return f"{whole}{units[exp - 1]}"


def si_size(n: int | float) -> str:
    return human_size(n, 1000, "kMGTPEZY")


_SIZE_SUFFIXES = "KMGTPEZYRQ"


def parse_size(text: str, allow_b_suffix: bool = True) -> int | None:
    """`10K`, `1MB`, `2KiB`, `512`... as GNU's xstrtoumax does for sizes."""
    m = re.fullmatch(r"(\d+)([KMGTPEZYRQkmgtpezyrq]?)(iB|B)?|(\d+)([bcw])", text)
    if m is None:
        return None
    if m.group(4) is not None:
        if not allow_b_suffix:
            return None
        mult = {"b": 512, "c": 1, "w": 2}[m.group(5)]
        return int(m.group(4)) * mult
    value = int(m.group(1))
    letter = m.group(2)
    if not letter:
        return value if m.group(3) is None else None
    base = 1000 if m.group(3) == "B" else 1024
    if letter == "k" and m.group(3) is None:
        letter = "K"
    if letter.islower() and letter != "k":
        return None
    return int(value * base ** (_SIZE_SUFFIXES.index(letter.upper()) + 1))


# ------------------------------------------------------------ version order


def _file_prefixlen(s: bytes) -> int:
    """Length of `s` without its suffix `(\\.[A-Za-z~][A-Za-z0-9~]*)*$` (gnulib)."""
    n = len(s)
    prefixlen = 0
    i = 0
    while i < n:
        i += 1
        prefixlen = i
        while (
            i + 1 < n
            and s[i] == 0x2E
            and (chr(s[i + 1]).isascii() and (chr(s[i + 1]).isalpha() or s[i + 1] == 0x7E))
        ):
            i += 2
            while i < n and (chr(s[i]).isascii() and (chr(s[i]).isalnum() or s[i] == 0x7E)):
                i += 1
    return prefixlen


def _order(s: bytes, pos: int, length: int) -> int:
    if pos == length:
        return -1
    c = s[pos]
    if 0x30 <= c <= 0x39:
        return 0
    if (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A):
        return c
    if c == 0x7E:
        return -2
    return c + 256


def _verrevcmp(a: bytes, alen: int, b: bytes, blen: int) -> int:
    i = j = 0
    while i < alen or j < blen:
        first_diff = 0
        while (i < alen and not 0x30 <= a[i] <= 0x39) or (j < blen and not 0x30 <= b[j] <= 0x39):
            ca = _order(a, i, alen)
            cb = _order(b, j, blen)
            if ca != cb:
                return ca - cb
            i += 1
            j += 1
        while i < alen and a[i] == 0x30:
            i += 1
        while j < blen and b[j] == 0x30:
            j += 1
        while i < alen and j < blen and 0x30 <= a[i] <= 0x39 and 0x30 <= b[j] <= 0x39:
            if not first_diff:
                first_diff = a[i] - b[j]
            i += 1
            j += 1
        if i < alen and 0x30 <= a[i] <= 0x39:
            return 1
        if j < blen and 0x30 <= b[j] <= 0x39:
            return -1
        if first_diff:
            return first_diff
    return 0


def filevercmp(a: bytes, b: bytes) -> int:
    """gnulib's filevercmp (ls -v, sort -V): version-aware name order."""
    if not a:
        return -1 if b else 0
    if not b:
        return 1
    if a[:1] == b".":
        if b[:1] != b".":
            return -1
        for special in (b".", b".."):
            if a == special:
                return 0 if b == special else -1
            if b == special:
                return 1
    elif b[:1] == b".":
        return 1
    ap = _file_prefixlen(a)
    bp = _file_prefixlen(b)
    result = _verrevcmp(a, ap, b, bp)
    if result or (ap == len(a) and bp == len(b)):
        return result
    return _verrevcmp(a, len(a), b, len(b))


# ------------------------------------------------------------ modes


class ModeError(ValueError):
    pass


# one compiled clause of a mode: (op, flag, affected, value, mentioned); flag is
# "" (plain bits), "copy" (`g=u`) or "X" (execute if any execute bit / directory)
ModeChange = tuple[str, str, int, int, int]


def compile_mode(spec: str) -> list[ModeChange]:
    """Compile a chmod mode, octal or symbolic (`u+x,go-w`, `a=r`, `+X`, `g=u`),
    like gnulib's mode_compile; raises ModeError."""
    if spec and all(c in "01234567" for c in spec):
        value = int(spec, 8)
        if value > 0o7777:
            raise ModeError(spec)
        # fewer than 5 digits leave a directory's set-ID bits alone unless given
        mentioned = (value & 0o6000) | 0o1777 if len(spec) < 5 else 0o7777
        return [("=", "", 0o7777, value, mentioned)]
    changes: list[ModeChange] = []
    for clause in spec.split(","):
        i = 0
        who = 0
        while i < len(clause) and clause[i] in "ugoa":
            who |= {"u": 0o4700, "g": 0o2070, "o": 0o1007, "a": 0o7777}[clause[i]]
            i += 1
        if i >= len(clause):
            raise ModeError(spec)
        while i < len(clause):
            op = clause[i]
            if op not in "+-=":
                raise ModeError(spec)
            i += 1
            value = 0
            flag = ""
            if i < len(clause) and clause[i] in "ugo":
                value = {"u": 0o700, "g": 0o070, "o": 0o007}[clause[i]]
                flag = "copy"
                i += 1
            else:
                while i < len(clause) and clause[i] in "rwxXst":
                    c = clause[i]
                    value |= {"r": 0o444, "w": 0o222, "x": 0o111, "s": 0o6000, "t": 0o1000}.get(c, 0)
                    if c == "X":
                        flag = "X"
                    i += 1
            changes.append((op, flag, who, value, (who & value) if who else value))
    return changes


def adjust_mode(old: int, is_dir: bool, umask: int, changes: list[ModeChange]) -> int:
    """Apply compiled changes to permission bits `old` (gnulib's mode_adjust)."""
    mode = old & 0o7777
    for op, flag, affected, value, mentioned in changes:
        omit = (0o6000 if is_dir else 0) & ~mentioned
        if flag == "copy":
            value &= mode
            value |= (
                (0o444 if value & 0o444 else 0)
                | (0o222 if value & 0o222 else 0)
                | (0o111 if value & 0o111 else 0)
            )
        elif flag == "X" and (mode & 0o111 or is_dir):
            value |= 0o111
        value &= (affected if affected else ~umask & 0o7777) & ~omit
        if op == "=":
            preserved = ((~affected & 0o7777) if affected else 0) | omit
            mode = (mode & preserved) | value
        elif op == "+":
            mode |= value
        else:
            mode &= ~value
    return mode & 0o7777


def parse_mode(spec: str, old: int, is_dir: bool, umask: int = 0o022) -> int:
    """Compile and apply a chmod mode in one step."""
    return adjust_mode(old, is_dir, umask, compile_mode(spec))


# ------------------------------------------------------------ time


def tz_from_env(env: Mapping[str, str]) -> _dt.tzinfo:
    """A fixed-offset zone from TZ (`UTC`, `UTC0`, `EST5`, `XXX-2`, `+0100`);
    no zone database is read, so named zones fall back to UTC."""
    import datetime as _dt

    tz = env.get("TZ", "").lstrip(":")
    m = re.fullmatch(r"([A-Za-z]{3,}|<[^>]*>)?([+-]?)(\d{1,2})(?::(\d{2}))?(?:[A-Za-z]{3,}.*)?", tz)
    if m is None or (m.group(1) is None and not m.group(2)):
        return _dt.UTC
    hours = int(m.group(3))
    minutes = int(m.group(4) or 0)
    # POSIX TZ offsets are west-positive
    sign = 1 if m.group(2) == "-" else -1
    return _dt.timezone(sign * _dt.timedelta(hours=hours, minutes=minutes))


def to_datetime(t: float, tz: _dt.tzinfo) -> _dt.datetime:
    import datetime as _dt

    return _dt.datetime.fromtimestamp(math.floor(t), tz)


def format_full_time(ns: int, tz: _dt.tzinfo) -> str:
    """`2024-01-02 03:04:05.123456789 +0000` (stat, ls --full-time, du --time) of a time in nanoseconds."""
    d = to_datetime(ns // NS, tz)
    return d.strftime("%Y-%m-%d %H:%M:%S") + f".{ns % NS:09d} " + d.strftime("%z")


def ls_time(t: float, now: float, tz: _dt.tzinfo) -> str:
    """ls -l's date column: recent times show the clock, old or future ones the year."""
    d = to_datetime(t, tz)
    # GNU: within the last half Gregorian year (a file stamped "now" counts)
    if now - 31556952 // 2 < t <= now:
        return f"{d.strftime('%b')} {d.day:2d} {d.strftime('%H:%M')}"
    return f"{d.strftime('%b')} {d.day:2d}  {d.year}"


def midnight(now: float, tz: _dt.tzinfo) -> int:
    """The start of the local day containing `now`."""
    d = to_datetime(now, tz)
    return int(d.replace(hour=0, minute=0, second=0).timestamp())


def parse_touch_stamp(text: str, now: float, tz: _dt.tzinfo) -> float | None:
    """touch -t's `[[CC]YY]MMDDhhmm[.ss]`."""
    m = re.fullmatch(r"(\d{8}|\d{10}|\d{12})(?:\.(\d{2}))?", text)
    if m is None:
        return None
    digits = m.group(1)
    seconds = int(m.group(2) or 0)
    if len(digits) == 12:
        year = int(digits[:4])
        digits = digits[4:]
    elif len(digits) == 10:
        yy = int(digits[:2])
        year = 1900 + yy if yy >= 69 else 2000 + yy
        digits = digits[2:]
    else:
        year = to_datetime(now, tz).year
    month, day, hour, minute = (int(digits[k : k + 2]) for k in (0, 2, 4, 6))
    if seconds > 60:
        return None
    import datetime as _dt

    try:
        return _dt.datetime(year, month, day, hour, minute, min(seconds, 59), tzinfo=tz).timestamp()
    except ValueError:
        return None


# ------------------------------------------------------------ mounts (df, stat -f, mount)

BLOCK_SIZE = 4096
# statfs f_type for the types the sandbox mounts; others report 0 (GNU: UNKNOWN)
_FS_MAGIC = {"tmpfs": 0x01021994, "devtmpfs": 0x01021994, "overlay": 0x794C7630, "ext4": 0xEF53}


@dataclass(frozen=True)
class FsUsage:
    """statfs(2) of one mount, counted in 4K blocks from its quota. A mount
    without a quota reports zeros, as pseudo filesystems (proc) do."""

    source: str
    fstype: str
    target: str
    read_only: bool
    blocks: int
    bfree: int
    files: int
    ffree: int

    @property
    def magic(self) -> int:
        return _FS_MAGIC.get(self.fstype, 0)


def _usage(info: MountInfo) -> FsUsage:
    # host-backed mounts name their host directory: show the type instead
    source = (
        info.fstype if info.source.startswith("/") and not info.source.startswith("/dev/") else info.source
    )
    q = info.quota
    if q is None:
        return FsUsage(source, info.fstype, info.path, info.read_only, 0, 0, 0, 0)
    blocks = q.max_bytes // BLOCK_SIZE
    used = min(blocks, -(-q.used_bytes // BLOCK_SIZE))
    return FsUsage(
        source,
        info.fstype,
        info.path,
        info.read_only,
        blocks,
        blocks - used,
        q.max_files,
        max(0, q.max_files - q.used_files),
    )


def mount_table(fs: FsView) -> list[FsUsage]:
    """Every mount point, outermost first."""
    return [_usage(m) for m in fs.vfs.mounts()]


def mount_of(fs: FsView, path: str) -> FsUsage:
    """The mount holding `path` (symlinks followed); FsError when it is missing."""
    return _usage(fs.vfs.statfs(fs.abspath(path)))


# ------------------------------------------------------------ in-place rewrites

# a backend (or a mount boundary) that cannot rename onto the file: copy the new content over it
_NO_RENAME = frozenset({errno.EXDEV, errno.ENOSYS, errno.EOPNOTSUPP, errno.EBUSY})
_TEMP_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


class FileRewrite:
    """New content for a file (sed -i, sort -o onto an input, gawk -i inplace), written to
    a temporary file beside it and swapped in by `commit()` only once it is complete, so a
    failure (quota, policy, a limit, bad input) never leaves the file shorter or empty.

    `stream` takes the new content. `commit()` gives the temporary file the original's
    permission bits, optionally moves the original to `backup`, then renames over it (or,
    where the backend cannot rename there, copies over it and removes the temporary
    file). `abort()` removes the temporary file; the original is untouched. With
    `follow`, a symbolic link is written through (sort -o) instead of replaced (sed -i).
    A `with` block commits when it ends normally and aborts otherwise."""

    def __init__(
        self,
        fs: FsView,
        path: str,
        *,
        prefix: str = "tmp",
        follow: bool = False,
        rng: random.Random | None = None,
    ) -> None:
        self.fs = fs
        self.path = path
        if follow:
            try:
                self.path = fs.realpath(path)
            except FsError:
                pass
        self.original = fs.try_stat(self.path) if follow else fs.try_lstat(self.path)
        # the permission bits the new file gets: those of the file a replaced link names, as GNU
        # takes them from the input it opened (fstat), never the link's own 0777
        named = self.original
        if named is not None and named.mode & S_IFMT == S_IFLNK:
            named = fs.try_stat(self.path)
        self.mode = None if named is None else named.mode & 0o7777
        folder = dirname(self.path)
        if rng is None:
            import random

            rng = random.Random()
        for _ in range(100):
            name = prefix + "".join(rng.choice(_TEMP_CHARS) for _ in range(6))
            self.temp = join(folder, name) if folder != "." or self.path.startswith("./") else name
            try:
                self.stream: Stream = fs.open(self.temp, "x")
                break
            except FsError as e:
                if e.code != errno.EEXIST:
                    raise
        else:
            raise FsError(errno.EEXIST, self.temp)
        self.done = False

    def commit(self, backup: str | None = None) -> None:
        if self.done:
            return
        fs = self.fs
        swapped = False
        try:
            self.stream.close()
            if self.mode is not None:
                fs.chmod(self.temp, self.mode)
            if backup is not None and self.original is not None:
                self._move(self.path, backup)
            self._move(self.temp, self.path)
            swapped = True
        finally:
            if not swapped:
                self.abort()
        self.done = True

    def _move(self, src: str, dst: str) -> None:
        try:
            self.fs.rename(src, dst)
            return
        except FsError as e:
            if e.code not in _NO_RENAME:
                raise
        # copy-then-swap: the complete new content goes over the file; the source goes last
        out = self.fs.open(dst, "w")
        src_stream = self.fs.open(src, "r")
        try:
            for chunk in src_stream.chunks():
                out.write(chunk)
        finally:
            src_stream.close()
            out.close()
        self.fs.unlink(src)

    def abort(self) -> None:
        """Drop the temporary file (idempotent); the original stays as it was."""
        if self.done:
            return
        self.done = True
        try:
            self.stream.close()
        except FsError:
            pass
        try:
            self.fs.unlink(self.temp)
        except FsError:
            pass

    def __enter__(self) -> FileRewrite:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            self.commit()
        else:
            self.abort()


def rewrites_in_place(fs: FsView, path: str) -> bool:
    """Whether writing `path` replaces the content of an existing regular file (through links)."""
    st = None if path.startswith("/dev/") else fs.try_stat(path)
    return st is not None and st.is_file


def replace_bytes(
    fs: FsView, path: str, data: bytes, *, prefix: str = "tmp", rng: random.Random | None = None
) -> None:
    """`fs.write_bytes`, except that an existing file keeps its content if the write fails."""
    if not rewrites_in_place(fs, path):
        fs.write_bytes(path, data)
        return
    with FileRewrite(fs, path, prefix=prefix, follow=True, rng=rng) as rewrite:
        rewrite.stream.write(data)


def descriptor_stat(ctx: Ctx, path: str, follow: bool) -> Stat | None:
    """What stat (`follow`) or lstat of /dev/fd/N (and /dev/stdin, /dev/stdout, /dev/stderr when
    followed) gives for this command: its own descriptor, which the file system cannot know (`ls
    <(cmd)`, `stat -L -c %F /dev/stdin < f`). On Linux /dev/fd/N is a link whose mode is the
    descriptor's access and whose target is the open file, a pipe's being a FIFO. None: `path` names
    no descriptor, or a link the file system holds (/dev/stdin unfollowed)."""
    from .context import _dev_fd

    fd = _dev_fd(path)
    if fd is None or (not follow and not path.startswith("/dev/fd/")):
        return None
    stream = ctx.fds.get(fd)
    if stream is None:
        raise FsError(errno.ENOENT, path)
    now = seconds_to_ns(ctx.clock())
    uid, gid = ctx.identity.uid, ctx.identity.gid
    if not follow:
        perm = 0o100 | (0o400 if stream.readable else 0) | (0o200 if stream.writable else 0)
        return Stat(
            S_IFLNK | perm, 64, uid=uid, gid=gid, atime_ns=now, mtime_ns=now, ctime_ns=now, dev=PROC_DEV
        )
    target = getattr(stream, "path", "") or getattr(stream, "dir_path", None) or ""
    if not target and isinstance(stream, NullStream):
        target = "/dev/null"
    if target:
        return ctx.fs.stat(target)
    return Stat(
        S_IFIFO | 0o600, 0, ino=0x10000 + fd, uid=uid, gid=gid, atime_ns=now, mtime_ns=now, ctime_ns=now
    )


def regular_stdin(ctx: Ctx, stream: Stream) -> FileStream | None:
    """`stream` when it is the command's standard input and a regular file's: the input GNU's tools
    size by its offset (`wc -c`) or leave just past what they used for the next reader of the
    descriptor (`head -n 1`, `head -n -N`, `sed q`, `grep -m`), by lseek."""
    return stream if stream is ctx.stdin and isinstance(stream, FileStream) else None


def input_is_output(ctx: Ctx, stream: Stream, unread_only: bool = False) -> bool:
    """Whether the input `stream` is the regular file standard output writes to (GNU's SAME_INODE
    check of an input against stdout's fstat): `cat f >> f` or `grep x f >> f` would read what
    they write for ever. With `unread_only` (GNU cat), only while the input still has bytes past
    its offset: `cat f > f` reads the emptied file and ends."""
    out = ctx.stdout
    if not isinstance(stream, FileStream) or not isinstance(out, FileStream) or not out.writable:
        return False
    si = ctx.fs.try_stat(stream.path)
    so = ctx.fs.try_stat(out.path)
    if si is None or so is None or not si.is_file or (si.ino, si.dev) != (so.ino, so.dev):
        return False
    return not unread_only or stream.tell() < si.size


def same_file(ctx: Ctx, a: str, b: str) -> bool:
    """Whether two names reach one file (its device and inode), both following links."""
    sa = ctx.fs.try_stat(a)
    sb = ctx.fs.try_stat(b)
    return sa is not None and sb is not None and sa.ino == sb.ino and sa.dev == sb.dev
