"""ed (GNU ed 1.19): the line editor scripts drive through a pipe or a here-document
(`printf '%s\\n' '/x/d' w q | ed -s file`). The editor itself is in editor.py; this module
reads the options and runs the command loop over standard input."""

from __future__ import annotations

from ...stdio.streams import StreamReadError
from ...vfs.facade import FileStream
from ..context import Ctx
from ..options import CommandSpec, Opt, version_text
from ..record import Effects, declare
from .commands import run_command
from .editor import Editor

SPEC = CommandSpec(
    name="ed",
    usage="[options] [file]",
    summary="GNU ed is a line-oriented text editor.",
    opts=(
        Opt("E", "extended-regexp", help="use extended regular expressions"),
        Opt("G", "traditional", help="run in compatibility mode"),
        Opt("l", "loose-exit-status", help="exit with 0 status even if a command fails"),
        Opt("p", "prompt", arg="required", metavar="STRING", help="use STRING as an interactive prompt"),
        Opt("q", "quiet", help="suppress diagnostics written to stderr"),
        Opt(None, "silent", dest="quiet"),
        Opt("r", "restricted", help="run in restricted mode"),
        Opt("s", "script", help="suppress byte counts and '!' prompt"),
        Opt("v", "verbose", help="be verbose; equivalent to the 'H' command"),
        Opt(None, "strip-trailing-cr", help="strip carriage returns at end of text lines"),
        Opt("V", None, dest="version_short", help="display version information and exit"),
    ),
)


@declare("ed", spec=SPEC, effects=Effects.OPAQUE)
def cmd_ed(ctx: Ctx) -> int:
    opts, operands = ctx.parse(SPEC)
    if opts.has("version_short"):  # (-V is GNU ed's --version)
        ctx.out(version_text(SPEC).encode())
        return 0
    # a first operand `-` is the old spelling of -s (GNU ed 1.19's main.c), even after `--`
    dash = bool(operands) and operands[0] == "-"
    if dash:
        operands = operands[1:]
    ed = Editor(
        ctx,
        run_command,
        counts=not (dash or opts.has("script")),
        diagnostics=not opts.has("quiet"),
        strip_cr=opts.has("strip_trailing_cr"),
        ere=opts.has("extended_regexp"),
        restricted=opts.has("restricted"),
        verbose=opts.has("verbose"),
        # GNU ed ends at the first error of a script read from a regular file (`ed f < script`);
        # from a pipe (a here-document is one in bash 5.2) it goes on and exits 1 at the end
        script_file=isinstance(ctx.stdin, FileStream),
    )
    prompt = opts.get("prompt")
    if prompt is not None:
        ed.prompt, ed.prompt_on = prompt, True
    with ctx.hold_memory() as mem:
        ed.mem = mem
        if operands:
            ed.open_initial(operands[0])
        try:
            status = ed.main_loop()
        except StreamReadError as e:  # (`ed < dir`)
            ed.say(f"stdin: {e.strerror}")
            status = 2
    return 0 if opts.has("loose_exit_status") and status == 1 else status
