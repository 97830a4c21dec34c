"""Arithmetic compiled to one Python function per expression (the hot tier of expand/arith.py).

The closures of arith._compile cost one Python call per node; an expression evaluated often
(a loop's body) is generated instead as the source of one function, compiled once and cached
with its text. The function behaves exactly as the closures do (values, wrap-around, order of
evaluation and side effects, errors): what is not plain (array elements, attributes, namerefs,
values that are expressions, special variables) goes through the same helpers the closures use.

The source is made only from the parsed tree: every name, subscript and number of the script is
a constant in the function's namespace (`c0`, `c1`, ...), never text in the source; what the
source spells itself is our own (operators, temporaries, error offsets). The expression's text is
a constant too: the function names it in its errors itself, so a caller need not set the
evaluator's text around a call (Evaluator.text is for the closures: arith._texted). Trees larger than
MAX_NODES or nested deeper than MAX_DEPTH are not generated (they keep their closures).
"""

from __future__ import annotations

from functools import partial

from ..shvars.vars import NAMEREF, SPECIAL_ASSIGN
from ..syntax.ast import AAssign, ABinary, AComma, AIncDec, ANum, Arith, ATernary, AUnary, AVar
from ..textcache import function_of
from .arithnoeval import skipped
from .arithops import GEN_FILE, INTS, INTS_MAX, Slot, incdec, ipow, read_name, trunc_divmod, wrap
from .arithops import MAX as _MAX
from .arithops import MIN as _MIN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .arith import Evaluator, Fn

MAX_NODES = 200
MAX_DEPTH = 48  # nodes from the root down (Python's tokenizer allows 100 levels of indentation)

# what every generated function may use, by the names its source spells
_HELPERS: dict[str, object] = {
    "_wrap": wrap,
    "_divmod": trunc_divmod,
    "_ipow": ipow,
    "_rd": read_name,
    "_incdec": incdec,
    "_ints": INTS,
}
_COMPARE = {"<", ">", "<=", ">=", "==", "!="}
_BITWISE = {"&", "|", "^"}
# the digits test a plain variable's value passes to be read with int() (Evaluator.value_of's test,
# and a length below 19 so the value needs no wrapping)
_PLAIN = 'r.isdigit() and r.isascii() and (len(r) == 1 or r[0] != "0" and len(r) < 19)'


def _plain_sub(sub: str | Slot) -> bool:
    """A subscript the owner's `element` takes (Evaluator.element): text with nothing to expand
    (eval_index evaluates it as it is), not empty and not a plain number (once() gives those as
    they are)."""
    return (
        type(sub) is str
        and sub.strip() != ""
        and not sub.isdigit()
        and not any(c in sub for c in "$`\"'\\")
        and len(sub) <= 4096
    )


def fits(node: Arith | Slot) -> bool:
    """Whether the tree is small and shallow enough to generate (walked without recursion)."""
    stack: list[tuple[Arith | Slot, int]] = [(node, 1)]
    count = 0
    while stack:
        cur, depth = stack.pop()
        count += 1
        if count > MAX_NODES or depth > MAX_DEPTH:
            return False
        if isinstance(cur, ABinary):
            stack += [(cur.left, depth + 1), (cur.right, depth + 1)]
        elif isinstance(cur, AUnary):
            stack.append((cur.operand, depth + 1))
        elif isinstance(cur, ATernary):
            stack += [(cur.cond, depth + 1), (cur.then, depth + 1), (cur.other, depth + 1)]
        elif isinstance(cur, AAssign):
            stack.append((cur.value, depth + 1))
        elif isinstance(cur, AComma):
            stack += [(item, depth + 1) for item in cur.items]
    return True


