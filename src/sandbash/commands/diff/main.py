"""diff: compare files line by line, or directories (GNU diffutils 3.8)."""

from __future__ import annotations

import re
from collections.abc import Callable

from ...stdio.streams import DirStream, StreamReadError
from ...vfs.base import NS, seconds_to_ns
from ...vfs.errors import FsError, strerror
from ..context import CommandExit, Ctx, _dev_fd
from ..fsutil import same_file
from ..options import CommandSpec, Opt, Parsed
from ..record import STDOUT_STATUS_2, Effects, declare
from ..textbasic.common import Out, encode, hard_locale, local_time, shell_quote
from .engine import Hunk, diff_lines
from .ifdef import CHANGED, NEW, OLD, UNCHANGED, complete_formats, ifdef, ifdef_formats, rcs
from .output import Style, context, ed_script, normal, side_by_side, unified
from .util import c_name, parse, usage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass, field

DIFF_SPEC = CommandSpec(
    name="diff",
    usage="[OPTION]... FILES",
    summary="Compare FILES line by line.",
    usage_status=2,
    opts=(
        Opt(None, "normal", help="output a normal diff (the default)"),
        Opt("q", "brief", help="report only when files differ"),
        Opt("s", "report-identical-files", help="report when two files are the same"),
        Opt("c", None, dest="context_default", help="output 3 lines of copied context"),
        Opt("C", "context", arg="required", metavar="NUM", help="output NUM lines of copied context"),
        Opt("u", None, dest="unified_default", help="output 3 lines of unified context"),
        Opt("U", "unified", arg="required", metavar="NUM", help="output NUM lines of unified context"),
        Opt("e", "ed", help="output an ed script"),
        Opt("n", "rcs", help="output an RCS format diff"),
        Opt("y", "side-by-side", help="output in two columns"),
        Opt("W", "width", arg="required", metavar="NUM", help="output at most NUM print columns"),
        Opt(None, "left-column", help="output only the left column of common lines"),
        Opt(None, "suppress-common-lines", help="do not output common lines"),
        Opt("p", "show-c-function", help="show which C function each change is in"),
        Opt(
            "F",
            "show-function-line",
            arg="required",
            metavar="RE",
            help="show the most recent line matching RE",
        ),
        Opt(
            None, "label", arg="required", multi=True, metavar="LABEL", help="use LABEL instead of file name"
        ),
        Opt("t", "expand-tabs", help="expand tabs to spaces in output"),
        Opt("T", "initial-tab", help="make tabs line up by prepending a tab"),
        Opt(None, "tabsize", arg="required", metavar="NUM", help="tab stops every NUM print columns"),
        Opt(None, "suppress-blank-empty", help="suppress space or tab before empty output lines"),
        Opt("l", "paginate", help="pass output through 'pr' to paginate it"),
        Opt("r", "recursive", help="recursively compare any subdirectories found"),
        Opt(None, "no-dereference", help="don't follow symbolic links"),
        Opt("N", "new-file", help="treat absent files as empty"),
        Opt(None, "unidirectional-new-file", help="treat absent first files as empty"),
        Opt(None, "ignore-file-name-case", help="ignore case when comparing file names"),
        Opt(None, "no-ignore-file-name-case", help="consider case when comparing file names"),
        Opt("x", "exclude", arg="required", multi=True, metavar="PAT", help="exclude files that match PAT"),
        Opt(
            "X",
            "exclude-from",
            arg="required",
            multi=True,
            metavar="FILE",
            help="exclude files matching a pattern in FILE",
        ),
        Opt(
            "S",
            "starting-file",
            arg="required",
            metavar="FILE",
            help="start with FILE when comparing directories",
        ),
        Opt(None, "from-file", arg="required", metavar="FILE1", help="compare FILE1 to all operands"),
        Opt(None, "to-file", arg="required", metavar="FILE2", help="compare all operands to FILE2"),
        Opt("i", "ignore-case", help="ignore case differences in file contents"),
        Opt("E", "ignore-tab-expansion", help="ignore changes due to tab expansion"),
        Opt("Z", "ignore-trailing-space", help="ignore white space at line end"),
        Opt("b", "ignore-space-change", help="ignore changes in the amount of white space"),
        Opt("w", "ignore-all-space", help="ignore all white space"),
        Opt("B", "ignore-blank-lines", help="ignore changes where lines are all blank"),
        Opt(
            "I",
            "ignore-matching-lines",
            arg="required",
            multi=True,
            metavar="RE",
            help="ignore changes where all lines match RE",
        ),
        Opt("a", "text", help="treat all files as text"),
        Opt(None, "strip-trailing-cr", help="strip trailing carriage return on input"),
        Opt("D", "ifdef", arg="required", metavar="NAME", help="output merged file with '#ifdef NAME' diffs"),
        Opt(None, "old-group-format", arg="required", metavar="GFMT", help="format a group of deleted lines"),
        Opt(None, "new-group-format", arg="required", metavar="GFMT", help="format a group of added lines"),
        Opt(
            None,
            "changed-group-format",
            arg="required",
            metavar="GFMT",
            help="format a group of changed lines",
        ),
        Opt(
            None,
            "unchanged-group-format",
            arg="required",
            metavar="GFMT",
            help="format a group of same lines",
        ),
        Opt(None, "line-format", arg="required", metavar="LFMT", help="format all input lines with LFMT"),
        Opt(None, "old-line-format", arg="required", metavar="LFMT", help="format a deleted line"),
        Opt(None, "new-line-format", arg="required", metavar="LFMT", help="format an added line"),
        Opt(
            None, "unchanged-line-format", arg="required", metavar="LFMT", help="format a line in both files"
        ),
        Opt("d", "minimal", help="try hard to find a smaller set of changes"),
        Opt(None, "horizon-lines", arg="required", metavar="NUM", help="(accepted)"),
        Opt(None, "speed-large-files", help="(accepted)"),
        Opt(None, "color", arg="optional", metavar="WHEN", help="(accepted; output is never colored)"),
        Opt(None, "palette", arg="required", metavar="PALETTE", help="(accepted)"),
    ),
)

