"""expand and unexpand: tabs to spaces and back, with GNU's tab-stop lists."""

from __future__ import annotations

from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt
from ..record import Effects, declare
from ..textbasic.common import Out, command, quote
from .fold import _each_line

EXPAND_SPEC = CommandSpec(
    name="expand",
    summary="Convert tabs in each FILE to spaces, writing to standard output.",
    # `-3,6`: GNU's optional-value digit options, the word's rest a tab list read in its place
    dash_value="tabs",
    dash_value_if=lambda a: a[1:2].isdigit(),
    opts=(
        Opt("i", "initial", help="do not convert tabs after non blanks"),
        Opt("t", "tabs", arg="required", multi=True, metavar="N", help="have tabs N characters apart, not 8"),
    ),
)

UNEXPAND_SPEC = CommandSpec(
    name="unexpand",
    summary="Convert blanks in each FILE to tabs, writing to standard output.",
    # `-3`, `-3,6`, `-3 -2`: GNU unexpand's digit and comma options build one number until a
    # comma; each is added to the list where its comma is, the last after every -t list
    dash_value="digits",
    dash_value_if=lambda a: len(a) > 1 and all(c.isdigit() or c == "," for c in a[1:]),
    opts=(
        Opt(None, None, dest="digits", arg="required", multi=True),
        Opt("a", "all", help="convert all blanks, instead of just initial blanks"),
        Opt(None, "first-only", help="convert only leading sequences of blanks (overrides -a)"),
        Opt(
            "t",
            "tabs",
            arg="required",
            multi=True,
            metavar="N",
            help="have tabs N characters apart instead of 8",
        ),
    ),
)


_CHUNK = 1 << 16  # bytes of expanded line built before it is written out


class TabStops:
    """GNU's tab list: one size, or ascending stops optionally followed by /N or +N."""

    def __init__(self, ctx: Ctx, specs: list[str], max_stop: int | None = None) -> None:
        self.max_stop = max_stop  # a stop or increment past this is "too large" (GNU: past its integer range)
        self.stops: list[int] = []
        self.extend = 0  # /N: every multiple of N after the last stop
        self.increment = 0  # +N: every N after the last stop
        for spec in specs:
            self._parse(ctx, spec)
        if not self.stops and not self.extend and not self.increment:
            self.stops = [8]
        if len(self.stops) == 1 and not self.extend and not self.increment:
            self.size = self.stops[0]
            self.stops = []
        else:
            self.size = 0

    def _parse(self, ctx: Ctx, spec: str) -> None:
        i = 0
        n = len(spec)
        while i < n:
            c = spec[i]
            if c in ", \t":
                i += 1
                continue
            prefix = ""
            if c in "/+":
                prefix = c
                i += 1
            j = i
            while j < n and spec[j].isdigit():
                j += 1
            if j == i:
                bad = spec[i:] if i < n else spec
                ctx.error(f"tab size contains invalid character(s): {quote(ctx, bad)}")
                raise CommandExit(1)
            value = int(spec[i:j])
            if self.max_stop is not None and value > self.max_stop:
                ctx.error(f"tab stop is too large {quote(ctx, spec[i:j])}")
                raise CommandExit(1)
            if prefix == "/":
                self.extend = value
            elif prefix == "+":
                self.increment = value
            else:
                if value == 0:
                    ctx.error("tab size cannot be 0")
                    raise CommandExit(1)
                if self.stops and value <= self.stops[-1]:
                    ctx.error("tab sizes must be ascending")
                    raise CommandExit(1)
                self.stops.append(value)
            i = j

    def next_stop(self, column: int) -> tuple[int, bool]:
        """The next tab stop after column, and whether it is past the last explicit one."""
        if self.size:
            return column + self.size - column % self.size, False
        for s in self.stops:
            if s > column:
                return s, False
        last = self.stops[-1] if self.stops else 0
        if self.extend:
            return column + self.extend - column % self.extend, False
        if self.increment:
            return column + self.increment - (column - last) % self.increment, False
        return column + 1, True


