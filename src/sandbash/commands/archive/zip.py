"""zip and unzip (Info-ZIP 3.0 / UnZip 6.00 behaviour and wording).

Archives are read and rebuilt in memory with `zipfile` (the archive itself is
charged to the memory budget); members are decoded here, from their raw
bytes, in bounded steps (`zipfile` decodes bzip2 and lzma members in one
unbounded call), and written in chunks through the filesystem facade after
their names are made safe (absolute paths and `..` components are stripped
with UnZip's warnings).
"""

from __future__ import annotations

import bz2
import datetime as _dt
import io
import lzma
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator

from ...expand.pattern import compile_pattern
from ...limits import LimitExceeded, LimitKind, MemoryHold
from ...posix.zones import local_zone
from ...vfs.base import NS
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..fsutil import replace_bytes
from ..options import CommandSpec, Opt, Parsed
from ..record import Effects, declare
from .codecs import BZIP2_STATE, LZMA_STATE, STEP, ZLIB_STATE, Bounds, inflate_steps, stream_steps

ZIP_SPEC = CommandSpec(
    "zip",
    "[-options] [-b path] [-t mmddyyyy] [-n suffixes] [zipfile list] [-xi list]",
    "Info-ZIP compatible zip",
    opts=(
        Opt("r", "recurse-paths", help="recurse into directories"),
        Opt("j", "junk-paths", help="junk (don't record) directory names"),
        Opt("q", "quiet", help="quiet operation"),
        Opt("v", "verbose", help="verbose operation"),
        Opt("m", "move", help="move into zipfile (delete OS files)"),
        Opt("d", "delete", help="delete entries in zipfile"),
        Opt("u", "update", help="update: only changed or new files"),
        Opt("f", "freshen", help="freshen: only changed files"),
        Opt("D", "no-dir-entries", help="do not add directory entries"),
        Opt("y", "symlinks", help="store symbolic links as the link instead of the referenced file"),
        Opt("e", "encrypt", help="encrypt"),
        Opt("x", "exclude", help="exclude the following names"),
        Opt("i", "include", help="include only the following names"),
        Opt("@", "names-stdin", help="read names from stdin"),
        Opt("X", "no-extra", help="eXclude eXtra file attributes"),
        Opt("T", "test", help="test zip file integrity"),
        *(Opt(str(n), None, dest="level", const=n) for n in range(10)),
    ),
    usage_status=16,
)
UNZIP_SPEC = CommandSpec(
    "unzip",
    "[-Z] [-opts[modifiers]] file[.zip] [list] [-x xlist] [-d exdir]",
    "",
    opts=(
        Opt("l", None),
        Opt("v", None),
        Opt("t", None),
        Opt("p", None),
        Opt("c", None),
        Opt("o", None),
        Opt("n", None),
        Opt("q", None, count=True),
        Opt("j", None),
        Opt("d", None, "required"),
        Opt("x", None),
        Opt("u", None),
        Opt("f", None),
        Opt("a", None),
        Opt("C", None),
        Opt("L", None),
        Opt("X", None),
        Opt("K", None),
        Opt("U", None),
        Opt("V", None),
        Opt("T", None),
        Opt("z", None),
    ),
    usage_status=10,
)


def _dos_time(ctx: Ctx, mtime: float) -> tuple[int, int, int, int, int, int]:
    t = _dt.datetime.fromtimestamp(mtime, local_zone(ctx.env))
    if t.year < 1980:
        return (1980, 1, 1, 0, 0, 0)
    return (t.year, t.month, t.day, t.hour, t.minute, t.second - t.second % 2)


def _from_dos(ctx: Ctx, stamp: tuple[int, int, int, int, int, int]) -> float:
    return _dt.datetime(*stamp, tzinfo=local_zone(ctx.env)).timestamp()


def _ut_field(mtime: float) -> bytes:
    """Info-ZIP's extended timestamp (0x5455): the exact modification time."""
    return struct.pack("<HHBi", 0x5455, 5, 1, int(mtime))


def _mtime(ctx: Ctx, info: zipfile.ZipInfo) -> float:
    extra = info.extra
    i = 0
    while i + 4 <= len(extra):
        tag, size = struct.unpack("<HH", extra[i : i + 4])
        if tag == 0x5455 and size >= 5 and extra[i + 4] & 1:
            return float(struct.unpack("<i", extra[i + 5 : i + 9])[0])
        i += 4 + size
    return _from_dos(ctx, info.date_time)


