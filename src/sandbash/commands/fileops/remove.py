"""rm, rmdir, unlink and shred."""

from __future__ import annotations

import errno
import itertools

from ...vfs.base import Stat
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..fsutil import basename, errmsg, join, parse_size, quote, quoteaf, shell_quote, type_description
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from .common import fail, lstat_dest, prompt, usage_error

RM_SPEC = CommandSpec(
    name="rm",
    usage="[OPTION]... [FILE]...",
    summary="Remove (unlink) the FILE(s).",
    opts=(
        Opt("f", "force", help="ignore nonexistent files and arguments, never prompt"),
        Opt("i", None, dest="i", help="prompt before every removal"),
        Opt(
            "I",
            None,
            dest="I",
            help="prompt once before removing more than three files, or when removing recursively",
        ),
        Opt(
            None,
            "interactive",
            arg="optional",
            metavar="WHEN",
            help="prompt according to WHEN: never, once (-I), or always (-i)",
        ),
        Opt(None, "one-file-system", help="skip directories on other file systems"),
        Opt(None, "no-preserve-root", help="do not treat '/' specially"),
        Opt(None, "preserve-root", arg="optional", metavar="all", help="do not remove '/' (default)"),
        Opt("r", "recursive", help="remove directories and their contents recursively"),
        Opt("R", None, dest="recursive"),
        Opt("d", "dir", help="remove empty directories"),
        Opt("v", "verbose", help="explain what is being done"),
    ),
)

_WHEN = {
    "never": "never",
    "no": "never",
    "none": "never",
    "once": "once",
    "always": "always",
    "yes": "always",
}


class Remover:
    def __init__(
        self,
        ctx: Ctx,
        force: bool,
        interactive: str,
        recursive: bool,
        empty_dirs: bool,
        verbose: bool,
        preserve_root: bool = True,
    ) -> None:
        self.ctx = ctx
        self.preserve_root = preserve_root
        self.force = force
        self.interactive = interactive
        self.recursive = recursive
        self.empty_dirs = empty_dirs
        self.verbose = verbose

    def _ask(self, question: str) -> bool:
        return self.interactive != "always" or prompt(self.ctx, question)

    def _protected(self, path: str, st: Stat) -> str:
        """`write-protected ` when GNU would ask about a non-writable file
        (only with a terminal on stdin)."""
        if self.force or st.is_link or not self.ctx.stdin.is_tty:
            return ""
        vfs = self.ctx.fs.vfs
        bit = 0o200 if st.uid == vfs.uid else 0o020 if st.gid == vfs.gid else 0o002
        return "" if st.mode & bit else "write-protected "

    def remove(self, path: str, operand: bool = False) -> bool:
        ctx = self.ctx
        ctx.checkpoint()
        try:
            st = self._lstat(path)
        except FsError as e:
            if self.force and e.errno in (errno.ENOENT, errno.ENOTDIR):  # GNU's ignorable_missing
                return True
            fail(ctx, "cannot remove", path, e)
            return False
        if st.is_dir:
            if operand and not self._operand_allowed(path):
                return False
            return self._remove_dir(path, st)
        protected = self._protected(path, st)
        if (self.interactive == "always" or protected) and not prompt(
            ctx, f"remove {protected}{type_description(st)} {quoteaf(path)}?"
        ):
            return True
        try:
            ctx.fs.unlink(path)
        except FsError as e:
            fail(ctx, "cannot remove", path, e)
            return False
        if self.verbose:
            ctx.out(f"removed {quoteaf(path)}\n")
        return True

    def _operand_allowed(self, path: str) -> bool:
        """GNU's checks of a directory named on the command line, in rm_fts's order: first
        whether it may go at all (not -r: without -d 'Is a directory', with -d a directory with
        entries 'Directory not empty'), then a last component `.`/`..` is refused, then the
        root failsafe. So `rm -d .` in a directory with files says it is not empty, `rm -d .` in
        an empty one is refused, and a missing `nodir/..` was already reported by lstat."""
        ctx = self.ctx
        if not self.recursive:
            if not self.empty_dirs:
                fail(ctx, "cannot remove", path, errno.EISDIR)
                return False
            try:
                empty = not ctx.fs.listdir(path)
            except FsError:
                empty = False  # GNU's get_dir_status: anything but DS_EMPTY
            if not empty:
                fail(ctx, "cannot remove", path, errno.ENOTEMPTY)
                return False
        if basename(path) in (".", ".."):
            ctx.error(f"refusing to remove '.' or '..' directory: skipping {quoteaf(path)}")
            return False
        if self.recursive and self.preserve_root and _is_root(ctx, path):
            if path == "/":
                ctx.error("it is dangerous to operate recursively on '/'")
            else:
                ctx.error(f"it is dangerous to operate recursively on {quoteaf(path)} (same as '/')")
            ctx.error("use --no-preserve-root to override this failsafe")
            return False
        return True

    def _lstat(self, path: str) -> Stat:
        """What rm finds at an operand: 'NAME/' follows a final link and must be a directory
        (`rm FILE/` removes nothing: Not a directory, also for a dangling link)."""
        st = lstat_dest(self.ctx, path)
        if st is not None:
            return st
        if (
            path.endswith("/")
            and (link := self.ctx.fs.try_lstat(path.rstrip("/"))) is not None
            and link.is_link
        ):
            raise FsError(errno.ENOTDIR, path)
        raise FsError(errno.ENOENT, path)

    def _remove_dir(self, path: str, st: Stat) -> bool:
        ctx = self.ctx
        if not self.recursive:
            if not self.empty_dirs:
                fail(ctx, "cannot remove", path, errno.EISDIR)
                return False
            return self._rmdir(path)
        try:
            names = ctx.fs.listdir(path)
        except FsError as e:
            names = []
            if e.errno != errno.EACCES:
                fail(ctx, "cannot remove", path, e)
                return False
            return self._rmdir(path)
        if names:
            if not self._ask(f"descend into directory {quoteaf(path)}?"):
                return True
            ok = True
            for name in sorted(names, key=lambda n: n.encode("utf-8", "surrogateescape")):
                if not self.remove(join(path, name)):
                    ok = False
            if not ok:
                return False
        if not self._ask(f"remove directory {quoteaf(path)}?"):
            return True
        return self._rmdir(path)

    def _rmdir(self, path: str) -> bool:
        try:
            self.ctx.fs.rmdir(path)
        except FsError as e:
            fail(self.ctx, "cannot remove", path, e)
            return False
        if self.verbose:
            self.ctx.out(f"removed directory {quoteaf(path)}\n")
        return True


