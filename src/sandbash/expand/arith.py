"""Evaluation of parsed arithmetic with bash's 64-bit wrap-around and errors."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence, Set
from types import MappingProxyType

from ..shvars.vars import EXPORT, SPECIAL_ASSIGN
from ..syntax.arith import ArithSyntaxError, parse_arith, parse_number
from ..syntax.ast import AAssign, ABinary, AComma, AIncDec, ANum, Arith, ATernary, AUnary, AVar
from ..textcache import TextCache
from .arithnoeval import shapes as noeval_shapes
from .arithnoeval import skipped
from .arithops import GEN_FILE, Slot, binary_value, incdec, ipow, read_name, remember, trunc_divmod, wrap
from .arithops import MAX as _MAX
from .arithops import MIN as _MIN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType
    from typing import Protocol

    from ..shvars.arrays import IndexedArray
    from ..shvars.vars import Var
    from .arithnoeval import Check, Shapes
else:
    Protocol = object  # the protocols are the type checker's: a plain base at run time (typing is ~2 ms of a start-up)

MAX_RECURSION = 1024
GEN_LONGEST = 512  # longer texts keep their closures (what a generated function holds grows with it)


# the code of the functions in which the `let` builtin evaluates its expressions (interp/fastbuiltins
# adds them): bash names `let` before an element store it refuses while they run (its
# this_command_name), not before one in the $(( )) of let's words, which are expanded before
LET_CODES: set[CodeType] = set()


def under_let() -> bool:
    """Whether the `let` builtin's evaluation is on the stack (a refused store's report: the error
    path asks, so let's hot path stores nothing per call). Arithmetic runs no command, so any
    frame of LET_CODES above this one is the evaluation that is storing."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code in LET_CODES:
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


class ArithError(Exception):
    """An arithmetic error: `text` is the expression, `token` the error token."""

    # a syntax error's: what bash evaluates before it meets it (syntax.arith's module doc)
    before: Arith | None = None

    def __init__(self, message: str, text: str, token: str) -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        self.token = token

    def render(self) -> str:
        return f'{self.text}: {self.message} (error token is "{self.token}")'


class ArithVars(Protocol):
    def arith_get(self, name: str, sub: str | None) -> str | None: ...
    def arith_set(self, name: str, sub: str | None, value: int) -> None: ...


# what arithmetic skips between tokens (bash's expr.c: a \r, \f or \v is an invalid operator)
_BLANKS = " \t\n"


def parse_or_raise(text: str, tick: Callable[[], None] | None = None, keys_as_is: bool = False) -> Arith:
    try:
        return parse_arith(text, tick, keys_as_is)
    except ArithSyntaxError as e:
        shown = text.lstrip(_BLANKS)
        offset = len(text) - len(shown)
        if e.token is not None:
            # bash ends the text at the bad number (readtok NUL-terminates the token it converts)
            err = ArithError(e.message, text[offset : e.pos + len(e.token)], e.token)
        else:
            err = ArithError(e.message, shown, text[max(e.pos, offset) :])
        err.before = e.before
        raise err from None


Fn = Callable[["Evaluator"], int]


_NO_NAMES: frozenset[str] = frozenset()
# the scopes of an evaluator without the shell's (a nested or standalone one): one scope that binds
# nothing, so a walk of them (read_name, Evaluator.set, arithgen's functions) finds no variable and
# every read and store goes through `vars`, with no test for "no scopes" on the shell's hot path
NO_SCOPES: Sequence[Mapping[str, Var]] = (MappingProxyType({}),)


