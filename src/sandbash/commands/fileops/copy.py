"""cp, and the copy engine mv and install reuse."""

from __future__ import annotations

import errno

from ...stdio.streams import StreamError
from ...vfs.base import Stat
from ...vfs.errors import FsError, strerror
from ..context import CommandExit, Ctx
from ..fsutil import basename, errmsg, join, quote, quoteaf
from ..options import CommandSpec, Opt, Parsed
from ..record import Effects, declare
from .common import (
    BACKUP_OPTS,
    backup_control,
    backup_suffix,
    fail,
    make_backup,
    prompt,
    slash_on_missing,
    stat_dest_or_fail,
    stat_source,
    usage_error,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first cp, mv or mkdir)
    from ...leanclass import dataclass, field

CHUNK = 65536


@dataclass
class CopyOptions:
    recursive: bool = False
    deref: str = "always"  # never (-P), always (-L), cmdline (-H)
    mode: bool = False
    owner: bool = False
    times: bool = False
    links: bool = False
    no_clobber: bool = False
    interactive: bool = False
    force: bool = False
    update: bool = False
    verbose: bool = False
    hard_link: bool = False
    symbolic_link: bool = False
    remove_destination: bool = False
    attributes_only: bool = False
    backup: str | None = None
    suffix: str = "~"
    # mv across filesystems: verbose says "copied"/"created directory", and
    # files already copied under another name become hard links again
    move: bool = False


