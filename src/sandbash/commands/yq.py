"""yq: a YAML processor in the style of mikefarah's yq v4, on the jq engine.

`yq [eval|e|eval-all|ea] [flags] EXPRESSION [FILES...]`. The expression is
jq (the common subset of yq's language: paths, select, map, assignment,
`//`, `|=`, `*` deep merge, with_entries, sort_by, ...) plus yq's helpers
`env(NAME)`, `strenv(NAME)`, `with(path; update)`, `to_yaml`, `from_yaml`,
`to_json`, `from_json`, `tag`, `kind`, `omit(keys)`, `any_c`/`all_c`; `keys`
keeps document order as yq's does.

Conventions (yq v4): input `-p yaml|json|toml` (default: from the file
extension, else yaml), output `-o yaml|json|props` (default: yaml, or the
input's format with `-p`/extension json), `-I` indent (2; 0 = compact JSON),
`-r` unwrap scalars (default for yaml output), `-n` null input, `-e` exit
status, `-i` in place, `-N` no `---` separators, `-j` = `-o json`. YAML is
read with the YAML 1.2 core schema (`yes`/`no` stay strings); each input
document is evaluated on its own and results of different documents are
separated by `---`. Not supported: comments and styles round-tripping,
`ireduce`, `=~`, `*+`/`*d`, `key`/`parent`/`line`, xml/csv/lua formats.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Callable, Iterator
from datetime import date, datetime, time

import yaml  # type: ignore[import-untyped,unused-ignore]

from ..limits import LimitExceeded, LimitKind, MemoryHold
from ..vfs.errors import FsError, strerror
from .context import Ctx
from .jq.builtins_core import FNative, NativeFactory, rt_value
from .jq.decode import NOTHING, JsonStream, ParseError, decode_text
from .jq.encode import Style, dumps
from .jq.engine import CompileErrors, Program
from .jq.errors import HaltSignal, JqError
from .jq.memory import MEM, JqMemory, charge, expanded_size
from .jq.runtime import Rt
from .jq.values import CAPS, typename
from .options import CommandSpec, Opt, OptionValueError, UsageError, parse_args
from .record import Effects, declare
from .yqyaml import load_yaml, to_yaml

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType
    from typing import Any

VERSION = "yq (https://github.com/mikefarah/yq/) version v4.44.3"

# helpers written in jq, prepended to the expression
_PRELUDE = (
    'def env($n): $ENV[$n]; def strenv($n): ($ENV[$n] // "") | tostring; '
    "def with(p; f): p |= f; def keys: keys_unsorted; "
    "def omit($ks): with_entries(select(.key as $k | $ks | index($k) | not)); "
    "def any_c(f): any(.[]; f); def all_c(f): all(.[]; f); "
    "def from_json: fromjson; def to_json: tojson; def to_json($i): tojson; "
)


# ---------------------------------------------------------------- options


class UsageExit(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Options:
    def __init__(self) -> None:
        self.expr: str | None = None
        self.files: list[str] = []
        self.input_format = "auto"
        self.output_format = "auto"
        self.indent = 2
        self.unwrap: bool | None = None
        self.null_input = False
        self.exit_status = False
        self.inplace = False
        self.no_doc = False
        self.eval_all = False
        self.nul = False


_FORMATS = {
    "a": "auto",
    "auto": "auto",
    "y": "yaml",
    "yaml": "yaml",
    "yml": "yaml",
    "j": "json",
    "json": "json",
    "t": "toml",
    "toml": "toml",
    "p": "props",
    "props": "props",
    "properties": "props",
}


def _go_quote(text: str) -> str:
    """Go's %q of a string: double quotes, backslash escapes for quotes, backslashes and controls."""
    out = []
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch in "\a\b\f\n\r\t\v":
            out.append("\\" + "abfnrtv"["\a\b\f\n\r\t\v".index(ch)])
        elif ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            out.append(
                f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
            )
    return '"' + "".join(out) + '"'


def _go_bool(text: str) -> bool:
    """strconv.ParseBool, as pflag sets a bool flag given `=VALUE`."""
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise OptionValueError(f"strconv.ParseBool: parsing {_go_quote(text)}: invalid syntax")


