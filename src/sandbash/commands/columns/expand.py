"""expand and unexpand: tabs to spaces and back, with GNU's tab-stop lists."""

from __future__ import annotations

from collections.abc import Callable

from ..context import CommandExit, Ctx
from ..options import CommandSpec, Opt
from ..record import WRITE_ERROR_TWICE, Effects, declare
from ..textbasic.common import Out, quote, read_chunks

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
        # a stop or increment past this is "too large" (GNU: past its integer range)
        self.max_stop = (1 << 64) - 1 if max_stop is None else max_stop
        self.stops: list[int] = []
        self.extend = 0  # /N: every multiple of N after the last stop
        self.increment = 0  # +N: every N after the last stop
        for spec in specs:
            self._parse(ctx, spec)
        self._validate(ctx)
        if not self.stops and not self.extend and not self.increment:
            self.stops = [8]
        if len(self.stops) == 1 and not self.extend and not self.increment:
            self.size = self.stops[0]
            self.stops = []
        else:
            self.size = 0

    def _parse(self, ctx: Ctx, spec: str) -> None:
        """One -t list, as GNU's parse_tab_stops reads it: numbers apart by commas or blanks, a
        `/` or `+` before a number marks it (and every later number of this list) the extend or
        increment size. Each error is told; the list ends the command after it if any was."""
        ok = True
        have = False  # digits of a number read
        start = value = 0
        extend = increment = False
        i, n = 0, len(spec)
        while i < n:
            c = spec[i]
            if c == "," or c in " \t":
                if have and not self._store(ctx, value, extend, increment):
                    ok = False
                    break
                have = False
            elif c in "/+":
                if have:
                    ctx.error(f"'{c}' specifier not at start of number: {quote(ctx, spec[i:])}")
                    ok = False
                extend, increment = c == "/", c == "+"
            elif "0" <= c <= "9":
                if not have:
                    have, start, value = True, i, 0
                value = value * 10 + ord(c) - 48
                if value > self.max_stop:
                    j = i
                    while j < n and "0" <= spec[j] <= "9":
                        j += 1
                    ctx.error(f"tab stop is too large {quote(ctx, spec[start:j])}")
                    ok = False
                    i = j - 1
            else:
                ctx.error(f"tab size contains invalid character(s): {quote(ctx, spec[i:])}")
                ok = False
                break
            i += 1
        if ok and have:
            ok = self._store(ctx, value, extend, increment)
        if not ok:
            raise CommandExit(1)

    def _store(self, ctx: Ctx, value: int, extend: bool, increment: bool) -> bool:
        """A number of a list: a stop, or the extend/increment size (one of each, the last)."""
        if extend or increment:
            if self.extend if extend else self.increment:
                ctx.error(f"'{'/' if extend else '+'}' specifier only allowed with the last value")
                return False
            if extend:
                self.extend = value
            else:
                self.increment = value
            return True
        self.stops.append(value)
        return True

    def _validate(self, ctx: Ctx) -> None:
        """GNU's validate_tab_stops, once every list is read."""
        prev = 0
        for stop in self.stops:
            if stop == 0:
                ctx.error("tab size cannot be 0")
                raise CommandExit(1)
            if stop <= prev:
                ctx.error("tab sizes must be ascending")
                raise CommandExit(1)
            prev = stop
        if self.extend and self.increment:
            ctx.error("'/' specifier is mutually exclusive with '+'")
            raise CommandExit(1)

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


