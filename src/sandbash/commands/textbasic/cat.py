"""cat, tac, rev and tee."""

from __future__ import annotations

import errno
import re

from ...limits import MemoryHold
from ...stdio.streams import Stream, StreamError
from ...vfs.errors import FsError, strerror
from ...vfs.facade import FileStream
from ..context import Ctx
from ..fsutil import input_is_output
from ..options import CommandSpec, Opt
from ..record import LOSES_ERRNO, Effects, declare
from .common import (
    RECORD_OVERHEAD,
    Out,
    decode,
    encode,
    file_error,
    quote,
    quotef,
    read_chunks,
    read_held,
    split_records,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ...vfs.base import FileHandle

CAT_SPEC = CommandSpec(
    name="cat",
    summary="Concatenate FILE(s) to standard output.",
    opts=(
        Opt("A", "show-all", help="equivalent to -vET"),
        Opt("b", "number-nonblank", help="number nonempty output lines, overrides -n"),
        Opt("e", None, help="equivalent to -vE"),
        Opt("E", "show-ends", help="display $ at end of each line"),
        Opt("n", "number", help="number all output lines"),
        Opt("s", "squeeze-blank", help="suppress repeated empty output lines"),
        Opt("t", None, help="equivalent to -vT"),
        Opt("T", "show-tabs", help="display TAB characters as ^I"),
        Opt("u", None, help="(ignored)"),
        Opt("v", "show-nonprinting", help="use ^ and M- notation, except for LFD and TAB"),
    ),
)


def _caret_table(show_tabs: bool) -> list[bytes]:
    """cat -v's notation for every byte value."""
    table: list[bytes] = []
    for b in range(256):
        prefix = b""
        c = b
        if c >= 128:
            prefix = b"M-"
            c -= 128
        if c < 32:
            rep = b"^" + bytes([c + 64])
        elif c == 127:
            rep = b"^?"
        else:
            rep = bytes([c])
        table.append(prefix + rep)
    table[9] = b"^I" if show_tabs else b"\t"
    table[10] = b"\n"
    return table


class _CatFormatter:
    """Line numbering, squeezing and notation that carry over from one file to the next."""

    def __init__(
        self, number: bool, nonblank: bool, squeeze: bool, ends: bool, nonprint: bool, tabs: bool
    ) -> None:
        self.number = number or nonblank
        self.nonblank = nonblank
        self.squeeze = squeeze
        self.eol = b"$\n" if ends else b"\n"
        self.lineno = 0
        self.at_start = True
        self.blanks = 0
        self.pattern: re.Pattern[bytes] | None = None
        self.table: list[bytes] = []
        if nonprint:
            self.table = _caret_table(tabs)
            self.pattern = re.compile(
                rb"[\x00-\x08\x0b-\x1f\x7f-\xff]" if not tabs else rb"[\x00-\x09\x0b-\x1f\x7f-\xff]"
            )
        elif tabs:
            self.table = [bytes([b]) for b in range(256)]
            self.table[9] = b"^I"
            self.pattern = re.compile(rb"\t")

    def _text(self, data: bytes) -> bytes:
        if self.pattern is not None and data:
            table = self.table
            return self.pattern.sub(lambda m: table[m.group()[0]], data)
        return data

    def _prefix(self) -> bytes:
        self.lineno += 1
        return b"%6d\t" % self.lineno

    def feed(self, lines: list[bytes], tail: bool, out: Out) -> None:
        """`lines` are complete lines, except the last one when `tail`."""
        last = len(lines) - 1
        for i, line in enumerate(lines):
            terminated = not (tail and i == last)
            if not terminated:
                if line:
                    if self.at_start:
                        self.blanks = 0
                        if self.number:
                            out.write(self._prefix())
                    out.write(self._text(line))
                    self.at_start = False
                continue
            if self.at_start and not line:
                if self.squeeze and self.blanks >= 1:
                    continue
                self.blanks += 1
                if self.number and not self.nonblank:
                    out.write(self._prefix())
                out.write(self.eol)
                continue
            if self.at_start:
                self.blanks = 0
                if self.number:
                    out.write(self._prefix())
            out.write(self._text(line) + self.eol)
            self.at_start = True
            self.blanks = 0


@declare("cat", spec=CAT_SPEC, effects=Effects.READS, stdin_close="closing standard input")
def cmd_cat(ctx: Ctx) -> int:
    opts, files = ctx.parse(CAT_SPEC)
    show_all = bool(opts.get("show_all"))
    nonprint = bool(opts.get("show_nonprinting") or opts.get("e") or opts.get("t") or show_all)
    ends = bool(opts.get("show_ends") or opts.get("e") or show_all)
    tabs = bool(opts.get("show_tabs") or opts.get("t") or show_all)
    fmt = None
    if (
        nonprint
        or ends
        or tabs
        or opts.get("number")
        or opts.get("number_nonblank")
        or opts.get("squeeze_blank")
    ):
        fmt = _CatFormatter(
            bool(opts.get("number")),
            bool(opts.get("number_nonblank")),
            bool(opts.get("squeeze_blank")),
            ends,
            nonprint,
            tabs,
        )
    out = Out(ctx.stdout)
    inputs = ctx.inputs(files, flush=out.flush)
    for _name, stream in inputs:
        if input_is_output(ctx, stream, unread_only=True):
            inputs.fail("{f}: input file is output file", None)
            continue
        with inputs.reading():
            if fmt is None:
                for chunk in read_chunks(ctx, stream):
                    out.write(chunk)
                    out.flush()
            else:
                for lines, tail in split_records(ctx, stream):
                    fmt.feed(lines, tail, out)
                    out.flush()  # what was read is written at once (a coprocess waits for it)
    out.flush()
    return inputs.status


# ------------------------------------------------------------------ tac

TAC_SPEC = CommandSpec(
    name="tac",
    summary="Write each FILE to standard output, last line first.",
    opts=(
        Opt("b", "before", help="attach the separator before instead of after"),
        Opt("r", "regex", help="interpret the separator as a regular expression"),
        Opt(
            "s",
            "separator",
            arg="required",
            metavar="STRING",
            help="use STRING as the separator instead of newline",
        ),
    ),
)


def _emacs_to_ere(pattern: str) -> str:
    """tac compiles its -r separator with GNU regex's default syntax (RE_SYNTAX_EMACS, no bits
    set): `+` `?` are operators and `\\+` `\\?` literal, `\\( \\) \\|` group and alternate,
    braces are literal. The same pattern in ERE words."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "[":  # a bracket ends at the first `]` not first in it: no [:class:] in this syntax
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            end = pattern.find("]", j)
            if end < 0:
                out.append(pattern[i:])  # (unmatched: the compiler's error)
                break
            head, body = pattern[i:j], pattern[j:end]
            # its `[` are plain members: last in the list, ERE cannot read them as `[:`
            bracket = head + body.replace("[", "") + ("[" if "[" in body else "") + "]"
            if head.endswith("^") and "\n" not in body:
                # a list that excludes characters still takes a newline in this syntax (no
                # RE_HAT_LISTS_NOT_NEWLINE), where the multiline compile would refuse it one
                bracket = f"({bracket}|\n)"
            out.append(bracket)
            i = end + 1
        elif c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            out.append({"(": "(", ")": ")", "|": "|", "{": "\\{", "}": "\\}"}.get(d, "\\" + d))
            i += 2
        else:
            out.append({"(": "\\(", ")": "\\)", "|": "\\|", "{": "\\{", "}": "\\}"}.get(c, c))
            i += 1
    return "".join(out)


def _tac_records(ctx: Ctx, data: bytes, sep: bytes, before: bool, regex: bool) -> list[bytes]:
    """Split into records each keeping its separator (after, or before with -b). GNU tac looks
    for the separator from the end: each one found is the rightmost (by its start) that fits
    before the one after it ('ana' in 'banana' is the second, not the first)."""
    spans: list[tuple[int, int]] = []
    if regex:
        from ...regex import compile_regex

        # re_compile_pattern anchors at newlines and its `.` never matches one (REG_NEWLINE)
        rx = compile_regex(_emacs_to_ere(decode(sep)), flavor="ere", multiline=True)
        pos = len(data)
        first = rx.search(data, 0, pos)
        start = pos - 1
        # starts are tried right to left, never left of the leftmost match that fits
        while first is not None and start >= first.start():
            m = rx.match(data, start, pos)
            if m is not None:  # (an empty match, as `^`'s, is a boundary too)
                spans.append((start, m.end()))
                pos = start
                first = rx.search(data, 0, pos)
            start -= 1
            if start % 4096 == 0:
                ctx.checkpoint()
        spans.reverse()
    else:
        pos = len(data)
        while True:
            idx = data.rfind(sep, 0, pos)
            if idx < 0:
                break
            spans.append((idx, idx + len(sep)))
            pos = idx
        spans.reverse()
    records: list[bytes] = []
    if not before:
        start = 0
        for _s, e in spans:
            records.append(data[start:e])
            start = e
        if start < len(data):
            records.append(data[start:])
    else:
        start = 0
        for s, _e in spans:
            if s > start:
                records.append(data[start:s])
            start = s
        records.append(data[start:])
        records = [r for r in records if r]
    return records


@declare("tac", spec=TAC_SPEC, effects=Effects.READS, stdin_close="-", write_failure=LOSES_ERRNO)
def cmd_tac(ctx: Ctx) -> int:
    opts, files = ctx.parse(TAC_SPEC)
    sep_text = opts.get("separator")
    sep = encode(sep_text) if sep_text is not None else b"\n"
    if sep_text == "" and opts.get("regex"):
        ctx.error("separator cannot be empty")
        return 1
    if sep_text == "":
        sep = b"\0"  # (GNU's C string: its terminating NUL is the separator)
    before = bool(opts.get("before"))
    regex = bool(opts.get("regex"))
    # a separator that cannot overlap itself splits the same from either end, so its records
    # can be cut out per block with bytes.split; `aa` or a regex is searched from the end
    plain = not regex and not any(sep[:k] == sep[-k:] for k in range(1, len(sep)))
    out = Out(ctx.stdout)
    inputs = ctx.inputs(files, "failed to open {af} for reading: {err}", "{f}: read error: {err}")
    inputs.dir_errno = errno.EINVAL  # (GNU tac seeks to a file's end first: a directory says EINVAL)
    inputs.stdin_name = "standard input"
    with ctx.hold_memory() as mem:
        for _name, stream in inputs:
            with inputs.reading():
                if plain and _tac_seekable(ctx, stream, sep, before, out, mem):
                    continue
                if plain:  # a pipe: its chunks are held as they came, and let go from the end
                    held = _HeldText(ctx, stream, mem)
                    _tac_blocks(ctx, held, held.size, sep, before, out, mem)
                else:
                    _tac_one(ctx, read_held(ctx, stream, mem), sep, before, regex, out, mem)
                mem.set(0)
    out.flush()
    return inputs.status


def _tac_one(ctx: Ctx, data: bytes, sep: bytes, before: bool, regex: bool, out: Out, mem: MemoryHold) -> None:
    """One input, last record first; its text and records are charged to `mem`."""
    if not data:
        return
    # the records copy the text; each also costs an object, a slot and a span
    mem.charge(len(data) + (RECORD_OVERHEAD + 128) * (data.count(sep) + 1))
    records = _tac_records(ctx, data, sep, before, regex)
    ctx.checkpoint(len(records) + 1)
    for rec in reversed(records):
        out.write(rec)


# what tac reads from a file's end at a time (a record longer than this doubles it)
TAC_BLOCK = 1 << 16


class _HeldText:
    """An input that cannot seek, held as the chunks it came in (no joined copy), read from its
    end as a file is; what has been read from the end is let go."""

    __slots__ = ("parts", "size", "held")

    def __init__(self, ctx: Ctx, stream: Stream, mem: MemoryHold) -> None:
        self.parts: list[bytes] = []
        self.size = 0
        for chunk in read_chunks(ctx, stream):
            mem.charge(len(chunk) + RECORD_OVERHEAD)
            self.parts.append(chunk)
            self.size += len(chunk)
        self.held = self.size

    def read_at(self, start: int, end: int) -> bytes:
        # (`end` is always where the previous read began: the held text ends there)
        parts = self.parts
        got: list[bytes] = []
        need = end - start
        while need > 0:
            last = parts.pop()
            if len(last) > need:
                parts.append(last[:-need])
                last = last[-need:]
            got.append(last)
            need -= len(last)
        self.held = start
        got.reverse()
        return b"".join(got)


class _FileText:
    __slots__ = ("handle", "held")

    def __init__(self, handle: FileHandle) -> None:
        self.handle = handle
        self.held = 0

    def read_at(self, start: int, end: int) -> bytes:
        self.handle.seek(start)
        data = self.handle.read(end - start)
        while len(data) < end - start:  # (a short read; a file cut shorter meanwhile ends it)
            more = self.handle.read(end - start - len(data))
            if not more:
                break
            data += more
        return data


def _tac_seekable(ctx: Ctx, stream: Stream, sep: bytes, before: bool, out: Out, mem: MemoryHold) -> bool:
    """A regular file is read from its end, a block at a time, as GNU tac seeks: memory holds a
    block and the record that spans it, not the file (False: not a file that seeks)."""
    if not isinstance(stream, FileStream):
        return False
    handle = stream.handle
    try:
        size = handle.seek(0, 2)
    except FsError:
        return False
    stream.read(stream.buffered())  # (what a `read` before read ahead is in the file, read again)
    # the whole file, from its start wherever the descriptor was (`{ read x; tac; } <f`), as
    # GNU's tac_seekable reads back to offset 0
    _tac_blocks(ctx, _FileText(handle), size, sep, before, out, mem)
    handle.seek(size)
    return True


def _tac_blocks(
    ctx: Ctx, text: _HeldText | _FileText, end: int, sep: bytes, before: bool, out: Out, mem: MemoryHold
) -> None:
    """Records of text[:end], last first, a block at a time from the end. `sep` does not
    overlap itself, so the records after the first separator of a window are all whole."""
    win = b""
    wstart = end
    n = len(sep)
    while wstart > 0:
        size = max(TAC_BLOCK, len(win))  # doubling: a record of any length costs O(its length)
        lo = max(0, wstart - size)
        mem.set(text.held + 2 * (wstart - lo + len(win)))
        win = text.read_at(lo, wstart) + win
        wstart = lo
        ctx.checkpoint((len(win) >> 12) + 1)
        i = win.find(sep)
        if i < 0:
            continue
        cut = i if before else i + n
        _tac_window(win[cut:], sep, before, out)
        win = win[:cut]
    if win:
        out.write(win)  # the first record (`before`: what comes before the first separator)


def _tac_window(region: bytes, sep: bytes, before: bool, out: Out) -> None:
    """Whole records, last first: after a separator (or with -b, from one) to the window's end."""
    if not region:
        return
    pieces = region.split(sep)
    if before:  # sep r1 sep r2 ... sep rm: (sep rm) ... (sep r1)
        del pieces[0]
        pieces.reverse()
        out.write(sep + sep.join(pieces))
        return
    tail = pieces.pop()  # r1 sep ... rm sep tail: tail (rm sep) ... (r1 sep)
    if tail:
        out.write(tail)
    if pieces:
        pieces.reverse()
        out.write(sep.join(pieces) + sep)


# ------------------------------------------------------------------ rev

REV_SPEC = CommandSpec(
    name="rev", usage="[options] [file ...]", summary="Reverse lines characterwise.", opts=()
)


@declare("rev", spec=REV_SPEC, effects=Effects.READS, write_failure=LOSES_ERRNO)
def cmd_rev(ctx: Ctx) -> int:
    _opts, files = ctx.parse(REV_SPEC)
    out = Out(ctx.stdout)
    inputs = ctx.inputs(files, "cannot open {name}: {err}", "{name}: 0: {err}")
    # util-linux rev reads stdin only given no file, and names it `stdin`: an operand `-` is a file
    inputs.dash_is_stdin = not files
    inputs.stdin_name = "-" if files else "stdin"
    for _name, stream in inputs:
        # util-linux rev names a read error with the count of lines it read from that file
        done = 0
        with inputs.reading():
            for lines, tail in split_records(ctx, stream):
                done += len(lines)
                inputs.read_error = f"{{name}}: {done}: {{err}}"
                text = decode(b"\n".join(lines))
                rev = "\n".join(line[::-1] for line in text.split("\n"))
                out.write(encode(rev) + (b"" if tail else b"\n"))
        inputs.read_error = "{name}: 0: {err}"  # (the next file, a directory, read none)
    out.flush()
    return inputs.status


# ------------------------------------------------------------------ tee

TEE_SPEC = CommandSpec(
    name="tee",
    summary="Copy standard input to each FILE, and also to standard output.",
    opts=(
        Opt("a", "append", help="append to the given FILEs, do not overwrite"),
        Opt("i", "ignore-interrupts", help="ignore interrupt signals"),
        Opt("p", None, dest="p", help="diagnose errors writing to non pipes"),
        Opt(None, "output-error", arg="optional", metavar="MODE", help="set behavior on write error"),
    ),
)

_OUTPUT_ERROR_MODES = ("warn", "warn-nopipe", "exit", "exit-nopipe")


@declare("tee", spec=TEE_SPEC, effects=Effects.TEE, stdin_close="standard input")
def cmd_tee(ctx: Ctx) -> int:
    opts, files = ctx.parse(TEE_SPEC)
    mode = opts.get("output_error")
    if opts.has("output_error") and mode is not None:
        matches = [m for m in _OUTPUT_ERROR_MODES if m.startswith(mode)]
        if mode not in _OUTPUT_ERROR_MODES and len(matches) != 1:
            kind = "ambiguous" if matches else "invalid"
            ctx.error(f"{kind} argument {quote(ctx, mode)} for '--output-error'")
            ctx.stderr.write(
                b"Valid arguments are:\n  - 'warn'\n  - 'warn-nopipe'\n  - 'exit'\n  - 'exit-nopipe'\n"
                + f"Try '{ctx.help_prog} --help' for more information.\n".encode()
            )
            return 1
    append = bool(opts.get("append"))
    status = 0
    outputs: list[tuple[str, Stream]] = [("-", ctx.stdout)]
    for name in files:
        try:
            outputs.append((name, ctx.open_out(name, append)))
        except FsError as e:
            file_error(ctx, name, e)
            status = 1
    live = list(outputs)
    ctx.read_stdin = True
    for chunk in read_chunks(ctx, ctx.stdin):
        for item in list(live):
            name, stream = item
            try:
                stream.write(chunk)
            except (FsError, StreamError) as e:
                # (GNU quotes the words as it quotes a name with a space: 'standard output')
                ctx.error(f"{quotef('standard output' if name == '-' else name)}: {strerror(e.errno or 5)}")
                status = 1
                live.remove(item)
    for name, stream in outputs[1:]:
        if not name.startswith("/dev/"):
            stream.close()
    return status