def _go_int(text: str) -> int:
    """strconv.ParseInt(text, 0, 64): a sign, then decimal, 0x, 0o, 0b or a leading-0 octal."""
    body = text[1:] if text[:1] in ("+", "-") else text
    base = 10
    digits = body
    if body[:2].lower() in ("0x", "0o", "0b"):
        base, digits = {"x": 16, "o": 8, "b": 2}[body[1].lower()], body[2:]
    elif body[:1] == "0" and len(body) > 1:
        base, digits = 8, body[1:]
    # underscores only between digits (or after a base prefix), as Go's literals allow
    clean = digits.replace("_", "")
    well_formed = (
        clean.isascii()
        and clean.isalnum()
        and "__" not in digits
        and not digits.endswith("_")
        and not (base == 10 and digits.startswith("_"))
    )
    try:
        value: int | None = int(clean, base) if well_formed else None
    except ValueError:
        value = None
    if value is None:
        raise OptionValueError(f"strconv.ParseInt: parsing {_go_quote(text)}: invalid syntax")
    value = -value if text[:1] == "-" else value
    if not -(1 << 63) <= value < (1 << 63):
        raise OptionValueError(f"strconv.ParseInt: parsing {_go_quote(text)}: value out of range")
    return value


def _flag(short: str | None, long: str, key: str) -> Opt:
    """A pflag bool: `-n`, `--null-input`, or `=VALUE` (`-n=false`)."""
    return Opt(short, long, dest=key, arg="optional", implied=True, type=_go_bool)


# mikefarah yq's flags (cobra/pflag); the ones sandbash does not act on are accepted and ignored
SPEC = CommandSpec(
    name="yq",
    usage="[eval|eval-all] [flags] EXPRESSION [FILES...]",
    add_help=False,
    long_prefixes=False,
    short_equals=True,
    opts=(
        Opt("p", "input-format", arg="required"),
        Opt("o", "output-format", arg="required"),
        Opt("I", "indent", arg="required", type=_go_int),
        _flag("r", "unwrapScalar", "unwrap"),
        _flag("j", "tojson", "tojson"),
        _flag("n", "null-input", "null_input"),
        _flag("e", "exit-status", "exit_status"),
        _flag("i", "inplace", "inplace"),
        _flag("N", "no-doc", "no_doc"),
        _flag("0", "nul-output", "nul"),
        _flag("P", "prettyPrint", "pretty"),
        _flag("M", "no-colors", "no_colors"),
        _flag("C", "colors", "colors"),
        _flag("v", "verbose", "verbose"),
        _flag("V", "version", "version"),
    ),
)


def _usage_text(e: UsageError) -> str:
    """pflag's wording of a command-line error."""
    if e.word.startswith("--"):
        if not e.name or e.name[0] in "-=":
            return f"bad flag syntax: {e.word}"
        name = e.name.partition("=")[0]
        return f"flag needs an argument: --{name}" if e.kind == "needs_value" else f"unknown flag: --{name}"
    rest = e.word[e.at :]
    if e.kind == "needs_value":
        return f"flag needs an argument: '{e.name}' in -{rest}"
    return f"unknown shorthand flag: '{e.name}' in -{rest}"


def parse_options(args: list[str]) -> Options:
    try:
        parsed, operands = parse_args(SPEC, args)
    except UsageError as e:
        raise UsageExit(_usage_text(e)) from None
    except OptionValueError as e:
        assert e.option is not None
        flag = f"-{e.option.short}, --{e.option.long}" if e.option.short else f"--{e.option.long}"
        raise UsageExit(
            f"invalid argument {_go_quote(e.value)} for {_go_quote(flag)} flag: {e.message}"
        ) from None
    o = Options()
    # cobra finds the subcommand as the first word that is not a flag (not after `--`)
    if operands and operands[0] in ("eval", "e", "eval-all", "ea") and parsed.dashdash != 0:
        o.eval_all = operands.pop(0) in ("eval-all", "ea")
    if parsed.get("version"):
        raise UsageExit("")
    o.input_format = _format_name(parsed.get("input_format", "auto"))
    o.output_format = "json" if parsed.get("tojson") else _format_name(parsed.get("output_format", "auto"))
    o.indent = parsed.get("indent", 2)
    o.unwrap = parsed.get("unwrap")
    for key in ("null_input", "exit_status", "inplace", "no_doc", "nul"):
        setattr(o, key, bool(parsed.get(key)))
    if operands:
        o.expr = operands[0]
        o.files = operands[1:]
    return o


