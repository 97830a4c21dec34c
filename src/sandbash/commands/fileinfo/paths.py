"""realpath, readlink, basename, dirname, pathchk, mkfifo and mknod."""

from __future__ import annotations

import errno
import re

from ...vfs.base import split_path
from ...vfs.errors import FsError
from ..context import CommandExit, Ctx
from ..fsutil import ModeError, basename, dirname, errmsg, parse_mode, quote, quoteaf, shell_quote
from ..options import CommandSpec, Opt, Parsed
from ..record import Effects, declare

MAX_SYMLINKS = 40


def _usage(ctx: Ctx, message: str) -> CommandExit:
    return ctx.usage_error(message)


def canonicalize(ctx: Ctx, path: str, mode: str, symlinks: bool = True) -> str:
    """GNU canonicalize_filename_mode: `mode` is "existing" (-e), "all-but-last"
    (-f, realpath's default) or "missing" (-m). Raises FsError."""
    fs = ctx.fs
    full = fs.abspath(path)
    if not path:
        raise FsError(errno.ENOENT, path)
    todo = split_path(full)
    todo.reverse()
    done: list[str] = []
    hops = 0
    while todo:
        name = todo.pop()
        if name == "..":
            if done:
                done.pop()
            continue
        candidate = "/" + "/".join(done + [name])
        last = not todo
        st = fs.try_lstat(candidate)
        if st is None:
            if mode == "missing":
                # what remains cannot be resolved: keep it lexically
                done.append(name)
                continue
            code = errno.ENOENT
            try:
                fs.lstat(candidate)
            except FsError as e:
                code = e.errno or errno.ENOENT
            # -f keeps only a last name that is missing: one it cannot look up (too long, a
            # directory it may not search, refused) is an error, as gnulib's canonicalize
            if mode == "all-but-last" and last and code == errno.ENOENT:
                done.append(name)
                continue
            raise FsError(code, path)
        if st.is_link and symlinks:
            hops += 1
            if hops > MAX_SYMLINKS:
                raise FsError(errno.ELOOP, path)
            target = fs.readlink(candidate)
            if target.startswith("/"):
                done = []
            parts = split_path(target)
            parts.reverse()
            todo.extend(parts)
            continue
        if not last and not st.is_dir:
            target_st = fs.try_stat(candidate)
            if target_st is None or not target_st.is_dir:
                if mode != "missing":
                    raise FsError(errno.ENOTDIR, path)
        done.append(name)
    if path.endswith("/") and mode == "existing":
        st = fs.try_stat("/" + "/".join(done))
        if st is not None and not st.is_dir:
            raise FsError(errno.ENOTDIR, path)
    return "/" + "/".join(done)


def _logical_normalize(ctx: Ctx, path: str) -> str:
    """Resolve `..` lexically first (realpath -L)."""
    out: list[str] = []
    for part in split_path(ctx.fs.abspath(path)):
        if part == "..":
            if out:
                out.pop()
        else:
            out.append(part)
    return "/" + "/".join(out)


def _relative(path: str, base: str) -> str:
    a = [p for p in path.split("/") if p]
    b = [p for p in base.split("/") if p]
    k = 0
    while k < len(a) and k < len(b) and a[k] == b[k]:
        k += 1
    return "/".join([".."] * (len(b) - k) + a[k:]) or "."


def _within(path: str, base: str) -> bool:
    return base == "/" or path == base or path.startswith(base.rstrip("/") + "/")


# ------------------------------------------------------------ realpath

REALPATH_SPEC = CommandSpec(
    name="realpath",
    usage="[OPTION]... FILE...",
    summary="Print the resolved absolute file name; all but the last component must exist",
    opts=(
        Opt("e", "canonicalize-existing", help="all components of the path must exist"),
        Opt("m", "canonicalize-missing", help="no path components need exist or be a directory"),
        Opt("L", "logical", help="resolve '..' components before symlinks"),
        Opt("P", "physical", help="resolve symlinks as encountered (default)"),
        Opt("q", "quiet", help="suppress most error messages"),
        Opt(
            None, "relative-to", arg="required", metavar="DIR", help="print the resolved path relative to DIR"
        ),
        Opt(
            None,
            "relative-base",
            arg="required",
            metavar="DIR",
            help="print absolute paths unless paths below DIR",
        ),
        Opt("s", "strip", help="don't expand symlinks"),
        Opt(None, "no-symlinks", dest="strip"),
        Opt("z", "zero", help="end each output line with NUL, not newline"),
    ),
)


