"""Running jq: inputs, outputs, error reporting and exit statuses (jq 1.7's main)."""

from __future__ import annotations

import errno
from collections.abc import Iterator

from ...limits import LimitExceeded, LimitKind
from ...stdio.streams import Stream
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..textbasic.common import STDIO_BLOCK
from .builtins_data import _tostream
from .cli import _HINT, Options
from .decode import NOTHING, JsonStream, ParseError, decode_text, parse_single
from .encode import BUDGET, Sink, Style, dump_to, dumps, quote
from .engine import CompileErrors, Program
from .errors import HaltSignal, JqError
from .memory import MEM, JqMemory, charge
from .runtime import Rt
from .values import CAPS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# exit statuses (jq's main.c)
OK, NULL_KIND, SYSTEM, COMPILE, NO_OUTPUT, UNKNOWN = 0, -1, 2, 3, -4, 5
PARSE_ERROR_STATUS = 4


class Inputs:
    """The input values: files (or stdin) parsed as JSON, or raw lines."""

    def __init__(self, ctx: Ctx, opts: Options, checkpoint: Any) -> None:
        self.ctx = ctx
        self.opts = opts
        self.checkpoint = checkpoint
        # the operands, opened one by one as the values are pulled (jq's words for a bad one)
        self.operands = ctx.inputs(opts.files, "error: Could not open file {name}: {err}")
        self.started = False
        self.lines_before = 0  # newlines of the operands before the current one
        self.stream: JsonStream | None = None
        self.filename: str | None = None
        self.raw_lines: Iterator[str] | None = None
        self.raw_line_count = 0
        self.end_lines = 0  # newlines of the JSON file read to its end (error positions)
        self.pending: list[Any] = []
        self.taken = 0  # values read from the JSON stream

    @property
    def failures(self) -> int:
        return self.operands.failures

    def _open_next(self) -> bool:
        """Start the input: the operands read as one text (jq feeds its files to one parser: a
        value or a raw line may run from one file into the next, `printf 1 > a; printf 2 > b;
        jq . a b` is 12). False when it has been started (or, with --seq, read) already."""
        if self.started:
            return False
        self.started = True
        chunks = self._chunks()
        cap = self.ctx.limits.max_string_length
        if self.opts.seq and not self.opts.raw_input:
            # the texts between RS characters are parsed from the whole input: held (bytes, their
            # joined copy, the decoded text) while it is parsed, charged to the run's memory
            with self.ctx.hold_memory() as held:
                self.pending.extend(_seq_values(self.ctx.read_all(chunks, copies=3, hold=held), self))
            return False
        if self.opts.raw_input and self.opts.slurp:
            # -R -s: the whole input is one string, which is at most max_string_length (the lines
            # were joined with nothing charged: a 200 MB input held 4 GB); the value made from it
            # is charged as jq holds it
            self.raw_lines = iter((decode_text(self.ctx.read_all(chunks, cap=cap)),))
        elif self.opts.raw_input:
            self.raw_lines = _lines(chunks, cap)
        else:
            self.stream = JsonStream(chunks, self.checkpoint, cap, self.ctx.budget.remaining, charge)
            mem = MEM.get()
            if mem is not None:
                mem.streams.append(self.stream)
        return True

    def _chunks(self) -> Iterator[bytes]:
        """The operands' bytes in turn; `lines_before` counts the newlines of the files before the
        one being read (jq's positions and input_line_number count within the current file)."""
        carry = 0
        for _name, stream in self._operands():
            self.lines_before += carry
            carry = 0
            for chunk in stream.chunks():
                carry += chunk.count(b"\n")
                yield chunk

    def _operands(self) -> Iterator[tuple[str, Stream]]:
        """The operands in turn, each opened as it is reached (a directory is a read error)."""
        for name, stream in self.operands:
            self.filename = "<stdin>" if name == "-" else name
            if name != "-" and self.ctx.fs.try_stat(name) is not None and self.ctx.fs.is_dir(name):
                self.operands.fail_reading(errno.EISDIR)  # a backend that opens directories
                continue
            yield name, stream

    def next_value(self) -> Any:
        """The next input value, NOTHING at the end; raises ParseError."""
        if self.pending:
            v = self.pending.pop(0)
            if type(v) is SeqError:
                raise ParseError(v.message)
            return v
        while True:
            if self.opts.raw_input:
                if self.raw_lines is not None:
                    line = next(self.raw_lines, None)
                    if line is not None:
                        self.raw_line_count += 1
                        return line
                    self.raw_lines = None
            elif self.stream is not None:
                value = self.stream.next()
                self.taken += 1
                if not self.taken & 63:
                    charge(self.stream.take_cost())  # what the values read hold (text_cost)
                if value is not NOTHING:
                    if self.opts.stream:
                        events = _stream_events(value)
                        self.pending.extend(events[1:])
                        return events[0]
                    return value
                # jq's error position after the last value of a file names the file's every
                # line (`jq -s .x` on three lines: `at f:3`), until the next file opens
                self.end_lines = self.stream.total_lines()
                self.stream = None
            if not self._open_next():
                if self.pending:
                    return self.next_value()
                return NOTHING

    def slurped(self) -> Any:
        if self.opts.raw_input:
            if not self._open_next():
                return ""
            assert self.raw_lines is not None
            text = "".join(self.raw_lines)
            self.end_lines = text.count("\n")
            self.raw_lines = None
            return text
        # collected as `[inputs]` would be: in batches, each charged to the run's memory as taken
        # (5,000,000 small objects held ~1 GB uncharged)
        values = iter(self.next_value, NOTHING)
        mem = MEM.get()
        if mem is None:
            return list(values)
        out = mem.collect(values, decoded=True)
        # what was charged is this array, all of it live: no measurement would find less (a walk of
        # 400,000 values took longer than reading them)
        mem.flush()
        mem.since = 0
        return out

    def position(self) -> str:
        if self.filename is None:
            return "<unknown>"
        return f"{self.filename}:{self._line_in_file(self.end_lines)}"

    def line_number(self) -> int:
        return self._line_in_file(0)

    def _line_in_file(self, ended: int) -> int:
        """Newlines read so far in the current file: the parser's count, else `ended` (a JSON text
        read to its end) or the raw lines; jq counts within each file."""
        read = self.stream.line_number() if self.stream is not None else ended or self.raw_line_count
        return read - self.lines_before