def _format_name(s: str) -> str:
    fmt = _FORMATS.get(s.lower())
    if fmt is None:
        raise UsageExit(f"unknown format '{s}'")
    return fmt


# ---------------------------------------------------------------- running


def _yaml_natives() -> dict[tuple[str, int], NativeFactory]:
    reg: dict[tuple[str, int], NativeFactory] = {}
    reg[("to_yaml", 0)] = lambda args: FNative(lambda v: to_yaml(v).rstrip("\n"), args)
    reg[("to_yaml", 1)] = lambda args: FNative(lambda v, n: to_yaml(v, int(n)).rstrip("\n"), args)
    reg[("from_yaml", 0)] = lambda args: FNative(_from_yaml, args)
    reg[("tag", 0)] = lambda args: FNative(_tag, args)
    reg[("kind", 0)] = lambda args: FNative(_kind, args)
    rt_value(reg, "document_index", 0, lambda rt, v: rt.named_args.get("di", 0))
    rt_value(reg, "di", 0, lambda rt, v: rt.named_args.get("di", 0))
    rt_value(reg, "filename", 0, lambda rt, v: rt.input_filename())
    return reg


def _from_yaml(v: Any) -> Any:
    if type(v) is not str:
        raise JqError(f"{typename(v)} cannot be parsed as yaml")
    mem = MEM.get()
    if mem is None:
        return _from_yaml_text(v, None, None)
    # the nodes and values held while the text is read, charged to the run; what the value holds
    # then goes to the program's own account, as a value a builtin builds in bulk
    with MemoryHold(mem.hold.budget) as hold:
        value = _from_yaml_text(v, hold, mem.checkpoint)
        charge(hold.held)
    return value


def _from_yaml_text(v: str, hold: MemoryHold | None, checkpoint: Callable[[int], None] | None) -> Any:
    try:
        docs = load_yaml(v, hold, checkpoint)
    except yaml.YAMLError as e:
        raise JqError(f"bad yaml: {e}") from None
    return docs[0] if docs else None


def _tag(v: Any) -> str:
    return {
        "null": "!!null",
        "boolean": "!!bool",
        "string": "!!str",
        "array": "!!seq",
        "object": "!!map",
    }.get(typename(v), "!!int" if type(v) is int else "!!float")


def _kind(v: Any) -> str:
    return {"array": "seq", "object": "map"}.get(typename(v), "scalar")


def _load(text: str, fmt: str, hold: MemoryHold, ctx: Ctx) -> list[Any]:
    """The documents of an input, charged to `hold` as they are read (all of them are live)."""
    if fmt == "json":
        return _load_json(text, hold, ctx)
    if fmt == "toml":
        return [_plain(_load_toml(text, hold, ctx.checkpoint))]
    if fmt == "props":
        return [_props_load(text, ctx.checkpoint)]
    return load_yaml(text, hold, ctx.checkpoint)


def _load_json(text: str, hold: MemoryHold, ctx: Ctx) -> list[Any]:
    """JSON values as jq reads them: what they decode to charged by their text as they are read
    (JsonStream's text_cost), the text fed to it a piece at a time (not copied whole)."""
    pieces = (
        text[i : i + _JSON_PIECE].encode("utf-8", "surrogatepass") for i in range(0, len(text), _JSON_PIECE)
    )
    stream = JsonStream(
        pieces, ctx.checkpoint, ctx.limits.max_string_length, ctx.budget.remaining, hold.charge
    )
    out: list[Any] = []
    while True:
        v = stream.next()
        hold.charge(stream.take_cost())
        if v is NOTHING:
            return out
        out.append(v)


_JSON_PIECE = 1 << 20

# What tomllib holds while it parses, charged before: at most 67 bytes a character of text measured
# with tracemalloc over nine shapes (`[tN]` tables 67, inline arrays 52, dotted keys 31, `k = N`
# lines 9); 6.5 MB of `kN = [1,2,{a=1}]` lines held 390 MB under a 256 MB max_memory.
_TOML_HELD = 80
# a text tomllib parses in well under a deadline check's interval (~1-4 s a megabyte)
_TOML_UNTRACED = 1 << 16


