"""fold (wrap lines at a width) and fmt (GNU's optimal paragraph filling)."""

from __future__ import annotations

from functools import cache

from ..context import Ctx
from ..gnuquote import quote as gnu_quote
from ..options import CommandSpec, Opt, OptionValueError
from ..record import Effects, declare
from ..textbasic.common import (
    RECORD_OVERHEAD,
    Out,
    encode,
    fail,
    quote,
    read_chunks,
    read_held,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from dataclasses import dataclass
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass

FOLD_SPEC = CommandSpec(
    name="fold",
    summary="Wrap input lines in each FILE, writing to standard output.",
    numeric="width",
    opts=(
        Opt("b", "bytes", help="count bytes rather than columns"),
        Opt("s", "spaces", help="break at spaces"),
        Opt(
            "w",
            "width",
            arg="required",
            metavar="WIDTH",
            help="use WIDTH columns instead of 80",
            type=lambda text: _fold_width(text),
        ),
    ),
)


def _fold_width(text: str) -> int:
    """A width as GNU reads it while parsing the options (so a bad one is reported before a
    later bad option): decimal digits after blanks."""
    digits = text.lstrip(" \t\n\v\f\r")
    if not digits.isdigit() or not digits.isascii():
        raise OptionValueError(f"invalid number of columns: {gnu_quote(text)}")
    value = int(digits)
    if value >= 1 << 64:  # past uintmax_t
        raise OptionValueError(
            f"invalid number of columns: {gnu_quote(text)}: Value too large for defined data type"
        )
    if value < 1 or value > (1 << 64) - 1 - 9:  # GNU's range: 1 to SIZE_MAX - TAB_WIDTH - 1
        raise OptionValueError(f"invalid number of columns: {gnu_quote(text)}: Numerical result out of range")
    return value


def _adjust(column: int, c: int, count_bytes: bool) -> int:
    if count_bytes:
        return column + 1
    if c == 8:
        return column - 1 if column > 0 else 0
    if c == 13:
        return 0
    if c == 9:
        return column + 8 - column % 8
    return column + 1


_SPECIAL = (b"\t", b"\b", b"\r")


class Folder:
    """GNU fold_file's state across reads: the output line being built (`buf`, at most `width`
    columns) and its column, so a line without end streams in pieces, as GNU's does, instead of
    being held whole."""

    def __init__(self, width: int, count_bytes: bool, spaces: bool) -> None:
        self.width = width
        self.count_bytes = count_bytes
        self.spaces = spaces
        self.buf = bytearray()
        self.column = 0

    def feed(self, data: bytes) -> list[bytes]:
        """The output `data` completes (lines with their newlines); the rest waits in `buf`."""
        out: list[bytes] = []
        segments = data.split(b"\n")
        last = len(segments) - 1
        for i, seg in enumerate(segments):
            if seg:
                self._segment(seg, out)
            if i < last:
                out.append(bytes(self.buf) + b"\n")
                self.buf.clear()
                self.column = 0
        return out

    def end(self) -> bytes:
        """What an input without a final newline leaves, written as it is (GNU)."""
        rest = bytes(self.buf)
        self.buf.clear()
        self.column = 0
        return rest

    def _segment(self, seg: bytes, out: list[bytes]) -> None:
        if not self.spaces and (self.count_bytes or not any(c in seg for c in _SPECIAL)):
            self._plain(seg, out)
        else:
            self._chars(seg, out)

    def _plain(self, seg: bytes, out: list[bytes]) -> None:
        """Bytes of one column each, without -s: cut every `width` columns (a full line waits
        in `buf` until a next byte shows it must be broken, as GNU's column > width)."""
        width, buf = self.width, self.buf
        room = width - self.column
        if len(seg) <= room:
            buf += seg
            self.column += len(seg)
            return
        if room > 0 or buf:
            out.append(bytes(buf) + seg[: max(room, 0)] + b"\n")
        pos = max(room, 0)  # (room < 0: a tab alone past the width, broken before the next byte)
        buf.clear()
        n = len(seg)
        while n - pos > width:
            out.append(seg[pos : pos + width] + b"\n")
            pos += width
        buf += seg[pos:]
        self.column = n - pos

    def _chars(self, seg: bytes, out: list[bytes]) -> None:
        """GNU fold_file one byte at a time (tabs, backspaces, carriage returns, -s)."""
        width, count_bytes, spaces, buf = self.width, self.count_bytes, self.spaces, self.buf
        column = self.column
        i = 0
        n = len(seg)
        while i < n:
            c = seg[i]
            column = _adjust(column, c, count_bytes)
            if column > width:
                if spaces:
                    end = max(buf.rfind(b" "), buf.rfind(b"\t"))
                    if end >= 0:
                        out.append(bytes(buf[: end + 1]) + b"\n")
                        del buf[: end + 1]
                        column = 0
                        for b in buf:
                            column = _adjust(column, b, count_bytes)
                        continue  # rescan this character
                if not buf:
                    buf.append(c)
                    i += 1
                    continue
                out.append(bytes(buf) + b"\n")
                buf.clear()
                column = 0
                continue
            buf.append(c)
            i += 1
        self.column = column


@declare("fold", spec=FOLD_SPEC, effects=Effects.READS, stdin_close="-")
def cmd_fold(ctx: Ctx) -> int:
    opts, files = ctx.parse(FOLD_SPEC)
    width: int = opts.get("width", 80)
    folder = Folder(width, bool(opts.get("bytes")), bool(opts.get("spaces")))
    out = Out(ctx.stdout)
    inputs = ctx.inputs(files, flush=out.flush)
    for _name, stream in inputs:
        # what waits is at most a line's `width` columns (a huge -w on a line without end: GNU
        # grows its buffer as far as the line goes), charged while it waits
        with ctx.hold_memory() as mem, inputs.reading():
            for chunk in read_chunks(ctx, stream):
                pieces = folder.feed(chunk)
                mem.set(len(folder.buf))
                if pieces:
                    out.write(b"".join(pieces))
            mem.set(2 * len(folder.buf))  # (the last piece and its copy, as it is written)
            out.write(folder.end())  # (GNU's fold_file: each file's last piece, the next at column 0)
    out.flush()
    return inputs.status


# ------------------------------------------------------------------ fmt

FMT_SPEC = CommandSpec(
    name="fmt",
    usage="[-WIDTH] [OPTION]... [FILE]...",
    summary="Reformat each paragraph in the FILE(s), writing to standard output.",
    opts=(
        # `-WIDTH` is read only as the first argument (cmd_fmt); anywhere else GNU's getopt takes
        # each digit as an option that fails
        *(Opt(d, None, dest=f"late_digit_{d}") for d in "0123456789"),
        Opt("c", "crown-margin", help="preserve indentation of first two lines"),
        Opt(
            "p", "prefix", arg="required", metavar="STRING", help="reformat only lines beginning with STRING"
        ),
        Opt("s", "split-only", help="split long lines, but do not refill"),
        Opt("t", "tagged-paragraph", help="indentation of first line different from second"),
        Opt("u", "uniform-spacing", help="one space between words, two after sentences"),
        Opt("w", "width", arg="required", metavar="WIDTH", help="maximum line width (default of 75 columns)"),
        Opt("g", "goal", arg="required", metavar="WIDTH", help="goal width (default of 93% of width)"),
    ),
)

MAXWORDS = 1000
MAXCHARS = 5000
_WORDS_PER_CHECK = 4096  # words read, or placed in lines, between two deadline checks


@cache
def _word_re() -> re.Pattern[bytes]:
    """A word (its first character, then up to an isspace() one) and the blanks after it (our own
    pattern: stdlib re, compiled at fmt's first run)."""
    import re

    return re.compile(b"(?s)(.[^ \t\n\v\f\r]*)([ \t]*)")


def _equiv(n: int) -> int:
    return n * n


# GNU's SHORT_COST(n), a line n columns off the goal width, is _equiv(n * 10); its RAGGED_COST(n),
# adjacent lines n columns apart in length, half that: both are written into _Fmt._fmt's loop
LINE_COST = _equiv(70)
SENTENCE_BONUS = _equiv(50)
NOBREAK_COST = _equiv(600)
PAREN_BONUS = _equiv(40)
PUNCT_BONUS = _equiv(40)
LINE_CREDIT = _equiv(3)  # what a flush adds per line it looks past
MAXCOST = 2**62


@dataclass
class _Word:
    text: bytes
    length: int
    space: int = 1
    paren: bool = False
    punct: bool = False
    period: bool = False
    final: bool = False
    best_cost: int = 0
    next_break: int = 0
    line_length: int = 0


_PUNCT = set(b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _check_punctuation(w: _Word) -> None:
    t = w.text
    w.paren = t[:1] in (b"(", b"[", b"'", b"`", b'"')
    w.punct = t[-1] in _PUNCT
    end = len(t) - 1
    while end > 0 and t[end : end + 1] in (b")", b"]", b"'", b'"'):
        end -= 1
    w.period = t[end : end + 1] in (b".", b"?", b"!")


class _Fmt:
    """A port of GNU fmt's paragraph reading, line breaking and output."""

    def __init__(
        self, out: Out, width: int, goal: int, opts: dict[str, object], tick: Callable[[int], None]
    ) -> None:
        self.out = out
        self.tick = tick  # charges words worked on to the run and checks its deadline
        self.max_width = width
        self.goal = goal
        self.crown = bool(opts.get("crown_margin"))
        self.tagged = bool(opts.get("tagged_paragraph"))
        self.split_only = bool(opts.get("split_only"))
        self.uniform = bool(opts.get("uniform_spacing"))
        prefix = opts.get("prefix")
        raw = encode(prefix) if isinstance(prefix, str) else b""
        self.prefix_lead = len(raw) - len(raw.lstrip(b" \t"))
        self.prefix = raw.lstrip(b" \t").rstrip(b" \t")
        self.prefix_full = len(raw.lstrip(b" \t"))
        self.tabs = False
        self.last_line_length = 0
        self.prefix_indent = 0
        self.other_indent = 0

    # -- reading

    def _indent_of(self, line: bytes) -> tuple[int, int]:
        """(column after leading blanks, byte offset) with tabs expanded."""
        col = 0
        i = 0
        while i < len(line) and line[i] in (32, 9):
            if line[i] == 9:
                self.tabs = True
                col = (col // 8 + 1) * 8
            else:
                col += 1
            i += 1
        return col, i

    def _prefixed(self, line: bytes) -> tuple[bool, int, int, int]:
        """(has the prefix, prefix indent, text column, text offset)."""
        pcol, pi = self._indent_of(line)
        if not self.prefix:
            return True, min(self.prefix_lead, pcol), pcol, pi
        if not line.startswith(self.prefix, pi):
            # GNU reads the prefix's letters as far as they match (copy_rest writes them back)
            m = 0
            while m < len(self.prefix) and pi + m < len(line) and line[pi + m] == self.prefix[m]:
                m += 1
            return False, pcol, pcol + m, pi + m
        after = pi + len(self.prefix)
        col = pcol + len(self.prefix)
        i = after
        while i < len(line) and line[i] in (32, 9):
            if line[i] == 9:
                self.tabs = True
                col = (col // 8 + 1) * 8
            else:
                col += 1
            i += 1
        return True, pcol, col, i

    def _words(self, line: bytes, start: int, col: int, last_line: bool = False) -> list[_Word]:
        """The words of `line` from `start`, as GNU's get_line reads them: a word is its first
        character, whatever it is, and the characters up to the next isspace() one (\\v, \\f and
        \\r end a word); only blanks and tabs after it are its spacing. (A regex finds each word: a
        Python step a character took seconds for one long line.)"""
        words: list[_Word] = []
        n = len(line)
        tick = self.tick
        for m in _word_re().finditer(line, start):
            text, blanks = m.groups()
            if not text:
                break  # (the end of the line)
            w = _Word(text, len(text))
            col += len(text)
            _check_punctuation(w)
            start_col = col
            if b"\t" in blanks:
                self.tabs = True
                for c in blanks:
                    col = (col // 8 + 1) * 8 if c == 9 else col + 1
            else:
                col += len(blanks)
            w.space = col - start_col
            at_end = m.end() >= n
            w.final = (at_end and last_line) or (w.period and (at_end or w.space > 1))
            if at_end or self.uniform:
                w.space = 2 if w.final else 1
            words.append(w)
            if not len(words) % _WORDS_PER_CHECK:
                tick(_WORDS_PER_CHECK)
        return words

    def run(self, lines: list[bytes]) -> None:
        i = 0
        n = len(lines)
        while i < n:
            line = lines[i]
            ok, pind, col, off = self._prefixed(line)
            if off >= len(line) or not ok or pind < self.prefix_lead:
                self.tick(1)
                self._copy_rest(line, pind, col, off)
                i += 1
                continue
            self.prefix_indent = pind
            first_indent = col
            words = self._words(line, off, col, i == n - 1)
            i += 1

            nxt_same, ncol, noff = self._same(lines, i, pind)
            if self.split_only:
                other = first_indent
            elif self.crown:
                other = ncol if nxt_same else first_indent
            elif self.tagged:
                # one line: keep the previous paragraph's indent unless it equals this one
                other = self.other_indent
                if nxt_same and ncol != first_indent:
                    other = ncol
                elif other == first_indent:
                    other = 3 if first_indent == 0 else 0
            else:
                other = first_indent
            self.other_indent = other
            if not self.split_only:
                if self.crown:
                    if nxt_same:
                        while True:
                            words += self._words(lines[i], noff, ncol, i == n - 1)
                            i += 1
                            nxt_same, ncol, noff = self._same(lines, i, pind)
                            if not (nxt_same and ncol == other):
                                break
                elif self.tagged:
                    if nxt_same and ncol != first_indent:
                        while True:
                            words += self._words(lines[i], noff, ncol, i == n - 1)
                            i += 1
                            nxt_same, ncol, noff = self._same(lines, i, pind)
                            if not (nxt_same and ncol == other):
                                break
                else:
                    while nxt_same and ncol == other:
                        words += self._words(lines[i], noff, ncol, i == n - 1)
                        i += 1
                        nxt_same, ncol, noff = self._same(lines, i, pind)
            self._paragraph(words, first_indent, other)

    def _copy_rest(self, line: bytes, indent: int, col: int, off: int) -> None:
        """A blank line or one outside the paragraphs, as GNU's copy_rest writes it: its indentation
        and the prefix letters read are written again (as _space spaces, with tabs once the input has
        shown one), then the rest of the line as it is."""
        rest = line[off:]
        if col <= indent and not rest:  # a blank line (or one of only its indentation)
            self.out.write(b"\n")
            return
        sp, out_col = self._space(0, indent)
        matched = self.prefix[: max(0, min(len(self.prefix), col - out_col))]
        out_col += len(matched)
        sp2 = self._space(out_col, col - out_col)[0] if rest else b""
        self.out.write(sp + matched + sp2 + rest + b"\n")

    def _same(self, lines: list[bytes], k: int, pind: int) -> tuple[bool, int, int]:
        """Does line k continue the paragraph: (same, its text column, its text offset)."""
        if k >= len(lines):
            return False, 0, 0
        self.tick(1)  # (each line is looked at here before its paragraph takes it)
        ok, pind2, col, off = self._prefixed(lines[k])
        return (ok and pind2 == pind and off < len(lines[k])), col, off

    # -- breaking

    def _paragraph(self, words: list[_Word], first_indent: int, other_indent: int) -> None:
        self.last_line_length = 0  # only a flushed part of this paragraph counts
        if words:
            words[-1].final = words[-1].period = True  # the paragraph's end ends a sentence
        # GNU holds at most MAXWORDS - 1 words and MAXCHARS bytes of a paragraph: when either fills
        # up while reading, it prints the best first part (before the word being read) and goes on
        start, chars = 0, 0
        for i, w in enumerate(words):
            if chars + w.length > MAXCHARS and i > start:
                start = self._flush(words, start, i, first_indent, other_indent)
                first_indent = other_indent
                chars = sum(x.length for x in words[start:i])
            chars += w.length
            if i - start == MAXWORDS - 2 and i + 1 < len(words):
                start = self._flush(words, start, i, first_indent, other_indent)
                first_indent = other_indent
                chars = sum(x.length for x in words[start : i + 1])
        rest = words[start:]
        self._fmt(rest, first_indent, other_indent)
        self._put(rest, len(rest), first_indent, other_indent)

    def _flush(self, words: list[_Word], start: int, end: int, first_indent: int, other_indent: int) -> int:
        """Print the best first lines of words[start:end]; the index where the rest starts."""
        chunk = words[start:end]
        self._fmt(chunk, first_indent, other_indent)
        split = len(chunk)
        best = MAXCOST
        w = chunk[0].next_break
        while w != len(chunk):
            nb = chunk[w].next_break
            cost = chunk[w].best_cost - (chunk[nb].best_cost if nb < len(chunk) else 0)
            if cost < best:
                split = w
                best = cost
            if best <= MAXCOST - LINE_CREDIT:
                best += LINE_CREDIT
            w = nb
        self._put(chunk, split, first_indent, other_indent)
        return start + split

    def _base_cost(self, words: list[_Word], i: int) -> int:
        cost = LINE_COST
        if i > 0:
            prev = words[i - 1]
            if prev.period:
                cost += -SENTENCE_BONUS if prev.final else NOBREAK_COST
            elif prev.punct:
                cost -= PUNCT_BONUS
            elif i > 1 and words[i - 2].final:
                cost += _equiv(200) // (prev.length + 2)
        w = words[i]
        if w.paren:
            cost -= PAREN_BONUS
        elif w.final:
            cost += _equiv(150) // (w.length + 2)
        return cost

    def _fmt(self, words: list[_Word], first_indent: int, other_indent: int) -> None:
        """GNU's fmt_paragraph: each word's best line break, from the last word back. (GNU's
        line_cost, SHORT_COST and RAGGED_COST are written in: this loop runs up to a line's words
        for each word. At most MAXWORDS words a call: one deadline check a call.)"""
        limit = len(words)
        self.tick(limit + 1)
        goal = self.goal
        max_width = self.max_width
        last = self.last_line_length
        for start in range(limit - 1, -1, -1):
            best = MAXCOST
            first = words[start]
            length = (first_indent if start == 0 else other_indent) + first.length
            w = start
            while True:
                w += 1
                if w == limit:
                    wcost = 0
                else:
                    nxt = words[w]
                    d = (goal - length) * 10
                    wcost = d * d + nxt.best_cost
                    if nxt.next_break != limit:
                        d = (length - nxt.line_length) * 10
                        wcost += d * d // 2
                if start == 0 and last > 0:
                    d = (length - last) * 10
                    wcost += d * d // 2
                if wcost < best:
                    best = wcost
                    first.next_break = w
                    first.line_length = length
                if w == limit:
                    break
                length += words[w - 1].space + words[w].length
                if length >= max_width:
                    break
            first.best_cost = best + self._base_cost(words, start)

    # -- output

    def _space(self, col: int, n: int) -> tuple[bytes, int]:
        target = col + n
        out = bytearray()
        if self.tabs:
            tab_target = target // 8 * 8
            if col + 1 < tab_target:
                while col < tab_target:
                    out += b"\t"
                    col = (col // 8 + 1) * 8
        while col < target:
            out += b" "
            col += 1
        return bytes(out), col

    def _put(self, words: list[_Word], finish: int, first_indent: int, other_indent: int) -> None:
        i = 0
        indent = first_indent
        while i < finish:
            end = words[i].next_break
            parts = bytearray()
            sp, col = self._space(0, self.prefix_indent)
            parts += sp + self.prefix
            col += len(self.prefix)
            sp, col = self._space(col, indent - col)
            parts += sp
            for k in range(i, end):
                parts += words[k].text
                col += words[k].length
                if k < end - 1:
                    sp, col = self._space(col, words[k].space)
                    parts += sp
            self.last_line_length = col
            self.out.write(bytes(parts) + b"\n")
            i = end
            indent = other_indent


@declare("fmt", spec=FMT_SPEC, effects=Effects.READS, stdin_close="closing standard input")
def cmd_fmt(ctx: Ctx) -> int:
    args = list(ctx.args)
    width_text: str | None = None
    if args and len(args[0]) > 1 and args[0][0] == "-" and args[0][1].isdigit():
        width_text = args.pop(0)[1:]  # the obsolete `-WIDTH`, whole (`-6x` is an invalid width)
    opts, files = ctx.parse(FMT_SPEC, args)
    for key, _ in opts.order:
        if key.startswith("late_digit_"):
            raise ctx.usage_error(
                f"invalid option -- {key[-1]}; -WIDTH is recognized only when it is the first\n"
                "option; use -w N instead"
            )
    if opts.get("width") is not None:
        width_text = opts.get("width")
    width = 75
    goal: int | None = None
    if width_text is not None:
        width = _fmt_num(ctx, width_text, 2500)
    if opts.get("goal") is not None:
        goal = _fmt_num(ctx, opts.get("goal"), width)  # the goal is at most the width
        if width_text is None:
            width = goal + 10
    if goal is None:
        goal = width * (2 * (100 - 7) + 1) // 200
    out = Out(ctx.stdout)
    inputs = ctx.inputs(files, "cannot open {af} for reading: {err}", "read error", out.flush)
    for _name, stream in inputs:
        with ctx.hold_memory() as mem, inputs.reading():
            data = read_held(ctx, stream, mem)
            # the lines, then a paragraph's words (objects, widths, line breaks)
            mem.charge(len(data) * 2 + RECORD_OVERHEAD * data.count(b"\n") + 160 * data.count(b" "))
            lines = data.split(b"\n")
            if lines and lines[-1] == b"":
                lines.pop()
            ctx.checkpoint(len(lines) + 1)
            fmt = _Fmt(out, width, goal, opts.values, ctx.checkpoint)
            fmt.run(lines)
    out.flush()
    return inputs.status


def _fmt_num(ctx: Ctx, text: str, most: int) -> int:
    """GNU's xdectoumax(TEXT, 0, MOST): decimal digits after blanks, no sign; `invalid width` for
    both -w and -g (MAXCHARS / 2 = 2500 for -w, the width for -g)."""
    digits = text.lstrip(" \t\n\v\f\r")
    if not digits.isdigit() or not digits.isascii():
        raise fail(ctx, f"invalid width: {quote(ctx, text)}")
    if int(digits) > most:
        raise fail(ctx, f"invalid width: {quote(ctx, text)}: Numerical result out of range")
    return int(digits)