class Evaluator:
    """Runs compiled arithmetic; variable values are themselves expressions,
    evaluated recursively as bash does."""

    __slots__ = (
        "vars",
        "text",
        "depth",
        "scopes",
        "opts",
        "slots",
        "names",
        "bump",
        "resized",
        "element",
        "put",
        "assign",
    )

    def __init__(self, vars: ArithVars, text: str) -> None:
        self.vars = vars
        self.text = text
        self.depth = 0
        # the values of a template's slots while one runs (Slot reads them; see Template): numbers,
        # and text for a slot that is a whole subscript (arithwords.template_fn)
        self.slots: tuple[int | str, ...] = ()
        # the shell's variable scopes and `set -o` options, when the owner
        # lets plain string variables be read and written here directly (set together: a variable
        # found in `scopes` implies `opts`); else NO_SCOPES and None
        self.scopes: Sequence[Mapping[str, Var]] = NO_SCOPES
        self.opts: dict[str, bool] | None = None
        # with scopes: their VarStore.local_names (a name not in it is a global or unset)
        self.names: Set[str] = _NO_NAMES
        # with scopes: the owner's `a[k]++` in one lookup (old value; None: not taken, see incdec)
        self.bump: Callable[[str, str, int], int | None] | None = None
        # with scopes: the owner's charge (to max_memory) of a plain variable's text about to be
        # replaced by one of another size in bytes (the stores here and in generated functions)
        self.resized: Callable[[str, int], None] | None = None
        # with scopes: the owner's once() of an element's subscript with nothing to expand
        # (`h[i%10] += 1`), giving an indexed array and the index as a pair (read from the array,
        # stored through `put`), or once()'s text for anything else (then get and set); and its
        # store of an element by that index (see arithgen's assign)
        self.element: Callable[[str, str], tuple[IndexedArray, int] | str | None] | None = None
        self.put: Callable[[str, int, int], None] | None = None
        # with scopes: the owner's `a[k] = value` for such a subscript, the value computed first
        # (True: stored, or refused and reported; False: nothing evaluated, then set)
        self.assign: Callable[[str, str, int], bool] | None = None

    def error(self, message: str, pos: int, text: str | None = None) -> ArithError:
        """The error at `pos` (< 0: none) of the expression `text` (a generated function names its
        own; else the one running, `self.text`), as bash shows it: the text from its first
        non-blank, the token from the error on."""
        if text is None:
            text = self.text
        return ArithError(message, text.lstrip(_BLANKS), text[pos:] if pos >= 0 else "")

    def binding(self, name: str) -> Var | None:
        """The innermost binding of `name` in `scopes` (VarStore.find's walk; None in NO_SCOPES)."""
        scopes = self.scopes
        var = scopes[-1].get(name)
        if var is None:
            if name not in self.names:  # (no scope above the globals binds it: VarStore.local_names)
                return scopes[0].get(name)
            i = len(scopes) - 2
            while var is None and i >= 0:
                var = scopes[i].get(name)
                i -= 1
        return var

    def value_of(self, raw: str | None) -> int:
        if not raw:
            return 0
        if raw.isdigit() and raw.isascii() and (raw[0] != "0" or len(raw) == 1):
            v = int(raw)
            return v if v <= _MAX else wrap(v)
        s = raw.strip(_BLANKS)
        if not s:
            return 0
        if s[0] == "-" and s[1:].isdigit() and s.isascii() and (len(s) == 2 or s[1] != "0"):
            return wrap(int(s))
        self.depth += 1
        if self.depth > MAX_RECURSION:
            raise ArithError("expression recursion level exceeded", s, s)
        # a value that is an expression itself: a0=1 a1='a0+a0' ... a40='a39+a39' makes 2**40
        # evaluations of short texts, no command among them, so the run's clock is asked here
        tick = getattr(self.vars, "arith_tick", None)
        if tick is not None:
            tick()
        fn = compiled(raw)  # (which sets the text its errors name itself)
        try:
            return fn(self)
        finally:
            self.depth -= 1

    def once(self, name: str, sub: str | None) -> str | None:
        """A subscript that a read-modify-write evaluates once (`a[RANDOM%6]++`)."""
        if sub is None or sub.isdigit():
            return sub
        resolve = getattr(self.vars, "arith_index", None)
        return resolve(name, sub) if resolve is not None else sub

    def get(self, name: str, sub: str | None = None) -> int:
        return self.value_of(self.vars.arith_get(name, sub))

    def set(self, name: str, sub: str | None, value: int) -> int:
        if sub is None and self.opts is not None:
            # an existing plain string variable: what set_var's fast path does
            var = self.binding(name)
            if (
                var is not None
                and type(old := var.value) is str
                and name not in SPECIAL_ASSIGN
                and (var.attrs == EXPORT or (var.attrs == 0 and not self.opts["allexport"]))
            ):
                text = str(value)
                if (len(text) != len(old) or not old.isascii()) and self.resized is not None:
                    self.resized(name, len(text) - (len(old) if old.isascii() else 4 * len(old)))
                var.value = text
                remember(text, value)
                return value
        self.vars.arith_set(name, sub, value)
        return value

    def eval(self, node: Arith) -> int:
        return _compile(node)(self)


