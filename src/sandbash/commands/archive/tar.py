"""tar (GNU tar 1.34): create, extract, list, append and update archives on the
virtual filesystem.

Archives are read as a stream (`tarfile` in "r|" mode over the decoded
chunks), one member at a time, so neither the archive nor a member is ever
held whole; members are never extracted by `tarfile` itself: each one is
checked (leading `/` and `..` prefixes are removed with GNU's message, names
containing `..` are skipped) and copied in chunks through the filesystem
facade, so policy and quota apply. Compression goes through the same bounded
codecs as gzip/bzip2/xz, and is detected automatically when reading.
"""

from __future__ import annotations

import copy
import datetime as _dt
import errno
import io
import tarfile
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager

from ...expand.pattern import compile_pattern
from ...limits import MemoryHold
from ...posix.zones import local_zone
from ...stdio.streams import Stream
from ...vfs.base import NS, S_IFMT, Stat
from ...vfs.errors import FsError, strerror
from ..context import CommandExit, Ctx
from ..fsutil import group_name, mode_string, quote, user_name
from ..options import version_line
from ..record import Effects, WriteFailure, declare
from . import codecs
from .codecs import STEP, Bounds, CodecError
from .tar_args import TarArgs, TarUsage, parse_tar_args
from .tar_compare import compare_member
from .tar_delayed import DelayedLinks, needs_delay
from .tar_xform import HARDLINK, REGULAR, SYMLINK, transform

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
    from typing import IO, Any
else:  # the same class without importing dataclasses and inspect (~46 M instructions of a first tar)
    from ...leanclass import dataclass, field

EXT_COMPRESSION = (
    (".tar.gz", "gzip"),
    (".tgz", "gzip"),
    (".taz", "gzip"),
    (".tar.Z", "gzip"),
    (".gz", "gzip"),
    (".tar.bz2", "bzip2"),
    (".tbz", "bzip2"),
    (".tbz2", "bzip2"),
    (".tb2", "bzip2"),
    (".bz2", "bzip2"),
    (".tar.xz", "xz"),
    (".txz", "xz"),
    (".xz", "xz"),
    (".tar.lzma", "xz"),
    (".tlz", "xz"),
    (".lzma", "xz"),
)
OPTION_FOR = {"gzip": "-z", "bzip2": "-j", "xz": "-J"}
GZIP_EOF = "stdin: unexpected end of file"
PROGRAMS = {
    "gzip": ("gzip", "stdin: not in gzip format", 1),
    "bzip2": ("bzip2", "(stdin) is not a bzip2 file.", 2),
    "xz": ("xz", "(stdin): File format not recognized", 1),
}


def _raw_lzma(kind: str | None, head: bytes) -> bool:
    """A raw .lzma stream: no magic number GNU tar knows it by (codecs.sniff guesses it)."""
    return kind == "xz" and not head.startswith(codecs.XZ_MAGIC)


class Fatal(Exception):
    """An error tar does not recover from (status 2 after its message)."""


