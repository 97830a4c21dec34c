"""awk's command line, compiling (cached) and running a program.

awk's options are not getopt_long's: option parsing stops at the program
text, `-F`/`-v`/`-f` take their value attached or separate, and the
operands after the program are files or `var=value` assignments handled
when the main input reaches them.
"""

from __future__ import annotations

import re
from types import CodeType

from ...regex import RETAINED_MAX
from ...textcache import TextLRU, module_code
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..options import CommandSpec, Opt, OptionValueError
from ..options import UsageError as OptionsUsageError
from ..options import parse_args as parse_args_one
from .analyze import Symbols, analyze
from .fast import FastPlan, plan_for
from .fmt import FIELD_LIMIT
from .gen_stmt import Generated, generate
from .interp import FatalNoLoc, Interp, is_assignment
from .io import AwkFatal
from .lexer import AwkSyntaxError, Lexer, Source, unescape
from .parser import parse
from .regex import Regex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass, field
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass, field

VERSION_TEXT = """GNU Awk 5.2.1, API 3.2 (sandbash)
Copyright (C) 1989, 1991-2022 Free Software Foundation.

This program is free software; you can redistribute it and/or modify
it under the terms of the GNU General Public License as published by
the Free Software Foundation; either version 3 of the License, or
(at your option) any later version.
"""

_USAGE = """Usage: {p} [POSIX or GNU style options] -f progfile [--] file ...
Usage: {p} [POSIX or GNU style options] [--] 'program' file ...
POSIX options:\t\tGNU long options: (standard)
\t-f progfile\t\t--file=progfile
\t-F fs\t\t\t--field-separator=fs
\t-v var=val\t\t--assign=var=val
Short options:\t\tGNU long options: (extensions)
\t-b\t\t\t--characters-as-bytes
\t-c\t\t\t--traditional
\t-e 'program-text'\t--source='program-text'
\t-h\t\t\t--help
\t-i includefile\t\t--include=includefile
\t-n\t\t\t--non-decimal-data
\t-P\t\t\t--posix
\t-r\t\t\t--re-interval
\t-S\t\t\t--sandbox
\t-V\t\t\t--version
\t\t\t\t--csv

{p} is a pattern scanning and processing language.
By default it reads standard input and writes standard output.

Examples:
\t{p} '{{ sum += $1 }}; END {{ print sum }}' file
\t{p} -F: '{{ print $1 }}' /etc/passwd
"""


def _assignment(value: str) -> str:
    if "=" not in value:  # (an empty or bad name is gawk's fatal error when it assigns)
        raise OptionValueError(f"`{value}' argument to `-v' not in `var=value' form")
    return value


# gawk's options (getopt_long, options end at the program text); a long name's key is its short
_VALUE_OPTS = (("f", "file"), ("F", "field-separator"), ("v", "assign"), ("e", "source"), ("i", "include"))
_FLAG_OPTS = (
    ("k", "csv"),
    ("V", "version"),
    ("h", "help"),
    ("h", "usage"),
    ("P", "posix"),
    ("c", "traditional"),
    ("r", "re-interval"),
    ("b", "characters-as-bytes"),
    ("S", "sandbox"),
    ("n", "non-decimal-data"),
    ("L", "lint"),
    ("O", "optimize"),
    ("s", "no-optimize"),
    ("M", "bignum"),
    ("N", "use-lc-numeric"),
    ("t", "lint-old"),
    ("C", "copyright"),
)
AWK_SPEC = CommandSpec(
    name="awk",
    stop_at_operand=True,
    add_help=False,
    opts=(
        *(
            Opt(
                short,
                long,
                arg="required",
                dest=short,
                multi=True,
                type=_assignment if short == "v" else None,
            )
            for short, long in _VALUE_OPTS
        ),
        # the second spelling of -h has no short letter of its own
        *(Opt(short if long != "usage" else None, long, dest=short) for short, long in _FLAG_OPTS),
        *(Opt(c, None) for c in "dDgloIpE"),  # accepted, no effect here
    ),
)


class UsageError(Exception):
    pass


@dataclass
class Options:
    sources: list[Source] = field(default_factory=list)
    fs: str | None = None
    assigns: list[str] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)
    csv: bool = False
    sandbox: bool = False
    version: bool = False
    help: bool = False
    order: list[tuple[str, str]] = field(default_factory=list)  # ("f"|"e", value)
    inplace: bool = False  # -i inplace (gawk's bundled in-place editing)


