"""Parameter lookup for the Expander: ${name}, ${name[sub]}, ${#name}, ${!ref}, positional and
special parameters, and `set -u`. Each function is an Expander method (bound in words.py).
"""

from __future__ import annotations

from ..shvars.arrays import AssocArray, IndexedArray
from ..shvars.vars import ASSOC, ElementsVar, Var
from ..syntax import ast as A
from ..syntax.arith import subscript_end
from ..syntax.ast import Op
from ..syntax.errors import ParseError
from ..syntax.lexer import NESTED_UNCLOSED
from .arith import ArithError
from .arithwords import quote_subscript, subscript_error
from .env import ExpansionError
from .fastparam import remember
from .segments import JOIN_IFS, JOIN_IFS_DQ, NULL_JOINED, ONE_NULL_IFS, Multi, Value, as_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .words import Expander


NO_ELEMENTS = IndexedArray()  # (read only) a negative index counts back from no end


class SliceArithError(ArithError):
    """An arithmetic error in ${name:offset:length}: bash names the parameter as written."""

    def __init__(self, inner: ArithError, shown: str) -> None:
        super().__init__(inner.message, f"{shown}: {inner.text}", inner.token)
        self.inner = inner


# base()'s `var` when the caller has not looked the variable up (told apart by identity)
NOT_LOOKED = Var(None)


def param(ex: Expander, p: A.Param, in_dq: bool = False, shown: str | None = None) -> Value:
    """`shown`: the name messages give it (an indirection's `!ref`)."""
    if shown is None:
        hit = ex._plans.get(id(p))
        plan = hit[1] if hit is not None else remember(ex, p)
        if isinstance(plan, int):  # $1, ${2}: a positional parameter's index
            pos = ex.env.positional()
            if plan <= len(pos):
                return pos[plan - 1]
        elif plan is not None:
            # looked up once: a lookup may warn or evaluate a reference's subscript
            var = ex.env.lookup(p.name)
            if var is not None and type(var) is Var:  # (an ElementsVar is "${A[@]}" unbraced)
                v = var.value
                if type(v) is str and (value := plan(ex, v)) is not None:
                    return value
            return general(ex, p, in_dq, None, var)
    return general(ex, p, in_dq, shown, NOT_LOOKED)


def _bad_transform_expands(ex: Expander, p: A.Param, in_dq: bool, shown: str | None, var: Var | None) -> bool:
    """Whether ${x@Z} has a value to transform (then it is an error): bash checks for an unset
    name (set -u's error first) or an empty array before it looks at the operator; of ${!x@Z}, the
    indirection's target (a bad or unset x is reported as ${!x} reports it)."""
    prefix = "!" if p.names_suffix == "!@" else ""
    value = general(
        ex, A.Param(p.name, p.sub, prefix, None, True), in_dq, shown, NOT_LOOKED if prefix else var
    )
    if isinstance(value, Multi):
        return bool(value.values)
    return value is not None


def random_reads(p: A.Param) -> tuple[int, int]:
    """How many times bash reads $RANDOM to expand `p` (a `${RANDOM...}` with a subscript, a
    length or an operator), and which read's value it uses: each of its find_variable calls runs
    the generator (`RANDOM=7; : ${#RANDOM}; echo $RANDOM` gives the third number)."""
    sub = p.sub
    if p.prefix == "#":
        return (2, 2) if sub is None else (1, 1)
    op = p.op
    value_op = op is not None and op.kind is not A.OpKind.TEST
    if sub is None:
        return (3, 1) if value_op else (1, 1)
    if sub == "@" or sub == "*":
        return (3, 2) if value_op else (2, 2)
    return (4, 4) if value_op else (2, 2)


def _random_general(ex: Expander, p: A.Param, in_dq: bool, shown: str | None, var: Var | None) -> Value:
    """general() of a `${RANDOM...}` that bash reads several times: the generator moves on as
    often as bash's does, and every read while `p` expands gives the value bash uses."""
    count, used = random_reads(p)
    reads = [] if var is NOT_LOOKED else [var]
    while len(reads) < count:
        reads.append(ex.env.lookup("RANDOM"))
    var = reads[used - 1]
    value = var.value if var is not None else None
    before = ex.env.pin_random(int(value) if type(value) is str and value.isdigit() else None)
    try:
        return general(ex, p, in_dq, shown, var, False)
    finally:
        ex.env.pin_random(before)