def _lines(chunks: Iterator[bytes], cap: int) -> Iterator[str]:
    """Lines of the raw input; a line longer than `cap` bytes is a limit."""
    pending: list[bytes] = []
    size = 0
    for chunk in chunks:
        if 10 not in chunk:  # (a byte as an int: see builtins/io._read_record)
            pending.append(chunk)
            size += len(chunk)
            if size > cap:
                raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, cap)
            continue
        if pending:
            pending.append(chunk)
            chunk = b"".join(pending)
            pending = []
        parts = chunk.split(b"\n")
        last = parts.pop()
        for p in parts:
            yield decode_text(p)
        if last:
            pending.append(last)
        size = len(last)
    if pending:
        yield decode_text(b"".join(pending))


class SeqError:
    """A parse error in --seq input: reported and skipped."""

    def __init__(self, message: str) -> None:
        self.message = message


def _seq_values(data: bytes, inputs: Inputs) -> list[Any]:
    """application/json-seq: texts after RS characters; text before the
    first RS is ignored, a text cut short by the next RS is an error."""
    text = decode_text(data)
    parts = text.split("\x1e")
    out: list[Any] = []
    offset = len(parts[0]) + 1

    def where(pos: int) -> str:
        line = text.count("\n", 0, pos) + 1
        return f"line {line}, column {pos - text.rfind(chr(10), 0, pos) - 1}"

    if len(parts) == 1:
        if text.strip():
            out.append(SeqError(f"Unfinished abandoned text at EOF at {where(len(text))}"))
        return out
    for i, seg in enumerate(parts[1:]):
        last = i == len(parts) - 2
        end = offset + len(seg)
        stream = JsonStream(iter([seg.encode("utf-8", "surrogatepass")]))
        try:
            while True:
                v = stream.next()
                if v is NOTHING:
                    break
                out.append(v)
        except ParseError as e:
            if last:
                out.append(SeqError(e.message))
            else:
                out.append(SeqError(f"Truncated value at {where(end + 1)}"))
        offset = end + 1
    return out


def _stream_events(value: Any) -> list[Any]:
    return _tostream(value)  # type: ignore[no-any-return]


