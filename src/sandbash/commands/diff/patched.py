"""patch's ed-script patches (-e, or a patch that is one): GNU patch 2.7.6 copies the script's
commands (a line `N[,M]a|c|d|i` or `s/.//`, and an a/c/i's text up to its `.`; the first other
line ends it) to `ed -s` on a copy of the file, adds `w` and `q`, and puts the copy in place only
when ed succeeds (`**** ed FAILED`, status 2, otherwise). It says nothing on success."""

from __future__ import annotations

import re
from collections.abc import Callable

from ...stdio.streams import BytesReader
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..fsutil import FileRewrite
from ..textbasic.common import Out

# (GNU's test: a digit, digits and commas, then a, c, d or i ending the line, or s and the rest)
_ED_COMMAND = re.compile(rb"^\d[\d,]*(?:[acdi]$|s)")


def is_ed_script(data: bytes) -> bool:
    """Whether the patch starts as an ed script does (diff -e's first line)."""
    first = data.split(b"\n", 1)[0]
    return _ED_COMMAND.match(first) is not None


def ed_commands(data: bytes) -> bytes:
    """The script's ed commands, with the text of each a, c and i. Any other line is not
    passed on (GNU ends the script there and reads what follows as a patch of its own, another
    ed script when it starts as one: a `!command` line never reaches ed)."""
    kept: list[bytes] = []
    lines = data.split(b"\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if _ED_COMMAND.match(line) is None:
            continue
        kept.append(line + b"\n")
        if line[-1:] in b"aci" and b"s" not in line:
            while i < len(lines):
                kept.append(lines[i] + b"\n")
                i += 1
                if kept[-1] == b".\n":
                    break
    return b"".join(kept)


def apply_ed(ctx: Ctx, get: Callable[[str], object], operands: list[str], data: bytes, out: Out) -> int:
    """Apply an ed-script patch to the file named first (GNU asks for a name otherwise)."""
    script = ed_commands(data)
    if not script or not operands:
        out.flush()
        ctx.error("**** Only garbage was found in the patch input.")
        return 2
    target = operands[0]
    output = str(get("output") or target)
    if get("dry_run"):
        return 0
    try:
        # (a file that is not there is edited as empty: the script's first command then fails)
        original = ctx.fs.read_bytes(target) if ctx.fs.exists(target) else b""
        rewrite = FileRewrite(ctx.fs, output, prefix=".patch", rng=ctx.rng)
    except FsError as e:
        out.flush()
        ctx.error(f"**** Can't open file {e.path or target} : {strerror(e.errno or 5)}")
        return 2
    try:
        rewrite.stream.write(original)
        rewrite.stream.close()
        out.flush()
        status = _run_ed(ctx, rewrite.temp, script + b"w\nq\n")
        if status != 0:
            rewrite.abort()
            ctx.error("**** ed FAILED")
            return 2
        if get("backup") and ctx.fs.exists(output):
            ctx.fs.write_bytes(output + str(get("suffix") or ".orig"), ctx.fs.read_bytes(output))
        rewrite.commit()
    finally:
        rewrite.abort()
    return 0


def _run_ed(ctx: Ctx, path: str, script: bytes) -> int:
    """`ed -s PATH` reading `script`, in this process (GNU's patch starts ed; here the editor is
    part of patch: the static check's model of patch, which names no sub-command, stays true).
    Only the commands ed_commands() kept reach it: no `!`, `r`, `w` or `e` of the script's own."""
    from ..ed.commands import run_command
    from ..ed.editor import Editor

    ed = Editor(
        ctx,
        run_command,
        counts=False,
        diagnostics=True,
        strip_cr=False,
        ere=False,
        restricted=False,
        verbose=False,
        script_file=True,  # (GNU's ed, given patch's script, stops at its first error: one `?`)
    )
    saved = ctx.stdin
    ctx.stdin = BytesReader(script)
    try:
        with ctx.hold_memory() as mem:
            mem.charge(len(script))
            ed.mem = mem
            ed.open_initial(path)
            return ed.main_loop()
    finally:
        ctx.stdin = saved