@declare("realpath", spec=REALPATH_SPEC, effects=Effects.STAT)
def cmd_realpath(ctx: Ctx) -> int:
    opts, operands = ctx.parse(REALPATH_SPEC)
    if not operands:
        raise _usage(ctx, "missing operand")
    mode = "all-but-last"
    for key, _ in opts.order:
        if key == "canonicalize_existing":
            mode = "existing"
        elif key == "canonicalize_missing":
            mode = "missing"
    logical = any(k == "logical" for k, _ in opts.order) and opts.order[-1][0] != "physical"
    symlinks = not opts.has("strip")
    quiet = opts.has("quiet")
    eol = "\0" if opts.has("zero") else "\n"

    def resolve(p: str) -> str:
        source = _logical_normalize(ctx, p) if (logical or not symlinks) else p
        return canonicalize(ctx, source, mode, symlinks)

    rel_to: str | None = None
    rel_base: str | None = None
    try:
        if opts.has("relative_to"):
            rel_to = resolve(opts["relative_to"])
        if opts.has("relative_base"):
            rel_base = resolve(opts["relative_base"])
    except FsError as e:
        ctx.error(
            f"{shell_quote(e.path or opts.get('relative_to') or opts.get('relative_base'))}: {errmsg(e)}"
        )
        return 1
    if rel_base is not None and rel_to is not None and not _within(rel_to, rel_base):
        rel_to = rel_base = None
    elif rel_base is not None and rel_to is None:
        rel_to = rel_base
    status = 0
    out: list[str] = []
    for p in operands:
        ctx.checkpoint()
        try:
            resolved = resolve(p)
        except FsError as e:
            if not quiet:
                ctx.error(f"{shell_quote(p)}: {errmsg(e)}")
            status = 1
            continue
        if rel_to is not None and (rel_base is None or _within(resolved, rel_base)):
            resolved = _relative(resolved, rel_to)
        out.append(resolved + eol)
    ctx.out("".join(out))
    return status


# ------------------------------------------------------------ readlink

READLINK_SPEC = CommandSpec(
    name="readlink",
    usage="[OPTION]... FILE...",
    summary="Print value of a symbolic link or canonical file name",
    opts=(
        Opt(
            "f",
            "canonicalize",
            help="canonicalize by following every symlink; all but the last component must exist",
        ),
        Opt("e", "canonicalize-existing", help="canonicalize; all components must exist"),
        Opt("m", "canonicalize-missing", help="canonicalize without requirements on components existence"),
        Opt("n", "no-newline", help="do not output the trailing delimiter"),
        Opt("q", "quiet", help="suppress most error messages (on by default)"),
        Opt("s", "silent", dest="quiet"),
        Opt("v", "verbose", help="report error messages"),
        Opt("z", "zero", help="end each output line with NUL, not newline"),
    ),
)


@declare("readlink", spec=READLINK_SPEC, effects=Effects.STAT)
def cmd_readlink(ctx: Ctx) -> int:
    opts, operands = ctx.parse(READLINK_SPEC)
    if not operands:
        raise _usage(ctx, "missing operand")
    mode: str | None = None
    for key, _ in opts.order:
        if key in ("canonicalize", "canonicalize_existing", "canonicalize_missing"):
            mode = {"canonicalize": "all-but-last", "canonicalize_existing": "existing"}.get(key, "missing")
    verbose = False
    for key, _ in opts.order:
        if key in ("verbose", "quiet"):
            verbose = key == "verbose"
    no_newline = opts.has("no_newline")
    if no_newline and len(operands) > 1:
        ctx.error("ignoring --no-newline with multiple arguments")
        no_newline = False
    eol = "" if no_newline else ("\0" if opts.has("zero") else "\n")
    status = 0
    out: list[str] = []
    for p in operands:
        ctx.checkpoint()
        try:
            value = canonicalize(ctx, p, mode) if mode is not None else ctx.fs.readlink(p)
        except FsError as e:
            if verbose:
                ctx.error(f"{shell_quote(p)}: {errmsg(e)}")
            status = 1
            continue
        out.append(value + eol)
    ctx.out("".join(out))
    return status


# ------------------------------------------------------------ basename / dirname

BASENAME_SPEC = CommandSpec(
    name="basename",
    usage="NAME [SUFFIX]\n  or:  basename OPTION... NAME...",
    summary="Print NAME with any leading directory components removed.",
    opts=(
        Opt("a", "multiple", help="support multiple arguments and treat each as a NAME"),
        Opt("s", "suffix", arg="required", metavar="SUFFIX", help="remove a trailing SUFFIX; implies -a"),
        Opt("z", "zero", help="end each output line with NUL, not newline"),
    ),
    stop_at_operand=True,  # (GNU's "+as:z": `basename -s .c a.c -a` names a file `-a`)
)


