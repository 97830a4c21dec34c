"""mkdir, touch, ln, link, mktemp, truncate and sync."""

from __future__ import annotations

import errno
import re

from ...vfs.base import NS, Stat, ns_clock, seconds_to_ns
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..fsutil import (
    ModeError,
    adjust_mode,
    basename,
    compile_mode,
    dirname,
    errmsg,
    join,
    parse_touch_stamp,
    quote,
    quoteaf,
    shell_quote,
    tz_from_env,
)
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from .common import (
    BACKUP_OPTS,
    backup_control,
    backup_suffix,
    fail,
    lstat_dest,
    make_backup,
    prompt,
    slash_on_missing,
    usage_error,
)
from .copy import resolve_targets

# ------------------------------------------------------------ mkdir

MKDIR_SPEC = CommandSpec(
    name="mkdir",
    usage="[OPTION]... DIRECTORY...",
    summary="Create the DIRECTORY(ies), if they do not already exist.",
    opts=(
        Opt(
            "m", "mode", arg="required", metavar="MODE", help="set file mode (as in chmod), not a=rwx - umask"
        ),
        Opt("p", "parents", help="no error if existing, make parent directories as needed"),
        Opt("v", "verbose", help="print a message for each created directory"),
        Opt("Z", None, dest="Z", help="set SELinux security context of each created directory"),
        Opt(None, "context", arg="optional", metavar="CTX", help="like -Z"),
    ),
)


@declare("mkdir", spec=MKDIR_SPEC, effects=Effects.MKDIR)
def cmd_mkdir(ctx: Ctx) -> int:
    opts, operands = ctx.parse(MKDIR_SPEC)
    fs = ctx.fs
    if not operands:
        raise usage_error(ctx, "missing operand")
    mode: int | None = None
    if opts.has("mode"):
        try:
            mode = adjust_mode(0o777, True, fs.umask, compile_mode(opts["mode"]))
        except ModeError:
            ctx.error(f"invalid mode {quote(opts['mode'])}")
            return 1
    verbose = opts.has("verbose")
    status = 0
    for path in operands:
        ctx.checkpoint()
        if opts.has("parents") and not _make_parents(ctx, path, verbose):
            status = 1
            continue
        if opts.has("parents") and fs.is_dir(path):
            continue
        try:
            fs.mkdir(path, 0o777 if mode is None else 0o700)
            if mode is not None:
                fs.chmod(path, mode)
        except FsError as e:
            ctx.error(f"cannot create directory {quote(path)}: {errmsg(e)}")
            status = 1
            continue
        if verbose:
            ctx.out(f"{ctx.prog}: created directory {quoteaf(path)}\n")
    return status


def _make_parents(ctx: Ctx, path: str, verbose: bool) -> bool:
    """Create the missing ancestors of `path` (u+wx so we can fill them)."""
    fs = ctx.fs
    parts = [p for p in path.split("/") if p]
    cur = "/" if path.startswith("/") else ""
    for part in parts[:-1]:
        cur = join(cur, part) if cur else part
        try:
            st: Stat | None = fs.stat(cur)
        except FsError as e:
            if e.rule:  # the policy's answer, not "File exists" from the mkdir that follows
                ctx.error(f"cannot create directory {quote(cur)}: {errmsg(e)}")
                return False
            st = None
        if st is not None:
            if not st.is_dir:
                ctx.error(f"cannot create directory {quote(cur)}: {strerror(errno.ENOTDIR)}")
                return False
            continue
        if part in (".", ".."):
            continue
        try:
            fs.mkdir(cur, 0o777)
            st = fs.stat(cur)
            if (st.perm & 0o300) != 0o300:
                fs.chmod(cur, st.perm | 0o300)
        except FsError as e:
            ctx.error(f"cannot create directory {quote(cur)}: {errmsg(e)}")
            return False
        if verbose:
            ctx.out(f"{ctx.prog}: created directory {quoteaf(cur)}\n")
    last = fs.try_stat(path)
    if last is not None and not last.is_dir:
        ctx.error(f"cannot create directory {quote(path)}: {strerror(errno.EEXIST)}")
        return False
    return True