@declare("rm", spec=RM_SPEC, effects=Effects.RM)
def cmd_rm(ctx: Ctx) -> int:
    opts, operands = ctx.parse(RM_SPEC)
    interactive = "never"
    force = False
    for key, value in opts.order:
        if key == "force":
            force, interactive = True, "never"
        elif key == "i":
            force, interactive = False, "always"
        elif key == "I":
            force, interactive = False, "once"
        elif key == "interactive":
            word = value or "always"
            matches = {v for k, v in _WHEN.items() if k.startswith(word)}
            if len(matches) != 1:
                kind = "ambiguous" if matches else "invalid"
                ctx.stderr.write(
                    f"{ctx.prog}: {kind} argument {quote(word)} for \u2018--interactive\u2019\nValid arguments are:\n"
                    "  - \u2018never\u2019, \u2018no\u2019, \u2018none\u2019\n  - \u2018once\u2019\n"
                    f"  - \u2018always\u2019, \u2018yes\u2019\nTry '{ctx.help_prog} --help' for more information.\n".encode()
                )
                return 1
            interactive = matches.pop()
            force = force and interactive == "never"
    recursive = opts.has("recursive")
    if not operands:
        if force:
            return 0
        raise usage_error(ctx, "missing operand")
    if interactive == "once" and (recursive or len(operands) > 3):
        n = len(operands)
        how = " recursively" if recursive else ""
        if not prompt(ctx, f"remove {n} argument{'s' if n != 1 else ''}{how}?"):
            return 0
    preserve_root = not opts.has("no_preserve_root") or opts.has("preserve_root")
    remover = Remover(ctx, force, interactive, recursive, opts.has("dir"), opts.has("verbose"), preserve_root)
    status = 0
    for path in operands:
        if not remover.remove(_fts_name(path), operand=True):
            status = 1
    return status