@dataclass
class Copier:
    """Copies one tree at a time; remembers inodes for --preserve=links."""

    ctx: Ctx
    opts: CopyOptions
    inodes: dict[tuple[int, int], str] = field(default_factory=dict)  # (dev, ino) -> first copy
    # (source, destination, (dev, inode)) of the directory a top-level copy created
    top: tuple[str, str, tuple[int, int]] | None = None
    into_self: bool = False

    def _stat(self, path: str, follow: bool) -> Stat:
        return stat_source(self.ctx, path, follow)

    def copy(self, src: str, dst: str, cmdline: bool = True, note: str = "") -> bool:
        """Copy `src` to `dst` (which names the new file itself). False on error.
        `note` is a backup notice the caller made (mv), for the verbose line."""
        ctx, o = self.ctx, self.opts
        ctx.checkpoint()
        if cmdline and not o.recursive and not o.move and ctx.names_fd(src):
            return self._copy_descriptor(src, dst)
        follow = o.deref == "always" or (o.deref == "cmdline" and cmdline)
        try:
            sst = self._stat(src, follow)
        except FsError as e:
            fail(ctx, "cannot stat", src, e)
            return False
        if sst.is_dir and not o.recursive:
            ctx.error(f"-r not specified; omitting directory {quoteaf(src)}")
            return False
        found, dst_l = stat_dest_or_fail(ctx, dst)
        if not found:
            return False
        if slash_on_missing(dst, dst_l) and not sst.is_dir:
            fail(ctx, "cannot create regular file", dst, errno.ENOTDIR)
            return False
        dst_st = ctx.fs.try_stat(dst) if dst_l is not None else None
        backup_note = note
        if dst_l is not None:
            target = dst_st or dst_l
            if target.ino == sst.ino and not (
                o.symbolic_link or (sst.is_link and dst_l.is_link and not follow)
            ):
                if o.hard_link or o.no_clobber:
                    return True  # (the link is there already; -n leaves any existing name)
                if not (o.force and o.backup):
                    ctx.error(f"{quoteaf(src)} and {quoteaf(dst)} are the same file")
                    return False
            if sst.is_dir:
                if not target.is_dir:
                    ctx.error(f"cannot overwrite non-directory {quoteaf(dst)} with directory {quoteaf(src)}")
                    return False
            else:
                if target.is_dir and not (dst_l.is_link and not follow):
                    ctx.error(f"cannot overwrite directory {quoteaf(dst)} with non-directory")
                    return False
                if o.no_clobber:
                    return True
                if o.update and target.mtime_ns >= sst.mtime_ns:
                    return True
                if o.interactive and not prompt(ctx, f"overwrite {quoteaf(dst)}?"):
                    return True
                try:
                    if o.backup:
                        backup_note = f" (backup: {quoteaf(make_backup(ctx, dst, o.backup, o.suffix))})"
                        dst_l = None
                    elif (
                        o.remove_destination
                        # (-l/-s make the new name over an old one only with -f; else the link
                        # fails on it: "cannot create hard link 'b' to 'a': File exists")
                        or ((o.hard_link or o.symbolic_link) and o.force)
                        or (dst_l.is_link and not follow)
                    ):
                        ctx.fs.unlink(dst)
                        dst_l = None
                except FsError as e:
                    fail(ctx, "cannot remove", dst, e)
                    return False
        if sst.is_dir:
            if cmdline:
                self.top, self.into_self = None, False
            return self._copy_dir(src, dst, sst, dst_l is not None, cmdline)
        if o.verbose and not o.move:
            # GNU announces before copying, so a failed copy is announced too
            ctx.out(f"{quoteaf(src)} -> {quoteaf(dst)}{backup_note}\n")
        return self._copy_leaf(src, dst, sst, dst_l is not None, backup_note)

    def _copy_descriptor(self, src: str, dst: str) -> bool:
        """`cp <(cmd) f`: a descriptor of the shell (a pipe: GNU reads it as a file's content)."""
        ctx = self.ctx
        try:
            data = ctx.read_input(src)
        except (FsError, StreamError) as e:
            fail(ctx, "cannot stat", src, e.errno or errno.EIO)
            return False
        if self.opts.verbose:
            ctx.out(f"{quoteaf(src)} -> {quoteaf(dst)}\n")
        try:
            ctx.fs.write_bytes(dst, data)
        except FsError as e:
            fail(ctx, "cannot create regular file", dst, e)
            return False
        return True

    def _copy_leaf(self, src: str, dst: str, sst: Stat, exists: bool, note: str) -> bool:
        ctx, o = self.ctx, self.opts
        fs = ctx.fs
        key = (sst.dev, sst.ino)
        try:
            # mv looks up every file: the other names may have been moved already
            if o.links and (sst.nlink > 1 or o.move) and key in self.inodes:
                fs.link(self.inodes[key], dst)
                return True
            if o.move and o.verbose:
                ctx.out(f"copied {quoteaf(src)} -> {quoteaf(dst)}{note}\n")
            if o.hard_link:
                return self._hard_link(src, dst)
            if o.symbolic_link:
                if not src.startswith("/") and "/" in dst.rstrip("/"):
                    ctx.error(f"{dst}: can make relative symbolic links only in current directory")
                    return False
                fs.symlink(src, dst)
                return True
            if sst.is_link:
                fs.symlink(fs.readlink(src), dst)
                self._attrs(dst, sst, new=True, follow=False)
                return True
            if not sst.is_file and not (sst.is_chr and self._copy_device_contents()):
                fail(ctx, "cannot create special file", dst, errno.EPERM)
                return False
        except FsError as e:
            # coreutils names the source too when it makes a link (-s, -l, a hard link kept by
            # -a/mv), and only the new name when it copies a symbolic link as one
            if o.symbolic_link:
                ctx.error(f"cannot create symbolic link {quoteaf(dst)} to {quoteaf(src)}: {errmsg(e)}")
            elif o.links and key in self.inodes:
                ctx.error(
                    f"cannot create hard link {quoteaf(dst)} to {quoteaf(self.inodes[key])}: {errmsg(e)}"
                )
            elif o.hard_link:
                ctx.error(f"cannot create hard link {quoteaf(dst)} to {quoteaf(src)}: {errmsg(e)}")
            else:
                fail(ctx, "cannot create symbolic link", dst, e)
            return False
        if not self._copy_data(src, dst, exists):
            return False
        if o.links and sst.nlink > 1:
            self.inodes[key] = dst
        self._attrs(dst, sst, new=not exists, follow=True)
        return True

    def _copy_device_contents(self) -> bool:
        # without -R a device is read like a file (cp /dev/null x makes an empty file)
        return not self.opts.recursive

    def _hard_link(self, src: str, dst: str) -> bool:
        ctx = self.ctx
        try:
            ctx.fs.link(src, dst)
            return True
        except FsError as e:
            ctx.error(f"cannot create hard link {quoteaf(dst)} to {quoteaf(src)}: {errmsg(e)}")
            return False

    def _copy_data(self, src: str, dst: str, exists: bool) -> bool:
        ctx, o = self.ctx, self.opts
        try:
            inp = ctx.fs.open(src, "r")
        except FsError as e:
            ctx.error(f"cannot open {quoteaf(src)} for reading: {errmsg(e)}")
            return False
        try:
            try:
                out = ctx.fs.open(dst, "w")
            except FsError as e:
                if exists and o.force and e.errno == errno.EACCES:
                    try:
                        ctx.fs.unlink(dst)
                        out = ctx.fs.open(dst, "w")
                    except FsError as e2:
                        fail(ctx, "cannot create regular file", dst, e2)
                        return False
                else:
                    if exists:
                        ctx.error(f"cannot open {quoteaf(dst)} for writing: {errmsg(e)}")
                    else:
                        fail(ctx, "cannot create regular file", dst, e)
                    return False
            try:
                if not o.attributes_only:
                    while True:
                        chunk = inp.read(CHUNK)
                        if not chunk:
                            break
                        ctx.checkpoint(len(chunk) // 4096 + 1)
                        out.write(chunk)
            except FsError as e:
                ctx.error(f"error writing {quoteaf(dst)}: {errmsg(e)}")
                return False
            finally:
                out.close()
        finally:
            inp.close()
        return True

    def _attrs(self, dst: str, sst: Stat, new: bool, follow: bool) -> None:
        """Mode for new files (source mode minus umask, or exact with -p),
        then ownership and times when preserving. Failures to keep ownership
        are ignored, as GNU does for an unprivileged user."""
        ctx, o = self.ctx, self.opts
        fs = ctx.fs
        if sst.is_link and not follow:
            if o.times:
                try:
                    fs.utime(dst, sst.atime_ns, sst.mtime_ns, follow=False)
                except FsError:
                    pass
            return
        try:
            if o.mode:
                fs.chmod(dst, sst.perm)
            elif new:
                fs.chmod(dst, sst.perm & ~fs.umask & 0o777)
        except FsError:
            pass
        if o.owner:
            try:
                fs.chown(dst, sst.uid, sst.gid)
            except FsError:
                try:
                    fs.chown(dst, -1, sst.gid)
                except FsError:
                    pass
        if o.times:
            try:
                fs.utime(dst, sst.atime_ns, sst.mtime_ns)
            except FsError:
                pass

    def _copy_dir(self, src: str, dst: str, sst: Stat, exists: bool, cmdline: bool) -> bool:
        ctx, o = self.ctx, self.opts
        fs = ctx.fs
        if self.top is not None and (sst.dev, sst.ino) == self.top[2]:
            # the recursion reached the directory this copy created: GNU stops here
            ctx.error(f"cannot copy a directory, {quoteaf(self.top[0])}, into itself, {quoteaf(self.top[1])}")
            self.into_self = True
            return False
        if not exists:
            try:
                # owner needs rwx while the copy fills the new directory
                fs.mkdir(dst, 0o700)
            except FsError as e:
                fail(ctx, "cannot create directory", dst, e)
                return False
            if o.verbose:
                ctx.out(
                    f"created directory {quoteaf(dst)}\n" if o.move else f"{quoteaf(src)} -> {quoteaf(dst)}\n"
                )
            if cmdline:
                new = fs.try_stat(dst)
                self.top = (src, dst, (new.dev, new.ino) if new is not None else (-1, -1))
        ok = True
        try:
            names = sorted(fs.listdir(src), key=_byte_key)
        except FsError as e:
            fail(ctx, "cannot access", src, e)
            names = []
            ok = False
        for name in names:
            if not self.copy(join(src, name), join(dst, name), cmdline=False):
                ok = False
            if self.into_self:
                break
        self._attrs(dst, sst, new=not exists, follow=True)
        return ok


def _byte_key(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")


# ------------------------------------------------------------ cp

CP_SPEC = CommandSpec(
    name="cp",
    usage="[OPTION]... [-T] SOURCE DEST\n  or:  cp [OPTION]... SOURCE... DIRECTORY\n  or:  cp [OPTION]... -t DIRECTORY SOURCE...",
    summary="Copy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.",
    opts=(
        Opt("a", "archive", help="same as -dR --preserve=all"),
        Opt(None, "attributes-only", help="don't copy the file data, just the attributes"),
        *BACKUP_OPTS,
        Opt(None, "copy-contents", help="copy contents of special files when recursive"),
        Opt("d", None, dest="d", help="same as --no-dereference --preserve=links"),
        Opt("f", "force", help="if an existing destination file cannot be opened, remove it and try again"),
        Opt("i", "interactive", help="prompt before overwrite"),
        Opt("H", None, dest="H", help="follow command-line symbolic links in SOURCE"),
        Opt("l", "link", help="hard link files instead of copying"),
        Opt("L", "dereference", help="always follow symbolic links in SOURCE"),
        Opt("n", "no-clobber", help="do not overwrite an existing file"),
        Opt("P", "no-dereference", help="never follow symbolic links in SOURCE"),
        Opt("p", None, dest="p", help="same as --preserve=mode,ownership,timestamps"),
        Opt(
            None,
            "preserve",
            arg="optional",
            metavar="ATTR_LIST",
            multi=True,
            help="preserve the specified attributes",
        ),
        Opt(
            None,
            "no-preserve",
            arg="required",
            metavar="ATTR_LIST",
            multi=True,
            help="don't preserve the specified attributes",
        ),
        Opt(None, "parents", help="use full source file name under DIRECTORY"),
        Opt("R", "recursive", help="copy directories recursively"),
        Opt("r", None, dest="recursive"),
        Opt(None, "reflink", arg="optional", metavar="WHEN", help="control clone/CoW copies"),
        Opt(None, "remove-destination", help="remove each existing destination file before opening it"),
        Opt(None, "sparse", arg="required", metavar="WHEN", help="control creation of sparse files"),
        Opt(None, "strip-trailing-slashes", help="remove any trailing slashes from each SOURCE argument"),
        Opt("s", "symbolic-link", help="make symbolic links instead of copying"),
        Opt(
            "t",
            "target-directory",
            arg="required",
            metavar="DIRECTORY",
            help="copy all SOURCE arguments into DIRECTORY",
        ),
        Opt("T", "no-target-directory", help="treat DEST as a normal file"),
        Opt("u", "update", help="copy only when the SOURCE file is newer than the destination file"),
        Opt("v", "verbose", help="explain what is being done"),
        Opt("x", "one-file-system", help="stay on this file system"),
        Opt("Z", None, dest="Z", help="set SELinux security context of destination file to default type"),
        Opt(None, "context", arg="optional", metavar="CTX", help="like -Z"),
    ),
)

_ATTRS = ("mode", "ownership", "timestamps", "links", "context", "xattr", "all")


def _preserve(ctx: Ctx, opts: Parsed, o: CopyOptions) -> None:
    """Apply -a/-p/-d/--preserve/--no-preserve in command-line order."""
    for key, value in opts.order:
        if key in ("archive", "p", "d", "preserve", "no_preserve"):
            if key == "archive":
                attrs, on = ["all"], True
            elif key == "p":
                attrs, on = ["mode", "ownership", "timestamps"], True
            elif key == "d":
                attrs, on = ["links"], True
            elif key == "preserve" and value is None:
                attrs, on = ["mode", "ownership", "timestamps"], True
            else:
                attrs, on = str(value).split(","), key == "preserve"
            for a in attrs:
                matches = [x for x in _ATTRS if x.startswith(a)] if a else []
                if len(matches) != 1:
                    kind = "ambiguous" if len(matches) > 1 else "invalid"
                    ctx.stderr.write(
                        f"{ctx.prog}: {kind} argument {quote(a)} for {quote('--' + key.replace('_', '-'))}\n"
                        "Valid arguments are:\n  - \u2018mode\u2019\n  - \u2018timestamps\u2019\n"
                        "  - \u2018ownership\u2019\n  - \u2018links\u2019\n  - \u2018context\u2019\n"
                        "  - \u2018xattr\u2019\n  - \u2018all\u2019\n"
                        f"Try '{ctx.help_prog} --help' for more information.\n".encode()
                    )
                    raise CommandExit(1)
                m = matches[0]
                if m in ("mode", "all"):
                    o.mode = on
                if m in ("ownership", "all"):
                    o.owner = on
                if m in ("timestamps", "all"):
                    o.times = on
                if m in ("links", "all"):
                    o.links = on


def resolve_targets(
    ctx: Ctx, operands: list[str], target: str | None, no_target: bool, what: str = "file"
) -> tuple[list[str], str | None, str | None]:
    """GNU's operand rules for cp/mv/ln/install: returns (sources, target
    directory or None, single destination or None); raises on usage errors.
    The -t error wording differs per tool (coreutils 9.1)."""
    fs = ctx.fs
    if target is not None:
        if no_target:
            raise usage_error(ctx, "cannot combine --target-directory (-t) and --no-target-directory (-T)")
        try:
            st = fs.stat(target)
            if not st.is_dir and target.endswith("/"):
                raise FsError(errno.ENOTDIR, target)  # stat(2) of 'FILE/' fails
            code, failed = (0 if st.is_dir else errno.ENOTDIR), False
        except FsError as e:
            code, failed = e.errno or 0, True
        if code:
            if ctx.name == "ln" and not failed:
                ctx.error(f"target {quoteaf(target)} is not a directory")
            elif ctx.name in ("ln", "install"):
                ctx.error(f"failed to access {quoteaf(target)}: {strerror(code)}")
            else:
                ctx.error(f"target directory {quoteaf(target)}: {strerror(code)}")
            raise CommandExit(1)
        if not operands:
            raise usage_error(ctx, f"missing {what} operand")
        return operands, target, None
    if not operands:
        raise usage_error(ctx, f"missing {what} operand")
    if len(operands) == 1:
        raise usage_error(ctx, f"missing destination file operand after {quoteaf(operands[0])}")
    last = operands[-1]
    if no_target:
        if len(operands) > 2:
            raise usage_error(ctx, f"extra operand {quoteaf(operands[2])}")
        return operands[:1], None, last
    if len(operands) == 2 and not fs.is_dir(last):
        return operands[:1], None, last
    if not fs.is_dir(last):
        try:
            fs.stat(last)
            code = errno.ENOTDIR
        except FsError as e:
            code = e.errno or 0
        ctx.error(f"target {quoteaf(last)}: {strerror(code)}")
        raise CommandExit(1)
    return operands[:-1], last, None


@declare("cp", spec=CP_SPEC, effects=Effects.CP)
def cmd_cp(ctx: Ctx) -> int:
    opts, operands = ctx.parse(CP_SPEC)
    o = CopyOptions()
    o.recursive = bool(opts.has("recursive") or opts.has("archive"))
    deref = None
    for key, _ in opts.order:
        if key in ("dereference", "no_dereference", "H", "archive", "d"):
            deref = {"dereference": "always", "H": "cmdline"}.get(key, "never")
    o.deref = deref or ("never" if o.recursive and not opts.has("link") else "always")
    _preserve(ctx, opts, o)
    for key, _ in opts.order:
        if key in ("interactive", "no_clobber", "force"):
            o.interactive = key == "interactive"
            o.no_clobber = key == "no_clobber"
    o.force = opts.has("force")
    o.update = opts.has("update")
    o.verbose = opts.has("verbose")
    o.hard_link = opts.has("link")
    o.symbolic_link = opts.has("symbolic_link")
    o.remove_destination = opts.has("remove_destination")
    o.attributes_only = opts.has("attributes_only")
    if o.hard_link and o.symbolic_link:
        raise usage_error(ctx, "cannot make both hard and symbolic links")
    o.backup = backup_control(ctx, opts.values)
    o.suffix = backup_suffix(ctx, opts.values)
    if o.backup and o.no_clobber:
        raise usage_error(ctx, "options --backup and --no-clobber are mutually exclusive")
    if opts.has("strip_trailing_slashes"):
        operands = [p.rstrip("/") or p for p in operands[:-1]] + operands[-1:]
    parents = opts.has("parents")
    target = opts.get("target_directory")
    if (
        parents
        and target is None
        and not opts.has("no_target_directory")
        and len(operands) >= 2
        and not ctx.fs.is_dir(operands[-1])
    ):
        raise usage_error(ctx, "with --parents, the destination must be a directory")
    sources, directory, single = resolve_targets(ctx, operands, target, opts.has("no_target_directory"))
    copier = Copier(ctx, o)
    status = 0
    if single is not None:
        return 0 if copier.copy(sources[0], single) else 1
    assert directory is not None
    created: set[str] = set()
    for src in sources:
        if parents:
            dst = join(directory, src.lstrip("/"))
            if not _make_parents(ctx, copier, src, directory):
                status = 1
                continue
        else:
            dst = join(directory, basename(src))
        if dst in created:
            ctx.error(f"will not overwrite just-created {quoteaf(dst)} with {quoteaf(src)}")
            status = 1
            continue
        if not copier.copy(src, dst):
            status = 1
        created.add(dst)
    return status


def _make_parents(ctx: Ctx, copier: Copier, src: str, directory: str) -> bool:
    """--parents: recreate the directories leading to `src` under `directory`."""
    parts = [p for p in src.split("/") if p][:-1]
    prefix = "/" if src.startswith("/") else ""
    made = ""
    for part in parts:
        made = made + "/" + part if made else part
        s = prefix + made
        d = join(directory, made)
        st = ctx.fs.try_stat(d)
        if st is not None:
            if not st.is_dir:
                ctx.error(f"{quoteaf(d)} exists but is not a directory")
                return False
            continue
        try:
            sst = ctx.fs.stat(s)
            ctx.fs.mkdir(d, 0o700)
        except FsError as e:
            fail(ctx, "cannot make directory", d, e)
            return False
        copier._attrs(d, sst, new=True, follow=True)
        if copier.opts.verbose:
            ctx.out(f"{s} -> {d}\n")
    return True
