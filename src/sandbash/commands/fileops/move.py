"""mv and install."""

from __future__ import annotations

import errno

from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..fsutil import (
    ModeError,
    basename,
    dirname,
    errmsg,
    join,
    lookup_group,
    lookup_user,
    mount_of,
    parse_mode,
    quote,
    quoteaf,
)
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from .common import (
    BACKUP_OPTS,
    backup_control,
    backup_suffix,
    canonical,
    fail,
    make_backup,
    prompt,
    slash_on_missing,
    stat_dest_or_fail,
    stat_source,
    usage_error,
)
from .copy import Copier, CopyOptions, resolve_targets
from .remove import Remover

MV_SPEC = CommandSpec(
    name="mv",
    usage="[OPTION]... [-T] SOURCE DEST\n  or:  mv [OPTION]... SOURCE... DIRECTORY\n  or:  mv [OPTION]... -t DIRECTORY SOURCE...",
    summary="Rename SOURCE to DEST, or move SOURCE(s) to DIRECTORY.",
    opts=(
        *BACKUP_OPTS,
        Opt("f", "force", help="do not prompt before overwriting"),
        Opt("i", "interactive", help="prompt before overwrite"),
        Opt("n", "no-clobber", help="do not overwrite an existing file"),
        Opt(None, "strip-trailing-slashes", help="remove any trailing slashes from each SOURCE argument"),
        Opt(
            "t",
            "target-directory",
            arg="required",
            metavar="DIRECTORY",
            help="move all SOURCE arguments into DIRECTORY",
        ),
        Opt("T", "no-target-directory", help="treat DEST as a normal file"),
        Opt("u", "update", help="move only when the SOURCE file is newer than the destination file"),
        Opt("v", "verbose", help="explain what is being done"),
        Opt("Z", "context", help="set SELinux security context of destination file to default type"),
    ),
)


@declare("mv", spec=MV_SPEC, effects=Effects.MV)
def cmd_mv(ctx: Ctx) -> int:
    opts, operands = ctx.parse(MV_SPEC)
    mode = ""
    for key, _ in opts.order:
        if key in ("interactive", "no_clobber", "force"):
            mode = key
    control = backup_control(ctx, opts.values)
    suffix = backup_suffix(ctx, opts.values)
    if control and mode == "no_clobber":
        raise usage_error(ctx, "options --backup and --no-clobber are mutually exclusive")
    if opts.has("strip_trailing_slashes"):
        operands = [p.rstrip("/") or p for p in operands]
    sources, directory, single = resolve_targets(
        ctx, operands, opts.get("target_directory"), opts.has("no_target_directory")
    )
    status = 0
    pairs = (
        [(sources[0], single)]
        if single is not None
        else [(s, join(directory or ".", basename(s))) for s in sources]
    )
    for src, dst in pairs:
        if not _move(ctx, src, dst, mode, opts.has("update"), opts.has("verbose"), control, suffix):
            status = 1
    return status


def _move(
    ctx: Ctx, src: str, dst: str, mode: str, update: bool, verbose: bool, control: str | None, suffix: str
) -> bool:
    fs = ctx.fs
    ctx.checkpoint()
    try:
        sst = stat_source(ctx, src, False)
    except FsError as e:
        fail(ctx, "cannot stat", src, e)
        return False
    csrc = canonical(ctx, src.rstrip("/") or src) if not sst.is_link else fs.normpath(src)
    found, dst_l = stat_dest_or_fail(ctx, dst)
    if not found:
        return False
    cdst = canonical(ctx, dst)
    note = ""
    if csrc is not None and cdst is not None and sst.is_dir and cdst.startswith(csrc.rstrip("/") + "/"):
        ctx.error(f"cannot move {quoteaf(src)} to a subdirectory of itself, {quoteaf(dst)}")
        return False
    if dst_l is not None:
        if dst_l.ino == sst.ino:
            ctx.error(f"{quoteaf(src)} and {quoteaf(dst)} are the same file")
            return False
        if mode == "no_clobber":
            return True
        if update and not sst.is_dir and dst_l.mtime_ns >= sst.mtime_ns:
            return True
        if mode == "interactive" and not prompt(ctx, f"overwrite {quoteaf(dst)}?"):
            return True
        if sst.is_dir and not dst_l.is_dir:
            ctx.error(f"cannot overwrite non-directory {quoteaf(dst)} with directory {quoteaf(src)}")
            return False
        if not sst.is_dir and dst_l.is_dir:
            ctx.error(f"cannot overwrite directory {quoteaf(dst)} with non-directory")
            return False
        if control:
            try:
                note = f" (backup: {quoteaf(make_backup(ctx, dst, control, suffix))})"
            except FsError as e:
                ctx.error(f"cannot backup {quoteaf(dst)}: {errmsg(e)}")
                return False
    link = fs.try_lstat(src.rstrip("/")) if src.endswith("/") else None
    # rename(2) makes no file 'NEW/' and moves no symbolic link named 'LINK/'
    if (slash_on_missing(dst, dst_l) and not sst.is_dir) or (link is not None and link.is_link):
        ctx.error(f"cannot move {quoteaf(src)} to {quoteaf(dst)}: {strerror(errno.ENOTDIR)}")
        return False
    try:
        fs.rename(src, dst)
    except FsError as e:
        if e.errno == errno.EXDEV or (
            e.errno in (errno.EACCES, errno.EPERM) and _cross_device(ctx, src, dst)
        ):
            return _move_across(ctx, src, dst, sst.is_dir, verbose, note)
        ctx.error(f"cannot move {quoteaf(src)} to {quoteaf(dst)}: {errmsg(e)}")
        return False
    if verbose:
        ctx.out(f"renamed {quoteaf(src)} -> {quoteaf(dst)}{note}\n")
    return True


