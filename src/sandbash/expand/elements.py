"""`${name[sub]}` and `${name[sub]op word}` made into closures once (stringfn.param_fn).

params.general reads an element by looking the name up, then (params.base) expanding the
subscript's key as a string or its index's text, then evaluating the index: each use walks the
parsed subscript again. The closure made here binds the key's string_fn and the index text's
join_fn (what key_of and index give) and does what general does for a `Var` whose value is an
indexed or associative array: the key or index once, the element, then `set -u`'s test or the
operator as general applies them (apply_op, with the same value and name). Anything else (unset,
a scalar, a nameref's elements, a prefix or `@`/`*`) is general's, with the one lookup made.
`${#a[@]}` / `${#a[*]}` (a loop's `k < ${#a[@]}`, `a[${#a[@]}]=x`) is a closure of its own:
the number of elements of an indexed or associative array, anything else general's.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..shvars.arrays import AssocArray, IndexedArray
from ..shvars.vars import Var
from ..syntax import ast as A
from .arith import ArithError
from .arithwords import subscript_error
from .params import general
from .segments import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .words import Expander


def element_fn(
    ex: Expander,
    p: A.Param,
    in_dq: bool,
    string_fn: Callable[[Expander, A.Word], Callable[[], str]],
    join_fn: Callable[[Expander, tuple[A.Part, ...], bool], Callable[[], str] | None],
) -> Callable[[], Value] | None:
    """What `general(ex, p, in_dq, None, NOT_LOOKED)` gives for `p`, an element `${a[sub]}`
    with or without an operator, as a closure; None for any other shape. `string_fn` and
    `join_fn` are stringfn's (which calls this: passed in, not imported, so no import circle)."""
    parsed = p.subscript
    sub = p.sub
    name = p.name
    if not name or not (name[0].isalpha() or name[0] == "_") or p.names_suffix:
        return None
    if p.prefix == "#" and (sub == "@" or sub == "*") and p.op is None:
        return _count_fn(ex, p, in_dq)
    if parsed is None or sub is None or sub in ("@", "*") or p.prefix:
        return None
    key_fn: Callable[[], str] = partial(str, sub) if parsed.key is None else string_fn(ex, parsed.key)
    arith = parsed.arith
    text_fn: Callable[[], str]
    literal: str | None = sub
    if arith is None:
        text_fn = partial(str, sub)
    else:
        parts = arith.parts
        literal = parts[0].text if len(parts) == 1 and type(parts[0]) is A.Lit else None  # type: ignore[union-attr]
        if literal is not None:
            text_fn = partial(str, literal)
        else:  # (Expander.heredoc: the text of the parts, charged when long)
            text_fn = join_fn(ex, parts, True) or partial(ex.heredoc, arith)
    # `${f[2]}`: an index that is a plain decimal number is that number (what its arithmetic gives)
    fixed = (
        int(literal)
        if literal is not None
        and literal.isdigit()
        and literal.isascii()
        and len(literal) < 19
        and (literal[0] != "0" or len(literal) == 1)
        else None
    )
    lookup = ex.env.lookup
    arith_eval = ex.env.arith_eval
    report = ex.env.report_error
    check_unset = ex._check_unset
    apply_op = ex._apply_op
    op = p.op
    desc = f"{name}[{sub}]"
    # `${m[$k]-0}`, `${a[i]:-x}`, `${m[$k]:=v}`, `${m[$k]?}` of a set element (not empty, with a
    # colon): test_op gives the element itself, and nothing else happens (no word is expanded)
    kept = op is not None and op.kind is A.OpKind.TEST and op.op[-1] in "-=?"
    colon = kept and op is not None and op.op[0] == ":"
    # `${m[$k]+set}`, `${a[i]:+x}` with a word of letters, digits and `_` only: test_op gives
    # nothing for a missing element (unset, or empty with the colon) and else the word's text
    # (alt_value: a Lit with nothing to expand; a str and its one EXP segment split and glob
    # alike, and these characters glob nothing)
    alt: str | None = None
    if op is not None and op.kind is A.OpKind.TEST and op.op[-1] == "+" and op.arg is not None:
        words = op.arg.parts
        text = words[0].text if len(words) == 1 and type(words[0]) is A.Lit else ""
        if text.isascii() and text.replace("_", "a").isalnum():  # (no pattern: none made at start-up)
            alt = text
    alt_colon = op is not None and op.op[0] == ":"

    def element() -> Value:
        var = lookup(name)
        if var is None or type(var) is not Var:
            return general(ex, p, in_dq, None, var)
        val = var.value
        base: Value
        if type(val) is AssocArray:
            key = key_fn()
            if key:
                base = val.get(key)
            else:
                report(f"{name}: bad array subscript")  # (an empty key: bash goes on)
                base = None
        elif type(val) is IndexedArray:
            if fixed is not None:
                index = fixed
            else:
                try:
                    index = arith_eval(text_fn())
                except ArithError as e:
                    raise subscript_error(e) from None
            if index < 0:
                index += val.max_index() + 1
            if index >= 0:
                base = val.get(index)
            else:
                report(f"{name}: bad array subscript")
                base = None
        else:
            return general(ex, p, in_dq, None, var)
        if op is None:
            if base is None:
                check_unset(desc, p)
            return base
        if kept and base is not None and (base or not colon):
            return base
        if alt is not None:
            return None if base is None or (alt_colon and not base) else alt
        return apply_op(p, op, base, desc, in_dq)

    return element


def _count_fn(ex: Expander, p: A.Param, in_dq: bool) -> Callable[[], Value]:
    """`${#a[@]}`: what general gives (the number of elements of an array, set elements only:
    a sparse array's count, not its highest index), as text (count_number_fn's number)."""
    number = count_number_fn(ex, p)

    def count() -> Value:
        n = number()
        return str(n) if isinstance(n, int) else n

    return count


def count_number_fn(ex: Expander, p: A.Param) -> Callable[[], int | str]:
    """`${#a[@]}` / `${#a[*]}` without the calls general makes to reach it: the number of elements
    of an indexed or associative array (an arithmetic slot takes it as it is:
    arithwords.template_fn); an unset name or a scalar gives the text general gives after its own
    lookup (element_length: set -u, `1`), so the name is looked up as often; `${#RANDOM[@]}` is
    general's, given that lookup (it reads RANDOM as often as bash does: params._random_general)."""
    lookup = ex.env.lookup
    name = p.name
    sub = p.sub
    assert sub is not None
    element_length = ex._element_length
    random = name == "RANDOM"

    def count_number() -> int | str:
        var = lookup(name)
        if var is not None:
            val = var.value
            if type(val) is IndexedArray or type(val) is AssocArray:
                return len(val)
        if random:
            return general(ex, p, False, None, var)  # type: ignore[return-value]
        return element_length(p, sub)  # (general's next step for this shape)

    return count_number


def element_count_fn(ex: Expander, p: A.Param) -> Callable[[], int | str] | None:
    """count_number_fn for `p` when it is `${#a[@]}` or `${#a[*]}` of a name (no operator), else None."""
    name = p.name
    if (
        p.prefix == "#"
        and (p.sub == "@" or p.sub == "*")
        and p.op is None
        and not p.names_suffix
        and name
        and (name[0].isalpha() or name[0] == "_")
    ):
        return count_number_fn(ex, p)
    return None