# ------------------------------------------------------------ touch

TOUCH_SPEC = CommandSpec(
    name="touch",
    usage="[OPTION]... FILE...",
    summary="Update the access and modification times of each FILE to the current time.",
    opts=(
        Opt("a", None, dest="a", help="change only the access time"),
        Opt("c", "no-create", help="do not create any files"),
        Opt(
            "d",
            "date",
            arg="required",
            metavar="STRING",
            help="parse STRING and use it instead of current time",
        ),
        Opt("f", None, dest="f", help="(ignored)"),
        Opt("h", "no-dereference", help="affect each symbolic link instead of any referenced file"),
        Opt("m", None, dest="m", help="change only the modification time"),
        Opt(
            "r",
            "reference",
            arg="required",
            metavar="FILE",
            help="use this file's times instead of current time",
        ),
        Opt(
            "t",
            None,
            dest="t",
            arg="required",
            metavar="STAMP",
            help="use [[CC]YY]MMDDhhmm[.ss] instead of current time",
        ),
        Opt(
            None,
            "time",
            arg="required",
            metavar="WORD",
            help="change the specified time: access, atime, use, modify, mtime",
        ),
    ),
)


def _now(ctx: Ctx) -> int:
    """The filesystem's clock in nanoseconds, so new timestamps agree with files written now."""
    return ns_clock(ctx.fs.vfs.clock)()


@declare("touch", spec=TOUCH_SPEC, effects=Effects.TOUCH)
def cmd_touch(ctx: Ctx) -> int:
    opts, operands = ctx.parse(TOUCH_SPEC)
    fs = ctx.fs
    now = _now(ctx)
    change_a = opts.has("a")
    change_m = opts.has("m")
    if opts.has("time"):
        word = opts["time"]
        kinds = {"access": "a", "atime": "a", "use": "a", "modify": "m", "mtime": "m"}
        matches = {v for k, v in kinds.items() if k.startswith(word)} if word else set()
        if len(matches) != 1:
            kind = "ambiguous" if matches else "invalid"
            ctx.stderr.write(
                f"{ctx.prog}: {kind} argument {quote(word)} for \u2018--time\u2019\nValid arguments are:\n"
                "  - \u2018atime\u2019, \u2018access\u2019, \u2018use\u2019\n  - \u2018mtime\u2019, \u2018modify\u2019\n"
                f"Try '{ctx.help_prog} --help' for more information.\n".encode()
            )
            return 1
        if matches.pop() == "a":
            change_a = True
        else:
            change_m = True
    if not change_a and not change_m:
        change_a = change_m = True
    sources = sum(1 for k in ("date", "t") if opts.has(k)) + (
        1 if opts.has("reference") and opts.has("t") else 0
    )
    if sources > 1:
        raise usage_error(ctx, "cannot specify times from more than one source")
    atime = mtime = now
    if opts.has("reference"):
        ref = opts["reference"]
        try:
            rst = fs.lstat(ref) if opts.has("no_dereference") else fs.stat(ref)
        except FsError as e:
            fail(ctx, "failed to get attributes of", ref, e)
            return 1
        atime, mtime = rst.atime_ns, rst.mtime_ns
    if opts.has("date"):
        base = mtime if opts.has("reference") else now
        from ..date.parse import parse_datetime  # (date's parser and zones: ~8 ms of a first mkdir)

        when = parse_datetime(opts["date"], base, tz_from_env(ctx.env))
        if when is None:
            ctx.error(f"invalid date format {quote(opts['date'])}")
            return 1
        atime = mtime = when
    if opts.has("t"):
        stamp = parse_touch_stamp(opts["t"], now / NS, tz_from_env(ctx.env))
        if stamp is None:
            ctx.error(f"invalid date format {quote(opts['t'])}")
            return 1
        atime = mtime = seconds_to_ns(stamp)
    if not operands:
        raise usage_error(ctx, "missing file operand")
    status = 0
    follow = not opts.has("no_dereference")
    for path in operands:
        ctx.checkpoint()
        if path == "-":
            continue
        if path.endswith("/") and path.strip("/"):
            # 'NAME/' names a directory or nothing: open(O_CREAT) of it fails, then utimensat says why
            try:
                if lstat_dest(ctx, path) is None:
                    raise FsError(errno.ENOENT, path)
            except FsError as e:
                if not (e.code == errno.ENOENT and opts.has("no_create")):
                    # open's EISDIR sends GNU on to utimensat, which says why; any other failure is open's
                    what = "setting times of" if e.code in (errno.ENOENT, errno.ENOTDIR) else "cannot touch"
                    ctx.error(f"{what} {quoteaf(path)}: {errmsg(e)}")
                    status = 1
                continue
        exists = (fs.try_stat(path) if follow else fs.try_lstat(path)) is not None
        if not exists:
            if opts.has("no_create") or opts.has("no_dereference"):
                try:
                    fs.lstat(path)
                except FsError as e:  # -c skips a missing file only; -h reports it (GNU)
                    if not (e.code == errno.ENOENT and opts.has("no_create")):
                        ctx.error(f"setting times of {quoteaf(path)}: {errmsg(e)}")
                        status = 1
                    continue
            else:
                try:
                    fs.open(path, "a").close()
                except FsError as e:
                    fail(ctx, "cannot touch", path, e)
                    status = 1
                    continue
        try:
            fs.utime(path, atime if change_a else None, mtime if change_m else None, follow=follow)
        except FsError as e:
            if e.code == errno.ENOENT and opts.has("no_create"):
                continue  # -c through a dangling link
            ctx.error(f"setting times of {quoteaf(path)}: {errmsg(e)}")
            status = 1
    return status


