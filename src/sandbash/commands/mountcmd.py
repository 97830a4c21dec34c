"""mount: lists the sandbox's mount table as util-linux `mount` does.

Each line is `SOURCE on TARGET type TYPE (OPTIONS)`, in mount order. Host
directories behind host-backed mounts are never shown (the type stands in
for the source). Mounting is refused as util-linux refuses an ordinary user:
the table is the embedding program's to change.
"""

from __future__ import annotations

from .context import CommandExit, Ctx
from .fsutil import FsUsage, mount_table
from .options import CommandSpec, Opt
from .record import Effects, declare

SPEC = CommandSpec(
    name="mount",
    usage="[-lhV]\n mount -a [options]\n mount [options] [--source] <source> | [--target] <directory>\n"
    " mount [options] <source> <directory>",
    summary="Mount a filesystem.",
    opts=(
        Opt("a", "all", help="mount all filesystems mentioned in fstab"),
        Opt("f", "fake", help="dry run; skip the mount(2) syscall"),
        Opt("l", "show-labels", help="show also filesystem labels"),
        Opt("n", "no-mtab", help="don't write to /etc/mtab"),
        Opt("o", "options", arg="required", metavar="LIST", help="comma-separated list of mount options"),
        Opt("r", "read-only", help="mount the filesystem read-only (same as -o ro)"),
        Opt("t", "types", arg="required", metavar="LIST", help="limit the set of filesystem types"),
        Opt("v", "verbose", help="say what is being done"),
        Opt("w", "rw", help="mount the filesystem read-write (default)"),
        Opt("B", "bind", help="mount a subtree somewhere else (same as -o bind)"),
        Opt("M", "move", help="move a subtree to some other place"),
        Opt("R", "rbind", help="mount a subtree and all submounts somewhere else"),
        Opt(
            None,
            "source",
            arg="required",
            metavar="SRC",
            help="explicitly specifies source (path, label, uuid)",
        ),
        Opt(None, "target", arg="required", metavar="DIR", help="explicitly specifies mountpoint"),
        Opt("V", "version", help="display version"),
    ),
)

VERSION = "mount from util-linux 2.38.1 (libmount 2.38.1: namespaces, assert, debug)\n"


def _type_filter(spec: str | None) -> tuple[set[str], bool]:
    """`-t ext4,tmpfs` selects types; a leading `no` (`notmpfs,proc`) negates the list."""
    if spec is None:
        return set(), False
    negate = spec.startswith("no")
    names = spec[2:] if negate else spec
    return {n for n in names.split(",") if n}, negate


def _line(u: FsUsage) -> str:
    return f"{u.source} on {u.target} type {u.fstype} ({'ro' if u.read_only else 'rw'},relatime)\n"


@declare("mount", spec=SPEC, effects=Effects.OPAQUE)
def cmd_mount(ctx: Ctx) -> int:
    opts, operands = ctx.parse(SPEC)
    if opts.has("version"):
        ctx.out(VERSION)
        return 0
    for key in ("source", "target"):
        if opts.has(key):
            operands.append(opts[key])
    if opts.has("all"):
        return 0  # the sandbox has no fstab: nothing to mount
    if not operands:
        types, negate = _type_filter(opts.get("types"))
        for u in mount_table(ctx.fs):
            ctx.checkpoint()
            if not types or (u.fstype in types) != negate:
                ctx.out(_line(u))
        return 0
    if len(operands) == 1:
        ctx.error(f"{operands[0]}: can't find in /etc/fstab.")
        raise CommandExit(1)
    if len(operands) > 2:
        ctx.stderr.write(b"mount: bad usage\nTry 'mount --help' for more information.\n")
        raise CommandExit(1)
    ctx.error(f"{operands[1]}: must be superuser to use mount.")
    return 32
