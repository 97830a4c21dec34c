"""Execute a parsed sed program over the input, one cycle per line."""

from __future__ import annotations

import errno
from collections.abc import Iterator

from ...limits import LimitExceeded, LimitKind, MemoryHold
from ...regex import Regex
from ...stdio.streams import BufferWriter, Stream, StreamReadError
from ...vfs.errors import FsError
from ...vfs.facade import FileStream
from ..context import CommandExit, Ctx
from ..fsutil import FileRewrite, regular_stdin
from ..inputs import Inputs
from . import blocks
from .blocks import expand
from .parse import Cmd, SedError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FLUSH_AT = 1 << 16
# commands that run on a pattern space still growing in place (a bytearray: N and G append to it,
# H appends it to the hold space, the others do not read it); before any other command, or an
# address that is a regex, it becomes bytes again (one copy, where the command reads it whole)
_GROWS = frozenset("NGHhgxbtT{}:=airRFQz")
# the pattern and hold spaces are charged to max_memory from this size
_HELD_FROM = 1 << 16


def _held(size: int) -> int:
    return size if size >= _HELD_FROM else 0


def _space(ps: bytes | bytearray, grown: bytearray | None = None) -> bytes:
    """The pattern (or hold) space as bytes: `grown` when it is growing in place, else `ps`."""
    if grown is not None:
        return bytes(grown)
    return bytes(ps) if isinstance(ps, bytearray) else ps


class Input:
    """Lines from the input files, with one line of look-ahead for `$`."""

    def __init__(self, runner: Runner, names: list[str], sep: bytes, separate: bool) -> None:
        self.r = runner
        self.operands = runner.operands(names)
        self.next_operand = iter(self.operands)
        self.sep = sep
        self.separate = separate
        self.cur_name = "-"
        self.stream: Stream | None = None
        self.lines: Iterator[bytes] | None = None
        self.pending: bytes | None = None  # the look-ahead line (with its separator, if any)
        self.pending_name = "-"  # the file the look-ahead line came from
        self.line_name = "-"  # the file the current line came from
        self.peeked = False  # whether `$`, n or N looked past the current line
        self.lineno = 0
        self.started = False
        # a regular standard input: where sed started reading it, and the bytes of its lines used
        # (read, not only looked ahead at), for `leave`
        self.pending_stream: Stream | None = None  # the stream the look-ahead line came from
        self.stdin_file: FileStream | None = None
        self.stdin_begin = 0
        self.stdin_used = 0

    def _open_next(self) -> bool:
        """Open the next readable input; False when there is none (the inputs close it when
        they move on)."""
        for name, stream in self.next_operand:
            self.stream = stream
            self.cur_name = name
            stdin = regular_stdin(self.r.ctx, stream)
            if stdin is not None:
                self.stdin_file, self.stdin_begin, self.stdin_used = stdin, stdin.tell(), 0
            self.lines = stream.lines(self.sep, self.r.ctx.budget)
            self.r.start_file(name)
            return True
        return False

    def _raw_next(self) -> bytes | None:
        while True:
            if self.lines is not None:
                try:
                    line = next(self.lines, None)
                except StreamReadError as e:  # `sed p < dir`: named, and the input ends (status 4)
                    self.operands.fail_reading(e.errno)
                    line = None
                if line is not None:
                    return line
                self.lines = None
                self.started = True
                if self.separate:
                    return None
            elif self.separate and self.started:
                return None
            if not self._open_next():
                return None
            self.started = True

    def read(self) -> bytes | None:
        """The next line with its separator (or without, at a final line
        that lacks one); None at the end of input (or of the file with -s)."""
        if self.pending is None:
            self._look_ahead()
        line = self.pending
        if line is None:
            return None
        self.line_name = self.pending_name
        if self.stdin_file is not None and self.pending_stream is self.stdin_file:
            self.stdin_used += len(line)
        self._look_ahead()
        self.peeked = False
        self.lineno += 1
        return line

    def _look_ahead(self) -> None:
        self.pending = self._raw_next()
        self.pending_name = self.cur_name
        self.pending_stream = self.stream

    def leave(self) -> None:
        """At a quit (q, Q): a regular standard input is left just past the lines sed used, the
        look-ahead line unread (GNU's stdio gives the offset back at exit): `{ sed 2q; cat; } < f`
        cats from line 3."""
        if self.stdin_file is not None:
            self.stdin_file.reposition(self.stdin_begin + self.stdin_used)

    def is_last(self) -> bool:
        self.peeked = True
        if self.pending is None:
            self._look_ahead()
        return self.pending is None

    def file_name(self) -> str:
        """The name `F` prints: GNU reads ahead only to answer `$` (and n/N at the end), and
        that moves it into the next file, so F then names the next file with data (or the last
        file opened, when only empty ones follow)."""
        return self.pending_name if self.peeked else self.line_name

    def next_file(self) -> bool:
        """With -s/-i: move on to the next file; False when none is left."""
        self.pending = None
        if self.separate:
            if not self._open_next():
                return False
            self.lineno = 0
            self._look_ahead()
            return True
        return False