# ------------------------------------------------------------ ln

LN_SPEC = CommandSpec(
    name="ln",
    usage="[OPTION]... [-T] TARGET LINK_NAME\n  or:  ln [OPTION]... TARGET\n  or:  ln [OPTION]... TARGET... DIRECTORY\n"
    "  or:  ln [OPTION]... -t DIRECTORY TARGET...",
    summary="Create a link to TARGET with the name LINK_NAME.",
    opts=(
        *BACKUP_OPTS,
        Opt("d", "directory", help="allow the superuser to attempt to hard link directories"),
        Opt("F", None, dest="directory"),
        Opt("f", "force", help="remove existing destination files"),
        Opt("i", "interactive", help="prompt whether to remove destinations"),
        Opt("L", "logical", help="dereference TARGETs that are symbolic links"),
        Opt(
            "n",
            "no-dereference",
            help="treat LINK_NAME as a normal file if it is a symbolic link to a directory",
        ),
        Opt("P", "physical", help="make hard links directly to symbolic links"),
        Opt("r", "relative", help="with -s, create links relative to link location"),
        Opt("s", "symbolic", help="make symbolic links instead of hard links"),
        Opt(
            "t",
            "target-directory",
            arg="required",
            metavar="DIRECTORY",
            help="specify the DIRECTORY in which to create the links",
        ),
        Opt("T", "no-target-directory", help="treat LINK_NAME as a normal file always"),
        Opt("v", "verbose", help="print name of each linked file"),
    ),
)


def relative_to(ctx: Ctx, target: str, link: str) -> str:
    """The path from `link`'s directory to `target`, both canonicalised (ln -r)."""
    fs = ctx.fs
    tgt = _canon_missing(ctx, target)
    base = _canon_missing(ctx, dirname(fs.abspath(link)))
    return relpath(tgt, base)


def relpath(path: str, start: str) -> str:
    a = [p for p in path.split("/") if p]
    b = [p for p in start.split("/") if p]
    k = 0
    while k < len(a) and k < len(b) and a[k] == b[k]:
        k += 1
    parts = [".."] * (len(b) - k) + a[k:]
    return "/".join(parts) or "."


def _canon_missing(ctx: Ctx, path: str) -> str:
    """realpath -m: resolve what exists, keep the rest lexically."""
    fs = ctx.fs
    full = fs.normpath(path)
    try:
        return fs.resolve(full, follow=True)
    except FsError:
        head, _, tail = full.rpartition("/")
        return join(_canon_missing(ctx, head or "/"), tail) if head else "/" + tail


