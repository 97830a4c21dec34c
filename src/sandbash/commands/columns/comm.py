"""comm and join: walk two sorted files in step, with GNU's order checks."""

from __future__ import annotations

import errno
import re
from collections.abc import Iterator

from ...limits import MemoryHold
from ...stdio.streams import DirStream, Stream, StreamError, StreamReadError
from ...vfs.errors import FsError, strerror
from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from ..textbasic.common import (
    Out,
    close_input,
    decode,
    encode,
    fail,
    quote,
    quoteaf,
    quotef,
    split_records,
    usage_fail,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_BLANKS = re.compile(rb"[ \t\n]+")
_FOLD = bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz", b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")


class _ReadFailed(Exception):
    """An operand could not be read: comm names it, join says `read error` (GNU's words)."""

    def __init__(self, name: str, err: int) -> None:
        super().__init__(name, err)
        self.name = name
        self.err = err


class _Reader:
    """Line-at-a-time reading of one operand, counting lines."""

    def __init__(self, ctx: Ctx, name: str, stream: Stream, sep: bytes) -> None:
        self.ctx = ctx
        self.name = name
        self.stream = stream
        self.it: Iterator[tuple[list[bytes], bool]] = split_records(ctx, stream, sep)
        self.pending: list[bytes] = []
        self.lineno = 0

    def next(self) -> bytes | None:
        while not self.pending:
            try:
                batch = next(self.it, None)
            except StreamReadError as e:
                raise _ReadFailed(self.name, e.errno or errno.EIO) from None
            if batch is None:
                return None
            self.pending = batch[0][::-1]
        self.lineno += 1
        return self.pending.pop()

    def close(self) -> None:
        close_input(self.ctx, self.name, self.stream)


def _open_two(ctx: Ctx, files: list[str], sep: bytes) -> tuple[_Reader, _Reader]:
    if len(files) < 2:
        if not files:
            raise usage_fail(ctx, "missing operand")
        raise usage_fail(ctx, f"missing operand after {quote(ctx, files[-1])}")
    if len(files) > 2:
        # (join.c quotes this one as a shell word, comm.c as its other operands)
        extra = quoteaf(files[2]) if ctx.name == "join" else quote(ctx, files[2])
        raise usage_fail(ctx, f"extra operand {extra}")
    readers = []
    for name in files:
        try:
            readers.append(_Reader(ctx, name, ctx.open_in(name), sep))
        except FsError as e:
            if e.errno == errno.EISDIR:  # a directory opens in GNU and fails at its first read
                readers.append(_Reader(ctx, name, DirStream(), sep))
                continue
            for r in readers:
                r.close()
            raise fail(ctx, f"{quotef(name)}: {strerror(e.errno or 5)}")
    return readers[0], readers[1]


# ------------------------------------------------------------------ comm

COMM_SPEC = CommandSpec(
    name="comm",
    usage="[OPTION]... FILE1 FILE2",
    summary="Compare sorted files FILE1 and FILE2 line by line.",
    opts=(
        Opt("1", None, dest="no1", help="suppress column 1 (lines unique to FILE1)"),
        Opt("2", None, dest="no2", help="suppress column 2 (lines unique to FILE2)"),
        Opt("3", None, dest="no3", help="suppress column 3 (lines that appear in both files)"),
        Opt(None, "check-order", help="check that the input is correctly sorted"),
        Opt(None, "nocheck-order", help="do not check that the input is correctly sorted"),
        Opt(None, "output-delimiter", arg="required", metavar="STR", help="separate columns with STR"),
        Opt(None, "total", help="output a summary"),
        Opt("z", "zero-terminated", help="line delimiter is NUL, not newline"),
    ),
)