# everything mv keeps when it has to copy: a move looks like a rename
_MOVE_COPY = CopyOptions(
    recursive=True, deref="never", mode=True, owner=True, times=True, links=True, move=True
)


def _cross_device(ctx: Ctx, src: str, dst: str) -> bool:
    """Whether src and dst sit on different mounts. Linux's rename(2) says
    EXDEV before it checks permissions, so mv copies and then reports the
    source it cannot remove."""
    try:
        return mount_of(ctx.fs, dirname(src)).target != mount_of(ctx.fs, dirname(dst)).target
    except FsError:
        return False


def _move_across(ctx: Ctx, src: str, dst: str, is_dir: bool, verbose: bool, note: str) -> bool:
    """rename(2) said EXDEV (another mount): as GNU mv, remove the target the
    rename would have replaced, copy the tree keeping modes, times and hard
    links, then remove the source; the source stays if the copy failed."""
    fs = ctx.fs
    try:
        if is_dir:
            fs.rmdir(dst)
        else:
            fs.unlink(dst)
    except FsError as e:
        if e.errno != errno.ENOENT:
            ctx.error(
                f"inter-device move failed: {quoteaf(src)} to {quoteaf(dst)}; unable to remove target: "
                f"{errmsg(e)}"
            )
            return False
    from dataclasses import replace  # (an inter-device move only: dataclasses is ~6 ms of imports)

    opts = replace(_MOVE_COPY, verbose=verbose)
    if not Copier(ctx, opts).copy(src, dst, note=note):
        return False
    return Remover(
        ctx, force=False, interactive="never", recursive=True, empty_dirs=True, verbose=verbose
    ).remove(src)


# ------------------------------------------------------------ install

INSTALL_SPEC = CommandSpec(
    name="install",
    usage="[OPTION]... [-T] SOURCE DEST\n  or:  install [OPTION]... SOURCE... DIRECTORY\n"
    "  or:  install [OPTION]... -t DIRECTORY SOURCE...\n  or:  install [OPTION]... -d DIRECTORY...",
    summary="Copy SOURCE to DEST or multiple SOURCE(s) to the existing DIRECTORY, setting modes and ownership.",
    opts=(
        *BACKUP_OPTS,
        Opt("c", None, dest="c", help="(ignored)"),
        Opt("C", "compare", help="do not copy if source and destination are the same"),
        Opt("d", "directory", help="treat all arguments as directory names"),
        Opt("D", None, dest="D", help="create all leading components of DEST except the last"),
        Opt("g", "group", arg="required", metavar="GROUP", help="set group ownership"),
        Opt("m", "mode", arg="required", metavar="MODE", help="set permission mode (as in chmod)"),
        Opt("o", "owner", arg="required", metavar="OWNER", help="set ownership (super-user only)"),
        Opt("p", "preserve-timestamps", help="apply access/modification times of SOURCE files"),
        Opt("s", "strip", help="strip symbol tables"),
        Opt(None, "strip-program", arg="required", metavar="PROGRAM", help="program used to strip binaries"),
        Opt(
            "t",
            "target-directory",
            arg="required",
            metavar="DIRECTORY",
            help="copy all SOURCE arguments into DIRECTORY",
        ),
        Opt("T", "no-target-directory", help="treat DEST as a normal file"),
        Opt("v", "verbose", help="print the name of each created file or directory"),
        Opt(None, "preserve-context", help="preserve SELinux security context"),
        Opt("Z", None, dest="Z", help="set SELinux security context of destination file"),
        Opt(None, "context", arg="optional", metavar="CTX", help="like -Z"),
    ),
)