def general(
    ex: Expander, p: A.Param, in_dq: bool, shown: str | None, var: Var | None, reread: bool = True
) -> Value:
    """param() the general way; `var`: what looking the name up gave, or NOT_LOOKED. `reread`:
    a `${RANDOM...}` reads RANDOM as often as bash does (_random_general)."""
    prefix = p.prefix
    if reread and p.name == "RANDOM" and (prefix == "#" or (not prefix and (p.op or p.sub))):
        return _random_general(ex, p, in_dq, shown, var)
    if prefix == "bad":
        assert p.op is not None
        at = p.names_suffix == "@" or p.names_suffix == "!@"
        if at and not _bad_transform_expands(ex, p, in_dq, shown, var):
            star = p.sub == "*" or (p.sub is None and p.name == "*")
            return Multi([], star) if p.sub in ("@", "*") or p.name in ("@", "*") else ""
        if p.names_suffix == "msg":  # (an unclosed subscript in "...": the lexer's whole message)
            raise ExpansionError(p.op.text, 1)
        if p.names_suffix == NESTED_UNCLOSED:  # (the lexer's `${u:-${a[}}`, named as a whole)
            raise ExpansionError(f"bad substitution: no closing `}}' in {p.op.text}", 1)
        # (bash reports a bad `@` operator of a set value as ${x:?} does: the shell ends)
        raise ExpansionError(f"{p.op.text}: bad substitution", 127 if at else 1)
    if prefix == "error" or prefix == "unparsed":
        # a command substitution that does not parse: "error" in a word bash parses when it
        # expands it (this command fails), "unparsed" the command of `...` or $((...) (its child
        # runs this and exits 2); the offending line follows a token error
        assert p.op is not None and p.op.arg is not None
        where = f"command substitution: line {p.op.arg.line}: "
        shown = f"\n{where}`{p.op.arg.text}'" if p.op.arg.text else ""
        # (each line of the error's text, none for an error bash's parser says nothing of, `[[ ]]`)
        first, *more = p.op.text.split("\n") if p.op.text else [""]
        message = "".join([f"{where}{first}{shown}" if first else "", *(f"\n{where}{m}" for m in more)])
        if prefix == "error":
            raise ExpansionError(message, located=False)
        raise ExpansionError(message, 2, exits=True, located=False)
    if prefix == "!" and not p.names_suffix and (p.sub not in ("@", "*") or p.op is not None):
        # ${!a[@]} lists the keys only when the brace follows: ${!a[@]@Q} is an indirection
        return ex._indirect(p, in_dq)
    if prefix == "#" and p.sub in ("@", "*") and p.op is None and not p.names_suffix:
        # ${#a[@]}: the number of elements, without listing them (a loop `k < ${#a[@]}` was
        # quadratic); anything else (unset, not an array, positional) goes the general way
        var = ex.env.lookup(p.name) if p.name[0].isalpha() or p.name[0] == "_" else None
        if var is not None and isinstance(var.value, (IndexedArray, AssocArray)):
            return str(len(var.value))
    if prefix == "#" and p.sub is not None and p.op is None and not p.names_suffix:
        return ex._element_length(p, p.sub)
    base, desc = ex._base(p, var)
    if shown is not None:
        desc = shown
    op = p.op
    if prefix == "#":
        if isinstance(base, Multi):
            return str(len(base.values))
        if base is None:
            ex._check_unset(desc, p)
            return "0"
        if p.sub is None and "[" in (ex.env.nameref_target(p.name) or ""):
            return "0"  # bash 5.2: ${#r} is 0 for a nameref to an array element, set or not
        return str(ex._length(as_text(base) or ""))
    if op is None:
        if base is None:
            ex._check_unset(desc, p)
        return base
    return ex._apply_op(p, op, base, desc, in_dq)