def _cmp(op: str, left: Fn, right: Fn) -> Fn:
    if op == "<":
        return lambda ev: 1 if left(ev) < right(ev) else 0
    if op == ">":
        return lambda ev: 1 if left(ev) > right(ev) else 0
    if op == "<=":
        return lambda ev: 1 if left(ev) <= right(ev) else 0
    if op == ">=":
        return lambda ev: 1 if left(ev) >= right(ev) else 0
    if op == "==":
        return lambda ev: 1 if left(ev) == right(ev) else 0
    return lambda ev: 1 if left(ev) != right(ev) else 0


def _arith_op(op: str, left: Fn, right: Fn, pos: int) -> Fn:
    if op == "+":

        def add(ev: Evaluator) -> int:
            v = left(ev) + right(ev)
            return v if _MIN <= v <= _MAX else wrap(v)

        return add
    if op == "-":

        def sub(ev: Evaluator) -> int:
            v = left(ev) - right(ev)
            return v if _MIN <= v <= _MAX else wrap(v)

        return sub
    if op == "*":

        def mul(ev: Evaluator) -> int:
            v = left(ev) * right(ev)
            return v if _MIN <= v <= _MAX else wrap(v)

        return mul
    if op in ("/", "%"):
        is_div = op == "/"

        def div(ev: Evaluator) -> int:
            a = left(ev)
            b = right(ev)
            if b == 0:
                raise ev.error("division by 0", pos)
            return trunc_divmod(a, b, is_div)

        return div
    if op == "**":

        def power(ev: Evaluator) -> int:
            a = left(ev)
            b = right(ev)
            if b < 0:
                raise ev.error("exponent less than 0", pos)
            return ipow(a, b)

        return power
    if op == "<<":
        return lambda ev: wrap(left(ev) << (right(ev) & 63))
    if op == ">>":
        return lambda ev: left(ev) >> (right(ev) & 63)
    if op == "&":
        return lambda ev: left(ev) & right(ev)
    if op == "|":
        return lambda ev: left(ev) | right(ev)
    if op == "^":
        return lambda ev: left(ev) ^ right(ev)
    return _cmp(op, left, right)


