"""Running a compiled program: built-ins with state, getline, the main
input (ARGV files and assignments, BEGINFILE/ENDFILE), and BEGIN / records
/ END with awk's exit semantics."""

from __future__ import annotations

import errno
import math
import sys
from collections.abc import Callable, Iterator
from operator import length_hint
from types import TracebackType

from ...limits import LimitExceeded, LimitKind
from ...stdio.streams import STDIO_BLOCK, ClosedStream, DirStream, StreamError
from ...vfs.errors import FsError, strerror
from ..context import Ctx
from ..fsutil import FileRewrite
from . import builtins as B
from . import fast, timefmt
from .ast import LINE_BASE
from .gen_stmt import Generated
from .io import AwkFatal, OutputFailed
from .lexer import BUILTINS, KEYWORDS, unescape
from .records import Reader, regex_split, split_default
from .regex import Regex
from .runtime import Runtime
from .sorting import asort
from .values import UNINIT, AwkArray, Input, Value, to_num, truth, typeof

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class _Exit(Exception):
    def __init__(self, code: float | None) -> None:
        super().__init__(code)
        self.code = code


class _Next(Exception):
    pass


class _SkipFile(Exception):
    pass


class FatalNoLoc(AwkFatal):
    """A fatal error reported without a program location."""


class _UnreadableInput(FatalNoLoc):
    """The main input is a closed standard input: fatal to the main loop, -1 (with ERRNO) to a
    plain getline, as gawk's nextfile reports it."""


# the settings of gawk's inplace.awk, assigned as `-v inplace::suffix=.bak` or as operands between
# files; the program cannot name them (no namespaces here)
INPLACE_SETTINGS = frozenset({"inplace::suffix", "inplace::enable"})


def is_assignment(arg: str) -> bool:
    name, eq, _ = arg.partition("=")
    if eq and name in INPLACE_SETTINGS:
        return True
    return (
        bool(eq)
        and bool(name)
        and (name[0].isalpha() or name[0] == "_")
        and name.isascii()
        and all(c.isalnum() or c == "_" for c in name)
    )


# the generated calls that can print a run-time warning (Interp.runtime_warning)
_WARNING_CALLS = ("_sqrt(", "_log(", "_exp(", "gensub(")


