"""getopt (util-linux): parse a script's options the way glibc's getopt_long does, and print them
normalised and quoted for `eval set -- "$(getopt ...)"`."""

from __future__ import annotations

from collections.abc import Callable

from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare

SPEC = CommandSpec(
    name="getopt",
    usage="optstring parameters\n  or:  getopt [options] [--] optstring parameters\n"
    "  or:  getopt [options] -o|--options optstring [options] [--] parameters",
    summary="Parse command options.",
    stop_at_operand=True,
    usage_status=2,
    opts=(
        Opt("a", "alternative", help="allow long options starting with single -"),
        Opt(
            "l",
            "longoptions",
            arg="required",
            multi=True,
            metavar="longopts",
            help="the long options to be recognized",
        ),
        Opt("n", "name", arg="required", metavar="progname", help="the name under which errors are reported"),
        Opt("o", "options", arg="required", metavar="optstring", help="the short options to be recognized"),
        Opt("q", "quiet", help="disable error reporting by getopt(3)"),
        Opt("Q", "quiet-output", help="no normal output"),
        Opt(
            "s", "shell", arg="required", metavar="shell", help="set quoting conventions to those of <shell>"
        ),
        Opt("T", "test", help="test for getopt(1) version"),
        Opt("u", "unquoted", help="do not quote the output"),
    ),
)


class _Parser:
    """glibc getopt_long(_only) over `params`: the options found (as output words), the operands,
    and whether any was in error."""

    def __init__(
        self, shorts: str, longs: dict[str, str], long_only: bool, report: Callable[[str], None]
    ) -> None:
        self.mode = shorts[:1] if shorts[:1] in "+-" else ""
        shorts = shorts[1:] if self.mode else shorts
        self.quiet = shorts[:1] == ":"
        self.shorts = shorts
        self.longs = longs  # name -> '', ':' or '::'
        self.long_only = long_only
        self.report = report
        self.failed = False

    def short_arg(self, c: str) -> str | None:
        """'' (no value), ':' or '::' for a short option; None when it is not one."""
        i = self.shorts.find(c)
        if c in ":;" or i < 0:
            return None
        rest = self.shorts[i + 1 : i + 3]
        return "::" if rest == "::" else (":" if rest[:1] == ":" else "")

    def error(self, message: str) -> None:
        self.failed = True
        if not self.quiet:
            self.report(message)

    def run(self, params: list[str]) -> tuple[list[tuple[str, str | None]], list[str], list[int]]:
        opts: list[tuple[str, str | None]] = []
        operands: list[str] = []
        in_place: list[int] = []  # (mode '-': where each operand stands among the options)
        i = 0
        while i < len(params):
            word = params[i]
            i += 1
            if word == "--":
                operands.extend(params[i:])
                break
            if word[:1] != "-" or word == "-":
                if self.mode == "+":
                    operands.extend(params[i - 1 :])
                    break
                if self.mode == "-":
                    in_place.append(len(opts))
                    opts.append(("", word))
                    continue
                operands.append(word)
                continue
            single = word[1:2] != "-"
            if not single or (self.long_only and (len(word) > 2 or self.short_arg(word[1]) is None)):
                taken = self.long(word, single, params, i)
                if taken is not None:
                    i = taken[1]
                    if taken[0] is not None:
                        opts.append(taken[0])
                    continue
            i = self.cluster(word, params, i, opts)
        return opts, operands, in_place

    def long(
        self, word: str, single: bool, params: list[str], i: int
    ) -> tuple[tuple[str, str | None] | None, int] | None:
        """A long option word: (the option or None after an error, the next index); None: with
        -a, a single-dash word no long option matches, to be read as short options."""
        dash = "-" if single else "--"
        body = word[len(dash) :]
        name, eq, value = body.partition("=")
        if name in self.longs:
            found = [name]
        else:
            found = [n for n in self.longs if n.startswith(name)]
        if not found:
            if single and self.short_arg(word[1]) is not None:
                return None
            self.error(f"unrecognized option '{dash}{name if not eq else body}'")
            return None, i
        if len(found) > 1:
            shown = " ".join(f"'{dash}{n}'" for n in found)
            self.error(f"option '{dash}{name}' is ambiguous; possibilities: {shown}")
            return None, i
        full = found[0]
        kind = self.longs[full]
        if not kind and eq:
            self.error(f"option '{dash}{full}' doesn't allow an argument")
            return None, i
        if kind == ":" and not eq:
            if i >= len(params):
                self.error(f"option '{dash}{full}' requires an argument")
                return None, i
            return ("--" + full, params[i]), i + 1
        return ("--" + full, value if eq else ("" if kind else None)), i

    def cluster(self, word: str, params: list[str], i: int, opts: list[tuple[str, str | None]]) -> int:
        """`-abc`: short options one after another; a value option takes the rest or the next word."""
        k = 1
        while k < len(word):
            c = word[k]
            k += 1
            kind = self.short_arg(c)
            if kind is None:
                self.error(f"invalid option -- '{c}'")
                continue
            if not kind:
                opts.append(("-" + c, None))
                continue
            if k < len(word):
                opts.append(("-" + c, word[k:]))
            elif kind == "::":
                opts.append(("-" + c, ""))
            elif i < len(params):
                opts.append(("-" + c, params[i]))
                i += 1
            else:
                self.error(f"option requires an argument -- '{c}'")
            return i
        return i