class _Gen:
    """Source lines of one function; `expr` returns the name holding a node's value."""

    def __init__(self, text: str, prefix: str = "c", scope: str = "t") -> None:
        self.prefix = prefix  # (of the constants' names: two texts' statements in one function)
        self.scope = scope  # (the local holding the innermost scope: statements' `scope`)
        self.lines: list[str] = []
        self.consts: dict[str, object] = {}
        self._const_names: dict[tuple[type, object], str] = {}
        self.text = self.const(text)  # (what its errors name: Evaluator.error)
        self.ntmp = 0
        self.scoped = False  # a plain variable is read or written: the prologue binds `t`

    def const(self, value: object) -> str:
        key = (type(value), value)
        name = self._const_names.get(key)
        if name is None:
            name = self._const_names[key] = f"{self.prefix}{len(self.consts)}"
            self.consts[name] = value
        return name

    def known(self, name: str) -> int | None:
        """The number `name` holds when it is a constant (a number of the script), else None."""
        value = self.consts.get(name)
        return value if type(value) is int else None

    def sub(self, sub: str | Slot | None) -> str:
        """The source of a subscript's text: a constant, or a template's slot (arith._slotted_sub:
        `m[$k]`), whose number as text is the subscript the text would have had."""
        if isinstance(sub, Slot):
            return f"str(ev.slots[{int(sub.index)}])"
        return self.const(sub)

    def tmp(self) -> str:
        self.ntmp += 1
        return f"x{self.ntmp}"

    def emit(self, ind: int, line: str) -> None:
        self.lines.append("    " * ind + line)

    def expr(self, node: Arith | Slot, ind: int) -> str:
        if isinstance(node, Slot):
            x = self.tmp()  # a template's Slot (arith.template_of): the number given for it
            self.emit(ind, f"{x} = ev.slots[{int(node.index)}]")
            return x
        if isinstance(node, ANum):
            value = node.value if _MIN <= node.value <= _MAX else wrap(node.value)
            return self.const(value)
        if isinstance(node, AVar):
            return self.read(node, ind)
        if isinstance(node, ABinary):
            if node.op in ("&&", "||"):
                return self.logical(node, ind)
            return self.binary(node, ind)
        if isinstance(node, AUnary):
            return self.unary(node, ind)
        if isinstance(node, ATernary):
            return self.ternary(node, ind)
        if isinstance(node, AAssign):
            return self.assign(node, ind)
        if isinstance(node, AIncDec):
            return self.incdec(node, ind)
        result = "0"
        for item in node.items:
            result = self.expr(item, ind)
        return result

    def read(self, node: AVar, ind: int) -> str:
        x = self.tmp()
        name = self.const(node.name)
        if node.sub is not None:
            if _plain_sub(node.sub) and node.name not in SPECIAL_ASSIGN:
                # (its subscript evaluated once by the owner's `element`, as a read evaluates it:
                # an indexed array's element read here, anything else through ev.get; a special
                # name, RANDOM's looked up once, reads through ev.get)
                return self.element(name, node.sub, ind)[2]
            self.emit(ind, f"{x} = ev.get({name}, {self.sub(node.sub)})")
            return x
        self.scoped = True
        # a plain string variable, found by read_name's walk done here (the innermost scope, then
        # outward: a function's read of a global pays no call), read here (a number arithmetic
        # stored, from INTS; other text as Evaluator.value_of reads it); anything else (not
        # found, a nameref, an array) through read_name, which walks again
        test = f"v is not None and not v.attrs & {NAMEREF} and type(r := v.value) is str"

        def body(ind: int) -> None:
            self.emit(ind, f"{x} = _ints.get(r)")
            self.emit(ind, f"if {x} is None:")
            self.plain_or_value(x, ind + 1, False)

        # (first: the value is a number arithmetic stored, INTS's key, a str; a nameref's value is
        # a name, never one, but its test stays. After it, `test` holding means INTS lacks the
        # value: not asked again)
        hit = f"v is not None and ({x} := _ints.get(v.value)) is not None and not v.attrs & {NAMEREF}"
        missed = partial(self.plain_or_value, x, maybe_none=False)
        self.found(name, test, body, f"{x} = _rd({name}, ev)", ind, (hit, None), missed)
        return x

    def found(
        self,
        cname: str,
        test: str,
        body: Callable[[int], None],
        slow: str,
        ind: int,
        hit: tuple[str, Callable[[int], None] | None] | None = None,
        missed: Callable[[int], None] | None = None,
    ) -> None:
        """`body` for the variable `cname` names when `test` holds for it (`v`), else `slow`. The
        variable is the innermost binding (the walk of read_name and Evaluator.set): the innermost
        scope `t` first, then ev.scopes outward, walked only when `t` has no binding (so a variable
        of the innermost scope costs one look-up). An evaluator without the shell's scopes has
        arith.NO_SCOPES, which binds nothing: every such variable is `slow`'s. `hit`: a cheaper
        test of the innermost binding, for the common case (a value INTS holds: a number
        arithmetic stored), and what it runs instead of `body` (None: the test did it all); tested
        first, `test` and `body` then take the rest (`missed`: `body` for the innermost binding
        once `hit` failed, what it need not test again)."""
        self.emit(ind, f"v = {self.scope}.get({cname})")
        if hit is not None:
            self.emit(ind, f"if {hit[0]}:")
            if hit[1] is None:
                self.emit(ind + 1, "pass")
            else:
                hit[1](ind + 1)
            self.emit(ind, f"elif {test}:")
        else:
            self.emit(ind, f"if {test}:")
        (missed or body)(ind + 1)
        self.emit(ind, "else:")
        self.emit(ind + 1, "if v is None:")
        # (a name no scope above the globals binds is a global: VarStore.local_names)
        self.emit(ind + 2, f"if {cname} in ev.names:")
        self.emit(ind + 3, "s = ev.scopes")
        self.emit(ind + 3, "i = len(s) - 2")
        self.emit(ind + 3, "while v is None and i >= 0:")
        self.emit(ind + 4, f"v = s[i].get({cname})")
        self.emit(ind + 4, "i -= 1")
        self.emit(ind + 2, "else:")
        self.emit(ind + 3, f"v = ev.scopes[0].get({cname})")
        self.emit(ind + 2, f"if {test}:")
        body(ind + 3)
        self.emit(ind + 2, "else:")
        self.emit(ind + 3, slow)
        self.emit(ind + 1, "else:")
        self.emit(ind + 2, slow)

    def store(self, name: str, sub: str | None, value: str, ind: int, slow: str | None = None) -> None:
        """Assign `value` (a name holding an int) as Evaluator.set does. `slow`: the statement for
        a variable that is not an existing plain string one (else Evaluator.set)."""
        cname, csub = self.const(name), self.sub(sub)
        if slow is None:
            slow = f"ev.set({cname}, {csub}, {value})"
        if sub is not None and _plain_sub(sub):
            # (the owner's element store, the value computed: `(( h[i] = v ))`; else ev.set)
            hook = self.tmp()
            self.emit(ind, f"if ({hook} := ev.assign) is None or not {hook}({cname}, {csub}, {value}):")
            self.emit(ind + 1, slow)
            return
        if sub is not None or name in SPECIAL_ASSIGN:
            self.emit(ind, slow)
            return
        self.scoped = True
        # Evaluator.set's own fast path: an existing plain string variable (its walk), stored here
        # (a variable found means the shell's scopes, which come with its options: Evaluator)
        test = 'v is not None and type(v.value) is str and ((a := v.attrs) == 1 or a == 0 and not ev.opts["allexport"])'

        def body(ind: int) -> None:
            # (a text of another size in bytes is charged to max_memory before it is stored, as
            # Evaluator.set does)
            self.emit(ind, f"r = str({value})")
            self.emit(ind, "if len(r) != len(q := v.value) or not q.isascii():")
            self.emit(ind + 1, f"ev.resized({cname}, len(r) - (len(q) if q.isascii() else 4 * len(q)))")
            self.emit(ind, "v.value = r")
            self.remember(value, ind)

        def stored(ind: int) -> None:
            # (the old text is INTS's: ASCII)
            self.emit(ind, f"r = str({value})")
            self.emit(ind, "if len(r) != len(q):")
            self.emit(ind + 1, f"ev.resized({cname}, len(r) - len(q))")
            self.emit(ind, "v.value = r")
            self.remember(value, ind)

        hit = 'v is not None and (q := v.value) in _ints and ((a := v.attrs) == 1 or a == 0 and not ev.opts["allexport"])'
        self.found(cname, test, body, slow, ind, (hit, stored))

    def remember(self, value: str, ind: int) -> None:
        """arithops.remember, inline: `r` is str(value), just stored."""
        self.emit(ind, f"if len(_ints) >= {INTS_MAX}:")
        self.emit(ind + 1, "_ints.clear()")
        self.emit(ind, f"_ints[r] = {value}")

    def assign(self, node: AAssign, ind: int) -> str:
        target = node.target
        if node.op == "=":
            value = self.expr(node.value, ind)
            self.store(target.name, target.sub, value, ind)
            return value
        name = self.const(target.name)
        sub = "None"
        pair = ""
        if target.sub is None:
            cur = self.read(target, ind)
        elif _plain_sub(target.sub):
            pair, sub, cur = self.element(name, target.sub, ind)
        else:
            sub = self.tmp()  # the subscript is evaluated once (`a[i++] += 2`)
            self.emit(ind, f"{sub} = ev.once({name}, {self.sub(target.sub)})")
            cur = self.tmp()
            self.emit(ind, f"{cur} = ev.get({name}, {sub})")
        value = self.expr(node.value, ind)
        # (as binary_value computes it, an error at the assignment's operator)
        x = self.op(node.op[:-1], cur, value, int(node.pos), ind)
        if target.sub is None:
            self.store(target.name, None, x, ind)
        elif pair:
            self.emit(ind, f"if type({pair}) is tuple:")
            self.emit(ind + 1, f"ev.put({name}, {sub}, {x})")
            self.emit(ind, "else:")
            self.emit(ind + 1, f"ev.set({name}, {sub}, {x})")
        else:
            self.emit(ind, f"ev.set({name}, {sub}, {x})")
        return x

    def element(self, name: str, text: str, ind: int) -> tuple[str, str, str]:
        """The subscript of `name[sub] OP= value` evaluated once (as Evaluator.once) by the owner's
        `element`, which gives an indexed array and the index: the element is read from the array
        here as arith_get reads it (and stored by `put`); else once()'s text, read by ev.get (and
        stored by ev.set). The pair's, the subscript's and the value's names."""
        csub = self.const(text)
        pair, hook, sub, cur = self.tmp(), self.tmp(), self.tmp(), self.tmp()
        self.emit(ind, f"if ({hook} := ev.element) is None:")
        self.emit(ind + 1, f"{pair} = ev.once({name}, {csub})")
        self.emit(ind, "else:")
        self.emit(ind + 1, f"{pair} = {hook}({name}, {csub})")
        self.emit(ind, f"if type({pair}) is tuple:")
        self.emit(ind + 1, f"{sub} = {pair}[1]")
        self.emit(ind + 1, f"r = {pair}[0].get({sub})")
        self.emit(ind + 1, f"{cur} = _ints.get(r)")
        self.emit(ind + 1, f"if {cur} is None:")
        self.plain_or_value(cur, ind + 2)
        self.emit(ind, "else:")
        self.emit(ind + 1, f"{sub} = {pair}")
        self.emit(ind + 1, f"{cur} = ev.get({name}, {sub})")
        return pair, sub, cur

    def plain_or_value(self, x: str, ind: int, maybe_none: bool = True) -> None:
        """`x` = the number the text `r` (or None, when `maybe_none`) holds, not in INTS: a value
        an assignment stored (`c=$((...))`, `a[k]=$((...))`) is text arithmetic has not seen, and
        a plain decimal is value_of's first case, read here; anything else through value_of."""
        self.emit(ind, f"if {'r is not None and ' if maybe_none else ''}{_PLAIN}:")
        self.emit(ind + 1, f"{x} = int(r)")
        self.emit(ind, "else:")
        self.emit(ind + 1, f"{x} = ev.value_of(r)")

    def incdec(self, node: AIncDec, ind: int) -> str:
        target = node.target
        x = self.tmp()
        name, sub = self.const(target.name), self.sub(target.sub)
        delta = 1 if node.op == "++" else -1
        slow = f"{x} = _incdec({name}, {sub}, {delta}, {node.prefix}, ev)"
        if target.sub is not None and _plain_sub(target.sub):
            # arithops.incdec's order: the owner's bump first (it takes a plain key or index
            # and declines anything else before evaluating it), then the subscript once
            bump = self.tmp()
            self.emit(
                ind,
                f"if ({bump} := ev.bump) is not None and ({x} := {bump}({name}, {sub}, {delta})) is not None:",
            )
            if node.prefix:
                self.emit(ind + 1, f"{x} += {delta}")
                self.wrap_if_over(x, ind + 1, delta > 0, delta < 0)
            else:
                self.emit(ind + 1, "pass  # (the old value)")
            self.emit(ind, "else:")
            pair, index, old = self.element(name, target.sub, ind + 1)
            new = self.tmp()
            self.emit(ind + 1, f"{new} = {old} + {delta}")
            self.wrap_if_over(new, ind + 1, delta > 0, delta < 0)
            self.emit(ind + 1, f"if type({pair}) is tuple:")
            self.emit(ind + 2, f"ev.put({name}, {index}, {new})")
            self.emit(ind + 1, "else:")
            self.emit(ind + 2, f"ev.set({name}, {index}, {new})")
            self.emit(ind + 1, f"{x} = {new if node.prefix else old}")
            return x
        if target.sub is not None or target.name in SPECIAL_ASSIGN:
            self.emit(ind, slow)
            return x
        self.scoped = True
        # read and stored here when both Evaluator.get's and Evaluator.set's fast paths apply: the
        # variable holds a number arithmetic stored (INTS) or a plain decimal
        old = self.tmp()
        new = x if node.prefix else self.tmp()
        test = (
            'v is not None and ((a := v.attrs) == 0 and not ev.opts["allexport"] or a == 1)'
            f" and type(r := v.value) is str and ((o1 := _ints.get(r)) is not None or {_PLAIN})"
        )

        def body(ind: int, known: bool = False) -> None:
            self.emit(ind, f"{old} = o1" if known else f"{old} = int(r) if o1 is None else o1")
            self.emit(ind, f"{new} = {old} + {delta}")
            self.wrap_if_over(new, ind, delta > 0, delta < 0)
            # (a text of another length is charged to max_memory before it is stored, as store()
            # does: 9 -> 10, -1 -> 0; the old text is a plain decimal or one arithmetic stored,
            # ASCII either way)
            self.emit(ind, f"q = str({new})")
            self.emit(ind, "if len(q) != len(r):")
            self.emit(ind + 1, f"ev.resized({name}, len(q) - len(r))")
            self.emit(ind, "v.value = r = q")
            self.remember(new, ind)
            if not node.prefix:
                self.emit(ind, f"{x} = {old}")

        # (the one variable Evaluator.get and .set would find; first, one that holds a number
        # arithmetic stored)
        hit = (
            "v is not None and (o1 := _ints.get(r := v.value)) is not None"
            ' and ((a := v.attrs) == 0 and not ev.opts["allexport"] or a == 1)'
        )
        self.found(name, test, body, slow, ind, (hit, partial(body, known=True)))
        return x

    def wrap_if_over(self, x: str, ind: int, over: bool = True, under: bool = True) -> None:
        """Wrap `x` into 64 bits when it may have left them: `over` above the top, `under` below
        the bottom (a sum with a number of known sign can leave on one side only)."""
        tests = ([f"{x} > {_MAX}"] if over else []) + ([f"{x} < {_MIN}"] if under else [])
        self.emit(ind, f"if {' or '.join(tests)}:")
        self.emit(ind + 1, f"{x} = _wrap({x})")

    def add(self, x: str, a: str, op: str, b: str, ind: int) -> None:
        """`x = a + b` or `a - b`, wrapped (both within 64 bits: a number of known sign added or
        subtracted moves the sum one way only)."""
        self.emit(ind, f"{x} = {a} {op} {b}")
        known = self.known(b)
        if known is None:
            self.wrap_if_over(x, ind)
        elif known != 0:
            up = (known > 0) == (op == "+")
            self.wrap_if_over(x, ind, up, not up)

    def binary(self, node: ABinary, ind: int) -> str:
        a = self.expr(node.left, ind)
        b = self.expr(node.right, ind)
        return self.op(node.op, a, b, int(node.pos), ind)

    def op(self, op: str, a: str, b: str, pos: int, ind: int) -> str:
        """The name holding `a OP b` (an error at `pos` of the text)."""
        x = self.tmp()
        known = self.known(b)  # (a constant right side: its tests are made here, once)
        if op in ("+", "-"):
            self.add(x, a, op, b, ind)
        elif op == "*":
            self.emit(ind, f"{x} = {a} * {b}")
            self.wrap_if_over(x, ind)
        elif op in ("/", "%"):
            if known is None or known == 0:
                self.emit(ind, f"if {b} == 0:")
                self.emit(ind + 1, f'raise ev.error("division by 0", {pos}, {self.text})')
            pyop = "//" if op == "/" else "%"
            if known is None or known > 0:
                self.emit(ind, f"if {a} >= 0{'' if known else f' and {b} > 0'}:")
                self.emit(ind + 1, f"{x} = {a} {pyop} {b}")
                self.emit(ind, "else:")
                self.emit(ind + 1, f"{x} = _divmod({a}, {b}, {op == '/'})")
            else:
                self.emit(ind, f"{x} = _divmod({a}, {b}, {op == '/'})")
        elif op == "**":
            if known is None or known < 0:
                self.emit(ind, f"if {b} < 0:")
                self.emit(ind + 1, f'raise ev.error("exponent less than 0", {pos}, {self.text})')
            self.emit(ind, f"{x} = _ipow({a}, {b})")
        elif op in ("<<", ">>"):
            shift = f"({b} & 63)" if known is None else self.const(known & 63)
            self.emit(ind, f"{x} = {a} {op} {shift}")
            if op == "<<":
                self.wrap_if_over(x, ind)
        elif op in _BITWISE:
            self.emit(ind, f"{x} = {a} {op} {b}")
        elif op in _COMPARE:
            self.emit(ind, f"{x} = 1 if {a} {op} {b} else 0")
        else:
            raise ValueError(f"no such arithmetic operator: {op!r}")  # (the parser makes none)
        return x

    def logical(self, node: ABinary, ind: int) -> str:
        """`&&` and `||`: the right side runs only when the left does not decide (skipped as
        bash skips it: arithnoeval)."""
        a = self.expr(node.left, ind)
        x = self.tmp()
        neg = "" if node.op == "&&" else "not "
        self.emit(ind, f"{x} = {0 if node.op == '&&' else 1}")
        self.emit(ind, f"if {neg}{a}:")
        b = self.expr(node.right, ind + 1)
        self.emit(ind + 1, f"if {neg}{b}:")
        self.emit(ind + 2, f"{x} = {1 if node.op == '&&' else 0}")
        self.skip(node.right, ind)
        return x

    def skip(self, node: Arith | Slot, ind: int) -> None:
        """An `else:` that skips `node` as bash does (arithnoeval.skipped), when that can fail."""
        check = skipped(node)
        if check is not None:
            self.emit(ind, "else:")
            self.emit(ind + 1, f"{self.const(check)}(ev, {self.text})")

    def unary(self, node: AUnary, ind: int) -> str:
        a = self.expr(node.operand, ind)
        if node.op == "+":
            return a
        x = self.tmp()
        if node.op == "-":
            self.emit(ind, f"{x} = -{a}")
            self.wrap_if_over(x, ind, under=False)  # (only the lowest number's negation is over)
        elif node.op == "!":
            self.emit(ind, f"{x} = 0 if {a} else 1")
        else:
            self.emit(ind, f"{x} = ~{a}")  # (never outside the range)
        return x

    def ternary(self, node: ATernary, ind: int) -> str:
        cond = self.expr(node.cond, ind)
        x = self.tmp()
        # (the branch not taken skipped as bash skips it, after the taken one: arithnoeval)
        skip_then, skip_other = skipped(node.then), skipped(node.other)
        self.emit(ind, f"if {cond}:")
        self.emit(ind + 1, f"{x} = {self.expr(node.then, ind + 1)}")
        if skip_other is not None:
            self.emit(ind + 1, f"{self.const(skip_other)}(ev, {self.text})")
        self.emit(ind, "else:")
        if skip_then is not None:
            self.emit(ind + 1, f"{self.const(skip_then)}(ev, {self.text})")
        self.emit(ind + 1, f"{x} = {self.expr(node.other, ind + 1)}")
        return x

    def source(self, result: str) -> str:
        head = ["def _arith(ev):"]
        if self.scoped:
            head.append("    t = ev.scopes[-1]")
        return "\n".join([*head, *self.lines, f"    return {result}", ""])


