"""The operands arithmetic skips, as bash skips them: `b` of `a && b` when `a` is 0 and of
`a || b` when it is not, and the branch of `c ? x : y` not taken.

bash's evaluator parses while it evaluates, so it reads a skipped operand too, with `noeval` set
(expr.c): a variable reads as 0 there (expr_streval returns before it looks, a subscript not
evaluated), nothing is stored, `++x` is 1 and `x--` 0, a division or remainder by 0 divides by 1,
and every operator computes as usual on those values; but exppower tests its exponent before
anything looks at `noeval`, so a `**` whose exponent is below 0 there fails as if evaluated
("exponent less than 0", at the same token): `1 ? 2 : 2 ** -1` fails, `1 ? 2 : 2 ** -x` does not.
sandbash's closures (arith.py) and generated functions (arithgen.py) evaluate only the operand
taken; `skipped` gives what skipping the other must do instead: nothing (None, the common case:
no `**` in it, or none whose exponent is below 0 whatever the script's variables hold), or a
check that raises bash's error. A skipped operand's values depend on nothing but its text and,
in a template, the numbers its slots were given (arith.template_of), so without a slot the answer
is made once."""

from __future__ import annotations

from ..syntax.ast import AAssign, ABinary, AComma, AIncDec, ANum, Arith, ATernary, AUnary, AVar
from .arithops import MAX, MIN, Slot, binary_value, ipow, wrap

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .arith import Evaluator

    Check = Callable[[Evaluator, "str | None"], None]  # (the text its error names: None, ev's)
    Shapes = dict[int, tuple[bool, bool, int, "int | None"]]

MESSAGE = "exponent less than 0"


class _Fails(Exception):
    """A `**` of the skipped operand has an exponent below 0: its error's offset."""

    def __init__(self, pos: int) -> None:
        super().__init__(pos)
        self.pos = pos


def shapes(root: Arith | Slot) -> Shapes:
    """For each node of the tree (by id): whether it holds a `**`, whether it holds a template's
    slot outside subscripts, and, without one, its value under `noeval` and the offset of the
    first `**` that fails there (None: none): one walk, children before parents."""
    out: Shapes = {}
    stack: list[tuple[Arith | Slot, bool]] = [(root, False)]
    while stack:
        cur, done = stack.pop()
        kids = _children(cur)
        if not done:
            stack.append((cur, True))
            stack += ((kid, False) for kid in kids)
            continue
        powers = isinstance(cur, ABinary) and cur.op == "**"
        slots = isinstance(cur, Slot)
        fails: int | None = None
        for kid in kids:  # (in bash's order of evaluation: the first to fail is the error)
            p, q, _, f = out[id(kid)]
            powers, slots = powers or p, slots or q
            if fails is None:
                fails = f
        value = 0
        if not slots and fails is None:
            try:
                value = _node_value(cur, tuple(out[id(kid)][2] for kid in kids))
            except _Fails as e:
                fails = e.pos
        out[id(cur)] = (powers, slots, value, fails)
    return out


def _children(node: Arith | Slot) -> tuple[Arith | Slot, ...]:
    if isinstance(node, ABinary):
        return (node.left, node.right)
    if isinstance(node, AUnary):
        return (node.operand,)
    if isinstance(node, ATernary):
        return (node.cond, node.then, node.other)
    if isinstance(node, AAssign):
        return (node.value,)
    if isinstance(node, AComma):
        return node.items
    return ()


def skipped(node: Arith | Slot, known: Shapes | None = None) -> Check | None:
    """What skipping `node` must do: None when nothing, else a check raising the error bash's
    evaluation under `noeval` raises (for a template, with the numbers of its slots), naming the
    text it is given (None: the evaluator's). `known`: shapes() of a tree holding `node`."""
    powers, slots, _, pos = (known if known is not None else shapes(node))[id(node)]
    if not powers:
        return None
    if not slots:
        if pos is None:
            return None

        def fails(ev: Evaluator, text: str | None) -> None:
            raise ev.error(MESSAGE, pos, text)

        return fails

    def check(ev: Evaluator, text: str | None) -> None:
        at = failing(node, ev.slots)  # type: ignore[arg-type]  # (a template's: numbers)
        if at is not None:
            raise ev.error(MESSAGE, at, text)

    return check


def failing(node: Arith | Slot, slots: Sequence[int]) -> int | None:
    """The offset of the first `**` whose exponent is below 0 when `node` is evaluated under
    bash's `noeval`, else None."""
    try:
        _value(node, slots)
    except _Fails as e:
        return e.pos
    return None


def _value(node: Arith | Slot, slots: Sequence[int]) -> int:
    """`node`'s value under `noeval`, in bash's order of evaluation (see the module's docstring);
    _Fails at a `**` whose exponent is below 0. (Recursive: a tree arithmetic parsed, whose depth
    its parser bounds; only for a template's tree, whose slots' numbers come at run time.)"""
    if isinstance(node, Slot):
        return slots[node.index]
    return _node_value(node, tuple(_value(kid, slots) for kid in _children(node)))


def _node_value(node: Arith | Slot, kids: tuple[int, ...]) -> int:
    """`node`'s value under `noeval` from its operands' (_children's order)."""
    if isinstance(node, ANum):
        return node.value if MIN <= node.value <= MAX else wrap(node.value)
    if isinstance(node, AVar | Slot):
        return 0  # (a Slot is read by _value: shapes() gives none a value)
    if isinstance(node, ABinary):
        return _binary(node.op, kids[0], kids[1], node.pos)
    if isinstance(node, AUnary):
        a = kids[0]
        if node.op == "-":
            return wrap(-a)
        if node.op == "!":
            return 0 if a else 1
        return wrap(~a) if node.op == "~" else a
    if isinstance(node, ATernary):
        return kids[1] if kids[0] else kids[2]
    if isinstance(node, AAssign):
        return kids[0] if node.op == "=" else _binary(node.op[:-1], 0, kids[0], node.pos)
    if isinstance(node, AIncDec):
        return (1 if node.op == "++" else -1) if node.prefix else 0
    return kids[-1] if kids else 0  # (a comma list: its last)


def _binary(op: str, a: int, b: int, pos: int) -> int:
    if op == "&&":
        return 1 if a and b else 0
    if op == "||":
        return 1 if a or b else 0
    if op == "**":
        if b < 0:
            raise _Fails(pos)
        return ipow(a, b)
    if (op == "/" or op == "%") and b == 0:
        b = 1  # (bash: no division by 0 under noeval)
    return binary_value(op, a, b, None, pos)  # type: ignore[arg-type]  # (no error left to raise)