@declare("comm", spec=COMM_SPEC, effects=Effects.READS)
def cmd_comm(ctx: Ctx) -> int:
    opts, files = ctx.parse(COMM_SPEC)
    sep = b"\0" if opts.get("zero_terminated") else b"\n"
    check = "default"
    for key, _ in opts.order:
        if key == "check_order":
            check = "on"
        elif key == "nocheck_order":
            check = "off"
    delim_text: str | None = None
    for key, value in opts.order:
        if key == "output_delimiter":
            if delim_text is not None and value != delim_text:
                raise fail(ctx, "multiple output delimiters specified")
            delim_text = value
    delim = encode(delim_text) if delim_text is not None else b"\t"
    # the total line prints the delimiter as a C string: an empty one is nothing there
    total_delim = delim
    if delim_text == "":
        delim = b"\0"
    show = [not opts.get("no1"), not opts.get("no2"), not opts.get("no3")]
    prefixes = [b"", delim if show[0] else b"", delim * (show[0] + show[1])]
    r1, r2 = _open_two(ctx, files, sep)
    out = Out(ctx.stdout)
    counts = [0, 0, 0]
    warned = [False, False]
    seen_unpairable = False
    readers = (r1, r2)

    def step(i: int, prev: bytes) -> bytes | None:
        line = readers[i].next()
        if line is not None and check != "off" and (check == "on" or seen_unpairable) and not warned[i]:
            if prev > line:
                out.flush()
                ctx.error(f"file {i + 1} is not in sorted order")
                if check == "on":
                    raise CommandExit(1)
                warned[i] = True
        return line

    try:
        a = r1.next()
        b = r2.next()
        while a is not None or b is not None:
            ctx.checkpoint()
            if b is None or (a is not None and a < b):
                col, line = 0, a
            elif a is None or b < a:
                col, line = 1, b
            else:
                col, line = 2, a
            assert line is not None
            counts[col] += 1
            if col != 2:
                seen_unpairable = True
            if show[col]:
                out.write(prefixes[col] + line + sep)
            if col in (0, 2):
                assert a is not None
                a = step(0, a)
            if col in (1, 2):
                assert b is not None
                b = step(1, b)
    except _ReadFailed as e:
        out.flush()
        raise fail(ctx, f"{quotef(e.name)}: {strerror(e.err)}")
    except (FsError, StreamError) as e:
        out.flush()
        raise fail(ctx, strerror(e.errno or 5))
    finally:
        r1.close()
        r2.close()
    if opts.get("total"):
        out.write(total_delim.join(b"%d" % c for c in counts) + total_delim + b"total" + sep)
    out.flush()
    if warned[0] or warned[1]:
        raise fail(ctx, "input is not in sorted order")
    return 0


# ------------------------------------------------------------------ join

JOIN_SPEC = CommandSpec(
    name="join",
    usage="[OPTION]... FILE1 FILE2",
    summary="For each pair of input lines with identical join fields, write a line to standard output.",
    opts=(
        Opt(
            "a",
            None,
            arg="required",
            multi=True,
            dest="unpaired",
            metavar="FILENUM",
            help="also print unpairable lines from file FILENUM",
        ),
        Opt(
            "e",
            None,
            arg="required",
            dest="empty",
            metavar="EMPTY",
            help="replace missing input fields with EMPTY",
        ),
        Opt("i", "ignore-case", help="ignore differences in case when comparing fields"),
        Opt(
            "j", None, arg="required", dest="both", metavar="FIELD", help="equivalent to '-1 FIELD -2 FIELD'"
        ),
        Opt(
            "o",
            None,
            arg="required",
            multi=True,
            dest="format",
            metavar="FORMAT",
            help="obey FORMAT while constructing output line",
        ),
        Opt(
            "t",
            None,
            arg="required",
            dest="tab",
            metavar="CHAR",
            help="use CHAR as input and output field separator",
        ),
        Opt(
            "v",
            None,
            arg="required",
            multi=True,
            dest="only",
            metavar="FILENUM",
            help="like -a FILENUM, but suppress joined output lines",
        ),
        Opt("1", None, arg="required", dest="f1", metavar="FIELD", help="join on this FIELD of file 1"),
        Opt("2", None, arg="required", dest="f2", metavar="FIELD", help="join on this FIELD of file 2"),
        Opt(None, "check-order", help="check that the input is correctly sorted"),
        Opt(None, "nocheck-order", help="do not check that the input is correctly sorted"),
        Opt(None, "header", help="treat the first line in each file as field headers"),
        Opt("z", "zero-terminated", help="line delimiter is NUL, not newline"),
    ),
)


def _split_fields(line: bytes, tab: bytes | None) -> list[bytes]:
    if not line:
        return []  # an empty line has no fields at all
    if tab is None:
        # runs of blanks separate fields; leading blanks are skipped, trailing ones end in an empty field
        body = line.lstrip(b" \t\n")
        return _BLANKS.split(body) if body else []
    if tab == b"\n":
        return [line]
    return line.split(tab)


