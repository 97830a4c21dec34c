"""nl: number lines, with logical pages (header/body/footer sections)."""

from __future__ import annotations

from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from .common import Out, encode, quote, split_records

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

NL_SPEC = CommandSpec(
    name="nl",
    summary="Write each FILE to standard output, with line numbers added.",
    opts=(
        Opt(
            "b", "body-numbering", arg="required", metavar="STYLE", help="use STYLE for numbering body lines"
        ),
        Opt(
            "d", "section-delimiter", arg="required", metavar="CC", help="use CC for logical page delimiters"
        ),
        Opt(
            "f",
            "footer-numbering",
            arg="required",
            metavar="STYLE",
            help="use STYLE for numbering footer lines",
        ),
        Opt(
            "h",
            "header-numbering",
            arg="required",
            metavar="STYLE",
            help="use STYLE for numbering header lines",
        ),
        Opt(
            "i", "line-increment", arg="required", metavar="NUMBER", help="line number increment at each line"
        ),
        Opt(
            "l",
            "join-blank-lines",
            arg="required",
            metavar="NUMBER",
            help="group of NUMBER empty lines counted as one",
        ),
        Opt(
            "n",
            "number-format",
            arg="required",
            metavar="FORMAT",
            help="insert line numbers according to FORMAT",
        ),
        Opt("p", "no-renumber", help="do not reset line numbers for each section"),
        Opt(
            "s",
            "number-separator",
            arg="required",
            metavar="STRING",
            help="add STRING after (possible) line number",
        ),
        Opt(
            "v",
            "starting-line-number",
            arg="required",
            metavar="NUMBER",
            help="first line number for each section",
        ),
        Opt(
            "w", "number-width", arg="required", metavar="NUMBER", help="use NUMBER columns for line numbers"
        ),
    ),
)

_SECTION_NAMES = {"body_numbering": "body", "header_numbering": "header", "footer_numbering": "footer"}


class _Refused(Exception):
    """A style or format GNU's option loop reports and goes on from (the usage error comes after
    the loop); the numbers and a bad regular expression end it at once."""


class _Style:
    """One numbering style: a (all), t (non-empty), n (none) or pBRE (matching lines)."""

    def __init__(self, ctx: Ctx, key: str, text: str) -> None:
        self.kind = text[:1]
        self.regex: Any = None
        if text in ("a", "t", "n"):
            return
        if self.kind == "p":
            from ...regex import RegexError, compile_regex

            try:
                self.regex = compile_regex(text[1:], flavor="bre")
            except RegexError as e:
                raise _fail(ctx, str(e))
            return
        raise _Refused(f"invalid {_SECTION_NAMES[key]} numbering style: {quote(ctx, text)}")

    def numbers(self, line: bytes) -> bool:
        if self.kind == "a":
            return True
        if self.kind == "t":
            return bool(line)
        if self.kind == "p":
            return self.regex.search(line) is not None
        return False


class _State:
    __slots__ = ("blanks", "line", "style")

    def __init__(self, style: _Style, line: int) -> None:
        self.style = style
        self.line = line
        self.blanks = 0


def _fail(ctx: Ctx, message: str) -> CommandExit:
    ctx.error(message)
    return CommandExit(1)


def _int_opt(ctx: Ctx, text: str, what: str, minimum: int, maximum: int = 2**63 - 1) -> int:
    try:
        value = int(text.strip(), 10)
    except ValueError:
        raise _fail(ctx, f"invalid {what}: {quote(ctx, text)}")
    if value > maximum or value < -(2**63):
        raise _fail(ctx, f"invalid {what}: {quote(ctx, text)}: Value too large for defined data type")
    if value < minimum:
        raise _fail(ctx, f"invalid {what}: {quote(ctx, text)}: Numerical result out of range")
    return value


def _number_format(ctx: Ctx, text: str) -> str:
    if text not in ("ln", "rn", "rz"):
        raise _Refused(f"invalid line numbering format: {quote(ctx, text)}")
    return text