def element_length(ex: Expander, p: A.Param, sub: str) -> str:
    """${#a[sub]} as bash's array_length_reference: under `set -u` an unset variable, a
    declared one without a value or a scalar is `a: unbound variable` (status 1); an empty
    associative key or a negative index before the start names the subscript as written from
    its text on (`-9]: bad array subscript`). Both end the command line as a bad substitution
    does. An unset element has length 0."""
    var = ex.env.lookup(p.name)
    val = var.value if var is not None else None
    if type(val) is str and element_ref(ex, p.name):
        val = None
    if not isinstance(val, (IndexedArray, AssocArray)) and ex.env.option("nounset"):
        raise ExpansionError(f"{p.name}: unbound variable", 1)
    if val is None:
        return "0"
    if sub in ("@", "*"):
        return "1" if isinstance(val, str) else str(len(val))
    if isinstance(val, AssocArray):
        key = ex._assoc_key(p, sub)
        if key == "":
            raise ExpansionError(f"{sub}]: bad array subscript")
        return str(ex._length(val.get(key) or ""))
    # (a scalar is no array: a negative index does not count back from its end)
    arr = val if isinstance(val, IndexedArray) else NO_ELEMENTS
    index = ex._index(p, sub, arr, p.name, report=False)
    if index is None:
        raise ExpansionError(f"{sub}]: bad array subscript")
    text = val.get(index) if isinstance(val, IndexedArray) else val if index == 0 else None
    return str(ex._length(text or ""))


def element_ref(ex: Expander, name: str) -> bool:
    """`name` is a nameref whose chain ends at an array element (`declare -n r=a[1]`): bash 5.2
    reads `$r` as the element but `${r[0]}`, `${r[@]}`, `${#r[@]}`, `${!r[@]}` as unset (it
    looks for an array named `a[1]`)."""
    target = ex.env.nameref_target(name)
    for _ in range(8):  # (a longer chain is circular: the lookup has reported it)
        if not target:
            return False
        if "[" in target:
            return True
        target = ex.env.nameref_target(target)
    return False


def length(ex: Expander, text: str) -> int:
    """${#x}: characters, or bytes when the shell's locale is C/POSIX."""
    if text.isascii() or not ex._byte_locale():
        return len(text)
    return len(text.encode("utf-8", "surrogateescape"))


def byte_locale(ex: Expander) -> bool:
    """Characters are bytes: the shell's locale is C/POSIX (as the script sets it)."""
    return ex.env.locale_bytes()


def has_elements(ex: Expander, p: A.Param) -> bool:
    var = ex.env.lookup(p.name) if p.sub is None else None
    return var is not None and isinstance(var.value, (IndexedArray, AssocArray)) and len(var.value) > 0


def check_unset(ex: Expander, desc: str, p: A.Param) -> None:
    if ex.env.option("nounset") and p.name not in ("@", "*"):
        if p.sub in ("@", "*") and p.prefix != "#":
            return
        if p.sub is None and "[" in (ex.env.nameref_target(p.name) or ""):
            return  # bash 5.2: a nameref to an unset array element is not reported
        if (desc.isdigit() or desc == "!") and not p.braced:
            desc = "$" + desc  # bash names `$1` so, but `${1}` as 1
        raise ExpansionError(f"{desc}: unbound variable", 127)