def parse_args(args: list[str]) -> Options:
    """gawk's command line, through the one option parser; a UsageError's text is gawk's line
    before its usage (empty: the usage alone, as gawk prints for an unknown option)."""
    try:
        parsed, rest = parse_args_one(AWK_SPEC, args)
    except OptionValueError as e:
        raise UsageError(e.message + "\n") from None
    except OptionsUsageError as e:
        missing = _MISSING.match(e.message)
        if missing is None:
            raise UsageError("") from None
        name = missing.group(1) or missing.group(2)
        short = name if len(name) == 1 else dict((long, short) for short, long in _VALUE_OPTS)[name]
        raise UsageError(f"option requires an argument -- {short}") from None
    o = Options()
    for key, value in parsed.order:
        if key == "F":
            o.fs = value
        elif key == "v":
            o.assigns.append(value)
        elif key == "i" and value in ("inplace", "inplace.awk"):
            o.inplace = True
        elif key in ("f", "i", "e"):
            o.order.append(("e" if key == "e" else "f", value))
    o.csv, o.sandbox, o.version, o.help = ("k" in parsed, "S" in parsed, "V" in parsed, "h" in parsed)
    if not o.order and not o.version and not o.help:
        if not rest:
            raise UsageError("")
        o.order.append(("e", rest[0]))
        rest = rest[1:]
    o.operands = rest
    return o


_MISSING = re.compile(r"option requires an argument -- '(.)'|option '--([a-z-]+)' requires an argument")


# ---------------------------------------------------------------- compiling


@dataclass
class Compiled:
    gen: Generated
    code: CodeType
    symbols: Symbols
    uses: set[str]
    arrays: set[str]
    warnings: list[str]
    fast: FastPlan | None = None


# shared by every run of the process: bounded in entries, program text and what the compiled
# regex literals may hold (T-TEN-5)
_CACHE: TextLRU[tuple[object, ...], Compiled] = TextLRU(64, retained=RETAINED_MAX)


def find_includes(sources: list[Source]) -> list[tuple[str, int]]:
    """The @include directives of a program (file name, location)."""
    try:
        _, parser = parse(Lexer(sources).tokenize())
    except (AwkSyntaxError, RecursionError):
        return []  # reported when the program is compiled
    return parser.includes


def compile_program(sources: list[Source], icase_assigned: bool, sandbox: bool = False) -> Compiled:
    key = (tuple((s.name, s.text) for s in sources), icase_assigned, sandbox)
    hit = _CACHE.get(key)  # safe across pipeline stages' threads
    if hit is not None:
        return hit
    lexer = Lexer(sources)
    toks = lexer.tokenize()
    try:
        program, parser = parse(toks)
    except RecursionError:
        raise AwkSyntaxError("program nested too deeply", show=False) from None
    symbols = analyze(program)
    uses = set(symbols.globals_seen)
    icase = icase_assigned or "IGNORECASE" in uses
    warnings = [f"{sources[si].name}:{line}: warning: {w}" for si, line, w in lexer.warnings]
    for name, nargs, loc in parser.calls:
        fn = program.functions.get(name)
        if fn is not None and nargs > len(fn.params):
            src, line = divmod(loc, 10_000_000)
            warnings.append(
                f"{sources[src].name}:{line}: warning: function `{name}' called with more "
                "arguments than declared"
            )
    try:
        gen = generate(program, symbols, icase, sandbox)
        code = module_code(gen.source, "<awk>")
    except (RecursionError, MemoryError, SyntaxError):
        # Python's compiler limits nesting (about 100 blocks, 200 parentheses)
        raise AwkSyntaxError("program too deeply nested to compile", show=False, fatal=True) from None
    arrays = {name for (fn, name), kind in symbols.kinds.items() if fn is None and kind == "array"}
    result = Compiled(gen, code, symbols, uses, arrays, warnings, plan_for(program))
    held = sum(v.retained for v in gen.values.values() if isinstance(v, Regex))
    # the code object too: a few dozen bytes a character of the generated source
    _CACHE.put(key, sum(len(s.text) for s in sources), result, held + 32 * len(gen.source))
    return result


