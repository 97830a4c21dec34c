"""gzip, bzip2 and xz (and their gunzip/zcat, bunzip2/bzcat, unxz/xzcat forms).

One driver walks the operands (stdin, files, -r directories), opens inputs,
streams through a codec and writes the output with the input's mode and
mtime; each tool supplies its options, suffixes and GNU wording. Exit status
is 0, 1 for errors and 2 for warnings (bzip2: 2 for corrupt data).
"""

from __future__ import annotations

import errno
from collections.abc import Iterable, Iterator

from ...leanclass import replace  # (as dataclasses.replace, which would import dataclasses)
from ...stdio.streams import ClosedStream, StreamReadError
from ...vfs.base import NS
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..options import CommandSpec, Opt, Parsed, help_text, usage_message, version_text
from ..record import Effects, WriteFailure, declare
from . import codecs
from .codecs import Bounds, CodecError, GzipInfo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field

    from ...stdio.streams import Stream
    from ...vfs.base import Stat
else:  # the same class without importing dataclasses and inspect (~46 M instructions of a first gzip)
    from ...leanclass import dataclass, field


def level_opts() -> tuple[Opt, ...]:
    return tuple(Opt(str(n), None, dest="level", const=n) for n in range(10))


GZIP_SPEC = CommandSpec(
    "gzip",
    "[OPTION]... [FILE]...",
    "Compress or uncompress FILEs (by default, compress FILES in-place).",
    try_quote="`",
    opts=(
        Opt("c", "stdout", help="write on standard output, keep original files unchanged"),
        Opt(None, "to-stdout", dest="stdout"),
        Opt("d", "decompress", help="decompress"),
        Opt(None, "uncompress", dest="decompress"),
        Opt("f", "force", help="force overwrite of output file and compress links"),
        Opt("k", "keep", help="keep (don't delete) input files"),
        Opt("l", "list", help="list compressed file contents"),
        Opt("n", "no-name", help="do not save or restore the original name and timestamp"),
        Opt("N", "name", help="save or restore the original name and timestamp"),
        Opt("q", "quiet", help="suppress all warnings"),
        Opt("r", "recursive", help="operate recursively on directories"),
        Opt(None, "rsyncable", help="make rsync-friendly archive"),
        Opt("S", "suffix", "required", metavar="SUF", help="use suffix SUF on compressed files"),
        Opt(None, "synchronous", help="synchronous output (safer if system crashes, but slower)"),
        Opt("t", "test", help="test compressed file integrity"),
        Opt("v", "verbose", help="verbose mode"),
        Opt(None, "fast", dest="level", const=1, help="compress faster"),
        Opt(None, "best", dest="level", const=9, help="compress better"),
        *level_opts(),
        # gzip 1.12's other letters: -m/-M leave out or keep the time alone (-n/-N both name and
        # time; the last given wins), -a is ignored off MS-DOS, -b is the old LZW bits (ignored),
        # -h/-H help, -V/-L the version, -Z (LZW compression) is not built in
        Opt("m", "no-time"),
        Opt("M", "time"),
        Opt("a", "ascii"),
        Opt("b", "bits", "required"),
        Opt("h", None, dest="show_help", stop=True),
        Opt("H", None, dest="show_help", stop=True),
        Opt("V", None, dest="show_version", stop=True),
        Opt("L", "license", dest="show_version", stop=True),
        Opt("Z", None, dest="lzw"),
    ),
)


def _gzip_script_spec(name: str, summary: str, shown: dict[str, str]) -> CommandSpec:
    """The spec of gunzip or zcat, GNU's scripts running `gzip -d` / `gzip -cd`: gzip's options
    (they pass every one on), their own usage, summary and help rows (`shown`: the options each
    documents, by key, and the help text it gives them)."""
    opts = tuple(replace(o, help=shown.get(o.key, "") if o.help else "") for o in GZIP_SPEC.opts)
    return replace(GZIP_SPEC, name=name, summary=summary, opts=opts, runs="gzip")


