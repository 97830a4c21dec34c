"""split and csplit: write pieces of the input to files."""

from __future__ import annotations

import errno
import re
from collections.abc import Iterator

from ...stdio.streams import DirStream, NullStream, Stream, StreamError
from ...vfs.errors import FsError, strerror
from ...vfs.facade import FileStream
from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt, Parsed
from ..record import Effects, declare
from ..textbasic.common import (
    RECORD_OVERHEAD,
    Out,
    close_input,
    encode,
    parse_size,
    quote,
    quoteaf,
    quotef,
    read_chunks,
    read_held,
    read_input_held,
    usage_fail,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SPLIT_SPEC = CommandSpec(
    name="split",
    usage="[OPTION]... [FILE [PREFIX]]",
    summary="Output pieces of FILE to PREFIXaa, PREFIXab, ...; default size is 1000 lines, and default PREFIX is 'x'.",
    # `split -5`: the obsolete line count, its own way of splitting (`-5 -l 3` cannot combine)
    numeric="digit_lines",
    opts=(
        Opt(None, None, dest="digit_lines", arg="required"),
        Opt(
            "a",
            "suffix-length",
            arg="required",
            metavar="N",
            help="generate suffixes of length N (default 2)",
        ),
        Opt(None, "additional-suffix", arg="required", metavar="SUFFIX", help="append an additional SUFFIX"),
        Opt("b", "bytes", arg="required", metavar="SIZE", help="put SIZE bytes per output file"),
        Opt(
            "C",
            "line-bytes",
            arg="required",
            metavar="SIZE",
            help="put at most SIZE bytes of records per file",
        ),
        Opt("d", None, dest="numeric_plain", help="use numeric suffixes starting at 0, not alphabetic"),
        Opt(
            None,
            "numeric-suffixes",
            arg="optional",
            metavar="FROM",
            help="same as -d, but allow setting the start",
        ),
        Opt("x", None, dest="hex_plain", help="use hex suffixes starting at 0, not alphabetic"),
        Opt(
            None,
            "hex-suffixes",
            arg="optional",
            metavar="FROM",
            help="same as -x, but allow setting the start",
        ),
        Opt("e", "elide-empty-files", help="do not generate empty output files with '-n'"),
        Opt(None, "filter", arg="required", metavar="COMMAND", help="write to shell COMMAND"),
        Opt("l", "lines", arg="required", metavar="NUMBER", help="put NUMBER lines/records per output file"),
        Opt("n", "number", arg="required", metavar="CHUNKS", help="generate CHUNKS output files"),
        Opt(
            "t",
            "separator",
            arg="required",
            metavar="SEP",
            help="use SEP instead of newline as the record separator",
        ),
        Opt("u", "unbuffered", help="immediately copy input to output with '-n r/...'"),
        Opt(None, "verbose", help="print a diagnostic just before each output file is opened"),
    ),
)


class Namer:
    """GNU's output names: PREFIX + suffix (+ additional suffix); alphabetic
    suffixes widen automatically when the length was not given."""

    def __init__(
        self, ctx: Ctx, prefix: str, length: int | None, alphabet: str, start: int, extra: str
    ) -> None:
        self.ctx = ctx
        self.prefix = prefix
        self.auto = length is None and start == 0
        self.length = length or 2
        self.alphabet = alphabet
        self.extra = extra
        self.index: list[int] | None = None
        self.start = start

    def next(self) -> str:
        a = self.alphabet
        if self.index is None:
            digits = []
            v = self.start
            for _ in range(self.length):
                v, r = divmod(v, len(a))
                digits.append(r)
            if v:
                raise self._exhausted()
            self.index = digits[::-1]
        else:
            i = self.length
            while True:
                i -= 1
                if i < 0:
                    raise self._exhausted()
                self.index[i] += 1
                if self.auto and i == 0 and self.index[0] == len(a) - 1:
                    # widen: the last letter joins the prefix, the suffix grows by one
                    self.prefix += a[-1]
                    self.length += 1
                    self.index = [0] * self.length
                    break
                if self.index[i] < len(a):
                    break
                self.index[i] = 0
        return self.prefix + "".join(a[k] for k in self.index) + self.extra

    def _exhausted(self) -> CommandExit:
        self.ctx.error("output file suffixes exhausted")
        return CommandExit(1)


class Writer:
    def __init__(self, ctx: Ctx, namer: Namer, verbose: bool) -> None:
        self.ctx = ctx
        self.namer = namer
        self.verbose = verbose
        self.stream: Stream | None = None
        self.name = ""
        self.input_file: tuple[int, int] | None = None  # the input's (dev, ino) when it is a file

    def open_next(self) -> None:
        self.close()
        self.name = self.namer.next()
        if self.verbose:
            self.ctx.out(f"creating file '{self.name}'\n")
        if self.input_file is not None:
            # GNU's SAME_INODE check before it truncates: a piece named as the input (`split -b1
            # xaa x`, or a link to it) would destroy what is still to be read
            st = self.ctx.fs.try_stat(self.name)
            if st is not None and (st.dev, st.ino) == self.input_file:
                self.ctx.error(f"{quoteaf(self.name)} would overwrite input; aborting")
                raise CommandExit(1)
        try:
            self.stream = self.ctx.fs.open(self.name, "w")
        except FsError as e:
            self.ctx.error(f"{quotef(self.name)}: {strerror(e.errno or 5)}")
            raise CommandExit(1)

    def write(self, data: bytes) -> None:
        if self.stream is None:
            self.open_next()
        assert self.stream is not None
        try:
            self.stream.write(data)
        except FsError as e:
            self.ctx.error(f"{quotef(self.name)}: {strerror(e.errno or 5)}")
            raise CommandExit(1)

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
            self.stream = None


def _num(ctx: Ctx, text: str, what: str, zero_ok: bool = False) -> int:
    value = parse_size(text, "bkKmMGTPEZYRQ0")
    if value is None:
        ctx.error(f"invalid number of {what}: {quote(ctx, text)}")
        raise CommandExit(1)
    if value == 0 and not zero_ok:
        ctx.error(f"invalid number of {what}: {quote(ctx, text)}: Numerical result out of range")
        raise CommandExit(1)
    return value


@declare("split", spec=SPLIT_SPEC, effects=Effects.SPLIT)
def cmd_split(ctx: Ctx) -> int:
    opts, operands = ctx.parse(SPLIT_SPEC)
    if len(operands) > 2:
        raise usage_fail(ctx, f"extra operand {quote(ctx, operands[2])}")
    if opts.get("filter"):
        ctx.error("--filter is not supported in this sandbox")
        return 1
    src = operands[0] if operands else "-"
    prefix = operands[1] if len(operands) > 1 else "x"
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    start = 0
    for key, value in opts.order:
        if key in ("numeric_plain", "numeric_suffixes"):
            alphabet = "0123456789"
            start = int(value) if isinstance(value, str) and value else 0
        elif key in ("hex_plain", "hex_suffixes"):
            alphabet = "0123456789abcdef"
            start = int(value, 16) if isinstance(value, str) and value else 0
    length_text = opts.get("suffix_length")
    length = None
    if length_text is not None:
        length = int(length_text) if length_text.strip().isdigit() else -1  # `-a x` is invalid
    if length is not None and length < 0:
        ctx.error(f"invalid suffix length: {quote(ctx, opts.get('suffix_length'))}")
        return 1
    if length == 0:  # `-a 0` is GNU's default: the length grows with the number of files
        length = None
    extra = opts.get("additional_suffix") or ""
    if "/" in extra:
        raise ctx.usage_error(f"invalid suffix {quote(ctx, extra)}, contains directory separator")
    namer = Namer(ctx, prefix, length, alphabet, start, opts.get("additional_suffix") or "")
    writer = Writer(ctx, namer, bool(opts.get("verbose")))
    sep_text = opts.get("separator")
    sep = encode(sep_text) if sep_text else b"\n"
    if sep_text == "\\0":
        sep = b"\0"
    # GNU allows one way of splitting, given once: `-l 3 -l 5` fails too; the digit options
    # `-3 -5` may repeat (the last number counts)
    modes = [k for k, _ in opts.order if k in ("lines", "bytes", "line_bytes", "number", "digit_lines")]
    if len(modes) > 1 and not all(k == "digit_lines" for k in modes):
        raise usage_fail(ctx, "cannot split in more than one way")
    stream: Stream
    try:
        stream = ctx.open_in(src)
    except FsError as e:
        if e.errno != errno.EISDIR:
            ctx.error(f"cannot open {quoteaf(src)} for reading: {strerror(e.errno or 5)}")
            return 1
        stream = DirStream()  # a directory opens; its first read fails (named below)
    if isinstance(stream, FileStream):
        st = ctx.fs.try_stat(stream.path)
        if st is not None and st.is_file:
            writer.input_file = (st.dev, st.ino)
    try:
        mode = modes[-1] if modes else "lines"
        if mode == "number":
            _by_number(ctx, stream, writer, opts.get("number"), bool(opts.get("elide_empty_files")), sep, src)
        elif mode == "bytes":
            _by_bytes(ctx, stream, writer, _num(ctx, opts.get("bytes"), "bytes"))
        elif mode == "line_bytes":
            _by_line_bytes(ctx, stream, writer, _num(ctx, opts.get("line_bytes"), "bytes"), sep)
        else:
            lines = opts.get("lines") or opts.get("digit_lines") or "1000"
            if mode == "digit_lines" and not lines.strip("0"):
                raise usage_fail(ctx, f"invalid number of lines: {quote(ctx, '0')}")
            _by_lines(ctx, stream, writer, _num(ctx, lines, "lines"), sep)
    except (FsError, StreamError) as e:
        ctx.error(f"{quotef(src)}: {strerror(e.errno or 5)}")
        return 1
    finally:
        writer.close()
        close_input(ctx, src, stream)
    return 0


def _by_lines(ctx: Ctx, stream: Stream, w: Writer, n: int, sep: bytes) -> None:
    count = 0  # lines ended in the open file
    open_file = False  # (a chunk may end inside a line: `seq 5 |` writes "5" and "\n" apart)
    for chunk in read_chunks(ctx, stream):
        pos = 0
        while pos < len(chunk):
            if not open_file:
                w.open_next()
                open_file, count = True, 0
            # find the end of the lines still wanted in this file
            end = pos
            need = n - count
            while need:
                k = chunk.find(sep, end)
                if k < 0:
                    end = len(chunk)
                    break
                end = k + len(sep)
                need -= 1
            w.write(chunk[pos:end])
            count = n - need
            open_file = count < n
            pos = end


def _by_bytes(ctx: Ctx, stream: Stream, w: Writer, n: int) -> None:
    room = 0
    for chunk in read_chunks(ctx, stream):
        pos = 0
        while pos < len(chunk):
            if room == 0:
                w.open_next()
                room = n
            take = min(room, len(chunk) - pos)
            w.write(chunk[pos : pos + take])
            pos += take
            room -= take


def _by_line_bytes(ctx: Ctx, stream: Stream, w: Writer, n: int, sep: bytes) -> None:
    with ctx.hold_memory() as mem:
        _line_bytes(ctx, read_held(ctx, stream, mem), w, n, sep)


def _line_bytes(ctx: Ctx, data: bytes, w: Writer, n: int, sep: bytes) -> None:
    pos = 0
    while pos < len(data):
        limit = min(pos + n, len(data))
        cut = data.rfind(sep, pos, limit)
        end = cut + len(sep) if cut >= 0 and limit < len(data) else limit
        if limit == len(data):
            end = limit
        w.open_next()
        w.write(data[pos:end])
        pos = end


def _by_number(ctx: Ctx, stream: Stream, w: Writer, spec: str, elide: bool, sep: bytes, src: str) -> None:
    m = re.fullmatch(r"(?:(l|r)/)?(?:(\d+)/)?(\d+)", spec)
    if not m:
        ctx.error(f"invalid number of chunks: {quote(ctx, spec)}")
        raise CommandExit(1)
    kind, k_text, n_text = m.groups()
    n = int(n_text)
    if n == 0:
        ctx.error(f"invalid number of chunks: {quote(ctx, n_text)}: Numerical result out of range")
        raise CommandExit(1)
    k = int(k_text) if k_text else 0
    if k_text and not 1 <= k <= n:
        ctx.error(f"invalid chunk number: {quote(ctx, k_text)}: Numerical result out of range")
        raise CommandExit(1)
    if kind != "r" and not isinstance(stream, (FileStream, NullStream)):
        # N, K/N and l/N cut by the input's size, which a pipe (a here-doc too, in bash 5.2) has not
        ctx.error(f"{quotef(src)}: cannot determine file size")
        raise CommandExit(1)
    data = ctx.read_all(stream)
    size = len(data)
    chunks: list[bytes] = []
    if kind == "r":
        buckets: list[list[bytes]] = [[] for _ in range(n)]
        for i, line in enumerate(_records(data, sep)):
            buckets[i % n].append(line)
        chunks = [b"".join(b) for b in buckets]
    elif kind == "l":
        start = 0
        for i in range(n):
            end = size if i == n - 1 else (i + 1) * (size // n)
            if end < start:
                end = start
            if i < n - 1 and end < size:
                nl = data.find(sep, end - 1 if end > 0 else 0)
                end = size if nl < 0 else nl + len(sep)
            if end < start:
                end = start
            chunks.append(data[start:end])
            start = end
    else:
        per = max(1, size // n)  # a file smaller than N: a byte in each of the first chunks
        chunks = [data[i * per : (i + 1) * per if i < n - 1 else size] for i in range(n)]
    if k:
        ctx.stdout.write(chunks[k - 1])
        return
    for c in chunks:
        if elide and not c:
            continue
        w.open_next()
        w.write(c)


def _records(data: bytes, sep: bytes) -> Iterator[bytes]:
    pos = 0
    while pos < len(data):
        k = data.find(sep, pos)
        end = len(data) if k < 0 else k + len(sep)
        yield data[pos:end]
        pos = end


# ------------------------------------------------------------------ csplit

CSPLIT_SPEC = CommandSpec(
    name="csplit",
    usage="[OPTION]... FILE PATTERN...",
    summary="Output pieces of FILE separated by PATTERN(s) to files 'xx00', 'xx01', ..., and output byte counts.",
    operand_if=lambda a: bool(re.fullmatch(r"-\d+", a)),
    opts=(
        Opt(
            "b", "suffix-format", arg="required", metavar="FORMAT", help="use sprintf FORMAT instead of %02d"
        ),
        Opt("f", "prefix", arg="required", metavar="PREFIX", help="use PREFIX instead of 'xx'"),
        Opt("k", "keep-files", help="do not remove output files on errors"),
        Opt(None, "suppress-matched", help="suppress the lines matching PATTERN"),
        Opt(
            "n",
            "digits",
            arg="required",
            metavar="DIGITS",
            help="use specified number of digits instead of 2",
        ),
        Opt("s", "quiet", dest="silent", help="do not print counts of output file sizes"),
        Opt(None, "silent", dest="silent"),
        Opt("q", None, dest="silent"),  # GNU's undocumented short form of --quiet
        Opt("z", "elide-empty-files", help="remove empty output files"),
    ),
)


class _Pattern:
    def __init__(self, kind: str, text: str, regex: Any = None, offset: int = 0, line: int = 0) -> None:
        self.kind = kind  # "line", "re", "skip"
        self.text = text
        self.regex = regex
        self.offset = offset
        self.line = line
        self.repeat = 0  # extra repetitions; -1 = as many as possible


def _parse_patterns(ctx: Ctx, args: list[str]) -> list[_Pattern]:
    from ...regex import RegexError, compile_regex

    pats: list[_Pattern] = []
    last_line = 0
    repeated = False  # (a repeat count follows a pattern, never another count)
    for a in args:
        if a.startswith("{"):
            if not pats or repeated:
                raise _die(ctx, f"{quote(ctx, a)}: invalid pattern")
            repeated = True
            body = a[1:-1] if a.endswith("}") else a[1:]
            if body == "*":
                pats[-1].repeat = -1
            elif body.isdigit() and a.endswith("}"):
                pats[-1].repeat = int(body)
            else:
                raise _die(ctx, f"{quote(ctx, a)}: integer required between '{{' and '}}'")
            continue
        repeated = False
        if a[:1] in ("/", "%"):
            close = a.rfind(a[0])
            if close <= 0:
                raise _die(ctx, f"{quote(ctx, a)}: closing delimiter '{a[0]}' missing")
            rest = a[close + 1 :]
            try:
                offset = int(rest) if rest else 0
            except ValueError:
                raise _die(ctx, f"{quote(ctx, a)}: invalid pattern")
            try:
                rx = compile_regex(a[1:close], flavor="bre", budget=ctx.budget)
            except RegexError as e:
                raise _die(ctx, f"{quote(ctx, a)}: invalid regular expression: {e}")
            pats.append(_Pattern("re" if a[0] == "/" else "skip", a, rx, offset))
            continue
        if not a.isdigit():
            raise _die(ctx, f"{quote(ctx, a)}: invalid pattern")
        n = int(a)
        if n == 0:
            raise _die(ctx, f"{a}: line number must be greater than zero")
        if n < last_line:
            raise _die(ctx, f"line number {quote(ctx, a)} is smaller than preceding line number, {last_line}")
        if n == last_line:
            ctx.error(f"warning: line number {quote(ctx, a)} is the same as preceding line number")
        last_line = n
        pats.append(_Pattern("line", a, line=n))
    return pats


def _die(ctx: Ctx, message: str) -> CommandExit:
    ctx.error(message)
    return CommandExit(1)


@declare("csplit", spec=CSPLIT_SPEC, effects=Effects.CSPLIT)
def cmd_csplit(ctx: Ctx) -> int:
    opts, operands = ctx.parse(CSPLIT_SPEC)
    if not operands:
        raise usage_fail(ctx, "missing operand")
    if len(operands) < 2:
        raise usage_fail(ctx, f"missing operand after {quote(ctx, operands[0])}")
    digits = 2
    if opts.get("digits") is not None:
        try:
            digits = int(opts.get("digits"))
        except ValueError:
            raise _die(ctx, f"invalid number: {quote(ctx, opts.get('digits'))}")
    suffix_fmt = opts.get("suffix_format")
    prefix = opts.get("prefix", "xx")
    pats = _parse_patterns(ctx, operands[1:])
    src = operands[0]
    with ctx.hold_memory() as mem:
        try:
            data = read_input_held(ctx, src, mem)
        except (FsError, StreamError) as e:
            if isinstance(e, FsError) and e.errno != errno.EISDIR:
                raise _die(ctx, f"cannot open {quoteaf(src)} for reading: {strerror(e.errno or 5)}")
            # (a directory opens; GNU has made its first piece when the first read fails, and
            # reports that piece's size as it cleans up)
            job = _Csplit(ctx, [], prefix, digits, suffix_fmt, opts)
            ctx.error(f"read error: {strerror(e.errno or errno.EIO)}")
            job.emit(0, 0)
            return _csplit_cleanup(job, opts)
        mem.charge(len(data) + RECORD_OVERHEAD * (data.count(b"\n") + 1))
        lines = data.splitlines(keepends=True)
        return _csplit_run(ctx, lines, prefix, digits, suffix_fmt, opts, pats)


def _csplit_run(
    ctx: Ctx, lines: list[bytes], prefix: str, digits: int, suffix_fmt: str | None, opts: Parsed, pats: Any
) -> int:
    job = _Csplit(ctx, lines, prefix, digits, suffix_fmt, opts)
    try:
        job.run(pats)
    except CommandExit as e:
        return _csplit_cleanup(job, opts, e.status)
    job.out.flush()
    return 0


def _csplit_cleanup(job: _Csplit, opts: Parsed, status: int = 1) -> int:
    """After an error: the pieces made so far go (unless -k), their sizes are written at exit,
    after the message (GNU's stdout is block-buffered off a terminal)."""
    if not job.keep:
        job.remove()
    job.out.flush()
    return status


class _Csplit:
    def __init__(
        self, ctx: Ctx, lines: list[bytes], prefix: str, digits: int, suffix_fmt: str | None, opts: Any
    ) -> None:
        self.ctx = ctx
        self.lines = lines
        self.prefix = prefix
        self.digits = digits
        self.suffix_fmt = suffix_fmt
        self.silent = bool(opts.get("silent"))
        self.elide = bool(opts.get("elide_empty_files"))
        # --suppress-matched drops the line at every split point, the first line of the next
        # piece, whatever the pattern: a line number, a regular expression with an offset, a %skip%
        self.suppress = bool(opts.get("suppress_matched"))
        self.created: list[str] = []
        self.keep = bool(opts.get("keep_files"))  # (also once GNU died with no clean-up)
        self.count = 0
        self.out = Out(ctx.stdout)

    def _name(self) -> str:
        n = self.count
        if self.suffix_fmt:
            m = re.search(r"%([-0 +#']*)(\d*)(?:\.\d+)?([diouxX])", self.suffix_fmt)
            if m:
                flags, width, conv = m.groups()
                spec = (
                    "{:"
                    + ("0" if "0" in flags else "")
                    + (width or "")
                    + {"d": "d", "i": "d", "u": "d", "o": "o", "x": "x", "X": "X"}[conv]
                    + "}"
                )
                return (
                    self.prefix + self.suffix_fmt[: m.start()] + spec.format(n) + self.suffix_fmt[m.end() :]
                )
        return f"{self.prefix}{n:0{self.digits}d}"

    def emit(self, start: int, end: int) -> None:
        chunk = b"".join(self.lines[start:end])
        if self.elide and not chunk:
            return
        name = self._name()
        self.count += 1
        try:
            self.ctx.fs.write_bytes(name, chunk)
        except FsError as e:
            raise _die(self.ctx, f"{quotef(name)}: {strerror(e.errno or 5)}")
        self.created.append(name)
        if not self.silent:  # held until csplit ends, as GNU's buffered stdout holds it
            self.out.write(b"%d\n" % len(chunk))

    def remove(self) -> None:
        for name in self.created:
            try:
                self.ctx.fs.unlink(name)
            except FsError:
                pass

    def fail(
        self, p: _Pattern, k: int, what: str, piece: tuple[int, int] | None, flush: bool = False
    ) -> CommandExit:
        """GNU's error paths: the message (after the sizes written so far only when it goes
        through error(), which flushes stdout: an offset out of range; `match not found` and a
        line number out of range are fprintf'd), then the clean-up closes the piece left open,
        its size after the message."""
        if flush:
            self.out.flush()
        self.ctx.error(f"{quote(self.ctx, p.text)}: {what}" + (f" on repetition {k}" if k else ""))
        if piece is not None:
            self.emit(*piece)
        return CommandExit(1)

    def disappeared(self) -> CommandExit:
        """A line number with no line left to read: GNU has made the next piece and dies there
        (get_first_line_in_buffer), its pieces kept, the new one with no size written."""
        name = self._name()
        try:
            self.ctx.fs.write_bytes(name, b"")
        except FsError as e:
            return _die(self.ctx, f"{quotef(name)}: {strerror(e.errno or 5)}")
        self.out.flush()
        self.keep = True
        return _die(self.ctx, "input disappeared")

    def run(self, pats: list[_Pattern]) -> None:
        cur = 0  # first line (0-based) of the next piece
        search_from = 0  # where the next regular expression search starts
        total = len(self.lines)
        for p in pats:
            k = 0
            while True:
                if p.kind == "line":  # GNU's process_line_count, step by step
                    target = p.line * (k + 1)
                    if self.suppress and cur >= total:
                        raise self.fail(p, k, "line number out of range", (cur, cur))
                    if cur >= total:
                        raise self.disappeared()
                    end = max(cur, target - 1)  # (a line already passed cuts an empty piece)
                    if end > total:
                        raise self.fail(p, k, "line number out of range", (cur, total))
                    self.emit(cur, end)
                    cur = search_from = end
                    if self.suppress and cur < total:
                        cur = search_from = cur + 1
                    elif cur >= total and not self.suppress:
                        raise self.fail(p, k, "line number out of range", None)
                else:
                    found = next(
                        (
                            i
                            for i in range(search_from, total)
                            if p.regex.search(self.lines[i].rstrip(b"\n")) is not None
                        ),
                        None,
                    )
                    self.ctx.checkpoint(total - search_from + 1)
                    if found is None:
                        if p.repeat == -1:
                            # {*} runs out: GNU writes the rest (none after a %skip%) and exits,
                            # the patterns after it unread
                            if p.kind == "re":
                                self.emit(cur, total)
                            return
                        # (a %skip% that finds nothing has no piece open: nothing is written)
                        raise self.fail(p, k, "match not found", (cur, total) if p.kind == "re" else None)
                    cut = found + p.offset
                    if cut < cur or cut > total:
                        # an offset before the piece's start or past the end: the piece so far (an
                        # empty one before the start; none for a %skip%) is the one left open
                        piece = (cur, cur if cut < cur else total) if p.kind == "re" else None
                        raise self.fail(p, 0, "line number out of range", piece, flush=True)
                    if p.kind == "re":
                        self.emit(cur, cut)
                    cur = cut
                    # GNU reads on after the line it stopped at: the match, or with a positive
                    # offset the new piece's first line (which is never matched itself)
                    search_from = max(found, cut) + 1
                    if self.suppress and cur < total:
                        cur += 1
                k += 1
                if p.repeat != -1 and k > p.repeat:
                    break
        self.emit(cur, total)