_PR = "/usr/bin/pr"  # (diffutils' PR_PROGRAM: the program -l runs, and its messages name)
_WS = re.compile(rb"[ \t\v\f\r]+")
_TRAIL = re.compile(rb"[ \t\v\f\r]+(?=\n?$)")


def _q(text: str) -> str:
    return f"'{text}'"


@dataclass
class Options:
    style: Style
    brief: bool = False
    report_same: bool = False
    recursive: bool = False
    new_file: bool = False
    new_first: bool = False
    text: bool = False
    minimal: bool = False
    labels: list[str] = field(default_factory=list)
    key: Callable[[bytes], bytes] | None = None
    strip_cr: bool = False
    ignore_blank: bool = False
    ignore_res: list[object] = field(default_factory=list)
    funcname: object = None
    excludes: list[str] = field(default_factory=list)
    switches: str = ""
    paginate: bool = False

    def title(self, name_a: str, name_b: str) -> str:
        """The line naming a pair: above its differences in a `diff -r`, each -l page's title."""
        return f"diff{self.switches} {c_name(name_a)} {c_name(name_b)}"


def _line_key(opts: Parsed) -> Callable[[bytes], bytes] | None:
    fold = bool(opts.get("ignore_case"))
    allspace = bool(opts.get("ignore_all_space"))
    change = bool(opts.get("ignore_space_change"))
    trailing = bool(opts.get("ignore_trailing_space"))
    tabs = bool(opts.get("ignore_tab_expansion"))
    if not (fold or allspace or change or trailing or tabs):
        return None

    def key(line: bytes) -> bytes:
        body = line[:-1] if line.endswith(b"\n") else line
        if tabs:
            body = body.expandtabs(8)
        if allspace:
            body = _WS.sub(b"", body)
        elif change:
            body = _WS.sub(b" ", body).rstrip(b" ")
        elif trailing:
            body = body.rstrip(b" \t\v\f\r")
        if fold:
            body = body.lower()
        return body + (b"\n" if line.endswith(b"\n") or allspace or change or trailing else b"")

    return key