def load_includes(ctx: Ctx, sources: list[Source]) -> list[Source]:
    """Put each @include'd file (once) before the source that includes it."""
    loaded: set[str] = {s.name for s in sources}
    out: list[Source] = []
    for src in sources:
        pending = [src]
        while pending:
            current = pending.pop()
            added = False
            for name, loc in find_includes([current]):
                if name in loaded:
                    continue
                loaded.add(name)
                text = None
                for candidate in (name, name + ".awk"):
                    try:
                        text = ctx.read_input(candidate, reopen=False).decode("utf-8", "surrogateescape")
                        break
                    except FsError as e:
                        err = e
                if text is None:
                    raise AwkSyntaxError(
                        f"cannot open source file `{name}' for reading: {strerror(err.errno or 0)}",
                        len(out),
                        loc % 10_000_000,
                        show=False,
                    )
                pending.append(current)
                pending.append(Source(name, text))
                added = True
                break
            if not added:
                out.append(current)
    return out


def _syntax_message(prog: str, e: AwkSyntaxError, sources: list[Source]) -> str:
    name = sources[e.src].name if e.src < len(sources) else "cmd. line"
    where = f"{prog}: {name}:{max(e.shown_line, 1)}: "
    if not e.show:
        kind = "" if e.bare else ("fatal: " if e.fatal else "error: ")
        return f"{where}{kind}{e.message}\n"
    lines = sources[e.src].text.split("\n") if e.src < len(sources) else [""]
    text = lines[e.line - 1] if 0 < e.line <= len(lines) else ""
    col = len(text) if e.col < 0 else e.col
    return f"{where}{text}\n{where}{' ' * col}^ {e.message}\n"


# ---------------------------------------------------------------- running


def run(ctx: Ctx, prog: str) -> int:
    err = ctx.stderr
    try:
        opts = parse_args(list(ctx.args))
    except UsageError as e:
        if str(e):
            err.write(f"{prog}: {e}\n".encode())
        err.write(_USAGE.format(p=prog).encode())
        return 1
    if opts.version:
        ctx.out(VERSION_TEXT)
        return 0
    if opts.help:
        ctx.out(_USAGE.format(p=prog))
        return 0
    sources: list[Source] = []
    for kind, value in opts.order:
        if kind == "e":
            sources.append(Source("cmd. line", value))
            continue
        try:
            data = ctx.read_input(value, reopen=False)
        except FsError as e:
            err.write(
                f"{prog}: fatal: cannot open source file `{value}' for reading: {strerror(e.errno or 0)}\n".encode()
            )
            return 2
        sources.append(Source(value, data.decode("utf-8", "surrogateescape")))
    icase_assigned = any(a.partition("=")[0] == "IGNORECASE" for a in opts.assigns) or any(
        a.startswith("IGNORECASE=") for a in opts.operands
    )
    try:
        if any("@include" in s.text for s in sources):
            sources = load_includes(ctx, sources)
        compiled = compile_program(sources, icase_assigned, opts.sandbox)
    except AwkSyntaxError as e:
        err.write(_syntax_message(prog, e, sources).encode("utf-8", "surrogateescape"))
        return 2 if e.fatal else 1
    for w in compiled.warnings:
        err.write(f"{prog}: {w}\n".encode("utf-8", "surrogateescape"))
    fs = None
    if opts.fs is not None:
        fs = "\t" if opts.fs == "\\t" else unescape(opts.fs)
    # names given values from the command line (-v, and operands like FPAT=... between the files)
    uses = compiled.uses | {a.partition("=")[0] for a in opts.assigns}
    uses |= {a.partition("=")[0] for a in opts.operands if is_assignment(a)}
    interp = Interp(ctx, compiled.gen, prog, opts.csv, uses, [s.name for s in sources])
    interp.inplace = opts.inplace
    if not opts.csv and "IGNORECASE" not in uses:
        interp.fast = compiled.fast
    field_limit = FIELD_LIMIT.set(interp.max_string)  # printf widths are checked against it
    try:
        try:
            interp.setup(
                [prog] + opts.operands,
                fs,
                opts.assigns,
                compiled.symbols.globals_seen,
                compiled.arrays,
                compiled.symbols.nested,
            )
            exec(compiled.code, interp.ns)  # generated from the parsed program; see codegen.py
        except (AwkFatal, FatalNoLoc) as e:
            err.write(f"{prog}: fatal: {e.message}\n".encode())
            return 2
        return interp.run()
    finally:
        interp.mem.close()
        FIELD_LIMIT.reset(field_limit)