def _compile(node: Arith | Slot, shapes: Shapes | None = None) -> Fn:
    """`node` as closures; `shapes`: arithnoeval.shapes of a tree above it, made at the first
    operand that can be skipped (None before: each tree walked once)."""
    if isinstance(node, Slot):
        index = node.index
        # (an operand's slot is always a number: text is given only to a whole subscript's slot)
        return lambda ev: ev.slots[index]  # type: ignore[return-value]
    if isinstance(node, ANum):
        value = node.value if _MIN <= node.value <= _MAX else wrap(node.value)
        return lambda ev: value
    if isinstance(node, AVar):
        name, vsub = node.name, node.sub
        if vsub is None:
            # (a Python closure, not a partial: a value that is itself an expression recurses through
            # here, and Python 3.12 counts a C-level call such as a partial's against its C stack
            # limit of 1500, which a chain of 1,024 levels would pass before MAX_RECURSION)

            def var(ev: Evaluator) -> int:
                return read_name(name, ev)

            return var
        if isinstance(vsub, Slot):  # `m[$k]` of a template: the subscript is the slot's number
            sindex = vsub.index
            return lambda ev: ev.value_of(ev.vars.arith_get(name, str(ev.slots[sindex])))
        return lambda ev: ev.value_of(ev.vars.arith_get(name, vsub))
    if isinstance(node, ABinary):
        if node.op not in ("&&", "||") and _chain_length(node) > 32:
            return _compile_chain(node)
        op = node.op
        if shapes is None and (op == "&&" or op == "||"):
            shapes = noeval_shapes(node)
        left = _compile(node.left, shapes)
        right = _compile(node.right, shapes)
        if op == "&&" or op == "||":
            return _logical(op == "&&", left, right, skipped(node.right, shapes))  # type: ignore[arg-type]
        return _arith_op(op, left, right, node.pos)
    if isinstance(node, AUnary):
        operand = _compile(node.operand, shapes)
        uop = node.op
        if uop == "-":
            return lambda ev: wrap(-operand(ev))
        if uop == "+":
            return operand
        if uop == "!":
            return lambda ev: 0 if operand(ev) else 1
        return lambda ev: wrap(~operand(ev))
    if isinstance(node, AAssign):
        target = node.target
        tname, tsub = target.name, target.sub
        value_fn = _compile(node.value, shapes)
        if isinstance(tsub, Slot):  # `m[$k] += 2` of a template: the subscript is the slot's number
            aindex = tsub.index
            if node.op == "=":
                return lambda ev: ev.set(tname, str(ev.slots[aindex]), value_fn(ev))
            sop, spos = node.op[:-1], node.pos

            def slot_compound(ev: Evaluator) -> int:
                sub = str(ev.slots[aindex])
                cur = ev.get(tname, sub)
                return ev.set(tname, sub, binary_value(sop, cur, value_fn(ev), ev, spos))

            return slot_compound
        if node.op == "=":
            return lambda ev: ev.set(tname, tsub, value_fn(ev))
        bop = node.op[:-1]
        value_pos = node.pos

        def compound(ev: Evaluator) -> int:
            sub = ev.once(tname, tsub)
            cur = ev.get(tname, sub)
            return ev.set(tname, sub, binary_value(bop, cur, value_fn(ev), ev, value_pos))

        return compound
    if isinstance(node, AIncDec):
        iname, isub = node.target.name, node.target.sub
        delta, prefix = (1 if node.op == "++" else -1), node.prefix
        if isinstance(isub, Slot):  # `m[$k]++` of a template: the subscript is the slot's number
            iindex = isub.index

            def slot_step(ev: Evaluator) -> int:
                return incdec(iname, str(ev.slots[iindex]), delta, prefix, ev)

            return slot_step

        def step(ev: Evaluator) -> int:  # (a closure, not a partial: see `var` above)
            return incdec(iname, isub, delta, prefix, ev)

        return step
    if isinstance(node, ATernary):
        if shapes is None:
            shapes = noeval_shapes(node)
        cond, then, other = (
            _compile(node.cond, shapes),
            _compile(node.then, shapes),
            _compile(node.other, shapes),
        )
        skip_then, skip_other = skipped(node.then, shapes), skipped(node.other, shapes)
        if skip_then is None and skip_other is None:
            return lambda ev: then(ev) if cond(ev) else other(ev)

        def ternary(ev: Evaluator) -> int:
            # (the branch not taken fails as bash's `noeval` reading of it does: arithnoeval)
            if cond(ev):
                value = then(ev)
                if skip_other is not None:
                    skip_other(ev, None)
                return value
            if skip_then is not None:
                skip_then(ev, None)
            return other(ev)

        return ternary
    items = [_compile(item, shapes) for item in node.items]

    def comma(ev: Evaluator) -> int:
        result = 0
        for fn in items:
            result = fn(ev)
        return result

    return comma


