"""cut: select bytes, characters (bytes, as GNU cut does) or fields of each line."""

from __future__ import annotations

from .context import Ctx
from .options import CommandSpec, Opt
from .record import Effects, declare
from .textbasic.common import Out, encode, quote, split_records, usage_fail

INF = 1 << 62
_SLICE = 4096  # lines of the one-field path's comprehension (a short line wastes at most one)

CUT_SPEC = CommandSpec(
    name="cut",
    usage="OPTION... [FILE]...",
    summary="Print selected parts of lines from each FILE to standard output.",
    opts=(
        Opt("b", "bytes", arg="required", metavar="LIST", help="select only these bytes"),
        Opt("c", "characters", arg="required", metavar="LIST", help="select only these characters"),
        Opt(
            "d",
            "delimiter",
            arg="required",
            metavar="DELIM",
            help="use DELIM instead of TAB for field delimiter",
        ),
        Opt("f", "fields", arg="required", metavar="LIST", help="select only these fields"),
        Opt("n", None, help="(ignored)"),
        Opt(None, "complement", help="complement the set of selected bytes, characters or fields"),
        Opt("s", "only-delimited", help="do not print lines not containing delimiters"),
        Opt(
            None,
            "output-delimiter",
            arg="required",
            metavar="STRING",
            help="use STRING as the output delimiter",
        ),
        Opt("z", "zero-terminated", help="line delimiter is NUL, not newline"),
    ),
)


def parse_list(ctx: Ctx, text: str, fields: bool) -> list[tuple[int, int]]:
    """GNU set_fields: ranges `N`, `N-M`, `N-`, `-M`, separated by commas or blanks;
    sorted, overlapping ranges merged (adjacent ones stay apart)."""
    zero = "fields are numbered from 1" if fields else "byte/character positions are numbered from 1"
    bad_range = "invalid field range" if fields else "invalid byte or character range"
    ranges: list[tuple[int, int]] = []
    value = 0
    initial = 1
    lhs = rhs = dash = False
    num_start = 0
    i = 0
    n = len(text)
    while True:
        c = text[i] if i < n else ""
        if c == "-":
            if dash:
                raise usage_fail(ctx, bad_range)
            dash = True
            if lhs and not value:
                raise usage_fail(ctx, zero)
            initial = value if lhs else 1
            value = 0
        elif c in (",", " ", "\t", ""):
            if dash:
                dash = False
                if not lhs and not rhs:
                    raise usage_fail(ctx, "invalid range with no endpoint: -")
                if not rhs:
                    ranges.append((initial, INF))
                else:
                    if value < initial:
                        raise usage_fail(ctx, "invalid decreasing range")
                    ranges.append((initial, value))
            else:
                if value == 0:
                    raise usage_fail(ctx, zero)
                ranges.append((value, value))
            value = 0
            if c == "":
                break
            lhs = rhs = False
        elif c.isdigit() and c.isascii():
            if i == 0 or not text[i - 1].isdigit():
                num_start = i
            if dash:
                rhs = True
            else:
                lhs = True
            value = value * 10 + int(c)
            if value >= 2**64 - 1:
                j = num_start
                while j < n and text[j].isdigit():
                    j += 1
                what = "field number" if fields else "byte/character offset"
                raise usage_fail(ctx, f"{what} {quote(ctx, text[num_start:j])} is too large")
        else:
            what = "invalid field value" if fields else "invalid byte/character position"
            raise usage_fail(ctx, f"{what} {quote(ctx, text[i:])}")
        i += 1
    ranges.sort()
    merged: list[tuple[int, int]] = []
    for lo, hi in ranges:
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    nxt = 1
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = max(nxt, hi + 1)
    if nxt < INF:
        out.append((nxt, INF))
    return out