@declare("ln", spec=LN_SPEC, effects=Effects.LN)
def cmd_ln(ctx: Ctx) -> int:
    opts, operands = ctx.parse(LN_SPEC)
    fs = ctx.fs
    symbolic = opts.has("symbolic")
    if opts.has("relative") and not symbolic:
        ctx.error("cannot do --relative without --symbolic")
        return 1
    mode = ""
    for key, _ in opts.order:
        if key in ("interactive", "force"):
            mode = key
    control = backup_control(ctx, opts.values)
    suffix = backup_suffix(ctx, opts.values)
    target = opts.get("target_directory")
    last_st = fs.try_lstat(operands[-1]) if len(operands) == 2 and target is None else None
    if target is None and len(operands) == 1 and not opts.has("no_target_directory"):
        pairs = [(operands[0], join(".", basename(operands[0])))]
    elif opts.has("no_dereference") and last_st is not None and last_st.is_link:
        # -n: a symlink to a directory is replaced, not entered
        pairs = [(operands[0], operands[1])]
    else:
        sources, directory, single = resolve_targets(ctx, operands, target, opts.has("no_target_directory"))
        if single is not None:
            pairs = [(sources[0], single)]
        else:
            pairs = [(s, join(directory or ".", basename(s))) for s in sources]
    return _link_all(
        ctx,
        pairs,
        symbolic,
        mode,
        control,
        suffix,
        opts.has("relative"),
        opts.has("verbose"),
        opts.has("logical"),
    )


def _link_all(
    ctx: Ctx,
    pairs: list[tuple[str, str]],
    symbolic: bool,
    mode: str,
    control: str | None,
    suffix: str,
    relative: bool,
    verbose: bool,
    logical: bool,
) -> int:
    fs = ctx.fs
    status = 0
    for src, dst in pairs:
        ctx.checkpoint()
        if not symbolic:
            try:
                sst = fs.stat(src) if logical else fs.lstat(src)
            except FsError as e:
                fail(ctx, "failed to access", src, e)
                status = 1
                continue
            if sst.is_dir:
                ctx.error(f"{shell_quote(src)}: hard link not allowed for directory")
                status = 1
                continue
        note = ""
        try:
            dst_st = lstat_dest(ctx, dst)
            missing = dst_st is None
        except FsError as e:
            if mode or control:  # ln -f/-i/-b look at DEST before replacing it
                fail(ctx, "failed to access", dst, e)
                status = 1
                continue
            dst_st, missing = None, False  # the link attempt says why
        if dst_st is not None:
            same = False
            if not symbolic:
                same = dst_st.ino == sst.ino
            else:
                tst = fs.try_stat(src if src.startswith("/") else join(dirname(dst), src))
                same = tst is not None and tst.ino == dst_st.ino and not dst_st.is_link
                same = same or fs.normpath(dst) == fs.normpath(join(dirname(dst), src))
            if same and (mode == "force" or control):
                ctx.error(f"{quoteaf(src)} and {quoteaf(dst)} are the same file")
                status = 1
                continue
            if mode == "interactive" and not prompt(ctx, f"replace {quoteaf(dst)}?"):
                continue
            try:
                if control:
                    note = f" ~ {quoteaf(make_backup(ctx, dst, control, suffix))}"
                elif mode:
                    if dst_st.is_dir:
                        ctx.error(f"{shell_quote(dst)}: cannot overwrite directory")
                        status = 1
                        continue
                    fs.unlink(dst)
            except FsError as e:
                fail(ctx, "cannot remove", dst, e)
                status = 1
                continue
        try:
            if missing and slash_on_missing(dst, None):
                raise FsError(errno.ENOENT, dst)  # link(2) and symlink(2) make no 'NEW/'
            if symbolic:
                fs.symlink(relative_to(ctx, src, dst) if relative else src, dst)
            elif logical:
                fs.link(fs.realpath(src), dst)
            else:
                fs.link(src, dst)
        except FsError as e:
            if not symbolic and e.errno == errno.ENOENT and fs.try_lstat(src) is None:
                fail(ctx, "failed to access", src, e)
            else:
                ctx.error(f"{_link_failure(symbolic, src, dst, e.errno or 0)}: {errmsg(e)}")
            status = 1
            continue
        if verbose:
            arrow = "->" if symbolic else "=>"
            if note:
                ctx.out(f"{quoteaf(dst)}{note} {arrow} {quoteaf(src)}\n")
            else:
                ctx.out(f"{quoteaf(dst)} {arrow} {quoteaf(src)}\n")
    return status


