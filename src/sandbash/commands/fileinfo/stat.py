"""stat: file and file-system status with GNU's formats and directives."""

from __future__ import annotations

from ...syntax.escapes import decode_raw
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
    group_name,
    mode_string,
    mount_of,
    quoteaf,
    shell_quote,
    type_description,
    tz_from_env,
    user_name,
)
from ..options import CommandSpec, Opt
from ..record import Effects, declare

SPEC = CommandSpec(
    name="stat",
    usage="[OPTION]... FILE...",
    summary="Display file or file system status.",
    opts=(
        Opt("L", "dereference", help="follow links"),
        Opt("f", "file-system", help="display file system status instead of file status"),
        Opt(None, "cached", arg="required", metavar="MODE", help="specify how to use cached attributes"),
        Opt(
            "c",
            "format",
            arg="required",
            metavar="FORMAT",
            help="use the specified FORMAT instead of the default",
        ),
        Opt(
            None,
            "printf",
            arg="required",
            metavar="FORMAT",
            help="like --format, but interpret backslash escapes",
        ),
        Opt("t", "terse", help="print the information in terse form"),
    ),
)

FILE_FORMAT = (
    "  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\n"
    "Device: %Hd,%Ld\tInode: %-11i Links: %h\n"
    "Access: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\n"
    "Access: %x\nModify: %y\nChange: %z\n Birth: %w\n"
)
DEVICE_FORMAT = FILE_FORMAT.replace("Links: %h\n", "Links: %-5h Device type: %Hr,%Lr\n")
FS_FORMAT = (
    '  File: "%n"\n    ID: %-8i Namelen: %-7l Type: %T\n'
    "Block size: %-10s Fundamental block size: %S\n"
    "Blocks: Total: %-10b Free: %-10f Available: %a\n"
    "Inodes: Total: %-10c Free: %d\n"
)
TERSE_FILE = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n"
TERSE_FS = "%n %i %l %t %s %S %b %f %a %c %d\n"


def _backslash(fmt: str) -> tuple[str, list[str]]:
    """--printf escapes (\\n, \\NNN octal, \\xHH hex), and GNU's warnings for the ones it does not know."""
    unknown: list[str] = []
    text = decode_raw(fmt, "stat", unknown)
    warnings = [f"warning: unrecognized escape '\\{d}'" for d in unknown]
    if len(fmt) - len(fmt.rstrip("\\")) & 1:
        warnings.append("warning: backslash at end of format")
    return text, warnings


def _pad(text: str, flags: str, width: str, numeric: bool) -> str:
    if not width:
        return text
    w = int(width)
    if "-" in flags:
        return text.ljust(w)
    if "0" in flags and numeric and text.lstrip("-").isdigit():
        sign = "-" if text.startswith("-") else ""
        return sign + text.lstrip("-").rjust(w - len(sign), "0")
    return text.rjust(w)


