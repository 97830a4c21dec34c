"""The state a compiled awk program runs against: $0 and the fields,
conversions that depend on CONVFMT/OFMT, comparisons, printing.

Everything the generated code calls is a closure or bound method placed in
its namespace by `Runtime.install()`. awk variables live in that namespace
too (`V_name`, `A_name`), so the runtime reads FS, OFS, NR... from it.

Fields are split lazily: `flds` is None until a field or NF is used. A
field list holds raw `str` pieces from splitting (strnums when read), or
values assigned by the program. `rec` is None while $0 must be rebuilt
from modified fields.
"""

from __future__ import annotations

import math
from itertools import islice

from ...limits import LimitExceeded, LimitKind
from ..context import Ctx
from . import builtins as B
from .fmt import FastPlan, FormatError, FormatFatal, format_values, num2str
from .io import AwkFatal, IOManager
from .records import (
    Splitter,
    fieldwidths_splitter,
    fpat_splitter,
    fs_splitter,
    literal_separator,
    split_default,
)
from .regex import Regex, RegexError, compile_regex
from .sorting import gawk_order, sorted_keys
from .subarrays import Subarrays
from .values import NULL_FIELD, UNINIT, Input, Plain, Uninit, Value, num_value, str2num, strnum_value, truth

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_MAX_FIELD = 1 << 20
_LONG_LIMIT = float(1 << 63)
_NAN = math.nan
_EMPTY_INPUT = NULL_FIELD
_ASSIGNED = object()  # a split variable's remembered value after an assignment: never the one held