def _link_failure(symbolic: bool, src: str, dst: str, code: int) -> str:
    """GNU ln's wording for a link it could not make: a hard link names its source too, unless
    the error is about the destination alone (exists, no space, read-only)."""
    if symbolic:
        if code == errno.ENAMETOOLONG or not src:
            return f"failed to create symbolic link {quoteaf(dst)} -> {quoteaf(src)}"
        return f"failed to create symbolic link {quoteaf(dst)}"
    if code == errno.EMLINK:
        return f"failed to create hard link to {quoteaf(src)}"
    if code in (errno.EDQUOT, errno.EEXIST, errno.ENOSPC, errno.EROFS):
        return f"failed to create hard link {quoteaf(dst)}"
    return f"failed to create hard link {quoteaf(dst)} => {quoteaf(src)}"


# ------------------------------------------------------------ link

LINK_SPEC = CommandSpec(
    name="link",
    usage="FILE1 FILE2\n  or:  link OPTION",
    summary="Call the link function to create a link named FILE2 to an existing FILE1.",
)


@declare("link", spec=LINK_SPEC, effects=Effects.LN)
def cmd_link(ctx: Ctx) -> int:
    """link(2) itself: no target directory, no replacing, a symlink linked as itself."""
    _, operands = ctx.parse(LINK_SPEC)
    ctx.operand_count(operands, 2)
    src, dst = operands
    try:
        st = ctx.fs.lstat(src)
        if st.is_dir:
            raise FsError(errno.EPERM, src)  # Linux refuses a hard link to a directory
        ctx.fs.link(src, dst)
    except FsError as e:
        if e.errno == errno.ENOENT and ctx.fs.try_lstat(dst) is not None:
            e = FsError(errno.EEXIST, dst)
        ctx.error(f"cannot create link {quoteaf(dst)} to {quoteaf(src)}: {errmsg(e)}")
        return 1
    return 0


# ------------------------------------------------------------ mktemp

MKTEMP_SPEC = CommandSpec(
    name="mktemp",
    usage="[OPTION]... [TEMPLATE]",
    summary="Create a temporary file or directory, safely, and print its name.",
    opts=(
        Opt("d", "directory", help="create a directory, not a file"),
        Opt("u", "dry-run", help="do not create anything; merely print a name (unsafe)"),
        Opt("q", "quiet", help="suppress diagnostics about file/dir-creation failure"),
        Opt(None, "suffix", arg="required", metavar="SUFF", help="append SUFF to TEMPLATE"),
        Opt("p", None, dest="tmpdir", arg="required", metavar="DIR", help="use DIR as a prefix"),
        Opt(None, "tmpdir", arg="optional", metavar="DIR", help="interpret TEMPLATE relative to DIR"),
        Opt("t", None, dest="t", help="interpret TEMPLATE as a single file name component (deprecated)"),
    ),
)

_TEMP_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


