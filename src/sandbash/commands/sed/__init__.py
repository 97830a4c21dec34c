"""sed: GNU sed 4.9 (stream editor) on the shared regex layer.

parse.py turns the script into a flat command list (blocks become jumps),
run.py executes it one cycle per input line, streaming. Branch loops that do
not read input are bounded by `limits.max_sed_iterations`.
"""

from __future__ import annotations

import re

from ...vfs.errors import FsError
from ..context import CommandExit, Ctx
from ..options import CommandSpec, HelpRequested, Opt, OptionValueError, UsageError, parse_args, version_text
from ..record import Effects, WriteFailure, declare
from .parse import Parser, Piece, SedError
from .run import Runner

SPEC = CommandSpec(
    name="sed",
    usage="[OPTION]... {script-only-if-no-other-script} [input-file]...",
    summary="Stream editor for filtering and transforming text.",
    usage_status=1,
    opts=(
        Opt("n", "quiet", help="suppress automatic printing of pattern space"),
        Opt(None, "silent", dest="quiet"),
        Opt(None, "debug", help="annotate program execution"),
        Opt(
            "e",
            "expression",
            arg="required",
            dest="script",
            multi=True,
            metavar="script",
            help="add the script to the commands to be executed",
        ),
        Opt(
            "f",
            "file",
            arg="required",
            dest="script_file",
            multi=True,
            metavar="script-file",
            help="add the contents of script-file to the commands to be executed",
        ),
        Opt(None, "follow-symlinks", help="follow symlinks when processing in place"),
        Opt(
            "i",
            "in-place",
            arg="optional",
            metavar="SUFFIX",
            help="edit files in place (makes backup if SUFFIX supplied)",
        ),
        Opt(
            "l",
            "line-length",
            arg="required",
            metavar="N",
            help="specify the desired line-wrap length for the `l' command",
        ),
        Opt(None, "posix", help="disable all GNU extensions."),
        Opt("E", "regexp-extended", dest="extended", help="use extended regular expressions in the script"),
        Opt("r", None, dest="extended"),
        Opt(
            "s", "separate", help="consider files as separate rather than as a single continuous long stream."
        ),
        Opt(None, "sandbox", help="operate in sandbox mode (disable e/r/w commands)."),
        Opt(
            "u",
            "unbuffered",
            help="load minimal amounts of data from the input files and flush the output buffers more often",
        ),
        Opt("z", "null-data", help="separate lines by NUL characters"),
        Opt("b", "binary", help="open files in binary mode (no-op)"),
    ),
)

# GNU sed 4.9's usage(): the whole text, on stderr with the status 1 after a usage error (no
# script, a bad option), on stdout for --help (which adds the bug-report line)
USAGE = (
    "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n"
    "\n"
    "  -n, --quiet, --silent\n"
    "                 suppress automatic printing of pattern space\n"
    "      --debug\n"
    "                 annotate program execution\n"
    "  -e script, --expression=script\n"
    "                 add the script to the commands to be executed\n"
    "  -f script-file, --file=script-file\n"
    "                 add the contents of script-file to the commands to be executed\n"
    "  --follow-symlinks\n"
    "                 follow symlinks when processing in place\n"
    "  -i[SUFFIX], --in-place[=SUFFIX]\n"
    "                 edit files in place (makes backup if SUFFIX supplied)\n"
    "  -l N, --line-length=N\n"
    "                 specify the desired line-wrap length for the `l' command\n"
    "  --posix\n"
    "                 disable all GNU extensions.\n"
    "  -E, -r, --regexp-extended\n"
    "                 use extended regular expressions in the script\n"
    "                 (for portability use POSIX -E).\n"
    "  -s, --separate\n"
    "                 consider files as separate rather than as a single,\n"
    "                 continuous long stream.\n"
    "      --sandbox\n"
    "                 operate in sandbox mode (disable e/r/w commands).\n"
    "  -u, --unbuffered\n"
    "                 load minimal amounts of data from the input files and flush\n"
    "                 the output buffers more often\n"
    "  -z, --null-data\n"
    "                 separate lines by NUL characters\n"
    "      --help     display this help and exit\n"
    "      --version  output version information and exit\n"
    "\n"
    "If no -e, --expression, -f, or --file option is given, then the first\n"
    "non-option argument is taken as the sed script to interpret.  All\n"
    "remaining arguments are names of input files; if no input files are\n"
    "specified, then the standard input is read.\n"
    "\n"
    "GNU sed home page: <https://www.gnu.org/software/sed/>.\n"
    "General help using GNU software: <https://www.gnu.org/gethelp/>.\n"
)
_BUG_REPORTS = "E-mail bug reports to: <bug-sed@gnu.org>.\n"
_LEADING_INT = re.compile(r"[ \t\n\v\f\r]*[-+]?[0-9]+")