def _switch_string(args: list[str], operands: list[str]) -> str:
    """The options as given, for `diff -r` headers (GNU repeats them)."""
    rest = list(args)
    for op in reversed(operands):
        for k in range(len(rest) - 1, -1, -1):
            if rest[k] == op:
                del rest[k]
                break
    # each word shell-quoted as gnulib's shell_quote does (`'--label=L1'`: `=` is quoted too)
    return "".join(" " + shell_quote(a) for a in rest)


def _context_num(ctx: Ctx, text: str) -> int:
    if not text.isdigit():
        raise usage(ctx, f"invalid context length {_q(text)}")
    return int(text)


_GROUP_OPTIONS = {f"{k}_group_format": k for k in (OLD, NEW, UNCHANGED, CHANGED)}
_LINE_OPTIONS = {f"{k}_line_format": (k,) for k in (OLD, NEW, UNCHANGED)} | {
    "line_format": (OLD, NEW, UNCHANGED)
}


def _take_format(ctx: Ctx, style: Style, key: str, value: str) -> bool:
    """-D, --GTYPE-group-format and --LTYPE-line-format: their formats kept in `style`; whether
    `key` was one. A format given twice must be given the same (GNU's specify_value)."""
    if key == "ifdef":
        wanted, table, option = ifdef_formats(value), style.groups, "-D"
    elif key in _GROUP_OPTIONS:
        wanted, table = {_GROUP_OPTIONS[key]: value}, style.groups
        option = "--" + key.replace("_", "-")
    elif key in _LINE_OPTIONS:
        wanted, table = dict.fromkeys(_LINE_OPTIONS[key], value), style.lines
        option = "--" + key.replace("_", "-")
    else:
        return False
    for kind, fmt in wanted.items():
        if table.get(kind, fmt) != fmt:
            raise usage(ctx, f"conflicting {option} option value '{fmt}'")
        table[kind] = fmt
    return True


def _build(ctx: Ctx, opts: Parsed, operands: list[str]) -> Options:
    style = Style()
    formats = []
    context_len = -1
    for key, value in opts.order:
        # GNU keeps the largest context asked for
        if key == "context_default":
            formats.append("context")
            context_len = max(context_len, 3)
        elif key == "context":
            formats.append("context")
            context_len = max(context_len, _context_num(ctx, value))
        elif key == "unified_default":
            formats.append("unified")
            context_len = max(context_len, 3)
        elif key == "unified":
            formats.append("unified")
            context_len = max(context_len, _context_num(ctx, value))
        elif key == "ed":
            formats.append("ed")
        elif key == "rcs":
            formats.append("rcs")
        elif key == "side_by_side":
            formats.append("side")
        elif key == "normal":
            formats.append("normal")
        elif _take_format(ctx, style, key, value):
            formats.append("ifdef")
    kinds = set(formats)
    if len(kinds) > 1:
        raise usage(ctx, "conflicting output style options")
    if formats:
        style.fmt = formats[-1]
    style.context = context_len if context_len >= 0 else 3
    if opts.get("width"):
        style.width = int(opts.get("width"))
    style.expand_tabs = bool(opts.get("expand_tabs"))
    style.initial_tab = bool(opts.get("initial_tab"))
    style.left_column = bool(opts.get("left_column"))
    style.suppress_common = bool(opts.get("suppress_common_lines"))
    if opts.get("tabsize"):
        style.tabsize = int(opts.get("tabsize"))
    if style.fmt == "ifdef":
        complete_formats(style.groups, style.lines)
    o = Options(style)
    o.brief = bool(opts.get("brief"))
    o.report_same = bool(opts.get("report_identical_files"))
    o.recursive = bool(opts.get("recursive"))
    o.new_file = bool(opts.get("new_file"))
    o.new_first = bool(opts.get("unidirectional_new_file"))
    o.text = bool(opts.get("text"))
    o.minimal = bool(opts.get("minimal"))
    o.labels = list(opts.get("label") or [])
    if len(o.labels) > 2:
        ctx.error("too many file label options")  # (GNU's fatal(): no Try line)
        raise CommandExit(2)
    o.key = _line_key(opts)
    o.strip_cr = bool(opts.get("strip_trailing_cr"))
    o.ignore_blank = bool(opts.get("ignore_blank_lines"))
    o.excludes = list(opts.get("exclude") or [])
    regexes = list(opts.get("ignore_matching_lines") or [])
    func_re = opts.get("show_function_line")
    if opts.get("show_c_function"):
        func_re = r"^[[:alpha:]$_]"
    if regexes or func_re:
        from ...regex import RegexError, compile_regex

        try:
            o.ignore_res = [compile_regex(r, flavor="bre", budget=ctx.budget) for r in regexes]
            o.funcname = compile_regex(func_re, flavor="bre", budget=ctx.budget) if func_re else None
        except RegexError as e:
            raise usage(ctx, str(e))
    o.switches = _switch_string(list(ctx.args), operands)
    o.paginate = bool(opts.get("paginate"))
    return o