class Runtime:
    def __init__(self, ctx: Ctx, ns: dict[str, Any], csv: bool, prog: str, uses: set[str]) -> None:
        self.ctx = ctx
        self.ns = ns
        self.io = IOManager(ctx, ns, csv, prog)
        self.csv = csv
        self.rec: str | None = ""
        self.flds: list[Any] | None = []
        self.splitter: Splitter = split_default  # for the FS in effect
        self.cur_split: Splitter = split_default  # for the current record (str.split on clean input)
        self.split_sep: str | None = None  # the FS in effect is this one character, as plain text
        self.fs_obj: object = None  # the FS value the splitter was made for
        self.fw_obj: object = UNINIT
        self.fpat_obj: object = UNINIT
        self.field_mode = "FS"
        self.watch_modes = "FIELDWIDTHS" in uses or "FPAT" in uses
        self.icase = "IGNORECASE" in uses
        self.rng = B.GawkRandom()
        self.seed = 1.0  # gawk starts as if srand(1) had run
        self.max_string = max(ctx.limits.max_string_length, 1 << 20)
        # awk arrays are often bigger than bash ones: ten times the shell's bound, up to a million
        # (split() makes its elements before they are counted; 9 M of them held 1.9 GB)
        limit = ctx.limits.max_array_elements
        self.max_elements = min(10 * limit, max(limit, 1_000_000))
        # a record's fields are an array too: the fixed floor keeps NF and $N as before, the knob
        # the message names (max_array_elements) raises it
        self.max_fields = max(_MAX_FIELD, self.max_elements)
        self.cp_rounds = 0
        # what the globals hold, charged when the arrays are checked; long
        # strings kept since then (a check comes once they pass fresh_max)
        self.mem = ctx.hold_memory()
        self.subarrays = Subarrays(ctx.checkpoint)  # subarrays and local arrays, for the memory check
        self.fresh = 0
        self.fresh_max = ctx.limits.max_memory // 16
        self.warned: set[str] = set()
        self.paragraph = False
        self.rebuild_ofs = " "
        self.rec_input = True  # $0 came from input (a strnum), not from the program

    # ------------------------------------------------------------ conversions

    def convfmt(self) -> str:
        f = self.ns["V_CONVFMT"]
        return f if f.__class__ is str else self.to_str(f) if f.__class__ is not float else "%.6g"

    def to_str(self, v: Value) -> str:
        if v.__class__ is float:
            x: float = v  # type: ignore[assignment]
            if x - x == 0.0:
                i = int(x)
                if i == x:
                    return str(i)
            return num2str(x, self.convfmt())
        return v  # type: ignore[return-value]

    def to_out(self, v: Value) -> str:
        if v.__class__ is float:
            x: float = v  # type: ignore[assignment]
            if x - x == 0.0:
                i = int(x)
                if i == x:
                    return str(i)
            f = self.ns["V_OFMT"]  # (a strnum from -v OFMT=... too)
            return num2str(
                x, f if f.__class__ is str else self.to_str(f) if f.__class__ is not float else "%.6g"
            )
        return v  # type: ignore[return-value]

    def n2s(self, x: float) -> str:
        if x - x == 0.0:
            i = int(x)
            if i == x:
                return str(i)
        return num2str(x, self.convfmt())

    def n2o(self, x: float) -> str:
        return self.to_out(x)

    def to_key(self, v: Value) -> str:
        return v if v.__class__ is not float else self.n2s(v)  # type: ignore[return-value,arg-type]

    def cmp(self, a: Value, b: Value) -> int | float:
        """-1, 0 or 1; NaN when a number is NaN, so that every comparison
        with it but != is false, as in gawk."""
        x = num_value(a)
        if x is not None:
            y = num_value(b)
            if y is not None:
                if x != x or y != y:
                    return _NAN
                return (x > y) - (x < y)
        sa = self.cmp_str(a)
        sb = self.cmp_str(b)
        if self.icase and self.ns["V_IGNORECASE"] and truth(self.ns["V_IGNORECASE"]):
            sa, sb = sa.lower(), sb.lower()
        return (sa > sb) - (sa < sb)

    def cmp_str(self, v: Value) -> str:
        """The string a comparison uses: gawk gives inf and nan none (they compare as "")."""
        if v.__class__ is float and v - v != 0.0:  # type: ignore[operator]
            return ""
        return self.to_str(v)

    def cmpn(self, a: Value, y: float) -> int | float:
        """Compare a value with a number."""
        c = a.__class__
        if c is float:
            x: float | None = a  # type: ignore[assignment]
        elif c is Input:
            x = strnum_value(a)  # type: ignore[arg-type]
        elif c is Uninit:
            x = 0.0
        else:
            x = None
        if x is not None:
            if x != x or y != y:
                return _NAN
            return (x > y) - (x < y)  # type: ignore[operator]
        return self.cmp(a, y)

    def scmp(self, a: str, b: str) -> int:
        if truth(self.ns["V_IGNORECASE"]):
            a, b = a.lower(), b.lower()
        return (a > b) - (a < b)

    def check_arrays(self) -> None:
        """Bound the elements held by global arrays (loops can add them without
        end), and charge the run's memory with what the globals hold."""
        self.cp_rounds = 0
        self.fresh = 0
        total = 0
        nbytes = 0
        for v in self.ns.values():
            if isinstance(v, dict):
                total += len(v)
                nbytes += _array_bytes(v)
            elif isinstance(v, str):
                nbytes += 49 + len(v)
        sub_elements, sub_bytes = self.subarrays.measure(_array_bytes)
        total += sub_elements
        nbytes += sub_bytes
        flds = self.flds  # fields set by the program are copies (Plain) of what they were given
        if flds:
            nbytes += sum(49 + len(f) if f.__class__ is not float else 24 for f in flds)
        if total > self.max_elements:
            raise LimitExceeded(LimitKind.MAX_ARRAY_ELEMENTS, self.max_elements)
        self.mem.set(nbytes)

    def append_str(self, key: str, tail: str) -> str:
        """`v = v tail` for the global scalar `key` (V_name): the string grows in place, as CPython
        appends to a str that one reference alone holds (here the local, once the namespace has let
        it go); `v = v tail` as an expression made a new copy of v each time (quadratic: the common
        `{s = s $0 ","}` over 100,000 lines took 28 s, gawk 0.02). A string another variable
        still holds is copied as before: no value another name sees ever changes."""
        ns = self.ns
        s = ns.pop(key, "")
        try:
            if s.__class__ is float:
                s = self.to_str(s)
            if len(s) + len(tail) > self.max_string:
                raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, self.max_string)
            s += tail
        finally:
            ns[key] = s
        return self.check_len(s)

    def check_len(self, s: str) -> str:
        n = len(s)
        if n > self.max_string:
            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, self.max_string)
        if n > 4096:
            # long strings being kept: measure before they add up to much
            self.fresh += n
            if self.fresh > self.fresh_max:
                self.check_arrays()
        return s

    # ------------------------------------------------------------ regexes

    def icase_on(self) -> bool:
        return self.icase and truth(self.ns["V_IGNORECASE"])

    def dynamic_regex(self, source: str) -> Regex:
        try:
            return compile_regex(source, self.icase_on(), self.ctx.budget)
        except RegexError as e:
            raise AwkFatal(f"invalid regexp: {e}: /{source}/") from None

    def icase_regex(self, rx: Regex) -> Regex:
        if self.icase_on():
            return compile_regex(rx.source, True, self.ctx.budget)
        return rx

    # ------------------------------------------------------------ record and fields

    def sync_fs(self) -> None:
        """Pick the splitter for the FS/FIELDWIDTHS/FPAT now in effect
        (whichever was assigned most recently wins)."""
        ns = self.ns
        if self.watch_modes:
            fw = ns.get("V_FIELDWIDTHS", UNINIT)
            fp = ns.get("V_FPAT", UNINIT)
            if fw is not self.fw_obj:
                self.fw_obj = fw
                split = fieldwidths_splitter(self.to_str(fw))
                if split is None:
                    raise AwkFatal(f"invalid FIELDWIDTHS value, for field 1, near `{self.to_str(fw)}'")
                self.splitter = split
                self.field_mode = "FIELDWIDTHS"
                self.split_sep = None
                self.fs_obj = ns["V_FS"]
                return
            if fp is not self.fpat_obj:
                self.fpat_obj = fp
                try:
                    self.splitter = fpat_splitter(self.to_str(fp), self.icase_on(), self.ctx.budget)
                except RegexError as e:
                    raise AwkFatal(f"invalid regexp: {e}: /{self.to_str(fp)}/") from None
                self.field_mode = "FPAT"
                self.split_sep = None
                self.fs_obj = ns["V_FS"]
                return
        fs = ns["V_FS"]
        if fs is self.fs_obj:
            # FS unchanged since the mode was picked: FIELDWIDTHS or FPAT stays in effect for
            # every later record until FS itself is assigned
            return
        self.fs_obj = fs
        self.field_mode = "FS"
        self.split_sep = None
        text = self.to_str(fs)
        if self.csv:
            from .records import split_csv

            self.splitter = split_csv
            return
        try:
            self.splitter = fs_splitter(text, self.icase_on(), self.paragraph, self.ctx.budget)
            if not self.paragraph and text != " ":
                self.split_sep = literal_separator(text, self.icase_on(), self.ctx.budget)
        except RegexError as e:
            raise AwkFatal(f"invalid regexp: {e}: /{text}/") from None

    def split_mode_assigned(self, name: str, value: Value) -> Value:
        """The program assigned FS, FIELDWIDTHS or FPAT: that one splits the next record, even when
        the value is the very object a variable already held (a pooled constant, a copy of FS), which
        sync_fs's identity checks alone would take for no change."""
        ns = self.ns
        self.fs_obj = _ASSIGNED if name == "FS" else ns["V_FS"]
        self.fw_obj = _ASSIGNED if name == "FIELDWIDTHS" else ns.get("V_FIELDWIDTHS", UNINIT)
        self.fpat_obj = _ASSIGNED if name == "FPAT" else ns.get("V_FPAT", UNINIT)
        return value

    def set_record(self, text: str, from_input: bool = True) -> None:
        self.rec = text
        self.rec_input = from_input
        self.flds = None
        if self.ns["V_FS"] is not self.fs_obj or self.watch_modes:
            self.sync_fs()
        self.cur_split = self.splitter

    def split(self) -> list[Any]:
        rec = self.rec
        assert rec is not None
        flds: list[Any] = self.cur_split(rec)
        self.flds = flds
        return flds

    def rebuild(self) -> str:
        flds = self.flds or []
        ofs = self.rebuild_ofs
        # the size first: a long OFS or one long value in many fields (`$1000 = 1` with an OFS of
        # 900 KB) would make a record of GBs before its length was checked
        size = len(ofs) * len(flds)
        try:
            size += sum(map(len, flds))  # (floats have no len: the slower path)
            if size > self.max_string:
                raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, self.max_string)
            r = ofs.join(flds)  # all strings: the usual case
        except TypeError:
            if size > self.max_string:
                raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, self.max_string) from None
            to_str = self.to_str
            r = self.check_len(ofs.join(x if x.__class__ is not float else to_str(x) for x in flds))
        self.rec = r
        return r

    def field_index(self, x: float) -> int:
        # gawk converts to a C long: NaN, infinities and values out of its range become LONG_MIN
        i = int(x) if -_LONG_LIMIT <= x < _LONG_LIMIT else -(1 << 63)
        if i < 0:
            raise AwkFatal(f"attempt to access field {i}")
        if i > self.max_fields:
            raise LimitExceeded(LimitKind.MAX_ARRAY_ELEMENTS, self.max_fields)
        return i

    def set_field(self, i: int, v: Value) -> Value:
        if i == 0:
            self.set_record(self.to_str(v), v.__class__ is Input)
            return v
        if i > self.max_fields:
            raise LimitExceeded(LimitKind.MAX_ARRAY_ELEMENTS, self.max_fields)
        flds = self.flds
        if flds is None:
            flds = self.split()
        n = len(flds)
        if i > n:
            flds.extend([""] * (i - n))
        if v.__class__ is str:
            if len(v) > 4096:  # (a field is a copy: `$i = s` for many i held as many copies of s)
                self.check_len(v)  # type: ignore[arg-type]
            v = Plain(v)
        flds[i - 1] = v
        self.rec = None
        self.rec_input = False
        self.rebuild_ofs = self.to_str(self.ns["V_OFS"])  # $0 is rebuilt with OFS as it is now
        return v

    def get_nf(self) -> float:
        f = self.flds
        if f is None:
            f = self.split()
        return float(len(f))

    def set_nf(self, v: Value) -> Value:
        x = v if v.__class__ is float else str2num(v)  # type: ignore[arg-type]
        n = int(x) if -_LONG_LIMIT <= x < _LONG_LIMIT else -1  # (a C long, as field_index)
        if n < 0:
            raise AwkFatal("NF set to negative value")
        if n > self.max_fields:
            raise LimitExceeded(LimitKind.MAX_ARRAY_ELEMENTS, self.max_fields)
        flds = self.flds
        if flds is None:
            flds = self.split()
        if n < len(flds):
            del flds[n:]
        else:
            flds.extend([""] * (n - len(flds)))
        self.rec = None
        self.rec_input = False
        self.rebuild_ofs = self.to_str(self.ns["V_OFS"])
        return float(n)

    # ------------------------------------------------------------ installation

    def install(self) -> None:
        """Put the helpers the generated code calls into its namespace."""
        ns = self.ns
        rt = self
        to_str = self.to_str
        to_out = self.to_out
        empty = _EMPTY_INPUT

        def fs(i: int) -> str:
            f = rt.flds
            if f is None:
                f = rt.flds = rt.cur_split(rt.rec)  # type: ignore[arg-type]  # rec is set while flds is None
            if i <= len(f):
                v = f[i - 1]
                return v if v.__class__ is str else to_str(v)  # type: ignore[no-any-return]
            return ""

        def fo(i: int) -> str:
            f = rt.flds
            if f is None:
                f = rt.flds = rt.cur_split(rt.rec)  # type: ignore[arg-type]  # rec is set while flds is None
            if i <= len(f):
                v = f[i - 1]
                return v if v.__class__ is str else to_out(v)  # type: ignore[no-any-return]
            return ""

        def fv(i: int) -> Value:
            f = rt.flds
            if f is None:
                f = rt.flds = rt.cur_split(rt.rec)  # type: ignore[arg-type]  # rec is set while flds is None
            if i <= len(f):
                v = f[i - 1]
                c = v.__class__
                if c is str:
                    return Input(v)
                if c is Plain:
                    return str(v)
                return v  # type: ignore[no-any-return]
            return empty

        def fn(i: int) -> float:
            f = rt.flds
            if f is None:
                f = rt.flds = rt.cur_split(rt.rec)  # type: ignore[arg-type]  # rec is set while flds is None
            if i <= len(f):
                v = f[i - 1]
                return v if v.__class__ is float else str2num(v)  # type: ignore[no-any-return]
            return 0.0

        def rec() -> str:
            r = rt.rec
            return r if r is not None else rt.rebuild()

        cmpn = self.cmpn

        def r0() -> Value:
            # $0 is a strnum when read; assigned or rebuilt, it is what it was given / a string
            r = rec()
            return Input(r) if rt.rec_input else r

        def vcmpn(v: str, y: float) -> int | float:
            # a field's text as read compared with a number
            x = strnum_value(v)
            if x is not None:
                if x != x or y != y:
                    return _NAN
                return (x > y) - (x < y)
            return cmpn(Input(v), y)

        def fcmpn(i: int, y: float) -> int | float:
            f = rt.flds
            if f is None:
                f = rt.flds = rt.cur_split(rt.rec)  # type: ignore[arg-type]
            v = f[i - 1] if i <= len(f) else ""
            if v.__class__ is str:
                return vcmpn(v, y)
            return cmpn(v if v.__class__ is not Plain else str(v), y)

        cstr = self.cmp_str

        def fcs(i: int) -> str:
            # `$2 == "ERROR"`: the string a comparison sees, what _cstr(_fv(i)) gives
            f = rt.flds
            if f is None:
                f = rt.flds = rt.cur_split(rt.rec)  # type: ignore[arg-type]
            if i <= len(f):
                v = f[i - 1]
                c = v.__class__
                if c is str:
                    return v  # type: ignore[no-any-return]
                return str(v) if c is Plain else cstr(v)
            return ""

        fidx = self.field_index

        def fvd(x: float) -> Value:
            i = fidx(x)
            return fv(i) if i else Input(rec())

        def fsd(x: float) -> str:
            i = fidx(x)
            return fs(i) if i else rec()

        def fnd(x: float | int) -> float:
            i = x if x.__class__ is int else fidx(x)
            return fn(i) if i else str2num(rec())  # type: ignore[arg-type]

        def fod(x: float) -> str:
            i = fidx(x)
            return fo(i) if i else rec()

        # the same reads in _LOOP (gen_loop.py), over its record `r` and its fields `f` (split whole)
        def lfsd(f: list[str], r: str, x: float) -> str:
            i = fidx(x)
            return (f[i - 1] if i <= len(f) else "") if i else r

        def lfvd(f: list[str], r: str, x: float) -> Value:
            i = fidx(x)
            if i:
                return Input(f[i - 1]) if i <= len(f) else empty
            return Input(r)

        def lfnd(f: list[str], r: str, x: float | int) -> float:
            i = x if x.__class__ is int else fidx(x)
            if i:
                return str2num(f[i - 1]) if i <= len(f) else 0.0  # type: ignore[operator]
            return str2num(r)

        def num(v: Value) -> float:
            return v if v.__class__ is float else str2num(v)  # type: ignore[return-value,arg-type]

        def aset(d: dict[str, Value], k: str, v: Value) -> Value:
            d[k] = v
            return v

        def subsep() -> str:
            return to_str(ns["V_SUBSEP"])

        budget_checkpoint = self.ctx.budget.checkpoint
        ticks = 0

        def cp() -> None:
            """Charged by every loop iteration and function call; the budget
            (and, now and then, the size of the arrays) is checked in batches."""
            nonlocal ticks
            ticks += 1
            if ticks >= 256:
                budget_checkpoint(ticks)
                ticks = 0
                rt.cp_rounds += 1
                if rt.cp_rounds >= 64:
                    rt.check_arrays()

        ns.update(
            {
                "U": UNINIT,
                "float": float,
                "len": len,
                "_ONCE": (None,),
                "_num": num,
                "_s2n": str2num,
                "_str": to_str,
                "_n2s": self.n2s,
                "_ostr": to_out,
                "_n2o": self.n2o,
                "_bool": truth,
                "_n2k": self.n2s,
                "_key": self.to_key,
                "_aset": aset,
                "_subsep": subsep,
                "_cmp": self.cmp,
                "_cstr": self.cmp_str,
                "_scmp": self.scmp,
                "_cmpn": cmpn,
                "_fcmpn": fcmpn,
                "_vcmpn": vcmpn,
                "_In": Input,
                "_nullf": empty,
                "_fcs": fcs,
                "_fmod": math.fmod,
                "_dre": self.dynamic_regex,
                "_dmatch": lambda subject, source: self.dynamic_regex(source).test(subject),
                "_icre": self.icase_regex,
                "_mod": B.awk_mod,
                "_div_assign": B.div_assign,
                "_mod_assign": B.mod_assign,
                "_pow": B.awk_pow,
                "_chk": self.check_len,
                "_sapp": self.append_str,
                "_bcat": B.join_bytes,
                "_fn": fn,
                "_fs": fs,
                "_fo": fo,
                "_fv": fv,
                "_fb": lambda i: truth(fv(i)),
                "_fnd": fnd,
                "_fsd": fsd,
                "_fod": fod,
                "_fvd": fvd,
                "_fidx": fidx,
                "_lfsd": lfsd,
                "_lfvd": lfvd,
                "_lfnd": lfnd,
                "_rec": rec,
                "_r0": r0,
                "_nf": self.get_nf,
                "_setnf": self.set_nf,
                "_setmode": self.split_mode_assigned,
                "_setf": self.set_field,
                "_cp": cp,
                "_ikey": B.ikey,
                "_keys": self.keys,
            }
        )
        self.subarrays.install(ns)
        self._install_output()

    def _install_output(self) -> None:
        ns = self.ns
        stdout = self.io.stdout
        write = stdout.write
        parts = stdout.parts
        append = parts.append
        flush = stdout.flush
        to_str = self.to_str

        def ors() -> str:
            o = ns["V_ORS"]
            return o if o.__class__ is not float else to_str(o)  # type: ignore[no-any-return]

        def ofs() -> str:
            o = ns["V_OFS"]
            return o if o.__class__ is not float else to_str(o)  # type: ignore[no-any-return]

        def print1(s: str) -> None:
            # the common `print x` to stdout: buffered without TextOut.write's bookkeeping
            o = ns["V_ORS"]
            append(s + (o if o.__class__ is not float else to_str(o)))
            if len(parts) >= 512 or len(s) > 4096:
                flush()

        rt = self
        to_out = self.to_out

        def pfields(idx: tuple[int, ...]) -> None:
            f = rt.flds
            if f is None:
                f = rt.flds = rt.cur_split(rt.rec)  # type: ignore[arg-type]
            pflist(f, idx)

        def pflist(f: list[Any], idx: tuple[int, ...]) -> None:
            n = len(f)
            out = []
            for i in idx:
                if i <= n:
                    v = f[i - 1]
                    out.append(v if v.__class__ is str else to_out(v))
                else:
                    out.append("")
            r = ns["V_ORS"]
            if len(out) == 1:
                text = out[0]
            else:
                o = ns["V_OFS"]
                text = (o if o.__class__ is not float else to_str(o)).join(out)
            append(text + (r if r.__class__ is not float else to_str(r)))
            if len(parts) >= 512:
                flush()

        def printn(items: tuple[str, ...]) -> None:
            o = ns["V_OFS"]
            r = ns["V_ORS"]
            append(
                (o if o.__class__ is not float else to_str(o)).join(items)
                + (r if r.__class__ is not float else to_str(r))
            )
            if len(parts) >= 512:
                flush()

        def print_to(kind: str, dest: str, items: tuple[str, ...]) -> None:
            self.io.output(kind, dest).write(ofs().join(items) + ors())

        def printf(fmt: str, args: tuple[Value, ...]) -> None:
            write(self.sprintf(fmt, args))

        def printf_to(kind: str, dest: str, fmt: str, args: tuple[Value, ...]) -> None:
            self.io.output(kind, dest).write(self.sprintf(fmt, args))

        sprintf = self.sprintf

        def sfast(plan: FastPlan, args: tuple[Value, ...]) -> str:
            for i in plan[2]:
                x = args[i]
                if x - x != 0.0:  # type: ignore[operator]
                    return sprintf(plan[1], args)  # inf and nan are spelled the gawk way there
            try:
                return plan[0] % args
            except (OverflowError, ValueError, TypeError):
                return sprintf(plan[1], args)

        def pfast(plan: FastPlan, args: tuple[Value, ...]) -> None:
            append(sfast(plan, args))
            if len(parts) >= 512:
                flush()

        ns.update(
            {
                "_pfields": pfields,
                "_pflist": pflist,
                "_print1": print1,
                "_printn": printn,
                "_print_to": print_to,
                "_printf": printf,
                "_printf_to": printf_to,
                "_sprintf": self.sprintf,
                "_pfast": pfast,
                "_sfast": sfast,
            }
        )

    def sprintf(self, fmt: str, args: tuple[Value, ...]) -> str:
        try:
            return self.check_len(format_values(fmt, args, self.convfmt()))
        except FormatError as e:
            raise AwkFatal(f"{e}\n{e.detail()}") from None
        except FormatFatal as e:
            raise AwkFatal(str(e)) from None

    # ------------------------------------------------------------ arrays

    def keys(self, arr: dict[str, Value]) -> list[str]:
        """for-in order: PROCINFO["sorted_in"] when set, else gawk's storage order."""
        how = self.ns["A_PROCINFO"].get("sorted_in")
        if how is None or how == "":
            return gawk_order(list(arr), self.ctx.checkpoint)
        return sorted_keys(arr, self.to_str(how), self)

    def warn(self, message: str) -> None:
        self.io.stdout.flush()
        self.io.stderr.write(f"{self.io.prog}: {message}\n")


def _array_bytes(d: dict[Any, Any]) -> int:
    """Bytes an awk array holds: its entries at the average size of a sample
    of keys and values from both ends (cheap on arrays of millions)."""
    n = len(d)
    if not n:
        return 64
    keys = list(islice(d, 16)) + list(islice(reversed(d), 16))
    each = 0
    for k in keys:
        v = d[k]
        each += (len(k) if isinstance(k, str) else 8) + (len(v) if isinstance(v, str) else 0)
    return 64 + n * (200 + each // len(keys))