@declare("mktemp", spec=MKTEMP_SPEC, effects=Effects.MKTEMP)
def cmd_mktemp(ctx: Ctx) -> int:
    opts, operands = ctx.parse(MKTEMP_SPEC)
    fs = ctx.fs
    if len(operands) > 1:
        raise usage_error(ctx, "too many templates")
    use_dir = opts.has("tmpdir") or opts.has("t") or not operands
    template = operands[0] if operands else "tmp.XXXXXXXXXX"
    suffix = opts.get("suffix")
    if suffix is None:
        # without --suffix, whatever follows the last X is the suffix
        last_x = template.rfind("X")
        suffix = template[last_x + 1 :] if last_x >= 0 else ""
        template = template[: last_x + 1] if last_x >= 0 else template
    elif not template.endswith("X"):
        ctx.error(f"with --suffix, template {quote(template)} must end in X")
        return 1
    if "/" in suffix:
        ctx.error(f"invalid suffix {quote(suffix)}, contains directory separator")
        return 1
    shown = template + suffix  # coreutils names the template as given, before the directory
    if use_dir:
        env_dir = ctx.env.get("TMPDIR", "")
        arg_dir = opts.get("tmpdir") or ""
        if opts.has("t"):
            directory = env_dir or arg_dir or "/tmp"
            if "/" in template:
                ctx.error(f"invalid template, {quote(template)}, contains directory separator")
                return 1
        else:
            directory = arg_dir or env_dir or "/tmp"
            if template.startswith("/"):
                ctx.error(f"invalid template, {quote(template)}; with --tmpdir, it may not be absolute")
                return 1
        template = join(directory, template)
    xs = len(template) - len(template.rstrip("X"))
    if xs < 3:
        ctx.error(f"too few X's in template {quote(shown)}")
        return 1
    stem = template[: len(template) - xs]
    quiet = opts.has("quiet")
    kind = "directory" if opts.has("directory") else "file"
    for _attempt in range(100):
        ctx.checkpoint()
        name = stem + "".join(ctx.rng.choice(_TEMP_CHARS) for _ in range(xs)) + suffix
        if opts.has("dry_run"):
            if fs.try_lstat(name) is not None:
                continue
            ctx.out(name + "\n")
            return 0
        try:
            if kind == "directory":
                fs.mkdir(name, 0o700)
            else:
                fs.open(name, "x").close()
                fs.chmod(name, 0o600)
        except FsError as e:
            if e.errno == errno.EEXIST:
                continue
            if not quiet:
                ctx.error(f"failed to create {kind} via template {quote(template + suffix)}: {errmsg(e)}")
            return 1
        ctx.out(name + "\n")
        return 0
    if not quiet:
        ctx.error(
            f"failed to create {kind} via template {quote(template + suffix)}: {strerror(errno.EEXIST)}"
        )
    return 1


# ------------------------------------------------------------ truncate

TRUNCATE_SPEC = CommandSpec(
    name="truncate",
    usage="OPTION... FILE...",
    summary="Shrink or extend the size of each FILE to the specified size.",
    opts=(
        Opt("c", "no-create", help="do not create any files"),
        Opt("o", "io-blocks", help="treat SIZE as number of IO blocks instead of bytes"),
        Opt("r", "reference", arg="required", metavar="RFILE", help="base size on RFILE"),
        Opt("s", "size", arg="required", metavar="SIZE", help="set or adjust the file size by SIZE bytes"),
    ),
)

_SIZE_RE = re.compile(r"([-+<>/%]?)\s*(\d+)(?:([KMGTPEZYRQ])(iB|B)?|(k)(iB|B)?)?")


def _truncate_size(text: str) -> tuple[str, int] | None:
    m = _SIZE_RE.fullmatch(text.strip())
    if m is None:
        return None
    value = int(m.group(2))
    letter = m.group(3) or (m.group(5) or "").upper()
    unit = m.group(4) or m.group(6)
    if letter:
        base = 1000 if unit == "B" else 1024
        value *= base ** ("KMGTPEZYRQ".index(letter) + 1)
    return m.group(1), value