def _load_toml(text: str, hold: MemoryHold, checkpoint: Callable[[int], None]) -> dict[str, Any]:
    """tomllib has no hook for a deadline check: while it parses a larger text, a trace of the calls
    on this thread (call events only, ~2.4 a character) checks the deadline every 4096 calls. The
    tracer in place (a debugger, coverage) is kept and called on."""
    hold.charge(_TOML_HELD * len(text))
    if len(text) < _TOML_UNTRACED:
        return tomllib.loads(text)
    outer = sys.gettrace()
    calls = 0

    def trace(frame: FrameType, event: Any, arg: Any) -> Any:
        nonlocal calls
        calls += 1
        if not calls & 4095:
            checkpoint(1)  # (a limit raised here unsets the trace and rises through tomllib)
        return outer(frame, event, arg) if outer is not None else None

    sys.settrace(trace)
    try:
        return tomllib.loads(text)
    finally:
        sys.settrace(outer)


def _plain(v: Any) -> Any:
    """TOML dates and times as strings (what yq prints)."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, (datetime, date, time)):
        return v.isoformat()
    return v


def _props_load(text: str, checkpoint: Callable[[int], None]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n, line in enumerate(text.splitlines()):
        if not n & 4095:
            checkpoint(1)
        line = line.strip()
        if not line or line[0] in "#!":
            continue
        k, sep, v = line.partition("=")
        if not sep:
            k, sep, v = line.partition(":")
        out[k.strip()] = v.strip()
    return out


def _props(value: Any, prefix: str = "") -> Iterator[str]:
    if type(value) is dict and value:
        for k, x in value.items():
            yield from _props(x, f"{prefix}.{k}" if prefix else k)
    elif type(value) is list and value:
        for i, x in enumerate(value):
            yield from _props(x, f"{prefix}.{i}" if prefix else str(i))
    else:
        text = value if type(value) is str else ("" if value is None else dumps(value))
        yield f"{prefix} = {text}"


def _render(value: Any, o: Options, fmt: str) -> str:
    unwrap = o.unwrap if o.unwrap is not None else fmt == "yaml"
    if fmt == "json":
        if unwrap and type(value) is str:
            return value + "\n"
        return dumps(value, Style(indent=o.indent)) + "\n"
    if fmt == "props":
        return "".join(line + "\n" for line in _props(value))
    if type(value) is str and unwrap:
        return value + "\n"
    return to_yaml(value, o.indent)


class _Yq:
    def __init__(self, ctx: Ctx, o: Options, mem: MemoryHold) -> None:
        self.ctx = ctx
        self.o = o
        self.mem = mem  # the current document (expanded)
        self.loaded = ctx.hold_memory()  # the documents of the input being read
        self.text = ctx.hold_memory()  # its bytes and text while they are read
        self.out_mem = ctx.hold_memory()  # output waiting to be written
        self.values = JqMemory(ctx.hold_memory(), ctx.checkpoint)  # what the program builds

    def err(self, msg: str) -> None:
        self.ctx.stderr.write(f"Error: {msg}\n".encode("utf-8", "replace"))

    def documents(self) -> Iterator[tuple[str | None, str, int, Any]]:
        """(file name, format, document index, value) of every input document."""
        o = self.o
        files = o.files or ["-"]
        for name in files:
            fmt = o.input_format
            if fmt == "auto":
                fmt = _format_from_name(name)
            docs = d = None  # (the documents of the file before are gone)
            self.loaded.set(0)
            try:
                # the bytes and their text, held while the documents are read from them
                data = self.ctx.read_input(name, hold=self.text)
            except FsError as e:
                raise _Fail(f"open {name}: {strerror(e.errno or 0).lower()}") from None
            try:
                docs = _load(decode_text(data), fmt, self.loaded, self.ctx)
            except (yaml.YAMLError, ParseError, tomllib.TOMLDecodeError) as e:
                raise _Fail(f"bad file '{name}': {_one_line(e)}") from None
            finally:
                data = b""
                self.text.set(0)
            for i, d in enumerate(docs):
                # aliases make a document a graph that is printed (and often
                # copied) as the tree it expands to: a few kilobytes of `*a`
                # references can stand for gigabytes, so the tree's size must
                # fit in the run's memory
                self.mem.set(expanded_size(d, self.ctx.checkpoint))
                yield (None if name == "-" else name), fmt, i, d

    def main(self) -> int:
        o = self.o
        if o.expr is None:
            o.expr = "."
        try:
            program = Program(_PRELUDE + o.expr, ["di"], natives=_yaml_natives())
        except CompileErrors as e:
            self.err(e.errors[0].message.replace(" (Unix shell quoting issues?)", ""))
            return 1
        out: list[str] = []
        last: Any = NOTHING
        try:
            if o.null_input:
                docs: Iterator[tuple[str | None, str, int, Any]] = iter([(None, "yaml", 0, None)])
            else:
                docs = self.documents()
            prev_doc = -1
            out_fmt = o.output_format
            for name, fmt, index, doc in docs:
                if out_fmt == "auto":
                    out_fmt = fmt if o.input_format != "auto" or fmt == "json" else "yaml"
                rt = self._rt(name, index)
                for value in program.run(doc, rt, [index]):
                    if out_fmt == "yaml" and not o.no_doc and prev_doc >= 0 and prev_doc != index:
                        out.append("---\n")
                    prev_doc = index
                    text = _render(value, o, out_fmt if out_fmt != "auto" else "yaml")
                    self.out_mem.charge(len(text))
                    out.append(text)
                    if o.nul:
                        out.append("\0")
                    last = value
                    if not o.inplace and self.out_mem.held > _OUT_FLUSH:
                        self._flush(out)
        except _Fail as f:
            self._flush(out)
            self.err(f.message)
            return 1
        except JqError as e:
            self._flush(out)
            msg = e.value if type(e.value) is str else dumps(e.value)
            self.err(msg)
            return 1
        except HaltSignal as h:
            self._flush(out)
            return h.status
        self._flush(out)
        if o.exit_status and (last is NOTHING or last is None or last is False):
            return 1
        return 0

    def _flush(self, out: list[str]) -> None:
        text = "".join(out)
        if self.o.inplace and self.o.files:
            try:
                self.ctx.fs.write_bytes(self.o.files[0], text.encode("utf-8", "surrogateescape"))
            except FsError as e:
                self.err(f"write {self.o.files[0]}: {strerror(e.errno or 0).lower()}")
            return
        self.ctx.stdout.write(text.encode("utf-8", "surrogateescape"))
        out.clear()
        self.out_mem.set(0)

    def _rt(self, name: str | None, index: int) -> Rt:
        rt = Rt()
        rt.checkpoint = self.ctx.checkpoint
        rt.env_object = dict(self.ctx.env)
        rt.clock = self.ctx.clock
        rt.input_filename = lambda: name
        rt.budget = self.ctx.budget
        rt.named_args = {"di": index}
        rt.mem = self.values
        return rt


class _Fail(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# output text collected before it is written (all of it for -i)
_OUT_FLUSH = 1 << 16


def _format_from_name(name: str) -> str:
    lower = name.lower()
    if lower.endswith(".json"):
        return "json"
    if lower.endswith(".toml"):
        return "toml"
    if lower.endswith(".properties"):
        return "props"
    return "yaml"


def _one_line(e: Exception) -> str:
    return " ".join(str(e).split())


@declare("yq", spec=SPEC, effects=Effects.JQ)
def cmd_yq(ctx: Ctx) -> int:
    try:
        o = parse_options(ctx.args)
    except UsageExit as u:
        if not u.message:
            ctx.stdout.write((VERSION + "\n").encode())
            return 0
        ctx.stderr.write(f"Error: {u.message}\n".encode("utf-8", "surrogateescape"))
        return 1
    limits = ctx.limits
    caps = CAPS.set((limits.max_string_length, max(limits.max_array_elements, limits.max_string_length // 8)))
    try:
        with ctx.hold_memory() as mem:
            yq = _Yq(ctx, o, mem)
            values = MEM.set(yq.values)
            try:
                return yq.main()
            finally:
                MEM.reset(values)
                yq.values.hold.close()
                yq.loaded.close()
                yq.text.close()
                yq.out_mem.close()
    except RecursionError:
        raise LimitExceeded(
            LimitKind.MAX_CALL_DEPTH, limits.max_call_depth, "yq recursion too deep"
        ) from None
    finally:
        CAPS.reset(caps)
