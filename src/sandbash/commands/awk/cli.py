"""awk's command line, compiling (cached) and running a program.

awk's options are not getopt_long's: option parsing stops at the program
text, `-F`/`-v`/`-f` take their value attached or separate, and the
operands after the program are files or `var=value` assignments handled
when the main input reaches them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import CodeType

from ...textcache import TextLRU
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from .analyze import Symbols, analyze
from .fast import FastPlan, plan_for
from .fmt import FIELD_LIMIT
from .gen_stmt import Generated, generate
from .interp import FatalNoLoc, Interp
from .io import AwkFatal
from .lexer import AwkSyntaxError, Lexer, Source, unescape
from .parser import parse

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

# long options: name -> (takes a value, short equivalent)
_LONG = {
    "file": (True, "f"), "field-separator": (True, "F"), "assign": (True, "v"), "source": (True, "e"),
    "include": (True, "i"), "csv": (False, "k"), "version": (False, "V"), "help": (False, "h"),
    "usage": (False, "h"), "posix": (False, "P"), "traditional": (False, "c"), "re-interval": (False, "r"),
    "characters-as-bytes": (False, "b"), "sandbox": (False, "S"), "non-decimal-data": (False, "n"),
    "lint": (False, "L"), "optimize": (False, "O"), "no-optimize": (False, "s"), "bignum": (False, "M"),
    "use-lc-numeric": (False, "N"), "lint-old": (False, "t"), "copyright": (False, "C"),
}
_VALUE_SHORTS = set("fFvei")
_FLAG_SHORTS = set("VhPcrbSnLOsMNtCk")


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
    o = Options()
    i = 0
    n = len(args)

    def take(opt: str, value: str) -> None:
        if opt == "F":
            o.fs = value
        elif opt == "v":
            if "=" not in value or not value.partition("=")[0]:
                raise UsageError(f"`{value}' argument to `-v' not in `var=value' form")
            o.assigns.append(value)
        elif opt == "i" and value in ("inplace", "inplace.awk"):
            o.inplace = True
        elif opt in ("f", "i"):
            o.order.append(("f", value))
        elif opt == "e":
            o.order.append(("e", value))
        elif opt == "k":
            o.csv = True
        elif opt == "S":
            o.sandbox = True
        elif opt == "V":
            o.version = True
        elif opt == "h":
            o.help = True

    while i < n:
        a = args[i]
        if a == "--":
            i += 1
            break
        if a.startswith("--") and len(a) > 2:
            name, eq, value = a[2:].partition("=")
            matches = [k for k in _LONG if k.startswith(name)]
            exact = name if name in _LONG else (matches[0] if len(matches) == 1 else None)
            if exact is None:
                raise UsageError(f"unrecognized option '{a}'" if not matches else f"option '{a}' is ambiguous")
            needs, short = _LONG[exact]
            if needs and not eq:
                i += 1
                if i >= n:
                    raise UsageError(f"option '--{exact}' requires an argument")
                value = args[i]
            take(short, value)
            i += 1
            continue
        if a.startswith("-") and len(a) > 1:
            j = 1
            while j < len(a):
                c = a[j]
                if c in _VALUE_SHORTS:
                    value = a[j + 1 :]
                    if not value:
                        i += 1
                        if i >= n:
                            raise UsageError(f"option requires an argument -- {c}")
                        value = args[i]
                    take(c, value)
                    break
                if c in _FLAG_SHORTS or c in "dDgloIpE":
                    take(c, "")
                    j += 1
                    continue
                raise UsageError("")  # gawk prints only the usage
            i += 1
            continue
        break
    rest = args[i:]
    if not o.order and not o.version and not o.help:
        if not rest:
            raise UsageError("")
        o.order.append(("e", rest[0]))
        rest = rest[1:]
    o.operands = rest
    return o


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


# shared by every run of the process: bounded in entries and program text (T-TEN-5)
_CACHE: TextLRU[tuple[object, ...], Compiled] = TextLRU(64)


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
            warnings.append(f"{sources[src].name}:{line}: warning: function `{name}' called with more "
                            "arguments than declared")
    try:
        gen = generate(program, symbols, icase, sandbox)
        code = compile(gen.source, "<awk>", "exec")
    except (RecursionError, MemoryError, SyntaxError):
        # Python's compiler limits nesting (about 100 blocks, 200 parentheses)
        raise AwkSyntaxError("program too deeply nested to compile", show=False, fatal=True) from None
    arrays = {name for (fn, name), kind in symbols.kinds.items() if fn is None and kind == "array"}
    result = Compiled(gen, code, symbols, uses, arrays, warnings, plan_for(program))
    _CACHE.put(key, sum(len(s.text) for s in sources), result)
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
                        text = ctx.read_input(candidate).decode("utf-8", "surrogateescape")
                        break
                    except FsError as e:
                        err = e
                if text is None:
                    raise AwkSyntaxError(f"cannot open source file `{name}' for reading: "
                                         f"{strerror(err.errno or 0)}", len(out), loc % 10_000_000, show=False)
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
            data = ctx.read_input(value)
        except FsError as e:
            err.write(f"{prog}: fatal: cannot open source file `{value}' for reading: {strerror(e.errno or 0)}\n"
                      .encode())
            return 2
        sources.append(Source(value, data.decode("utf-8", "surrogateescape")))
    icase_assigned = any(a.partition("=")[0] == "IGNORECASE" for a in opts.assigns) or \
        any(a.startswith("IGNORECASE=") for a in opts.operands)
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
    uses = compiled.uses | {a.partition("=")[0] for a in opts.assigns}
    interp = Interp(ctx, compiled.gen, prog, opts.csv, uses, [s.name for s in sources])
    interp.inplace = opts.inplace
    if not opts.csv and "IGNORECASE" not in uses:
        interp.fast = compiled.fast
    field_limit = FIELD_LIMIT.set(interp.max_string)  # printf widths are checked against it
    try:
        try:
            interp.setup([prog] + opts.operands, fs, opts.assigns, compiled.symbols.globals_seen, compiled.arrays)
            exec(compiled.code, interp.ns)  # generated from the parsed program; see codegen.py
        except (AwkFatal, FatalNoLoc) as e:
            err.write(f"{prog}: fatal: {e.message}\n".encode())
            return 2
        return interp.run()
    finally:
        interp.mem.close()
        FIELD_LIMIT.reset(field_limit)