_SCRIPT_ROWS = {o.key: o.help for o in GZIP_SPEC.opts if o.help}
GUNZIP_SPEC = _gzip_script_spec(
    "gunzip",
    "Uncompress FILEs (by default, in-place).",
    {k: v for k, v in _SCRIPT_ROWS.items() if k not in ("decompress", "rsyncable", "level")},
)
ZCAT_SPEC = _gzip_script_spec(
    "zcat",
    "Uncompress FILEs to standard output.",
    {
        **{
            k: _SCRIPT_ROWS[k]
            for k in ("list", "quiet", "recursive", "suffix", "synchronous", "test", "verbose")
        },
        "force": "force; read compressed data even from a terminal",
    },
)
BZIP2_SPEC = CommandSpec(
    "bzip2",
    "[flags and input files in any order]",
    "a block-sorting file compressor",
    opts=(
        Opt("c", "stdout", help="output to standard out"),
        Opt("d", "decompress", help="force decompression"),
        Opt("z", "compress", help="force compression"),
        Opt("k", "keep", help="keep (don't delete) input files"),
        Opt("f", "force", help="overwrite existing output files"),
        Opt("t", "test", help="test compressed file integrity"),
        Opt("q", "quiet", help="suppress noncritical error messages"),
        Opt("v", "verbose", count=True, help="be verbose"),
        Opt("s", "small", help="use less memory (at most 2500k)"),
        Opt("L", "license", help="display software version & license"),
        Opt(None, "fast", dest="level", const=1),
        Opt(None, "best", dest="level", const=9),
        *level_opts()[1:],
    ),
)
XZ_SPEC = CommandSpec(
    "xz",
    "[OPTION]... [FILE]...",
    "Compress or decompress FILEs in the .xz format.",
    opts=(
        Opt("z", "compress", help="force compression"),
        Opt("d", "decompress", help="force decompression"),
        Opt(None, "uncompress", dest="decompress"),
        Opt("t", "test", help="test compressed file integrity"),
        Opt("l", "list", help="list information about .xz files"),
        Opt("k", "keep", help="keep (don't delete) input files"),
        Opt("f", "force", help="force overwrite of output file and (de)compress links"),
        Opt("c", "stdout", help="write to standard output and don't delete input files"),
        Opt(None, "to-stdout", dest="stdout"),
        Opt("e", "extreme", help="try to improve compression ratio by using more CPU time"),
        Opt("T", "threads", "required", metavar="NUM", help="use at most NUM threads"),
        Opt("F", "format", "required", metavar="FMT", help="file format to encode or decode"),
        Opt("C", "check", "required", metavar="CHECK", help="integrity check type"),
        Opt("S", "suffix", "required", metavar=".SUF", help="use the suffix '.SUF' on compressed files"),
        Opt("q", "quiet", count=True, help="suppress warnings"),
        Opt("v", "verbose", count=True, help="be verbose"),
        Opt("M", "memlimit", "required", metavar="LIMIT"),
        Opt(None, "fast", dest="level", const=0),
        Opt(None, "best", dest="level", const=9),
        *level_opts(),
    ),
)


class Skip(Exception):
    """This operand is done (an error or warning has been reported)."""


@dataclass
class Job:
    ctx: Ctx
    tool: str
    opts: Parsed
    decompress: bool
    status: int = 0
    gzip_list: list[tuple[int, int, int]] = field(default_factory=list)
    # decoders charge the run's memory budget and check the deadline through this
    bounds: Bounds = field(default_factory=Bounds)
    # bzip2 -t: files that failed (the advice about bzip2recover comes once, at the end)
    tested_bad: int = 0

    @property
    def force(self) -> bool:
        return self.opts.has("force")

    def fail(self, status: int) -> None:
        self.status = max(self.status, status)


# ------------------------------------------------------------ shared plumbing


