"""grep, egrep, fgrep (GNU grep 3.8) and rg (the common ripgrep options).

Input is read in large chunks and the pattern is searched over each chunk of
complete lines at once (the regex layer's `line_mode` keeps matches inside a
line), then matches are mapped back to lines; -c, -q, -l and -L never build
lists of lines. Recursive search walks the virtual filesystem in sorted name
order (GNU uses directory order, which is not reproducible).
"""

from __future__ import annotations

import errno
import re
from collections.abc import Callable, Iterable, Iterator
from itertools import accumulate, chain, count, islice, repeat
from operator import add

from ...expand.pattern import compile_pattern
from ...regex import valid_utf8
from ...stdio.streams import ClosedStream, DirStream, Stream, StreamReadError
from ...vfs.errors import FsError, strerror
from ..context import CommandExit, Ctx
from ..fsutil import input_is_output, regular_stdin
from ..options import CommandSpec, Opt, Parsed
from ..record import Effects, WriteFailure, declare
from ..textbasic.common import read_input_held

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
    from typing import Any

    from ...limits import MemoryHold
    from ...regex import Regex
else:  # the same class without importing dataclasses and inspect (~6 ms of a first grep)
    from ...leanclass import dataclass, field

CHUNK = 1 << 20  # bytes read at a time (read at each call: tests shrink it to make lines straddle blocks)
# bytes of ASCII word characters (grep -w): letters, digits and the underscore
_WORD_BYTES = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
_REGEX_SPECIAL = frozenset(".[]*^$\\+?{}()|")  # special in a BRE or an ERE
_OUT_BLOCK = 1 << 16  # bytes of output gathered per write
_SAMPLE = 1 << 16  # bytes of a chunk looked at to choose how to find a literal's lines
_PICK_SAMPLE = 1 << 14  # bytes of a block looked at to choose how to count a literal's lines
STDIN_NAME = "(standard input)"

GREP_SPEC = CommandSpec(
    name="grep",
    usage="[OPTION]... PATTERNS [FILE]...",
    summary="Search for PATTERNS in each FILE.",
    usage_status=2,
    usage_note="Usage: grep [OPTION]... PATTERNS [FILE]...\n",
    numeric="context",
    opts=(
        Opt("E", "extended-regexp", dest="mode", const="E", help="PATTERNS are extended regular expressions"),
        Opt("F", "fixed-strings", dest="mode", const="F", help="PATTERNS are strings"),
        Opt("G", "basic-regexp", dest="mode", const="G", help="PATTERNS are basic regular expressions"),
        Opt("P", "perl-regexp", dest="mode", const="P", help="PATTERNS are Perl regular expressions"),
        Opt(
            "e",
            "regexp",
            arg="required",
            dest="pats",
            multi=True,
            metavar="PATTERNS",
            help="use PATTERNS for matching",
        ),
        Opt(
            "f",
            "file",
            arg="required",
            dest="pat_files",
            multi=True,
            metavar="FILE",
            help="take PATTERNS from FILE",
        ),
        Opt(
            "i", "ignore-case", dest="icase", const=True, help="ignore case distinctions in patterns and data"
        ),
        Opt("y", None, dest="icase", const=True),
        Opt(
            None,
            "no-ignore-case",
            dest="icase",
            const=False,
            help="do not ignore case distinctions (default)",
        ),
        Opt("w", "word-regexp", help="match only whole words"),
        Opt("x", "line-regexp", help="match only whole lines"),
        Opt("z", "null-data", help="a data line ends in 0 byte, not newline"),
        Opt("s", "no-messages", help="suppress error messages"),
        Opt("v", "invert-match", help="select non-matching lines"),
        Opt("m", "max-count", arg="required", metavar="NUM", help="stop after NUM selected lines"),
        Opt("b", "byte-offset", help="print the byte offset with output lines"),
        Opt("n", "line-number", help="print line number with output lines"),
        Opt(None, "line-buffered", help="flush output on every line"),
        Opt("H", "with-filename", dest="fname", const=True, help="print file name with output lines"),
        Opt("h", "no-filename", dest="fname", const=False, help="suppress the file name prefix on output"),
        Opt(
            None,
            "label",
            arg="required",
            metavar="LABEL",
            help="use LABEL as the standard input file name prefix",
        ),
        Opt("o", "only-matching", help="show only nonempty parts of lines that match"),
        Opt("q", "quiet", help="suppress all normal output"),
        Opt(None, "silent", dest="quiet"),
        Opt(None, "binary-files", arg="required", metavar="TYPE", help="assume that binary files are TYPE"),
        Opt("a", "text", dest="binary_files", const="text", help="equivalent to --binary-files=text"),
        Opt(
            "I",
            None,
            dest="binary_files",
            const="without-match",
            help="equivalent to --binary-files=without-match",
        ),
        Opt("d", "directories", arg="required", metavar="ACTION", help="how to handle directories"),
        Opt("D", "devices", arg="required", metavar="ACTION", help="how to handle devices"),
        Opt("r", "recursive", dest="recursive", const="r", help="like --directories=recurse"),
        Opt(
            "R",
            "dereference-recursive",
            dest="recursive",
            const="R",
            help="likewise, but follow all symlinks",
        ),
        Opt(
            None,
            "include",
            arg="required",
            multi=True,
            metavar="GLOB",
            help="search only files that match GLOB",
        ),
        Opt(None, "exclude", arg="required", multi=True, metavar="GLOB", help="skip files that match GLOB"),
        Opt(
            None,
            "exclude-from",
            arg="required",
            multi=True,
            metavar="FILE",
            help="skip files that match any file pattern from FILE",
        ),
        Opt(
            None,
            "exclude-dir",
            arg="required",
            multi=True,
            metavar="GLOB",
            help="skip directories that match GLOB",
        ),
        Opt("L", "files-without-match", help="print only names of FILEs with no selected lines"),
        Opt("l", "files-with-matches", help="print only names of FILEs with selected lines"),
        Opt("c", "count", help="print only a count of selected lines per FILE"),
        Opt("T", "initial-tab", help="make tabs line up (if needed)"),
        Opt("Z", "null", help="print 0 byte after FILE name"),
        Opt("B", "before-context", arg="required", metavar="NUM", help="print NUM lines of leading context"),
        Opt("A", "after-context", arg="required", metavar="NUM", help="print NUM lines of trailing context"),
        Opt("C", "context", arg="required", metavar="NUM", help="print NUM lines of output context"),
        Opt(
            None,
            "group-separator",
            arg="required",
            metavar="SEP",
            help="print SEP on line between matches with context",
        ),
        Opt(
            None,
            "no-group-separator",
            dest="group_separator",
            const=None,
            help="do not print separator for matches with context",
        ),
        Opt(
            None,
            "color",
            arg="optional",
            metavar="WHEN",
            help="use markers to highlight the matching strings",
        ),
        Opt(None, "colour", arg="optional", dest="color"),
        Opt("U", "binary", help="do not strip CR characters at EOL (MSDOS/Windows)"),
    ),
)

# GNU's default GREP_COLORS
_SGR = {"ms": "01;31", "mc": "01;31", "sl": "", "cx": "", "fn": "35", "ln": "32", "bn": "32", "se": "36"}


def _sgr(code: str, text: bytes) -> bytes:
    if not code:
        return text
    return b"\x1b[" + code.encode() + b"m\x1b[K" + text + b"\x1b[m\x1b[K"


class GrepError(Exception):
    pass


@dataclass
class Options:
    invert: bool = False
    count: bool = False
    list_files: bool = False
    list_nonmatching: bool = False
    quiet: bool = False
    only: bool = False
    line_numbers: bool = False
    byte_offset: bool = False
    with_fname: bool = False
    null_after_name: bool = False
    initial_tab: bool = False
    max_count: int = -1
    before: int = 0
    context: bool = False  # -A, -B or -C given (even 0: separators still print)
    after: int = 0
    eol: bytes = b"\n"
    binary: str = "binary"
    no_messages: bool = False
    group_sep: bytes | None = b"--"
    color: bool = False
    label: str = STDIN_NAME
    recursive: str = ""
    directories: str = "read"
    include: list[Any] = field(default_factory=list)
    exclude: list[Any] = field(default_factory=list)
    exclude_dir: list[Any] = field(default_factory=list)
    per_line: bool = False  # verify buffer matches line by line (PCRE)
    replace: Any = None  # rg -r: Match -> bytes, applied to printed matches
    prog: str = "grep"
    never: bool = False  # no patterns at all: nothing matches
    literal: bytes | None = None  # the one pattern is plain text: lines are tested with `in`
    # several plain texts, or one with -i (then lower-cased, and `fold` set): a line holds one
    literals: tuple[bytes, ...] | None = None
    fold: bool = False
    word: bool = False  # -w with the one text in `literals`