def _logical(conj: bool, left: Fn, right: Fn, skip: Check | None) -> Fn:
    """`a && b` (`conj`) or `a || b`; `skip` is what skipping `b` must do (arithnoeval)."""
    if skip is None:
        if conj:
            return lambda ev: 1 if left(ev) and right(ev) else 0
        return lambda ev: 1 if left(ev) or right(ev) else 0

    def logical(ev: Evaluator) -> int:
        if (left(ev) != 0) == conj:
            return 1 if right(ev) else 0
        skip(ev, None)
        return 0 if conj else 1

    return logical


def _chain_length(node: ABinary) -> int:
    n = 0
    cur: Arith = node
    while isinstance(cur, ABinary) and cur.op not in ("&&", "||") and n <= 32:
        n += 1
        cur = cur.left
    return n


def _compile_chain(node: ABinary) -> Fn:
    """A left-leaning run of binary operators (`1+2+3+...`) compiled as a loop,
    so a 10,000-term sum needs no deep recursion."""
    steps: list[tuple[str, Fn, int]] = []
    cur: Arith = node
    while isinstance(cur, ABinary) and cur.op not in ("&&", "||"):
        steps.append((cur.op, _compile(cur.right), cur.pos))
        cur = cur.left
    steps.reverse()
    first = _compile(cur)

    def chain(ev: Evaluator) -> int:
        v = first(ev)
        for op, right, pos in steps:
            b = right(ev)
            v = binary_value(op, v, b, ev, pos)
        return v

    return chain


# shared by every run of the process: bounded in entries and text, nothing from a long text (T-TEN-5)
class _FnCache(TextCache[str, Fn]):
    """The TextCache with `lookup`: its dict's own get (no Python frame on the hot path), and
    `generated`: the characters of text behind its generated functions (GEN_CHARS at most)."""

    __slots__ = ("lookup", "generated")

    def __init__(self) -> None:
        super().__init__()
        self.lookup = self._data.get
        self.generated = 0

    def put(self, key: str, text: str, value: Fn) -> None:
        data = self._data
        super().put(key, text, value)
        if self._data is not data:  # (put starts a fresh dict when the bounds are reached)
            self.lookup = self._data.get
            self.generated = 0

    def clear(self) -> None:
        self._data = {}
        self._held = 0
        self.lookup = self._data.get
        self.generated = 0


_COMPILED = _FnCache()
# evaluations of one text before it gets its generated function (arithgen): generating one costs
# 0.15-2 ms (compile()) and saves 0.2-3 us an evaluation, so it pays after some hundreds of them
HOT_CALLS = 256
# the text behind the generated functions the cache may hold: one takes about twice the memory of
# its closures (100-160 bytes a character), and the cache's own bound is for closures
GEN_CHARS = 1 << 15  # (about 5 MB)


def compiled(text: str, tick: Callable[[], None] | None = None, keys_as_is: bool = False) -> Fn:
    """The compiled form of arithmetic text (parsed once, cached by text; not with `keys_as_is`:
    parse_arith)."""
    fn = None if keys_as_is else _COMPILED.get(text)
    if fn is None:
        try:
            node = parse_or_raise(text, tick, keys_as_is)
        except ArithError as e:
            if e.before is None:
                raise
            fn = _texted(text, _failing(_compile(e.before), e))
        else:
            fn = _compile(node)
            fn = _tiered(text, node, fn) if len(text) <= GEN_LONGEST else _texted(text, fn)
        if not keys_as_is:
            _COMPILED.put(text, text, fn)
    return fn


def _texted(text: str, fn: Fn) -> Fn:
    """`fn`, closures of `text`, run with the evaluator's text set to `text` (what their errors
    show) and put back after: a function of the cache needs no caller to set it."""

    def texted(ev: Evaluator) -> int:
        outer = ev.text
        ev.text = text
        try:
            return fn(ev)
        finally:
            ev.text = outer

    return texted


def _failing(before: Fn, err: ArithError) -> Fn:
    """Text with a syntax error, as bash runs it: what comes before the error, then the error
    (`(( x=5, 1+ ))` assigns x; `x='1+'; (( x 2 ))` reports x's error, met first)."""
    message, text, token = err.message, err.text, err.token

    def failing(ev: Evaluator) -> int:
        before(ev)
        raise ArithError(message, text, token)

    return failing


