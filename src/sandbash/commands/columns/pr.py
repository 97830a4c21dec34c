"""pr: paginate or columnate files as GNU pr (coreutils 9.1) does; the page machine is pr_engine."""

from __future__ import annotations

import re

from ...stdio.streams import StreamReadError
from ...vfs import FsError
from ...vfs.base import NS, seconds_to_ns
from ..context import Ctx
from ..options import CommandSpec, Opt, Parsed
from ..record import Effects, declare
from ..textbasic.common import Out, fail, file_error, hard_locale, quote, usage_fail
from .pr_engine import Col, Fatal, Machine, Settings, Src

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_DIGITS = tuple(Opt(d, None, dest="digit", const=d) for d in "0123456789")

PR_SPEC = CommandSpec(
    name="pr",
    usage="[OPTION]... [FILE]...",
    summary="Paginate or columnate FILE(s) for printing.",
    opts=(
        *_DIGITS,
        Opt(
            None,
            "pages",
            arg="required",
            metavar="FIRST_PAGE[:LAST_PAGE]",
            help="begin [stop] printing with page FIRST_[LAST_]PAGE",
        ),
        Opt(None, "columns", arg="required", metavar="COLUMN", help="output COLUMN columns"),
        Opt("a", "across", help="print columns across rather than down"),
        Opt("b", None, dest="balance"),
        Opt("c", "show-control-chars", help="use hat notation (^G) and octal backslash notation"),
        Opt("d", "double-space", help="double space the output"),
        Opt("D", "date-format", arg="required", metavar="FORMAT", help="use FORMAT for the header date"),
        Opt(
            "e",
            "expand-tabs",
            arg="optional",
            metavar="[CHAR[WIDTH]]",
            help="expand input CHARs (TABs) to tab WIDTH (8)",
        ),
        Opt("F", "form-feed", dest="form_feed", help="use form feeds instead of newlines to separate pages"),
        Opt("f", None, dest="form_feed"),
        Opt(
            "h", "header", arg="required", metavar="HEADER", help="use a centered HEADER instead of filename"
        ),
        Opt(
            "i",
            "output-tabs",
            arg="optional",
            metavar="[CHAR[WIDTH]]",
            help="replace spaces with CHARs (TABs) to tab WIDTH (8)",
        ),
        Opt("J", "join-lines", help="merge full lines, turn off -W line truncation"),
        Opt("l", "length", arg="required", metavar="PAGE_LENGTH", help="set the page length (default 66)"),
        Opt("m", "merge", help="print all files in parallel, one in each column"),
        Opt("n", "number-lines", arg="optional", metavar="[SEP[DIGITS]]", help="number lines"),
        Opt("N", "first-line-number", arg="required", metavar="NUMBER", help="start counting with NUMBER"),
        Opt("o", "indent", arg="required", metavar="MARGIN", help="offset each line with MARGIN spaces"),
        Opt("r", "no-file-warnings", help="omit warning when a file cannot be opened"),
        Opt("s", "separator", arg="optional", metavar="CHAR", help="separate columns by a single character"),
        Opt("S", "sep-string", arg="optional", metavar="STRING", help="separate columns by STRING"),
        Opt("t", "omit-header", help="omit page headers and trailers"),
        Opt("T", "omit-pagination", help="omit page headers and trailers, eliminate form feeds"),
        Opt("v", "show-nonprinting", help="use octal backslash notation"),
        Opt("w", "width", arg="required", metavar="PAGE_WIDTH", help="set page width (default 72)"),
        Opt("W", "page-width", arg="required", metavar="PAGE_WIDTH", help="set page width always"),
    ),
)

INT_MAX = 2**31 - 1
_COL_BYTES = 200  # what one column's state costs here
INT_MIN = -(2**31)
_NUMBER = re.compile(r"[ \t\n\v\f\r]*([-+]?)([0-9]+)")


def _int_option(ctx: Ctx, text: str, low: int, what: str) -> int:
    """getoptnum: a decimal int from `low` to INT_MAX; GNU's three messages."""
    m = _NUMBER.match(text)
    if m is None or m.end() != len(text):
        raise fail(ctx, f"{what}: {quote(ctx, text)}")
    value = int(m.group(1) + m.group(2))
    if not INT_MIN <= value <= INT_MAX:
        raise fail(ctx, f"{what}: {quote(ctx, text)}: Value too large for defined data type")
    if value < low:
        raise fail(ctx, f"{what}: {quote(ctx, text)}: Numerical result out of range")
    return value