class Searcher:
    """Searches one input after another and writes GNU grep's output."""

    def __init__(
        self,
        ctx: Ctx,
        rx: Regex | None,
        line_rx: Regex | None,
        opts: Options,
        make_rx: Callable[[], Regex | None] | None = None,
    ) -> None:
        self.ctx = ctx
        self._rx = rx
        # a plain-text pattern is compiled only if a search needs the regex: `grep -c WORD`
        # and plain printing use bytes.find, and skip loading the regex engine at all
        self._make_rx = make_rx
        self.line_rx = line_rx  # the same pattern compiled for one line at a time (PCRE)
        self._lit_line_rx: re.Pattern[bytes] | None = None  # `LITERAL[^\n]*()`: counts a literal's lines
        self._lit_split_rx: re.Pattern[bytes] | None = None  # `(LITERAL[^\n]*\n?)`: the runs of lines
        self._lit_drop_rx: re.Pattern[bytes] | None = None  # `LITERAL[^\n]*\n?`: -v's runs between them
        self._lit_span_rx: re.Pattern[bytes] | None = None  # `LITERAL[^\n]*`: a match ends at its line's end
        self.o = opts
        self.out = ctx.stdout
        self._pending: list[bytes] = []
        self._pending_len = 0
        self.any_selected = False
        self.printed_something = False  # for the "--" group separator
        self.num_width = 0  # -T: the width line numbers and offsets are padded to (set per input)
        self.error = False
        self.reading = ""  # the input being searched, as messages name it

    @property
    def rx(self) -> Regex | None:
        if self._make_rx is not None:
            self._rx = self._make_rx()
            self._make_rx = None
        return self._rx

    @rx.setter
    def rx(self, value: Regex | None) -> None:
        self._rx = value
        self._make_rx = None

    # ------------------------------------------------------------ matching
    def _line_has_match(self, line: bytes) -> bool:
        assert self.line_rx is not None
        return self.line_rx.search(line) is not None

    def selected_spans(self, buf: bytes, end: int, start: int = 0) -> Iterator[tuple[int, int]]:
        """(line start, line end without terminator) of each matching line in
        buf[start:end] (start is a line start; end is just past a line terminator, or the end of input)."""
        rx = self.rx
        if rx is None or self.o.never:
            return
        eol = self.o.eol
        pos = start
        checkpoint = self.ctx.checkpoint
        per_line = self.o.per_line
        if eol != b"\n" or (per_line and self.line_rx is not None and rx is self.line_rx):
            # -z, or a PCRE pattern that must see each line alone
            while pos < end:
                nl = buf.find(eol, pos, end)
                le = end if nl < 0 else nl
                checkpoint()
                assert self.line_rx is not None
                if self.line_rx.search(buf[pos:le]) is not None:
                    yield pos, le
                pos = le + 1
            return
        start_of = rx.search_start  # the position is all a line needs: no Match is built
        while pos < end:
            s = start_of(buf, pos, end)
            if s < 0 or s >= end:
                return
            ls = buf.rfind(b"\n", 0, s) + 1
            if ls < pos:
                ls = pos
            le = buf.find(b"\n", s, end)
            if le < 0:
                le = end
            checkpoint()
            if per_line and not self._line_has_match(buf[ls:le]):
                pos = le + 1
                continue
            yield ls, le
            pos = le + 1

    # ------------------------------------------------------------ output
    def prefix(self, name: str, lineno: int, offset: int, sep: bytes, empty: bool = False) -> bytes:
        """A line's -H name, -n number, -b offset and -T tab (none before an `empty` line, as GNU)."""
        o = self.o
        width = self.num_width
        parts: list[bytes] = []
        color = o.color
        sep_out = _sgr(_SGR["se"], sep) if color else sep
        if o.with_fname:
            n = name.encode("utf-8", "surrogateescape")
            parts.append(_sgr(_SGR["fn"], n) if color else n)
            parts.append(b"\0" if o.null_after_name else sep_out)
        if o.line_numbers:
            s = str(lineno).rjust(width).encode()
            parts.append(_sgr(_SGR["ln"], s) if color else s)
            parts.append(sep_out)
        if o.byte_offset:
            s = str(offset).rjust(width).encode()
            parts.append(_sgr(_SGR["bn"], s) if color else s)
            parts.append(sep_out)
        if o.initial_tab and parts and not empty:
            parts.append(b"\t")
        return b"".join(parts)

    def write(self, data: bytes) -> None:
        # lines are gathered and written in blocks: one write per line costs more than the search
        self._pending.append(data)
        self._pending_len += len(data)
        if self._pending_len >= _OUT_BLOCK:
            self.flush_out()

    def flush_out(self) -> None:
        if self._pending:
            data = b"".join(self._pending)
            self._pending.clear()
            self._pending_len = 0
            self.out.write(data)

    # ------------------------------------------------------------ one input
    def search_stream(self, stream: Stream, name: str) -> bool:
        """Search one input; returns True when a line was selected. Its output is
        written by the end (messages about other inputs come after it)."""
        o = self.o
        if isinstance(stream, ClosedStream):  # (a closed fd 0 fails GNU's fstat: no count, no -L)
            self.error = True
            if not o.no_messages:
                self.ctx.error(f"{name}: {strerror(errno.EBADF)}")
            return False
        if (
            not (o.quiet or o.list_files or o.list_nonmatching or o.count)
            and not 0 <= o.max_count <= 1  # (-m 1: GNU reads no further than a line)
            and input_is_output(self.ctx, stream)
        ):
            # GNU grep refuses an input that is its own output (it would read what it writes)
            self.error = True
            if not o.no_messages:
                self.ctx.error(f"{name}: input file is also the output")
            return False
        if o.initial_tab:
            self.num_width = self._num_width(stream)
        self.reading = name
        try:
            return self._search_stream(stream, name)
        finally:
            self.flush_out()

    def _num_width(self, stream: Stream) -> int:
        """-T: GNU grep 3.8 pads line numbers and byte offsets to the digits of the largest it could
        print: a regular file's size (its last offset), plus one with -n (its last line), else
        the largest offset there can be (19 digits: a pipe)."""
        path = getattr(stream, "path", "")
        if path:
            try:
                st = self.ctx.fs.stat(path)
            except FsError:
                return 19
            if st.is_file:
                return len(str(st.size + 1 if self.o.line_numbers else st.size))
        return 19

    def _search_stream(self, stream: Stream, name: str) -> bool:
        o = self.o
        eol = o.eol
        need_lines = not (o.quiet or o.list_files or o.list_nonmatching or o.count)
        context = need_lines and o.context
        max_count = o.max_count
        selected = 0
        lineno = 1  # number of the first line in buf[start:]
        offset = 0  # byte offset of buf[start:] in the input
        binary = False
        encoding_errors = False
        stop = False
        cx = _Ctx(o.before, o.after) if context else None
        # lines printed as they are: whole runs of them are copied at once
        plain = (
            need_lines
            and cx is None
            and max_count < 0
            and o.replace is None
            and not (o.with_fname or o.line_numbers or o.byte_offset or o.color or o.only or o.initial_tab)
        )
        # -n, -b, -H, -T alone: the selected lines of a read found first, then prefixed in C loops
        prefixed = (
            need_lines
            and cx is None
            and max_count < 0
            and o.replace is None
            and not (o.color or o.only)
            and eol == b"\n"
        )
        # -o alone: the matches of the whole chunk at once (the regex keeps them inside lines)
        only_plain = (
            need_lines
            and cx is None
            and max_count < 0
            and o.replace is None
            and o.only
            and not o.invert
            and not (o.with_fname or o.line_numbers or o.byte_offset or o.color or o.initial_tab)
            and eol == b"\n"
            and not o.per_line
            and self.line_rx is None
        )
        bin_mode = o.binary
        # -m NUM over a regular standard input: GNU leaves it just past the last selected line, for
        # the next reader (`{ grep -m1 '^---$'; cat; } < f`); -q, -l, -L read on as they like
        rewind = (
            regular_stdin(self.ctx, stream)
            if max_count > 0 and not (o.quiet or o.list_files or o.list_nonmatching)
            else None
        )
        begin = rewind.tell() if rewind is not None else 0
        used = -1  # where in the input the line that reached -m's count ends
        if not need_lines and eol == b"\n" and not o.per_line and rewind is None:
            # -c, -q, -l, -L need how many lines, never which: no line is visited
            selected = self._count_stream(stream)
            stop = True
        with self.ctx.hold_memory() as mem:
            for block in () if stop else self._blocks(stream, eol, mem):
                if block is None:
                    selected = 0  # binary, without-match: no selected line
                    break
                buf, start, end, binary = block
                fast = (
                    (plain or only_plain or prefixed)
                    and not binary
                    and (buf.isascii() or valid_utf8(buf[start:end]))
                )
                if start and not ((plain or prefixed) and fast):
                    # plain and prefixed printing search the lines where they were read; the
                    # rest wants them at the start of a buffer (a copy)
                    buf = buf[start:end]
                    end -= start
                    start = 0
                self.ctx.checkpoint(1 + (end - start) // 4096)
                spans = self.selected_spans(buf, end)
                if o.invert:
                    spans = _invert(spans, end, buf, eol)

                if not need_lines:
                    for _ls, le in spans:
                        selected += 1
                        if o.quiet or o.list_files or o.list_nonmatching or selected == max_count:
                            stop = True
                            used = offset + min(le + 1, end)
                            break
                elif plain and fast:
                    selected += self._emit_plain(buf, start, end)
                elif prefixed and fast:
                    selected += self._emit_prefixed(buf, start, end, lineno, offset, name)
                elif only_plain and fast:
                    selected += self._emit_only(buf, end)
                else:
                    # -a / --binary-files=text: encoding errors are text too, every selected line prints
                    all_valid = binary or bin_mode == "text" or buf.isascii() or valid_utf8(buf[:end])
                    if o.invert and not all_valid and bin_mode != "text":
                        encoding_errors = True
                    if cx is not None:
                        cx.new_chunk(lineno)
                    if not binary and not o.invert and max_count < 0 and eol == b"\n":
                        # (context, -o, colour: every selected line of the read is printed, so they
                        # are found at once, a literal without the regex)
                        spans = zip(*self._selected_lines(buf, 0, end), strict=True)
                    cur_line = lineno
                    cur = 0
                    for ls, le in spans:
                        cur_line += buf.count(eol, cur, ls)
                        cur = ls
                        if binary:
                            # GNU stops at the first output line of a binary file
                            self.any_selected = True
                            self._binary_message(name)
                            return True
                        if not all_valid and not valid_utf8(buf[ls:le]):
                            # a line with an encoding error is not printed; with -o, each part
                            # printed is checked instead: those before the first bad one print
                            if o.only and not o.invert and o.replace is None:
                                if not self._emit_valid_parts(buf, ls, le, cur_line, offset, name):
                                    encoding_errors = True
                            else:
                                encoding_errors = True
                            selected += 1
                            if selected == max_count:
                                stop = True
                                used = offset + min(le + 1, end)
                                break
                            continue
                        if cx is not None:
                            self._context_before(cx, buf, ls, cur_line, offset, name)
                            self._sep_if_gap(cx, cur_line)
                        self._emit_line(buf, ls, le, cur_line, offset, name)
                        self.printed_something = True
                        if cx is not None:
                            cx.printed(cur_line, le + 1)
                        selected += 1
                        if selected == max_count:
                            stop = True
                            used = offset + min(le + 1, end)
                            break
                    if cx is not None:
                        self._context_after(cx, buf, end, offset, name)
                        if not stop:
                            cx.remember_tail(buf, end, lineno, offset, eol)
                if need_lines and not plain:  # line numbers are printed only outside the plain case
                    lineno += buf.count(eol, start, end)
                offset += end - start
                if stop:
                    break
        if rewind is not None and used >= 0:
            rewind.reposition(begin + used)
        if selected:
            self.any_selected = True
            if encoding_errors and need_lines:
                self._binary_message(name)
        if o.count:
            self._write_count(name, selected)
        if o.list_files and selected:
            self._write_name(name)
        if o.list_nonmatching and not selected:
            self._write_name(name)
        return selected > 0

    def _lines(self, buf: bytes, start: int, end: int) -> list[bytes]:
        lines = buf[start:end].split(b"\n")
        if lines[-1] == b"":
            lines.pop()
        return lines

    @staticmethod
    def _dense(buf: bytes, start: int, end: int, lit: bytes) -> bool:
        """Whether `lit` is in at least half the lines of buf[:end], judged on its first
        64 KiB: then one split into lines beats hopping from match to match. A sample,
        because counting the whole chunk first costs as much as the hop itself."""
        stop = min(end, start + _SAMPLE)
        size = stop - start
        hits = buf.count(lit, start, stop)
        return hits * 64 >= size and hits * 2 >= buf.count(b"\n", start, stop) + 1

    def _reads(
        self, stream: Stream, eol: bytes, mem: MemoryHold, nul_ends: bool = False
    ) -> Iterator[list[tuple[bytes, int, int]]]:
        """The input one read at a time, as (buffer, start, end) spans of whole lines (the input's
        last line maybe without its terminator). A read is searched where it lies: only the line
        that straddles two reads is joined (its pieces charged to `mem` while they wait), never a
        read onto the previous one's tail (a copy of the whole input, and its pages).
        `nul_ends`: a NUL byte ends a line too (a NUL makes the file binary, whose NULs GNU reads
        as line ends), so a run of NULs without a newline (`grep x /dev/zero`) is never held whole."""
        tail: list[bytes] = []  # the pieces of the unfinished line
        nul = b"\0"
        while True:
            try:
                chunk = stream.read(CHUNK)
            except StreamReadError as e:  # (`grep x < dir`): named, then the input ends there, as GNU's
                self.error = True
                if not self.o.no_messages:
                    self.ctx.error(f"{self.reading}: {strerror(e.errno or 5)}")
                chunk = b""
            parts: list[tuple[bytes, int, int]] = []
            if not chunk:
                if tail:
                    mem.charge(mem.held)  # (the joined copy, while the pieces are still held)
                    line = b"".join(tail)
                    yield [(line, 0, len(line))]
                return
            start = 0
            if tail:
                nl = chunk.find(eol)
                if nul_ends and (z := chunk.find(nul, 0, nl if nl >= 0 else len(chunk))) >= 0:
                    nl = z  # (the first line end: a NUL before any newline)
                if nl < 0:
                    mem.charge(len(chunk))
                    tail.append(chunk)
                    continue
                tail.append(chunk[: nl + 1])
                mem.charge(nl + 1)
                mem.charge(mem.held)
                line = b"".join(tail)
                tail.clear()
                mem.set(len(line))
                parts.append((line, 0, len(line)))
                start = nl + 1
            last = chunk.rfind(eol)
            if nul_ends:
                last = max(last, chunk.rfind(nul, last + 1))
            end = max(start, last + 1)
            if end > start:
                parts.append((chunk, start, end))
            if end < len(chunk):
                tail.append(chunk[end:] if end else chunk)
                mem.charge(len(chunk) - end)
            if parts:
                yield parts
            mem.set(len(tail[0]) if tail else 0)

    def _blocks(
        self, stream: Stream, eol: bytes, mem: MemoryHold
    ) -> Iterator[tuple[bytes, int, int, bool] | None]:
        """The input as (buffer, start, end, binary) spans of whole lines (see _reads), for counting
        and printing alike. This is where a file turns binary: the NUL bytes of all that one read
        completes decide, before any of it is searched (not with -a, nor with -z, whose lines NULs
        end). From then on GNU reads NUL bytes as line ends (its "NUL zapper": `a\0a` is two lines
        to -c, -x, -v and `a.a` does not match it), so a binary span comes with its NULs made
        newlines, at the start of a buffer of its own. With --binary-files=without-match (-I) a
        binary file has no selected line: None is yielded and the input is read no further."""
        check = self.o.binary != "text" and eol == b"\n"
        binary = False
        for parts in self._reads(stream, eol, mem, check):
            if check and not binary and any(b.find(b"\0", s, e) >= 0 for b, s, e in parts):
                binary = True
                if self.o.binary == "without-match":
                    yield None
                    return
            for buf, start, end in parts:
                if binary:
                    buf = buf[start:end].replace(b"\0", b"\n")
                    start, end = 0, len(buf)
                yield buf, start, end, binary

    def _count_stream(self, stream: Stream) -> int:
        """-c, -q, -l, -L over newline-ended lines: how many lines are selected (at most one for
        -q, -l, -L, at most -m's), each read counted where it lies (see _reads)."""
        o = self.o
        want = 1 if (o.quiet or o.list_files or o.list_nonmatching) else o.max_count
        selected = 0
        checkpoint = self.ctx.checkpoint
        with self.ctx.hold_memory() as mem:
            for block in self._blocks(stream, b"\n", mem):
                if block is None:
                    return 0  # binary, without-match: no selected line (-c still prints 0, -L lists it)
                buf, start, end, _binary = block
                checkpoint(1 + (end - start) // 4096)
                selected += self._count_selected(buf, start, end, want - selected if want > 0 else 0)
                if want > 0 and selected >= want:
                    return selected
        return selected

    def _count_selected(self, buf: bytes, start: int, end: int, want: int) -> int:
        """How many lines of buf[start:end] (newline-terminated, the last maybe not) are selected,
        at most `want` when it is positive (-q, -l, -L, -m); -v: the lines less those that match."""
        if not self.o.invert:
            return self._count_matching(buf, start, end, want)
        absent = self._texts_absent(buf, start, end)
        if absent is not None:
            return min(len(absent), want) if want > 0 else len(absent)
        n = buf.count(b"\n", start, end) + (1 if end > start and buf[end - 1] != 0x0A else 0)
        n -= self._count_matching(buf, start, end, 0)
        return min(n, want) if want > 0 else n

    def _count_matching(self, buf: bytes, start: int, end: int, want: int) -> int:
        """The lines of buf[start:end] with a match, at most `want` when positive: the search hops
        from a match to the start of the next line, and builds neither Match objects nor a list
        of lines (a literal may be counted by one findall of `LITERAL[^\n]*`)."""
        lit = self.o.literal
        find = buf.find
        limit = want if want > 0 else -1  # never reached: every line
        n = 0
        pos = start
        hay = self._texts_hay(buf)
        if hay is not None:  # (as _texts_bounds, counting: no line start is needed)
            texts = self.o.literals
            assert texts is not None
            find = hay.find
            nexts = [find(t, start, end) for t in texts]
            nexts = [end if i < 0 else i for i in nexts]
            which = range(len(texts))
            while n != limit and (i := min(nexts)) < end:
                n += 1
                pos = find(b"\n", i, end) + 1 or end
                for k in which:
                    if nexts[k] < pos:
                        j = find(texts[k], pos, end)
                        nexts[k] = end if j < 0 else j
            return n
        hit = self._texts_finder(buf, end)
        if hit is not None:
            while n != limit:
                i = hit(pos)
                if i < 0:
                    break
                n += 1
                pos = find(b"\n", i, end) + 1
                if not pos:
                    break
            return n
        if lit is not None:
            if want <= 0 and end > start and self._findall_cheaper(buf, start, end, lit):
                # a match runs on to its line's end, so the next is found on a later line
                lines_rx = self._lit_line_rx
                if lines_rx is None:
                    lines_rx = self._lit_line_rx = re.compile(re.escape(lit) + rb"[^\n]*()")
                return len(lines_rx.findall(buf, start, end))  # (each item is the empty bytes object)
            while n != limit:
                i = find(lit, pos, end)
                if i < 0:
                    break
                n += 1
                pos = find(b"\n", i, end) + 1
                if not pos:
                    break
            return n
        rx = self.rx
        if rx is None or self.o.never:
            return 0
        start_of = rx.search_start
        while n != limit and pos < end:
            s = start_of(buf, pos, end)
            if s < 0 or s >= end:
                break
            n += 1
            pos = find(b"\n", s, end) + 1
            if not pos:
                break
        if n:
            self.ctx.checkpoint(n)  # a unit per matching line, as printing them is charged
        return n

    @staticmethod
    def _findall_cheaper(buf: bytes, start: int, end: int, lit: bytes) -> bool:
        """Whether counting a literal's lines in buf[start:end] is cheaper by one findall of
        `LITERAL[^\n]*` than by hopping with bytes.find, judged on the block's first 16 KiB.
        re's search steps over each byte until the literal's first byte, then tries the rest;
        bytes.find skips up to len+1 bytes at a time but costs a Python round per matching line.
        The weights are CPython 3.11's (tenths of a ns per byte, per first byte, per line)."""
        stop = min(end, start + _PICK_SAMPLE)
        size = stop - start
        firsts = buf.count(lit[0:1], start, stop)
        hits = buf.count(lit, start, stop) if firsts else 0
        return 4 * size + 100 * firsts < 39 * size // (len(lit) + 1) + 2500 * hits

    def _texts_absent(self, buf: bytes, start: int, end: int) -> list[bytes] | None:
        """-v with several plain texts (not -i, not -w): the lines of buf[start:end] that hold none,
        by one `in` pass per text over the lines left, when at least half the lines hold one (judged
        on the chunk's first 64 KiB, as _dense); None otherwise, when hopping from hit to hit costs
        less than a test of every line."""
        texts = self.o.literals
        if texts is None or not self.o.invert or self.o.fold or self.o.word:
            return None
        stop = min(end, start + _SAMPLE)
        hits = sum(buf.count(t, start, stop) for t in texts)
        if hits * 2 < buf.count(b"\n", start, stop) + 1:
            return None
        rest = self._lines(buf, start, end)
        for text in texts:
            rest = [ln for ln in rest if text not in ln]
        return rest

    def _texts_hay(self, buf: bytes) -> bytes | None:
        """What several plain texts (not -w) are searched in: the chunk, or for -i a lower-cased
        copy (offsets unchanged); None otherwise, or where _texts_finder declines (-i beyond ASCII)."""
        texts = self.o.literals
        if texts is None or len(texts) < 2 or self.o.word:
            return None
        if self.o.fold:
            return buf.lower() if buf.isascii() else None
        return buf

    def _texts_bounds(self, buf: bytes, start: int, end: int) -> list[int] | None:
        """For several plain texts (not -w): where the runs of consecutive lines of buf[start:end]
        holding one start and end (past the newline, or `end`), flat: [start0, end0, start1, ...].
        One loop keeps each text's next hit and searches a text again only once its hit is passed
        (no call per hit), and a line next to the last selected one extends its run. None where
        _texts_hay is."""
        hay = self._texts_hay(buf)
        if hay is None:
            return None
        texts = self.o.literals
        assert texts is not None
        find = hay.find
        rfind = hay.rfind
        nexts = [find(t, start, end) for t in texts]
        nexts = [end if i < 0 else i for i in nexts]
        which = range(len(texts))
        bounds: list[int] = []
        pos = start  # the start of the line after the last selected one
        while (i := min(nexts)) < end:
            ls = rfind(b"\n", pos, i) + 1 or pos
            if ls == pos and bounds:
                bounds[-1] = pos = find(b"\n", i, end) + 1 or end  # (the run goes on)
            else:
                pos = find(b"\n", i, end) + 1 or end
                bounds += (ls, pos)
            for k in which:
                if nexts[k] < pos:
                    j = find(texts[k], pos, end)
                    nexts[k] = end if j < 0 else j
        return bounds

    def _texts_finder(self, buf: bytes, end: int) -> Callable[[int], int] | None:
        """For several plain texts, or one with -i: a function from a position in buf[:end]
        to where the next text starts there (-1: none), case-folded over a lower-cased copy.
        None without such texts, or when -i meets a chunk beyond ASCII (letters like the
        Kelvin sign fold to ASCII ones there: the regex decides)."""
        texts = self.o.literals
        if texts is None:
            return None
        hay = buf
        if self.o.fold:
            if not buf.isascii():
                return None
            hay = buf.lower()  # bytes.lower folds ASCII letters only: offsets are unchanged
        find = hay.find
        if self.o.word:
            return self._word_finder(buf, hay, end)
        if len(texts) == 1:
            text = texts[0]
            return lambda pos: find(text, pos, end)
        # where each text is next found (end: nowhere, -1: not searched yet); the positions
        # asked only grow, so a text is searched again only once its last hit is passed
        nexts = [-1] * len(texts)

        def next_hit(pos: int) -> int:
            for k, i in enumerate(nexts):
                if i < pos:
                    i = find(texts[k], pos, end)
                    nexts[k] = end if i < 0 else i
            best = min(nexts)
            return -1 if best >= end else best

        return next_hit

    def _word_finder(self, buf: bytes, hay: bytes, end: int) -> Callable[[int], int]:
        """-w with one text: its next hit with a non-word byte or a line end on each side (an
        ASCII byte decides; a failed hit is passed over, as GNU then tries further right). A
        byte beyond ASCII beside a hit (a letter? an encoding error?) leaves the line to the
        regex, which reads the character there."""
        assert self.o.literals is not None
        text = self.o.literals[0]
        size = len(text)
        find = hay.find
        word = _WORD_BYTES

        def next_hit(pos: int) -> int:
            while True:
                i = find(text, pos, end)
                if i < 0:
                    return -1
                j = i + size
                before = hay[i - 1] if i else 10  # a chunk starts at a line start
                after = hay[j] if j < end else 10
                if before < 0x80 and after < 0x80:
                    if before not in word and after not in word:
                        return i
                    pos = i + 1
                    continue
                rx = self.rx
                assert rx is not None
                ls = buf.rfind(b"\n", 0, i) + 1
                le = buf.find(b"\n", i, end)
                le = end if le < 0 else le
                s = rx.search_start(buf, ls, le)
                if s >= 0:
                    return s
                pos = le + 1
                if pos >= end:
                    return -1

        return next_hit

    def _literal_runs(self, buf: bytes, start: int, end: int) -> list[bytes] | None:
        """The selected lines of buf[start:end] as whole runs of input (each
        newline-terminated) when the literal matches few lines; else None."""
        lit = self.o.literal
        assert lit is not None
        if self._findall_cheaper(buf, start, end, lit):
            return self._split_runs(buf, start, end, lit)
        if self._dense(buf, start, end, lit):
            return None
        find = buf.find
        return self._hit_runs(buf, start, end, lambda pos: find(lit, pos, end))

    def _split_runs(self, buf: bytes, start: int, end: int, lit: bytes) -> list[bytes]:
        """_literal_runs by one split of buf[start:end] at `LITERAL[^\n]*\n?`: each piece but the last
        is the text before a match, whole lines (what -v keeps) then the start of the match's line;
        with the match captured, the pieces alternate with the matches, which run on to their
        line's end. A Python step per matching line, not three bytes.find calls."""
        hay = buf if start == 0 and end == len(buf) else memoryview(buf)[start:end]
        if self.o.invert:
            drop_rx = self._lit_drop_rx
            if drop_rx is None:
                drop_rx = self._lit_drop_rx = re.compile(re.escape(lit) + rb"[^\n]*\n?")
            between = drop_rx.split(hay)
            last = between.pop()
            runs = [p[: p.rfind(b"\n") + 1] for p in between]
            runs.append(last)
            runs = list(filter(None, runs))  # (each run is counted as a selected line)
        else:
            rx = self._lit_split_rx
            if rx is None:
                rx = self._lit_split_rx = re.compile(b"(" + re.escape(lit) + rb"[^\n]*\n?)")
            pieces = rx.split(hay)
            pieces.pop()  # (the text after the last match)
            pieces[0::2] = [p[p.rfind(b"\n") + 1 :] for p in pieces[0::2]]
            runs = [b"".join(pieces)] if pieces else []
        if runs and not runs[-1].endswith(b"\n"):
            runs[-1] += b"\n"
        return runs

    def _hit_runs(self, buf: bytes, start: int, end: int, hit: Callable[[int], int]) -> list[bytes]:
        """The selected lines of buf[start:end] as whole runs of input (each newline-terminated), `hit`
        finding the next match from a position (the literal's find, or _texts_finder's for several
        texts or -i)."""
        invert = self.o.invert
        out: list[bytes] = []
        find = buf.find
        rfind = buf.rfind
        pos = start  # where the next search starts (a line start)
        kept = start  # invert: the start of lines not yet written
        while pos < end:
            i = hit(pos)
            if i < 0:
                break
            ls = rfind(b"\n", pos, i) + 1 or pos
            le = find(b"\n", i, end)
            le = end if le < 0 else le + 1
            if invert:
                if ls > kept:
                    out.append(buf[kept:ls])
                kept = le
            else:
                out.append(buf[ls:le])
            pos = le
        if invert and kept < end:
            out.append(buf[kept:end])
        if out and not out[-1].endswith(b"\n"):
            out[-1] += b"\n"
        return out

    def _emit_plain(self, buf: bytes, start: int, end: int) -> int:
        """Write the selected lines of buf[start:end] without prefixes; returns how
        many (with a literal, possibly fewer but never 0 when some were)."""
        eol = self.o.eol
        lit = self.o.literal
        absent = self._texts_absent(buf, start, end)
        if absent is not None:
            if absent:
                absent.append(b"")
                self.write(eol.join(absent))
                self.printed_something = True
            return len(absent) - 1 if absent else 0
        bounds = self._texts_bounds(buf, start, end)
        hit = self._texts_finder(buf, end) if bounds is None else None
        if lit is not None or hit is not None or bounds is not None:
            runs: list[bytes] | None
            if bounds is not None:
                runs = _cut_runs(buf, start, end, bounds, self.o.invert)
            elif hit is None:
                runs = self._literal_runs(buf, start, end)
            else:
                runs = self._hit_runs(buf, start, end, hit)
            if runs is not None:
                if runs:
                    self.write(b"".join(runs))
                    self.printed_something = True
                # each run holds at least one line: a lower bound, all that matters in the plain case
                return len(runs)
            # one pass of C-speed `in` tests beats a regex call per matching line
            assert lit is not None
            lines = self._lines(buf, start, end)
            chosen = (
                [ln for ln in lines if lit not in ln] if self.o.invert else [ln for ln in lines if lit in ln]
            )
            if chosen:
                chosen.append(b"")
                self.write(eol.join(chosen))
                self.printed_something = True
            return len(chosen) - 1 if chosen else 0
        n = 0
        pos = start
        if self.o.invert:
            for ls, le in self.selected_spans(buf, end, start):
                if ls > pos:
                    self.write(buf[pos:ls])
                    n += buf.count(eol, pos, ls)
                pos = le + 1
            if pos < end:
                tail = buf[pos:end]
                n += tail.count(eol)
                if not tail.endswith(eol):
                    tail += eol
                    n += 1
                self.write(tail)
        else:
            for ls, le in self.selected_spans(buf, end, start):
                self.write(buf[ls : le + 1] if le < end else buf[ls:le] + eol)
                n += 1
        if n:
            self.printed_something = True
        return n

    def _emit_prefixed(self, buf: bytes, start: int, end: int, lineno: int, offset: int, name: str) -> int:
        """Write the selected lines of buf[start:end] (valid text, newline-ended but maybe the last)
        with their -H name, -n number, -b offset and -T tab; returns how many. The lines' numbers,
        offsets and texts are listed first, then the prefixes made by one format per line, in C
        loops. A literal in most lines, or -v of one: the block split into lines, each tested with
        `in` (a line's number is its index); else the selected lines' spans are found (see
        _selected_lines) and a line's number is the last one plus the newlines since its start."""
        o = self.o
        lit = o.literal
        numbers: Iterable[int]
        offsets: Iterable[int]
        if lit is not None and (o.invert or self._dense(buf, start, end, lit)):
            lines = self._lines(buf, start, end)
            if o.invert:
                chosen = [k for k, line in enumerate(lines) if lit not in line]
            else:
                chosen = [k for k, line in enumerate(lines) if lit in line]
            texts = list(map(lines.__getitem__, chosen))
            if texts:
                self.ctx.checkpoint(len(texts))  # a unit per line selected, as _selected_lines charges
            numbers = map(add, repeat(lineno), chosen)
            if o.byte_offset:  # (a line's offset: the lengths of those before it, and their newlines)
                starts = list(map(add, accumulate(map(len, lines), initial=offset), count()))
                offsets = map(starts.__getitem__, chosen)
        else:
            lss, les = self._selected_lines(buf, start, end)
            if o.invert:
                lss, texts = self._unselected_lines(buf, start, end, lss, les)
                if texts:
                    self.ctx.checkpoint(len(texts))  # (and a unit per printed line)
            else:
                texts = list(map(buf.__getitem__, map(slice, lss, les)))
            counts = map(buf.count, repeat(b"\n"), chain((start,), lss), lss)
            numbers = islice(accumulate(counts, initial=lineno), 1, None)
            offsets = map(add, repeat(offset - start), lss)
        if not texts:
            return 0
        head = b""
        if o.with_fname:
            head = name.encode("utf-8", "surrogateescape") + (b"\0" if o.null_after_name else b":")
        fmt = head.replace(b"%", b"%%")
        columns: list[Iterable[int] | list[bytes]] = []
        number = b"%%%dd:" % self.num_width if self.num_width else b"%d:"
        if o.line_numbers:
            fmt += number
            columns.append(numbers)
        if o.byte_offset:
            fmt += number
            columns.append(offsets)
        if o.initial_tab and (o.with_fname or o.line_numbers or o.byte_offset):
            texts = [b"\t" + text if text else text for text in texts]  # (no tab before an empty line)
        columns.append(texts)
        # one format of the block's lines at once: no call per line
        values = tuple(texts) if len(columns) == 1 else tuple(chain.from_iterable(zip(*columns, strict=True)))
        self.write((fmt + b"%s\n") * len(texts) % values)
        self.printed_something = True
        return len(texts)

    def _selected_lines(self, buf: bytes, start: int, end: int) -> tuple[list[int], list[int]]:
        """Where the selected lines of buf[start:end] start and end (before their newline), as two
        lists: a literal found by one finditer of `LITERAL[^\n]*` (its match ends at the line's end)
        or by the bytes.find hop (see _findall_cheaper), plain texts by _texts_finder, else the regex
        (selected_spans). A unit of work per line found, as selected_spans charges."""
        lss: list[int] = []
        les: list[int] = []
        lit = self.o.literal
        hit = self._texts_finder(buf, end)
        if hit is None and lit is not None and end > start and self._findall_cheaper(buf, start, end, lit):
            lines_rx = self._lit_span_rx
            if lines_rx is None:
                lines_rx = self._lit_span_rx = re.compile(re.escape(lit) + rb"[^\n]*")
            rfind = buf.rfind
            for m in lines_rx.finditer(buf, start, end):
                i, le = m.span()
                lss.append(rfind(b"\n", start, i) + 1 or start)
                les.append(le)
            if lss:
                self.ctx.checkpoint(len(lss))
            return lss, les
        if hit is None and lit is not None:
            find = buf.find
            hit = lambda pos: find(lit, pos, end)  # noqa: E731
        if hit is None:
            for ls, le in self.selected_spans(buf, end, start):
                lss.append(ls)
                les.append(le)
            return lss, les
        find = buf.find
        rfind = buf.rfind
        pos = start
        while pos < end:
            i = hit(pos)
            if i < 0:
                break
            ls = rfind(b"\n", pos, i) + 1 or pos
            le = find(b"\n", i, end)
            le = end if le < 0 else le
            lss.append(ls)
            les.append(le)
            pos = le + 1
        if lss:
            self.ctx.checkpoint(len(lss))
        return lss, les

    @staticmethod
    def _unselected_lines(
        buf: bytes, start: int, end: int, lss: list[int], les: list[int]
    ) -> tuple[list[int], list[bytes]]:
        """-v: the starts and texts of the lines of buf[start:end] between the selected ones
        (lss, les): each run between two is split at its newlines at once."""
        starts: list[int] = []
        texts: list[bytes] = []
        kept = start
        for ls, le in chain(zip(lss, les, strict=True), ((end, end),)):
            if ls > kept:
                run = buf[kept:ls].split(b"\n")
                if run[-1] == b"":
                    run.pop()  # (the run ends with its last line's newline)
                starts.extend(map(add, accumulate(map(len, run), initial=kept), count()))
                starts.pop()  # (where the line after the run would start)
                texts.extend(run)
            kept = le + 1
        return starts, texts

    def _emit_only(self, buf: bytes, end: int) -> int:
        """-o without prefixes: every non-empty match of buf[:end], one per line. Returns a
        count that is non-zero exactly when some line matched (empty matches select a line
        but print nothing), all that -o without -m or -c needs."""
        rx = self.rx
        if rx is None or self.o.never:
            return 0
        found: list[bytes] = []
        append = found.append
        printed = 0
        any_match = False
        for s, e in rx.spans(buf, 0, end):  # (finditer's matches, without a Match object each)
            any_match = True
            if e > s:
                append(buf[s:e])
                append(b"\n")
                if len(found) >= 8192:  # written in blocks: the list stays small (`grep -o .`)
                    printed += self._write_block(found)
        printed += self._write_block(found)
        return printed or int(any_match)

    def _write_block(self, pieces: list[bytes]) -> int:
        n = len(pieces) // 2
        if pieces:
            self.write(b"".join(pieces))
            pieces.clear()
            self.printed_something = True
            self.ctx.checkpoint()
        return n

    def _binary_message(self, name: str) -> None:
        self.flush_out()
        if self.o.prog == "grep":
            self.ctx.stderr.write(
                f"{self.ctx.prog}: {name}: binary file matches\n".encode("utf-8", "surrogateescape")
            )

    # ------------------------------------------------------------ context
    def _sep_if_gap(self, cx: _Ctx, line: int) -> None:
        o = self.o
        if o.group_sep is None or not self.printed_something:
            return
        if cx.last == 0 or line > cx.last + 1:
            if cx.last != 0 or not cx.sep_done:
                self.write(_sep_line(o.group_sep, o.color, o.eol))
            cx.sep_done = True

    def _ctx_line(self, cx: _Ctx, text: bytes, line: int, off: int, name: str) -> None:
        self._sep_if_gap(cx, line)
        if not self.o.only:
            self.write(self.prefix(name, line, off, b"-", not text) + text + self.o.eol)
        self.printed_something = True
        cx.last = line

    def _context_after(
        self, cx: _Ctx, buf: bytes, limit: int, offset: int, name: str, upto: int | None = None
    ) -> None:
        """Print pending after-context lines that lie in this chunk, before
        byte `limit` (and before line `upto`)."""
        eol = self.o.eol
        while cx.pending > 0 and cx.pos is not None and cx.pos < limit:
            if upto is not None and cx.last + 1 >= upto:
                return
            nl = buf.find(eol, cx.pos, limit)
            le = limit if nl < 0 else nl
            self._ctx_line(cx, buf[cx.pos : le], cx.last + 1, offset + cx.pos, name)
            cx.pending -= 1
            cx.pos = le + 1

    def _context_before(self, cx: _Ctx, buf: bytes, ls: int, line: int, offset: int, name: str) -> None:
        self._context_after(cx, buf, ls, offset, name, upto=line)
        want = max(cx.last + 1, line - self.o.before)
        if want >= line:
            return
        eol = self.o.eol
        lines: list[tuple[int, int, bytes]] = []
        e = ls
        ln = line
        while ln > want and e > 0:
            s = buf.rfind(eol, 0, e - 1) + 1
            ln -= 1
            lines.append((ln, offset + s, buf[s : e - 1]))
            e = s
        if ln > want:
            lines.extend(reversed([t for t in cx.carried if want <= t[0] < ln]))
        for ln2, off, text in reversed(lines):
            self._ctx_line(cx, text, ln2, off, name)

    # ------------------------------------------------------------ lines
    def _write_count(self, name: str, n: int) -> None:
        o = self.o
        if o.with_fname:
            nm = name.encode("utf-8", "surrogateescape")
            if o.color:
                nm = _sgr(_SGR["fn"], nm)
            sep = b"\0" if o.null_after_name else (_sgr(_SGR["se"], b":") if o.color else b":")
            self.write(nm + sep + str(n).encode() + b"\n")
        else:
            self.write(str(n).encode() + b"\n")

    def _write_name(self, name: str) -> None:
        nm = name.encode("utf-8", "surrogateescape")
        if self.o.color:
            nm = _sgr(_SGR["fn"], nm)
        self.write(nm + (b"\0" if self.o.null_after_name else b"\n"))

    def _matches(self, line: bytes) -> Iterator[tuple[int, int]]:
        rx = self.line_rx or self.rx
        assert rx is not None
        for m in rx.finditer(line):
            s, e = m.span()
            if e > s:
                yield s, e

    def _emit_valid_parts(self, buf: bytes, ls: int, le: int, lineno: int, offset: int, name: str) -> bool:
        """-o on a line with an encoding error: GNU checks each part it prints (print_line_head),
        prints those up to the first that holds an encoding error and drops the rest of the line.
        False when a part held one (the file is then a binary file that matches)."""
        line = buf[ls:le]
        o = self.o
        for s, e in self._matches(line):
            text = line[s:e]
            if not valid_utf8(text):
                return False
            text = _sgr(_SGR["ms"], text) if o.color else text
            self.write(self.prefix(name, lineno, offset + ls + s, b":") + text + o.eol)
            self.printed_something = True
        return True

    def _emit_line(self, buf: bytes, ls: int, le: int, lineno: int, offset: int, name: str) -> None:
        o = self.o
        eol = o.eol
        line = buf[ls:le]
        if o.replace is not None and not o.invert:
            rx = self.line_rx or self.rx
            assert rx is not None
            if o.only:
                for m in rx.finditer(line):
                    if m.end() > m.start():
                        self.write(
                            self.prefix(name, lineno, offset + ls + m.start(), b":") + o.replace(m) + eol
                        )
                return
            parts: list[bytes] = []
            last = 0
            for m in rx.finditer(line):
                if m.end() > m.start():
                    parts.append(line[last : m.start()])
                    parts.append(o.replace(m))
                    last = m.end()
            parts.append(line[last:])
            self.write(self.prefix(name, lineno, offset + ls, b":") + b"".join(parts) + eol)
            return
        if o.only:
            if o.invert:
                return
            for s, e in self._matches(line):
                text = _sgr(_SGR["ms"], line[s:e]) if o.color else line[s:e]
                self.write(self.prefix(name, lineno, offset + ls + s, b":") + text + eol)
            return
        if o.color and not o.invert:
            parts = []
            last = 0
            for s, e in self._matches(line):
                parts.append(line[last:s])
                parts.append(_sgr(_SGR["ms"], line[s:e]))
                last = e
            parts.append(line[last:])
            line = b"".join(parts)
        self.write(self.prefix(name, lineno, offset + ls, b":", not line) + line + eol)


class _Ctx:
    """Context-line state of one input: the last line printed, what is left
    of the after-context, and the previous chunk's last lines."""

    __slots__ = ("after", "before", "carried", "last", "pending", "pos", "sep_done")

    def __init__(self, before: int, after: int) -> None:
        self.before = before
        self.after = after
        self.carried: list[tuple[int, int, bytes]] = []
        self.last = 0  # number of the last line printed from this input
        self.pending = 0  # after-context lines still to print
        self.pos: int | None = None  # where the line after `last` starts in the chunk
        self.sep_done = False

    def new_chunk(self, first_line: int) -> None:
        self.pos = 0 if self.last == first_line - 1 and self.last else None
        if self.pos is None:
            self.pending = 0

    def printed(self, line: int, next_pos: int) -> None:
        self.last = line
        self.pos = next_pos
        self.pending = self.after

    def remember_tail(self, buf: bytes, end: int, first_line: int, offset: int, eol: bytes) -> None:
        keep: list[tuple[int, int, bytes]] = []
        ln = first_line + buf.count(eol, 0, end)
        e = end
        while len(keep) < self.before and e > 0:
            s = buf.rfind(eol, 0, e - 1) + 1
            ln -= 1
            if ln <= self.last:
                break
            text = buf[s : e - 1] if buf[e - 1 : e] == eol else buf[s:e]
            keep.append((ln, offset + s, text))
            e = s
        keep.reverse()
        self.carried = keep


def _cut_runs(buf: bytes, start: int, end: int, bounds: list[int], invert: bool) -> list[bytes]:
    """The runs of lines that `bounds` gives (Searcher._texts_bounds), or with `invert` the runs
    between them, each newline-terminated (the input's last line may lack one)."""
    if invert:
        edges = [start, *bounds, end]
        runs = [buf[a:b] for a, b in zip(edges[0::2], edges[1::2], strict=True) if b > a]
    else:
        runs = [buf[a:b] for a, b in zip(bounds[0::2], bounds[1::2], strict=True)]
    if runs and not runs[-1].endswith(b"\n"):
        runs[-1] += b"\n"
    return runs


def _sep_line(sep: bytes, color: bool, eol: bytes) -> bytes:
    return (_sgr(_SGR["se"], sep) if color else sep) + b"\n"


def _invert(spans: Iterator[tuple[int, int]], end: int, buf: bytes, eol: bytes) -> Iterator[tuple[int, int]]:
    """The lines of buf[:end] that are not in `spans`."""
    pos = 0
    for ls, le in spans:
        while pos < ls:
            nl = buf.find(eol, pos, ls)
            e = ls - 1 if nl < 0 else nl
            yield pos, e
            pos = e + 1
        pos = le + 1
    while pos < end:
        nl = buf.find(eol, pos, end)
        e = end if nl < 0 else nl
        if e == end and pos == end:
            break
        yield pos, e
        pos = e + 1


# ---------------------------------------------------------------- patterns


def _output_mode(o: Options, p: Parsed) -> None:
    """GNU's ranking of the output modes: -q prints nothing; -l and -L share
    one setting (the last given wins) and both replace -c."""
    listing = [k for k, _ in p.order if k in ("files_with_matches", "files_without_match")]
    o.quiet = bool(p.get("quiet"))
    o.list_files = not o.quiet and listing[-1:] == ["files_with_matches"]
    o.list_nonmatching = not o.quiet and listing[-1:] == ["files_without_match"]
    o.count = bool(p.get("count")) and not (o.quiet or listing)


def _plain_texts(patterns: list[str], mode: str) -> tuple[bytes, ...] | None:
    """The patterns as the plain ASCII texts a line must contain one of (-e A -e B, -F,
    -E 'A|B', 'A\\|B'), or None when any is more than text (or empty: it matches every line)."""
    if mode == "P" or not patterns:
        return None
    texts: list[str] = []
    for pat in patterns:
        if mode == "F":
            texts.append(pat)
        else:
            # an alternation of plain texts is those texts
            texts.extend(pat.split("|" if mode == "E" else "\\|"))
    if not all(t and t.isascii() and (mode == "F" or not any(c in _REGEX_SPECIAL for c in t)) for t in texts):
        return None
    return tuple(t.encode() for t in texts)


def _fixed_to_bre(p: str) -> str:
    out = []
    for ch in p:
        if ch in ".[]*^$\\":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def _int_arg(ctx: Ctx, value: str, what: str) -> int:
    v = value.strip()
    try:
        n = int(v)
    except ValueError:
        n = -1
    if n < 0 or not v.lstrip("+").isdigit():
        if what == "max":
            try:
                n = int(v)
                if n < 0:
                    return -1
            except ValueError:
                pass
            ctx.error("invalid max count")
        else:
            ctx.error(f"{value}: invalid context length argument")
        raise CommandExit(2)
    return n


def _read_pattern_file(ctx: Ctx, path: str) -> list[str]:
    with ctx.hold_memory() as mem:
        try:
            data = read_input_held(ctx, path, mem)
        except FsError as e:
            ctx.error(f"{path}: {e.message}")
            raise CommandExit(2)
        # the patterns will be held as text, objects and compiled matchers: they
        # must fit in the run's memory (millions of patterns stop here, not in
        # the compiler); the charge is checked, not kept past this point
        mem.charge(4 * len(data) + _PATTERN_COST * (data.count(b"\n") + 1))
    text = data.decode("utf-8", "surrogateescape")
    if not text:
        return []
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


# bytes a pattern costs besides its text (objects, its share of a compiled set)
_PATTERN_COST = 400


# grep's trouble status
WRITE_FAILURE = WriteFailure(status=2)


@declare("grep", spec=GREP_SPEC, spells="grep", effects=Effects.GREP, write_failure=WRITE_FAILURE)
def cmd_grep(ctx: Ctx) -> int:
    return _grep_main(ctx, default_mode="G")


@declare("egrep", spec=GREP_SPEC, spells="grep", effects=Effects.GREP, write_failure=WRITE_FAILURE)
def cmd_egrep(ctx: Ctx) -> int:
    ctx.stderr.write(b"egrep: warning: egrep is obsolescent; using grep -E\n")
    return _grep_main(ctx, default_mode="E")


@declare("fgrep", spec=GREP_SPEC, spells="grep", effects=Effects.GREP, write_failure=WRITE_FAILURE)
def cmd_fgrep(ctx: Ctx) -> int:
    ctx.stderr.write(b"fgrep: warning: fgrep is obsolescent; using grep -F\n")
    return _grep_main(ctx, default_mode="F")


def _grep_main(ctx: Ctx, default_mode: str) -> int:
    saved_name = ctx.name
    ctx.name = "grep"
    try:
        return _grep(ctx, default_mode)
    finally:
        ctx.name = saved_name


def _grep(ctx: Ctx, default_mode: str) -> int:
    p, operands = ctx.parse(GREP_SPEC)
    o = Options()
    mode = p.get("mode", default_mode)
    # GNU grep takes one matcher: -E then -F (or egrep -F, as egrep is `grep -E`) is an error
    matchers = {value for key, value in p.order if key == "mode"} | (
        {default_mode} if default_mode != "G" else set()
    )
    if len(matchers) > 1:
        ctx.error("conflicting matchers specified")
        raise CommandExit(2)
    # -C (or -NUM) only fills in whichever of -A/-B was not given
    both = -1
    for key, value in p.order:
        if key == "context":
            both = _int_arg(ctx, value, "ctx")
            o.context = True
    o.before = o.after = max(both, 0)
    if p.has("before_context"):
        o.before = _int_arg(ctx, p["before_context"], "ctx")
        o.context = True
    if p.has("after_context"):
        o.after = _int_arg(ctx, p["after_context"], "ctx")
        o.context = True
    if p.has("max_count"):
        o.max_count = _int_arg(ctx, p["max_count"], "max")
    o.invert = bool(p.get("invert_match"))
    _output_mode(o, p)
    o.only = bool(p.get("only_matching"))
    o.line_numbers = bool(p.get("line_number"))
    o.byte_offset = bool(p.get("byte_offset"))
    o.null_after_name = bool(p.get("null"))
    o.initial_tab = bool(p.get("initial_tab"))
    o.no_messages = bool(p.get("no_messages"))
    o.eol = b"\0" if p.get("null_data") else b"\n"
    if p.has("label"):
        o.label = p["label"]
    if p.has("group_separator"):
        sep = p["group_separator"]
        o.group_sep = None if sep is None else sep.encode("utf-8", "surrogateescape")
    color = p.get("color", "never") if p.has("color") else "never"
    if color is None:
        color = "auto"
    if color not in ("never", "always", "auto", "yes", "no", "force", "tty", "none", "if-tty"):
        ctx.stderr.write(f"{ctx.prog}: invalid argument ‘{color}’ for ‘--color’\n".encode())
        raise CommandExit(2)
    o.color = color in ("always", "yes", "force")
    binary_files = p.get("binary_files", "binary")
    if binary_files not in ("binary", "text", "without-match"):
        ctx.error("unknown binary-files type")
        raise CommandExit(2)
    o.binary = binary_files
    o.recursive = p.get("recursive", "") or ""
    directories = p.get("directories", "read")
    if directories not in ("read", "skip", "recurse"):
        ctx.stderr.write(f"{ctx.prog}: invalid argument ‘{directories}’ for ‘--directories’\n".encode())
        raise CommandExit(2)
    if directories == "recurse" and not o.recursive:
        o.recursive = "r"
    o.directories = directories
    o.include = [compile_pattern(g) for g in p.get("include", [])]
    o.exclude = [compile_pattern(g) for g in p.get("exclude", [])]
    for path in p.get("exclude_from", []):
        o.exclude += [compile_pattern(g) for g in _read_pattern_file(ctx, path) if g]
    o.exclude_dir = [compile_pattern(g.rstrip("/") or g) for g in p.get("exclude_dir", [])]

    # patterns
    patterns: list[str] = []
    have_pats = False
    for key, value in p.order:
        if key == "pats":
            patterns.extend(value.split("\n"))
            have_pats = True
        elif key == "pat_files":
            patterns.extend(_read_pattern_file(ctx, value))
            have_pats = True
    if not have_pats:
        if not operands:
            ctx.stderr.write(
                b"Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n"
            )
            raise CommandExit(2)
        patterns = operands.pop(0).split("\n")

    icase = bool(p.get("icase", False))
    whole = "line" if p.get("line_regexp") else ("word" if p.get("word_regexp") else "")
    rx: Regex | None = None
    line_rx: Regex | None = None
    make_rx: Callable[[], Regex | None] | None = None
    texts = _plain_texts(patterns, mode) if whole != "line" and o.eol == b"\n" else None
    if whole and texts is not None and len(texts) > 1:
        texts = None  # -w over several texts: GNU retries shorter ones at a failed start
    if texts is not None:
        # plain ASCII text compiles without error or warning: compile it when first needed
        if len(texts) == 1 and not icase and not whole:
            o.literal = texts[0]
        else:
            o.literals = tuple(t.lower() for t in texts) if icase else texts
            o.fold = icase
            o.word = bool(whole)
        make_rx = lambda: _compile(ctx, patterns, mode, icase, whole, o)[0]  # noqa: E731
    else:
        rx, line_rx = _compile(ctx, patterns, mode, icase, whole, o)

    if o.max_count == 0:
        return 1
    if not o.list_nonmatching and (
        (not patterns and not o.invert) or (o.invert and not whole and patterns and not any(patterns))
    ):
        # GNU gives up before reading when no line can be selected (no pattern at all, or -v of
        # the empty one that every line matches): not even -c prints
        return 1
    names = operands
    if not names:
        names = ["."] if o.recursive else ["-"]
        implicit = bool(o.recursive)
    else:
        implicit = False
    fname = p.get("fname")
    if fname is None:
        o.with_fname = len(names) > 1 or bool(o.recursive)
        if o.recursive and len(names) == 1 and not implicit:
            st = ctx.fs.try_stat(names[0]) if names[0] != "-" else None
            o.with_fname = st is not None and st.is_dir
    else:
        o.with_fname = bool(fname)

    searcher = Searcher(ctx, rx, line_rx, o, make_rx)
    for name in names:
        if _search_operand(searcher, name, implicit) and o.quiet:
            return 0
    if searcher.error and not (o.quiet and searcher.any_selected):
        return 2
    return 0 if searcher.any_selected else 1


def _compile(
    ctx: Ctx, patterns: list[str], mode: str, icase: bool, whole: str, o: Options
) -> tuple[Regex | None, Regex | None]:
    from ...regex import RegexError, compile_regex
    from ...regex.lookbehind import variable_lookbehind

    if not patterns:
        o.never = True
        return None, None
    try:
        if mode == "P":
            if len(patterns) > 1:
                ctx.error("the -P option only supports a single pattern")
                raise CommandExit(2)
            pat = patterns[0]
            if variable_lookbehind(pat):  # (the fallback engine would take it: PCRE2 does not)
                ctx.error("lookbehind assertion is not fixed length")
                raise CommandExit(2)
            line_rx = compile_regex(pat, "pcre", icase, whole=whole, budget=ctx.budget)
            o.per_line = True
            if any(t in pat for t in ("\\A", "\\z", "\\Z", "\\G", "(?-m", "(?s")) or o.eol != b"\n":
                return line_rx, line_rx
            rx = compile_regex(pat, "pcre", icase, line_mode=True, whole=whole, budget=ctx.budget)
            return rx, line_rx
        if mode == "F":
            pats = [_fixed_to_bre(x) for x in patterns]
            flavor = "bre"
        else:
            pats = patterns
            flavor = "ere" if mode == "E" else "bre"
        if o.eol != b"\n":
            rx = compile_regex(pats, flavor, icase, dialect="grep", whole=whole, budget=ctx.budget)
            for w in rx.warnings:
                ctx.error(f"warning: {w}")
            return rx, rx
        rx = compile_regex(
            pats, flavor, icase, dialect="grep", line_mode=True, whole=whole, budget=ctx.budget
        )
        for w in rx.warnings:
            ctx.error(f"warning: {w}")
        return rx, None
    except RegexError as e:
        if e.kind == "class_syntax":
            ctx.error(e.message)
        else:
            ctx.error(e.message)
        raise CommandExit(2)


def _glob_ok(o: Options, base: str, cmdline: bool) -> bool:
    if o.include and not any(g.fullmatch(base) for g in o.include):
        if not o.exclude or cmdline:
            return False
        return False
    return not any(g.fullmatch(base) for g in o.exclude)


def _search_operand(s: Searcher, name: str, implicit: bool) -> bool:
    ctx = s.ctx
    o = s.o
    if name == "-":
        return s.search_stream(ctx.stdin, o.label)
    if ctx.names_fd(name):  # grep <(cmd): the descriptor itself
        try:
            return s.search_stream(ctx.open_in(name), name)
        except FsError as e:
            s.error = True
            if not o.no_messages:
                ctx.fs_error(e, name)
            return False
    try:
        st = ctx.fs.stat(name)
    except FsError as e:  # missing, or refused by the policy: its own reason, as GNU grep prints errno's
        s.error = True
        if not o.no_messages:
            ctx.fs_error(e, name)
        return False
    base = name.rstrip("/").rsplit("/", 1)[-1]
    if st.is_dir:
        if o.recursive:
            if (
                o.exclude_dir
                and not implicit
                and any(g.fullmatch(base) for g in o.exclude_dir)
                and name not in (".", "..")
            ):
                return False
            return _search_dir(s, name, implicit)
        if o.directories == "skip":
            return False
        # read as a file, as GNU does: the read fails (named), the input ends (-c counts 0, -L names it)
        return s.search_stream(DirStream(), name)
    if (o.include or o.exclude) and not _glob_ok(o, base, True):
        return False
    return _search_file(s, name, name)


def _search_file(s: Searcher, path: str, shown: str) -> bool:
    ctx = s.ctx
    try:
        stream = ctx.open_in(path)
    except FsError as e:
        s.error = True
        if not s.o.no_messages:
            ctx.error(f"{shown}: {e.message}")
        return False
    try:
        return s.search_stream(stream, shown)
    except FsError as e:
        s.error = True
        if not s.o.no_messages:
            ctx.error(f"{shown}: {e.message}")
        return False
    finally:
        if stream is not ctx.stdin:
            stream.close()


def _search_dir(s: Searcher, top: str, implicit: bool) -> bool:
    ctx = s.ctx
    o = s.o
    found = False
    try:
        names = sorted(ctx.fs.listdir(top))
    except FsError as e:
        s.error = True
        if not o.no_messages:
            ctx.error(f"{top}: {e.message}")
        return False
    for n, lst in zip(names, ctx.fs.lstat_many(top, names), strict=True):
        ctx.checkpoint()
        if implicit and top == ".":
            path = n
        else:
            path = top + n if top.endswith("/") else top + "/" + n
        if isinstance(lst, FsError):
            continue
        if lst.is_link and o.recursive != "R":
            continue
        st = ctx.fs.try_stat(path) if lst.is_link else lst
        if st is None:
            continue
        if st.is_dir:
            if any(g.fullmatch(n) for g in o.exclude_dir):
                continue
            if _search_dir(s, path, False):
                found = True
                if o.quiet:
                    return True
            continue
        if not st.is_file:
            continue
        if (o.include or o.exclude) and not _glob_ok(o, n, False):
            continue
        if _search_file(s, path, path):
            found = True
            if o.quiet:
                return True
    return found