class _ChunkFile:
    """A read-only file over decoded chunks, for `tarfile` in stream mode: it keeps at
    most one chunk and checks the deadline on every read (tarfile's own loops, e.g.
    over a damaged sparse map, have no other way out)."""

    def __init__(self, ctx: Ctx, chunks: Iterator[bytes]) -> None:
        self.ctx = ctx
        self.chunks = chunks
        self.buf = b""
        self.pos = 0

    def read(self, n: int = -1) -> bytes:
        self.ctx.checkpoint(1 + max(n, 0) // 4096)
        while not self.buf:
            chunk = next(self.chunks, None)
            if chunk is None:
                return b""
            self.buf = chunk
        n = len(self.buf) if n < 0 else n
        data, self.buf = self.buf[:n], self.buf[n:]
        self.pos += len(data)
        return data

    def tell(self) -> int:
        return self.pos


def _tarinfo_class(hold: MemoryHold) -> type[tarfile.TarInfo]:
    """TarInfo whose long-name and pax headers are charged to the memory budget before
    tarfile reads them whole (their size is whatever the header claims)."""

    class Bounded(tarfile.TarInfo):
        def _charged(self, proc: Any, tf: tarfile.TarFile) -> tarfile.TarInfo:
            hold.charge(self.size)
            try:
                result: tarfile.TarInfo = proc(tf)
            finally:
                hold.release(self.size)
            return result

        def _proc_gnulong(self, tarfile: tarfile.TarFile) -> tarfile.TarInfo:  # type: ignore[override]
            return self._charged(super()._proc_gnulong, tarfile)  # type: ignore[misc]

        def _proc_pax(self, tarfile: tarfile.TarFile) -> tarfile.TarInfo:  # type: ignore[override]
            return self._charged(super()._proc_pax, tarfile)  # type: ignore[misc]

    return Bounded


@dataclass
class Tar:
    ctx: Ctx
    a: TarArgs
    failed: bool = False
    differs: bool = False  # -d found a difference (status 1)
    prefixes: set[tuple[str, str]] = field(default_factory=set)
    ugswidth: int = 19
    hold: MemoryHold | None = None

    # ------------------------------------------------------------ messages

    def error(self, message: str) -> None:
        self.ctx.error(message)
        self.failed = True

    def fatal(self, message: str) -> Fatal:
        self.ctx.error(message)
        self.ctx.error("Error is not recoverable: exiting now")
        return Fatal()

    def directory_base(self, directory: str) -> str:
        """The absolute path of a -C directory. One tar cannot enter is fatal, named as given
        (`DIR: Cannot open: ...`); one the policy refuses says so, with its rule, never "No such
        file"."""
        base = self.ctx.fs.abspath(directory)
        if not self.ctx.fs.is_dir(base):
            refused = self.ctx.fs.stat_error(base)
            why = refused.message if refused is not None else "Not a directory"
            raise self.fatal(f"{self.a.directory_text.get(directory, directory)}: Cannot open: {why}")
        return base

    def child_fatal(self, message: str, who: str = "child") -> Fatal:
        """An error of the child GNU tar forks to open the archive when it runs a compression
        program (-z, -j, -J, ...): the child's two lines, then the parent's report of it. (The
        program reading standard input is a grandchild.)"""
        self.ctx.stderr.write(
            f"tar ({who}): {message}\ntar ({who}): Error is not recoverable: exiting now\n".encode(
                "utf-8", "surrogateescape"
            )
        )
        return self.fatal("Child returned status 2")

    def filter_failed(self, program: str, message: str, status: int) -> Fatal:
        """The compression program tar reads through rejected the data (gzip starts its
        message with an empty line)."""
        lead = "\n" if program == "gzip" else ""
        self.ctx.stderr.write(f"{lead}{program}: {message}\n".encode())
        return self.fatal(f"Child returned status {status}")

    def strip_unsafe(self, name: str, what: str = "member names") -> str:
        """GNU safer_name_suffix: drop a leading `/` or `...../` prefix, announced once for each
        prefix and kind of name (`what`: member names, or hard link targets)."""
        if self.a.absolute:
            return name
        prefix_len = 0
        i = 0
        while i < len(name):
            if name.startswith("..", i) and (i + 2 == len(name) or name[i + 2] == "/"):
                prefix_len = i + 2
            slash = name.find("/", i)
            if slash < 0:
                break
            i = slash + 1
        while prefix_len < len(name) and name[prefix_len] == "/":
            prefix_len += 1
        if prefix_len:
            prefix = name[:prefix_len]
            if (what, prefix) not in self.prefixes:
                self.prefixes.add((what, prefix))
                self.ctx.error(f"Removing leading `{prefix}' from {what}")
            name = name[prefix_len:]
        return name

    # ------------------------------------------------------------ archive bytes

    def compression_for_create(self) -> str | None:
        if self.a.compress:
            return self.a.compress
        if self.a.auto and self.a.file:
            for ext, kind in EXT_COMPRESSION:
                if self.a.file.endswith(ext):
                    return kind
        return None

    def _raw_chunks(self, stream: Stream) -> Iterator[bytes]:
        for chunk in stream.chunks():
            self.ctx.checkpoint(1 + len(chunk) // 4096)
            yield chunk

    def read_archive(self) -> Generator[bytes, None, None]:
        """The archive's bytes, decoded in bounded steps (compression is sniffed)."""
        path = self.a.file or "-"
        if path == "-":
            stream = self.ctx.stdin
        else:
            try:  # (/dev/fd/N, `tar -tf <(cmd)`: the shell's descriptor)
                stream = self.ctx.open_in(path)
            except FsError as e:
                fail = self.child_fatal if self.a.compress else self.fatal
                raise fail(f"{path}: Cannot open: {strerror(e.errno or 0)}")
        try:
            if self.a.compress == "compress":  # (-Z: the child opens the archive, then execs it)
                who = "grandchild" if path == "-" else "child"
                raise self.child_fatal(f"compress: Cannot exec: {strerror(errno.ENOENT)}", who)
            raw = self._raw_chunks(stream)
            head = b""
            for chunk in raw:
                head += chunk
                if len(head) >= 6:
                    break
            kind = codecs.sniff(head)
            wanted = self.a.compress
            if wanted and kind != wanted:
                program, message, status = PROGRAMS[wanted]
                if program == "gzip" and len(head) < 2:  # (input ended inside gzip's magic number)
                    message = GZIP_EOF
                if program == "bzip2" and b"BZh".startswith(head):  # (ended before its magic number)
                    from .compress import bzip2_corrupt_text

                    text = bzip2_corrupt_text("bzip2", "(stdin)", "(stdout)", "eof")
                    self.ctx.stderr.write(text.encode())
                    raise self.fatal("Child returned status 2")
                raise self.filter_failed(program, message, status)
            if kind is not None and not wanted and path == "-" and not _raw_lzma(kind, head):
                # GNU tar detects compression by reopening the archive through the program,
                # which it cannot do with its standard input (`tar -czf - d | tar -tf -`)
                raise self.fatal(f"Archive is compressed. Use {OPTION_FOR[kind]} option")
            data = _prepend(head, raw)
            if kind is None:
                yield from data
                return
            hold = self.hold if self.hold is not None else self.ctx.hold_memory()
            try:
                yield from codecs.decompress(kind, data, Bounds(hold, self.ctx.checkpoint))
            except CodecError as e:
                if kind == "gzip":
                    raise self.filter_failed("gzip", GZIP_EOF if e.kind == "eof" else PROGRAMS[kind][1], 1)
                raise self.fatal("Child returned status 1")
        finally:
            if stream is not self.ctx.stdin and not self.ctx.names_fd(path):
                stream.close()

    def write_archive(self, data: bytes) -> None:
        kind = self.compression_for_create()
        if kind == "compress":
            # -Z pipes through `compress`, which no system ships any more: the archive is made
            # empty, the shell GNU tar runs it with cannot find it (127)
            if (self.a.file or "-") != "-":
                self.ctx.fs.write_bytes(self.a.file or "-", b"")
            self.ctx.stderr.write(b"/bin/sh: 1: compress: not found\n")
            raise self.fatal("Child returned status 127")
        if kind == "gzip":
            data = b"".join(codecs.gzip_compress([data], 6, None, 0))
        elif kind == "bzip2":
            data = b"".join(codecs.bzip2_compress([data], 9))
        elif kind == "xz":
            data = b"".join(codecs.xz_compress([data], 6))
        path = self.a.file or "-"
        if path == "-":
            self.ctx.stdout.write(data)
            return
        try:
            self.ctx.fs.write_bytes(path, data)
        except FsError as e:
            fail = self.child_fatal if kind else self.fatal
            raise fail(f"{path}: Cannot open: {strerror(e.errno or 0)}")

    @contextmanager
    def archive_members(self) -> Iterator[Iterator[tuple[tarfile.TarInfo, IO[bytes] | None]]]:
        """The archive's members, its file closed when the block ends (not when the collector
        finalises an abandoned generator, possibly inside another filesystem transaction)."""
        chunks = self.read_archive()
        members = self.members(chunks)
        try:
            yield members
        finally:
            members.close()
            chunks.close()

    def members(
        self, chunks: Iterator[bytes]
    ) -> Generator[tuple[tarfile.TarInfo, IO[bytes] | None], None, None]:
        """Each member with a reader of its content (regular files; read it before the next)."""
        hold = self.hold if self.hold is not None else self.ctx.hold_memory()
        source = _ChunkFile(self.ctx, chunks)
        if not _peek(source):
            self.error("This does not look like a tar archive")
            return
        try:
            tf = tarfile.open(fileobj=source, mode="r|", tarinfo=_tarinfo_class(hold))  # type: ignore[call-overload]
        except tarfile.TarError:
            self.error("This does not look like a tar archive")
            return
        # what the archive stream's last read returned: when a member's content is cut,
        # tarfile raises and drops the part it got, which GNU still writes (whole records)
        last = [b""]
        stream_read = tf.fileobj.read

        def recording_read(size: int) -> bytes:
            last[0] = stream_read(size)
            return last[0]

        tf.fileobj.read = recording_read  # type: ignore[method-assign]
        try:
            while (info := tf.next()) is not None:
                # tarfile keeps every member it has read in tf.members (for its own link
                # lookups, unused here): an archive of millions of empty members would
                # grow it without bound, so it holds only the current one
                tf.members.clear()
                self.ctx.checkpoint()
                content = _Content(self, tf.extractfile(info), lambda: last[0]) if info.isreg() else None
                # (a RawIOBase, which the readers take as IO[bytes])
                yield info, content  # type: ignore[misc]
        except tarfile.TarError:
            raise self.fatal("Unexpected EOF in archive")

    # ------------------------------------------------------------ listing

    def long_line(self, info: tarfile.TarInfo) -> str:
        kind = {
            tarfile.DIRTYPE: "d",
            tarfile.SYMTYPE: "l",
            tarfile.LNKTYPE: "h",
            tarfile.CHRTYPE: "c",
            tarfile.BLKTYPE: "b",
            tarfile.FIFOTYPE: "p",
        }.get(info.type, "-")
        modes = kind + mode_string(info.mode)[1:]
        user = info.uname or str(info.uid)
        group = info.gname or str(info.gid)
        size = str(info.size if info.isreg() else 0)
        pad = len(user) + 1 + len(group) + len(size) + 1
        self.ugswidth = max(self.ugswidth, pad)
        stamp = _dt.datetime.fromtimestamp(int(info.mtime), local_zone(self.ctx.env)).strftime(
            "%Y-%m-%d %H:%M"
        )
        name = info.name + ("/" if info.isdir() and not info.name.endswith("/") else "")
        if info.issym():
            name += f" -> {info.linkname}"
        elif info.islnk():
            name += f" link to {info.linkname}"
        return f"{modes} {user}/{group} {size:>{self.ugswidth - pad + len(size)}} {stamp} {name}"

    def show(self, info: tarfile.TarInfo, long: bool, given: str | None = None) -> None:
        """A member's line of -v (-vv: `long`); `given`: the name as the command line spelled it,
        which GNU's -cv/-rv list (`/tmp/x`, `../d/f`: before the leading `/` or `../` is dropped)."""
        if given is not None and given != info.name:
            info = copy.copy(info)
            info.name = given
        name = info.name + ("/" if info.isdir() and not info.name.endswith("/") else "")
        line = self.long_line(info) if long else name
        # GNU lists to stderr when stdout may carry data: with -O (even for -t), or when the
        # archive is being created on it
        to_err = self.a.to_stdout or (self.a.op == "c" and (self.a.file or "-") == "-")
        out = self.ctx.stderr if to_err else self.ctx.stdout
        out.write((line + "\n").encode("utf-8", "surrogateescape"))

    # ------------------------------------------------------------ selection

    def excluded(self, name: str) -> bool:
        parts = name.rstrip("/").split("/")
        for pat in self.a.exclude:
            p = compile_pattern(pat)
            # GNU's default: unanchored (any run of components after a '/') and a match on a
            # leading directory excludes everything below it
            for i in range(len(parts)):
                if any(p.fullmatch("/".join(parts[i:j])) for j in range(i + 1, len(parts) + 1)):
                    return True
        return False

    def selected(self, name: str, wanted: list[str], used: set[str]) -> bool:
        if not wanted:
            return True
        trimmed = name.rstrip("/")
        for w in wanted:
            w_trim = w.rstrip("/") or w
            if self.a.wildcards:
                if compile_pattern(w_trim).fullmatch(trimmed):
                    used.add(w)
                    return True
            elif trimmed == w_trim or trimmed.startswith(w_trim + "/"):
                used.add(w)
                return True
        return False


# ------------------------------------------------------------ create, append


def _add_path(
    tar: Tar, tf: tarfile.TarFile, cwd: str, name: str, seen_inodes: dict[tuple[int, int], str]
) -> None:
    ctx = tar.ctx
    full = name if name.startswith("/") else cwd.rstrip("/") + "/" + name
    try:
        st = ctx.fs.lstat(full)
        if st.is_link and tar.a.dereference:
            st = ctx.fs.stat(full)
    except FsError as e:  # (a name the policy refuses says so, with its rule: not "No such file")
        tar.error(f"{name}: Cannot stat: {strerror(e.errno or 0)}")
        return
    member = tar.strip_unsafe(name) if not tar.a.absolute else name
    member = member or "."
    if tar.excluded(member):
        return
    archive_path = tar.a.file and ctx.fs.abspath(tar.a.file)
    if archive_path and ctx.fs.normpath(full) == ctx.fs.normpath(archive_path):
        ctx.error(f"{name}: file is the archive; not dumped")
        return
    ctx.checkpoint()
    info = _tarinfo(tar, member, st, full)
    if st.is_file and not tar.a.hard_dereference:
        # GNU tar 1.34 stores a regular file it already archived in this run as a hard link to
        # the first name, whatever its link count (`tar cf a.tar f ./f`); the target is the
        # name as given, made safe as a link target
        key = (st.dev, st.ino)
        first = seen_inodes.get(key)
        if first is not None:
            info.type, info.size = tarfile.LNKTYPE, 0
            info.linkname = tar.strip_unsafe(first, "hard link targets") or "."
        else:
            seen_inodes[key] = name
    if tar.a.verbose:
        tar.show(info, tar.a.verbose > 1, name)  # (the name on disk: untransformed, unstripped)
    if tar.a.transforms:
        _rename(tar, info)
    if info.type == tarfile.REGTYPE:
        _charge(tar, info.size)
        tf.addfile(info, io.BytesIO(ctx.fs.read_bytes(full)))
    else:
        tf.addfile(info)
    if st.is_dir and tar.a.recursion:
        for child in ctx.fs.listdir(full):  # directory order, as GNU tar (--sort=none)
            _add_path(tar, tf, cwd, name.rstrip("/") + "/" + child, seen_inodes)


def _rename(tar: Tar, info: tarfile.TarInfo) -> None:
    """--transform: a member's name, and a link's target in the links' scopes."""
    xf = tar.a.transforms
    info.name = transform(xf, info.name, REGULAR)
    if info.type == tarfile.SYMTYPE:
        info.linkname = transform(xf, info.linkname, SYMLINK)
    elif info.type == tarfile.LNKTYPE:
        info.linkname = transform(xf, info.linkname, HARDLINK)


def _charge(tar: Tar, size: int) -> None:
    """An archive being built is held in memory (a header and the padded content)."""
    if tar.hold is not None:
        tar.hold.charge(size + 1024)


def _tarinfo(tar: Tar, member: str, st: Stat, full: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(member + ("/" if st.is_dir and not member.endswith("/") else ""))
    info.mode = st.mode & 0o7777
    info.mtime = int(st.mtime)
    info.uid, info.gid = st.uid, st.gid
    info.uname, info.gname = user_name(st.uid), group_name(st.gid)
    if tar.a.owner is not None:
        info.uname = tar.a.owner
        info.uid = int(tar.a.owner) if tar.a.owner.isdigit() else info.uid
    if tar.a.group is not None:
        info.gname = tar.a.group
        info.gid = int(tar.a.group) if tar.a.group.isdigit() else info.gid
    if info.uname.isdigit():
        info.uname = user_name(int(info.uname))
    if info.gname.isdigit():
        info.gname = group_name(int(info.gname))
    if st.is_dir:
        info.type = tarfile.DIRTYPE
    elif st.is_link:
        info.type = tarfile.SYMTYPE
        info.linkname = tar.ctx.fs.readlink(full)
    elif st.is_file:
        info.type = tarfile.REGTYPE
        info.size = st.size
    else:
        info.type = {0o020000: tarfile.CHRTYPE, 0o060000: tarfile.BLKTYPE}.get(
            st.mode & S_IFMT, tarfile.FIFOTYPE
        )
    return info


def _create(tar: Tar, existing: bool | None = None) -> None:
    """Create (existing None) or append to an archive (existing: whether the file is there)."""
    ctx = tar.ctx
    if not tar.a.names and not tar.a.files_from:  # (an empty -T list makes an empty archive)
        if existing is None:
            ctx.error("Cowardly refusing to create an empty archive")
            ctx.stderr.write(b"Try 'tar --help' or 'tar --usage' for more information.\n")
            raise CommandExit(2)
    if (tar.a.file or "-") == "-" and ctx.stdout.is_tty:
        raise tar.fatal("Refusing to write archive contents to terminal (missing -f option?)")
    buf = io.BytesIO()
    seen: dict[tuple[int, int], str] = {}
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        old: dict[str, float] = {}
        if existing:
            with tar.archive_members() as members:
                for info, content in members:
                    # the new archive is built in memory: charge each member before it is read
                    _charge(tar, info.size if content is not None else 0)
                    tf.addfile(info, io.BytesIO(content.read()) if content is not None else None)
                    old[info.name.rstrip("/")] = info.mtime
        bases: dict[str, str] = {}
        for cwd, name in tar.a.names:
            base = ctx.cwd
            if cwd:
                if cwd not in bases:
                    try:
                        bases[cwd] = tar.directory_base(cwd)
                    except Fatal:
                        if existing is None:  # (GNU made the archive before it changed directory)
                            tar.write_archive(b"")
                        raise
                base = bases[cwd]
            if tar.a.op == "u":
                st = ctx.fs.try_stat(name if name.startswith("/") else base.rstrip("/") + "/" + name)
                if (
                    st is not None
                    and not st.is_dir
                    and name.rstrip("/") in old
                    and st.mtime <= old[name.rstrip("/")]
                ):
                    continue
            _add_path(tar, tf, base, name, seen)
    tar.write_archive(buf.getvalue())


# ------------------------------------------------------------ extract, list


def _strip(name: str, count: int) -> str | None:
    parts = [p for p in name.split("/") if p]
    if count >= len(parts):
        return None
    trailing = "/" if name.endswith("/") else ""
    return "/".join(parts[count:]) + trailing


def _prepend(head: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if head:
        yield head
    yield from rest


def _peek(source: _ChunkFile) -> bool:
    """Whether any data is left (what was read is put back)."""
    data = source.read(1)
    source.buf = data + source.buf
    source.pos -= len(data)
    return bool(data)


class _Content(io.RawIOBase):
    """A member's content; a cut archive found while reading it is GNU's fatal error
    (tarfile raises ReadError in the reader's frame, outside `members`)."""

    def __init__(self, tar: Tar, inner: IO[bytes] | None, last_read: Callable[[], bytes]) -> None:
        super().__init__()
        self.tar, self.inner, self.last_read = tar, inner, last_read
        self.cut = False

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        if self.inner is None:
            return b""
        if not self.cut:
            try:
                return self.inner.read(-1 if size is None else size)
            except tarfile.TarError:
                self.cut = True
                got = self.last_read()
                # GNU writes the whole records it got (copies in pieces only: a read of
                # everything must fail whole); the next read fails
                if size is not None and size >= 0 and len(got) >= 512:
                    return got[: len(got) // 512 * 512]
        if self.tar.a.op == "x":  # GNU says it for the member, then for the archive
            self.tar.ctx.error("Unexpected EOF in archive")
        raise self.tar.fatal("Unexpected EOF in archive")


def _copy(tar: Tar, content: IO[bytes], out: Stream) -> None:
    """A member's content, STEP bytes at a time (a sparse member may claim terabytes)."""
    while True:
        tar.ctx.checkpoint()
        piece = content.read(STEP)
        if not piece:
            return
        out.write(piece)


def _extract_one(
    tar: Tar,
    info: tarfile.TarInfo,
    content: IO[bytes] | None,
    base: str,
    dirs: list[tuple[str, tarfile.TarInfo]],
    delayed: DelayedLinks,
) -> None:
    ctx, fs = tar.ctx, tar.ctx.fs
    name = tar.strip_unsafe(info.name)
    if not tar.a.absolute and ".." in info.name.split("/"):
        tar.error(f"{info.name}: Member name contains '..'")
        return
    if tar.a.transforms:  # before --strip-components, as GNU tar
        name = transform(tar.a.transforms, name, REGULAR)
        if info.issym():
            info.linkname = transform(tar.a.transforms, info.linkname, SYMLINK)
        elif info.islnk():
            info.linkname = transform(tar.a.transforms, info.linkname, HARDLINK)
    if tar.a.strip:
        stripped = _strip(name, tar.a.strip)
        if stripped is None:
            return
        name = stripped
    if not name or name in (".", "./"):
        if not info.isdir():
            return
        name = "."
    if tar.a.verbose:
        tar.show(info, tar.a.verbose > 1)
    if tar.a.to_stdout:
        if content is not None:
            _copy(tar, content, ctx.stdout)
        return
    target = base.rstrip("/") + "/" + name.rstrip("/") if not name.startswith("/") else name
    parent = target.rsplit("/", 1)[0] or "/"
    try:
        if not fs.is_dir(parent):
            try:
                _make_parents(tar, parent, base)
            except FsError as e:
                if not info.isdir():
                    raise
                tar.error(f"{name}: Cannot mkdir: {strerror(e.errno or 0)}")
                return
        existing = fs.try_lstat(target)
        if info.isdir():
            try:
                if existing is None:
                    fs.mkdir(target, 0o700)
                elif not existing.is_dir:
                    fs.unlink(target)
                    fs.mkdir(target, 0o700)
            except FsError as e:
                tar.error(f"{name}: Cannot mkdir: {strerror(e.errno or 0)}")
                return
            dirs.append((target, info))
            return
        source = None
        if info.islnk():
            link = tar.strip_unsafe(info.linkname, "hard link targets")
            if tar.a.strip:
                link = _strip(link, tar.a.strip) or link
            source = base.rstrip("/") + "/" + link if not link.startswith("/") else link
            if existing is not None and not existing.is_dir:
                # GNU tar links first: EEXIST on the very file is success (`f link to f`, made
                # by archiving f twice)
                now = fs.try_stat(source)
                if now is not None and (now.dev, now.ino) == (existing.dev, existing.ino):
                    return
        if existing is not None:
            if tar.a.keep_old:
                what = f"Cannot create symlink to {quote(info.linkname)}" if info.issym() else "Cannot open"
                tar.error(f"{name}: {what}: File exists")
                return
            if tar.a.skip_old:
                return
            if existing.is_dir:
                if not info.isdir():
                    fs.rmdir(target)
            else:
                fs.unlink(target)
        if info.issym():
            fs.symlink(info.linkname, target)  # (made, so the policy decides on it as ever ...)
            if not tar.a.absolute and needs_delay(info.linkname):
                # ... then GNU's placeholder: nothing goes through the link before the archive ends
                delayed.place(target, name, info.linkname, None if tar.a.touch else _mtime_ns(info))
                return
        elif source is not None:
            try:
                fs.link(source, target)
            except FsError as e:
                tar.error(f"{name}: Cannot hard link to {quote(info.linkname)}: {strerror(e.errno or 0)}")
                return
            delayed.linked(source, target, name)
            return
        elif info.isreg():
            out = fs.open(target, "w")
            try:
                if content is not None:
                    _copy(tar, content, out)
            except FsError as e:
                tar.error(f"{name}: Cannot write: {strerror(e.errno or 0)}")
                return
            finally:
                out.close()
        else:
            fs.write_bytes(target, b"")  # devices and fifos become empty files in the sandbox
        if not info.issym():
            fs.chmod(target, _mode(tar, info.mode))
            if not tar.a.touch:
                fs.utime(target, _mtime_ns(info), _mtime_ns(info), follow=False)
    except FsError as e:
        tar.error(f"{name}: Cannot open: {strerror(e.errno or 0)}")


def _make_parents(tar: Tar, parent: str, base: str) -> None:
    """Create missing directories; -vv announces each as GNU tar does."""
    fs = tar.ctx.fs
    missing = []
    cur = parent
    while cur and cur != "/" and not fs.is_dir(cur):
        st = fs.try_stat(cur)
        if st is not None:  # a file (a delayed link's placeholder) where a directory must be
            raise FsError(errno.ENOTDIR, cur)
        missing.append(cur)
        cur = cur.rsplit("/", 1)[0]
    for d in reversed(missing):
        fs.mkdir(d)
        if tar.a.verbose > 1:
            shown = d[len(base.rstrip("/")) + 1 :] if d.startswith(base.rstrip("/") + "/") else d
            modes = mode_string(0o040777 & ~fs.umask)
            tar.ctx.out(f"{modes} {'Creating directory:':>{tar.ugswidth + 1 + 16}} {shown}\n")


def _mtime_ns(info: tarfile.TarInfo) -> int:
    """A member's time in nanoseconds: a pax header keeps the decimal fraction exactly
    (tarfile's float of it would not), ustar and GNU headers whole seconds."""
    text = info.pax_headers.get("mtime", "")
    whole, _, frac = text.partition(".")
    if whole.lstrip("-").isdigit() and (frac.isdigit() or not frac):
        sign = -1 if whole.startswith("-") else 1
        return int(whole) * NS + sign * int((frac + "0" * 9)[:9])
    return int(info.mtime) * NS


def _mode(tar: Tar, mode: int) -> int:
    # an ordinary user gets the archive's permissions less the umask, unless -p
    return mode & 0o7777 if tar.a.preserve else mode & 0o777 & ~tar.ctx.fs.umask


def _read(tar: Tar) -> None:
    ctx = tar.ctx
    base = ctx.cwd if tar.a.directory is None else tar.directory_base(tar.a.directory)
    wanted = [name for _, name in tar.a.names]
    used: set[str] = set()
    dirs: list[tuple[str, tarfile.TarInfo]] = []
    delayed = DelayedLinks(ctx, tar.error)
    try:
        _members(tar, base, wanted, used, dirs, delayed)
    except Fatal:
        delayed.apply()  # (an archive cut short too, as GNU's fatal exit)
        raise
    delayed.apply()
    # directory times last, as GNU does, so extracting files into them does not change them
    for target, info in reversed(dirs):
        try:
            ctx.fs.chmod(target, _mode(tar, info.mode))
            if not tar.a.touch:
                ctx.fs.utime(target, _mtime_ns(info), _mtime_ns(info))
        except FsError:
            pass
    for name in wanted:
        if name not in used:
            tar.error(f"{name}: Not found in archive")


def _members(
    tar: Tar,
    base: str,
    wanted: list[str],
    used: set[str],
    dirs: list[tuple[str, tarfile.TarInfo]],
    delayed: DelayedLinks,
) -> None:
    """List (-t), compare (-d) or extract each selected member."""
    ctx = tar.ctx
    with tar.archive_members() as members:
        for info, content in members:
            ctx.checkpoint()
            if tar.excluded(info.name) or not tar.selected(info.name, wanted, used):
                continue
            if tar.a.op == "t":
                tar.strip_unsafe(info.name)
                tar.show(info, tar.a.verbose > 0)
            elif tar.a.op == "d":
                shown = info.name + ("/" if info.isdir() and not info.name.endswith("/") else "")
                if tar.a.verbose:
                    tar.show(info, tar.a.verbose > 1)
                name = tar.strip_unsafe(info.name)
                path = name if name.startswith("/") else base.rstrip("/") + "/" + name.rstrip("/")
                tar.differs |= compare_member(ctx, info, content, path, shown)
            else:
                _extract_one(tar, info, content, base, dirs, delayed)


# the archive written to standard output
WRITE_FAILURE = WriteFailure(
    status=2, at_exit="{name}: -: Cannot write: {err}\n{name}: Error is not recoverable: exiting now\n"
)


@declare("tar", uses=("bzip2", "gzip", "xz"), effects=Effects.TAR, write_failure=WRITE_FAILURE)
def cmd_tar(ctx: Ctx) -> int:
    try:
        args = parse_tar_args(ctx.args)
    except TarUsage as e:
        if e.message:
            ctx.error(e.message)
        ctx.stderr.write(b"Try 'tar --help' or 'tar --usage' for more information.\n")
        return e.status
    if args.version:
        ctx.out(version_line("tar"))
        return 0
    if args.help:
        ctx.out(
            "Usage: tar [OPTION...] [FILE]...\nGNU 'tar' saves many files together into a single tape or disk "
            "archive, and can\nrestore individual files from the archive.\n"
        )
        return 0
    with ctx.hold_memory() as hold:
        return _run(ctx, Tar(ctx, args, hold=hold))


def _run(ctx: Ctx, tar: Tar) -> int:
    args = tar.a
    try:
        _read_lists(tar)
        if args.op == "c":
            _create(tar)
        elif args.op in ("r", "u"):
            if tar.compression_for_create() or args.compress:
                ctx.error("Cannot update compressed archives")
                ctx.stderr.write(b"Try 'tar --help' or 'tar --usage' for more information.\n")
                return 2
            _create(tar, bool(args.file and args.file != "-" and ctx.fs.exists(args.file)))
        else:
            _read(tar)
    except Fatal:
        return 2
    if tar.failed:
        ctx.error("Exiting with failure status due to previous errors")
        return 2
    return 1 if tar.differs else 0


def _read_lists(tar: Tar) -> None:
    """-T and -X: names and exclusion patterns from files (one per line)."""
    ctx, a = tar.ctx, tar.a
    for cwd, path in a.files_from:
        try:
            text = ctx.read_input(path).decode("utf-8", "surrogateescape")
        except FsError as e:
            # GNU stats the list first: a name that is not there "Cannot stat"
            what = "Cannot stat" if e.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP) else "Cannot open"
            raise tar.fatal(f"{path}: {what}: {strerror(e.errno or 0)}")
        a.names.extend((cwd, line) for line in text.split("\n") if line)
    for path in a.exclude_from:
        try:
            text = ctx.read_input(path).decode("utf-8", "surrogateescape")
        except FsError as e:
            raise tar.fatal(f"{path}: {strerror(e.errno or 0)}")  # (GNU's -X words, no verb)
        a.exclude.extend(line for line in text.split("\n") if line)
