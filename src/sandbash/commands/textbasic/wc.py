"""wc: counts with GNU's column widths, computed chunk by chunk."""

from __future__ import annotations

import codecs

from ...stdio.streams import ClosedStream, Stream, StreamError
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..fsutil import regular_stdin
from ..options import CommandSpec, Opt
from ..record import WRITE_ERROR_BARE, Effects, declare
from .common import (
    Out,
    char_width,
    close_input,
    decode,
    is_regular,
    quote,
    quoteaf,
    quotef,
    read_chunks,
    utf8_locale,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first wc)
    from ...leanclass import dataclass, field

WC_SPEC = CommandSpec(
    name="wc",
    summary="Print newline, word, and byte counts for each FILE, and a total line if more than one FILE is specified.",
    opts=(
        Opt("c", "bytes", help="print the byte counts"),
        Opt("m", "chars", help="print the character counts"),
        Opt("l", "lines", help="print the newline counts"),
        Opt(
            None,
            "files0-from",
            arg="required",
            metavar="F",
            help="read input from the files specified by NUL-terminated names in file F",
        ),
        Opt("L", "max-line-length", help="print the maximum display width"),
        Opt("w", "words", help="print the word counts"),
    ),
)

_PRINTABLE_WS = bytes(range(0x20, 0x7F)) + b"\t\n\v\f\r"
# characters Python splits on that glibc's iswspace does not: make them
# transparent (control) or word characters (printable) before splitting
# (GNU wc also splits at no-break spaces: U+00A0, U+2007, U+202F and U+2060)
_NOT_GLIBC_SPACE = str.maketrans(
    {"\x1c": "\x01", "\x1d": "\x01", "\x1e": "\x01", "\x1f": "\x01", "\x85": "\x01", "\u2060": " "}
)


# C locale: high bytes become an unprintable ASCII byte of the same (zero) width
_C_LOCALE = bytes(range(128)) + b"\x01" * 128


@dataclass
class _Counts:
    lines: int = 0
    words: int = 0
    chars: int = 0
    nbytes: int = 0
    maxlen: int = 0


