"""chmod, chown and chgrp."""

from __future__ import annotations

import errno
from collections.abc import Callable

from ...vfs.base import Stat
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..fsutil import (
    ModeChange,
    ModeError,
    adjust_mode,
    compile_mode,
    errmsg,
    group_name,
    join,
    lookup_group,
    lookup_user,
    mode_string,
    quote,
    quoteaf,
    shell_quote,
    user_name,
)
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from .common import fail, stat_source, usage_error

_ROOT_OPTS = (
    Opt(None, "no-preserve-root", help="do not treat '/' specially (the default)"),
    Opt(None, "preserve-root", help="fail to operate recursively on '/'"),
)

# ------------------------------------------------------------ walking


def _walk(
    ctx: Ctx,
    path: str,
    recursive: bool,
    follow_top: bool,
    visit: Callable[[str, Stat | None, bool], bool],
    traverse: str = "P",
) -> bool:
    """Visit `path` and, recursively, what is below it (pre-order, names in
    byte order). `visit(path, stat-or-None-for-symlinks-skipped, top)`."""
    ok = True
    fs = ctx.fs
    stack: list[tuple[str, bool]] = [(path, True)]
    while stack:
        p, top = stack.pop()
        ctx.checkpoint()
        try:
            lst = stat_source(ctx, p, False)  # 'NAME/' must be a directory
        except FsError as e:
            fail(ctx, "cannot access", p, e)
            ok = False
            continue
        follow = follow_top if top else traverse == "L"
        if lst.is_link and follow:
            try:
                st = fs.stat(p)
            except FsError as e:
                fail(ctx, "cannot access", p, e)
                ok = False
                continue
        else:
            st = lst
        if not visit(p, st, top):
            ok = False
        if recursive and st.is_dir:
            try:
                names = fs.listdir(p)
            except FsError as e:
                fail(ctx, "cannot read directory", p, e)
                ok = False
                continue
            for name in sorted(names, key=lambda n: n.encode("utf-8", "surrogateescape"), reverse=True):
                stack.append((join(p, name), False))
    return ok


def _root_refused(ctx: Ctx, path: str) -> bool:
    try:
        canon = ctx.fs.resolve(path, follow=True)
    except FsError:
        return False
    if canon != "/":
        return False
    if path == "/":
        ctx.error("it is dangerous to operate recursively on '/'")
    else:
        ctx.error(f"it is dangerous to operate recursively on {quoteaf(path)} (same as '/')")
    ctx.error("use --no-preserve-root to override this failsafe")
    return True


# ------------------------------------------------------------ chmod

CHMOD_SPEC = CommandSpec(
    name="chmod",
    usage="[OPTION]... MODE[,MODE]... FILE...\n  or:  chmod [OPTION]... OCTAL-MODE FILE...\n"
    "  or:  chmod [OPTION]... --reference=RFILE FILE...",
    summary="Change the mode of each FILE to MODE.",
    opts=(
        Opt("c", "changes", help="like verbose but report only when a change is made"),
        Opt("f", "silent", help="suppress most error messages"),
        Opt(None, "quiet", dest="silent"),
        Opt("v", "verbose", help="output a diagnostic for every file processed"),
        *_ROOT_OPTS,
        Opt(
            None, "reference", arg="required", metavar="RFILE", help="use RFILE's mode instead of MODE values"
        ),
        Opt("R", "recursive", help="change files and directories recursively"),
    ),
)

_MODE_CHARS = frozenset("rwxXstugoa,+-=01234567")


def _split_mode_args(args: list[str]) -> tuple[list[str], str | None]:
    """GNU chmod takes `-w`, `-rx` etc. as modes, not options."""
    rest: list[str] = []
    modes: list[str] = []
    after_dashdash = False
    for a in args:
        if not after_dashdash and a == "--":
            after_dashdash = True
            rest.append(a)
        elif (
            not after_dashdash
            and len(a) > 1
            and a[0] == "-"
            and a[1] != "-"
            and all(c in _MODE_CHARS for c in a[1:])
        ):
            modes.append(a)
        else:
            rest.append(a)
    return rest, ",".join(modes) if modes else None