def _fts_name(path: str) -> str:
    """The name fts_open gives an operand (and rm reports): two or more trailing slashes become
    one, except that `//` stays and `///` is `/`."""
    end = len(path)
    if end > 2 and path.endswith("/"):
        while end > 1 and path[end - 2] == "/":
            end -= 1
    return path[:end]


def _is_root(ctx: Ctx, path: str) -> bool:
    try:
        return ctx.fs.resolve(path, follow=True) == "/"
    except FsError:
        return False


# ------------------------------------------------------------ rmdir

RMDIR_SPEC = CommandSpec(
    name="rmdir",
    usage="[OPTION]... DIRECTORY...",
    summary="Remove the DIRECTORY(ies), if they are empty.",
    opts=(
        Opt(None, "ignore-fail-on-non-empty", help="ignore each failure to remove a non-empty directory"),
        Opt("p", "parents", help="remove DIRECTORY and its ancestors"),
        Opt("v", "verbose", help="output a diagnostic for every directory processed"),
    ),
)


@declare("rmdir", spec=RMDIR_SPEC, effects=Effects.RMDIR)
def cmd_rmdir(ctx: Ctx) -> int:
    opts, operands = ctx.parse(RMDIR_SPEC)
    if not operands:
        raise usage_error(ctx, "missing operand")
    ignore = opts.has("ignore_fail_on_non_empty")
    verbose = opts.has("verbose")
    status = 0

    def one(path: str, parent: bool) -> bool:
        ctx.checkpoint()
        if verbose:
            ctx.out(f"{ctx.prog}: removing directory, {quoteaf(path)}\n")
        try:
            ctx.fs.rmdir(path)
            return True
        except FsError as e:
            code = e.errno or 0
            if ignore and code in (errno.ENOTEMPTY, errno.EEXIST):
                return False
            word = "failed to remove directory" if parent else "failed to remove"
            text = strerror(code)
            if code == errno.ENOTDIR and path.endswith("/"):
                link = ctx.fs.try_lstat(path.rstrip("/"))
                target = ctx.fs.try_stat(path)
                if link is not None and link.is_link and target is not None and target.is_dir:
                    text = "Symbolic link not followed"  # GNU's wording for rmdir LINK/
            ctx.error(f"{word} {quoteaf(path)}: {text}")
            nonlocal status
            status = 1
            return False

    for path in operands:
        if not one(path, False) or not opts.has("parents"):
            continue
        cur = path.rstrip("/")
        while "/" in cur:
            cur = cur.rsplit("/", 1)[0].rstrip("/")
            if not cur or not one(cur, True):
                break
    return status


# ------------------------------------------------------------ unlink

UNLINK_SPEC = CommandSpec(
    name="unlink",
    usage="FILE\n  or:  unlink OPTION",
    summary="Call the unlink function to remove the specified FILE.",
)


@declare("unlink", spec=UNLINK_SPEC, effects=Effects.RM)
def cmd_unlink(ctx: Ctx) -> int:
    """unlink(2) itself: one name, never a directory, no prompt."""
    _, operands = ctx.parse(UNLINK_SPEC)
    ctx.operand_count(operands, 1)
    try:
        ctx.fs.unlink(operands[0])
    except FsError as e:
        ctx.error(f"cannot unlink {quoteaf(operands[0])}: {errmsg(e)}")
        return 1
    return 0


# ------------------------------------------------------------ shred

SHRED_SPEC = CommandSpec(
    name="shred",
    usage="[OPTION]... FILE...",
    summary="Overwrite the specified FILE(s) repeatedly, in order to make it harder to recover the data.",
    opts=(
        Opt("f", "force", help="change permissions to allow writing if necessary"),
        Opt(
            "n",
            "iterations",
            arg="required",
            metavar="N",
            help="overwrite N times instead of the default (3)",
        ),
        Opt(None, "random-source", arg="required", metavar="FILE", help="get random bytes from FILE"),
        Opt(
            "s",
            "size",
            arg="required",
            metavar="N",
            help="shred this many bytes (suffixes like K, M, G accepted)",
        ),
        Opt("u", None, dest="u", help="deallocate and remove file after overwriting"),
        Opt(None, "remove", arg="optional", metavar="HOW", help="like -u but give control on HOW to delete"),
        Opt("v", "verbose", help="show progress"),
        Opt("x", "exact", help="do not round file sizes up to the next full block"),
        Opt("z", "zero", help="add a final overwrite with zeros to hide shredding"),
    ),
)