def _tiered(text: str, node: Arith, cold: Fn) -> Fn:
    """`cold` (the closures, run with the evaluator's text set as _texted does) until the text has
    run HOT_CALLS times, then its generated function (which names `text` in its errors itself and
    needs no evaluator's text), which also replaces this one in the cache (a holder of this one is
    forwarded to it)."""
    calls = 0
    hot: Fn | None = None
    texted = _texted(text, cold)

    def tiered(ev: Evaluator) -> int:
        nonlocal calls, hot
        if hot is not None:
            return hot(ev)
        calls += 1
        if calls < HOT_CALLS:
            return texted(ev)
        if _COMPILED.generated + len(text) > GEN_CHARS:
            # no room now: ask again after another HOT_CALLS (the budget is back when the cache
            # starts over), never settling on the closures for good
            calls = 0
            return texted(ev)
        from .arithgen import generate  # (not at start-up: most runs never need it)

        gen = generate(node, text)
        hot = gen or texted
        if _COMPILED.get(text) is tiered:  # (no longer this wrapper's: a holder of it forwards)
            _COMPILED.put(text, text, hot)
            if gen is not None:
                _COMPILED.generated += len(text)
        return hot(ev)

    return tiered


def generated_of(text: str) -> Fn | None:
    """The generated function (arithgen) the cache holds for `text`, else None (not yet generated,
    not generatable, not cached). A holder of a literal text may keep it and call it with the shared
    evaluator: it evaluates that text for good, whatever the cache holds later (Compiler.arith_cmd)."""
    fn = _COMPILED.lookup(text)
    code = getattr(fn, "__code__", None)
    return fn if code is not None and code.co_filename == GEN_FILE else None


def assign_generated(text: str, name: str) -> Callable[[Evaluator], int | None] | None:
    """`name=$(( text ))` generated as one function (arithgen.generate_assign), when the text
    parses, is not too long and the generated functions' budget (GEN_CHARS) has room; else None.
    For a caller that has evaluated it HOT_CALLS times its usual way (Shell.arith_assign_fn)."""
    if len(text) > GEN_LONGEST or _COMPILED.generated + len(text) > GEN_CHARS:
        return None
    try:
        node = parse_or_raise(text)
    except ArithError:
        return None
    from .arithgen import generate_assign

    fn = generate_assign(node, name, text)
    if fn is not None:
        _COMPILED.generated += len(text)
    return fn


class ArithAssign:
    """`name=$(( text ))` of a compiled assignment (Shell.arith_assign_fn): `cold()` evaluates the
    text the usual way and gives the value to store; `hot`, once made (assign_generated), evaluates
    and stores it itself (None when it stored). The holder calls `hot` with the shell's shared
    evaluator directly (steps.py's arith Step) while that evaluator is not in use (`depth` 0: else
    arith_eval's fresh one) and max_string_length leaves room for a number's text (MAX_DIGITS);
    else `cold()`."""

    __slots__ = ("hot", "cold")

    def __init__(self) -> None:
        self.hot: Callable[[Evaluator], int | None] | None = None
        self.cold: Callable[[], int | None]


class Template:
    """Arithmetic text with slots where its expansions were (`_sbSlot0_ % 3`), compiled once:
    `fn` runs it with Evaluator.slots holding the slots' numbers and `text` set to the template.
    `fn` is its closures until it has run HOT_CALLS times, then its generated function (holders
    read `fn` at each use, so the hot one is called without a wrapper)."""

    __slots__ = ("fn", "text", "calls", "tree")

    def __init__(self, fn: Fn, text: str, tree: Arith | Slot) -> None:
        self.fn = fn
        self.text = text
        self.calls = 0
        self.tree = tree  # (its slotted tree: a generated loop writes its statements in)

    def generated(self) -> bool:
        """Whether `fn` is its generated function now (arithgen: it has run HOT_CALLS times)."""
        code = getattr(self.fn, "__code__", None)
        return code is not None and code.co_filename == GEN_FILE