@declare("expand", spec=EXPAND_SPEC, effects=Effects.READS, stdin_close="-")
@command
def cmd_expand(ctx: Ctx) -> int:
    opts, files = ctx.parse(EXPAND_SPEC)
    # a tab stop wider than the string limit is refused before any line is expanded to it
    stops = TabStops(ctx, opts.get("tabs") or [], ctx.limits.max_string_length)
    initial = bool(opts.get("initial"))
    out = Out(ctx.stdout)
    size = stops.size

    def handle(line: bytes, terminated: bool) -> None:
        eol = b"\n" if terminated else b""
        if b"\t" not in line:
            out.write(line + eol)
            return
        if size and not initial and b"\b" not in line and line.count(b"\t") * size <= _CHUNK:
            out.write(line.expandtabs(size) + eol)
            return
        # long expansions go out in bounded pieces, checking the budget between them
        buf = bytearray()
        column = 0
        leading = True
        for c in line:
            if c == 9 and leading:
                nxt, _past = stops.next_stop(column)
                gap = nxt - column
                column = nxt
                while gap > 0:
                    piece = min(gap, _CHUNK)
                    buf += b" " * piece
                    gap -= piece
                    if len(buf) >= _CHUNK:
                        ctx.checkpoint(len(buf) // 4096 + 1)
                        out.write(bytes(buf))
                        buf.clear()
                continue
            if c == 8:
                column = max(column - 1, 0)
            else:
                column += 1
            if initial and c not in (32, 9):
                leading = False
            buf.append(c)
        out.write(bytes(buf) + eol)

    status = _each_line(ctx, files, handle, out.flush)
    out.flush()
    return status


@declare("unexpand", spec=UNEXPAND_SPEC, effects=Effects.READS, stdin_close="-")
@command
def cmd_unexpand(ctx: Ctx) -> int:
    opts, files = ctx.parse(UNEXPAND_SPEC)
    specs: list[str] = []
    number = ""
    for key, value in opts.order:
        if key == "tabs":
            specs.append(value)
            continue
        if key != "digits":
            continue
        for c in value:
            if c == ",":
                specs += [number] if number else []
                number = ""
            else:
                number += c
                if int(number) >= 1 << 64:  # GNU accumulates the digits in a uintmax_t
                    ctx.error("tab stop value is too large")
                    return 1
    specs += [number] if number else []
    stops = TabStops(ctx, specs)
    convert_all = bool(opts.get("all") or opts.get("tabs")) and not opts.get("first_only")
    out = Out(ctx.stdout)

    def handle(line: bytes, terminated: bool) -> None:
        out.write(_unexpand_line(line, stops, convert_all) + (b"\n" if terminated else b""))

    status = _each_line(ctx, files, handle, out.flush)
    out.flush()
    return status


def _unexpand_line(line: bytes, stops: TabStops, convert_all: bool) -> bytes:
    """A port of GNU unexpand's per-line state machine (the line end acts as a
    non-blank character that flushes pending blanks)."""
    out = bytearray()
    pending = bytearray()
    column = 0
    convert = True
    prev_blank = True
    one_blank = False  # the first pending blank came just before a tab stop
    n = len(line)
    for pos in range(n + 1):
        c = line[pos] if pos < n else -1
        if convert:
            blank = c in (32, 9)
            if blank:
                nxt, last_tab = stops.next_stop(column)
                if last_tab:
                    convert = False
                if convert:
                    if c == 9:
                        column = nxt
                        if pending:
                            pending[0] = 9
                    else:
                        column += 1
                        if not (prev_blank and column == nxt):
                            if column == nxt:
                                one_blank = True
                            pending.append(c)
                            prev_blank = True
                            continue
                        # replace the pending blanks by a tab or two
                        if pending:
                            pending[0] = 9
                        c = 9
                    # discard pending blanks, unless one blank came just before the previous stop
                    pending = pending[:1] if one_blank else bytearray()
            elif c == 8:
                column = max(column - 1, 0)
            else:
                column += 1
            if pending:
                if len(pending) > 1 and one_blank:
                    pending[0] = 9
                out += pending
                pending = bytearray()
                one_blank = False
            prev_blank = blank
            convert = convert and (convert_all or blank)
        if c >= 0:
            out.append(c)
    return bytes(out)