@declare("shred", spec=SHRED_SPEC, effects=Effects.SHRED)
def cmd_shred(ctx: Ctx) -> int:
    opts, operands = ctx.parse(SHRED_SPEC)
    if not operands:
        raise usage_error(ctx, "missing file operand")
    passes = 3
    if opts.has("iterations"):
        text = opts["iterations"]
        if not text.isdigit():
            ctx.error(f"invalid number of passes: {quote(text)}")
            return 1
        passes = int(text)
    size: int | None = None
    if opts.has("size"):
        size = parse_size(opts["size"])
        if size is None:
            ctx.error(f"invalid file size: {quote(opts['size'])}")
            return 1
    status = 0
    for path in operands:
        if not _shred(
            ctx,
            path,
            passes,
            size,
            opts.has("zero"),
            opts.has("exact"),
            opts.has("verbose"),
            opts.has("force"),
        ):
            status = 1
            continue
        if opts.has("u") or opts.has("remove"):
            if not _wipe_name(ctx, path, opts.has("verbose")):
                status = 1
    return status


def _shred(
    ctx: Ctx, path: str, passes: int, size: int | None, zero: bool, exact: bool, verbose: bool, force: bool
) -> bool:
    fs = ctx.fs
    name = shell_quote(path)
    try:
        st = fs.stat(path)
    except FsError as e:
        ctx.error(f"{name}: failed to open for writing: {errmsg(e)}")
        return False
    if st.is_dir:
        ctx.error(f"{name}: failed to open for writing: {strerror(errno.EISDIR)}")
        return False
    if st is not None and force and not st.mode & 0o200:
        try:
            fs.chmod(path, st.perm | 0o200)
        except FsError:
            pass
    try:
        out = fs.open(path, "rw")
    except FsError as e:
        ctx.error(f"{name}: failed to open for writing: {errmsg(e)}")
        return False
    try:
        length = size if size is not None else (st.size if st is not None else 0)
        if size is None and not exact and st is not None and st.is_file:
            length = (length + 4095) // 4096 * 4096
        total = passes + (1 if zero else 0)
        for k in range(total):
            final_zero = zero and k == total - 1
            if verbose:
                label = "000000" if final_zero else "random"
                ctx.stderr.write(
                    f"shred: {name}: pass {k + 1}/{total} ({label})...\n".encode("utf-8", "surrogateescape")
                )
            out.seek_start()
            done = 0
            while done < length:
                n = min(65536, length - done)
                ctx.checkpoint(n // 4096 + 1)
                out.write(bytes(n) if final_zero else ctx.rng.randbytes(n))
                done += n
    except FsError as e:
        ctx.error(f"{name}: error writing: {errmsg(e)}")
        return False
    finally:
        out.close()
    return True


_NAME_CHARS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_."


def _wipe_name(ctx: Ctx, path: str, verbose: bool) -> bool:
    """Rename to ever shorter names of zeros before unlinking, as shred -u does."""
    fs = ctx.fs

    def say(msg: str) -> None:
        if verbose:
            ctx.stderr.write(f"shred: {msg}\n".encode("utf-8", "surrogateescape"))

    say(f"{shell_quote(path)}: removing")
    directory, slash, base = path.rpartition("/")
    prefix = directory + slash
    cur = path
    length = len(base)
    while length >= 1:
        # GNU counts through names like an odometer: 00, 01, ... (bounded here)
        for tries, chars in enumerate(itertools.product(_NAME_CHARS, repeat=length)):
            candidate = prefix + "".join(chars)
            if fs.try_lstat(candidate) is None:
                break
            if tries > 256:
                length -= 1
                break
        else:
            length -= 1
            continue
        if fs.try_lstat(candidate) is not None:
            continue
        try:
            fs.rename(cur, candidate)
        except FsError:
            break
        say(f"{shell_quote(cur)}: renamed to {shell_quote(candidate)}")
        cur = candidate
        length -= 1
    try:
        fs.unlink(cur)
    except FsError as e:
        ctx.error(f"{shell_quote(path)}: failed to remove: {errmsg(e)}")
        return False
    say(f"{shell_quote(path)}: removed")
    return True