def _char_and_width(ctx: Ctx, letter: str, text: str | None, char: int, width: int) -> tuple[int, int]:
    """-e/-i/-n's `[CHAR[WIDTH]]` over the current (char, width): a leading non-digit is the
    character, the rest a width > 0 (getoptarg)."""
    if text is None:
        return char, width
    raw = text.encode("utf-8", "surrogateescape")
    if raw and not 0x30 <= raw[0] <= 0x39:
        char, raw = raw[0], raw[1:]
    if not raw:
        return char, width
    rest = raw.decode("utf-8", "surrogateescape")
    m = _NUMBER.match(rest)
    why = ""
    if m is None or m.end() != len(rest):
        bad = True
    else:
        value = int(m.group(1) + m.group(2))
        bad = value <= 0 or value > INT_MAX
        if value > 2**63 - 1 or value > INT_MAX:
            why = ": Value too large for defined data type"
    if bad:
        raise usage_fail(
            ctx, f"'-{letter}' extra characters or invalid number in the argument: {quote(ctx, rest)}{why}"
        )
    return char, value


def _page_range(ctx: Ctx, text: str, option: str) -> tuple[int, int] | None:
    """+FIRST[:LAST] / --pages: None when it is no range (xstrtoumax's fatal cases die here)."""

    def number(part: str) -> tuple[int | None, str, str]:
        m = re.match(r"[ \t\n\v\f\r]*([0-9]+)", part)
        if m is None or part.lstrip().startswith("-"):
            return None, part, "invalid"
        value = int(m.group(1))
        rest = part[m.end() :]
        if value >= 2**64:
            return value, rest, "suffix" if rest else "large"
        return value, rest, "suffix" if rest else ""

    def die(kind: str) -> None:
        if kind == "invalid":
            raise fail(ctx, f"invalid {option} argument '{text}'")
        if kind == "large":
            raise fail(ctx, f"{option} argument '{text}' too large")
        raise fail(ctx, f"invalid suffix in {option} argument '{text}'")

    first, rest, err = number(text)
    if err and not (err == "suffix" and first is not None and first < 2**64):
        die(err)
    if not first:
        return None
    last = 0
    if rest[:1] == ":":
        value, rest, err = number(rest[1:])
        if err:
            die(err)
        assert value is not None
        if value < first:
            return None
        last = min(value, 2**64 - 1)
    if rest:
        return None
    return first, last