# ------------------------------------------------------------------ comparing two files


def _stamp(ctx: Ctx, mtime: int, traditional: bool = False) -> str:
    """A header's time (`2024-01-02 03:04:05.123456789 +0000`) of a time in nanoseconds; or
    `traditional` (a context diff in the C locale: `Sun Dec  6 07:41:02 2026`)."""
    dt, off = local_time(ctx, mtime // NS)
    if traditional:
        return f"{dt:%a %b} {dt.day:2d} {dt:%H:%M:%S %Y}"  # type: ignore[attr-defined,str-format]
    nanos = mtime % NS
    sign = "+" if off >= 0 else "-"
    off = abs(off)
    stamp = dt.strftime("%Y-%m-%d %H:%M:%S")  # type: ignore[attr-defined]
    return str(stamp + f".{nanos:09d} {sign}{off // 3600:02d}{off % 3600 // 60:02d}")


class Differ:
    def __init__(self, ctx: Ctx, o: Options, out: Out) -> None:
        self.ctx = ctx
        self.o = o
        self.out = out
        self.status = 0

    def _read(self, path: str | None) -> bytes:
        if path is None:
            return b""
        if _stream_path(path):
            return self.ctx.read_input(path)
        return self.ctx.fs.read_bytes(path)

    def _mtime(self, path: str | None) -> int:
        if path is None:
            return 0
        if _stream_path(path):
            return seconds_to_ns(self.ctx.clock())
        st = self.ctx.fs.try_stat(path)
        return st.mtime_ns if st is not None else 0

    def files(
        self, name_a: str, name_b: str, path_a: str | None, path_b: str | None, in_dirs: bool = False
    ) -> int:
        """Compare two regular files (a None path is an absent file read as empty); `in_dirs`: a
        pair of a directory comparison, its differences under a line naming it."""
        # --label names the files in every message about them and in a -r header, not only in
        # the ---/+++ lines ("Only in" lines keep the directories' names)
        labels = self.o.labels
        if labels:
            name_a = labels[0]
            name_b = labels[1] if len(labels) > 1 else name_b
        data_a = self._read(path_a)
        data_b = self._read(path_b)
        # (side by side and the group formats print the lines the files share too)
        side = self.o.style.fmt in ("side", "ifdef") and not self.o.brief
        if data_a == data_b and (path_a is None) == (path_b is None) and not side:
            if self.o.report_same:
                self.out.write(encode(f"Files {name_a} and {name_b} are identical\n"))
            return 0
        if not self.o.text and (0 in data_a[:65536] or 0 in data_b[:65536]):
            if data_a == data_b:
                return 0
            # (no -r header above it; -q words it as any difference)
            what = "Files" if self.o.brief else "Binary files"
            self.out.write(encode(f"{what} {name_a} and {name_b} differ\n"))
            return 1
        with self.ctx.hold_memory() as mem:
            # the texts, their lines (objects and copies), the line tables of the
            # comparison (keys, classes, vectors, diagonals) and the output lines
            mem.charge(
                3 * (len(data_a) + len(data_b)) + _PER_LINE * (data_a.count(b"\n") + data_b.count(b"\n") + 2)
            )
            return self._compare(name_a, name_b, path_a, path_b, in_dirs, data_a, data_b)

    def _compare(
        self,
        name_a: str,
        name_b: str,
        path_a: str | None,
        path_b: str | None,
        in_dirs: bool,
        data_a: bytes,
        data_b: bytes,
    ) -> int:
        style = self.o.style
        side = style.fmt in ("side", "ifdef") and not self.o.brief
        a = _split(data_a, self.o.strip_cr)
        b = _split(data_b, self.o.strip_cr)
        horizon = style.context if style.fmt in ("unified", "context") else 0
        hunks = diff_lines(a, b, self.o.key, self.o.minimal, self.ctx.checkpoint, horizon)
        hunks = self._drop_ignored(a, b, hunks)
        if not hunks and side:
            same = (
                side_by_side(a, b, hunks, style)
                if style.fmt == "side"
                else ifdef(a, b, hunks, style.groups, style.lines, style.tabsize if style.expand_tabs else 0)
            )
            self._emit(name_a, name_b, same)
            return 0
        if not hunks:
            if self.o.report_same and data_a == data_b:
                self.out.write(encode(f"Files {name_a} and {name_b} are identical\n"))
            return 0
        if self.o.brief:
            self.out.write(encode(f"Files {name_a} and {name_b} differ\n"))
            return 1
        # (a directory comparison names each pair above its differences; -l names it in the page
        # titles instead)
        head = [encode(self.o.title(name_a, name_b) + "\n")] if in_dirs and not self.o.paginate else []
        fn = self._funcname(a) if self.o.funcname is not None else None
        if style.fmt in ("unified", "context"):
            la = self.o.labels[0] if self.o.labels else None
            lb = self.o.labels[1] if len(self.o.labels) > 1 else None
            mark_a, mark_b = (b"---", b"+++") if style.fmt == "unified" else (b"***", b"---")
            head.append(mark_a + b" " + self._head(name_a, path_a, la) + b"\n")
            head.append(mark_b + b" " + self._head(name_b, path_b, lb) + b"\n")
            lines = (unified if style.fmt == "unified" else context)(a, b, hunks, style, fn)
        elif style.fmt == "ed":
            lines = ed_script(a, b, hunks, style)
        elif style.fmt == "side":
            lines = side_by_side(a, b, hunks, style)
        elif style.fmt == "rcs":
            lines = rcs(a, b, hunks)
        elif style.fmt == "ifdef":
            lines = ifdef(a, b, hunks, style.groups, style.lines, style.tabsize if style.expand_tabs else 0)
        else:
            lines = normal(a, b, hunks, style)
        if style.expand_tabs and style.fmt not in ("side", "ifdef"):
            lines = [_expand_output(x, style.fmt) for x in lines]
        self._emit(name_a, name_b, head + lines)
        return 1

    def _emit(self, name_a: str, name_b: str, chunks: list[bytes]) -> None:
        """Write a pair's output: as it is, or with -l through `pr -h TITLE` as GNU diff runs it
        (the policy decides that command as any other). pr writes straight to the output while
        diff's own lines (`Only in ...`) wait in its buffer, as GNU's stdio does on a pipe."""
        if not self.o.paginate:
            for chunk in chunks:
                self.out.write(chunk)
            return
        ctx = self.ctx
        status = ctx.run([_PR, "-h", self.o.title(name_a, name_b)], stdin=b"".join(chunks), stdout=ctx.stdout)
        if status:
            self.out.flush()
            if status == 126:
                ctx.error(f"subsidiary program '{_PR}' could not be invoked")
            elif status == 127:
                ctx.error(f"subsidiary program '{_PR}' not found")
            else:
                ctx.error(f"subsidiary program '{_PR}' failed (exit status {status})")
            raise CommandExit(2)

    def _head(self, name: str, path: str | None, label: str | None) -> bytes:
        if label is not None:
            return encode(label)
        # (diffutils: a context diff dates the files as ctime does unless the locale is another
        # than C/POSIX)
        traditional = self.o.style.fmt == "context" and not hard_locale(self.ctx)
        return encode(c_name(name) + "\t" + _stamp(self.ctx, self._mtime(path), traditional))

    def _drop_ignored(self, a: list[bytes], b: list[bytes], hunks: list[Hunk]) -> list[Hunk]:
        if not self.o.ignore_blank and not self.o.ignore_res:
            return hunks

        def ignorable(line: bytes) -> bool:
            body = line.rstrip(b"\n")
            if self.o.ignore_blank and not body.strip(b" \t\v\f\r"):
                return True
            return any(rx.search(body) is not None for rx in self.o.ignore_res)  # type: ignore[attr-defined]

        kept = []
        for h in hunks:
            lines = a[h.a0 : h.a1] + b[h.b0 : h.b1]
            if not all(ignorable(x) for x in lines):
                kept.append(h)
        return kept

    def _funcname(self, a: list[bytes]) -> Callable[[int], bytes]:
        rx = self.o.funcname

        def find(line_index: int) -> bytes:
            for i in range(line_index - 1, -1, -1):
                body = a[i].rstrip(b"\n")
                if rx.search(body) is not None:  # type: ignore[attr-defined]
                    return b" " + body[:40].rstrip()
            return b""

        return find


# bytes the comparison holds per input line besides its text (CPython objects
# and the slots of a dozen tables)
_PER_LINE = 320


def _expand_output(line: bytes, fmt: str) -> bytes:
    """-t: expand tabs in the line text (after its one- or two-column marker)."""
    if 9 not in line:  # a tab (a byte as an int: see builtins/io._read_record)
        return line
    width = 1 if fmt == "unified" else 2
    if fmt == "normal" and line[:2] in (b"< ", b"> "):
        width = 2
    return line[:width] + line[width:].expandtabs(8)


def _split(data: bytes, strip_cr: bool) -> list[bytes]:
    lines = data.splitlines(keepends=True) if 13 not in data else _split_nl(data)
    if strip_cr:
        lines = [x[:-2] + b"\n" if x.endswith(b"\r\n") else x for x in lines]
    return lines


def _split_nl(data: bytes) -> list[bytes]:
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


# ------------------------------------------------------------------ the command


def _stream_path(path: str) -> bool:
    """`-`, /dev/stdin and /dev/fd/N (process substitution) name open streams."""
    return path == "-" or _dev_fd(path) is not None


def _kind(ctx: Ctx, path: str) -> str | None:
    if path == "-" and isinstance(ctx.stdin, DirStream):
        # GNU diff fstat()s stdin, finds a directory and from then on looks `-` (or `-/NAME`) up
        # as a name in the file system: `diff f - < dir` says "-/f: No such file or directory"
        return "dir"
    if _stream_path(path):
        return "file"
    st = ctx.fs.try_stat(path)
    if st is None:
        return None
    return "dir" if st.is_dir else "file"


@declare("diff", spec=DIFF_SPEC, effects=Effects.DIFF, write_failure=STDOUT_STATUS_2)
def cmd_diff(ctx: Ctx) -> int:
    opts, files = parse(ctx, DIFF_SPEC)
    o = _build(ctx, opts, files)
    if opts.get("from_file") is not None or opts.get("to_file") is not None:
        if opts.get("from_file") is not None:
            pairs = [(opts.get("from_file"), f) for f in files]
        else:
            pairs = [(f, opts.get("to_file")) for f in files]
    else:
        if len(files) < 2:
            if not files:
                raise usage(ctx, "missing operand after 'diff'")
            raise usage(ctx, f"missing operand after {_q(files[-1])}")
        if len(files) > 2:
            raise usage(ctx, f"extra operand {_q(files[2])}")
        pairs = [(files[0], files[1])]
    out = Out(ctx.stdout)
    status = 0
    try:
        for fa, fb in pairs:
            status = max(status, _compare_top(ctx, o, out, fa, fb))
    finally:
        out.flush()
    return status


def _compare_top(ctx: Ctx, o: Options, out: Out, fa: str, fb: str) -> int:
    ka, kb = _kind(ctx, fa), _kind(ctx, fb)
    stdin_dir = ctx.stdin.dir_path if isinstance(ctx.stdin, DirStream) else None
    if (
        ka == kb == "dir"
        and stdin_dir
        and "-" in (fa, fb)
        and same_file(ctx, stdin_dir, fb if fa == "-" else fa)
    ):
        return 0  # (GNU compares the descriptors first: one directory, no difference)
    if ka == "dir" and kb == "file" and fb != "-":
        fa = fa.rstrip("/") + "/" + fb.rstrip("/").rsplit("/", 1)[-1]
        ka = _kind(ctx, fa)
    elif kb == "dir" and ka == "file" and fa != "-":
        fb = fb.rstrip("/") + "/" + fa.rstrip("/").rsplit("/", 1)[-1]
        kb = _kind(ctx, fb)
    elif (ka == "dir" and fb == "-" and kb == "file") or (kb == "dir" and fa == "-" and ka == "file"):
        ctx.error("cannot compare '-' to a directory")
        return 2
    d = Differ(ctx, o, out)
    # each operand that is not there is reported (GNU stats both before it fails); -N excuses one
    # only while the other is there
    trouble = False
    for name, kind, other in ((fa, ka, kb), (fb, kb, ka)):
        if kind is None and not ((o.new_file or (o.new_first and name == fa)) and other is not None):
            out.flush()
            try:
                ctx.fs.stat(name)
            except FsError as e:
                ctx.error(f"{name}: {strerror(e.errno or 5)}")
            trouble = True
    if trouble:
        return 2
    if ka == "dir" and kb == "dir":
        if o.style.fmt == "ifdef":
            ctx.error("-D option not supported with directories")  # (GNU's fatal(): no Try line)
            return 2
        return _dirs(ctx, d, fa, fb, top=True)
    try:
        return d.files(fa, fb, fa if ka else None, fb if kb else None)
    except FsError as e:
        out.flush()
        ctx.error(f"{e.path or fa}: {strerror(e.errno or 5)}")
        return 2
    except StreamReadError as e:  # (a closed fd 0 read as `-`)
        out.flush()
        ctx.error(f"{fa if _stream_path(fa) else fb}: {e.strerror}")
        return 2


def _dirs(ctx: Ctx, d: Differ, da: str, db: str, top: bool) -> int:
    o = d.o
    listed: list[set[str]] = []
    for path in (da, db):
        try:
            listed.append(set(ctx.fs.listdir(path)))
        except FsError as e:  # (named as given)
            ctx.error(f"{path}: {strerror(e.errno or 5)}")
            return 2
    names_a, names_b = listed
    from fnmatch import fnmatchcase

    status = 0
    for name in sorted(names_a | names_b):
        if any(fnmatchcase(name, p) for p in o.excludes):
            continue
        ctx.checkpoint()
        pa, pb = f"{da.rstrip('/')}/{name}", f"{db.rstrip('/')}/{name}"
        ka = _kind(ctx, pa) if name in names_a else None
        kb = _kind(ctx, pb) if name in names_b else None
        if ka is None or kb is None:
            present_kind = ka or kb
            absent_ok = o.new_file or (o.new_first and ka is None)
            if not absent_ok:
                where = da if ka is not None else db
                d.out.write(encode(f"Only in {where}: {name}\n"))
                status = max(status, 1)
                continue
            if present_kind == "dir":
                if o.recursive:
                    status = max(status, _dirs_one_sided(ctx, d, pa, pb, ka is not None))
                continue
            status = max(status, d.files(pa, pb, pa if ka else None, pb if kb else None, in_dirs=True))
            continue
        if ka == "dir" and kb == "dir":
            if o.recursive:
                status = max(status, _dirs(ctx, d, pa, pb, top=False))
            else:
                d.out.write(encode(f"Common subdirectories: {pa} and {pb}\n"))
            continue
        if ka != kb:
            what_a = "directory" if ka == "dir" else "regular file"
            what_b = "directory" if kb == "dir" else "regular file"
            d.out.write(encode(f"File {pa} is a {what_a} while file {pb} is a {what_b}\n"))
            status = max(status, 1)
            continue
        try:
            status = max(status, d.files(pa, pb, pa, pb, in_dirs=True))
        except FsError as e:
            ctx.error(f"{e.path}: {strerror(e.errno or 5)}")
            status = 2
    return status


def _dirs_one_sided(ctx: Ctx, d: Differ, pa: str, pb: str, a_present: bool) -> int:
    """-N with a directory on one side only: every file in it is new (or deleted)."""
    present = pa if a_present else pb
    status = 0
    for name in sorted(ctx.fs.listdir(present)):
        sa, sb = f"{pa}/{name}", f"{pb}/{name}"
        sp = sa if a_present else sb
        if ctx.fs.is_dir(sp):
            status = max(status, _dirs_one_sided(ctx, d, sa, sb, a_present))
            continue
        status = max(
            status, d.files(sa, sb, sa if a_present else None, None if a_present else sb, in_dirs=True)
        )
    return status