def _quoter(shell: str, quoted: bool) -> Callable[[str], str]:
    def plain(s: str) -> str:
        return s

    def sh(s: str) -> str:
        return "'" + s.replace("'", "'\\''") + "'"

    def csh(s: str) -> str:
        return sh(s).replace("!", "\\!").replace("\n", "\\\n")

    if not quoted:
        return plain
    return csh if shell in ("csh", "tcsh") else sh


def _longs(specs: list[str]) -> dict[str, str]:
    longs: dict[str, str] = {}
    for spec in specs:
        for item in spec.replace(",", " ").split():
            name = item.rstrip(":")
            if name:
                longs[name] = item[len(name) :][:2]
    return longs


@declare("getopt", spec=SPEC, effects=Effects.NONE)
def cmd_getopt(ctx: Ctx) -> int:
    args = ctx.args
    quoted = True
    if args and args[0][:1] != "-":  # getopt optstring parameters: the old form, unquoted
        opts_, rest = ctx.parse(SPEC, [])
        quoted = False
        rest = list(args)
    else:
        opts_, rest = ctx.parse(SPEC)
    if opts_.has("test"):
        return 4
    shell = opts_.get("shell", "bash")
    if shell not in ("sh", "bash", "csh", "tcsh"):
        ctx.error("unknown shell after -s or --shell argument")
        ctx.stderr.write(b"Try 'getopt --help' for more information.\n")
        return 2
    shorts = opts_.get("options")
    if shorts is None:
        if not rest:
            ctx.error("missing optstring argument")
            ctx.stderr.write(b"Try 'getopt --help' for more information.\n")
            return 2
        shorts, rest = rest[0], rest[1:]
    name = opts_.get("name", "getopt")

    def report(message: str) -> None:
        ctx.stderr.write(f"{name}: {message}\n".encode("utf-8", "surrogateescape"))

    parser = _Parser(shorts, _longs(opts_.get("longoptions", [])), opts_.has("alternative"), report)
    if opts_.has("quiet"):
        parser.quiet = True
    found, operands, in_place = parser.run(rest)
    if opts_.has("quiet_output"):
        return 1 if parser.failed else 0
    quote = _quoter(shell, quoted and not opts_.has("unquoted"))
    words: list[str] = []
    for k, (opt, value) in enumerate(found):
        if k in in_place and not opt:
            words.append(quote(value or ""))
            continue
        words.append(opt)
        if value is not None:
            words.append(quote(value))
    words.append("--")
    words.extend(quote(w) for w in operands)
    ctx.out(" " + " ".join(words) + "\n")
    if parser.failed:
        raise CommandExit(1)
    return 0