def _settings(ctx: Ctx, opts: Parsed, operands: list[str]) -> tuple[Settings, list[str]]:
    """Read the options in their order (pr.c's main loop); the files left among the operands."""
    s = Settings()
    old_options = old_w = old_s = False
    digits: str | None = None  # -NUM's digits (getopt returns them one by one)
    restart = False  # a later digit starts the number again (pr.c resets its count, not its text)
    files: list[str] = []
    at = opts.operand_at
    k = 0
    before_dashdash = len(operands) if opts.dashdash is None else opts.dashdash

    def take_operands(upto: int) -> None:
        nonlocal k
        while k < len(operands) and (at[k] if k < len(at) else len(opts.order)) <= upto:
            word = operands[k]
            if k < before_dashdash and s.first_page == 0 and word[:1] == "+":
                got = _page_range(ctx, word[1:], "+")
                if got is not None:
                    s.first_page, s.last_page = got
                    k += 1
                    continue
            files.append(word)
            k += 1

    for index, (key, value) in enumerate(opts.order):
        take_operands(index)
        if key == "digit":
            digits = value if digits is None or restart else digits + value
            restart = False
            continue
        restart = True
        if key == "pages":
            got = _page_range(ctx, value, "--pages")
            if got is None:
                raise fail(ctx, f"invalid page range {quote(ctx, value)}")
            s.first_page, s.last_page = got
        elif key == "columns":
            s.columns = _int_option(ctx, value, 1, "invalid number of columns")
            s.explicit_columns = True
            digits = None  # --columns overrides an earlier -NUM
        elif key == "across":
            s.across = True
            s.storing = False
        elif key == "balance":
            s.balance = True
        elif key == "show_control_chars":
            s.cntrl_prefix = True
        elif key == "double_space":
            s.double_space = True
        elif key == "date_format":
            s.date_format = value
        elif key == "expand_tabs":
            s.input_tab_char, s.input_tab = _char_and_width(ctx, "e", value, s.input_tab_char, s.input_tab)
            s.untabify = True
        elif key == "form_feed":
            s.form_feed = True
        elif key == "header":
            s.custom_header = value
        elif key == "output_tabs":
            s.output_tab_char, s.output_tab = _char_and_width(
                ctx, "i", value, s.output_tab_char, s.output_tab
            )
            s.tabify = True
        elif key == "join_lines":
            s.join_lines = True
        elif key == "length":
            s.lines_per_page = _int_option(ctx, value, 1, "'-l PAGE_LENGTH' invalid number of lines")
        elif key == "merge":
            s.parallel = True
            s.storing = False
        elif key == "number_lines":
            s.numbered = True
            s.number_separator, s.chars_per_number = _char_and_width(
                ctx, "n", value, s.number_separator, s.chars_per_number
            )
        elif key == "first_line_number":
            s.skip_count = False
            s.start_line_num = _int_option(ctx, value, INT_MIN, "'-N NUMBER' invalid starting line number")
        elif key == "indent":
            s.margin = _int_option(ctx, value, 0, "'-o MARGIN' invalid line offset")
        elif key == "no_file_warnings":
            s.ignore_failed_opens = True
        elif key == "separator":
            old_options = old_s = True
            if not s.use_col_separator and value is not None:
                s.col_sep = value.encode("utf-8", "surrogateescape")
        elif key == "sep_string":
            old_s = False
            s.col_sep = b"" if value is None else value.encode("utf-8", "surrogateescape")
            s.use_col_separator = True
        elif key == "omit_header":
            s.extremities = False
            s.keep_ff = True
        elif key == "omit_pagination":
            s.extremities = False
            s.keep_ff = False
        elif key == "show_nonprinting":
            s.esc_sequence = True
        elif key == "width":
            old_options = old_w = True
            width = _int_option(ctx, value, 1, "'-w PAGE_WIDTH' invalid number of characters")
            if not s.truncate:
                s.chars_per_line = width
        elif key == "page_width":
            old_w = False
            s.truncate = True
            s.chars_per_line = _int_option(ctx, value, 1, "'-W PAGE_WIDTH' invalid number of characters")
    take_operands(len(opts.order))
    if digits is not None:
        s.columns = _int_option(ctx, digits, 1, "invalid number of columns")
        s.explicit_columns = True
    _old_options(s, old_options, old_w, old_s)
    if s.parallel and s.explicit_columns:
        raise fail(ctx, "cannot specify number of columns when printing in parallel")
    if s.parallel and s.across:
        raise fail(ctx, "cannot specify both printing across and printing in parallel")
    return s, files


def _old_options(s: Settings, old_options: bool, old_w: bool, old_s: bool) -> None:
    """The old -w/-s meanings GNU keeps for other systems' pr."""
    if not old_options:
        return
    if old_w:
        if s.parallel or s.explicit_columns:
            s.truncate = True
            if old_s:  # -s with -w: no separator (HP-UX, SunOS)
                s.use_col_separator = True
        else:  # -w alone sets the width of joined lines only
            s.join_lines = True
    elif not s.use_col_separator and old_s and (s.parallel or s.explicit_columns):
        if not s.truncate:
            s.join_lines = True
            if s.col_sep:
                s.use_col_separator = True
        else:
            s.use_col_separator = True


@declare("pr", spec=PR_SPEC, effects=Effects.READS)
def cmd_pr(ctx: Ctx) -> int:
    opts, operands = ctx.parse(PR_SPEC)
    s, files = _settings(ctx, opts, operands)
    if s.date_format is None:
        posix = "POSIXLY_CORRECT" in ctx.env and not hard_locale(ctx)
        s.date_format = "%b %e %H:%M %Y" if posix else "%Y-%m-%d %H:%M"
    if s.first_page == 0:
        s.first_page = 1
    out = Out(ctx.stdout)

    def write(data: bytes) -> None:  # the machine buffers; a message may follow any piece
        out.write(data)
        out.flush()

    def warn(message: str) -> None:
        m.flush()
        ctx.error(message)

    m = Machine(s, write, warn, ctx.checkpoint)
    try:
        with ctx.hold_memory() as mem:
            run = _Run(ctx, m, mem.charge)
            _print_all(run, files)
    except Fatal as e:
        m.flush()
        file_error(ctx, e.name, e.error)
        return 1
    except ValueError as e:  # the page-width check
        m.flush()
        raise fail(ctx, str(e)) from None
    m.flush()
    return 1 if run.failed_opens else 0