def _usage(ctx: Ctx) -> str:
    """The usage text, naming sed as it was run (`Usage: /bin/sed ...`)."""
    return USAGE.replace("sed", ctx.help_prog, 1)


# GNU sed's ck_fflush/ck_fwrite: a panic, status 4
WRITE_FAILURE = WriteFailure(
    status=4,
    at_exit="{name}: couldn't flush stdout: {err}\n",
    closed="{name}: couldn't close stdout: {err}\n",
)


@declare("sed", spec=SPEC, effects=Effects.SED, write_failure=WRITE_FAILURE)
def cmd_sed(ctx: Ctx) -> int:
    try:
        p, operands = parse_args(SPEC, ctx.args)
    except UsageError as e:
        ctx.error(e.message)
        ctx.stderr.write(_usage(ctx).encode())
        return 1
    except OptionValueError as e:
        ctx.error(e.message)
        return 1
    except HelpRequested as h:
        ctx.out(h.text if h.text == version_text(SPEC) else _usage(ctx) + _BUG_REPORTS)
        return 0
    pieces: list[Piece] = []
    expr_no = 0
    script_end = ""  # where the script ends, as a run-time error names it (an empty // first)
    for key, value in p.order:
        if key == "script":
            expr_no += 1
            pieces.append(Piece(value, expr_no))
            script_end = f"-e expression #{expr_no}, char 0: "
        elif key == "script_file":
            try:
                text = ctx.read_input(value).decode("utf-8", "surrogateescape")
            except FsError as e:
                ctx.error(f"couldn't open file {value}: {e.message}")
                return 4
            # after the whole script is read, GNU's error position is this file's line count + 1
            script_end = f"file {value} line {text.count(chr(10)) + 1}: "
            if text.endswith("\n") and not text.endswith("\r\n"):
                text = text[:-1]  # (a CRLF file keeps it: an `s` command's flags end at "\r\n")
            pieces.append(Piece(text, 0, value))
    if not pieces:
        if not operands:
            ctx.stderr.write(_usage(ctx).encode())
            return 1
        pieces.append(Piece(operands.pop(0), 1))
        script_end = "-e expression #1, char 0: "
    line_len = 70
    if p.has("line_length"):
        # GNU sed reads it with atoi(): its leading number, 0 (no wrapping) when there is none
        m = _LEADING_INT.match(p["line_length"])
        line_len = int(m.group()) if m else 0
    extended = bool(p.get("extended"))
    posixly_correct = "POSIXLY_CORRECT" in ctx.env
    try:
        parser = Parser(
            pieces,
            extended,
            posix=bool(p.get("posix")),
            budget=ctx.budget,
            sandbox=bool(p.get("sandbox")),
            posixly_correct=posixly_correct,
        )
        cmds = parser.parse()
    except SedError as e:
        ctx.error(e.message)
        return e.status
    quiet = bool(p.get("quiet")) or parser.quiet_hint
    in_place = p.has("in_place")
    suffix = (p.get("in_place") or "") if in_place else ""
    names = operands or ["-"]
    if in_place and not operands:
        ctx.error("no input files")
        return 1 if False else 4
    runner = Runner(
        ctx,
        cmds,
        quiet=quiet,
        sep=b"\0" if p.get("null_data") else b"\n",
        separate=bool(p.get("separate")),
        in_place=in_place,
        follow_symlinks=bool(p.get("follow_symlinks")),
        suffix=suffix,
        line_len=line_len,
        posix=bool(p.get("posix")) or posixly_correct,  # (N at the end quits without printing)
        unbuffered=bool(p.get("unbuffered")),
        sandbox=bool(p.get("sandbox")),
        script_end=script_end,
    )
    try:
        return runner.run(names)
    except SedError as e:
        ctx.error(e.message)
        raise CommandExit(e.status) from None