def _strip_suffix(name: str, suffix: str) -> str:
    if suffix and name != suffix and name.endswith(suffix):
        return name[: -len(suffix)]
    return name


@declare("basename", spec=BASENAME_SPEC, effects=Effects.NONE)
def cmd_basename(ctx: Ctx) -> int:
    opts, operands = ctx.parse(BASENAME_SPEC)
    if not operands:
        raise _usage(ctx, "missing operand")
    multiple = opts.has("multiple") or opts.has("suffix")
    suffix = opts.get("suffix", "")
    if not multiple:
        if len(operands) > 2:
            raise _usage(ctx, f"extra operand {quote(operands[2])}")
        if len(operands) == 2:
            suffix = operands[1]
            operands = operands[:1]
    eol = "\0" if opts.has("zero") else "\n"
    out = []
    for name in operands:
        base = basename(name)
        out.append((_strip_suffix(base, suffix) if base != "/" else base) + eol)
    ctx.out("".join(out))
    return 0


DIRNAME_SPEC = CommandSpec(
    name="dirname",
    usage="[OPTION] NAME...",
    summary="Output each NAME with its last non-slash component and trailing slashes removed.",
    opts=(Opt("z", "zero", help="end each output line with NUL, not newline"),),
)


@declare("dirname", spec=DIRNAME_SPEC, effects=Effects.NONE)
def cmd_dirname(ctx: Ctx) -> int:
    opts, operands = ctx.parse(DIRNAME_SPEC)
    if not operands:
        raise _usage(ctx, "missing operand")
    eol = "\0" if opts.has("zero") else "\n"
    out = []
    for name in operands:
        out.append(dirname(name) + eol)
    ctx.out("".join(out))
    return 0


# ------------------------------------------------------------ pathchk

PATHCHK_SPEC = CommandSpec(
    name="pathchk",
    usage="[OPTION]... NAME...",
    summary="Diagnose invalid or non-portable file names.",
    opts=(
        Opt("p", None, dest="p", help="check for most POSIX systems"),
        Opt("P", None, dest="P", help='check for empty names and leading "-"'),
        Opt(None, "portability", help="check for all POSIX systems (equivalent to -p -P)"),
    ),
)

_PORTABLE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-/")


def _pathchk_one(ctx: Ctx, name: str, posix: bool, extra: bool) -> bool:
    if extra:
        if not name:
            ctx.error("empty file name")
            return False
        if any(part.startswith("-") for part in name.split("/")):
            ctx.error(f"leading '-' in a component of file name {quoteaf(name)}")
            return False
    if posix:
        for ch in name:
            if ch not in _PORTABLE:
                ctx.error(f"nonportable character {quote(ch)} in file name {quoteaf(name)}")
                return False
    elif not name:
        ctx.error(f"{quoteaf(name)}: {errmsg(errno.ENOENT)}")
        return False
    max_path = 256 if posix else 4096
    max_name = 14 if posix else 255
    length = len(name.encode("utf-8", "surrogateescape"))
    if length >= max_path:
        if posix:
            ctx.error(f"limit {max_path - 1} exceeded by length {length} of file name {quoteaf(name)}")
        else:
            ctx.error(f"{shell_quote(name)}: {errmsg(errno.ENAMETOOLONG)}")
        return False
    for part in name.split("/"):
        plen = len(part.encode("utf-8", "surrogateescape"))
        if plen > max_name:
            if posix:
                ctx.error(f"limit {max_name} exceeded by length {plen} of file name component {quote(part)}")
            else:
                ctx.error(f"{shell_quote(name)}: {errmsg(errno.ENAMETOOLONG)}")
            return False
    if not posix:
        # an existing leading directory must be searchable
        parts = name.split("/")
        prefix = ""
        for part in parts[:-1]:
            prefix = prefix + part + "/"
            # the component itself (a trailing slash would make a file answer ENOTDIR as missing)
            st = ctx.fs.try_stat(prefix[:-1] or "/")
            if st is None:
                break
            if not st.is_dir:
                ctx.error(f"{shell_quote(name)}: {errmsg(errno.ENOTDIR)}")
                return False
    return True


@declare("pathchk", spec=PATHCHK_SPEC, effects=Effects.NONE)
def cmd_pathchk(ctx: Ctx) -> int:
    opts, operands = ctx.parse(PATHCHK_SPEC)
    if not operands:
        raise _usage(ctx, "missing operand")
    posix = opts.has("p") or opts.has("portability")
    extra = opts.has("P") or opts.has("portability")
    status = 0
    for name in operands:
        if not _pathchk_one(ctx, name, posix, extra):
            status = 1
    return status