def _chunks(ctx: Ctx, stream: object) -> Iterator[bytes]:
    from ...stdio.streams import Stream

    assert isinstance(stream, Stream)
    for chunk in stream.chunks():
        ctx.checkpoint(len(chunk) // 4096 + 1)
        yield chunk


def _counted(chunks: Iterable[bytes], box: list[int]) -> Iterator[bytes]:
    for chunk in chunks:
        box[0] += len(chunk)
        yield chunk


def _write_file(ctx: Ctx, path: str, data: Iterable[bytes], mode: int, mtime: int) -> None:
    """Write the output file, then give it the mode and the time (nanoseconds) it keeps."""
    out = ctx.fs.open(path, "w")
    done = False
    try:
        for chunk in data:
            out.write(chunk)
        done = True
    finally:
        out.close()
        if not done:
            ctx.fs.unlink(path)  # no half-written output is left behind (bad data, quota, a limit)
    ctx.fs.chmod(path, mode & 0o7777)
    ctx.fs.utime(path, mtime, mtime)


def _gzip_suffix_out(name: str, suffix: str) -> str | None:
    """The name a compressed file decompresses to, or None for an unknown suffix."""
    low = name.lower()
    for suf, repl in (
        (suffix.lower(), ""),
        (".gz", ""),
        ("-gz", ""),
        (".z", ""),
        ("-z", ""),
        ("_z", ""),
        (".tgz", ".tar"),
        (".taz", ".tar"),
    ):
        if low.endswith(suf) and len(name) > len(suf):
            return name[: len(name) - len(suf)] + repl
    return None


def _bzip2_out(name: str) -> str | None:
    for suf, repl in ((".bz2", ""), (".bz", ""), (".tbz2", ".tar"), (".tbz", ".tar")):
        if name.endswith(suf) and len(name) > len(suf):
            return name[: len(name) - len(suf)] + repl
    return None


def _xz_out(name: str, suffix: str | None) -> str | None:
    pairs = [(".xz", ""), (".txz", ".tar"), (".lzma", ""), (".tlz", ".tar")]
    if suffix:
        pairs.insert(0, (suffix, ""))
    for suf, repl in pairs:
        if name.endswith(suf) and len(name) > len(suf):
            return name[: len(name) - len(suf)] + repl
    return None


def _ratio(num: int, den: int) -> str:
    return f"{(100.0 * num / den) if den else 0.0:5.1f}%"


# ------------------------------------------------------------ per-tool wording


def _passthrough(job: Job, e: CodecError, to_stdout: bool) -> bool:
    """gzip -dcf copies data that is not compressed unchanged."""
    return job.tool == "gzip" and job.force and to_stdout and e.kind == "format"


def _gzip_data_error(job: Job, label: str, e: CodecError) -> None:
    text = {"format": "not in gzip format", "eof": "unexpected end of file"}.get(e.kind, e.detail)
    for line in text.split("\n"):
        job.ctx.stderr.write(f"\n{job.ctx.name}: {label}: {line}\n".encode("utf-8", "surrogateescape"))
    job.fail(1)


_BZIP2_RECOVER = (
    "\nYou can use the `bzip2recover' program to attempt to recover\n"
    "data from undamaged sections of corrupted files.\n\n"
)


def _bzip2_data_error(job: Job, label: str, out_label: str, e: CodecError, reason: str = "") -> None:
    """`reason`: the strerror bzip2 prints under "*Possible* reason follows" (a read that failed)."""
    name = job.ctx.name
    if job.opts.has("test"):
        why = {"format": "bad magic number (file not created by bzip2)", "eof": "file ends unexpectedly"}.get(
            e.kind, "data integrity (CRC) error in data"
        )
        job.ctx.error(f"{label}: {why}")
        job.tested_bad += 1
        job.fail(2)
        return
    if e.kind == "format":
        job.ctx.error(f"{label} is not a bzip2 file.")
        job.fail(2)
        return
    job.ctx.stderr.write(
        bzip2_corrupt_text(name, label, out_label, e.kind, reason).encode("utf-8", "surrogateescape")
    )
    job.fail(2)


def bzip2_corrupt_text(name: str, label: str, out_label: str, kind: str, reason: str = "") -> str:
    """bzip2's report of a stream that ends early (`kind` "eof") or fails its check."""
    if kind == "eof":
        # bzip2 prints whatever errno holds: ENOTTY after probing stdin, else 0
        reason = reason or ("Inappropriate ioctl for device" if label == "(stdin)" else "Success")
        head = (
            f"\n{name}: Compressed file ends unexpectedly;\n\tperhaps it is corrupted?  *Possible* reason "
            f"follows.\n{name}: {reason}\n\tInput file = {label}, output file = {out_label}\n"
        )
    else:
        head = f"\n{name}: Data integrity error when decompressing.\n\tInput file = {label}, output file = {out_label}\n"
    return (
        head
        + "\nIt is possible that the compressed file(s) have become corrupted.\nYou can use the -tvv option to "
        "test integrity of such files.\n" + _BZIP2_RECOVER
    )


def _xz_data_error(job: Job, label: str, e: CodecError) -> None:
    text = {"format": "File format not recognized", "eof": "Unexpected end of input"}.get(
        e.kind, "Compressed data is corrupt"
    )
    job.ctx.error(f"{label}: {text}")
    job.fail(1)


def _data_error(job: Job, label: str, out_label: str, e: CodecError) -> None:
    if job.tool == "gzip":
        _gzip_data_error(job, label, e)
    elif job.tool == "bzip2":
        _bzip2_data_error(job, label, out_label, e)
    else:
        _xz_data_error(job, label, e)


def _missing(job: Job, path: str, err: str) -> None:
    if job.tool == "bzip2":
        job.ctx.error(f"Can't open input file {path}: {err}.")
    else:
        job.ctx.error(f"{path}: {err}")
    job.fail(1)


# ------------------------------------------------------------ the codec for a job


def _level(job: Job) -> int:
    default = {"gzip": 6, "bzip2": 9, "xz": 6}[job.tool]
    level = job.opts.get("level", default)
    return int(level)


def _gzip_saves(opts: Parsed) -> tuple[bool, bool]:
    """Whether gzip stores the input's name and its time in the header: -n drops both, -N keeps
    both, -m drops the time, -M keeps it; the last given wins."""
    name = time = True
    for key, _ in opts.order:
        if key in ("no_name", "name"):
            name = time = key == "name"
        elif key in ("no_time", "time"):
            time = key == "time"
    return name, time


def _encode(job: Job, chunks: Iterable[bytes], name: str | None, mtime: int) -> Iterator[bytes]:
    if job.tool == "gzip":
        save_name, save_time = _gzip_saves(job.opts)
        return codecs.gzip_compress(
            chunks, _level(job), name if save_name else None, mtime if save_time else 0
        )
    if job.tool == "bzip2":
        return codecs.bzip2_compress(chunks, _level(job))
    fmt = (job.opts.get("format") or "xz").lower()
    return codecs.xz_compress(
        chunks, _level(job), job.opts.has("extreme"), "lzma" if fmt in ("lzma", "alone") else "xz"
    )


def _decode(job: Job, chunks: Iterable[bytes], info: GzipInfo) -> Iterator[bytes]:
    if job.tool == "gzip":
        return codecs.gzip_decompress(chunks, info, job.bounds)
    if job.tool == "bzip2":
        return codecs.bzip2_decompress(chunks, job.bounds)
    return codecs.xz_decompress(chunks, job.bounds)


def _suffix(job: Job) -> str:
    if job.tool == "gzip":
        return str(job.opts.get("suffix") or ".gz")
    if job.tool == "bzip2":
        return ".bz2"
    fmt = (job.opts.get("format") or "xz").lower()
    return str(job.opts.get("suffix") or (".lzma" if fmt in ("lzma", "alone") else ".xz"))


# ------------------------------------------------------------ operands


def _stdin(job: Job, stream: Stream | None = None, name: str = "") -> None:
    """Standard input, or `stream`, a descriptor of the shell given as /dev/fd/N (`name`)."""
    ctx = job.ctx
    stream = ctx.stdin if stream is None else stream
    to_stdout = not job.opts.has("test")
    if not job.decompress and ctx.stdout.is_tty and not job.force and to_stdout:
        if job.tool == "gzip":
            ctx.error("compressed data not written to a terminal. Use -f to force compression.")
            ctx.stderr.write(f"For help, type: {ctx.name} -h\n".encode())
        elif job.tool == "bzip2":
            ctx.error("I won't write compressed data to a terminal.")
            ctx.stderr.write(f"{ctx.name}: For help, type: `{ctx.name} --help'.\n".encode())
        else:
            ctx.error("Compressed data cannot be written to a terminal")
        job.fail(1)
        return
    label = name or {"gzip": "stdin", "bzip2": "(stdin)", "xz": "(stdin)"}[job.tool]
    try:  # `gzip < dir`: the first read fails, before any output is written
        stream.unread(stream.read(1))
    except StreamReadError as e:
        _read_failed(job, label, e.strerror or "Input/output error")
        return
    chunks: Iterable[bytes] = _chunks(ctx, stream)
    if job.decompress and job.tool == "gzip" and job.force and to_stdout:
        # sniff first, so data that is not gzip can be copied through whole
        head = stream.read(2)
        stream.unread(head)
        if head[:2] != b"\x1f\x8b":
            for chunk in _chunks(ctx, stream):
                ctx.stdout.write(chunk)
            return
        chunks = _chunks(ctx, stream)
    if not job.decompress:
        for piece in _encode(job, chunks, None, 0):
            ctx.stdout.write(piece)
        return
    info = GzipInfo()
    try:
        for piece in _decode(job, chunks, info):
            if to_stdout:
                ctx.stdout.write(piece)
    except CodecError as e:
        if not _passthrough(job, e, to_stdout):
            _data_error(job, label, "(stdout)", e)
        return
    _trailing(job, label, info)


def _read_failed(job: Job, label: str, reason: str) -> None:
    """Standard input could not be read, in each tool's words."""
    ctx = job.ctx
    if job.tool == "gzip" and isinstance(ctx.stdin, ClosedStream) and label == "stdin":
        # (a closed fd 0 fails gzip's fstat at start, a fatal error in gnulib's words)
        ctx.error(f"standard input: {reason}")
        job.fail(1)
    elif job.tool == "gzip":
        ctx.stderr.write(f"\n{ctx.name}: {label}: {reason}\n".encode("utf-8", "surrogateescape"))
        job.fail(1)
    elif job.tool == "xz":
        ctx.error(f"{label}: Read error: {reason}")
        job.fail(1)
    elif job.decompress or job.opts.has("test"):  # bzip2 takes it for a stream that ends at once
        _bzip2_data_error(job, label, "(stdout)", CodecError("eof"), reason)
    else:  # bzip2 has written the empty stream's header and trailer when its read fails
        for piece in _encode(job, iter(()), None, 0):
            ctx.stdout.write(piece)
        ctx.stderr.write(
            f"\n{ctx.name}: I/O or other error, bailing out.  Possible reason follows.\n{ctx.name}: {reason}\n"
            f"\tInput file = {label}, output file = (stdout)\n".encode("utf-8", "surrogateescape")
        )
        job.fail(1)


def _trailing(job: Job, label: str, info: GzipInfo) -> None:
    if info.trailing_garbage and job.tool == "gzip":
        if not job.opts.has("quiet"):
            job.ctx.stderr.write(
                f"\n{job.ctx.name}: {label}: decompression OK, trailing garbage ignored\n".encode(
                    "utf-8", "surrogateescape"
                )
            )
        job.fail(2)


def _operand(job: Job, path: str) -> None:
    ctx = job.ctx
    if path == "-":
        _stdin(job)
        return
    if ctx.names_fd(path) and (job.opts.has("stdout") or job.opts.has("test")):
        try:  # `zcat <(cmd)`: the shell's descriptor, read as standard input is
            stream = ctx.open_in(path)
        except FsError:
            pass  # (not open: a missing file, looked for with its suffixes below)
        else:
            _stdin(job, stream, path)
            return
    try:
        st: Stat | None = ctx.fs.lstat(path)
    except FsError as e:
        if e.errno not in (errno.ENOENT, errno.ENOTDIR):  # (refused by the policy, a loop: said as it is)
            _missing(job, path, strerror(e.errno or 0))
            return
        st = None
    if st is None and job.decompress and job.tool == "gzip" and _gzip_suffix_out(path, _suffix(job)) is None:
        # gzip's get_istat: a name without a known suffix is tried with each suffix in turn;
        # when none exists the complaint names it with the -S suffix (`gunzip x`: x.gz)
        for suf in (_suffix(job), ".gz", ".z", "-z", ".Z"):
            st = ctx.fs.try_lstat(path + suf)
            if st is not None:
                path += suf
                break
        else:
            path += _suffix(job)
    if st is None:
        _missing(job, path, "No such file or directory")
        return
    if st.is_dir:
        if job.opts.has("recursive") and job.tool == "gzip":
            for name in sorted(ctx.fs.listdir(path)):
                _operand(job, path.rstrip("/") + "/" + name)
            return
        if job.tool == "gzip":
            if not job.opts.has("quiet"):
                ctx.error(f"{path} is a directory -- ignored")
            job.fail(2)
        elif job.tool == "bzip2":
            ctx.error(f"Input file {path} is a directory.")
            job.fail(1)
        else:
            ctx.error(f"{path}: Is a directory, skipping")
            job.fail(2)
        return
    if st.is_link and not job.force and not job.opts.has("stdout"):
        if job.tool == "gzip":
            ctx.error(f"{path}: Too many levels of symbolic links")
            job.fail(1)
        elif job.tool == "bzip2":
            ctx.error(f"Input file {path} is not a normal file.")
            job.fail(1)
        else:
            ctx.error(f"{path}: Is a symbolic link, skipping")
            job.fail(2)
        return
    try:
        _file(job, path)
    except Skip:
        pass
    except FsError as e:
        ctx.error(f"{path}: {strerror(e.errno or 0)}")
        job.fail(1)


def _out_name(job: Job, path: str) -> str:
    ctx = job.ctx
    suffix = _suffix(job)
    if not job.decompress:
        if path.endswith(suffix) and not (job.force and job.tool == "gzip"):
            if job.tool == "gzip":
                if not job.opts.has("quiet"):
                    ctx.error(f"{path} already has {suffix} suffix -- unchanged")
            elif job.tool == "bzip2":
                ctx.error(f"Input file {path} already has {suffix} suffix.")
                job.fail(1)
            else:
                ctx.error(f"{path}: File already has `{suffix}' suffix, skipping")
                job.fail(2)
            raise Skip
        return path + suffix
    if job.tool == "gzip":
        out = _gzip_suffix_out(path, suffix)
    elif job.tool == "bzip2":
        out = _bzip2_out(path)
    else:
        out = _xz_out(path, job.opts.get("suffix"))
    if out is None:
        if job.tool == "gzip":
            if not job.opts.has("quiet"):
                ctx.error(f"{path}: unknown suffix -- ignored")
            job.fail(2)
            raise Skip
        if job.tool == "bzip2":
            out = path + ".out"
            ctx.error(f"Can't guess original name for {path} -- using {out}")
        else:
            out = ""  # xz reports the format problem first, below
    return out


def _file(job: Job, path: str) -> None:
    ctx = job.ctx
    to_stdout = job.opts.has("stdout") or job.opts.has("test")
    # writing to stdout, no output name is made (`zcat x`, `gzip -dc x` read x whatever its suffix),
    # but bzip2 still refuses to compress a name with its suffix (`bzip2 -c x.bz2`)
    named = not (to_stdout or job.opts.has("list")) or (job.tool == "bzip2" and not job.decompress)
    out = _out_name(job, path) if named else ""
    if job.opts.has("list"):
        _list(job, path)
        return
    st = ctx.fs.stat(path)
    if not to_stdout and out and ctx.fs.try_lstat(out) is not None:
        if not job.force:
            if job.tool == "gzip":
                ctx.error(f"{out} already exists;\tnot overwritten")
                job.fail(2)
            elif job.tool == "bzip2":
                ctx.error(f"Output file {out} already exists.")
                job.fail(1)
            else:
                ctx.error(f"{out}: File exists")
                job.fail(1)
            return
        ctx.fs.unlink(out)
    stream = ctx.fs.open(path, "r")
    size_in, size_out = [0], [0]
    info = GzipInfo()
    try:
        chunks = _counted(_chunks(ctx, stream), size_in)
        base = path.rsplit("/", 1)[-1]
        data = _decode(job, chunks, info) if job.decompress else _encode(job, chunks, base, int(st.mtime))
        data = _counted(data, size_out)
        if job.opts.has("test"):
            for _ in data:
                pass
        elif to_stdout:
            for piece in data:
                ctx.stdout.write(piece)
        else:
            if job.decompress and job.tool == "xz" and not out:
                out = path + ".out"
            mtime = (
                info.mtime * NS if (job.decompress and job.opts.has("name") and info.mtime) else st.mtime_ns
            )
            _write_file(ctx, out, data, st.mode, mtime)
    except CodecError as e:
        if _passthrough(job, e, to_stdout) and size_out[0] == 0:
            stream.close()
            raw = ctx.fs.open(path, "r")
            try:
                for chunk in _chunks(ctx, raw):
                    ctx.stdout.write(chunk)
            finally:
                raw.close()
            return
        _data_error(job, path, "(stdout)" if to_stdout else out, e)
        return
    finally:
        stream.close()
    _trailing(job, path, info)
    _verbose(job, path, out, to_stdout, size_in[0], size_out[0], info)
    if not to_stdout and not job.opts.has("keep"):
        ctx.fs.unlink(path)


def _verbose(
    job: Job, path: str, out: str, to_stdout: bool, size_in: int, size_out: int, info: GzipInfo
) -> None:
    if not job.opts.get("verbose"):
        return
    ctx = job.ctx
    if job.tool == "gzip":
        if job.opts.has("test"):
            ctx.stderr.write(f"{path}:\t OK\n".encode("utf-8", "surrogateescape"))
            return
        raw, packed = (size_out, size_in) if job.decompress else (size_in, size_out)
        header = (
            info.header_bytes
            if job.decompress
            else 18 + (len(path.rsplit("/", 1)[-1]) + 1 if _gzip_saves(job.opts)[0] else 0)
        )
        target = "stdout" if to_stdout else out
        ctx.stderr.write(
            f"{path}:\t{_ratio(raw - (packed - header), raw)} -- replaced with {target}\n".encode(
                "utf-8", "surrogateescape"
            )
        )
    elif job.tool == "bzip2":
        pad = " " * max(0, max(7, len(path)) - len(path))
        if job.opts.has("test"):
            line = "ok"
        elif job.decompress:
            line = "done"
        elif size_in == 0:
            line = "no data compressed."
        else:
            line = (
                f"{size_in / size_out:6.3f}:1, {8.0 * size_out / size_in:6.3f} bits/byte, "
                f"{100.0 * (1 - size_out / size_in):5.2f}% saved, {size_in} in, {size_out} out."
            )
        ctx.stderr.write(f"  {path}: {pad}{line}\n".encode("utf-8", "surrogateescape"))


# ------------------------------------------------------------ listing


def _list(job: Job, path: str) -> None:
    ctx = job.ctx
    packed = ctx.fs.stat(path).size
    if job.tool == "xz" and packed < 24:  # (xz -l reads a stream header and footer, 12 bytes each)
        ctx.error(f"{path}: Too small to be a valid .xz file")
        job.fail(1)
        return
    info = GzipInfo()
    raw = 0
    stream = ctx.fs.open(path, "r")
    try:
        for piece in _decode(job, _chunks(ctx, stream), info):
            raw += len(piece)
        if job.tool == "gzip":
            raw = info.size
    except CodecError as e:
        _data_error(job, path, "(stdout)", e)
        return
    finally:
        stream.close()
    if job.tool == "xz":
        _xz_list(job, path, packed, raw)
        return
    name = _gzip_suffix_out(path, _suffix(job)) or path
    if job.opts.has("name") and info.name:
        name = info.name
    if not job.gzip_list:
        head = "         compressed        uncompressed  ratio uncompressed_name\n"
        if job.opts.get("verbose"):
            head = "method  crc     date  time           compressed        uncompressed  ratio uncompressed_name\n"
        ctx.out(head)
    job.gzip_list.append((packed, raw, info.header_bytes))
    row = f"{packed:>19} {raw:>19} {_ratio(raw - (packed - info.header_bytes), raw)} {name}\n"
    if job.opts.get("verbose"):
        stamp = int(ctx.fs.stat(path).mtime)  # GNU shows the file's time, not the header's
        import datetime as _dt  # (gzip -lv alone shows a time: datetime is ~5 M instructions)

        from ...posix.zones import local_zone

        when = _dt.datetime.fromtimestamp(stamp, local_zone(ctx.env))
        row = f"defla {info.crc:08x} {when.strftime('%b')} {when.day:2d} {when.strftime('%H:%M')} " + row
    ctx.out(row)


def _human(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    for unit, div in (("KiB", 1024), ("MiB", 1024**2), ("GiB", 1024**3)):
        if n < div * 1024 or unit == "GiB":
            return f"{n / div:,.1f} {unit}"
    return f"{n} B"


def _xz_list(job: Job, path: str, packed: int, raw: int) -> None:
    ratio = packed / raw if raw else 0.0
    shown = "---" if not raw or ratio > 9.999 else f"{ratio:.3f}"
    job.ctx.out("Strms  Blocks   Compressed Uncompressed  Ratio  Check   Filename\n")
    job.ctx.out(f"{1:>5} {1:>7} {_human(packed):>12} {_human(raw):>12} {shown:>6}  CRC64   {path}\n")


def _list_totals(job: Job) -> None:
    if len(job.gzip_list) > 1:
        packed = sum(p for p, _, _ in job.gzip_list)
        raw = sum(r for _, r, _ in job.gzip_list)
        header = job.gzip_list[-1][2]  # GNU subtracts only the last file's header here
        prefix = " " * len("defla xxxxxxxx xxx xx xx:xx ") if job.opts.get("verbose") else ""
        job.ctx.out(f"{prefix}{packed:>19} {raw:>19} {_ratio(raw - (packed - header), raw)} (totals)\n")


# ------------------------------------------------------------ commands


def _run(ctx: Ctx, tool: str, spec: CommandSpec, decompress: bool, to_stdout: bool) -> int:
    opts, files = ctx.parse(spec)
    if opts.has("show_help"):
        ctx.out(help_text(spec))
        return 0
    if opts.has("show_version"):
        ctx.out(version_text(spec))
        return 0
    if opts.has("lzw"):
        ctx.stderr.write(usage_message(spec, "-Z not supported in this version", "gzip", "gzip").encode())
        return 1
    if opts.has("ascii"):
        ctx.error("option --ascii ignored on this system")
    if to_stdout:
        opts.values["stdout"] = True
    if tool == "bzip2" and opts.has("compress"):
        decompress = False
    if tool == "bzip2" and opts.has("stdout") and opts.has("test"):
        ctx.error("-c and -t cannot be used together.")
        return 1
    job = Job(ctx, tool, opts, decompress or opts.has("decompress") or opts.has("test") or opts.has("list"))
    with ctx.hold_memory() as hold:
        job.bounds = Bounds(hold, ctx.checkpoint)
        for path in files or ["-"]:
            ctx.checkpoint()
            _operand(job, path)
    _list_totals(job)
    if job.tested_bad:
        ctx.stderr.write(_BZIP2_RECOVER.encode())
    return job.status


# gzip's write_error (zcat and gunzip are gzip: its name, after a new line)
WRITE_FAILURE = WriteFailure(at_exit="\ngzip: stdout: {err}\n")


@declare("gzip", spec=GZIP_SPEC, spells="gzip", effects=Effects.COMPRESS, write_failure=WRITE_FAILURE)
def cmd_gzip(ctx: Ctx) -> int:
    return _run(ctx, "gzip", GZIP_SPEC, False, False)


# gunzip and zcat are scripts that run `gzip -d` / `gzip -cd` (GNU gzip installs them so): their
# messages name gzip


@declare("gunzip", spec=GUNZIP_SPEC, spells="gzip", effects=Effects.COMPRESS, write_failure=WRITE_FAILURE)
def cmd_gunzip(ctx: Ctx) -> int:
    ctx.name = "gzip"
    return _run(ctx, "gzip", GUNZIP_SPEC, True, False)


@declare("zcat", spec=ZCAT_SPEC, spells="gzip", effects=Effects.DECOMPRESS_CAT, write_failure=WRITE_FAILURE)
def cmd_zcat(ctx: Ctx) -> int:
    ctx.name = "gzip"
    return _run(ctx, "gzip", ZCAT_SPEC, True, True)


@declare("bzip2", spec=BZIP2_SPEC, spells="bzip2", effects=Effects.COMPRESS)
def cmd_bzip2(ctx: Ctx) -> int:
    return _run(ctx, "bzip2", BZIP2_SPEC, False, False)


@declare("bunzip2", spec=BZIP2_SPEC, spells="bzip2", effects=Effects.COMPRESS)
def cmd_bunzip2(ctx: Ctx) -> int:
    return _run(ctx, "bzip2", BZIP2_SPEC, True, False)


@declare("bzcat", spec=BZIP2_SPEC, spells="bzip2", effects=Effects.DECOMPRESS_CAT)
def cmd_bzcat(ctx: Ctx) -> int:
    return _run(ctx, "bzip2", BZIP2_SPEC, True, True)


@declare("xz", spec=XZ_SPEC, spells="xz", effects=Effects.COMPRESS)
def cmd_xz(ctx: Ctx) -> int:
    return _run(ctx, "xz", XZ_SPEC, False, False)


@declare("unxz", spec=XZ_SPEC, spells="xz", effects=Effects.COMPRESS)
def cmd_unxz(ctx: Ctx) -> int:
    return _run(ctx, "xz", XZ_SPEC, True, False)


@declare("xzcat", spec=XZ_SPEC, spells="xz", effects=Effects.DECOMPRESS_CAT)
def cmd_xzcat(ctx: Ctx) -> int:
    return _run(ctx, "xz", XZ_SPEC, True, True)