def _octal(mode: int) -> str:
    return f"{mode & 0o7777:04o}"


@declare("chmod", spec=CHMOD_SPEC, effects=Effects.CHMOD)
def cmd_chmod(ctx: Ctx) -> int:
    args, dash_mode = _split_mode_args(ctx.args)
    opts, operands = ctx.parse(CHMOD_SPEC, args)
    fs = ctx.fs
    quiet = opts.has("silent")
    verbosity = "v" if opts.has("verbose") else "c" if opts.has("changes") else ""
    ref_mode: int | None = None
    mode_text = dash_mode
    if opts.has("reference"):
        try:
            ref_mode = fs.stat(opts["reference"]).perm
        except FsError as e:
            fail(ctx, "failed to get attributes of", opts["reference"], e)
            return 1
    elif mode_text is None:
        if not operands:
            raise usage_error(ctx, "missing operand")
        mode_text = operands.pop(0)
    if not operands:
        if mode_text is not None and ref_mode is None:
            raise usage_error(ctx, f"missing operand after {quote(mode_text)}")
        raise usage_error(ctx, "missing operand")
    changes: list[ModeChange] = []
    if ref_mode is None:
        assert mode_text is not None
        try:
            changes = compile_mode(mode_text)
        except ModeError:
            raise usage_error(ctx, f"invalid mode: {quote(mode_text)}")
    umask = fs.umask

    def visit(path: str, st: Stat | None, top: bool) -> bool:
        assert st is not None
        if st.is_link:
            if verbosity == "v":
                ctx.out(f"neither symbolic link {quoteaf(path)} nor referent has been changed\n")
            return True
        old = st.perm
        new = ref_mode if ref_mode is not None else adjust_mode(old, st.is_dir, umask, changes)
        ok = True
        try:
            # GNU calls chmod even when nothing changes (so a foreign file fails)
            fs.chmod(path, new)
        except FsError as e:
            if not quiet:
                ctx.error(f"changing permissions of {quoteaf(path)}: {errmsg(e)}")
            ok = False
        if verbosity == "v" or (verbosity == "c" and new != old):
            if not ok:
                word = "failed to change mode of"
                ctx.out(
                    f"{word} {quoteaf(path)} from {_octal(old)} ({mode_string(old)[1:]}) to "
                    f"{_octal(new)} ({mode_string(new)[1:]})\n"
                )
            elif new == old:
                ctx.out(f"mode of {quoteaf(path)} retained as {_octal(new)} ({mode_string(new)[1:]})\n")
            else:
                ctx.out(
                    f"mode of {quoteaf(path)} changed from {_octal(old)} ({mode_string(old)[1:]}) to "
                    f"{_octal(new)} ({mode_string(new)[1:]})\n"
                )
        if ok and ref_mode is None and umask:
            naive = adjust_mode(old, st.is_dir, 0, changes)
            if new & ~naive:
                ctx.error(
                    f"{shell_quote(path)}: new permissions are {mode_string(new)[1:]}, "
                    f"not {mode_string(naive)[1:]}"
                )
                ok = False
        return ok

    recursive = opts.has("recursive")
    status = 0
    for path in operands:
        if recursive and opts.has("preserve_root") and _root_refused(ctx, path):
            status = 1
            continue
        if quiet:
            st = fs.try_stat(path)
            if st is None:
                if fs.try_lstat(path) is None:
                    status = 1
                    continue
        if not _walk(ctx, path, recursive, True, visit):
            status = 1
    return status


# ------------------------------------------------------------ chown / chgrp