# ------------------------------------------------------------ mkfifo

MKFIFO_SPEC = CommandSpec(
    name="mkfifo",
    usage="[OPTION]... NAME...",
    summary="Create named pipes (FIFOs) with the given NAMEs.",
    opts=(
        Opt(
            "m",
            "mode",
            arg="required",
            metavar="MODE",
            help="set file permission bits to MODE, not a=rw - umask",
        ),
        Opt("Z", None, dest="Z", help="set the SELinux security context to default type"),
        Opt(None, "context", arg="optional", metavar="CTX", help="like -Z"),
    ),
)


def _mode_ok(ctx: Ctx, opts: Parsed) -> bool:
    if opts.has("mode"):
        try:
            parse_mode(opts["mode"], 0o666, False, 0)
        except ModeError:
            ctx.error("invalid mode")
            return False
    return True


def _special_file_errno(ctx: Ctx, name: str, fifo: bool) -> int:
    """Why mknod(2) cannot make `name` here: what the path check finds, else that the virtual
    filesystem has no named pipes (nothing could open both ends concurrently outside a pipeline)
    and that creating a device needs a privilege the sandbox never has."""
    fs = ctx.fs
    if fs.try_lstat(name) is not None:
        return errno.EEXIST
    parent = dirname(name)
    pst = fs.try_stat(parent)
    if pst is None:
        try:
            fs.stat(parent)
        except FsError as e:
            return e.errno or errno.ENOENT
    elif not pst.is_dir:
        return errno.ENOTDIR
    return errno.EOPNOTSUPP if fifo else errno.EPERM


def _special_file_error(code: int) -> str:
    return "Operation not supported" if code == errno.EOPNOTSUPP else errmsg(code)


@declare("mkfifo", spec=MKFIFO_SPEC, effects=Effects.MKDIR)
def cmd_mkfifo(ctx: Ctx) -> int:
    opts, operands = ctx.parse(MKFIFO_SPEC)
    if not _mode_ok(ctx, opts):
        return 1
    if not operands:
        raise _usage(ctx, "missing operand")
    for name in operands:
        text = _special_file_error(_special_file_errno(ctx, name, True))
        ctx.error(f"cannot create fifo {quoteaf(name)}: {text}")
    return 1


# ------------------------------------------------------------ mknod

MKNOD_SPEC = CommandSpec(
    name="mknod",
    usage="[OPTION]... NAME TYPE [MAJOR MINOR]",
    summary="Create the special file NAME of the given TYPE.",
    opts=MKFIFO_SPEC.opts,
)

_DEVICE_NUMBER = re.compile(r"[ \t\n\v\f\r]*(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")


def _device_number(text: str) -> int | None:
    """strtoumax with base 0: 0x hexadecimal, 0 octal, else decimal; None when not a number."""
    m = _DEVICE_NUMBER.fullmatch(text)
    if m is None:
        return None
    digits = m.group(1)
    if digits[:2].lower() == "0x":
        return int(digits[2:], 16)
    return int(digits, 8 if digits.startswith("0") else 10)


@declare("mknod", spec=MKNOD_SPEC, effects=Effects.MKNOD)
def cmd_mknod(ctx: Ctx) -> int:
    """A FIFO (TYPE p) or a block/character device (b, c, u): neither can be made in the sandbox."""
    opts, operands = ctx.parse(MKNOD_SPEC)
    if not _mode_ok(ctx, opts):
        return 1
    fifo = len(operands) > 1 and operands[1][:1] == "p"
    expected = 2 if fifo else 4
    if len(operands) < expected:
        if len(operands) == 2:  # a device type without its numbers
            why = "Special files require major and minor device numbers."
            raise _usage(ctx, f"missing operand after {quote(operands[-1])}\n{why}")
        ctx.operand_count(operands, expected)
    if len(operands) == 4 and fifo:
        why = "Fifos do not have major and minor device numbers."
        raise _usage(ctx, f"extra operand {quote(operands[2])}\n{why}")
    ctx.operand_count(operands, expected)
    name, kind = operands[0], operands[1][:1]
    if kind in ("b", "c", "u"):
        for which, text in (("major", operands[2]), ("minor", operands[3])):
            number = _device_number(text)
            if number is None or number >= 1 << 32:
                ctx.error(f"invalid {which} device number {quote(text)}")
                return 1
    elif not fifo:
        raise _usage(ctx, f"invalid device type {quote(operands[1])}")
    ctx.error(f"{shell_quote(name)}: {_special_file_error(_special_file_errno(ctx, name, fifo))}")
    return 1