def generate(node: Arith | Slot, text: str) -> Fn | None:
    """One Python function evaluating `node`, parsed from `text`, as arith._compile's closures do,
    or None when the tree is too large or too deep to generate."""
    if not fits(node):
        return None
    gen = _Gen(text)
    return _function(gen, gen.expr(node, 1))  # type: ignore[return-value]


def statements(
    node: Arith, text: str, ind: int, prefix: str = "c", scope: str | None = None
) -> tuple[list[str], str, dict[str, object]] | None:
    """`node`, parsed from `text`, as statements to write into a function of another's (the hot
    `(( ))` command of interp/arithcmd.py) at indentation level `ind`, with the shared evaluator
    in `ev`: the lines, the expression that is the value after them, and the namespace they need
    (helpers and the constants; nothing of the script is source text); None when the tree is too
    large or deep. The lines bind `t`, `v`, `r`, `q`, `a`, `o1`, `s`, `i` and `x1`... as locals, and
    name their constants `prefix` and a number (another prefix for another text in one function).
    `scope`: the name of a local the caller has bound to ev.scopes[-1] (a generated loop binds it
    once a run: see loopgen's SCOPE), read instead of binding `t` here."""
    if not fits(node):
        return None
    gen = _Gen(text, prefix, scope or "t")
    result = gen.expr(node, ind)
    head = ["    " * ind + "t = ev.scopes[-1]"] if gen.scoped and scope is None else []
    return head + gen.lines, result, {**_HELPERS, **gen.consts}


def generate_assign(node: Arith, name: str, text: str) -> Callable[[Evaluator], int | None] | None:
    """`name=$(( node ))` (an assignment, not arithmetic's `=`) as one Python function: `node`
    evaluated as generate's function does, then its text stored as arithmetic stores it when
    `name` is an existing plain string variable (None returned); else the value is returned for
    the assignment to store its own way (a new variable, attributes, a reference: set_var). None:
    too large or deep to generate, or a special name."""
    if not fits(node) or name in SPECIAL_ASSIGN:
        return None
    gen = _Gen(text)
    result = gen.expr(node, 1)
    gen.store(name, None, result, 1, f"return {result}")
    return _function(gen, "None")


def _function(gen: _Gen, result: str) -> Callable[[Evaluator], int | None]:
    namespace: dict[str, object] = {**_HELPERS, **gen.consts}
    # the source spells only our own names and operators; the script's names, subscripts and
    # numbers are the constants in `namespace` (see the module's docstring)
    return function_of(gen.source(result), GEN_FILE, "_arith", namespace)