class _Formatter:
    def __init__(self, ctx: Ctx, path: str, st: Stat, follow: bool) -> None:
        self.ctx = ctx
        self.path = path
        self.st = st
        self.follow = follow
        self.tz = tz_from_env(ctx.env)
        self.failed = False

    def time_field(self, ns: int, kind: str, precision: str | None) -> tuple[str, bool]:
        if kind.islower():
            return format_full_time(ns, self.tz), False
        secs = ns // NS
        if precision is None:
            return str(secs), True
        digits = 9 if precision == "" else int(precision)
        if digits == 0:
            return str(secs), True
        secs, frac_ns = divmod(ns, NS)
        sign = ""
        if secs < 0 and frac_ns:
            # GNU's out_epoch_sec: a time before the epoch reads as its magnitude
            # (-1.25 s is `-1.250`, -0.25 s `-0.250`), where %Y alone is the floor (-2)
            sign, secs, frac_ns = "-", -(secs + 1), NS - frac_ns
        frac = f"{frac_ns:09d}"
        if digits > 9:
            frac = frac + "0" * (digits - 9)
        return f"{sign}{secs}.{frac[:digits]}", True

    def directive(self, d: str, precision: str | None) -> tuple[str, bool]:
        """The text of one file directive and whether it is numeric."""
        st = self.st
        fs = self.ctx.fs
        if d == "n":
            return self.path, False
        if d == "N":
            name = quoteaf(self.path)
            if st.is_link:
                try:
                    name += " -> " + quoteaf(fs.readlink(self.path))
                except FsError:
                    pass
            return name, False
        if d in "xyzXYZ":
            t = {"x": st.atime_ns, "y": st.mtime_ns, "z": st.ctime_ns}[d.lower()]
            return self.time_field(t, d, precision)
        simple: dict[str, tuple[str, bool]] = {
            "a": (f"{st.perm:o}", True),
            "A": (mode_string(st.mode), False),
            "b": (str(blocks_512(st)), True),
            "B": ("512", True),
            "d": (str(st.dev), True),
            "D": (f"{st.dev:x}", False),
            "f": (f"{st.mode:x}", False),
            "F": (type_description(st), False),
            "g": (str(st.gid), True),
            "G": (group_name(st.gid), False),
            "h": (str(st.nlink), True),
            "i": (str(st.ino), True),
            "o": ("4096", True),
            "s": (str(st.size), True),
            "t": (f"{_major(st.rdev):x}", False),
            "T": (f"{_minor(st.rdev):x}", False),
            "u": (str(st.uid), True),
            "U": (user_name(st.uid), False),
            "w": ("-", False),
            "W": ("0", True),
            "r": (str(st.rdev), True),
            "R": (f"{st.rdev:x}", False),
        }
        if d in simple:
            return simple[d]
        if d == "m":
            return self.mount_point(), False
        if d == "C":
            self.ctx.error(f"failed to get security context of {quoteaf(self.path)}: No data available")
            self.failed = True
            return "?", False
        return "?", False

    def expand(self, fmt: str, fs_mode: bool) -> str:
        out: list[str] = []
        i = 0
        n = len(fmt)
        while i < n:
            c = fmt[i]
            if c != "%":
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < n and fmt[j] in "-#+ 0'I":
                j += 1
            flags = fmt[i + 1 : j]
            k = j
            while k < n and fmt[k].isdigit():
                k += 1
            width = fmt[j:k]
            precision: str | None = None
            if k < n and fmt[k] == ".":
                p = k + 1
                while p < n and fmt[p].isdigit():
                    p += 1
                precision = fmt[k + 1 : p]
                k = p
            if k >= n:
                out.append(fmt[i:])
                break
            d = fmt[k]
            i = k + 1
            if d == "%":
                out.append("%")
                continue
            if not fs_mode and d in "HL" and i < n and fmt[i] in "dr":
                sub = fmt[i]
                i += 1
                value = self.st.dev if sub == "d" else self.st.rdev
                text = str(_major(value) if d == "H" else _minor(value))
                out.append(_pad(text, flags, width, True))
                continue
            text, numeric = self.fs_directive(d) if fs_mode else self.directive(d, precision)
            # A string directive (the %x/%y/%z/%w time texts too) is printed with printf's %.Ns:
            # the precision truncates it. Only %X/%Y/%Z/%W read it as fraction digits.
            if precision is not None and not numeric:
                text = text[: int(precision or 0)]
            elif precision is not None and numeric and d not in "XYZ" and precision:
                text = text.rjust(int(precision), "0")
            out.append(_pad(text, flags, width, numeric))
        return "".join(out)

    def fs_directive(self, d: str) -> tuple[str, bool]:
        try:
            u = mount_of(self.ctx.fs, self.path)
        except FsError:
            u = FsUsage("", "", "/", False, 0, 0, 0, 0)
        table: dict[str, tuple[str, bool]] = {
            "a": (str(u.bfree), True),
            "b": (str(u.blocks), True),
            "c": (str(u.files), True),
            "d": (str(u.ffree), True),
            "f": (str(u.bfree), True),
            "i": ("0", False),
            "l": ("255", True),
            "n": (self.path, False),
            "s": (str(BLOCK_SIZE), True),
            "S": (str(BLOCK_SIZE), True),
            "t": (f"{u.magic:x}", False),
            "T": (_TYPE_NAMES.get(u.magic, u.fstype), False),
        }
        return table.get(d, ("?", False))

    def mount_point(self) -> str:
        try:
            return mount_of(self.ctx.fs, self.path).target
        except FsError:
            return "?"


# GNU stat names a filesystem by its magic number (devtmpfs is tmpfs)
_TYPE_NAMES = {0x01021994: "tmpfs", 0x794C7630: "overlayfs", 0xEF53: "ext2/ext3"}


def _major(dev: int) -> int:
    return ((dev >> 8) & 0xFFF) | ((dev >> 32) & ~0xFFF)


def _minor(dev: int) -> int:
    return (dev & 0xFF) | ((dev >> 12) & ~0xFF)


@declare("stat", spec=SPEC, effects=Effects.STAT)
def cmd_stat(ctx: Ctx) -> int:
    opts, operands = ctx.parse(SPEC)
    if not operands:
        raise ctx.usage_error("missing operand")
        raise CommandExit(1)
    fs_mode = opts.has("file_system")
    follow = opts.has("dereference")
    user_fmt: str | None = None
    warnings: list[str] = []  # GNU warns again for each file it formats
    if opts.has("printf"):
        user_fmt, warnings = _backslash(opts["printf"])
    elif opts.has("format"):
        user_fmt = opts["format"] + "\n"
    status = 0
    for path in operands:
        ctx.checkpoint()
        try:
            st = None if fs_mode else descriptor_stat(ctx, path, follow)
            if st is None:
                st = ctx.fs.stat(path) if (follow or fs_mode) else ctx.fs.lstat(path)
        except FsError as e:
            if fs_mode:
                ctx.error(f"cannot read file system information for {quoteaf(path)}: {errmsg(e)}")
            else:
                ctx.error(f"cannot statx {quoteaf(path)}: {errmsg(e)}")
            status = 1
            continue
        f = _Formatter(ctx, path, st, follow)
        for warning in warnings:
            ctx.error(warning)
        if user_fmt is not None:
            fmt = user_fmt
        elif opts.has("terse"):
            fmt = TERSE_FS if fs_mode else TERSE_FILE
        elif fs_mode:
            fmt = FS_FORMAT
        else:
            fmt = DEVICE_FORMAT if (st.is_chr or (st.mode & 0o170000) == 0o060000) else FILE_FORMAT
            # the default format shows the name unquoted unless it needs quoting
            name = shell_quote(path)
            if st.is_link:
                try:
                    name += " -> " + shell_quote(ctx.fs.readlink(path))
                except FsError:
                    pass
            fmt = fmt.replace("%N", name.replace("%", "%%"), 1)
        ctx.out(f.expand(fmt, fs_mode))
        if f.failed:
            status = 1
    return status
