"""Helpers shared by the file-changing commands: prompts, backups, usage errors."""

from __future__ import annotations

import errno

from ...vfs.base import Stat
from ...vfs.errors import FsError, strerror
from ..context import CommandExit, Ctx
from ..fsutil import quote, quoteaf
from ..options import Opt


def usage_error(ctx: Ctx, message: str) -> CommandExit:
    """Print a GNU usage error (`NAME: message` + the --help hint); return the exit to raise."""
    return ctx.usage_error(message)


def fail(ctx: Ctx, what: str, path: str, e: FsError | int) -> None:
    """`NAME: what 'path': strerror`."""
    text = e.message if isinstance(e, FsError) else strerror(e)
    ctx.error(f"{what} {quoteaf(path)}: {text}")


def prompt(ctx: Ctx, question: str) -> bool:
    """Ask on stderr and read the answer from stdin, as GNU does without a
    terminal; only an answer starting with y/Y counts as yes."""
    ctx.stderr.write(f"{ctx.prog}: {question} ".encode("utf-8", "surrogateescape"))
    try:
        line = ctx.stdin.readline()
    except OSError:
        return False
    return line[:1] in (b"y", b"Y")


# ------------------------------------------------------------ backups

BACKUP_OPTS = (
    Opt("b", None, dest="backup_simple", help="like --backup but does not accept an argument"),
    Opt(
        None,
        "backup",
        arg="optional",
        metavar="CONTROL",
        help="make a backup of each existing destination file",
    ),
    Opt("S", "suffix", arg="required", metavar="SUFFIX", help="override the usual backup suffix"),
)

_CONTROLS = {
    "none": "none",
    "off": "none",
    "numbered": "numbered",
    "t": "numbered",
    "existing": "existing",
    "nil": "existing",
    "simple": "simple",
    "never": "simple",
}


def backup_control(ctx: Ctx, values: dict[str, object]) -> str | None:
    """The backup method asked for (None when no backups), as GNU's
    get_version/xget_version do (prefixes allowed, VERSION_CONTROL default)."""
    # (-S SUFFIX alone asks for backups too: coreutils sets make_backups with the suffix)
    if "backup" not in values and "backup_simple" not in values and "suffix" not in values:
        return None
    arg = values.get("backup")
    if not isinstance(arg, str):
        arg = ctx.env.get("VERSION_CONTROL", "")
        if not arg:
            return "existing"
        origin = "$VERSION_CONTROL"
    else:
        origin = "backup type"
    matches = {v for k, v in _CONTROLS.items() if k.startswith(arg)} if arg else set()
    if arg in _CONTROLS:
        matches = {_CONTROLS[arg]}
    if len(matches) != 1:
        kind = "ambiguous" if matches else "invalid"
        ctx.stderr.write(
            f"{ctx.prog}: {kind} argument {quote(arg)} for {quote(origin)}\n"
            "Valid arguments are:\n  - \u2018none\u2019, \u2018off\u2019\n  - \u2018simple\u2019, \u2018never\u2019\n"
            "  - \u2018existing\u2019, \u2018nil\u2019\n  - \u2018numbered\u2019, \u2018t\u2019\n"
            f"Usage: {ctx.help_prog} [OPTION]... [-T] SOURCE DEST\nTry '{ctx.help_prog} --help' for more information.\n".encode()
        )
        raise CommandExit(1)
    control = matches.pop()
    return None if control == "none" else control


def backup_suffix(ctx: Ctx, values: dict[str, object]) -> str:
    suffix = values.get("suffix")
    if isinstance(suffix, str):
        return suffix
    env = ctx.env.get("SIMPLE_BACKUP_SUFFIX", "")
    return env if env and "/" not in env else "~"


def backup_name(ctx: Ctx, path: str, control: str, suffix: str) -> str:
    """The name a backup of `path` gets: `path~` or `path.~N~`."""
    if control == "simple":
        return path + suffix
    directory, _, base = path.rpartition("/")
    try:
        names = ctx.fs.listdir(directory or ("/" if path.startswith("/") else "."))
    except FsError:
        names = []
    prefix = base + ".~"
    highest = 0
    for n in names:
        if n.startswith(prefix) and n.endswith("~") and n[len(prefix) : -1].isdigit():
            highest = max(highest, int(n[len(prefix) : -1]))
    if control == "existing" and highest == 0:
        return path + suffix
    return f"{path}.~{highest + 1}~"


def make_backup(ctx: Ctx, path: str, control: str, suffix: str) -> str:
    """Rename `path` to its backup name; returns that name."""
    name = backup_name(ctx, path, control, suffix)
    ctx.fs.rename(path, name)
    return name


def is_dir_nofollow(ctx: Ctx, path: str) -> bool:
    st = ctx.fs.try_lstat(path)
    return st is not None and st.is_dir


def canonical(ctx: Ctx, path: str) -> str | None:
    try:
        return ctx.fs.resolve(path, follow=True)
    except FsError:
        return None


def exists_errno(ctx: Ctx, path: str) -> int:
    """0 when `path` can be lstat'ed, else the errno."""
    try:
        ctx.fs.lstat(path)
        return 0
    except FsError as e:
        return e.errno or errno.ENOENT


def lstat_dest(ctx: Ctx, path: str) -> Stat | None:
    """lstat of a destination operand as the kernel gives it: a trailing slash follows a final
    symbolic link and needs a directory (ENOTDIR otherwise); None when nothing is there (ENOENT).
    Any other failure (a refused or unsearchable directory) is raised."""
    slash = path.endswith("/") and path.strip("/") != ""
    try:
        st = ctx.fs.stat(path) if slash else ctx.fs.lstat(path)
    except FsError as e:
        if e.errno == errno.ENOENT:
            return None
        raise
    if slash and not st.is_dir:
        raise FsError(errno.ENOTDIR, path)
    return st


def stat_dest_or_fail(ctx: Ctx, path: str) -> tuple[bool, Stat | None]:
    """lstat_dest() as GNU's copy_internal (cp, mv, install) does it before touching the
    destination: a failure other than ENOENT is `cannot stat 'DST': ...` and (False, None)."""
    try:
        return True, lstat_dest(ctx, path)
    except FsError as e:
        fail(ctx, "cannot stat", path, e)
        return False, None


def slash_on_missing(path: str, st: Stat | None) -> bool:
    """Whether `path` names, with a trailing slash, nothing yet: only a directory can be made
    there (a file, a rename of one, a link fail)."""
    return st is None and path.endswith("/") and path.strip("/") != ""


def stat_source(ctx: Ctx, path: str, follow: bool) -> Stat:
    """stat (or lstat) of an operand the command reads: 'NAME/' follows a final link and must
    be a directory, as the kernel resolves it."""
    if path.endswith("/") and path.strip("/"):
        st = ctx.fs.stat(path)
        if not st.is_dir:
            raise FsError(errno.ENOTDIR, path)
        return st
    return ctx.fs.stat(path) if follow else ctx.fs.lstat(path)