class _Install:
    def __init__(self, ctx: Ctx, mode: int, uid: int, gid: int, verbose: bool) -> None:
        self.ctx = ctx
        self.mode = mode
        self.uid = uid
        self.gid = gid
        self.verbose = verbose

    def make_dirs(self, path: str, last_mode: int | None) -> bool:
        """mkdir -p, announcing each directory made; the last one gets `last_mode`."""
        fs = self.ctx.fs
        parts = [p for p in path.split("/") if p]
        cur = "/" if path.startswith("/") else ""
        for i, part in enumerate(parts):
            cur = join(cur, part) if cur else part
            st = fs.try_stat(cur)
            last = i == len(parts) - 1
            if st is not None:
                if not st.is_dir:
                    self.ctx.error(
                        f"cannot create directory {quote(cur)}: {strerror(errno.EEXIST if last else errno.ENOTDIR)}"
                    )
                    return False
                if last and last_mode is not None:
                    return self.set_attrs(cur, last_mode)
                continue
            try:
                fs.mkdir(cur, 0o755 & ~fs.umask if not last or last_mode is None else 0o700)
            except FsError as e:
                self.ctx.error(f"cannot create directory {quote(cur)}: {errmsg(e)}")
                return False
            if self.verbose:
                self.ctx.out(f"{self.ctx.name}: creating directory {quoteaf(cur)}\n")
            if last and last_mode is not None and not self.set_attrs(cur, last_mode):
                return False
        return True

    def set_attrs(self, path: str, mode: int) -> bool:
        fs = self.ctx.fs
        try:
            if self.uid >= 0 or self.gid >= 0:
                st = fs.stat(path)
                if (self.uid >= 0 and self.uid != st.uid) or (self.gid >= 0 and self.gid != st.gid):
                    fs.chown(path, self.uid, self.gid)
        except FsError as e:
            self.ctx.error(f"cannot change ownership of {quoteaf(path)}: {errmsg(e)}")
            return False
        try:
            fs.chmod(path, mode)
        except FsError as e:
            self.ctx.error(f"cannot change permissions of {quoteaf(path)}: {errmsg(e)}")
            return False
        return True


@declare("install", spec=INSTALL_SPEC, effects=Effects.INSTALL)
def cmd_install(ctx: Ctx) -> int:
    opts, operands = ctx.parse(INSTALL_SPEC)
    fs = ctx.fs
    mode = 0o755
    if opts.has("mode"):
        try:
            mode = parse_mode(opts["mode"], 0o755, opts.has("directory"), 0)
        except ModeError:
            ctx.error(f"invalid mode {quote(opts['mode'])}")
            return 1
    uid = gid = -1
    if opts.has("owner"):
        found = lookup_user(opts["owner"])
        if found is None:
            ctx.error(f"invalid user {quote(opts['owner'])}")
            return 1
        uid = found
    if opts.has("group"):
        found = lookup_group(opts["group"])
        if found is None:
            ctx.error(f"invalid group {quote(opts['group'])}")
            return 1
        gid = found
    inst = _Install(ctx, mode, uid, gid, opts.has("verbose"))
    if opts.has("directory"):
        if not operands:
            raise usage_error(ctx, "missing file operand")
        status = 0
        for d in operands:
            if not inst.make_dirs(d, mode):
                status = 1
        return status
    target = opts.get("target_directory")
    if opts.has("D"):
        if target is not None:
            if not fs.is_dir(target) and not inst.make_dirs(target, None):
                return 1
        elif len(operands) >= 2:
            parent = dirname(operands[-1])
            if operands[-1].endswith("/"):
                parent = operands[-1]
            if not fs.is_dir(parent) and not inst.make_dirs(parent, None):
                return 1
    sources, directory, single = resolve_targets(ctx, operands, target, opts.has("no_target_directory"))
    control = backup_control(ctx, opts.values)
    suffix = backup_suffix(ctx, opts.values)
    co = CopyOptions(times=opts.has("preserve_timestamps"), verbose=False, backup=None)
    status = 0
    pairs = (
        [(sources[0], single)]
        if single is not None
        else [(s, join(directory or ".", basename(s))) for s in sources]
    )
    for src, dst in pairs:
        ctx.checkpoint()
        try:
            sst = fs.stat(src)
        except FsError as e:
            fail(ctx, "cannot stat", src, e)
            status = 1
            continue
        if sst.is_dir:
            ctx.error(f"omitting directory {quoteaf(src)}")
            status = 1
            continue
        found, dst_l = stat_dest_or_fail(ctx, dst)
        if not found:
            status = 1
            continue
        if slash_on_missing(dst, dst_l):
            fail(ctx, "cannot create regular file", dst, errno.ENOTDIR)
            status = 1
            continue
        dst_st = fs.try_stat(dst) if dst_l is not None else None
        if dst_st is not None and dst_st.ino == sst.ino:
            ctx.error(f"{quoteaf(src)} and {quoteaf(dst)} are the same file")
            status = 1
            continue
        if (
            opts.has("compare")
            and dst_st is not None
            and dst_st.is_file
            and dst_st.perm == mode
            and (uid < 0 or dst_st.uid == uid)
            and (gid < 0 or dst_st.gid == gid)
        ):
            try:
                if fs.read_bytes(src) == fs.read_bytes(dst):
                    continue
            except FsError:
                pass
        note = ""
        try:
            if dst_st is not None and control:
                note = f" (backup: {quoteaf(make_backup(ctx, dst, control, suffix))})"
            elif dst_st is not None and not dst_st.is_dir:
                fs.unlink(dst)
        except FsError as e:
            fail(ctx, "cannot remove", dst, e)
            status = 1
            continue
        if not Copier(ctx, co).copy(src, dst) or not inst.set_attrs(dst, mode):
            status = 1
            continue
        if opts.has("verbose"):
            ctx.out(f"{quoteaf(src)} -> {quoteaf(dst)}{note}\n")
    return status