def _print_all(run: _Run, files: list[str]) -> None:
    """Each file on its own pages, or all of them side by side (-m); none: standard input."""
    s = run.m.s
    if not files:
        run.print_files([])
    elif s.parallel:
        run.print_files(files)
    else:
        for name in files:
            run.print_files([name])


class _Run:
    """Opening files and dating headers for the machine (pr.c's print_files, init_fps, open_file)."""

    def __init__(self, ctx: Ctx, m: Machine, charge: Callable[[int], None]) -> None:
        self.ctx = ctx
        self.m = m
        self.charge = charge  # columns are objects: `-S -W 2000000000 -99999999` charges them first
        self.failed_opens = False
        self.stdin: Src | None = None
        self.now: int | None = None  # nanoseconds, read once for every page

    def open(self, name: str) -> Col | None:
        ctx = self.ctx
        if name == "-":
            return Col(self.stdin_src(), "standard input")
        try:
            stream = ctx.open_in(name)
        except FsError as e:
            if e.errno == 21:  # a directory opens; reading it fails
                return Col(Src(b"", e), name)
            self.failed_opens = True
            if not self.m.s.ignore_failed_opens:
                self.m.flush()
                file_error(ctx, name, e)
            return None
        try:
            data = ctx.read_all(stream)
        except (FsError, StreamReadError) as e:
            return Col(Src(b"", e), name)
        finally:
            if stream is not ctx.stdin:
                stream.close()
        return Col(Src(data), name)

    def stdin_src(self) -> Src:
        if self.stdin is None:
            try:
                self.stdin = Src(self.ctx.read_all(self.ctx.stdin))
            except (FsError, StreamReadError) as e:  # (`pr < dir`)
                self.stdin = Src(b"", e)
        return self.stdin

    def date(self, name: str) -> bytes:
        from ...posix.zones import local_zone
        from ..date.fmt import FormatTooLong, Moment, format_moment

        ctx = self.ctx
        when: int | None = None  # nanoseconds
        if name and name != "-":
            st = ctx.fs.try_stat(name)
            if st is not None:
                when = st.mtime_ns
        if when is None:
            if self.now is None:
                self.now = seconds_to_ns(ctx.clock())
            when = self.now
        seconds, nanos = divmod(when, NS)
        fmt = self.m.s.date_format or ""
        try:
            text = format_moment(
                fmt, Moment(seconds, nanos, local_zone(ctx.env)), ctx.limits.max_string_length
            )
        except FormatTooLong as e:  # `-D %999999999Y`: the sandbox's string limit, as date says it
            what = quote(ctx, e.directive) if e.directive is not None else ""
            raise fail(ctx, f"field width too large: {what}" if what else "output too long") from None
        except (OverflowError, ValueError, OSError):  # no local time for it: seconds.nanoseconds
            text = f"{seconds}.{nanos:09d}"
        return text.encode("utf-8", "surrogateescape")

    def print_files(self, names: list[str]) -> None:
        m, s = self.m, self.m.s
        m.init_parameters(len(names))
        header = None if s.custom_header is None else s.custom_header.encode("utf-8", "surrogateescape")
        cols: list[Col] = []
        if s.parallel:
            for name in names:
                col = self.open(name)
                if col is not None:
                    cols.append(col)
            if not cols:
                return
            s.columns = len(cols)
            m.init_header(b"" if header is None else header, self.date(""))
        else:
            if names:
                first = self.open(names[0])
                if first is None:
                    return
                shown = b"" if names[0] == "-" else names[0].encode("utf-8", "surrogateescape")
                m.init_header(shown if header is None else header, self.date(names[0]))
            else:
                first = Col(self.stdin_src(), "standard input")
                m.init_header(b"" if header is None else header, self.date(""))
            cols.append(first)
            self.charge(s.columns * _COL_BYTES)
            for _ in range(s.columns - 1):
                cols.append(Col(first.src, first.name))
        m.cols = cols
        m.files_ready = len(cols) if s.parallel else 1
        m.run()