def base(ex: Expander, p: A.Param, var: Var | None = NOT_LOOKED) -> tuple[Value, str]:
    """The unmodified value of the parameter and the name used in messages (`var`: the variable
    `p` names, when the caller has looked it up)."""
    name = p.name
    env = ex.env
    if p.names_suffix:
        names = [n for n in env.var_names() if n.startswith(name)]
        star = p.names_suffix == "*"
        return Multi(names, star, JOIN_IFS | NULL_JOINED if star else JOIN_IFS), name
    c0 = name[0]
    if not (c0.isalpha() or c0 == "_"):
        # positional and special parameters
        if name in ("@", "*"):
            return Multi(env.positional(), name == "*"), name
        if c0.isdigit():
            idx = int(name)
            if idx == 0:
                return env.special("0"), name
            pos = env.positional()
            return (pos[idx - 1] if idx <= len(pos) else None), name
        if name in ("#", "?", "$", "!", "-"):
            sv = env.special(name)
            return (sv if sv != "" or name != "!" else None), name
    if var is NOT_LOOKED:
        var = env.lookup(name)
    sub = p.sub
    if sub is None:
        if var is None:
            return None, name
        val = var.value
        if type(val) is str:
            if type(var) is not Var and not p.braced and isinstance(var, ElementsVar):
                return Multi(var.elements, var.star), name  # "$ref" to A[@]: as "${A[@]}"
            return val, name
        if val is None:
            return None, name
        if isinstance(val, IndexedArray):
            return val.get(0), name
        assert isinstance(val, AssocArray)
        return val.get("0"), name
    if var is not None and type(var.value) is str and element_ref(ex, name):
        var = None  # (only a scalar or an element reads through a reference as a string)
    if sub in ("@", "*"):
        if p.prefix == "!":
            # ${!a[@]}: the keys
            if var is None or var.value is None:
                return Multi([], sub == "*"), name
            val = var.value
            join = ONE_NULL_IFS if sub == "*" else JOIN_IFS_DQ
            if isinstance(val, IndexedArray):
                return Multi([str(k) for k in val.keys()], sub == "*", join), name
            if isinstance(val, AssocArray):
                return Multi(val.keys(), sub == "*", join), name
            return Multi(["0"], sub == "*", join), name
        if var is None or var.value is None:
            # no elements, set -u or not: "${a[@]}" of an unset array is no word at all (bash 4.4
            # on; the operators see it as unset: `${a[@]-x}` is x)
            return Multi([], sub == "*"), f"{name}[{sub}]"
        val = var.value
        if isinstance(val, (IndexedArray, AssocArray)):
            return Multi(val.values(), sub == "*"), name
        return Multi([val], sub == "*"), name
    desc = f"{name}[{sub}]"
    if var is None or var.value is None:
        if var is None or not (var.attrs & ASSOC):
            # evaluated for side effects and errors; no elements: `${u[-1]}` is a bad subscript
            ex._index(p, sub, NO_ELEMENTS, name)
        return None, desc
    val = var.value
    if isinstance(val, AssocArray):
        key = ex._assoc_key(p, sub)
        if not key:
            ex.env.report_error(f"{name}: bad array subscript")  # (an empty key: bash goes on)
            return None, desc
        return val.get(key), desc
    # (a scalar is no array: a negative index does not count back from its end, as bash)
    index = ex._index(p, sub, val if isinstance(val, IndexedArray) else NO_ELEMENTS, name)
    if index is None:
        return None, desc
    if isinstance(val, IndexedArray):
        return val.get(index), desc
    return (val if index == 0 else None), desc


def key_of(ex: Expander, p: A.Param, sub: str) -> str:
    """The key `sub` names in an associative array: the parsed subscript's expansion, or (for a
    parameter made at run time) the text expanded as bash expands a key."""
    parsed = p.subscript
    if parsed is None:
        return ex.env.subscript_key(sub)
    return sub if parsed.key is None else ex.string(parsed.key)


def index(
    ex: Expander, p: A.Param, sub: str, arr: IndexedArray | None, name: str, report: bool = True
) -> int | None:
    """An indexed subscript's value; None (after bash's message, unless not `report`) when a
    negative index falls before the start."""
    text = sub
    parsed = p.subscript
    if parsed is not None:
        if parsed.arith is not None:
            text = ex.heredoc(parsed.arith)
    elif "$" in sub or "`" in sub or '"' in sub or "\\" in sub:
        # a parameter made when it runs (${!ref} naming an element)
        text = ex._expand_sub_text(sub)
    try:
        value = ex.env.arith_eval(text)
    except ArithError as e:
        raise subscript_error(e) from None
    if value < 0:
        size = arr.max_index() + 1 if arr is not None else 1
        value += size
        if value < 0:
            if report:
                ex.env.report_error(f"{name}: bad array subscript")
            return None
    return value


def subscript_once(ex: Expander, name: str, sub: str, parsed: A.Subscript | None) -> str:
    """`sub` evaluated now, as a subscript that gives the same element again without being
    evaluated (${a[k++]=v} assigns and reads back the element its test saw next, once)."""
    var = ex.env.lookup(name)
    if var is not None and (var.attrs & ASSOC or isinstance(var.value, AssocArray)):
        if parsed is None:
            key = ex.env.subscript_key(sub)
        else:
            key = sub if parsed.key is None else ex.string(parsed.key)
        # (`@` and `*` are keys here: escaped, they stay an element when read back)
        return "\\" + key if key in ("@", "*") else quote_subscript(key)
    if sub in ("@", "*"):
        return sub
    arr = var.value if var is not None and isinstance(var.value, IndexedArray) else None
    index = ex._index(A.Param(name, sub, "", None, True, "", parsed), sub, arr, name, report=False)
    return sub if index is None else str(index)


