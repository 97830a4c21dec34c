"""Code generation for calls of built-in functions."""

from __future__ import annotations

from . import ast as A
from .codegen import ANY, NUM, STR, ExprGen, _unwrap

_ORDINALS = ("first", "second", "third", "fourth")
_MATH1 = {
    "sin": "_sin",
    "cos": "_cos",
    "exp": "_exp",
    "log": "_log",
    "sqrt": "_sqrt",
    "int": "_int",
    "compl": "_compl",
    "strtonum": "_strtonum",
}


class BuiltinGen(ExprGen):
    def _array_arg(self, e: A.Expr, what: str, pos: int) -> str:
        inner = _unwrap(e)
        if isinstance(inner, A.Index):  # split(s, a[1]): the subarray a[1]
            msg = f"{what}: {_ORDINALS[pos]} argument is not an array"
            return self.array_ref(inner.name, [*inner.path, inner.subs], msg, made_by_arg=True)
        if not isinstance(inner, A.Var):
            raise self.error(f"{what}: argument is not an array", fatal=True)
        return self.array_name(inner.name)

    def _element_value(self, e: A.Expr) -> str | None:
        """For length/isarray of a[...] when elements may be subarrays: the element, either kind."""
        inner = _unwrap(e)
        if not (isinstance(inner, A.Index) and self.sym.nested):
            return None
        arr, key = self.element(inner)
        return f"_aval({arr}, {key})"

    def _opt_array(self, args: list[A.Expr], i: int, what: str) -> str:
        return self._array_arg(args[i], what, i) if len(args) > i else "None"

    def _poly_var(self, e: A.Expr) -> tuple[str, str] | None:
        """For length/isarray/typeof of a bare name: ("array"|"scalar"|"dynamic", code)."""
        inner = _unwrap(e)
        if not isinstance(inner, A.Var) or (inner.name == "NF" and self.key("NF")[0] is None):
            return None
        k = self.key(inner.name)
        kind = self.sym.kind(k)
        if kind == "array":
            return "array", self.pyname(inner.name)
        if k[0] is not None and (kind is None or k in self.sym.element_params):
            return "dynamic", self.pyname(inner.name)  # the caller decides (f(a[k]): maybe a subarray)
        return "scalar", self.pyname(inner.name)

    # ------------------------------------------------------------ strings

    def b_length(self, e: A.Builtin) -> tuple[str, str]:
        if not e.args:
            return "float(len(_rec()))", NUM
        pv = self._poly_var(e.args[0])
        if pv is not None and pv[0] == "array":
            return f"float(len({pv[1]}))", NUM
        if pv is not None and pv[0] == "dynamic":
            return f"_length({pv[1]})", NUM
        el = self._element_value(e.args[0])
        if el is not None:
            return f"_length({el})", NUM
        return f"float(len({self.str_(e.args[0])}))", NUM

    def b_substr(self, e: A.Builtin) -> tuple[str, str]:
        args = [self.str_(e.args[0]), self.num(e.args[1])] + [self.num(a) for a in e.args[2:]]
        return f"_substr({', '.join(args)})", STR

    def b_index(self, e: A.Builtin) -> tuple[str, str]:
        return f"_index({self.str_(e.args[0])}, {self.str_(e.args[1])})", NUM

    def b_tolower(self, e: A.Builtin) -> tuple[str, str]:
        return f"_lower({self.str_(e.args[0])})", STR

    def b_toupper(self, e: A.Builtin) -> tuple[str, str]:
        return f"_upper({self.str_(e.args[0])})", STR

    def b_sprintf(self, e: A.Builtin) -> tuple[str, str]:
        fast = self.fast_format(e.args)
        if fast is not None:
            return f"_sfast({fast[0]}, {fast[1]})", STR
        args = [self.val(a)[0] for a in e.args[1:]]
        tup = "(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"
        return f"_sprintf({self.str_(e.args[0])}, {tup})", STR

    def _split_sep(self, args: list[A.Expr], i: int) -> str:
        if len(args) <= i:
            return "None"
        inner = _unwrap(args[i])
        if isinstance(inner, A.Regex):
            return self.regex(inner.source)
        return self.str_(args[i])

    def b_split(self, e: A.Builtin) -> tuple[str, str]:
        arr = self._array_arg(e.args[1], "split", 1)
        sep = self._split_sep(e.args, 2)
        seps = self._opt_array(e.args, 3, "split")
        return f"_split({self.str_(e.args[0])}, {arr}, {sep}, {seps})", NUM

    def b_patsplit(self, e: A.Builtin) -> tuple[str, str]:
        arr = self._array_arg(e.args[1], "patsplit", 1)
        pat = self.regex_arg(e.args[2]) if len(e.args) > 2 else "None"
        seps = self._opt_array(e.args, 3, "patsplit")
        return f"_patsplit({self.str_(e.args[0])}, {arr}, {pat}, {seps})", NUM

    def _subst(self, e: A.Builtin, is_global: bool) -> tuple[str, str]:
        target = e.args[2] if len(e.args) > 2 else A.Field(A.Num(0.0))
        rx = self.regex_arg(e.args[0])
        repl = self.str_(e.args[1])
        load = self.str_(target)
        t = self.temp()
        inner = _unwrap(target)
        call = f"({t} := _subst({rx}, {repl}, {load}, {is_global}))"
        if isinstance(inner, (A.Var, A.Index, A.Field)):
            store = self.store(inner, f"{t}[1]")
            return f"({call}, ({store} if {t}[0] else None), float({t}[0]))[2]", NUM
        return f"float({call}[0])", NUM

    def b_sub(self, e: A.Builtin) -> tuple[str, str]:
        return self._subst(e, False)

    def b_gsub(self, e: A.Builtin) -> tuple[str, str]:
        return self._subst(e, True)

    def b_gensub(self, e: A.Builtin) -> tuple[str, str]:
        target = self.str_(e.args[3]) if len(e.args) > 3 else "_rec()"
        return (
            f"_gensub({self.regex_arg(e.args[0])}, {self.str_(e.args[1])}, {self.val(e.args[2])[0]}, "
            f"{target})",
            STR,
        )

    def b_match(self, e: A.Builtin) -> tuple[str, str]:
        arr = self._opt_array(e.args, 2, "match")
        return f"_match({self.str_(e.args[0])}, {self.regex_arg(e.args[1])}, {arr})", NUM

    # ------------------------------------------------------------ numbers

    def _math1(self, e: A.Builtin) -> tuple[str, str]:
        return f"{_MATH1[e.name]}({self.num(e.args[0])})", NUM

    b_sin = b_cos = b_exp = b_log = b_sqrt = b_int = b_compl = _math1

    def b_strtonum(self, e: A.Builtin) -> tuple[str, str]:
        return f"_strtonum({self.val(e.args[0])[0]})", NUM

    def b_atan2(self, e: A.Builtin) -> tuple[str, str]:
        return f"_atan2({self.num(e.args[0])}, {self.num(e.args[1])})", NUM

    def b_rand(self, e: A.Builtin) -> tuple[str, str]:
        return "_rand()", NUM

    def b_srand(self, e: A.Builtin) -> tuple[str, str]:
        return (f"_srand({self.num(e.args[0])})" if e.args else "_srand()"), NUM

    def _bits(self, e: A.Builtin) -> tuple[str, str]:
        args = ", ".join(self.num(a) for a in e.args)
        return f"_bits({self.string(e.name)}, ({args},))", NUM

    b_and = b_or = b_xor = b_lshift = b_rshift = _bits

    # ------------------------------------------------------------ i/o and system

    def b_system(self, e: A.Builtin) -> tuple[str, str]:
        if getattr(self, "sandbox", False):
            raise self.error("'system' function not allowed in sandbox mode", fatal=True)
        return f"_system({self.str_(e.args[0])})", NUM

    def b_close(self, e: A.Builtin) -> tuple[str, str]:
        how = f", {self.str_(e.args[1])}" if len(e.args) > 1 else ""
        return f"_close({self.str_(e.args[0])}{how})", NUM

    def b_fflush(self, e: A.Builtin) -> tuple[str, str]:
        return (f"_fflush({self.str_(e.args[0])})" if e.args else "_fflush(None)"), NUM

    # ------------------------------------------------------------ arrays and types

    def _sort(self, e: A.Builtin) -> tuple[str, str]:
        src = self._array_arg(e.args[0], e.name, 0)
        dest = self._opt_array(e.args, 1, e.name)
        how = self.str_(e.args[2]) if len(e.args) > 2 else "None"
        return f"_asort({src}, {dest}, {how}, {e.name == 'asorti'})", NUM

    b_asort = b_asorti = _sort

    def b_isarray(self, e: A.Builtin) -> tuple[str, str]:
        el = self._element_value(e.args[0])
        if el is not None:
            return f"_isarray({el})", NUM
        pv = self._poly_var(e.args[0])
        if pv is None or pv[0] == "scalar":
            if pv is None:
                self.val(e.args[0])
            return "0.0", NUM
        if pv[0] == "array":
            return "1.0", NUM
        return f"_isarray({pv[1]})", NUM

    def b_typeof(self, e: A.Builtin) -> tuple[str, str]:
        pv = self._poly_var(e.args[0])
        if pv is not None:
            if pv[0] == "array":
                return self.string("array"), STR
            return f"_typeof({pv[1]})", STR
        inner = _unwrap(e.args[0])
        if isinstance(inner, A.Index):
            arr, key = self.element(inner)
            return f"_typeof_el({arr}, {key})", STR
        return f"_typeof({self.val(e.args[0])[0]})", STR

    # ------------------------------------------------------------ time

    def b_systime(self, e: A.Builtin) -> tuple[str, str]:
        return "_systime()", NUM

    def b_strftime(self, e: A.Builtin) -> tuple[str, str]:
        args = [self.str_(e.args[0])] if e.args else []
        args += [self.num(a) for a in e.args[1:3]]
        return f"_strftime({', '.join(args)})", STR

    def b_mktime(self, e: A.Builtin) -> tuple[str, str]:
        args = [self.str_(e.args[0])] + [self.num(a) for a in e.args[1:]]
        return f"_mktime({', '.join(args)})", NUM


__all__ = ["ANY", "BuiltinGen"]