@dataclass
class _Counter:
    """Incremental counting state carried across chunks."""

    want_words: bool
    want_chars: bool
    want_len: bool
    utf8: bool = True  # in the C locale every byte is a character; bytes >= 0x80 are unprintable
    counts: _Counts = field(default_factory=_Counts)
    in_word: bool = False
    linepos: int = 0
    chardec: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")("ignore")
    )
    textdec: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")("surrogateescape")
    )
    lendec: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")("surrogateescape")
    )

    def feed(self, chunk: bytes) -> None:
        if not self.utf8 and not chunk.isascii():
            self.counts.chars += len(chunk)
            # (the C locale's mapping keeps every newline and length: only words and widths read it)
            scan = self.want_words or self.want_len
            self._feed(chunk.translate(_C_LOCALE) if scan else chunk, count_chars=False)
            return
        self._feed(chunk)

    def _feed(self, chunk: bytes, count_chars: bool = True) -> None:
        c = self.counts
        c.nbytes += len(chunk)
        c.lines += chunk.count(b"\n")
        if self.want_chars and count_chars:
            c.chars += len(chunk) if chunk.isascii() else len(self.chardec.decode(chunk))
        if not (self.want_words or self.want_len):
            return  # -l, -c, -m: no pass over the bytes for the word and width scans (half of `wc -l`)
        simple = not chunk.translate(None, _PRINTABLE_WS)
        if self.want_words:
            if simple:
                tokens = chunk.split()
                n = len(tokens)
                if n and self.in_word and not chunk[:1].isspace():
                    n -= 1
                c.words += n
                self.in_word = not chunk[-1:].isspace()
            else:
                self._slow_words(chunk)
        if self.want_len:
            self._line_length(chunk, simple)

    def _slow_words(self, chunk: bytes) -> None:
        # glibc's wc: a printable non-space character starts a word unless one
        # is open; spaces close it; unprintable characters change nothing.
        text = self.textdec.decode(chunk).translate(_NOT_GLIBC_SPACE)
        if not text:
            return
        tokens = text.split()
        continues = not text[0].isspace()
        words = 0
        last_printable = False
        for i, tok in enumerate(tokens):
            last_printable = tok.isprintable() or any(ch.isprintable() for ch in tok)
            if last_printable and not (i == 0 and continues and self.in_word):
                words += 1
        self.counts.words += words
        if text[-1].isspace() or not tokens:
            self.in_word = False
        elif not last_printable:
            self.in_word = self.in_word if (len(tokens) == 1 and continues) else False
        else:
            self.in_word = True

    def _line_length(self, chunk: bytes, simple: bool) -> None:
        c = self.counts
        # (\t \r \f \v as ints: see builtins/io._read_record)
        if simple and 9 not in chunk and 13 not in chunk and 12 not in chunk and 11 not in chunk:
            parts = chunk.split(b"\n")
            if len(parts) == 1:
                self.linepos += len(parts[0])
                return
            first = self.linepos + len(parts[0])
            longest = max(first, max(map(len, parts[1:-1]), default=0))
            c.maxlen = max(c.maxlen, longest)
            self.linepos = len(parts[-1])
            return
        pos = self.linepos
        best = c.maxlen
        for ch in self.lendec.decode(chunk):
            if ch == "\n" or ch == "\r" or ch == "\f":
                if pos > best:
                    best = pos
                pos = 0
            elif ch == "\t":
                pos += 8 - pos % 8
            else:
                pos += char_width(ch)
        c.maxlen = best
        self.linepos = pos

    def finish(self) -> _Counts:
        if self.linepos > self.counts.maxlen:
            self.counts.maxlen = self.linepos
        return self.counts


def _count_stream(ctx: Ctx, stream: Stream, words: bool, chars: bool, length: bool) -> _Counts:
    counter = _Counter(words, chars, length, utf8_locale(ctx))
    for chunk in read_chunks(ctx, stream):
        counter.feed(chunk)
    return counter.finish()


def _read_names(ctx: Ctx, source: str) -> tuple[list[str] | None, bool]:
    """The NUL-separated names, and whether they came from a non-regular file
    (GNU then reads them as it goes and cannot size the columns)."""
    try:
        stream = ctx.open_in(source)
        regular, _size = is_regular(ctx, source, stream)
        data = ctx.read_all(stream)
        close_input(ctx, source, stream)
    except (FsError, StreamError) as e:
        ctx.error(f"cannot open {quoteaf(source)} for reading: {strerror(e.errno or 5)}")
        return None, False
    names = [decode(n) for n in data.split(b"\0")]
    if names and names[-1] == "":
        names.pop()
    return names, not regular