_OWN_OPTS = (
    Opt("c", "changes", help="like verbose but report only when a change is made"),
    Opt("f", "silent", help="suppress most error messages"),
    Opt(None, "quiet", dest="silent"),
    Opt("v", "verbose", help="output a diagnostic for every file processed"),
    Opt(None, "dereference", help="affect the referent of each symbolic link (the default)"),
    Opt("h", "no-dereference", help="affect symbolic links instead of any referenced file"),
    Opt(
        None,
        "from",
        arg="required",
        metavar="CURRENT_OWNER:CURRENT_GROUP",
        help="change the owner and/or group of each file only if its current owner and/or group match",
    ),
    *_ROOT_OPTS,
    Opt(None, "reference", arg="required", metavar="RFILE", help="use RFILE's owner and group"),
    Opt("R", "recursive", help="operate on files and directories recursively"),
    Opt(
        "H", None, dest="H", help="if a command line argument is a symbolic link to a directory, traverse it"
    ),
    Opt("L", None, dest="L", help="traverse every symbolic link to a directory encountered"),
    Opt("P", None, dest="P", help="do not traverse any symbolic links (default)"),
)

CHOWN_SPEC = CommandSpec(
    name="chown",
    usage="[OPTION]... [OWNER][:[GROUP]] FILE...\n  or:  chown [OPTION]... --reference=RFILE FILE...",
    summary="Change the owner and/or group of each FILE to OWNER and/or GROUP.",
    opts=_OWN_OPTS,
)
CHGRP_SPEC = CommandSpec(
    name="chgrp",
    usage="[OPTION]... GROUP FILE...\n  or:  chgrp [OPTION]... --reference=RFILE FILE...",
    summary="Change the group of each FILE to GROUP.",
    opts=_OWN_OPTS,
)


def _parse_spec(ctx: Ctx, spec: str, is_chgrp: bool) -> tuple[int, int, str | None, str | None] | None:
    """`OWNER[:[GROUP]]` -> (uid, gid, user text, group text); -1 for unchanged."""
    if is_chgrp:
        gid = lookup_group(spec)
        if gid is None:
            ctx.error(f"invalid group: {quote(spec)}")
            return None
        return -1, gid, None, spec
    user, sep, group = spec.partition(":")
    if not sep and "." in spec and lookup_user(spec) is None:
        u, _, g = spec.partition(".")
        if lookup_user(u) is not None and (not g or lookup_group(g) is not None):
            ctx.error(f"warning: '.' should be ':': {quote(spec)}")
            user, sep, group = u, ":", g
    uid = gid = -1
    if user:
        found = lookup_user(user)
        if found is None:
            ctx.error(f"invalid user: {quote(spec)}")
            return None
        uid = found
    if group:
        found = lookup_group(group)
        if found is None:
            ctx.error(f"invalid group: {quote(spec)}")
            return None
        gid = found
    elif sep and user:
        # `OWNER:` means the owner's login group
        gid = uid
        group = group_name(uid)
    return uid, gid, user or None, group or None


