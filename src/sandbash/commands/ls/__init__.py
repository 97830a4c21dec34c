"""ls, dir and vdir (GNU coreutils 9.1).

Output is never a terminal, so the default format is one name per line, names
are shown literally and no colour is used (GNU also disables colour when TERM
is unset, as it is in the sandbox). Names sort in byte order, as in the
C.UTF-8 locale; directory contents are read in that order, not readdir order.
"""

from __future__ import annotations

from ..context import Ctx
from ..fsutil import quoteaf
from ..options import CommandSpec
from ..record import Effects, WriteFailure, declare
from .config import SPEC, _configure
from .lister import Entry, Lister

__all__ = ["cmd_dir", "cmd_ls", "cmd_vdir"]


@declare(
    "ls", "dir", "vdir", spec=SPEC, spells="ls", effects=Effects.LS, write_failure=WriteFailure(status=2)
)
def cmd_ls(ctx: Ctx) -> int:
    opts, operands = ctx.parse(SPEC if ctx.name == "ls" else _renamed(ctx.name))
    cfg = _configure(ctx, opts)
    lister = Lister(ctx, cfg)
    implicit = not operands
    if implicit:
        operands = ["."]
    files: list[Entry] = []
    dirs: list[Entry] = []
    for op in operands:
        ctx.checkpoint()
        entry = lister.make_entry(op, op, True)
        if entry is None:
            continue
        if entry.is_dir and not cfg.directory:
            dirs.append(entry)
        else:
            files.append(entry)
    files = lister.sort(files)
    dirs = lister.sort(dirs) if cfg.sort != "none" else dirs
    print_names = len(operands) > 1 or cfg.recursive
    if files:
        lister.print_entries(files, with_total=False)
        if dirs:
            lister.emit("\n")
    first = True
    stack: list[tuple[str, bool]] = [(d.path, True) for d in reversed(dirs)]
    seen: set[int] = set()
    while stack:
        path, cmdline = stack.pop()
        ctx.checkpoint()
        st = ctx.fs.try_stat(path)
        if st is not None and cfg.recursive:
            if st.ino in seen:
                ctx.error(f"{quoteaf(path)}: not listing already-listed directory")
                lister.status = 2
                continue
            seen.add(st.ino)
        if print_names:
            if not first:
                lister.emit("\n")
            first = False
            lister.emit(lister.quote_name(path) + ":\n")
        entries, ok = lister.list_dir(path, cmdline)
        if ok:
            lister.print_entries(entries, with_total=True)
        if cfg.recursive:
            subdirs = [
                e
                for e in entries
                if e.is_dir
                and e.name not in (".", "..")
                and (e.lst is None or not e.lst.is_link or cfg.deref == "always")
            ]
            for e in reversed(subdirs):
                stack.append((e.path, False))
    lister.flush()
    return lister.status


def _renamed(name: str) -> CommandSpec:
    return CommandSpec(name=name, usage=SPEC.usage, summary=SPEC.summary, opts=SPEC.opts, usage_status=2)


cmd_dir = cmd_ls
cmd_vdir = cmd_ls