@declare("truncate", spec=TRUNCATE_SPEC, effects=Effects.TOUCH)
def cmd_truncate(ctx: Ctx) -> int:
    opts, operands = ctx.parse(TRUNCATE_SPEC)
    fs = ctx.fs
    spec: tuple[str, int] | None = None
    if opts.has("size"):
        spec = _truncate_size(opts["size"])
        if spec is None:
            # GNU names the number as xdectoimax read it: after the blanks and a <>/% prefix
            # (a + or - stays, as the number's sign)
            number = opts["size"].lstrip(" \t\n\v\f\r")
            if number[:1] in ("<", ">", "/", "%"):
                number = number[1:].lstrip(" \t\n\v\f\r")
            ctx.error(f"Invalid number: {quote(number)}")
            return 1
        if spec[0] in ("/", "%") and spec[1] == 0:  # (checked with the option, before any file)
            ctx.error("division by zero")
            return 1
        if opts.has("io_blocks"):
            spec = (spec[0], spec[1] * 4096)
    if spec is None and not opts.has("reference"):
        raise usage_error(ctx, "you must specify either \u2018--size\u2019 or \u2018--reference\u2019")
    if spec is not None and opts.has("reference") and spec[0] not in ("+", "-"):
        raise usage_error(ctx, "you must specify a relative \u2018--size\u2019 with \u2018--reference\u2019")
    if opts.has("io_blocks") and spec is None:
        raise usage_error(ctx, "\u2018--io-blocks\u2019 was specified but \u2018--size\u2019 was not")
    if not operands:
        raise usage_error(ctx, "missing file operand")
    ref_size: int | None = None
    if opts.has("reference"):
        try:
            ref_size = fs.stat(opts["reference"]).size
        except FsError as e:
            fail(ctx, "cannot stat", opts["reference"], e)
            return 1
    status = 0
    for path in operands:
        ctx.checkpoint()
        if path.endswith("/") and path.strip("/"):
            # open(2) of 'NAME/' for writing: EISDIR when it may create, else the walk's ENOTDIR
            try:
                found = lstat_dest(ctx, path)
                why = "" if found is None and opts.has("no_create") else strerror(errno.EISDIR)
            except FsError as e:  # a refusal stays one; a file's ENOTDIR is EISDIR unless -c
                why = (
                    strerror(errno.EISDIR)
                    if e.errno == errno.ENOTDIR and not opts.has("no_create")
                    else errmsg(e)
                )
            if why:
                ctx.error(f"cannot open {quoteaf(path)} for writing: {why}")
                status = 1
            continue
        st = fs.try_stat(path)
        if st is None:
            if opts.has("no_create"):
                continue
            try:
                fs.open(path, "a").close()
            except FsError as e:
                ctx.error(f"cannot open {quoteaf(path)} for writing: {errmsg(e)}")
                status = 1
                continue
            st = fs.stat(path)
        elif st.is_dir or not _writable(ctx, st):
            code = errno.EISDIR if st.is_dir else errno.EACCES
            ctx.error(f"cannot open {quoteaf(path)} for writing: {strerror(code)}")
            status = 1
            continue
        current = ref_size if ref_size is not None else st.size
        new = current
        if spec is not None:
            op, n = spec
            new = {
                "": n,
                "+": current + n,
                "-": current - n,
                "<": min(current, n),
                ">": max(current, n),
                "/": current // n * n if n else current,
                "%": -(-current // n) * n if n else current,
            }[op]
        try:
            fs.truncate(path, max(0, new))
        except FsError as e:
            ctx.error(f"failed to truncate {quoteaf(path)} at {max(0, new)} bytes: {errmsg(e)}")
            status = 1
    return status


def _writable(ctx: Ctx, st: Stat) -> bool:
    vfs = ctx.fs.vfs
    if vfs.uid == 0:
        return True
    bit = 0o200 if st.uid == vfs.uid else 0o020 if st.gid == vfs.gid else 0o002
    return bool(st.mode & bit)


# ------------------------------------------------------------ sync

SYNC_SPEC = CommandSpec(
    name="sync",
    usage="[OPTION] [FILE]...",
    summary="Synchronize cached writes to persistent storage",
    opts=(
        Opt("d", "data", help="sync only file data, no unneeded metadata"),
        Opt("f", "file-system", help="sync the file systems that contain the files"),
    ),
)


@declare("sync", spec=SYNC_SPEC, effects=Effects.NONE)
def cmd_sync(ctx: Ctx) -> int:
    """Nothing is cached in a virtual filesystem; only check the operands."""
    opts, operands = ctx.parse(SYNC_SPEC)
    if opts.has("data") and opts.has("file_system"):
        ctx.error("cannot specify both --data and --file-system")
        return 1
    if opts.has("data") and not operands:
        ctx.error("--data needs at least one argument")
        return 1
    status = 0
    for path in operands:
        if ctx.fs.try_stat(path) is None:
            try:
                ctx.fs.stat(path)
            except FsError as e:
                ctx.error(f"error opening {quoteaf(path)}: {errmsg(e)}")
            status = 1
    return status
