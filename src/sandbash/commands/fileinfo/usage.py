"""du and df.

Space is counted the way ext4 reports it (4K blocks, short symlinks take
none). Directory contents are visited in byte order of their names (GNU uses
readdir order). df shows every mount of the virtual filesystem, each sized by
its own quota.
"""

from __future__ import annotations

import errno
import math

from ...expand.pattern import compile_pattern
from ...vfs.base import NS, Stat
from ...vfs.errors import FsError
from ..context import CommandExit, Ctx
from ..fsutil import (
    BLOCK_SIZE,
    FsUsage,
    blocks_512,
    descriptor_stat,
    errmsg,
    format_full_time,
    human_size,
    join,
    mount_of,
    mount_table,
    parse_size,
    quote,
    quoteaf,
    shell_quote,
    si_size,
    to_datetime,
    tz_from_env,
)
from ..gnuquote import quotef
from ..options import CommandSpec, Opt, Parsed
from ..record import WRITE_ERROR_BARE, Effects, declare

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass

DU_SPEC = CommandSpec(
    name="du",
    usage="[OPTION]... [FILE]...\n  or:  du [OPTION]... --files0-from=F",
    summary="Summarize device usage of the set of FILEs, recursively for directories.",
    opts=(
        Opt("0", "null", help="end each output line with NUL, not newline"),
        Opt("a", "all", help="write counts for all files, not just directories"),
        Opt(None, "apparent-size", help="print apparent sizes rather than device usage"),
        Opt(
            "B", "block-size", arg="required", metavar="SIZE", help="scale sizes by SIZE before printing them"
        ),
        Opt("b", "bytes", help="equivalent to '--apparent-size --block-size=1'"),
        Opt("c", "total", help="produce a grand total"),
        Opt("D", "dereference-args", help="dereference only symlinks that are listed on the command line"),
        Opt(
            "d",
            "max-depth",
            arg="required",
            metavar="N",
            help="print the total for a directory only if it is N or fewer levels below the command line argument",
        ),
        Opt(
            None,
            "files0-from",
            arg="required",
            metavar="F",
            help="summarize device usage of the NUL-terminated file names specified in file F",
        ),
        Opt("H", None, dest="dereference_args"),
        Opt("h", "human-readable", help="print sizes in human readable format (e.g., 1K 234M 2G)"),
        Opt(None, "inodes", help="list inode usage information instead of block usage"),
        Opt("k", None, dest="k", help="like --block-size=1K"),
        Opt("L", "dereference", help="dereference all symbolic links"),
        Opt("l", "count-links", help="count sizes many times if hard linked"),
        Opt("m", None, dest="m", help="like --block-size=1M"),
        Opt("P", "no-dereference", help="don't follow any symbolic links (this is the default)"),
        Opt("S", "separate-dirs", help="for directories do not include size of subdirectories"),
        Opt(None, "si", help="like -h, but use powers of 1000 not 1024"),
        Opt("s", "summarize", help="display only a total for each argument"),
        Opt(
            "t",
            "threshold",
            arg="required",
            metavar="SIZE",
            help="exclude entries smaller than SIZE if positive, or entries greater than SIZE if negative",
        ),
        Opt(
            None,
            "time",
            arg="optional",
            metavar="WORD",
            help="show time of the last modification of any file in the directory",
        ),
        Opt(None, "time-style", arg="required", metavar="STYLE", help="show times using STYLE"),
        Opt(
            "X",
            "exclude-from",
            arg="required",
            metavar="FILE",
            help="exclude files that match any pattern in FILE",
        ),
        Opt(
            None,
            "exclude",
            arg="required",
            metavar="PATTERN",
            multi=True,
            help="exclude files that match PATTERN",
        ),
        Opt("x", "one-file-system", help="skip directories on different file systems"),
    ),
)


@dataclass
class _DuConfig:
    apparent: bool = False
    block_size: int = 1024
    suffix: str = ""
    human: int = 0
    inodes: bool = False
    all: bool = False
    max_depth: int | None = None
    separate: bool = False
    count_links: bool = False
    deref: str = "never"  # never, args, always
    threshold: int = 0
    eol: str = "\n"
    time: str | None = None
    time_style: str = "long-iso"