class _Expander:
    """GNU expand's state across reads: the column and whether only blanks came yet (-i), so a
    line streams in pieces however long it is; files run on as one input, as GNU's next_file
    does (a line a file leaves open goes on in the next)."""

    def __init__(self, ctx: Ctx, stops: TabStops, initial: bool) -> None:
        self.ctx = ctx
        self.stops = stops
        self.initial = initial
        self.column = 0
        self.leading = True

    def feed(self, seg: bytes, write: Callable[[bytes], None]) -> None:
        """Expand a piece of a line (no newline in it)."""
        if 8 in seg:  # a backspace (a byte as an int: see builtins/io._read_record)
            self._bytes(seg, write)
            return
        parts = seg.split(b"\t")
        buf = bytearray()
        for k, part in enumerate(parts):
            if k:
                if self.leading:
                    self._tab(buf, write)
                else:  # (-i after a non-blank: the tab stays, and so does its column)
                    buf += b"\t"
                    self.column = self.stops.next_stop(self.column)[0]
            buf += part
            self.column += len(part)
            if self.initial and part.strip(b" "):
                self.leading = False
            if len(buf) >= _CHUNK:
                write(bytes(buf))
                buf.clear()
        write(bytes(buf))

    def newline(self) -> None:
        self.column = 0
        self.leading = True

    def _tab(self, buf: bytearray, write: Callable[[bytes], None]) -> None:
        nxt, _past = self.stops.next_stop(self.column)
        gap = nxt - self.column
        self.column = nxt
        while gap > 0:  # (a far stop goes out in bounded pieces, the budget checked between them)
            piece = min(gap, _CHUNK)
            buf += b" " * piece
            gap -= piece
            if len(buf) >= _CHUNK:
                self.ctx.checkpoint(len(buf) // 4096 + 1)
                write(bytes(buf))
                buf.clear()

    def _bytes(self, seg: bytes, write: Callable[[bytes], None]) -> None:
        """One byte at a time: a backspace takes a column back."""
        buf = bytearray()
        for c in seg:
            if c == 9 and self.leading:
                self._tab(buf, write)
                continue
            if c == 9:
                self.column = self.stops.next_stop(self.column)[0]
            elif c == 8:
                self.column = max(self.column - 1, 0)
            else:
                self.column += 1
            if self.initial and c not in (32, 9):
                self.leading = False
            buf.append(c)
        write(bytes(buf))


def _stream(
    ctx: Ctx,
    files: list[str],
    out: Out,
    feed: Callable[[bytes, Callable[[bytes], None]], None],
    newline: Callable[[], None],
    held: Callable[[], int],
) -> int:
    """Every operand's bytes, read by chunks, through `feed` (pieces of lines) and `newline`
    (each line end, after which the newline itself is written); what the machine holds between
    reads (`held`) is charged while it waits."""
    inputs = ctx.inputs(files, flush=out.flush)
    with ctx.hold_memory() as mem:
        for _name, stream in inputs:
            with inputs.reading():
                for chunk in read_chunks(ctx, stream):
                    parts = chunk.split(b"\n")
                    last = len(parts) - 1
                    for k, part in enumerate(parts):
                        if part:
                            feed(part, out.write)
                        if k < last:
                            newline()
                            out.write(b"\n")
                    mem.set(held())
    return inputs.status


@declare("expand", spec=EXPAND_SPEC, effects=Effects.READS, stdin_close="-", write_failure=WRITE_ERROR_TWICE)
def cmd_expand(ctx: Ctx) -> int:
    opts, files = ctx.parse(EXPAND_SPEC)
    # a tab stop wider than the string limit is refused before any line is expanded to it
    stops = TabStops(ctx, opts.get("tabs") or [], ctx.limits.max_string_length)
    out = Out(ctx.stdout)
    machine = _Expander(ctx, stops, bool(opts.get("initial")))
    status = _stream(ctx, files, out, machine.feed, machine.newline, lambda: 0)
    out.flush()
    return status


@declare(
    "unexpand", spec=UNEXPAND_SPEC, effects=Effects.READS, stdin_close="-", write_failure=WRITE_ERROR_TWICE
)
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
    machine = _Unexpander(stops, convert_all)

    def newline() -> None:
        out.write(machine.end_line())

    status = _stream(ctx, files, out, machine.feed, newline, lambda: len(machine.pending))
    out.write(machine.end_line())  # (the input's last line, without its newline)
    out.flush()
    return status


class _Unexpander:
    """A port of GNU unexpand's state machine, kept across reads: the column, the blanks
    pending until a tab stop decides them (at most a tab stop's distance), and the flags; the
    line end acts as a non-blank character that flushes pending blanks."""

    def __init__(self, stops: TabStops, convert_all: bool) -> None:
        self.stops = stops
        self.convert_all = convert_all
        self.pending = bytearray()
        self._reset()

    def _reset(self) -> None:
        self.column = 0
        self.convert = True
        self.prev_blank = True
        self.one_blank = False  # the first pending blank came just before a tab stop

    def end_line(self) -> bytes:
        out = bytearray()
        self._step(-1, out)
        self._reset()
        return bytes(out)

    def feed(self, seg: bytes, write: Callable[[bytes], None]) -> None:
        out = bytearray()
        for c in seg:
            self._step(c, out)
            if len(out) >= _CHUNK:
                write(bytes(out))
                out.clear()
        write(bytes(out))

    def _step(self, c: int, out: bytearray) -> None:
        if self.convert:
            blank = c in (32, 9)
            pending = self.pending
            if blank:
                nxt, last_tab = self.stops.next_stop(self.column)
                if last_tab:
                    self.convert = False
                if self.convert:
                    if c == 9:
                        self.column = nxt
                        if pending:
                            pending[0] = 9
                    else:
                        self.column += 1
                        if not (self.prev_blank and self.column == nxt):
                            if self.column == nxt:
                                self.one_blank = True
                            pending.append(c)
                            self.prev_blank = True
                            return
                        # replace the pending blanks by a tab or two
                        if pending:
                            pending[0] = 9
                        c = 9
                    # discard pending blanks, unless one blank came just before the previous stop
                    del pending[1 if self.one_blank else 0 :]
            elif c == 8:
                self.column = max(self.column - 1, 0)
            else:
                self.column += 1
            if pending:
                if len(pending) > 1 and self.one_blank:
                    pending[0] = 9
                out += pending
                pending.clear()
                self.one_blank = False
            self.prev_blank = blank
            self.convert = self.convert and (self.convert_all or blank)
        if c >= 0:
            out.append(c)