class Runner:
    def __init__(
        self,
        ctx: Ctx,
        cmds: list[Cmd],
        *,
        quiet: bool,
        sep: bytes,
        separate: bool,
        in_place: bool,
        suffix: str,
        line_len: int,
        posix: bool,
        unbuffered: bool,
        sandbox: bool,
        script_end: str = "",
        follow_symlinks: bool = False,
    ) -> None:
        self.ctx = ctx
        self.follow_symlinks = follow_symlinks
        self.script_end = script_end
        self.cmds = cmds
        self.quiet = quiet
        self.sep = sep
        self.separate = separate or in_place
        self.in_place = in_place
        self.suffix = suffix
        self.line_len = line_len
        self.posix = posix
        self.unbuffered = unbuffered
        self.sandbox = sandbox
        self.status = 0
        self.out = bytearray()
        self.dest: Stream = ctx.stdout
        # the hold space, and the pattern space in cycle(): bytes, or a bytearray while N, G or H
        # grow them (an append in place: `:a;N;$!ba` or `H` over every line made a new copy of the
        # whole space a line, quadratic: 100,000 lines took 7 s, GNU 0.03); a command that reads
        # the pattern space gets bytes (`_GROWS`), and the spaces' size is charged to max_memory
        self.hold: bytes | bytearray = b""
        self.hold_nl = True  # GNU keeps the "had a newline" flag with each buffer
        self.spaces = MemoryHold(ctx.budget)
        # per command: whether it runs on a pattern space still growing (see `_GROWS`)
        self.keeps_growing = [
            c.name in _GROWS and not any(a is not None and a.kind == "re" for a in (c.a1, c.a2)) for c in cmds
        ]
        self.last_rx: Regex | None = None
        self.append_q: list[tuple[str, bytes]] = []
        self.wfiles: dict[str, Stream] = {}
        self.w_missing: set[str] = set()
        self.rfiles: dict[str, Iterator[bytes]] = {}
        self.quit_status: int | None = None
        self.max_iter = ctx.limits.max_sed_iterations
        self.max_len = ctx.limits.max_string_length
        self.inplace_name: str | None = None
        # -i: the edited file's new content goes to a temporary file swapped in at its end
        self.inplace: FileRewrite | None = None
        self.missing_nl = False

    # ------------------------------------------------------------ output
    def emit(self, data: bytes, missing_nl: bool = False) -> None:
        if self.missing_nl:
            self.out += self.sep
        self.missing_nl = missing_nl
        self.out += data
        if len(self.out) >= FLUSH_AT or self.unbuffered:
            self.flush()

    def emit_ps(self, ps: bytes, nl: bool) -> None:
        """Output the pattern space as GNU does: the newline only when the
        input line had one (a later output adds it first)."""
        if nl:
            self.emit(ps + self.sep)
        else:
            self.emit(ps, missing_nl=True)

    def flush(self) -> None:
        if self.out:
            self.dest.write(bytes(self.out))
            self.out.clear()

    def wfile(self, name: str) -> Stream:
        st = self.wfiles.get(name)
        if st is None:
            if name == "/dev/stdout":
                st = self.ctx.stdout
            elif name == "/dev/stderr":
                st = self.ctx.stderr
            else:
                try:
                    st = self.ctx.open_out(name)
                except FsError as e:
                    raise SedError(f"couldn't open file {name}: {e.message}", 4) from None
            self.wfiles[name] = st
        return st

    def open_wfiles(self) -> None:
        """GNU creates (truncates) every w file before reading input."""
        for c in self.cmds:
            name = (
                c.wfile
                if c.name == "s"
                else (c.text.decode("utf-8", "surrogateescape") if c.name in "wW" else None)
            )
            if name:
                self.wfile(name)

    def write_w(self, name: str, data: bytes, nl: bool = True) -> None:
        if name == "/dev/stdout" and not self.in_place:
            # GNU keeps a separate "missing newline" state for this output
            if name in self.w_missing:
                self.out += self.sep
                self.w_missing.discard(name)
            self.out += data + self.sep if nl else data
            if not nl:
                self.w_missing.add(name)
            if len(self.out) >= FLUSH_AT or self.unbuffered:
                self.flush()
            return
        st = self.wfile(name)
        if name in self.w_missing:
            st.write(self.sep)
            self.w_missing.discard(name)
        st.write(data + self.sep if nl else data)
        if not nl:
            self.w_missing.add(name)

    # ------------------------------------------------------------ files (-i)
    def start_file(self, name: str) -> None:
        if not self.in_place:
            return
        self.finish_file()
        if name == "-":
            return
        self.flush()
        self.missing_nl = False
        if self.follow_symlinks:  # edit the file a chain of links ends at, leaving the links
            name = _link_target(self.ctx, name)
        self.inplace_name = name
        try:
            self.inplace = FileRewrite(self.ctx.fs, name, prefix="sed", rng=self.ctx.rng)
        except FsError as e:
            # GNU sed cannot go on without its temporary file
            folder = name.rsplit("/", 1)[0] if "/" in name else "."
            self.ctx.error(f"couldn't open temporary file {folder}/sedXXXXXX: {e.message}")
            self.inplace_name = None
            raise CommandExit(4)
        self.dest = self.inplace.stream

    def finish_file(self, completed: bool = True) -> None:
        """End the -i edit of the current file: swap the new content in, or (when the run did
        not complete) drop it and leave the file as it was."""
        rewrite = self.inplace
        if self.inplace_name is None or rewrite is None:
            return
        name = self.inplace_name
        self.inplace_name = None
        self.inplace = None
        self.dest = self.ctx.stdout
        if not completed:
            rewrite.abort()
            return
        try:
            rewrite.stream.write(bytes(self.out))
            self.out.clear()
            backup = None
            if self.suffix:
                base = name.rsplit("/", 1)
                if "*" in self.suffix:
                    bname = self.suffix.replace("*", base[-1])
                    backup = bname if "/" in bname else (base[0] + "/" + bname if len(base) > 1 else bname)
                else:
                    backup = name + self.suffix
            rewrite.commit(backup)
        except FsError as e:
            rewrite.abort()
            self.ctx.error(f"couldn't edit {name}: {e.message}")
            self.status = 4

    # ------------------------------------------------------------ matching
    def rx_for(self, rx: Regex | None) -> Regex:
        if rx is None:
            if self.last_rx is None:
                raise SedError(f"{self.script_end}no previous regular expression")
            return self.last_rx
        self.last_rx = rx
        return rx

    def match_addr(self, a: Any, ps: bytes, inp: Input) -> bool:
        k = a.kind
        if k == "line":
            return bool(inp.lineno == a.n)
        if k == "last":
            return inp.is_last()
        if k == "re":
            return bool(self.rx_for(a.rx).search(ps) is not None)
        if k == "step":
            if a.step <= 0:
                return bool(inp.lineno == a.n)
            return bool(inp.lineno >= a.n and (inp.lineno - a.n) % a.step == 0)
        return False  # zero

    def selected(self, c: Cmd, ps: bytes, inp: Input) -> bool:
        if c.a1 is None:
            return True
        if c.a2 is None:
            return self.match_addr(c.a1, ps, inp)
        ln = inp.lineno
        if c.active:
            k = c.a2_kind
            if k == "re":
                if self.match_addr(c.a2, ps, inp):
                    c.active = False
                return True
            if k == "last":
                if inp.is_last():
                    c.active = False
                return True
            if k == "tilde":
                if c.a2.n <= 0 or ln % c.a2.n == 0:
                    c.active = False
                return True
            # line / plus: end_line computed at range start
            if ln >= c.end_line:
                c.active = False
                c.closed = c.a1.kind == "line"
            return True
        if c.a1.kind == "zero":
            if ln == 1:
                c.active = True
                if self.match_addr(c.a2, ps, inp):
                    c.active = False
                return True
            return False
        if c.a1.kind == "line":
            # GNU: a range from line N starts at the first line >= N that
            # reaches the command (line N itself may have been skipped)
            if c.closed or ln < c.a1.n:
                return False
            c.closed = True
        elif not self.match_addr(c.a1, ps, inp):
            return False
        k = c.a2_kind
        if k == "line":
            if c.a2.n > ln:
                c.active = True
                c.end_line = c.a2.n
        elif k == "plus":
            if c.a2.n > 0:
                c.active = True
                c.end_line = ln + c.a2.n
        elif k == "tilde":
            if c.a2.n > 0:
                c.active = True
        elif k == "last":
            if not inp.is_last():
                c.active = True
        else:  # regex: checked from the next line on
            c.active = True
        return True

    # ------------------------------------------------------------ s///
    def substitute(self, c: Cmd, ps: bytes) -> bytes | None:
        if len(ps) > 4096:  # a loop over a big pattern space (`:a;s/x/y/;ta`) is work a turn
            self.ctx.checkpoint(len(ps) >> 12)
        rx = self.rx_for(None if c.rx_empty else c.rx)
        repl = c.repl
        assert repl is not None
        out: list[bytes] = []
        last = 0
        count = 0
        done = False
        checkpoint = self.ctx.checkpoint
        for m in rx.finditer(ps):
            count += 1
            if count < c.occurrence:
                continue
            s, e = m.span()
            out.append(ps[last:s])
            out.append(repl.simple if repl.simple is not None else expand(repl, m))
            last = e
            done = True
            checkpoint()
            if not c.global_:
                break
        if not done:
            return None
        out.append(ps[last:])
        return b"".join(out)

    # ------------------------------------------------------------ run
    def run(self, names: list[str]) -> int:
        plan = blocks.plan(self, names)
        if plan is not None:
            return blocks.run(self, names[0], plan)
        self.open_wfiles()
        inp = Input(self, names, self.sep, self.separate)
        completed = False
        try:
            with self.spaces:
                self._loop(inp)
            completed = True
            if self.quit_status is not None:
                inp.leave()
        except FsError as e:
            if self.inplace_name is None:
                raise
            # writing the new content failed (quota, a full disk): the file keeps its content
            self.ctx.error(f"couldn't edit {self.inplace_name}: {e.message}")
            self.status = 4
        finally:
            inp.operands.close()
            if self.inplace is None:
                self.flush()
            self.finish_file(completed)  # writes what is left of an -i file's content itself
            for name, st in self.wfiles.items():
                if name not in ("/dev/stdout", "/dev/stderr"):
                    st.close()
        if self.quit_status is not None:
            return self.quit_status if self.status == 0 else self.status
        return self.status

    def operands(self, names: list[str]) -> Inputs:
        """The input files in GNU sed's words: one it cannot open is skipped (status 2); one it
        cannot read, a directory too, ends the input (status 4)."""
        inputs = self.ctx.inputs(
            names,
            "can't read {name}: {err}",
            "couldn't edit {name}: not a regular file" if self.in_place else "read error on {name}: {err}",
        )
        inputs.stop_on_read_error = True
        inputs.stdin_name = "stdin"

        def open_failed() -> None:
            self.status = 2

        def read_failed() -> None:
            self.status = 4

        inputs.on_open_error, inputs.on_read_error = open_failed, read_failed
        return inputs

    def _loop(self, inp: Input) -> None:
        while True:
            line = inp.read()
            if line is None:
                if self.separate and inp.next_file():
                    self.reset_ranges()
                    continue
                return
            if not self.cycle(inp, line):
                return

    def reset_ranges(self) -> None:
        for c in self.cmds:
            c.active = False
            c.closed = False

    def cycle(self, inp: Input, line: bytes) -> bool:
        """One cycle; False when the script quit."""
        sep = self.sep
        ps, nl = (line[:-1], True) if line.endswith(sep) else (line, False)
        grown: bytearray | None = None  # the pattern space while N or G grow it in place (ps stale)
        ctx = self.ctx
        cmds = self.cmds
        ncmds = len(cmds)
        keeps_growing = self.keeps_growing
        if self.spaces.held:  # the pattern space of the last cycle is gone
            self.spaces.set(_held(len(self.hold)))
        tflag = False
        restart = True
        while restart:
            restart = False
            pc = 0
            jumps = 0
            while pc < ncmds:
                c = cmds[pc]
                if grown is not None and not keeps_growing[pc]:
                    ps, grown = bytes(grown), None
                pc += 1
                sel = self.selected(c, ps, inp)
                if c.negate:
                    sel = not sel
                if not sel:
                    if c.name == "{":
                        pc = c.target
                    continue
                name = c.name
                if name == "{":
                    continue
                if name == "s":
                    new = self.substitute(c, ps)
                    if new is not None:
                        if len(new) > self.max_len and len(new) > len(ps):  # s/.*/&&/ in a loop doubles it
                            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, self.max_len)
                        tflag = True
                        ps = new
                        if c.evaluate:
                            self.flush()
                            ps = self.run_shell(ps).rstrip(b"\n") if ps else ps
                        if c.print_:
                            self.emit_ps(ps, nl)
                        if c.wfile:
                            self.write_w(c.wfile, ps, nl)
                elif name == "p":
                    self.emit_ps(ps, nl)
                elif name == "d":
                    return self.end_cycle(inp, None, nl)
                elif name == "D":
                    k = ps.find(b"\n")
                    if k < 0:
                        return self.end_cycle(inp, None, nl)
                    ps = ps[k + 1 :]
                    self.flush_append()
                    restart = True
                    jumps += 1
                    break
                elif name in "btT":
                    if name == "b" or (name == "t" and tflag) or (name == "T" and not tflag):
                        if name == "t":
                            tflag = False
                        pc = c.target
                        jumps += 1
                        if jumps > self.max_iter:
                            raise LimitExceeded(LimitKind.MAX_SED_ITERATIONS, self.max_iter)
                        ctx.checkpoint()  # (a big pattern space is work where it is read: substitute)
                    elif name == "T":
                        tflag = False
                elif name == "n":
                    if inp.is_last():
                        # GNU: print the pattern space and stop (no next line)
                        return self.end_cycle(inp, ps, nl, quit_after=not self.separate)
                    if not self.quiet:
                        self.emit(ps + sep)
                    self.flush_append()
                    nxt = inp.read()
                    if nxt is None:
                        return False
                    ps, nl = (nxt[:-1], True) if nxt.endswith(sep) else (nxt, False)
                    jumps = 0
                elif name == "N":
                    if inp.is_last():
                        if self.posix:
                            return False
                        return self.end_cycle(inp, _space(ps, grown), nl, quit_after=not self.separate)
                    self.flush_append()
                    nxt = inp.read()
                    if nxt is None:
                        return self.end_cycle(inp, _space(ps, grown), nl, quit_after=True)
                    more, nl = (nxt[:-1], True) if nxt.endswith(sep) else (nxt, False)
                    if grown is None:
                        grown = bytearray(ps)
                    grown += b"\n"
                    grown += more
                    if len(grown) >= _HELD_FROM:
                        self.spaces.set(len(grown) + _held(len(self.hold)))
                    jumps = 0
                elif name == "g":
                    # (a copy: the pattern space may grow in place, the hold space must not)
                    ps, grown, nl = _space(self.hold), None, self.hold_nl
                elif name == "G":
                    if grown is None:
                        grown = bytearray(ps)
                    grown += b"\n"
                    grown += self.hold
                    nl = self.hold_nl
                    if len(grown) > self.max_len:
                        raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, self.max_len)
                    if len(grown) >= _HELD_FROM:
                        self.spaces.set(len(grown) + _held(len(self.hold)))
                elif name == "h":
                    self.hold, self.hold_nl = _space(ps, grown), nl
                elif name == "H":
                    hold = self.hold
                    if not isinstance(hold, bytearray):
                        hold = bytearray(hold)
                    hold += b"\n"
                    hold += ps if grown is None else grown
                    self.hold, self.hold_nl = hold, nl
                    if len(hold) > self.max_len:
                        raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, self.max_len)
                    if len(hold) >= _HELD_FROM:
                        self.spaces.set(len(hold) + (len(ps) if grown is None else len(grown)))
                elif name == "x":
                    # (the spaces change places, whichever is a bytearray: nothing is copied)
                    hold, self.hold = self.hold, (ps if grown is None else grown)
                    if isinstance(hold, bytearray):
                        ps, grown = b"", hold
                    else:
                        ps, grown = hold, None
                    nl, self.hold_nl = self.hold_nl, nl
                elif name == "a":
                    self.append_q.append(("text", c.text))
                elif name == "i":
                    self.emit(c.text)
                elif name == "c":
                    if c.a2 is None or c.negate or not c.active:
                        self.emit(c.text)
                    return self.end_cycle(inp, None, nl)
                elif name == "=":
                    self.emit(str(inp.lineno).encode() + b"\n")
                elif name == "l":
                    self.emit(self.escape_l(ps, c.num if c.num >= 0 else self.line_len))
                elif name == "P":
                    k = ps.find(b"\n")
                    if k < 0:
                        self.emit_ps(ps, nl)
                    else:
                        self.emit(ps[:k] + sep)
                elif name == "q":
                    self.quit_status = c.num
                    self.end_cycle(inp, ps, nl, quit_after=True)
                    if self.missing_nl:  # GNU adds the missing newline when quitting
                        self.emit(b"")
                    return False
                elif name == "Q":
                    self.quit_status = c.num
                    return False
                elif name == "z":
                    ps, grown = b"", None
                elif name == "y":
                    text = ps.decode("utf-8", "surrogateescape")
                    ps = "".join(c.ymap.get(ch, ch) for ch in text).encode("utf-8", "surrogateescape")
                elif name == "r":
                    self.append_q.append(("file", c.text))
                elif name == "R":
                    self.read_R(c.text.decode("utf-8", "surrogateescape"))
                elif name == "w":
                    self.write_w(c.text.decode("utf-8", "surrogateescape"), ps, nl)
                elif name == "W":
                    k = ps.find(b"\n")
                    self.write_w(
                        c.text.decode("utf-8", "surrogateescape"), ps if k < 0 else ps[:k], k >= 0 or nl
                    )
                elif name == "F":
                    self.emit(inp.file_name().encode("utf-8", "surrogateescape") + b"\n")
                elif name == "e":
                    self.flush()
                    if c.text:
                        self.emit(self.run_shell(c.text))
                    else:
                        ps = self.run_shell(ps).rstrip(b"\n")
            else:
                return self.end_cycle(inp, _space(ps, grown), nl)
            if jumps > self.max_iter:
                raise LimitExceeded(LimitKind.MAX_SED_ITERATIONS, self.max_iter)
        return True

    def end_cycle(self, inp: Input, ps: bytes | None, nl: bool, quit_after: bool = False) -> bool:
        if ps is not None and not self.quiet:
            self.emit_ps(ps, nl)
        self.flush_append()
        self.ctx.checkpoint()
        return not quit_after

    def flush_append(self) -> None:
        if not self.append_q:
            return
        for kind, data in self.append_q:
            if kind == "text":
                self.emit(data)
            elif kind == "file":
                name = data.decode("utf-8", "surrogateescape")
                try:
                    content = (
                        self.ctx.read_input(name)
                        if name != "/dev/stdin"
                        else self.ctx.read_all(self.ctx.stdin)
                    )
                except FsError:
                    continue
                self.emit(content)
            else:
                self.emit(data)
        self.append_q.clear()

    def read_R(self, name: str) -> None:
        it = self.rfiles.get(name)
        if it is None:
            try:
                it = self.ctx.open_in(name).lines(budget=self.ctx.budget)
            except FsError:
                it = iter(())
            self.rfiles[name] = it
        try:
            line = next(it, None)
        except StreamReadError as e:
            if e.errno != errno.EBADF:
                raise
            line = None  # (`R -` with a closed stdin reads nothing, as GNU's)
            self.rfiles[name] = iter(())
        if line is not None:
            if not line.endswith(b"\n"):
                line += b"\n"
            self.append_q.append(("line", line))

    def run_shell(self, command: bytes) -> bytes:
        if self.sandbox:
            raise SedError("e/r/w commands disabled in sandbox mode")
        out = BufferWriter()
        self.ctx.run(["sh", "-c", command.decode("utf-8", "surrogateescape")], stdin=b"", stdout=out)
        return out.getvalue()

    def escape_l(self, ps: bytes, width: int) -> bytes:
        pieces: list[str] = []
        for b in ps:
            if b == 0x5C:
                pieces.append("\\\\")
            elif b in _L_ESC:
                pieces.append(_L_ESC[b])
            elif 32 <= b < 127:
                pieces.append(chr(b))
            else:
                pieces.append(f"\\{b:03o}")
        lines: list[str] = []
        cur = ""
        if width >= 1:  # (1: GNU wraps before every character, an empty first line too)
            for p in pieces:
                if len(cur) + len(p) > width - 1:
                    lines.append(cur + "\\")
                    cur = ""
                cur += p
        else:
            cur = "".join(pieces)
        lines.append(cur + "$")
        return ("\n".join(lines) + "\n").encode()


_L_ESC = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}


def _link_target(ctx: Ctx, name: str) -> str:
    """Where a chain of symbolic links from `name` ends, each relative link taken from the
    directory of the link (GNU sed's follow_symlink); `name` itself when it is no link."""
    for _ in range(40):
        try:
            target = ctx.fs.readlink(name)
        except FsError:
            return name
        folder = name.rsplit("/", 1)[0] + "/" if "/" in name else ""
        name = target if target.startswith("/") else folder + target
    return name