class Interp(Runtime):
    def __init__(
        self, ctx: Ctx, gen: Generated, prog: str, csv: bool, uses: set[str], sources: list[str]
    ) -> None:
        ns: dict[str, Any] = {"__builtins__": {}}
        super().__init__(ctx, ns, csv, prog, uses)
        self.gen = gen
        self.prog = prog
        self.sources = sources
        self.uses = uses
        # a run-time warning names FNR: records are then counted as they come, not at the end
        self.may_warn = any(f in gen.source for f in _WARNING_CALLS)
        self.reader: Reader | None = None
        self.argi = 1
        self.saw_file = False
        self.stdin_used = False
        self.exit_code = 0
        self.in_end = False
        self.fast: fast.FastPlan | None = None  # set by the caller when the program has a fast shape
        # gawk -i inplace: each file's output goes to a temporary file swapped in at its end
        self.inplace = False
        self.rewrite: FileRewrite | None = None
        self.rewrite_name = ""
        self.inplace_settings: dict[str, Value] = {}

    # ------------------------------------------------------------ setup

    def setup(
        self,
        argv: list[str],
        fs: str | None,
        assigns: list[str],
        globals_seen: set[str],
        arrays: set[str],
        nested: bool = False,
    ) -> None:
        ns = self.ns
        for name in globals_seen:
            if name in arrays:
                # with subarrays about, a global array is named: errors through a parameter name it
                ns["A_" + name] = AwkArray(name) if nested else {}
            else:
                ns["V_" + name] = UNINIT
        ns.update(
            {
                "V_FS": " ",
                "V_OFS": " ",
                "V_ORS": "\n",
                "V_RS": "\n",
                "V_SUBSEP": "\x1c",
                "V_CONVFMT": "%.6g",
                "V_OFMT": "%.6g",
                "V_NR": 0.0,
                "V_FNR": 0.0,
                "V_FILENAME": "",
                "V_RSTART": 0.0,
                "V_RLENGTH": -1.0,
                "V_RT": "",
                "V_IGNORECASE": 0.0,
                "V_ERRNO": "",
                "V_BINMODE": 0.0,
                "V_LINT": 0.0,
                "V_TEXTDOMAIN": "messages",
                "V_ARGC": float(len(argv)),
            }
        )
        if "FIELDWIDTHS" in globals_seen:
            ns["V_FIELDWIDTHS"] = UNINIT
        if "FPAT" in globals_seen:
            ns["V_FPAT"] = UNINIT
        ns["A_ENVIRON"] = {k: Input(v) for k, v in self.ctx.env.items()}
        ns["A_ARGV"] = {str(i): (a if i == 0 else Input(a)) for i, a in enumerate(argv)}
        ns["A_PROCINFO"] = {
            "version": "5.2.1",
            "api_major": 3.0,
            "api_minor": 2.0,
            "FS": "FS",
            "strftime": timefmt.DEFAULT_FORMAT,
            "platform": "posix",
            "pid": 2.0,
            "ppid": 1.0,
            "uid": 1000.0,
            "gid": 1000.0,
            "euid": 1000.0,
            "egid": 1000.0,
            "pgrpid": 2.0,
            "prec": 53.0,
            "max_prec": 53.0,
        }
        ns["A_SYMTAB"] = {}
        ns["A_FUNCTAB"] = {}
        if fs is not None:
            ns["V_FS"] = fs
        for a in assigns:
            self.assign(a)
        self.install()
        self._install_builtins()
        budget = self.ctx.budget
        ns.update({k: v.bound(budget) if isinstance(v, Regex) else v for k, v in self.gen.values.items()})
        ns["_RNG"] = [False] * int(self.gen.values.get("_NRANGES", 0) or 0)  # type: ignore[call-overload]

    def assign(self, text: str) -> None:
        """A -v or command-line assignment: escapes processed, value a strnum."""
        name, _, value = text.partition("=")
        if not is_assignment(text):  # (a command-line operand is one only when legal: a -v)
            raise FatalNoLoc(f"`{name}' is not a legal variable name")
        if name in INPLACE_SETTINGS:
            self.inplace_settings[name] = Input(unescape(value, []))
            return
        if name in KEYWORDS or name in BUILTINS:
            raise FatalNoLoc(f"cannot use gawk builtin `{name}' as variable name")
        key = (
            "A_" + name if "A_" + name in self.ns and isinstance(self.ns["A_" + name], dict) else "V_" + name
        )
        if key.startswith("A_"):
            raise FatalNoLoc(f"cannot use array `{name}' in a scalar context")
        warns: list[str] = []
        self.ns[key] = Input(unescape(value, warns))
        for w in warns:
            self.warn(f"warning: {w}")

    # ------------------------------------------------------------ built-ins with state

    def _install_builtins(self) -> None:
        ns = self.ns
        env = self.ctx.env
        to_str = self.to_str

        def length(v: Value | dict[str, Value]) -> float:
            return float(len(v)) if isinstance(v, dict) else float(len(to_str(v)))

        def math1(name: str, fn: Callable[[float], float]) -> Callable[[float], float]:
            def call(x: float) -> float:
                try:
                    return fn(x)
                except (ValueError, OverflowError):
                    return -math.nan  # as C computes it on x86

            return call

        def log(x: float) -> float:
            if x < 0:
                self.runtime_warning(f"log: received negative argument {x:g}")
            return B.awk_log(x)

        def sqrt(x: float) -> float:
            if x < 0:
                self.runtime_warning(f"sqrt: received negative argument {x:g}")
            return B.awk_sqrt(x)

        def exp(x: float) -> float:
            r = B.awk_exp(x)
            if r == math.inf and x != math.inf:
                self.runtime_warning(f"exp: argument {x:g} is out of range")
            return r

        def strftime(fmt: str | None = None, ts: float | None = None, utc: float = 0.0) -> str:
            if fmt is None:
                fmt = to_str(ns["A_PROCINFO"].get("strftime", timefmt.DEFAULT_FORMAT))
            when = self.ctx.clock() if ts is None else ts
            return timefmt.strftime(fmt, when, env, bool(utc))

        def typeof_el(d: dict[str, Value], k: str) -> str:
            return typeof(d[k]) if k in d else "untyped"

        def isarray(v: object) -> float:
            return 1.0 if isinstance(v, dict) else 0.0

        ns.update(
            {
                "_length": length,
                "_substr": B.substr,
                "_lower": B.lower,
                "_upper": B.upper,
                "_index": (lambda s, t: B.index(s, t, self.icase_on())) if self.icase else B.index,
                "_split": self.split_fn,
                "_patsplit": self.patsplit,
                "_subst": self.subst,
                "_gensub": self.gensub,
                "_match": self.match,
                "_sin": math1("sin", math.sin),
                "_cos": math1("cos", math.cos),
                "_atan2": math.atan2,
                "_exp": exp,
                "_log": log,
                "_sqrt": sqrt,
                "_int": B.awk_int,
                "_compl": B.compl,
                "_strtonum": B.strtonum,
                "_bits": B.bits,
                "_rand": self.rng.rand,
                "_srand": self.srand,
                "_system": self.system,
                "_close": self.close,
                "_fflush": self.fflush,
                "_asort": lambda src, dest, how, ind: asort(self, src, dest, how, ind),
                "_isarray": isarray,
                "_typeof": typeof,
                "_typeof_el": typeof_el,
                "_systime": lambda: float(int(self.ctx.clock())),
                "_strftime": strftime,
                "_mktime": lambda spec, utc=0.0: timefmt.mktime(spec, env, bool(utc)),
                "_indirect": self.indirect,
                "_gl": self.gl_main,
                "_glv": self.gl_main_var,
                "_glf": self.gl_file,
                "_glfv": self.gl_file_var,
                "_glc": self.gl_cmd,
                "_glcv": self.gl_cmd_var,
                "_glp": self.gl_coproc,
                "_glpv": self.gl_coproc_var,
                "_nextfile": self.nextfile,
                "_Exit": _Exit,
                "_Next": _Next,
                "_SkipFile": _SkipFile,
            }
        )

    def runtime_warning(self, message: str) -> None:
        prefix = self.location_prefix(_awk_loc(sys._getframe(1)))  # (it names the program itself)
        self.io.stdout.flush()
        self.io.stderr.write(f"{prefix}warning: {message}\n")

    def split_fn(
        self, s: str, arr: dict[str, Value], sep: Regex | str | None, seps: dict[str, Value] | None
    ) -> float:
        arr.clear()
        if seps is not None:
            seps.clear()
        if sep is None:
            sep = self.to_str(self.ns["V_FS"])
        pieces: list[str]
        if isinstance(sep, str) and sep == " ":
            pieces = split_default(s)
            if seps is not None and s:
                self._default_seps(s, seps)
        elif isinstance(sep, str) and sep == "":
            pieces = list(s)
        elif isinstance(sep, str) and len(sep) == 1 and sep != "\\":  # (not IGNORECASE's either, as gawk)
            pieces = s.split(sep) if s else []
            if seps is not None:
                for i in range(1, len(pieces)):
                    seps[str(i)] = Input(sep)
        else:
            rx = sep if isinstance(sep, Regex) else self.dynamic_regex(sep)
            pieces = regex_split(rx, s)
            if seps is not None and s:
                i = 1
                for st, en in rx.finditer(s):
                    if en > st:
                        seps[str(i)] = Input(s[st:en])
                        i += 1
        self._many(len(pieces))
        for i, p in enumerate(pieces, 1):
            arr[str(i)] = Input(p)
        self.ctx.checkpoint(1 + len(pieces) // 64)
        return float(len(pieces))

    def _many(self, n: int, added: int = 0) -> None:
        """`n` elements about to go into an array at once (split, patsplit): within the elements
        awk may hold, and measured with the rest (check_arrays) once such fills add up: a split of
        one long string into a million elements held 200 MB without a memory check."""
        if n > self.max_elements:
            raise LimitExceeded(LimitKind.MAX_ARRAY_ELEMENTS, self.max_elements)
        added = added or n
        if added > 1024:
            self.fresh += added * 128  # an element's key, value and slot
            if self.fresh > self.fresh_max:
                self.check_arrays()

    @staticmethod
    def _default_seps(s: str, seps: dict[str, Value]) -> None:
        stripped = s.lstrip(" \t\n")
        if len(stripped) != len(s):
            seps["0"] = Input(s[: len(s) - len(stripped)])
        i = 1
        pos = len(s) - len(stripped)
        n = len(s)
        while pos < n:
            while pos < n and s[pos] not in " \t\n":
                pos += 1
            start = pos
            while pos < n and s[pos] in " \t\n":
                pos += 1
            if pos > start:
                seps[str(i)] = Input(s[start:pos])
                i += 1

    def patsplit(
        self, s: str, arr: dict[str, Value], pat: Regex | None, seps: dict[str, Value] | None
    ) -> float:
        if pat is None:
            fpat = self.ns.get("V_FPAT", UNINIT)
            pat = self.dynamic_regex(self.to_str(fpat) if fpat != "" else "[^[:space:]]+")
        arr.clear()
        if seps is not None:
            seps.clear()
        pos = 0
        n = 0
        for st, en in pat.finditer(s):
            if seps is not None and (n or st > 0):
                seps[str(n)] = Input(s[pos:st])
            n += 1
            if not n & 1023:
                self._many(n, 1024)
            arr[str(n)] = Input(s[st:en])
            pos = en
        if seps is not None and pos < len(s):
            seps[str(n)] = Input(s[pos:])
        return float(n)

    def subst(self, rx: Regex, repl: str, s: str, is_global: bool) -> tuple[int, str]:
        count, out = B.subst(rx, repl, s, is_global)
        if count:
            self.ctx.checkpoint(1 + count // 64)
            self.check_len(out)
        return count, out

    def gensub(self, rx: Regex, repl: str, how: Value, s: str) -> str:
        is_global, nth, warning = B.gensub_how(how)
        if warning is not None:
            self.runtime_warning(warning)
        _, out = B.subst(rx, repl, s, is_global, nth, gensub=True)
        return self.check_len(out)

    def match(self, s: str, rx: Regex, arr: dict[str, Value] | None) -> float:
        ns = self.ns
        spans = rx.search_groups(s) if arr is not None and rx.groups else None
        if spans is None:
            m = rx.search(s)
            spans = [m] if m is not None else None
        if arr is not None:
            arr.clear()
        if spans is None:
            ns["V_RSTART"] = 0.0
            ns["V_RLENGTH"] = -1.0
            return 0.0
        st, en = spans[0]
        ns["V_RSTART"] = float(st + 1)
        ns["V_RLENGTH"] = float(en - st)
        if arr is not None:
            sep = self.to_str(ns["V_SUBSEP"])
            for i, (a, b) in enumerate(spans):
                if a >= 0:
                    arr[str(i)] = Input(s[a:b])
                    arr[f"{i}{sep}start"] = float(a + 1)
                    arr[f"{i}{sep}length"] = float(b - a)
        return float(st + 1)

    def srand(self, seed: float | None = None) -> float:
        prev = self.seed
        value = (
            float(int(self.ctx.clock()))
            if seed is None
            else (float(int(seed)) if math.isfinite(seed) else 0.0)
        )
        self.seed = value
        self.rng.seed(int(value))
        return prev

    def system(self, cmd: str) -> float:
        status = self.io.system(cmd)
        return float(status)

    def close(self, name: str, how: str | None = None) -> float:
        return float(self.io.close(name, how))

    def fflush(self, name: str | None) -> float:
        return float(self.io.fflush(name))

    def indirect(self, name: Value, args: tuple[Value, ...]) -> Value:
        fname = self.to_str(name)
        fn = self.ns.get("F_" + fname) if fname.isidentifier() else None
        if fn is None:
            raise AwkFatal(f"function `{fname}' not defined")
        result: Value = fn(*args)
        return result

    # ------------------------------------------------------------ getline

    def _bump(self, fnr: bool) -> None:
        ns = self.ns
        ns["V_NR"] = to_num(ns["V_NR"]) + 1.0
        if fnr:
            ns["V_FNR"] = to_num(ns["V_FNR"]) + 1.0

    def _next_main_getline(self) -> tuple[str | None, bool]:
        """The next main-input record for a plain getline, and False when it cannot be read."""
        try:
            return self.next_main(), True
        except _UnreadableInput:
            self.io.set_errno(strerror(errno.EBADF))
            return None, False

    def gl_main(self) -> float:
        rec, ok = self._next_main_getline()
        if not ok:
            return -1.0
        if rec is None:
            return 0.0
        self.set_record(rec)
        self._bump(True)
        return 1.0

    def gl_main_var(self) -> tuple[float, Value]:
        rec, ok = self._next_main_getline()
        if not ok:
            return -1.0, UNINIT
        if rec is None:
            return 0.0, UNINIT
        self._bump(True)
        return 1.0, Input(rec)

    def _read(self, rd: Reader | None) -> str | None:
        if rd is None:
            return None
        self.ctx.checkpoint()
        rec = rd.read()
        if rec is not None:
            self.ns["V_RT"] = rd.rt
        return rec

    def gl_file(self, name: str) -> float:
        rd = self.io.reader_file(name)
        if rd is None:
            return -1.0
        rec = self._read(rd)
        if rec is None:
            return 0.0
        self.set_record(rec)
        return 1.0

    def gl_file_var(self, name: str) -> tuple[float, Value]:
        rd = self.io.reader_file(name)
        if rd is None:
            return -1.0, UNINIT
        rec = self._read(rd)
        return (0.0, UNINIT) if rec is None else (1.0, Input(rec))

    def gl_cmd(self, cmd: str, coproc: bool = False) -> float:
        rec = self._read(self.io.reader_cmd(cmd, coproc))
        if rec is None:
            return 0.0
        self.set_record(rec)
        self._bump(False)
        return 1.0

    def gl_cmd_var(self, cmd: str, coproc: bool = False) -> tuple[float, Value]:
        rec = self._read(self.io.reader_cmd(cmd, coproc))
        if rec is None:
            return 0.0, UNINIT
        self._bump(False)
        return 1.0, Input(rec)

    def gl_coproc(self, cmd: str) -> float:
        return self.gl_cmd(cmd, True)

    def gl_coproc_var(self, cmd: str) -> tuple[float, Value]:
        return self.gl_cmd_var(cmd, True)

    # ------------------------------------------------------------ main input

    def next_main(self) -> str | None:
        while True:
            if self.reader is None and not self.open_next():
                return None
            rd = self.reader
            assert rd is not None
            rec = rd.read()
            if rec is not None:
                if "RT" in self.uses:
                    self.ns["V_RT"] = rd.rt
                return rec
            self.end_file()

    def open_next(self) -> bool:
        ns = self.ns
        while True:
            argc = to_num(ns["V_ARGC"])
            if self.argi >= argc:
                break
            arg = ns["A_ARGV"].get(str(self.argi))
            self.argi += 1
            if arg is None:
                continue
            name = self.to_str(arg)
            if name == "":
                continue
            if is_assignment(name):
                self.assign(name)
                continue
            self.saw_file = True
            if self.start_file(name):
                return True
        if not self.saw_file and not self.stdin_used:
            self.stdin_used = True
            return self.start_file("-")
        return False

    def start_file(self, name: str) -> bool:
        ctx = self.ctx
        if name in ("-", "/dev/stdin"):
            stream = ctx.stdin
            if isinstance(stream, ClosedStream):
                raise _UnreadableInput(f"error reading input file `{name}': {strerror(errno.EBADF)}")
            if isinstance(stream, DirStream):  # (`awk 1 < dir`: gawk fstat()s what it opened)
                self.warn(f"warning: command line argument `{name}' is a directory: skipped")
                return False
        else:
            try:
                if ctx.fs.is_dir(name):
                    self.warn(f"warning: command line argument `{name}' is a directory: skipped")
                    return False
                stream = ctx.open_in(name, reopen=False)
            except FsError as e:
                raise FatalNoLoc(f"cannot open file `{name}' for reading: {strerror(e.errno or 0)}") from None
        self.reader = Reader(stream, self.ns, self.csv, ctx.checkpoint, ctx.budget)
        # inplace.awk's BEGINFILE: the file before is swapped in now (with the settings of now),
        # then this one is taken unless inplace::enable is false
        self.end_inplace(True)
        enable = self.inplace_settings.get("inplace::enable")
        if self.inplace and (enable is None or truth(enable)):
            if stream is not ctx.stdin:
                self.begin_inplace(name)
            elif name == "-":  # (line 59 of gawk 5.2's inplace.awk calls begin())
                self.warn(
                    f"inplace:59: warning: inplace::begin: disabling in-place editing for invalid FILENAME `{name}'"
                )
        self.paragraph = self.ns["V_RS"] == ""
        self.ns["V_FILENAME"] = name
        self.ns["V_FNR"] = 0.0
        begin = self.ns.get("_BEGINFILE")
        if begin is not None:
            try:
                begin()
            except _SkipFile:
                self.end_file(run_endfile=False)
                return False
        return True

    def end_file(self, run_endfile: bool = True) -> None:
        rd = self.reader
        self.reader = None
        if rd is not None and rd.stream is not self.ctx.stdin:
            rd.close()
        # the file being edited is swapped in at the next file's start or before END (gawk 5.2's
        # inplace.awk), so the program's ENDFILE output goes into it
        end = self.ns.get("_ENDFILE")
        if run_endfile and end is not None:
            end()

    def begin_inplace(self, name: str) -> None:
        self.io.stdout.flush()
        self.rewrite_name = name
        try:
            self.rewrite = FileRewrite(self.ctx.fs, name, prefix=".gawk", rng=self.ctx.rng)
        except FsError as e:
            raise FatalNoLoc(
                f"inplace::begin: mkstemp(`{name}.gawk.XXXXXX') failed ({strerror(e.errno or 0)})"
            )
        self.io.stdout.stream = self.rewrite.stream

    def end_inplace(self, complete: bool) -> None:
        """Swap the file's new content in (`complete`), or drop it and keep the file as it was."""
        rewrite, out = self.rewrite, self.io.stdout
        if rewrite is None:
            return
        self.rewrite = None
        swapped = False
        try:
            if complete:
                out.flush()
                # inplace.awk: `suffix ? suffix : awk::INPLACE_SUFFIX`, the backup's suffix
                suffix = self.inplace_settings.get("inplace::suffix")
                if suffix is None or not truth(suffix):
                    suffix = self.ns.get("V_INPLACE_SUFFIX")
                text = self.to_str(suffix) if suffix is not None else ""
                rewrite.commit(self.rewrite_name + text if text else None)
                swapped = True
        except FsError as e:
            raise FatalNoLoc(
                f"inplace::end: cannot replace `{self.ns.get('V_FILENAME', '')}' ({strerror(e.errno or 0)})"
            ) from None
        finally:
            if not swapped:
                out.parts.clear()  # text meant for the abandoned file
                out.size = 0
                rewrite.abort()
            out.stream = self.ctx.stdout

    def nextfile(self) -> None:
        if self.reader is not None:
            self.end_file()

    def main_loop(self) -> None:
        ns = self.ns
        batching = (
            not self.gen.moves_input
            and "RS" not in self.uses
            and "RT" not in self.uses
            and not self.watch_modes
            and "FS" not in self.uses
        )
        while True:
            if self.reader is None and not self.open_next():
                return
            rd = self.reader
            assert rd is not None
            self.paragraph = ns["V_RS"] == ""
            if batching:
                self.sync_fs()
                if self.fast is not None and fast.applies(self, rd):
                    fast.run(self, rd, self.fast)
                else:
                    self.records_batched(rd)
            else:
                self.records(rd)
            if self.reader is rd:
                self.end_file()

    def records_batched(self, rd: Reader) -> None:
        """The common case: nothing in the program moves the input or changes
        how it is split, so records come a chunk at a time and only $0 is set."""
        ns = self.ns
        main = ns.get("_MAIN")
        loop = ns.get("_LOOP")
        checkpoint = self.ctx.budget.checkpoint
        # NR and FNR are stored once the input ends (or a record's code raises) when nothing reads
        # them meanwhile: an END block that reads them names them too
        count_nr = bool({"NR", "FNR"} & self.uses) or self.may_warn
        nr = to_num(ns["V_NR"])
        fnr = to_num(ns["V_FNR"])
        try:
            while True:
                batch = rd.batch()
                if batch is None:
                    count_nr = True
                    self.records(rd)
                    return
                if not batch:
                    return
                checkpoint(len(batch))
                # a round per 64 records, as the one-record path counts: a batch holds thousands
                # of short records, and 64 batches of `{a[NR]=$0}` held 410 MB before a check
                self.cp_rounds += 1 + (len(batch) >> 6)
                if self.cp_rounds >= 64:
                    self.check_arrays()
                self.cur_split = str.split if self.splitter is split_default and not rd.odd else self.splitter
                if main is None:  # (END alone: the records are only counted)
                    nr, fnr = self.count_batch(batch, count_nr, nr, fnr)
                    continue
                if loop is not None:
                    it = iter(batch)
                    try:
                        self.run_loop(loop, it, count_nr)
                    finally:
                        if not count_nr:  # the records done, the one that raised included
                            nr += len(batch) - length_hint(it)
                            fnr += len(batch) - length_hint(it)
                    continue
                for rec in batch:
                    if count_nr:
                        nr = ns["V_NR"]
                        ns["V_NR"] = (nr if nr.__class__ is float else to_num(nr)) + 1.0
                        fnr = ns["V_FNR"]
                        ns["V_FNR"] = (fnr if fnr.__class__ is float else to_num(fnr)) + 1.0
                    else:
                        nr += 1.0
                        fnr += 1.0
                    self.rec = rec
                    self.flds = None
                    self.rec_input = True
                    if main is not None:
                        try:
                            main()
                        except _Next:
                            pass
        finally:
            if not count_nr:
                ns["V_NR"] = nr
                ns["V_FNR"] = fnr

    def count_batch(self, batch: list[str], count_nr: bool, nr: float, fnr: float) -> tuple[float, float]:
        ns = self.ns
        if count_nr:
            ns["V_NR"] = to_num(ns["V_NR"]) + len(batch)
            ns["V_FNR"] = to_num(ns["V_FNR"]) + len(batch)
        self.set_record(batch[-1])
        return nr + len(batch), fnr + len(batch)

    def run_loop(self, loop: Callable[..., None], it: Iterator[str], count_nr: bool) -> None:
        """The main rules over a batch in one call of the generated `_LOOP` (gen_loop.py)."""
        if self.cur_split is str.split:
            sep, split = None, None
        elif self.split_sep is not None and not self.paragraph and self.field_mode == "FS":
            sep, split = self.split_sep, None
        else:
            sep, split = None, self.cur_split
        loop(it, sep, self.ns.get("_LOOPK", 0), split, count_nr, self)

    def records(self, rd: Reader) -> None:
        ns = self.ns
        main = ns.get("_MAIN")
        checkpoint = self.ctx.budget.checkpoint
        want_rt = "RT" in self.uses
        read = rd.read
        n = 0
        while True:
            rec = read()
            if rec is None:
                return
            nr = ns["V_NR"]
            ns["V_NR"] = (nr if nr.__class__ is float else to_num(nr)) + 1.0
            fnr = ns["V_FNR"]
            ns["V_FNR"] = (fnr if fnr.__class__ is float else to_num(fnr)) + 1.0
            if want_rt:
                ns["V_RT"] = rd.rt
            self.rec = rec
            self.flds = None
            self.rec_input = True
            if ns["V_FS"] is not self.fs_obj or self.watch_modes:
                self.sync_fs()
            self.cur_split = str.split if self.splitter is split_default and not rd.odd else self.splitter
            n += 1
            if n >= 64:
                checkpoint(n)
                n = 0
                self.cp_rounds += 1
                if self.cp_rounds >= 64:
                    self.check_arrays()
            if main is not None:
                try:
                    main()
                except _Next:
                    pass
            if self.reader is not rd:
                return

    # ------------------------------------------------------------ running

    def run(self) -> int:
        try:
            return self._run()
        except OutputFailed as e:
            return self._output_failed(e.out, e.error, e.__traceback__)
        except FsError as e:
            if self.rewrite is None:
                raise
            # the new content of the file being edited could not be written (quota)
            name = self.to_str(self.ns.get("V_FILENAME", ""))
            self.end_inplace(False)
            self.io.stderr.write(
                f"{self.prog}: fatal: cannot edit `{name}' in place: {strerror(e.errno or 0)}\n"
            )
            return 2
        finally:
            # a file still open here was cut short (exit, a fatal error, a limit): it keeps its content
            self.end_inplace(False)

    def _run(self) -> int:
        ns = self.ns
        self.inplace_settings.pop("inplace::enable", None)  # inplace.awk's BEGIN sets it to 1 (after -v)
        try:
            try:
                if "_BEGIN" in ns:
                    ns["_BEGIN"]()
                if self.gen.has_main or self.gen.has_end or "_BEGINFILE" in ns or "_ENDFILE" in ns:
                    self.main_loop()
                    self.end_inplace(True)  # inplace.awk's END comes before the program's
            except _Exit as e:
                if e.code is not None:
                    self.exit_code = int(e.code) & 0xFF
            if "_END" in ns:
                self.in_end = True
                try:
                    ns["_END"]()
                except _Exit as e:
                    if e.code is not None:
                        self.exit_code = int(e.code) & 0xFF
        except (AwkFatal, ZeroDivisionError, RecursionError, _Next, _SkipFile) as e:
            self.end_inplace(False)  # a fatal error keeps the file being edited as it was
            self.report(e)
            self.io.close_all()
            return 2
        self.io.close_all()
        return self.exit_code

    def _output_failed(self, out: object, e: StreamError, tb: TracebackType | None) -> int:
        """An output could not be written, as gawk reports it: where a print filled its buffer, a
        fatal error naming the print's place, FILENAME and FNR (status 2; the record is where the
        buffer filled, later here than in gawk, whose buffer is smaller); found as it exits, a
        warning for standard output (status 1), a fatal `flush to "NAME" failed` for a redirection."""
        self.end_inplace(False)
        err = strerror(e.errno or errno.EIO)
        name = next((n for n, o in self.io.outputs.items() if o is out), None)
        shown = "standard output" if out is self.io.stdout or name is None else name
        if e.size >= STDIO_BLOCK:
            where = self.location_prefix(_tb_loc(tb))
            self.io.stderr.write(f'{where}fatal: print to "{shown}" failed: {err}\n')
            return 2
        if shown == "standard output":
            self.io.stderr.write(
                f"{self.location_prefix(None)}warning: error writing standard output: {err}\n"
            )
            return 1
        self.io.stderr.write(f'{self.location_prefix(None)}fatal: flush to "{shown}" failed: {err}\n')
        return 2

    def report(self, e: BaseException) -> None:
        if isinstance(e, ZeroDivisionError):
            msg = "division by zero attempted"
        elif isinstance(e, RecursionError):
            msg = "function call nesting too deep (recursion too deep)"
        elif isinstance(e, _Next):
            msg = "`next' cannot be called from a BEGIN or END rule"
        elif isinstance(e, _SkipFile):
            msg = "`nextfile' used outside a BEGINFILE rule"
        else:
            msg = str(e.args[0]) if e.args else "error"
        self.io.stdout.flush()
        if isinstance(e, FatalNoLoc):
            self.io.stderr.write(f"{self.prog}: fatal: {msg}\n")
            return
        loc = _tb_loc(e.__traceback__)
        self.io.stderr.write(f"{self.location_prefix(loc)}fatal: {msg}\n")

    def location_prefix(self, loc: int | None) -> str:
        out = f"{self.prog}: "
        if loc is not None:
            line = self.gen.linemap[loc - 1] if 0 < loc <= len(self.gen.linemap) else 0
            src, lineno = divmod(line, LINE_BASE)
            name = self.sources[src] if src < len(self.sources) else "cmd. line"
            out += f"{name}:{max(lineno, 1)}: "
        # (gawk names the record only once one was read: FNR 0 after END over an empty input says none)
        filename = self.ns.get("V_FILENAME", "")
        fnr = self.ns.get("V_FNR", 0.0)
        if (filename.__class__ is float or filename != "") and to_num(fnr) > 0:
            out += f"(FILENAME={self.to_str(filename)} FNR={self.to_str(fnr)}) "
        return out


def _tb_loc(tb: TracebackType | None) -> int | None:
    loc = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<awk>":
            loc = tb.tb_lineno
        tb = tb.tb_next
    return loc


def _awk_loc(frame: Any) -> int | None:
    while frame is not None:
        if frame.f_code.co_filename == "<awk>":
            return int(frame.f_lineno)
        frame = frame.f_back
    return None
