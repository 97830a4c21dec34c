"""Compile awk statements, rules and functions to Python source.

The generated module defines `F_<name>` for each awk function and `_BEGIN`,
`_MAIN` (all main rules, called once per record), `_END`, `_BEGINFILE`,
`_ENDFILE`. In `_MAIN`, `next` is a plain `return`; elsewhere control that
crosses Python frames (`next` in a function, `exit`) raises. Loops charge
the budget every iteration, functions every call.
"""

from __future__ import annotations

from collections.abc import Callable

from . import ast as A
from . import gen_loop
from .analyze import Symbols
from .codegen import _SCALAR_IN, _const_field, _unwrap, pure
from .gen_builtins import BuiltinGen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass


@dataclass
class Generated:
    source: str
    linemap: list[int]  # awk location of each generated line (1-based index - 1)
    values: dict[str, object]  # pooled constants
    has_main: bool
    has_end: bool
    moves_input: bool
    kinds: set[str]  # which rule kinds exist


class StmtGen(BuiltinGen):
    def __init__(self, program: A.Program, symbols: Symbols, icase: bool, sandbox: bool = False) -> None:
        super().__init__(program, symbols, icase)
        self.sandbox = sandbox
        self.lines: list[str] = []
        self.linemap: list[int] = []
        self.depth = 0
        self.where = ""  # BEGIN main END BEGINFILE ENDFILE function
        self.stack: list[str] = []  # "loop", or the flag variable of an enclosing switch
        self.continued: set[str] = set()  # switches a `continue` leaves
        self.in_loop = False  # generating _LOOP's body (gen_loop.py)
        self.loop_ok = False  # and nothing in it needs the per-record path

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)
        self.linemap.append(self.loc)

    def py_function(self, header: str, body: Callable[[], None], prologue: list[str] | None = None) -> None:
        saved = (self.lines, self.linemap, self.globals, self.depth)
        self.lines, self.linemap, self.globals, self.depth = [], [], set(), 1
        for line in prologue or ():
            self.emit(line)
        body()
        self.emit("return U" if self.where == "function" else "pass")
        lines, linemap, globs = self.lines, self.linemap, self.globals
        self.lines, self.linemap, self.globals, self.depth = saved
        self.emit(header)
        if globs:
            self.depth = 1
            self.emit("global " + ", ".join(sorted(globs)))
            self.depth = 0
        self.lines.extend(lines)
        self.linemap.extend(linemap)

    # ------------------------------------------------------------ program

    def generate(self) -> Generated:
        prog = self.program
        for fn in prog.functions.values():
            self.function(fn)
        kinds = {r.kind for r in prog.rules}
        for kind in ("BEGIN", "END", "BEGINFILE", "ENDFILE"):
            rules = [r for r in prog.rules if r.kind == kind]
            if rules:
                self.where = kind
                self.py_function(f"def _{kind}():", lambda rs=rules: self.rules_body(rs))  # type: ignore[misc]
        main = [r for r in prog.rules if r.kind == "main"]
        if main:
            self.where = "main"
            self.py_function("def _MAIN():", lambda: self.main_body(main))
            self.loop_function(main)
        return Generated(
            "\n".join(self.lines) + "\n",
            self.linemap,
            self.values,
            bool(main),
            "END" in kinds,
            self.moves_input,
            kinds,
        )

    def loop_function(self, main: list[A.Rule]) -> None:
        """`_LOOP` (gen_loop.py) when the main rules allow it; `_MAIN` stays for the other paths."""
        start = len(self.lines)
        self.in_loop, self.loop_ok = True, True

        def body() -> None:
            self.globals.update(("V_NR", "V_FNR"))
            for line in ("_r = None", "_f = None", "try:", "    for _r in _it:", "        if _cnt:"):
                self.emit(line)
            for name in ("V_NR", "V_FNR"):
                self.emit(
                    f"            {name} = ({name} if {name}.__class__ is float else _num({name})) + 1.0"
                )
            self.emit("        _f = None")
            self.depth += 2
            self.main_body(main)
            self.depth -= 2
            for line in ("finally:", "    if _r is not None:", "        _rt.set_record(_r)"):
                self.emit(line)

        try:
            self.py_function(gen_loop.HEADER, body)
        finally:
            self.in_loop = False
        done = gen_loop.rewrite(self.lines[start:], self.values) if self.loop_ok else None
        if done is None:
            del self.lines[start:], self.linemap[start:]
            return
        self.lines[start:] = done[0]
        self.values["_LOOPK"] = done[1]

    def rules_body(self, rules: list[A.Rule]) -> None:
        for r in rules:
            self.loc = r.line
            if r.body is not None:
                self.block(r.body)

    def main_body(self, rules: list[A.Rule]) -> None:
        ranges = 0
        for r in rules:
            self.loc = r.line
            if r.pattern2 is not None:
                flag = f"_RNG[{ranges}]"
                ranges += 1
                hit = self.temp()
                self.emit(f"{hit} = False")
                self.emit(f"if {flag}:")
                self.depth += 1
                self.emit(f"{hit} = True")
                self.emit(f"if {self.cond(r.pattern2)}: {flag} = False")
                self.depth -= 1
                self.emit(f"elif {self.cond(r.pattern) if r.pattern is not None else 'True'}:")
                self.depth += 1
                self.emit(f"{hit} = True")
                self.emit(f"if not {self.cond(r.pattern2)}: {flag} = True")
                self.depth -= 1
                self.emit(f"if {hit}:")
            elif r.pattern is not None:
                self.emit(f"if {self.cond(r.pattern)}:")
            else:
                self.emit("if True:")
            self.depth += 1
            if r.body is None:
                self.emit("_print1(_rec())")
            else:
                self.block(r.body)
                self.emit("pass")
            self.depth -= 1
        self.values["_NRANGES"] = ranges

    def function(self, fn: A.Function) -> None:
        self.fn = fn
        self.where = "function"
        self.loc = fn.line
        params = []
        prologue = ["_cp()"]
        for p in fn.params:
            if self.sym.is_array((fn.name, p)):
                params.append(f"L_{p}=None")
                # a local array: named for messages, tracked by the memory check
                prologue.append(f"if L_{p} is None: L_{p} = _newarr({self.string(p)})")
            else:
                params.append(f"L_{p}=U")
        self.pyname(fn.name)  # validates the identifier
        self.py_function(f"def F_{fn.name}({', '.join(params)}):", lambda: self.block(fn.body), prologue)
        self.fn = None

    # ------------------------------------------------------------ statements

    def block(self, b: A.Stmt) -> None:
        if isinstance(b, A.Block):
            for s in b.stmts:
                self.stmt(s)
        else:
            self.stmt(b)

    def body(self, s: A.Stmt) -> None:
        """An indented body (never empty)."""
        self.depth += 1
        n = len(self.lines)
        self.block(s)
        if len(self.lines) == n:
            self.emit("pass")
        self.depth -= 1

    def stmt(self, s: A.Stmt) -> None:
        line = getattr(s, "line", 0)
        if line:
            self.loc = line
        getattr(self, "s_" + type(s).__name__)(s)

    def s_Block(self, s: A.Block) -> None:
        self.block(s)

    def s_ExprStmt(self, s: A.ExprStmt) -> None:
        e = _unwrap(s.expr)
        if isinstance(e, A.Assign) and e.op == "=":
            target = _unwrap(e.target)
            appended = self.append_in_place(e)
            if appended is not None and isinstance(target, A.Var):
                self.emit(f"{self.pyname(target.name)} = {appended}")
                return
            value, _ = self.checked(e.value)
            if isinstance(target, A.Var) and not self.hooked(target.name):
                py = self.scalar_name(target.name, store=True)
                checked = self.scalar_read(target.name, py)
                if checked != py:  # a parameter bound to a subarray cannot be assigned a scalar
                    self.emit(checked)
                self.emit(f"{py} = {value}")
                return
            if isinstance(target, A.Index) and not self.sym.nested:
                arr, key = self.element(target)
                t = self.temp()
                self.emit(f"{t} = {value}")
                self.emit(f"{arr}[{key}] = {t}")
                return
        if (
            isinstance(e, (A.Assign, A.IncDec))
            and isinstance(_unwrap(e.target), A.Index)
            and not self.sym.nested
        ):
            target = _unwrap(e.target)
            assert isinstance(target, A.Index)
            arr = self.array_name(target.name)
            rhs: A.Expr | str = "1.0"
            if isinstance(e, A.Assign):
                rhs = e.value
                if not (pure(e.value) and all(pure(x) for x in target.subs)):
                    # the right side first, then the subscript, as gawk does
                    r = self.temp()
                    self.emit(f"{r} = {self.num(e.value)}")
                    rhs = r
            t = self.temp()
            self.emit(f"{t} = {self.subscript(target.subs)}")
            v = self.temp()
            load = f"({v} if ({v} := {arr}.get({t}, 0.0)).__class__ is float else _num({v}))"
            if isinstance(e, A.IncDec):
                value = f"({load} {'+' if e.op == '++' else '-'} 1.0)"
            else:
                value = self.arith(e.op[0], load, rhs, assign=True)
            self.emit(f"{arr}[{t}] = {value}")
            return
        if isinstance(e, A.IncDec) and isinstance(_unwrap(e.target), A.Var):
            target = _unwrap(e.target)
            assert isinstance(target, A.Var)
            if not self.hooked(target.name):
                py = self.scalar_name(target.name, store=True)
                load = f"({py} if {py}.__class__ is float else _num({self.scalar_read(target.name, py)}))"
                self.emit(f"{py} = {load} {'+' if e.op == '++' else '-'} 1.0")
                return
        self.emit(self.val(e)[0])

    def s_Print(self, s: A.Print) -> None:
        if s.redirect is not None and self.sandbox:
            raise self.error("redirection not allowed in sandbox mode", fatal=True)
        if s.printf:
            fast = self.fast_format(s.args) if s.redirect is None else None
            if fast is not None:
                self.emit(f"_pfast({fast[0]}, {fast[1]})")
                return
            fmt = self.str_(s.args[0])
            rest = [self.val(a)[0] for a in s.args[1:]]
            tup = "(" + ", ".join(rest) + ("," if len(rest) == 1 else "") + ")"
            if s.redirect is None:
                self.emit(f"_printf({fmt}, {tup})")
            else:
                dest = self.str_(s.dest) if s.dest is not None else "''"
                self.emit(f"_printf_to({self.string(s.redirect)}, {dest}, {fmt}, {tup})")
            return
        if not s.args:
            texts = ["_rec()"]
        else:
            texts = [self.out(a) for a in s.args]
        if s.redirect is None and s.args:
            fields = [
                _const_field(a.index) if isinstance(a, A.Field) else None
                for a in (_unwrap(x) for x in s.args)
            ]
            if all(fields):
                # `print $3`, `print $1, $2`: the commonest awk programs, one call each
                self.emit(f"_pfields({tuple(fields)!r})")
                return
        if s.redirect is None:
            if len(texts) == 1:
                self.emit(f"_print1({texts[0]})")
            else:
                self.emit(f"_printn(({', '.join(texts)}))")
            return
        dest = self.str_(s.dest) if s.dest is not None else "''"
        self.emit(f"_print_to({self.string(s.redirect)}, {dest}, ({', '.join(texts)},))")

    def s_If(self, s: A.If) -> None:
        self.emit(f"if {self.cond(s.test)}:")
        self.body(s.yes)
        no = s.no
        # else-if ladders become elif, so long ladders do not nest (Python allows ~100 levels)
        while isinstance(no, A.If):
            self.emit(f"elif {self.cond(no.test)}:")
            self.body(no.yes)
            no = no.no
        if no is not None:
            self.emit("else:")
            self.body(no)

    def loop_body(self, body: A.Stmt) -> None:
        self.stack.append("loop")
        self.depth += 1
        self.emit("_cp()")
        self.block(body)
        self.depth -= 1
        self.stack.pop()

    def s_While(self, s: A.While) -> None:
        self.emit(f"while {self.cond(s.test)}:")
        self.loop_body(s.body)

    def s_DoWhile(self, s: A.DoWhile) -> None:
        first = self.temp()
        self.emit(f"{first} = True")
        self.emit(f"while {first} or {self.cond(s.test)}:")
        self.depth += 1
        self.emit(f"{first} = False")
        self.depth -= 1
        self.loop_body(s.body)

    def s_For(self, s: A.For) -> None:
        if s.init is not None:
            self.stmt(s.init)
        test = self.cond(s.test) if s.test is not None else "True"
        if s.step is None or not _has_continue(s.body):
            self.emit(f"while {test}:")
            self.loop_body(s.body)
            if s.step is not None:
                self.depth += 1
                self.stmt(s.step)
                self.depth -= 1
            return
        started = self.temp()
        self.emit(f"{started} = False")
        self.emit("while True:")
        self.depth += 1
        self.emit(f"if {started}:")
        self.body(s.step)
        self.emit(f"{started} = True")
        self.emit(f"if not {test}: break")
        self.depth -= 1
        self.loop_body(s.body)

    def s_ForIn(self, s: A.ForIn) -> None:
        arr = self.array_ref(s.array, s.path, _SCALAR_IN)
        k = self.temp()
        self.emit(f"for {k} in _keys({arr}):")
        self.depth += 1
        self.emit(self.store(s.var, f"_ikey({k})"))
        self.depth -= 1
        self.loop_body(s.body)

    def s_Switch(self, s: A.Switch) -> None:
        subject = self.temp()
        start = self.temp()
        cont = self.temp()
        self.emit(f"{subject} = {self.val(s.subject)[0]}")
        self.emit(f"{cont} = False")
        default = len(s.cases)
        first = True
        for i, (label, _) in enumerate(s.cases):
            if label is None:
                default = i
                continue
            self.emit(f"{'if' if first else 'elif'} {self.case_test(subject, label)}: {start} = {i}")
            first = False
        if first:
            self.emit(f"{start} = {default}")
        else:
            self.emit(f"else: {start} = {default}")
        self.emit("for _ in _ONCE:")
        self.stack.append(cont)
        self.depth += 1
        for i, (_, body) in enumerate(s.cases):
            self.emit(f"if {start} <= {i}:")
            self.body(A.Block(body))
        self.emit("pass")
        self.depth -= 1
        self.stack.pop()
        if cont in self.continued:
            self.emit(f"if {cont}:")
            self.depth += 1
            self.gen_continue()
            self.depth -= 1

    def case_test(self, subject: str, label: A.Expr) -> str:
        if isinstance(label, A.Regex):
            return f"{self.regex(label.source)}.test(_str({subject}))"
        if isinstance(label, A.Num):
            return f"(_cmp({subject}, {self.number(label.value)}) == 0)"
        assert isinstance(label, A.Str)
        return f"(_str({subject}) == {self.string(label.value)})"

    def gen_continue(self) -> None:
        if self.stack and self.stack[-1] != "loop":
            self.continued.add(self.stack[-1])
            self.emit(f"{self.stack[-1]} = True")
            self.emit("break")
        else:
            self.emit("continue")

    def s_Simple(self, s: A.Simple) -> None:
        if s.kind == "break":
            self.emit("break")
        elif s.kind == "continue":
            self.gen_continue()
        elif s.kind == "next":
            if self.in_loop:
                self.loop_ok = self.loop_ok and not self.stack  # (in a loop or switch: the per-record path)
                self.emit("continue")
            else:
                self.emit("return" if self.where == "main" else "raise _Next()")
        else:  # nextfile
            if self.where == "BEGINFILE":
                self.emit("raise _SkipFile()")
            else:
                self.moves_input = True
                self.emit("_nextfile()")
                self.emit("return" if self.where == "main" else "raise _Next()")

    def s_Exit(self, s: A.Exit) -> None:
        self.emit(f"raise _Exit({self.num(s.value) if s.value is not None else 'None'})")

    def s_Return(self, s: A.Return) -> None:
        self.emit(f"return {self.checked(s.value)[0]}" if s.value is not None else "return U")

    def s_Delete(self, s: A.Delete) -> None:
        arr = self.array_name(s.name)
        if s.path:
            # `delete a[1][2]` makes no subarray: nothing to delete when a[1] is missing
            for group in s.path:
                arr = f"_subq({arr}, {self.subscript(group)}, {self.string(s.name)})"
            t = self.temp()
            self.emit(f"{t} = {arr}")
            self.emit(f"if {t} is not None:")
            self.depth += 1
            arr = t
        if s.subs is None:
            self.emit(f"{arr}.clear()")
        else:
            self.emit(f"{arr}.pop({self.subscript(s.subs)}, None)")
        if s.path:
            self.depth -= 1


def _has_continue(s: A.Stmt) -> bool:
    """Whether s holds a `continue` for the loop it is the body of."""
    if isinstance(s, A.Simple):
        return s.kind == "continue"
    if isinstance(s, A.Block):
        return any(_has_continue(x) for x in s.stmts)
    if isinstance(s, A.If):
        return _has_continue(s.yes) or (s.no is not None and _has_continue(s.no))
    if isinstance(s, A.Switch):
        return any(_has_continue(x) for _, body in s.cases for x in body)
    return False


def generate(program: A.Program, symbols: Symbols, icase: bool, sandbox: bool = False) -> Generated:
    return StmtGen(program, symbols, icase, sandbox).generate()