def _chown_common(ctx: Ctx, spec_obj: CommandSpec, is_chgrp: bool) -> int:
    opts, operands = ctx.parse(spec_obj)
    fs = ctx.fs
    quiet = opts.has("silent")
    verbosity = "v" if opts.has("verbose") else "c" if opts.has("changes") else ""
    if opts.has("reference"):
        try:
            rst = fs.stat(opts["reference"])
        except FsError as e:
            fail(ctx, "failed to get attributes of", opts["reference"], e)
            return 1
        uid = -1 if is_chgrp else rst.uid
        gid = rst.gid
        utext = None if is_chgrp else user_name(rst.uid)
        gtext: str | None = group_name(rst.gid)
    else:
        if not operands:
            raise usage_error(ctx, "missing operand")
        spec = operands.pop(0)
        if not operands:
            raise usage_error(ctx, f"missing operand after {quote(spec)}")
        parsed = _parse_spec(ctx, spec, is_chgrp)
        if parsed is None:
            return 1
        uid, gid, utext, gtext = parsed
    if not operands:
        raise usage_error(ctx, "missing operand")
    from_uid = from_gid = -1
    if opts.has("from"):
        fparsed = _parse_spec(ctx, opts["from"], False)
        if fparsed is None:
            return 1
        from_uid, from_gid = fparsed[0], fparsed[1]
    recursive = opts.has("recursive")
    traverse = "P"
    for key, _ in opts.order:
        if key in ("H", "L", "P"):
            traverse = key
    if recursive and traverse == "P" and opts.has("dereference") and not opts.has("no_dereference"):
        ctx.error("-R --dereference requires either -H or -L")
        return 1
    # without -R links are followed unless -h; with -R only -H/-L follow them
    follow_top = traverse in ("H", "L") if recursive else not opts.has("no_dereference")
    vfs = fs.vfs

    def visit(path: str, st: Stat | None, top: bool) -> bool:
        assert st is not None
        if (from_uid >= 0 and st.uid != from_uid) or (from_gid >= 0 and st.gid != from_gid):
            return True
        new_uid = st.uid if uid < 0 else uid
        new_gid = st.gid if gid < 0 else gid
        changed = (new_uid, new_gid) != (st.uid, st.gid)
        ok = True
        err = 0
        if vfs.uid != 0 and (
            st.uid != vfs.uid or new_uid != st.uid or (new_gid != st.gid and new_gid != vfs.gid)
        ):
            err = errno.EPERM
        else:
            try:
                fs.chown(path, uid, gid, follow=not st.is_link)
            except FsError as e:
                err = e.errno or 0
        if err:
            ok = False
            if not quiet:
                what = "changing ownership of" if utext is not None else "changing group of"
                ctx.error(f"{what} {quoteaf(path)}: {strerror(err)}")
        if verbosity == "v" or (verbosity == "c" and changed and ok):
            _describe(ctx, path, st, ok, changed, utext, gtext, uid, gid)
        return ok

    status = 0
    for path in operands:
        if recursive and opts.has("preserve_root") and _root_refused(ctx, path):
            status = 1
            continue
        if not _walk(ctx, path, recursive, follow_top, visit, traverse if recursive else "P"):
            status = 1
    return status


def _describe(
    ctx: Ctx,
    path: str,
    st: Stat,
    ok: bool,
    changed: bool,
    utext: str | None,
    gtext: str | None,
    uid: int,
    gid: int,
) -> None:
    """chown -v wording (chown-core.c describe_change)."""

    def spec(u: str | None, g: str | None) -> str:
        if u is not None and g is not None:
            return f"{u}:{g}"
        return u if u is not None else g or ""

    new_u = user_name(uid) if utext is not None and uid >= 0 else None
    new_g = group_name(gid) if gtext is not None and gid >= 0 else None
    new_spec = spec(new_u if utext is not None else None, new_g)
    old_spec = spec(
        user_name(st.uid) if utext is not None else None, group_name(st.gid) if gtext is not None else None
    )
    q = quoteaf(path)
    if not ok:
        if utext is not None:
            ctx.out(f"failed to change ownership of {q} from {old_spec} to {new_spec}\n")
        else:
            ctx.out(f"failed to change group of {q} from {old_spec} to {new_spec}\n")
    elif changed:
        word = "ownership" if utext is not None else "group"
        ctx.out(f"changed {word} of {q} from {old_spec} to {new_spec}\n")
    else:
        word = "ownership" if utext is not None else "group"
        ctx.out(f"{word} of {q} retained as {new_spec}\n")


@declare("chown", spec=CHOWN_SPEC, effects=Effects.CHMOD)
def cmd_chown(ctx: Ctx) -> int:
    return _chown_common(ctx, CHOWN_SPEC, False)


@declare("chgrp", spec=CHGRP_SPEC, effects=Effects.CHMOD)
def cmd_chgrp(ctx: Ctx) -> int:
    return _chown_common(ctx, CHGRP_SPEC, True)