def _field_num(ctx: Ctx, text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1 or not text.strip().isdigit():
        raise fail(ctx, f"invalid field number: {quote(ctx, text)}")
    return n - 1


def _file_num(ctx: Ctx, text: str) -> int:
    if text not in ("1", "2"):
        raise fail(ctx, f"invalid field number: {quote(ctx, text)}")
    return int(text)


def _parse_format(ctx: Ctx, specs: list[str]) -> list[tuple[int, int]] | str:
    items: list[tuple[int, int]] = []
    auto = False
    for spec in specs:
        if spec == "auto":
            auto = True
            continue
        for tok in spec.replace(",", " ").replace("\t", " ").split(" "):
            if not tok:
                continue
            if tok == "0":
                items.append((0, 0))
                continue
            if tok[0] not in "12" or len(tok) < 2:
                raise fail(ctx, f"invalid file number in field spec: {quote(ctx, tok)}")
            if tok[1] != ".":
                raise fail(ctx, f"invalid field specifier: {quote(ctx, tok)}")
            items.append((int(tok[0]), _field_num(ctx, tok[2:])))
    return "auto" if auto and not items else items


class _Joiner:
    def __init__(
        self,
        ctx: Ctx,
        out: Out,
        tab: bytes | None,
        fields: tuple[int, int],
        fold: bool,
        fmt: list[tuple[int, int]] | str | None,
        empty: bytes | None,
        sep: bytes,
    ) -> None:
        self.ctx = ctx
        self.out = out
        self.tab = tab
        self.osep = tab if tab is not None and tab != b"\n" else b" "
        if tab == b"\n":
            self.osep = b"\n"
        self.fields = fields
        self.fold = fold
        self.fmt = fmt
        self.empty = empty
        self.sep = sep
        self.auto: tuple[int, int] | None = None

    def key(self, fields: list[bytes], which: int) -> bytes:
        n = self.fields[which]
        k = fields[n] if n < len(fields) else b""
        return k.translate(_FOLD) if self.fold else k

    def emit(self, f1: list[bytes] | None, f2: list[bytes] | None) -> None:
        osep = self.osep
        parts: list[bytes] = []
        fill = self.empty
        if isinstance(self.fmt, list):
            for fileno, idx in self.fmt:
                if fileno == 0:
                    src, n = (f1, self.fields[0]) if f1 is not None else (f2, self.fields[1])
                else:
                    src, n = (f1, idx) if fileno == 1 else (f2, idx)
                parts.append(self._field(src, n))
            self.out.write(osep.join(parts) + self.sep)
            return
        src, n = (f1, self.fields[0]) if f1 is not None else (f2, self.fields[1])
        parts.append(self._field(src, n))
        for which, fl in ((0, f1), (1, f2)):
            if fl is None:
                if self.auto is not None:
                    parts.extend([fill or b""] * max(self.auto[which] - 1, 0))
                continue
            count = len(fl) if self.auto is None else self.auto[which]
            jf = self.fields[which]
            for i in range(count):
                if i == jf:
                    continue
                parts.append(self._field(fl, i))
        self.out.write(osep.join(parts) + self.sep)

    def _field(self, fields: list[bytes] | None, n: int) -> bytes:
        """A field, or -e's filler where it is missing or empty (GNU's prfield)."""
        if fields is not None and n < len(fields) and fields[n]:
            return fields[n]
        return self.empty if self.empty is not None else b""


@declare("join", spec=JOIN_SPEC, effects=Effects.READS)
def cmd_join(ctx: Ctx) -> int:
    opts, files = ctx.parse(JOIN_SPEC)
    sep = b"\0" if opts.get("zero_terminated") else b"\n"
    fields: list[int | None] = [None, None]

    def set_field(which: int, value: int) -> None:
        old = fields[which]
        if old is not None and old != value:
            raise fail(ctx, f"incompatible join fields {old + 1}, {value + 1}")
        fields[which] = value

    for key, value in opts.order:
        if key == "both":
            set_field(0, _field_num(ctx, value))
            set_field(1, _field_num(ctx, value))
        elif key == "f1":
            set_field(0, _field_num(ctx, value))
        elif key == "f2":
            set_field(1, _field_num(ctx, value))
    f1, f2 = fields[0] or 0, fields[1] or 0
    unpaired = {_file_num(ctx, v) for v in opts.get("unpaired") or []}
    only = {_file_num(ctx, v) for v in opts.get("only") or []}
    print_pairs = not only
    unpaired |= only
    tab: bytes | None = None
    for key, tab_text in opts.order:  # each -t as GNU's option loop meets it
        if key != "tab":
            continue
        raw = encode(tab_text)
        if len(raw) > 1:
            if raw == b"\\0":
                raw = b"\0"
            else:
                raise fail(ctx, f"multi-character tab {quote(ctx, tab_text)}")
        raw = raw if raw else b"\n"
        if tab is not None and tab != raw:
            raise fail(ctx, "incompatible tabs")
        tab = raw
    fmt = _parse_format(ctx, opts.get("format") or []) if opts.get("format") else None
    empty = encode(opts.get("empty")) if opts.get("empty") is not None else None
    check = "default"
    for key, _ in opts.order:
        if key == "check_order":
            check = "on"
        elif key == "nocheck_order":
            check = "off"
    if len(files) == 2 and files[0] == "-" and files[1] == "-":
        raise fail(ctx, "both files cannot be standard input: No such file or directory")
    r1, r2 = _open_two(ctx, files, sep)
    out = Out(ctx.stdout)
    joiner = _Joiner(ctx, out, tab, (f1, f2), bool(opts.get("ignore_case")), fmt, empty, sep)
    state = _JoinState(ctx, joiner, (r1, r2), check, out)
    try:
        state.run(bool(opts.get("header")), unpaired, print_pairs)
    except _ReadFailed as e:
        out.flush()
        raise fail(ctx, f"read error: {strerror(e.err)}")
    except (FsError, StreamError) as e:
        out.flush()
        raise fail(ctx, strerror(e.errno or 5))
    finally:
        r1.close()
        r2.close()
    out.flush()
    if state.warned[0] or state.warned[1]:
        raise fail(ctx, "input is not in sorted order")
    return 0


class _JoinState:
    def __init__(
        self, ctx: Ctx, joiner: _Joiner, readers: tuple[_Reader, _Reader], check: str, out: Out
    ) -> None:
        self.ctx = ctx
        self.j = joiner
        self.readers = readers
        self.check = check
        self.out = out
        self.warned = [False, False]
        self.seen_unpairable = False

    def _group(
        self, i: int, cur: tuple[bytes, list[bytes]], key: Any, mem: MemoryHold
    ) -> tuple[list[list[bytes]], tuple[bytes, list[bytes]] | None]:
        """The lines of input `i` from `cur` on that have join field `key`, and the line after them."""
        group = [cur[1]]
        nxt = self.read(i, cur[1])
        while nxt is not None and self.j.key(nxt[1], i) == key:
            fields = nxt[1]
            mem.charge(2 * len(nxt[0]) + 120 + 56 * len(fields))
            group.append(fields)
            nxt = self.read(i, fields)
        return group, nxt

    def read(self, i: int, prev: list[bytes] | None) -> tuple[bytes, list[bytes]] | None:
        line = self.readers[i].next()
        if line is None:
            return None
        fields = _split_fields(line, self.j.tab)
        if (
            prev is not None
            and self.check != "off"
            and (self.check == "on" or self.seen_unpairable)
            and not self.warned[i]
            and self.j.key(prev, i) > self.j.key(fields, i)
        ):
            self.out.flush()
            r = self.readers[i]
            self.ctx.error(f"{decode(encode(r.name))}:{r.lineno}: is not sorted: {decode(line)}")
            if self.check == "on":
                raise CommandExit(1)
            self.warned[i] = True
        return line, fields

    def run(self, header: bool, unpaired: set[int], print_pairs: bool) -> None:
        j = self.j
        a = self.read(0, None)
        b = self.read(1, None)
        if j.fmt == "auto":
            j.auto = (len(a[1]) if a else 0, len(b[1]) if b else 0)
            j.fmt = None
        if header and (a is not None or b is not None):
            j.emit(a[1] if a else None, b[1] if b else None)
            a = self.read(0, None) if a else None
            b = self.read(1, None) if b else None
        while a is not None and b is not None:
            self.ctx.checkpoint()
            ka, kb = j.key(a[1], 0), j.key(b[1], 1)
            if ka < kb:
                if 1 in unpaired:
                    j.emit(a[1], None)
                a = self.read(0, a[1])
                self.seen_unpairable = True
                continue
            if kb < ka:
                if 2 in unpaired:
                    j.emit(None, b[1])
                b = self.read(1, b[1])
                self.seen_unpairable = True
                continue
            # the lines of both groups with this key are held (and charged) until paired
            with self.ctx.hold_memory() as mem:
                group1, a = self._group(0, a, ka, mem)
                group2, b = self._group(1, b, kb, mem)
                if print_pairs:
                    for x in group1:
                        for y in group2:
                            j.emit(x, y)
        for which, cur in ((0, a), (1, b)):
            while cur is not None:
                if which + 1 in unpaired:
                    j.emit(cur[1], None) if which == 0 else j.emit(None, cur[1])
                elif self.check == "off" or self.warned[which]:
                    break
                cur = self.read(which, cur[1])