class Runner:
    def __init__(self, ctx: Ctx, opts: Options) -> None:
        self.ctx = ctx
        self.opts = opts
        self.style = Style(indent=opts.indent, tab=opts.tab, ascii=opts.ascii, sort_keys=opts.sort_keys)
        self.out: list[bytes] = []
        self.out_size = 0
        self.sink: Sink | None = None  # made while the run's budget is set
        self.mem = JqMemory(ctx.hold_memory(), ctx.checkpoint)

    def err(self, text: str) -> None:
        self.ctx.stderr.write(text.encode("utf-8", "replace"))

    def write(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        self.out.append(data)
        self.out_size += len(data)
        if self.out_size > 65536:
            self.flush()

    def flush(self) -> None:
        if self.out:
            self.ctx.stdout.write(b"".join(self.out))
            self.out = []
            self.out_size = 0

    def before_stderr(self) -> None:
        """What jq's stdout has written when it writes a message to stderr (unbuffered): stdio
        holds the output in 4096-byte blocks (stdout is no terminal here), so `jq ... 2>&1` shows
        an error before the values printed ahead of it; --unbuffered flushes each value."""
        if self.opts.unbuffered or not self.out_size:
            self.flush()
            return
        data = b"".join(self.out)
        count = (len(data) - 1) // STDIO_BLOCK * STDIO_BLOCK
        if count:
            self.ctx.stdout.write(data[:count])
        self.out = [data[count:]]
        self.out_size = len(data) - count

    # ------------------------------------------------------------ setup

    def _program_text(self) -> str | None:
        opts = self.opts
        src = opts.program if opts.program is not None else "."
        if opts.from_file:
            try:
                data = self.ctx.read_input(src)
            except FsError as e:
                self.err(f"jq: error: Could not open {src}: {strerror(e.errno or 0)}\n")
                return None
            return decode_text(data)
        return src

    def _variables(self, inputs_ok: bool = True) -> tuple[list[str], list[Any]] | None:
        named: dict[str, Any] = {}
        for name, kind, arg in self.opts.named:
            if kind == "arg":
                named[name] = arg
            elif kind == "argjson":
                named[name] = parse_single(arg)  # cli.parse_options checked it, as jq does while parsing
            else:
                try:
                    data = self.ctx.read_input(arg)
                except FsError as e:
                    self.err(
                        f"jq: Bad JSON in --{kind} {name} {arg}: Could not open {arg}: {strerror(e.errno or 0)}\n"
                    )
                    return None
                text = decode_text(data)
                if kind == "rawfile":
                    named[name] = text
                else:
                    try:
                        named[name] = _parse_all(data)
                    except ParseError as e:
                        self.err(f"jq: Bad JSON in --{kind} {name} {arg}: {e.message}\n")
                        return None
        positional = list(self.opts.positional)
        slots = [k for k, v in enumerate(positional) if v is None]
        for idx, text in zip(slots, self.opts.positional_json, strict=True):
            try:
                positional[idx] = parse_single(text)
            except ParseError:
                self.err("jq: invalid JSON text passed to --jsonargs\n" + _HINT)
                return None
        names = list(named) + ["ARGS"]
        values = list(named.values()) + [{"positional": positional, "named": named}]
        return names, values

    # ------------------------------------------------------------ main

    def main(self) -> int:
        src = self._program_text()
        if src is None:
            return SYSTEM
        variables = self._variables()
        if variables is None:
            return SYSTEM
        names, values = variables
        try:
            program = Program(src, names)
        except CompileErrors as e:
            for ce in e.errors:
                where = f" {ce.location}" if ce.location else ""
                self.err(f"jq: error: {ce.message}{where}\n{_source_line(src, ce.pos)}\n")
            count = len(e.errors)
            self.err(f"jq: {count} compile error{'s' if count != 1 else ''}\n")
            return COMPILE
        limits = self.ctx.limits
        caps = CAPS.set(
            (limits.max_string_length, max(limits.max_array_elements, limits.max_string_length // 8))
        )
        budget = BUDGET.set((self.ctx.checkpoint, limits.max_string_length))
        self.mem.roots += [values, None]  # the program's variables, the current input
        mem = MEM.set(self.mem)
        try:
            return self._run(program, values)
        except RecursionError:
            self.flush()
            raise LimitExceeded(
                LimitKind.MAX_CALL_DEPTH, self.ctx.limits.max_call_depth, "jq recursion too deep"
            ) from None
        finally:
            MEM.reset(mem)
            self.mem.hold.close()
            BUDGET.reset(budget)
            CAPS.reset(caps)
            self.flush()

    def _make_rt(self, inputs: Inputs) -> Rt:
        rt = Rt()
        ctx = self.ctx
        rt.checkpoint = ctx.checkpoint

        slurp_pending = [self.opts.slurp and self.opts.null_input]

        def next_input() -> Any:
            try:
                if slurp_pending[0]:
                    # -n -s: the first input is the slurped array
                    slurp_pending[0] = False
                    return inputs.slurped()
                v = inputs.next_value()
            except ParseError as e:
                raise JqError(e.message) from None
            if v is NOTHING:
                raise JqError("break")
            return v

        rt.next_input = next_input
        rt.env_object = dict(ctx.env)
        rt.debug = lambda text: self._stderr_now(text + "\n")
        rt.stderr = lambda text: self._stderr_now(text)
        rt.clock = ctx.clock
        rt.input_filename = lambda: inputs.filename
        rt.input_line = inputs.line_number
        rt.budget = ctx.budget
        rt.mem = self.mem
        return rt

    def _stderr_now(self, text: str) -> None:
        self.before_stderr()
        self.err(text)

    def _run(self, program: Program, values: list[Any]) -> int:
        inputs = Inputs(self.ctx, self.opts, self.ctx.checkpoint)
        try:
            return self._run_inputs(program, values, inputs)
        finally:
            inputs.operands.close()  # the file being read when the program stopped early

    def _run_inputs(self, program: Program, values: list[Any], inputs: Inputs) -> int:
        opts = self.opts
        rt = self._make_rt(inputs)
        ret = NO_OUTPUT
        last_result = -1
        halted: HaltSignal | None = None

        def process(value: Any) -> int:
            nonlocal halted
            status, halted = self._process(program, rt, values, value, inputs)
            self.mem.settled = self.mem.since  # (what this input and its work charged: gone after it)
            return status

        if opts.null_input:
            ret = process(None)
        elif opts.slurp:
            try:
                value = inputs.slurped()
            except ParseError as e:
                self.err(f"jq: error (at {inputs.position()}): {e.message}\n")
                return PARSE_ERROR_STATUS
            ret = process(value)
            if ret <= 0 and ret != NO_OUTPUT:
                last_result = 1 if ret != NULL_KIND else 0
        else:
            while True:
                try:
                    value = inputs.next_value()
                except ParseError as e:
                    if opts.seq:
                        self.err(f"jq: ignoring parse error: {e.message}\n")
                        continue
                    self.before_stderr()
                    self.err(f"jq: parse error: {e.message}\n")
                    ret = PARSE_ERROR_STATUS
                    break
                if value is NOTHING:
                    break
                ret = process(value)
                if ret <= 0 and ret != NO_OUTPUT:
                    last_result = 1 if ret != NULL_KIND else 0
                if halted is not None:
                    break
        if opts.null_input and ret <= 0 and ret != NO_OUTPUT:
            last_result = 1 if ret != NULL_KIND else 0
        if inputs.failures:
            ret = SYSTEM
        if halted is not None:
            return ret
        if opts.exit_status:
            if ret != NO_OUTPUT:
                return abs(ret)
            return {-1: 4, 0: 1}.get(last_result, 0)
        return ret if ret > 0 else 0

    def _process(
        self, program: Program, rt: Rt, values: list[Any], value: Any, inputs: Inputs
    ) -> tuple[int, HaltSignal | None]:
        opts = self.opts
        ret = NO_OUTPUT
        mem = self.mem
        mem.roots[1] = value
        if mem.settled > 1 << 20:
            # what earlier inputs built is gone (the charge for this input's own values, made as it
            # was read, is not a reason: walking one large input cost as much as decoding it)
            mem.measure()
        try:
            for result in program.run(value, rt, values):
                ret = self._emit(result)
        except JqError as e:
            self.before_stderr()
            msg = e.value
            where = inputs.position() if not opts.null_input or inputs.filename else "<unknown>"
            if type(msg) is str:
                self.err(f"jq: error (at {where}): {msg}\n")
            else:
                self.err(f"jq: error (at {where}) (not a string): {dumps(msg)}\n")
            return UNKNOWN, None
        except HaltSignal as h:
            self.before_stderr()
            if h.has_message:
                m = h.message
                if type(m) is str:
                    self.err(m)
                elif m is not None:
                    self.err(dumps(m) + "\n")
            return h.status, h
        return ret, None

    def _emit(self, result: Any) -> int:
        opts = self.opts
        if opts.raw_output and type(result) is str:
            if opts.ascii:
                self.write(quote(result, True))
            elif opts.raw_output0 and "\0" in result:
                raise JqError("Cannot dump a string containing NUL with --raw-output0 option")
            else:
                self.write(result)
            status = OK
        else:
            status = NULL_KIND if result is None or result is False else OK
            if opts.seq:
                self.write("\x1e")
            # in pieces: a deep value's pretty text can be far larger than the value
            if self.sink is None:
                self.sink = Sink(self.write, self.style)
            dump_to(result, self.style, self.sink)
        if not opts.raw_no_lf:
            self.write("\n")
        if opts.raw_output0:
            self.write("\0")
        return status


def _parse_all(data: bytes) -> list[Any]:
    stream = JsonStream(iter([data]))
    out: list[Any] = []
    while True:
        v = stream.next()
        if v is NOTHING:
            return out
        out.append(v)


def _source_line(src: str, pos: int) -> str:
    """jq's locfile_locate: the error's line, then spaces up to its column."""
    pos = max(0, min(pos, len(src)))
    start = src.rfind("\n", 0, pos) + 1
    end = src.find("\n", pos)
    line = src[start:] if end < 0 else src[start : end + 1]
    return line + " " * (pos - start)