class BadMember(Exception):
    """A member's data cannot be decoded (`crc` set: it decoded, to the wrong CRC)."""

    def __init__(self, crc: int | None = None) -> None:
        super().__init__(crc)
        self.crc = crc


def _read_archive(ctx: Ctx, hold: MemoryHold, path: str) -> bytes:
    """The archive's bytes, charged before they are read (zipfile needs to seek)."""
    hold.charge(ctx.fs.stat(path).size)
    return ctx.fs.read_bytes(path)


# what zipfile holds per central-directory entry (a ZipInfo and its strings: about 350
# bytes measured for a one-character name) and the entry's smallest size on disk
_ENTRY_COST = 400
_MIN_ENTRY = 46


def _open_zip(ctx: Ctx, hold: MemoryHold, data: bytes) -> zipfile.ZipFile:
    """zipfile's reading of the central directory, charged first: it builds a ZipInfo per
    entry in one uninterruptible call, about 8 times the directory's size (a 100 MB
    archive of empty members would be 800 MB and a minute of work)."""
    tail = data[-(65535 + 22) :]
    at = tail.rfind(b"PK\x05\x06")
    if at >= 0 and len(tail) - at >= 22:
        size = struct.unpack("<I", tail[at + 12 : at + 16])[0]
        size = min(size if size != 0xFFFFFFFF else len(data), len(data))  # zip64: bound by the file
        hold.charge((size // _MIN_ENTRY + 1) * _ENTRY_COST + 2 * size)
    ctx.checkpoint()
    return zipfile.ZipFile(io.BytesIO(data))


def _raw_member(data: bytes, info: zipfile.ZipInfo) -> memoryview:
    off = info.header_offset
    if data[off : off + 4] != b"PK\x03\x04":
        raise BadMember()
    name_len, extra_len = struct.unpack("<HH", data[off + 26 : off + 30])
    start = off + 30 + name_len + extra_len
    return memoryview(data)[start : start + info.compress_size]


def _decoder_steps(info: zipfile.ZipInfo, raw: memoryview, bounds: Bounds) -> Iterator[bytes]:
    """The member's bytes, STEP at a time, from a decoder made after its memory is charged."""
    method = info.compress_type
    pieces = (bytes(raw[i : i + STEP]) for i in range(0, len(raw), STEP))
    if method == zipfile.ZIP_STORED:
        for piece in pieces:
            bounds.step(len(piece))
            yield piece
    elif method == zipfile.ZIP_DEFLATED:
        bounds.decoder(ZLIB_STATE)
        dec = zlib.decompressobj(-15)
        for piece in pieces:
            yield from inflate_steps(dec, piece, bounds)
    elif method == zipfile.ZIP_BZIP2:
        bounds.decoder(BZIP2_STATE)
        bdec = bz2.BZ2Decompressor()
        for piece in pieces:
            yield from stream_steps(bdec, piece, bounds)
    elif method == zipfile.ZIP_LZMA and len(raw) >= 9:
        # zip's lzma: version (2), properties size (2), properties (5), then raw LZMA1; as a
        # .lzma (alone) stream it gets the decoder's memlimit like any xz input
        props = bytes(raw[4:9])
        need = int.from_bytes(props[1:5], "little") + LZMA_STATE
        if need > bounds.limit():
            raise LimitExceeded(
                LimitKind.MAX_MEMORY, bounds.hold.budget.limits.max_memory if bounds.hold else 0
            )
        bounds.decoder(need)
        ldec = lzma.LZMADecompressor(lzma.FORMAT_ALONE, memlimit=need)
        head = props + struct.pack("<Q", info.file_size)
        for piece in [head, *(bytes(raw[i : i + STEP]) for i in range(9, len(raw), STEP))]:
            yield from stream_steps(ldec, piece, bounds)
    else:
        raise BadMember()


def member_chunks(data: bytes, info: zipfile.ZipInfo, bounds: Bounds) -> Iterator[bytes]:
    """A member's content in bounded steps; raises BadMember for bad data or a bad CRC."""
    crc = 0
    try:
        for chunk in _decoder_steps(info, _raw_member(data, info), bounds):
            crc = zlib.crc32(chunk, crc)
            yield chunk
    except (zlib.error, OSError, ValueError, EOFError, lzma.LZMAError):
        raise BadMember()
    if crc != info.CRC:
        raise BadMember(crc)


def _percent(size: int, packed: int) -> int:
    return 0 if size == 0 else int((100 * (size - packed) + size // 2) // size)


# ------------------------------------------------------------ zip


def _split_lists(args: list[str]) -> tuple[list[str], list[str], list[str]]:
    """zip's `-x list` and `-i list` run to the end of the command line (or the other flag)."""
    names: list[str] = []
    lists: dict[str, list[str]] = {"-x": [], "-i": []}
    target = names
    for arg in args:
        if arg in ("-x", "-i", "--exclude", "--include"):
            target = lists["-x" if arg in ("-x", "--exclude") else "-i"]
            continue
        target.append(arg)
    return names, lists["-x"], lists["-i"]


@declare("zip", spec=ZIP_SPEC, effects=Effects.ZIP)
def cmd_zip(ctx: Ctx) -> int:
    raw = list(ctx.args)
    operands_start = next((i for i, a in enumerate(raw) if not a.startswith("-") or a == "-"), len(raw))
    opts, _ = ctx.parse(ZIP_SPEC, [a for a in raw[:operands_start] if a not in ("-x", "-i")])
    names, exclude, include = _split_lists(raw[operands_start:])
    if not names:
        ctx.stderr.write(b"\nzip error: Invalid command arguments (nothing to select from)\n")
        return 16
    archive, files = names[0], names[1:]
    if not archive.endswith(".zip") and "." not in archive.rsplit("/", 1)[-1]:
        archive += ".zip"
    if opts.has("names_stdin"):
        files += [
            line for line in ctx.read_all(ctx.stdin).decode("utf-8", "surrogateescape").split("\n") if line
        ]
    if opts.has("encrypt"):
        ctx.stderr.write(b"zip error: Interactive password entry is not available in this sandbox\n")
        return 16
    with ctx.hold_memory() as hold:
        return _zip(ctx, hold, opts, archive, files, exclude, include)


def _load_existing(
    ctx: Ctx, hold: MemoryHold, archive: str
) -> dict[str, tuple[zipfile.ZipInfo, bytes]] | None:
    """The members of an archive being updated (zip rebuilds it whole): each is charged
    to the memory budget as it is decoded. None: the archive is damaged."""
    existing: dict[str, tuple[zipfile.ZipInfo, bytes]] = {}
    if not ctx.fs.exists(archive):
        return existing
    bounds = Bounds(hold, ctx.checkpoint)
    try:
        data = _read_archive(ctx, hold, archive)
        with _open_zip(ctx, hold, data) as zf:
            for info in zf.infolist():
                ctx.checkpoint()
                parts = []
                for chunk in member_chunks(data, info, bounds):
                    hold.charge(len(chunk))
                    parts.append(chunk)
                existing[info.filename] = (info, b"".join(parts))
    except (zipfile.BadZipFile, BadMember):
        return None
    return existing


def _zip(
    ctx: Ctx,
    hold: MemoryHold,
    opts: Parsed,
    archive: str,
    files: list[str],
    exclude: list[str],
    include: list[str],
) -> int:
    if opts.has("test") and not files and not opts.has("delete") and ctx.fs.exists(archive):
        data = _read_archive(ctx, hold, archive)
        return 0 if _test_zip(ctx, data, archive, hold, opts.has("quiet")) else 8
    loaded = _load_existing(ctx, hold, archive)
    if loaded is None:
        ctx.out(f"\nzip error: Zip file structure invalid ({archive})\n")
        return 3
    existing = loaded
    quiet = opts.has("quiet")

    def say(line: str) -> None:
        if not quiet:
            ctx.out(line + "\n")

    if opts.has("delete"):
        return _zip_delete(ctx, archive, existing, files, say, _Save(ctx, hold, opts))
    entries = _collect(
        ctx,
        files,
        opts.has("recurse_paths"),
        opts.has("junk_paths"),
        opts.has("no_dir_entries"),
        exclude,
        include,
    )
    if entries is None:
        return 18
    level = int(opts.get("level", 6))
    added = dict(existing)
    moved: list[str] = []
    for entry, path in entries:
        ctx.checkpoint()
        st = ctx.fs.stat(path)
        old = existing.get(entry)
        if opts.has("update") or opts.has("freshen"):
            if old is None and opts.has("freshen"):
                continue
            if old is not None and _from_dos(ctx, old[0].date_time) >= int(st.mtime) - 1:
                continue
        if not st.is_dir:
            hold.charge(st.size)
        data = b"" if st.is_dir else ctx.fs.read_bytes(path)
        info = zipfile.ZipInfo(entry, _dos_time(ctx, st.mtime))
        info.create_system = 3
        info.extra = _ut_field(st.mtime)
        info.external_attr = (st.mode & 0xFFFF) << 16 | (0x10 if st.is_dir else 0)
        packed = len(zlib.compress(data, level)[2:-4]) if data and level else len(data)
        method = "stored"
        info.compress_type = zipfile.ZIP_STORED
        if data and level and packed < len(data):
            info.compress_type = zipfile.ZIP_DEFLATED
            method = "deflated"
        else:
            packed = len(data)
        added[entry] = (info, data)
        verb = "updating" if old is not None else "  adding"
        say(f"{verb}: {entry} ({method} {_percent(len(data), packed)}%)")
        moved.append(path)
    if not entries and not (opts.has("update") or opts.has("freshen")):
        ctx.out(f"\nzip error: Nothing to do! ({archive})\n")
        return 12
    saved = _Save(ctx, hold, opts)(archive, added, level)
    if saved:
        return saved
    if opts.has("move"):
        for path in reversed(moved):
            try:
                if ctx.fs.is_dir(path):
                    ctx.fs.rmdir(path)
                else:
                    ctx.fs.unlink(path)
            except FsError:
                pass
    return 0


def _collect(
    ctx: Ctx,
    files: list[str],
    recurse: bool,
    junk: bool,
    no_dirs: bool,
    exclude: list[str],
    include: list[str],
) -> list[tuple[str, str]] | None:
    """(entry name, path) pairs; warns about names that match nothing."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    excl = [compile_pattern(p) for p in exclude]
    incl = [compile_pattern(p) for p in include]

    def add(path: str, is_dir: bool) -> None:
        entry = path.lstrip("/")
        while entry.startswith("./"):
            entry = entry[2:]
        if junk:
            if is_dir:
                return
            entry = entry.rsplit("/", 1)[-1]
        if is_dir:
            if no_dirs:
                return
            entry = entry.rstrip("/") + "/"
        if not entry or entry in seen or any(p.fullmatch(entry) for p in excl):
            return
        if incl and not any(p.fullmatch(entry) for p in incl):
            return
        seen.add(entry)
        out.append((entry, path))

    def walk(path: str, is_dir: bool) -> None:
        # depth first in directory order, each directory before its contents, as Info-ZIP
        if path not in (".", "./"):
            add(path, is_dir)
        if is_dir and recurse:
            for child in ctx.fs.listdir(path):
                ctx.checkpoint()
                full = child if path in (".", "./") else path.rstrip("/") + "/" + child
                child_st = ctx.fs.try_lstat(full)
                walk(full, child_st is not None and child_st.is_dir)

    for name in files:
        st = ctx.fs.try_stat(name)
        if st is None:
            ctx.out(f"\tzip warning: name not matched: {name}\n")
            continue
        walk(name, st.is_dir)
    return out


def _zip_delete(
    ctx: Ctx,
    archive: str,
    existing: dict[str, tuple[zipfile.ZipInfo, bytes]],
    names: list[str],
    say: Callable[[str], None],
    save: _Save,
) -> int:
    if not existing:
        ctx.out(f"\nzip error: Nothing to do! ({archive})\n")
        return 12
    patterns = [compile_pattern(n) for n in names]
    kept = {}
    deleted = 0
    for name, item in existing.items():
        if any(p.fullmatch(name) for p in patterns):
            say(f"deleting: {name}")
            deleted += 1
        else:
            kept[name] = item
    if not deleted:
        ctx.out(f"\tzip warning: name not matched: {names[0] if names else ''}\n")
        ctx.out(f"\nzip error: Nothing to do! ({archive})\n")
        return 12
    return save(archive, kept, 6)


class _Save:
    """Build the new archive (charged), test it first with -T, and swap it in whole:
    the old archive stays as it was if the test or the write fails."""

    def __init__(self, ctx: Ctx, hold: MemoryHold, opts: Parsed) -> None:
        self.ctx, self.hold, self.opts = ctx, hold, opts

    def __call__(self, archive: str, entries: dict[str, tuple[zipfile.ZipInfo, bytes]], level: int) -> int:
        """0 when saved; zip's status otherwise (8: the test failed, 14: the write did)."""
        ctx = self.ctx
        self.hold.charge(sum(len(data) + 128 for _, data in entries.values()))
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            for info, data in entries.values():
                zf.writestr(
                    info, data, compresslevel=level if info.compress_type == zipfile.ZIP_DEFLATED else None
                )
        data = buf.getvalue()
        if self.opts.has("test") and not _test_zip(ctx, data, archive, self.hold, self.opts.has("quiet")):
            return 8
        try:
            replace_bytes(ctx.fs, archive, data, prefix="zi", rng=ctx.rng)
        except FsError as e:
            ctx.out(
                f"zip I/O error: {strerror(e.errno or 5)}\n\nzip error: Output file write failure (write error on "
                "zip file)\n"
            )
            return 14
        return 0


def _test_zip(ctx: Ctx, data: bytes, archive: str, hold: MemoryHold, quiet: bool) -> bool:
    """zip -T: every member decodes to its CRC (unzip -tqq's report when one does not)."""
    bad = False
    try:
        infos = _open_zip(ctx, hold, data).infolist()
    except zipfile.BadZipFile:
        infos, bad = [], True
    bounds = Bounds(hold, ctx.checkpoint)
    for info in infos:
        ctx.checkpoint()
        try:
            for _ in member_chunks(data, info, bounds):
                pass
        except BadMember as e:
            ctx.out(f"{info.filename:<23} {_bad_text(info, e)}\n")
            bad = True
    if bad:
        ctx.out(
            f"test of {archive} FAILED\n\nzip error: Zip file invalid, could not spawn unzip, or wrong unzip "
            "(original files unmodified)\n"
        )
        return False
    if not quiet:
        ctx.out(f"test of {archive} OK\n")
    return True


# ------------------------------------------------------------ unzip


def _safe_name(ctx: Ctx, name: str, junk: bool) -> str:
    if name.startswith("/"):
        ctx.out(f"warning:  stripped absolute path spec from {name}\n")
        name = name.lstrip("/")
    parts = name.split("/")
    if ".." in parts:
        ctx.out(f'warning:  skipped "../" path component(s) in {name}\n')
        parts = [p for p in parts if p != ".."]
    name = "/".join(parts)
    if junk:
        name = name.rstrip("/").rsplit("/", 1)[-1] + ("/" if name.endswith("/") else "")
    return name


def _stamp(ctx: Ctx, info: zipfile.ZipInfo) -> str:
    y, mo, d, h, mi, _ = info.date_time
    return f"{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}"


def _files(n: int) -> str:
    return f"{n} file" + ("" if n == 1 else "s")


def _listing(ctx: Ctx, infos: list[zipfile.ZipInfo], verbose: bool) -> None:
    if not verbose:
        ctx.out("  Length      Date    Time    Name\n---------  ---------- -----   ----\n")
        for info in infos:
            ctx.out(f"{info.file_size:>9}  {_stamp(ctx, info)}   {info.filename}\n")
        total = sum(i.file_size for i in infos)
        ctx.out(
            f"---------                     -------\n{total:>9}                     {_files(len(infos))}\n"
        )
        return
    ctx.out(
        " Length   Method    Size  Cmpr    Date    Time   CRC-32   Name\n"
        "--------  ------  ------- ---- ---------- ----- --------  ----\n"
    )
    for info in infos:
        method = "Defl:N" if info.compress_type == zipfile.ZIP_DEFLATED else "Stored"
        ctx.out(
            f"{info.file_size:>8}  {method}  {info.compress_size:>7} {_percent(info.file_size, info.compress_size):>3}% "
            f"{_stamp(ctx, info)} {info.CRC:08x}  {info.filename}\n"
        )
    size = sum(i.file_size for i in infos)
    packed = sum(i.compress_size for i in infos)
    ctx.out(
        f"--------          -------  ---                            -------\n"
        f"{size:>8}          {packed:>7} {_percent(size, packed):>3}%                            {_files(len(infos))}\n"
    )


@declare("unzip", spec=UNZIP_SPEC, effects=Effects.UNZIP)
def cmd_unzip(ctx: Ctx) -> int:
    raw = list(ctx.args)
    if not raw:
        ctx.out(
            "UnZip 6.00 of 20 April 2009, by Debian. Original by Info-ZIP.\n\n"
            "Usage: unzip [-Z] [-opts[modifiers]] file[.zip] [list] [-x xlist] [-d exdir]\n"
        )
        return 0
    # options may follow the archive name; -x starts the exclusion list
    opts_args: list[str] = []
    rest: list[str] = []
    exclude: list[str] = []
    i = 0
    while i < len(raw):
        arg = raw[i]
        if arg == "-x":
            while i + 1 < len(raw) and not raw[i + 1].startswith("-"):
                exclude.append(raw[i + 1])
                i += 1
            i += 1
            continue
        if arg.startswith("-") and len(arg) > 1:
            opts_args.append(arg)
            if arg.endswith("d") and i + 1 < len(raw):
                opts_args.append(raw[i + 1])
                i += 1
        else:
            rest.append(arg)
        i += 1
    opts, _ = ctx.parse(UNZIP_SPEC, opts_args)
    if not rest:
        ctx.stderr.write(b"caution:  no zipfile specified\n")
        return 10
    archive, wanted = rest[0], rest[1:]
    path = (
        archive
        if ctx.fs.is_file(archive)
        else next((p for p in (archive + ".zip", archive + ".ZIP") if ctx.fs.is_file(p)), None)
    )
    if path is None:
        ctx.stderr.write(f"unzip:  cannot find or open {archive}, {archive}.zip or {archive}.ZIP.\n".encode())
        return 9
    quiet = int(opts.get("q", 0))
    pipe = opts.has("p") or opts.has("c")
    if (not pipe and quiet == 0) or opts.has("l") or opts.has("v"):
        ctx.out(f"Archive:  {path}\n")
    with ctx.hold_memory() as hold:
        return _unzip(ctx, hold, opts, path, archive, wanted, exclude, pipe, quiet)


def _unzip(
    ctx: Ctx,
    hold: MemoryHold,
    opts: Parsed,
    path: str,
    archive: str,
    wanted: list[str],
    exclude: list[str],
    pipe: bool,
    quiet: int,
) -> int:
    data = _read_archive(ctx, hold, path)
    try:
        zf = _open_zip(ctx, hold, data)
    except zipfile.BadZipFile:
        ctx.out(
            "  End-of-central-directory signature not found.  Either this file is not\n"
            "  a zipfile, or it constitutes one disk of a multi-part archive.  In the\n"
            "  latter case the central directory and zipfile comment will be found on\n"
            "  the last disk(s) of this archive.\n"
        )
        ctx.stderr.write(
            f"unzip:  cannot find zipfile directory in one of {archive} or\n"
            f"        {archive}.zip, and cannot find {archive}.ZIP, period.\n".encode()
        )
        return 9
    infos, missing = _select(zf.infolist(), wanted, exclude)
    status = 11 if missing else 0
    if opts.has("l") or opts.has("v"):
        _listing(ctx, infos, opts.has("v"))
        return status
    bounds = Bounds(hold, ctx.checkpoint)
    if opts.has("t"):
        return _test(ctx, data, bounds, infos, path) or status
    result = _extract(ctx, data, bounds, infos, opts, quiet, pipe)
    for name in missing:
        ctx.stderr.write(f"caution: filename not matched:  {name}\n".encode("utf-8", "surrogateescape"))
    return result or status


def _select(
    infos: list[zipfile.ZipInfo], wanted: list[str], exclude: list[str]
) -> tuple[list[zipfile.ZipInfo], list[str]]:
    pats = [(w, compile_pattern(w)) for w in wanted]
    excl = [compile_pattern(x) for x in exclude]
    used: set[str] = set()
    chosen = []
    for info in infos:
        hit = [w for w, p in pats if p.fullmatch(info.filename)]
        if pats and not hit:
            continue
        used.update(hit)
        if any(p.fullmatch(info.filename) for p in excl):
            continue
        chosen.append(info)
    return chosen, [w for w, _ in pats if w not in used]


def _test(ctx: Ctx, data: bytes, bounds: Bounds, infos: list[zipfile.ZipInfo], path: str) -> int:
    bad = 0
    for info in infos:
        ctx.checkpoint()
        try:
            for _ in member_chunks(data, info, bounds):
                pass
            ok = "OK"
        except BadMember as e:
            ok = _bad_text(info, e)
            bad += 1
        ctx.out(f"{'testing':>11}: {info.filename:<22}   {ok}\n")
    if bad:
        ctx.out(f"At least one error was detected in {path}.\n")
        return 2
    ctx.out(f"No errors detected in compressed data of {path}.\n")
    return 0


def _bad_text(info: zipfile.ZipInfo, e: BadMember) -> str:
    if e.crc is None:
        return "error:  invalid compressed data"
    return f"bad CRC {e.crc:08x}  (should be {info.CRC:08x})"


def _extract(
    ctx: Ctx, data: bytes, bounds: Bounds, infos: list[zipfile.ZipInfo], opts: Parsed, quiet: int, pipe: bool
) -> int:
    base = opts.get("d") or "."
    overwrite_all = opts.has("o")
    never = opts.has("n")
    status = 0
    for info in infos:
        ctx.checkpoint()
        if pipe:
            try:
                for chunk in member_chunks(data, info, bounds):
                    ctx.stdout.write(chunk)
            except BadMember as e:
                ctx.stderr.write(
                    f"{info.filename:<23} {_bad_text(info, e)}\n".encode("utf-8", "surrogateescape")
                )
                status = 2
            continue
        name = _safe_name(ctx, info.filename, opts.has("j"))
        if not name or name == "/":
            continue
        target = name if base == "." else base.rstrip("/") + "/" + name
        shown = target
        if info.is_dir():
            if not opts.has("j"):
                if not ctx.fs.is_dir(target):
                    ctx.fs.mkdir(target, parents=True)
                    if not quiet:
                        ctx.out(f"{'creating':>11}: {shown}\n")
            continue
        parent = target.rsplit("/", 1)[0] if "/" in target else "."
        try:
            if parent != "." and not ctx.fs.is_dir(parent):
                ctx.fs.mkdir(parent, parents=True)
            if ctx.fs.try_lstat(target) is not None and not overwrite_all:
                if never:
                    continue
                answer = _ask(ctx, target)
                if answer == "N":
                    return 1
                if answer == "n":
                    continue
                if answer == "A":
                    overwrite_all = True
            verb = "inflating" if info.compress_type == zipfile.ZIP_DEFLATED else "extracting"
            if not quiet:
                ctx.out(f"{verb:>11}: {shown:<22}  ")
            try:
                _write_member(ctx, data, bounds, info, target)
                if not quiet:
                    ctx.out("\n")
            except BadMember as e:  # UnZip keeps what it wrote, with the member's mode and time
                ctx.stderr.write(f" {_bad_text(info, e)}\n".encode())
                status = 2
            mode = (info.external_attr >> 16) & 0o777
            if info.create_system == 3 and mode:
                ctx.fs.chmod(target, mode)
            ctx.fs.utime(target, int(_mtime(ctx, info)) * NS, int(_mtime(ctx, info)) * NS)
        except FsError as e:
            ctx.stderr.write(f"error:  cannot create {target}\n        {strerror(e.errno or 0)}\n".encode())
            return 50
    return status


def _write_member(ctx: Ctx, data: bytes, bounds: Bounds, info: zipfile.ZipInfo, target: str) -> None:
    out = ctx.fs.open(target, "w")
    try:
        for chunk in member_chunks(data, info, bounds):
            out.write(chunk)
    finally:
        out.close()


def _ask(ctx: Ctx, target: str) -> str:
    """UnZip's overwrite question, answered from standard input."""
    ctx.stderr.write(
        f"replace {target}? [y]es, [n]o, [A]ll, [N]one, [r]ename: ".encode("utf-8", "surrogateescape")
    )
    line = ctx.stdin.readline().decode("utf-8", "surrogateescape").strip()
    if not line:
        ctx.stderr.write(b' NULL\n(EOF or read error, treating as "[N]one" ...)\n')
        return "N"
    first = line[0]
    return first if first in "ynAN" else "n"