class BadSubscript(ExpansionError):
    """A subscript text that is no word (`a['1"']`, an unclosed quote): an arithmetic syntax
    error where it is evaluated, an invalid name where it is a reference's (`${!r}`)."""


def expand_sub_text(ex: Expander, sub: str) -> str:
    from ..syntax.lexer import ARITH
    from ..syntax.parser import Parser

    reader = Parser(sub)
    try:
        parts = reader.read_parts(ARITH)
    except ParseError:
        raise BadSubscript(f'{sub}: syntax error: operand expected (error token is "{sub}")', 1) from None
    return ex.heredoc(A.Word(tuple(parts), 0, sub))


def indirect(ex: Expander, p: A.Param, in_dq: bool) -> Value:
    env = ex.env
    name = p.name
    # ${!ref} on a nameref gives the name it refers to
    target_name = env.nameref_target(name) if p.sub is None else None
    if target_name is not None:
        if p.op is None:
            return target_name
        # an operator works on that name (`${!ref-x}` is it) but, as bash's get_var_and_type, a
        # pattern, slice, case or @ operator on an array's name works on its element 0
        base: Value = target_name
        if p.op.kind is not A.OpKind.TEST:
            var = env.lookup(target_name)
            v = var.value if var is not None else None
            if isinstance(v, IndexedArray):
                base = v.get(0)
            elif isinstance(v, AssocArray):
                base = v.get("0")
        return ex._apply_op(A.Param(target_name, None, "", p.op, True), p.op, base, "!" + name, in_dq)
    ref = as_text(ex._base(A.Param(name, p.sub, "", None, True, "", p.subscript))[0])
    if name in ("@", "*") and not env.positional():
        ref = None  # ${!@} without positional parameters names nothing: unset, no error
    if ref is None:
        # only a name that is no variable at all is an error (subst.c): an unset positional or
        # special parameter, or a declared variable without a value, expands as unset
        if (name[0].isalpha() or name[0] == "_") and env.lookup(name) is None:
            shown = name if p.sub is None else f"{name}[{p.sub}]"
            raise ExpansionError(f"{shown}: invalid indirect expansion", 1)
        if p.op is None:
            ex._check_unset("!" + name, p)
            return None
        if p.op.op in (Op.ASSIGN, Op.ASSIGN_UNSET):
            raise ExpansionError(f"!{name}: invalid indirect expansion", 1)  # nothing to assign to
        op = p.op
        if op.kind is A.OpKind.XFORM:
            # a transform names no variable (`${!A@a}` of an array without element 0: nothing,
            # not A's own attributes)
            p = A.Param("", None, "", op, True)
        return ex._apply_op(p, op, None, "!" + name, in_dq)
    target = parse_ref(ref)
    if target is None or target.name == "":
        raise ExpansionError(f"{ref}: invalid variable name", 1)
    try:
        return ex.param(A.Param(target.name, target.sub, "", p.op, True), in_dq, "!" + name)
    except SliceArithError as e:
        raise SliceArithError(e.inner, "!" + name) from None
    except BadSubscript:
        # a subscript that is no word (`a[1"]`: an unclosed quote) names no variable
        raise ExpansionError(f"{ref}: invalid variable name", 1) from None


class Ref:
    __slots__ = ("name", "sub")

    def __init__(self, name: str, sub: str | None) -> None:
        self.name = name
        self.sub = sub


def parse_ref(ref: str) -> Ref | None:
    """Parse the target of an indirection: name, name[sub], positional or special."""
    if not ref:
        return None
    if ref in ("@", "*", "#", "?", "$", "!", "-") or ref.isdigit():
        return Ref(ref, None)
    i = 0
    # ASCII only, as bash's legal_variable_starter: `é` is no letter to it in a UTF-8 locale
    if not (ref[0].isascii() and (ref[0].isalpha() or ref[0] == "_")):
        return Ref("", None)
    while i < len(ref) and ref[i].isascii() and (ref[i].isalnum() or ref[i] == "_"):
        i += 1
    if i == len(ref):
        return Ref(ref, None)
    # bash's valid_array_reference: a subscript, not empty, whose `]` is the last character
    # (`a[]`, `a[1]]`, `a[1"]` name no variable)
    if ref[i] == "[" and len(ref) > i + 2 and subscript_end(ref, i + 1) == len(ref) - 1:
        return Ref(ref[:i], ref[i + 1 : -1])
    return Ref("", None)