class _Du:
    def __init__(self, ctx: Ctx, cfg: _DuConfig, excludes: list[str]) -> None:
        self.ctx = ctx
        self.cfg = cfg
        self.seen: set[int] = set()
        self.status = 0
        self.excludes = [compile_pattern(p) for p in excludes]
        self.tz = tz_from_env(ctx.env)
        self.lines: list[str] = []
        self.hash_all = False

    def amount(self, st: Stat) -> int:
        if self.cfg.inodes:
            return 1
        return st.size if self.cfg.apparent else blocks_512(st) * 512

    def show(self, size: int, path: str, mtime: int) -> str:
        cfg = self.cfg
        if cfg.inodes:
            text = str(size)
        elif cfg.human:
            text = human_size(size) if cfg.human == 1024 else si_size(size)
        else:
            text = f"{math.ceil(size / cfg.block_size)}{cfg.suffix}"
        if cfg.time is not None:
            d = to_datetime(mtime // NS, self.tz)
            style = cfg.time_style
            if style == "full-iso":
                when = format_full_time(mtime, self.tz)
            elif style == "iso":
                when = d.strftime("%Y-%m-%d")
            elif style.startswith("+"):
                when = d.strftime(style[1:])
            else:
                when = d.strftime("%Y-%m-%d %H:%M")
            text += "\t" + when
        return f"{text}\t{path}{cfg.eol}"

    def passes(self, size: int) -> bool:
        t = self.cfg.threshold
        return size >= t if t >= 0 else size <= -t

    def excluded(self, path: str) -> bool:
        name = path.rstrip("/").rsplit("/", 1)[-1]
        return any(p.fullmatch(name) or p.fullmatch(path) for p in self.excludes)

    def walk(self, path: str, depth: int, cmdline: bool) -> tuple[int, int] | None:
        """Total of `path` (None when skipped); prints lines in post-order."""
        ctx, cfg, fs = self.ctx, self.cfg, self.ctx.fs
        ctx.checkpoint()
        if not cmdline and self.excluded(path):
            return None
        try:
            follow = cfg.deref == "always" or (cfg.deref == "args" and cmdline)
            st = descriptor_stat(ctx, path, follow) if cmdline else None
            if st is None:
                st = fs.stat(path) if follow else fs.lstat(path)
        except FsError as e:
            if follow and e.errno == errno.ENOENT and fs.try_lstat(path) is not None:
                ctx.error(f"cannot access {quoteaf(path)}")  # (a dangling link: fts gives no errno)
            else:
                ctx.error(f"cannot access {quoteaf(path)}: {errmsg(e)}")
            self.status = 1
            return None
        # with several operands every inode is remembered (GNU's hash_all), so
        # nothing is counted twice; otherwise only hard-linked files are
        if not cfg.count_links and (self.hash_all or (not st.is_dir and st.nlink > 1)):
            if st.ino in self.seen:
                return None
            self.seen.add(st.ino)
        total = self.amount(st)
        newest = st.mtime_ns
        if st.is_dir:
            try:
                names = fs.listdir(path)
            except FsError as e:
                ctx.error(f"cannot read directory {quoteaf(path)}: {errmsg(e)}")
                self.status = 1
                names = []
            for name in sorted(names, key=lambda n: n.encode("utf-8", "surrogateescape")):
                child = self.walk(join(path, name), depth + 1, False)
                if child is None:
                    continue
                size, when = child
                newest = max(newest, when)
                child_st = fs.try_lstat(join(path, name))
                if not (cfg.separate and child_st is not None and child_st.is_dir):
                    total += size
        visible = cfg.max_depth is None or depth <= cfg.max_depth
        if visible and (st.is_dir or cfg.all or cmdline) and self.passes(total):
            self.lines.append(self.show(total, path, newest))
            if len(self.lines) > 256:
                self.flush()
        return total, newest

    def flush(self) -> None:
        if self.lines:
            self.ctx.out("".join(self.lines))
            self.lines = []


def _block_size(ctx: Ctx, text: str, name: str) -> tuple[int, str]:
    """A --block-size value: (bytes, suffix shown after numbers)."""
    raw = text.lstrip("'")
    size = parse_size(raw if raw[:1].isdigit() else "1" + raw, allow_b_suffix=False)
    if size is None or size == 0:
        ctx.error(
            f"invalid --block-size argument '{text}'"
            if name == "du"
            else f"invalid --block-size argument {quote(text)}"
        )
        raise CommandExit(1)
    if raw[:1].isdigit():
        return size, ""
    # GNU writes the SI kilo in lower case: -BKB shows 5kB
    return size, "kB" if raw == "KB" else raw


def _du_config(ctx: Ctx, opts: Parsed) -> _DuConfig:
    cfg = _DuConfig()
    env_bs = ctx.env.get("DU_BLOCK_SIZE") or ctx.env.get("BLOCK_SIZE") or ctx.env.get("BLOCKSIZE")
    if env_bs:
        try:
            cfg.block_size, cfg.suffix = _block_size(ctx, env_bs, "du")
        except CommandExit:
            cfg.block_size = 1024
    for key, value in opts.order:
        if key == "bytes":
            cfg.apparent, cfg.block_size, cfg.human, cfg.suffix = True, 1, 0, ""
        elif key == "k":
            cfg.block_size, cfg.human, cfg.suffix = 1024, 0, ""
        elif key == "m":
            cfg.block_size, cfg.human, cfg.suffix = 1024 * 1024, 0, ""
        elif key == "block_size":
            cfg.block_size, cfg.suffix = _block_size(ctx, value, "du")
            cfg.human = 0
        elif key == "human_readable":
            cfg.human = 1024
        elif key == "si":
            cfg.human = 1000
        elif key == "apparent_size":
            cfg.apparent = True
        elif key in ("dereference", "dereference_args", "no_dereference"):
            cfg.deref = {"dereference": "always", "dereference_args": "args"}.get(key, "never")
    cfg.inodes = opts.has("inodes")
    cfg.all = opts.has("all")
    cfg.separate = opts.has("separate_dirs")
    cfg.count_links = opts.has("count_links")
    if opts.has("null"):
        cfg.eol = "\0"
    if opts.has("max_depth"):
        text = opts["max_depth"]
        if not text.isdigit():
            ctx.stderr.write(
                f"{ctx.prog}: invalid maximum depth {quote(text)}\nTry '{ctx.help_prog} --help' for more information.\n".encode(
                    "utf-8", "surrogateescape"
                )
            )
            raise CommandExit(1)
        cfg.max_depth = int(text)
    if opts.has("summarize"):
        if cfg.max_depth is not None and cfg.max_depth != 0:
            ctx.stderr.write(
                f"{ctx.prog}: warning: summarizing conflicts with --max-depth={cfg.max_depth}\n"
                f"Try '{ctx.help_prog} --help' for more information.\n".encode()
            )
            raise CommandExit(1)
        cfg.max_depth = 0
    if opts.has("all") and opts.has("summarize"):
        ctx.stderr.write(
            f"{ctx.prog}: cannot both summarize and show all entries\nTry '{ctx.help_prog} --help' for more information.\n".encode()
        )
        raise CommandExit(1)
    if opts.has("threshold"):
        text = opts["threshold"]
        neg = text.startswith("-")
        size = parse_size(text.lstrip("-"), allow_b_suffix=False)
        if size is None or (neg and size == 0):
            ctx.error(f"invalid --threshold argument {quote(text)}")
            raise CommandExit(1)
        cfg.threshold = -size if neg else size
    if opts.has("time"):
        cfg.time = opts["time"] or "mtime"
    if opts.has("time_style"):
        cfg.time_style = opts["time_style"]
    return cfg


@declare("du", spec=DU_SPEC, effects=Effects.LIST_TREE, write_failure=WRITE_ERROR_BARE)
def cmd_du(ctx: Ctx) -> int:
    opts, operands = ctx.parse(DU_SPEC)
    cfg = _du_config(ctx, opts)
    excludes = list(opts.get("exclude", []))
    if opts.has("exclude_from"):
        try:
            data = ctx.read_input(opts["exclude_from"])
        except FsError as e:
            ctx.error(f"{quoteaf(opts['exclude_from'])}: {errmsg(e)}")
            return 1
        excludes += [line for line in data.decode("utf-8", "surrogateescape").splitlines() if line]
    if opts.has("files0_from"):
        if operands:
            ctx.stderr.write(
                f"{ctx.prog}: extra operand {quoteaf(operands[0])}\nfile operands cannot be combined with "
                f"--files0-from\nTry '{ctx.help_prog} --help' for more information.\n".encode()
            )
            return 1
        try:
            data = ctx.read_input(opts["files0_from"])
        except FsError as e:
            ctx.error(f"cannot open {quoteaf(opts['files0_from'])} for reading: {errmsg(e)}")
            return 1
        operands = data.decode("utf-8", "surrogateescape").split("\0")
        if operands[-1] == "":
            operands.pop()  # (the list's last name ends with its NUL; an empty name inside is reported)
    elif not operands:
        operands = ["."]
    du = _Du(ctx, cfg, excludes)
    # (GNU: every inode is remembered with several operands, and when all links are followed)
    du.hash_all = len(operands) > 1 or cfg.deref == "always"
    grand = 0
    newest = 0
    source = opts.get("files0_from")
    for index, path in enumerate(operands, 1):
        if not path:
            where = f"{quotef(source)}:{index}: " if source is not None else ""
            ctx.error(f"{where}invalid zero-length file name")
            du.status = 1
            continue
        result = du.walk(path, 0, True)
        if result is not None:
            grand += result[0]
            newest = max(newest, result[1])
    if opts.has("total"):
        du.lines.append(du.show(grand, "total", newest))
    du.flush()
    return du.status


# ------------------------------------------------------------ df

DF_SPEC = CommandSpec(
    name="df",
    usage="[OPTION]... [FILE]...",
    summary="Show information about the file system on which each FILE resides, or all file systems by default.",
    opts=(
        Opt("a", "all", help="include pseudo, duplicate, inaccessible file systems"),
        Opt(
            "B", "block-size", arg="required", metavar="SIZE", help="scale sizes by SIZE before printing them"
        ),
        Opt("h", "human-readable", help="print sizes in powers of 1024 (e.g., 1023M)"),
        Opt("H", "si", help="print sizes in powers of 1000 (e.g., 1.1G)"),
        Opt("i", "inodes", help="list inode information instead of block usage"),
        Opt("k", None, dest="k", help="like --block-size=1K"),
        Opt("l", "local", help="limit listing to local file systems"),
        Opt(None, "no-sync", help="do not invoke sync before getting usage info (default)"),
        Opt(
            None,
            "output",
            arg="optional",
            metavar="FIELD_LIST",
            help="use the output format defined by FIELD_LIST",
        ),
        Opt("P", "portability", help="use the POSIX output format"),
        Opt(None, "sync", help="invoke sync before getting usage info"),
        Opt(
            None,
            "total",
            help="elide all entries insignificant to available space, and produce a grand total",
        ),
        Opt(
            "t",
            "type",
            arg="required",
            metavar="TYPE",
            multi=True,
            help="limit listing to file systems of type TYPE",
        ),
        Opt("T", "print-type", help="print file system type"),
        Opt(
            "x",
            "exclude-type",
            arg="required",
            metavar="TYPE",
            multi=True,
            help="limit listing to file systems not of type TYPE",
        ),
        Opt("v", None, dest="v", help="(ignored)"),
    ),
)

_FIELDS = (
    "source",
    "fstype",
    "itotal",
    "iused",
    "iavail",
    "ipcent",
    "size",
    "used",
    "avail",
    "pcent",
    "file",
    "target",
)
# (header, minimum width, left-aligned)
_HEADERS: dict[str, tuple[str, int, bool]] = {
    "source": ("Filesystem", 14, True),
    "fstype": ("Type", 4, True),
    "itotal": ("Inodes", 5, False),
    "iused": ("IUsed", 5, False),
    "iavail": ("IFree", 5, False),
    "ipcent": ("IUse%", 5, False),
    "size": ("Size", 5, False),
    "used": ("Used", 5, False),
    "avail": ("Avail", 5, False),
    "pcent": ("Use%", 4, False),
    "file": ("File", 4, True),
    "target": ("Mounted on", 0, True),
}


def _pcent(used: int, avail: int) -> str:
    if used + avail == 0:
        return "-"
    return f"{math.ceil(used * 100 / (used + avail))}%"


@declare("df", spec=DF_SPEC, effects=Effects.STAT)
def cmd_df(ctx: Ctx) -> int:
    opts, operands = ctx.parse(DF_SPEC)
    human = 0
    block_size = 1024
    suffix = ""
    for key, value in opts.order:
        if key == "human_readable":
            human = 1024
        elif key == "si":
            human = 1000
        elif key == "k":
            block_size, human, suffix = 1024, 0, ""
        elif key == "block_size":
            block_size, suffix = _block_size(ctx, value, "df")
            human = 0
    posix = opts.has("portability")
    if opts.has("output") and (opts.has("inodes") or opts.has("print_type") or posix):
        ctx.error("options --output and -i/-P/-T are mutually exclusive")
        ctx.stderr.write(f"Try '{ctx.help_prog} --help' for more information.\n".encode())
        return 1
    if opts.has("output"):
        fields = (opts["output"] or ",".join(_FIELDS)).split(",")
        for f in fields:
            if f not in _FIELDS:
                ctx.error(f"option --output: field {quote(f)} unknown")
                ctx.stderr.write(f"Try '{ctx.help_prog} --help' for more information.\n".encode())
                return 1
    elif opts.has("inodes"):
        fields = ["source", "itotal", "iused", "iavail", "ipcent", "target"]
    else:
        fields = ["source", "size", "used", "avail", "pcent", "target"]
    if opts.has("print_type") and "fstype" not in fields:
        fields.insert(1, "fstype")
    types = opts.get("type", [])
    excluded = opts.get("exclude_type", [])
    status = 0
    rows: list[dict[str, str]] = []

    def num(nbytes: int) -> str:
        if human:
            return human_size(nbytes) if human == 1024 else si_size(nbytes)
        return f"{math.ceil(nbytes / block_size)}{suffix}"

    def row(u: FsUsage, target_file: str) -> dict[str, str]:
        total, avail = u.blocks * BLOCK_SIZE, u.bfree * BLOCK_SIZE
        used = total - avail
        return {
            "source": u.source,
            "fstype": u.fstype,
            "size": num(total),
            "used": num(used),
            "avail": num(avail),
            "pcent": _pcent(used, avail),
            "itotal": str(u.files),
            "iused": str(u.files - u.ffree),
            "iavail": str(u.ffree),
            "ipcent": _pcent(u.files - u.ffree, u.ffree),
            "file": target_file,
            "target": u.target,
        }

    def wanted(u: FsUsage) -> bool:
        return (not types or u.fstype in types) and u.fstype not in excluded

    shown: list[FsUsage] = []
    if operands:
        for path in operands:
            ctx.checkpoint()
            try:
                u = mount_of(ctx.fs, path)
            except FsError as e:
                ctx.error(f"{shell_quote(path)}: {errmsg(e)}")
                status = 1
                continue
            if wanted(u):
                shown.append(u)
                rows.append(row(u, path))
    else:
        for u in mount_table(ctx.fs):
            # like GNU: filesystems without blocks (proc and friends) only with -a or -t
            if wanted(u) and (u.blocks or opts.has("all") or types):
                shown.append(u)
                rows.append(row(u, "-"))
    if not rows:
        if status == 0:
            ctx.error("no file systems processed")
            return 1
        return status
    if opts.has("total"):
        sums = FsUsage(
            "total",
            "-",
            "-",
            False,
            sum(u.blocks for u in shown),
            sum(u.bfree for u in shown),
            sum(u.files for u in shown),
            sum(u.ffree for u in shown),
        )
        rows.append(row(sums, "-"))
    headers: dict[str, str] = {k: v[0] for k, v in _HEADERS.items()}
    if not human and "size" in fields:
        unit = str(block_size) if posix else _block_header(block_size, suffix.endswith("B"))
        headers["size"] = f"{unit}-blocks"
        if not opts.has("output"):
            headers["avail"] = "Available"
            if posix:
                headers["pcent"] = "Capacity"
    widths = {f: max([_HEADERS[f][1], len(headers[f])] + [len(r[f]) for r in rows]) for f in fields}
    lines: list[str] = []
    for r in [headers, *rows]:
        cells: list[str] = []
        for i, f in enumerate(fields):
            text = r[f]
            last = i == len(fields) - 1
            if _HEADERS[f][2]:
                cells.append(text if last else text.ljust(widths[f]))
            else:
                cells.append(text.rjust(widths[f]))
        lines.append(" ".join(cells).rstrip() + "\n")
    ctx.out("".join(lines))
    return status


def _block_header(size: int, b_suffix: bool) -> str:
    """The block size in df's header, as GNU writes it: in the base (1000 or
    1024) that divides it more often, `B` for base 1000 or a ...B size (1kB, 1K,
    1KiB, 1.6kB)."""
    q1000 = q1024 = size
    while True:
        by1000, by1024 = q1000 % 1000 == 0, q1024 % 1024 == 0
        q1000, q1024 = q1000 // 1000, q1024 // 1024
        if not (by1000 and by1024):
            break
    base = 1024 if by1024 and not by1000 else 1000
    text = human_size(size, base, "KMGTPEZY" if base == 1024 else "kMGTPEZY").replace(".0", "")
    if base == 1000 or b_suffix:
        text += "iB" if base == 1024 and not text[-1].isdigit() else "B"
    return text