def generated_now(text: str | Template) -> bool:
    """Whether a literal text (generated_of) or a template (Template.generated) has its generated
    function now: what generated code waiting for one asks (Compiler.cold, loopgen.renewal)."""
    if type(text) is Template:
        return text.generated()
    return generated_of(text) is not None  # type: ignore[arg-type]


def template_of(text: str, names: tuple[str, ...]) -> Template | None:
    """The compiled template `text`, its variables named `names` read as slots 0, 1, ... (raises
    ArithError as the text would), or None when it is not one a template may be: too large or
    deep to rewrite, or a slot's name is a target of an assignment or `++` (then the text is
    evaluated each time, as before)."""
    from .arithgen import fits  # (not at start-up: most runs have no template)

    node = parse_or_raise(text)
    if not fits(node):
        return None
    tree = _slotted(node, {name: i for i, name in enumerate(names)})
    if tree is None:
        return None
    tpl = Template(_compile(tree), text, tree)
    cold = tpl.fn

    def tiered(ev: Evaluator) -> int:  # (see _tiered: the same counting, the holder updated)
        tpl.calls += 1
        if tpl.calls < HOT_CALLS:
            return cold(ev)
        if _COMPILED.generated + len(text) > GEN_CHARS:
            tpl.calls = 0  # (no room now: ask again later, as _tiered does)
            return cold(ev)
        from .arithgen import generate

        hot = generate(tree, text) or cold
        if hot is not cold:
            _COMPILED.generated += len(text)
        tpl.fn = hot
        return hot(ev)

    tpl.fn = tiered
    return tpl


def _slotted(node: Arith, names: dict[str, int]) -> Arith | Slot | None:
    """`node` with its reads of `names` made Slots; None when a name is assigned (a tree small
    enough for arithgen, so the recursion is shallow)."""
    if isinstance(node, AVar):
        if node.sub is None:
            return Slot(names[node.name]) if node.name in names else node
        return _slotted_sub(node, names)
    if isinstance(node, ANum):
        return node
    if isinstance(node, (AAssign, AIncDec)):
        if node.target.name in names:
            return None
        target = _slotted_sub(node.target, names)
        if isinstance(node, AIncDec):
            return node if target is node.target else AIncDec(node.op, node.prefix, target)
        value = _slotted(node.value, names)
        return None if value is None else AAssign(node.op, target, value, node.pos)  # type: ignore[arg-type]
    if isinstance(node, AUnary):
        operand = _slotted(node.operand, names)
        return None if operand is None else AUnary(node.op, operand)  # type: ignore[arg-type]
    if isinstance(node, ABinary):
        left, right = _slotted(node.left, names), _slotted(node.right, names)
        if left is None or right is None:
            return None
        return ABinary(node.op, left, right, node.pos)  # type: ignore[arg-type]
    if isinstance(node, ATernary):
        kids = [_slotted(k, names) for k in (node.cond, node.then, node.other)]
        if None in kids:
            return None
        return ATernary(*kids)  # type: ignore[arg-type]
    items = [_slotted(k, names) for k in node.items]
    if None in items:
        return None
    return AComma(tuple(items))  # type: ignore[arg-type]


def _slotted_sub(node: AVar, names: dict[str, int]) -> AVar:
    """`m[_sbSlot0_]` (arithwords: `m[$k]`, the whole subscript one expansion) with a Slot as its
    subscript: the slot's number as text is the subscript the text would have, as the slot is used
    only when its value is a plain decimal number (no sign, no leading zero)."""
    index = names.get(node.sub) if node.sub is not None else None
    return node if index is None else AVar(node.name, Slot(index))  # type: ignore[arg-type]


def evaluate(text: str, vars: ArithVars) -> int:
    """Parse, compile (both cached) and evaluate arithmetic text."""
    return compiled(text)(Evaluator(vars, text))


def literal_int(text: str) -> int | None:
    """A bash integer constant, or None (used by `test -eq` and friends)."""
    try:
        return parse_number(text)
    except ArithSyntaxError:
        return None