class _FieldCutter:
    def __init__(
        self, ranges: list[tuple[int, int]], delim: bytes, out_delim: bytes, only_delimited: bool
    ) -> None:
        self.ranges = ranges
        self.delim = delim
        self.out_delim = out_delim
        self.only = only_delimited
        self.cache: dict[int, list[int]] = {}

    def indices(self, n: int) -> list[int]:
        idx = self.cache.get(n)
        if idx is None:
            idx = [i for lo, hi in self.ranges if lo <= n for i in range(lo - 1, min(hi, n))]
            self.cache[n] = idx
        return idx

    def cut(self, lines: list[bytes], eol: bytes) -> list[bytes]:
        if len(self.ranges) == 1:
            lo, hi = self.ranges[0]
            if lo == hi:
                return self._one_field(lines, eol, lo)
            if lo > 1 or hi < INF:  # (`1-` splits nothing: whether a line has a delimiter is asked below)
                return self._one_range(lines, eol, lo, hi)
        out: list[bytes] = []
        d = self.delim
        od = self.out_delim
        for line in lines:
            if d not in line:
                if not self.only:
                    out.append(line + eol)
                continue
            parts = line.split(d)
            out.append(od.join([parts[i] for i in self.indices(len(parts))]) + eol)
        return out

    def _one_range(self, lines: list[bytes], eol: bytes, lo: int, hi: int) -> list[bytes]:
        """`-f 3-` or `-f 2-5`: split only as far as the range reaches (`3-`: the rest is one piece,
        kept as it is when the output delimiter is the input's)."""
        d = self.delim
        od = self.out_delim
        out: list[bytes] = []
        append = out.append
        only = self.only
        if hi >= INF:
            same = od == d
            for line in lines:
                parts = line.split(d, lo - 1)
                n = len(parts)
                if n == 1:
                    if not only:
                        append(line + eol)
                elif n < lo:
                    append(eol)
                else:
                    append((parts[-1] if same else od.join(parts[-1].split(d))) + eol)
            return out
        for line in lines:
            parts = line.split(d, hi)
            if len(parts) == 1:
                if not only:
                    append(line + eol)
            else:
                append(od.join(parts[lo - 1 : hi]) + eol)
        return out

    def _one_field(self, lines: list[bytes], eol: bytes, k: int) -> list[bytes]:
        """The common `-f N`: split at most N times and take the N-th piece. A slice of lines
        that all have the field (with `-f 1`, lines without a delimiter are kept whole) is one
        comprehension; the first slice with a shorter line sends the rest down the per-line path."""
        if k == 1 and self.only:
            out: list[bytes] = []
            self._one_field_lines(lines, eol, k, out)
            return out
        d = self.delim
        out = []
        i = k - 1
        for start in range(0, len(lines), _SLICE):
            part = lines[start : start + _SLICE]
            try:
                out.append(eol.join([line.split(d, k)[i] for line in part]) + eol)
            except IndexError:
                self._one_field_lines(lines[start:], eol, k, out)
                break
        return out

    def _one_field_lines(self, lines: list[bytes], eol: bytes, k: int, out: list[bytes]) -> None:
        d = self.delim
        append = out.append
        only = self.only
        for line in lines:
            parts = line.split(d, k)
            n = len(parts)
            if n == 1:
                if not only:
                    append(line + eol)
            elif n >= k:
                append(parts[k - 1] + eol)
            else:
                append(eol)


class _ByteCutter:
    def __init__(self, ranges: list[tuple[int, int]], out_delim: bytes | None) -> None:
        self.slices = [slice(lo - 1, None if hi >= INF else hi) for lo, hi in ranges]
        self.out_delim = out_delim

    def cut(self, lines: list[bytes], eol: bytes) -> list[bytes]:
        slices = self.slices
        out: list[bytes] = []
        if self.out_delim is None:
            if len(slices) == 1:
                s = slices[0]
                return [line[s] + eol for line in lines]
            for line in lines:
                out.append(b"".join([line[s] for s in slices]) + eol)
            return out
        od = self.out_delim
        for line in lines:
            pieces = [p for p in (line[s] for s in slices) if p]
            out.append(od.join(pieces) + eol)
        return out


@declare("cut", spec=CUT_SPEC, effects=Effects.READS, stdin_close="-")
def cmd_cut(ctx: Ctx) -> int:
    opts, files = ctx.parse(CUT_SPEC)
    kinds: list[tuple[str, str]] = []
    for k, v in opts.order:  # (GNU checks these two as its option loop meets them, in order)
        if k in ("bytes", "characters", "fields"):
            if kinds:
                raise usage_fail(ctx, "only one list may be specified")
            kinds.append((k, v))
        elif k == "delimiter" and len(encode(v)) > 1:
            raise usage_fail(ctx, "the delimiter must be a single character")
    if not kinds:
        raise usage_fail(ctx, "you must specify a list of bytes, characters, or fields")
    kind, spec = kinds[0]
    fields = kind == "fields"
    delim_text = opts.get("delimiter")
    if delim_text is not None and not fields:
        raise usage_fail(ctx, "an input delimiter may be specified only when operating on fields")
    if opts.get("only_delimited") and not fields:
        raise usage_fail(ctx, "suppressing non-delimited lines makes sense\n\tonly when operating on fields")
    ranges = parse_list(ctx, spec, fields)
    if opts.get("complement"):
        ranges = complement(ranges)
    out_delim_text = opts.get("output_delimiter")
    if out_delim_text == "":
        out_delim_text = "\0"  # GNU: an empty --output-delimiter means the NUL byte
    eol = b"\0" if opts.get("zero_terminated") else b"\n"
    cutter: _FieldCutter | _ByteCutter
    if fields:
        delim = encode(delim_text) if delim_text is not None else b"\t"
        if not delim:
            delim = b"\0"
        od = encode(out_delim_text) if out_delim_text is not None else delim
        cutter = _FieldCutter(ranges, delim, od, bool(opts.get("only_delimited")))
    else:
        cutter = _ByteCutter(ranges, encode(out_delim_text) if out_delim_text is not None else None)
    out = Out(ctx.stdout)
    inputs = ctx.inputs(files, flush=out.flush)
    for _name, stream in inputs:
        with inputs.reading():
            for lines, tail in split_records(ctx, stream, eol):
                pieces = cutter.cut(lines, eol)
                if tail and eol == b"\0" and isinstance(cutter, _FieldCutter) and pieces == [eol]:
                    last = lines[-1]
                    if last.count(cutter.delim) == 1 and last.endswith(cutter.delim):
                        pieces = []  # GNU quirk: no terminator for this unterminated `X:` record with -z
                out.write(b"".join(pieces))
    out.flush()
    return inputs.status
