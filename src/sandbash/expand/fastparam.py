"""Plans for the commonest parameter shapes, chosen once per node.

`$name`, `${name}`, `${#name}`, `${name#pat}` (and `##`, `%`, `%%`), `${name/pat/rep}` (and `//`,
`/#`, `/%`), `${name^^}` and friends, with words of plain text, and `${name:off}` /
`${name:off:len}` (decimal numbers sliced directly, expressions evaluated as the general way
evaluates them): what each does to a plain string is decided when the
node is first expanded. params.param looks the name up once and hands a plain string variable's
value to the plan; anything else (unset, an array, a reference to elements), or a plan's None (a
C locale's bytes...), goes the general way with that same lookup, so every message and corner
case stays there and nothing is looked up twice (a lookup may warn, or evaluate a subscript).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..syntax import ast as A
from ..syntax.ast import OpKind
from .segments import static_word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .words import Expander

# (the Expander, the variable's plain string value) -> the expansion, or None: the general way
Plan = Callable[["Expander", str], "str | None"]

_TRIM, _CASE, _REPL, _SLICE = OpKind.TRIM, OpKind.CASE, OpKind.REPL, OpKind.SLICE


def plan_for(ex: Expander, p: A.Param) -> Plan | int | None:
    """The plan of `p`, a positional parameter's index (`$1`, `${2}`), or None when its shape
    has none (the general path every time)."""
    index = positional_index(p)
    if index:
        return index
    name = p.name
    if p.sub is not None or p.names_suffix or not name or not (name[0].isalpha() or name[0] == "_"):
        return None  # elements, ${!prefix*}, positional and special parameters
    op = p.op
    if name == "RANDOM" and (op is not None or p.prefix):
        return None  # (bash reads it more than once: params.random_reads)
    if op is None:
        if p.prefix == "#":
            return _length_plan(name)
        return _value if not p.prefix else None
    if p.prefix:
        return None
    kind = op.kind
    if kind is _SLICE:
        return _slice_plan(ex, p, op)
    if not (static_word(op.arg) and static_word(op.arg2)):
        return None  # the pattern or replacement expands each time
    if op.arg is not None and op.arg.text.startswith("~"):
        return None  # a tilde prefix expands to $HOME as it is each time (paramops._op_pattern)
    if op.arg is not None and "(" in ex.pattern(op.arg):
        return None  # it may be an extglob group: the option decides each time
    if kind is _TRIM or kind is _CASE:
        return _apply_plan(ex._make_op_function(op, False))
    if kind is _REPL:
        rep = ex.string(op.arg2) if op.arg2 is not None else ""
        if (
            "&" in rep
            or "\\" in rep
            or (op.arg2 is not None and ("&" in op.arg2.text or "\\" in op.arg2.text))
        ):
            return None  # patsub_replacement decides what `&` and `\` do
        return _replace_plan(op)
    return None


def _value(ex: Expander, v: str) -> str | None:
    return v


def _length_plan(name: str) -> Plan:
    return partial(_length, name)


def _length(name: str, ex: Expander, v: str) -> str | None:
    # (a C locale counts a non-ASCII value's bytes; bash 5.2 gives 0 for a reference to an
    # array element)
    if v.isascii() and "[" not in (ex.env.nameref_target(name) or ""):
        return str(len(v))
    return None


def is_length(plan: Plan) -> bool:
    """Whether `plan` is `${#name}`'s (stringfn binds it with its variable's lookup)."""
    return type(plan) is partial and plan.func is _length


def _apply_plan(fn: Callable[[str], str]) -> Plan:
    return partial(_apply, fn)


def _apply(fn: Callable[[str], str], ex: Expander, v: str) -> str | None:
    if v.isascii() or not ex._byte_locale():
        return fn(v)
    return None  # (C/POSIX on a non-ASCII value: bytes, the general path's function)


def applied(plan: Plan) -> Callable[[str], str] | None:
    """The function of the value a trim's or case change's plan applies (it declines only a
    non-ASCII value in the C/POSIX locale: _apply)."""
    if type(plan) is partial and plan.func is _apply:
        return plan.args[0]  # type: ignore[no-any-return]
    return None


def _replace_plan(op: A.ParamOp) -> Plan:
    # the substitution made under each nocasematch setting, when first needed
    made: list[Callable[[str], str] | None] = [None, None]

    def replace(ex: Expander, v: str) -> str | None:
        if not v.isascii() and ex._byte_locale():
            return None  # (as _apply)
        nocase = 1 if ex.env.option("nocasematch") else 0
        fn = made[nocase]
        if fn is None:
            fn = made[nocase] = ex._make_op_function(op, False)
        return fn(v)

    return replace


def positional_index(p: A.Param) -> int:
    """The index of `$1`, `${2}`, `${10}` (a positional parameter as it is), else 0."""
    name = p.name
    if name.isdigit() and name.isascii() and p.op is None and not p.prefix and p.sub is None:
        return int(name)
    return 0


def _number(word: A.Word | None) -> int | None:
    """A slice offset or length written as a decimal number (no sign, no leading zero: octal)."""
    if word is None or len(word.parts) != 1 or type(word.parts[0]) is not A.Lit:
        return None
    text = word.parts[0].text
    if not (text.isdigit() and text.isascii() and len(text) < 10 and (text[0] != "0" or text == "0")):
        return None
    return int(text)


def _slice_plan(ex: Expander, p: A.Param, op: A.ParamOp) -> Plan:
    start = _number(op.arg)
    length = _number(op.arg2)
    # (a C locale slices a non-ASCII value's bytes: the general way)
    if start is not None and (op.arg2 is None or length is not None):
        end = None if length is None else start + length
        return lambda ex, v: v[start:end] if v.isascii() else None
    # an offset or length to evaluate (`${s:i:1}`, `${s: -1}`, `${s:$k:n-k}`): the string's slice
    # as the general way makes it (paramops.slice_text), declined only before anything is
    # evaluated, so an expression with an effect (`${s:i++:1}`) never runs twice
    slice_of = ex._slice_text_fn(p, op)  # (paramops, bound by the first use: words._PARAMOPS)
    sliced = _names_slice(ex, op)
    if sliced is None:
        return lambda ex, v: slice_of(ex, v) if v.isascii() else None

    def names_plan(ex: Expander, v: str) -> str | None:
        # (each name read first as a plain number, in one frame: the environment's slice_fn)
        if not v.isascii():
            return None
        r = sliced(v)  # type: ignore[misc]
        return slice_of(ex, v) if r is None else r

    return names_plan


def _names_slice(ex: Expander, op: A.ParamOp) -> Callable[[str], str | None] | None:
    """The environment's slice_fn (the shell's: interp/slicefn.py) for an offset and length that
    are each a plain decimal number or a lone name, one a name at least; None for anything else."""
    operands: list[str | int | None] = []
    for word in (op.arg, op.arg2):
        number = _number(word)
        if number is None and word is not None and len(word.parts) == 1 and type(word.parts[0]) is A.Lit:
            text = word.parts[0].text
            if text.isidentifier() and text.isascii():
                operands.append(text)
                continue
        if number is None and word is not None:
            return None
        operands.append(number)
    make = getattr(ex.env, "slice_fn", None)
    if make is None or not any(type(x) is str for x in operands):
        return None
    return make(operands[0], operands[1])  # type: ignore[no-any-return]


def remember(ex: Expander, p: A.Param) -> Plan | int | None:
    """Choose `p`'s plan and keep it (the entry holds the node, so its id stays its own)."""
    at_empty = ex._at_empty  # (choosing expands the static words, which must leave no trace)
    plan = plan_for(ex, p)
    ex._at_empty = at_empty
    plans = ex._plans
    if len(plans) >= 4096:
        plans.clear()
    plans[id(p)] = (p, plan)
    return plan