@declare("nl", spec=NL_SPEC, effects=Effects.READS, stdin_close="-")
def cmd_nl(ctx: Ctx) -> int:
    opts, files = ctx.parse(NL_SPEC)
    # GNU's option loop checks each value where it stands: the first bad one is reported
    most_width = min(2**31 - 1, ctx.limits.max_string_length)  # (GNU: INT_MAX; here the string limit too)
    checks: dict[str, Callable[[str], object]] = {
        "header_numbering": lambda v: _Style(ctx, "header_numbering", v),
        "body_numbering": lambda v: _Style(ctx, "body_numbering", v),
        "footer_numbering": lambda v: _Style(ctx, "footer_numbering", v),
        "number_format": lambda v: _number_format(ctx, v),
        "number_width": lambda v: _int_opt(ctx, v, "line number field width", 1, most_width),
        "line_increment": lambda v: _int_opt(ctx, v, "line number increment", -(2**63)),
        "starting_line_number": lambda v: _int_opt(ctx, v, "starting line number", -(2**63)),
        "join_blank_lines": lambda v: _int_opt(ctx, v, "line number of blank lines", 1),
    }
    given: dict[str, Any] = {}
    refused = False
    for key, value in opts.order:
        if key in checks:
            try:
                given[key] = checks[key](value)
            except _Refused as e:
                ctx.error(str(e))
                refused = True
    if refused:
        raise ctx.try_help()
    styles = {
        key: given[key] if key in given else _Style(ctx, key, default)
        for key, default in (("header_numbering", "n"), ("body_numbering", "t"), ("footer_numbering", "n"))
    }
    fmt = given.get("number_format", "rn")
    width = given.get("number_width", 6)
    incr = given.get("line_increment", 1)
    start = given.get("starting_line_number", 1)
    join = given.get("join_blank_lines", 1)
    sep = encode(opts.get("number_separator", "\t"))
    delim = encode(opts.get("section_delimiter", "\\:"))
    if len(delim) == 1:
        delim += b":"  # GNU: a single character means that character followed by ':'
    renumber = not opts.get("no_renumber")
    markers = (
        {delim * 3: "header_numbering", delim * 2: "body_numbering", delim: "footer_numbering"}
        if delim
        else {}
    )
    blank_prefix = b" " * width + b" " * len(sep)
    state = _State(styles["body_numbering"], start)
    out = Out(ctx.stdout)

    def number(n: int) -> bytes:
        if fmt == "ln":
            text = f"{n:<{width}}"
        elif fmt == "rz":
            text = f"{n:0{width}d}" if n >= 0 else "-" + f"{-n:0{width - 1}d}"
        else:
            text = f"{n:>{width}}"
        return text.encode() + sep

    def handle(line: bytes, terminated: bool) -> None:  # GNU ends every line, even the last
        section = markers.get(line)
        if section is not None:
            state.style = styles[section]
            if renumber:
                state.line = start
            state.blanks = 0
            out.write(b"\n")
            return
        style = state.style
        numbered = style.numbers(line)
        if numbered and style.kind == "a" and not line and join > 1:
            state.blanks += 1
            if state.blanks < join:
                numbered = False
            else:
                state.blanks = 0
        elif line:
            state.blanks = 0
        if numbered:
            out.write(number(state.line))
            state.line += incr
        else:
            out.write(blank_prefix)
        out.write(line + (b"\n" if terminated else b""))

    pattern = {"ln": b"%-*d", "rz": b"%0*d"}.get(fmt, b"%*d") + sep.replace(b"%", b"%%") + b"%s\n"
    plain = blank_prefix + b"%s\n"

    def batch(lines: list[bytes]) -> bool:
        """A batch without section markers under `t`, `n`, or `a` without -l: numbered in one
        comprehension per batch (the same text as handle's, line by line)."""
        style = state.style
        kind = style.kind
        if kind == "p" or (kind == "a" and join > 1) or (markers and not markers.keys().isdisjoint(lines)):
            return False
        n = state.line
        if kind == "n":
            out.write(b"".join([plain % line for line in lines]))
            return True
        parts: list[bytes] = []
        append = parts.append
        for line in lines:
            if line or kind == "a":
                append(pattern % (width, n, line))
                n += incr
            else:
                append(plain % line)
        state.line = n  # (blanks count only under `a` with -l, which goes line by line)
        out.write(b"".join(parts))
        return True

    inputs = ctx.inputs(files, read_error="{name}: {err}", flush=out.flush)
    for _name, stream in inputs:
        with inputs.reading():
            for lines, _tail in split_records(ctx, stream):
                if not batch(lines):
                    for line in lines:
                        handle(line, True)
    out.flush()
    return inputs.status