@declare("wc", spec=WC_SPEC, effects=Effects.READS, stdin_close="-", write_failure=WRITE_ERROR_BARE)
def cmd_wc(ctx: Ctx) -> int:
    opts, files = ctx.parse(WC_SPEC)
    want = {k: bool(opts.get(k)) for k in ("lines", "words", "chars", "bytes", "max_line_length")}
    if not any(want.values()):
        want["lines"] = want["words"] = want["bytes"] = True
    source = opts.get("files0_from")
    if source is not None:
        if files:
            ctx.error(f"extra operand {quote(ctx, files[0])}")
            ctx.stderr.write(b"file operands cannot be combined with --files0-from\n")
            ctx.stderr.write(f"Try '{ctx.help_prog} --help' for more information.\n".encode())
            return 1
        names, streamed_names = _read_names(ctx, source)
        if names is None:
            return 1
        files = names
    else:
        streamed_names = False
    explicit = bool(files) or source is not None
    operands = files if explicit else ["-"]
    ncounts = sum(want.values())
    # open everything first: the column width depends on what the inputs are
    opened: list[tuple[str, Stream | None, FsError | None]] = []
    for name in operands:
        try:
            opened.append((name, ctx.open_in(name), None))
        except FsError as e:
            opened.append((name, None, e))
    width = _width(ctx, opened, ncounts, explicit) if not streamed_names else 1
    out = Out(ctx.stdout)
    status = 0
    total = _Counts()
    for index, (name, stream, err) in enumerate(opened, 1):
        shown = name if explicit else None
        if name == "":  # an operand, or a --files0-from entry (named by its list and record, as GNU)
            where = f"{quotef(source)}:{index}: " if source is not None else ""
            out.flush()  # (GNU's error() flushes stdout first)
            ctx.error(f"{where}invalid zero-length file name")
            status = 1
            continue
        if stream is None:
            assert err is not None
            out.flush()  # (GNU's error() flushes stdout first: the message comes in its place)
            ctx.error(f"{quotef(name)}: {strerror(err.errno or 5)}")
            status = 1
            if err.errno == 21:  # a directory: GNU still prints its (zero) counts
                _print(out, _Counts(), want, width, shown)
            continue
        try:
            regular, size = is_regular(ctx, name, stream)
            bytes_only = not (want["lines"] or want["words"] or want["chars"] or want["max_line_length"])
            stdin = regular_stdin(ctx, stream)
            if regular and bytes_only and stream is not ctx.stdin:
                counts = _Counts(nbytes=size)
            elif regular and bytes_only and stdin is not None:
                # a regular standard input is sized from where it stands, and neither read nor
                # moved (GNU's fstat and offset): `{ read l; wc -c; cat; } < f` still cats the rest
                counts = _Counts(nbytes=stdin.unread_size())
            else:
                counts = _count_stream(ctx, stream, want["words"], want["chars"], want["max_line_length"])
        except (FsError, StreamError) as e:
            out.flush()  # (stdin read without an operand is GNU's "standard input")
            ctx.error(f"{quotef(name if explicit else 'standard input')}: {strerror(e.errno or 5)}")
            status = 1
            counts = _Counts()
        finally:
            close_input(ctx, name, stream)
        _print(out, counts, want, width, shown)
        total.lines += counts.lines
        total.words += counts.words
        total.chars += counts.chars
        total.nbytes += counts.nbytes
        total.maxlen = max(total.maxlen, counts.maxlen)
    if len(operands) > 1:
        _print(out, total, want, width, "total")
    out.flush()
    return status


def _width(
    ctx: Ctx, opened: list[tuple[str, Stream | None, FsError | None]], ncounts: int, explicit: bool
) -> int:
    """GNU wc's compute_number_width."""
    if not opened or (len(opened) == 1 and ncounts == 1):
        return 1
    minimum = 1
    regular_total = 0
    for name, stream, err in opened:
        if stream is None:
            if err is not None and err.errno == 21:
                minimum = 7
            continue
        if isinstance(stream, ClosedStream):
            continue  # (fstat of a closed fd 0 fails: GNU leaves it out, `wc 0<&-` is `0 0 0`)
        regular, size = is_regular(ctx, name, stream)
        if regular:
            regular_total += size
        else:
            minimum = 7
    return max(len(str(regular_total)), minimum)


def _print(out: Out, c: _Counts, want: dict[str, bool], width: int, name: str | None) -> None:
    values = []
    if want["lines"]:
        values.append(c.lines)
    if want["words"]:
        values.append(c.words)
    if want["chars"]:
        values.append(c.chars)
    if want["bytes"]:
        values.append(c.nbytes)
    if want["max_line_length"]:
        values.append(c.maxlen)
    text = " ".join(f"{v:>{width}}" for v in values)
    if name is not None:
        # coreutils 9 quotes a name only when it holds a newline (which would break the line)
        text += " " + (quotef(name) if "\n" in name else name)
    out.write(text.encode("utf-8", "surrogateescape") + b"\n")
