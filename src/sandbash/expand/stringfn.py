"""Words expanded as one string (an assignment's value, a `case` subject), made into closures once.

Expander.string decides at every use what a word is: one parameter, a mix of text, parameters,
$(( )) and double-quoted parts of those, an arithmetic expansion. `string_fn` decides it when the
word is compiled, and binds each parameter's plan (fastparam.py) and its name's lookup into the
closure (a parameter without a plan: the general path, without the entry points between). What
a closure gives is what Expander.string gives, step for step: the same single lookup per
parameter (a lookup may warn or evaluate a reference's subscript), the general path with that
lookup for anything else (unset, arrays, `set -u`, a plan's None), the same charging of long
texts, the same reset of "$@"'s empty state. A command substitution's text is the shell's
command_sub, called as _join_parts calls it. A word with any other part (a tilde, a process
substitution...) keeps Expander.string. Arithmetic words use join_fn too (arithwords.arith_fn).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Set
from functools import cache, partial

from ..shvars.vars import NAMEREF, Scope, Var
from ..syntax import ast as A
from .arithops import text_fn
from .arithwords import arith_fn, literal_arith, literal_fn
from .elements import element_fn
from .fastparam import Plan, _value, applied, is_length, plan_for
from .params import NOT_LOOKED, general
from .segments import CHARGE_FROM, EXP, QNULL, QUO, Multi, Seg, Segs, Value, maybe_glob

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .words import Expander

StrFn = Callable[[], str]


# Every spelling of a multi-valued parameter has one of these marks: `$@ $*`, `${@… ${*…`,
# `${a[@]… ${a[*]…` (`${!a[@]}` too; not a count, `${#a[@]}`), or `${!` with `@}` or `*}` (`${!prefix@} ${!prefix*}`:
# _multi_marked). A literal `@` or `*` (`email=a@b.c`, `pat=*.log`, `$((a*b))`, a pattern's
# `${f##*/}` `${s%%.*}`) has none and keeps string_fn's compiled shapes.
# (Substring tests, not a regex: a plain run compiles no pattern of its own at start-up.)
_MULTI_MARKS = ("$@", "$*", "${@", "${*", "@]", "*]")


@cache
def _array_count() -> re.Pattern[str]:
    """`${#a[@]}`, `${#a[*]}`: an array's count, one number (compiled on first use)."""
    return re.compile(r"\$\{#[A-Za-z_][A-Za-z0-9_]*\[[@*]\]\}")  # our own fixed pattern


def _multi_marked(text: str) -> bool:
    """Whether a word's text may hold a multi-valued parameter (_MULTI_MARKS); an array's count
    (`c=$((c + ${#f[@]}))`) is none."""
    if "${#" in text and "]}" in text:
        text = _array_count().sub("", text)
    return any(mark in text for mark in _MULTI_MARKS) or ("${!" in text and ("@}" in text or "*}" in text))


def value_fn(ex: Expander, word: A.Word) -> StrFn:
    """What `ex.value(word)` gives (an assignment's value), as a closure: string_fn's, unless the
    word can hold a multi-valued result, which Expander.value expands (joined with IFS)."""
    if _multi_marked(word.text):
        return partial(ex.value, word)
    return string_fn(ex, word)


def string_fn(ex: Expander, word: A.Word) -> StrFn:
    """What `ex.string(word)` gives, as a closure (Expander.string itself for other shapes)."""
    parts = word.parts
    fn: StrFn | None = None
    if len(parts) == 1:
        p = parts[0]
        tp = type(p)
        if tp is A.Lit:
            text = p.text  # type: ignore[union-attr]
            return lambda: text
        if tp is A.ArithSub:
            return text_fn(_arith_of(ex, p.word))  # type: ignore[union-attr]
        if tp is A.Param:
            fn = param_text_fn(ex, p, False, True)  # type: ignore[arg-type]
        elif tp is A.DQ:
            inner = p.parts  # type: ignore[union-attr]
            if len(inner) == 1 and type(inner[0]) is A.Param:
                fn = param_text_fn(ex, inner[0], True, True)
            elif inner:
                fn = join_fn(ex, inner, True, True)
        elif tp is A.CmdSub:  # (`r=$(get)`: as string() reaches it, through _join_parts)
            fn = join_fn(ex, parts, False)
    else:
        fn = join_fn(ex, parts, False)
    return fn if fn is not None else partial(ex.string, word)


def value_text(ex: Expander, value: Value, in_dq: bool) -> str:
    """A parameter's value as the text a string holds ("$@" joined by spaces, "$*" by IFS's
    first character: Multi.text), uncharged."""
    if type(value) is str:
        return value
    if value is None:
        return ""
    if isinstance(value, Segs):
        return value.text()
    assert isinstance(value, Multi)
    return value.text(ex.env.ifs(), in_dq, ex._ifs_joins)


def value_string(ex: Expander, value: Value, in_dq: bool) -> str:
    """A parameter's value as a word's whole string (Expander._param_string): a long value, or
    "$@" joined, charged."""
    if type(value) is str:
        if len(value) > CHARGE_FROM:
            ex._charge_text(len(value))
        return value
    if isinstance(value, Multi):
        return ex._charged(value_text(ex, value, in_dq))
    return value_text(ex, value, in_dq)


def param_text_fn(ex: Expander, p: A.Param, in_dq: bool, whole: bool) -> StrFn:
    """What `ex.param(p, in_dq)` gives, as text: the word's `whole` string (value_string), or a
    piece of one (value_text), with `p`'s plan (fastparam.py) and its name's lookup bound."""
    return param_fn(
        ex,
        p,
        in_dq,
        partial(value_string if whole else value_text, ex, in_dq=in_dq),
        CHARGE_FROM if whole else sys.maxsize,
    )


def dq_param_step(ex: Expander, p: A.Param) -> Callable[[list[str]], None]:
    """The fields of the argument "$p" (Expander.word's first shape) added to a command's words,
    with `p`'s plan and lookup bound: a plain string is one field (charged when long), so is
    nothing (an unset variable or element: one empty field, as Expander.dq_value_fields makes it
    unless "$@" left no field); anything else as dq_value_fields makes it. The commonest shapes
    read their value in the step itself (one frame less than param_fn's closure): "$x" looks the
    name up, "$1" indexes the positional parameters, "${a[i]}" calls its element's closure, "$?"
    "$#" "$$" "$-" ask the shell; anything else their lookup found (unset, an array, a reference
    to elements) goes the general way with that lookup."""
    rest = dq_scalar_rest(ex, p)
    if rest is not None:
        return _dq_scalar_step(ex, p, rest)
    plan = _plan(ex, p)
    if isinstance(plan, int):
        return _dq_positional_step(ex, p, plan)
    if plan is None and p.name in _SPECIAL_TEXTS and not (p.prefix or p.op or p.sub or p.names_suffix):
        return _dq_special_step(ex, p.name)
    add = _dq_value_adder(ex)
    if (
        plan is None
        and p.sub is not None
        and (element := element_fn(ex, p, True, string_fn, join_fn)) is not None
    ):
        # "${a[i]}", "${m[$k]}": the element's closure (elements.py) called by the step itself

        def dq_element(out: list[str]) -> None:
            ex._at_empty = False
            v = element()
            if type(v) is str and len(v) <= CHARGE_FROM:
                out.append(v)
            else:
                add(v, out)

        return dq_element
    get = _planned_fn(ex, p, plan, True, _same, sys.maxsize)

    def dq_param(out: list[str]) -> None:
        ex._at_empty = False
        add(get(), out)

    return dq_param


# the special parameters whose text the shell always has, a few characters (Shell.special: `$!`
# may be unset, `$0` may be long enough to charge)
_SPECIAL_TEXTS = frozenset(("?", "#", "$", "-"))


def _dq_value_adder(ex: Expander) -> Callable[[Value, list[str]], None]:
    """dq_param_step's fields of a value: a plain string is one field (charged when long), nothing
    is one empty field unless "$@" left none, anything else as dq_value_fields makes it."""
    charge = ex._charge_word
    fields = ex.dq_value_fields

    def dq_value(value: Value, out: list[str]) -> None:
        if type(value) is str:
            if len(value) > CHARGE_FROM:
                charge(len(value))
            out.append(value)
        elif value is None and not ex._at_empty:
            out.append("")
        else:
            out.extend(fields(value, []))

    return dq_value


def _dq_scalar_step(
    ex: Expander, p: A.Param, rest: Callable[[Var | None, list[str]], None]
) -> Callable[[list[str]], None]:
    """ "$x": a variable's plain string that needs no charge as it is (param_fn's `value` in the
    step), anything else dq_scalar_rest's way with the same lookup."""
    lookup = ex.env.lookup
    name = p.name
    scopes, names = inner_scopes(ex, name)

    def dq_scalar(out: list[str]) -> None:
        ex._at_empty = False
        if (
            scopes is None
            or (
                (var := scopes[-1].get(name)) is None
                and (name in names or (var := scopes[0].get(name)) is None)
            )
            or var.attrs & NAMEREF
        ):
            var = lookup(name)
        if var is not None and type(var) is Var and type(v := var.value) is str and len(v) <= CHARGE_FROM:
            out.append(v)
        else:
            rest(var, out)

    return dq_scalar


def dq_scalar_rest(ex: Expander, p: A.Param) -> Callable[[Var | None, list[str]], None] | None:
    """For "$x" whose plan is the value itself (fastparam._value): the fields of what looking `x`
    up found (a long string charged, unset, an array's element 0, a reference to elements, `set
    -u`'s error...) added to a command's words, the general way; the caller has set `ex._at_empty`
    to False before the lookup, and adds a plain string within CHARGE_FROM itself. None: another
    shape."""
    if _plan(ex, p) is not _value:
        return None
    add = _dq_value_adder(ex)

    def dq_rest(var: Var | None, out: list[str]) -> None:
        add(general(ex, p, True, None, var), out)

    return dq_rest


def _dq_positional_step(ex: Expander, p: A.Param, index: int) -> Callable[[list[str]], None]:
    """ "$1": the positional parameter's text (param_fn's `positional_text` in the step); past
    the last one, the general way (unset: `set -u`'s error, else one empty field)."""
    positional = ex.env.positional
    charge = ex._charge_word
    add = _dq_value_adder(ex)

    def dq_positional(out: list[str]) -> None:
        ex._at_empty = False
        pos = positional()
        if index <= len(pos) and type(v := pos[index - 1]) is str:
            if len(v) > CHARGE_FROM:
                charge(len(v))
            out.append(v)
        else:
            add(pos[index - 1] if index <= len(pos) else general(ex, p, True, None, NOT_LOOKED), out)

    return dq_positional


def _dq_special_step(ex: Expander, name: str) -> Callable[[list[str]], None]:
    """ "$?", "$#", "$$", "$-": the shell's text of the parameter (what params.base gives for
    them: always a string, never long enough to charge)."""
    special = ex.env.special

    def dq_special(out: list[str]) -> None:
        ex._at_empty = False
        out.append(special(name))

    return dq_special


def arith_step(ex: Expander, p: A.ArithSub, quoted: bool) -> Callable[[list[str]], None]:
    """The fields of the argument $(( )) or "$(( ))" (`f $((n - 1))`, Expander.word's and
    _dq_word's shapes) added to a command's words, with its evaluation bound (_arith_of) and its
    text remembered as a number (text_fn: the callee's `(( n < 2 ))` reads it back unparsed).
    Quoted, its text is the one field; unquoted, Expander.arith_fields splits it by IFS."""
    text = text_fn(_arith_of(ex, p.word))
    if quoted:

        def dq_arith(out: list[str]) -> None:
            ex._at_empty = False  # (as _dq_word: a number is never an empty field)
            out.append(text())

        return dq_arith
    fields = ex.arith_fields

    def arith(out: list[str]) -> None:
        fields(text(), out)

    return arith


def arith_text(ex: Expander, p: A.ArithSub) -> StrFn:
    """The text of $(( )) as arith_step's steps make it (its evaluation bound, the text
    remembered as a number), for a caller that adds the field itself."""
    return text_fn(_arith_of(ex, p.word))


def unquoted_param_step(ex: Expander, p: A.Param) -> Callable[[list[str]], None]:
    """The fields of the argument $p (one unquoted parameter: $x, $1, ${x}, Expander.word's
    shape; with an operator or a prefix, _unquoted_op_step's) added to a command's words, with
    `p`'s plan and lookup bound (`$x` looked up in the step itself): a plain string that is not
    long, holds no default IFS character and nothing to glob is one field while IFS is the
    default; anything else (looked up once) as Expander.unquoted_value_fields makes it."""
    if p.op is not None or p.prefix:
        return _unquoted_op_step(ex, p)
    plan = _plan(ex, p)
    ifs = ex.env.ifs
    fields = ex.unquoted_value_fields
    if plan is _value:  # `$x`: param_fn's `value` in the step (one frame less)
        lookup = ex.env.lookup
        name = p.name
        rest = _unquoted_rest(ex, p)
        scopes, names = inner_scopes(ex, name)

        def unquoted_scalar(out: list[str]) -> None:
            # (letters and digits alone, `$k` of a count: no IFS whitespace and nothing to glob,
            # known from one test, without the four)
            if (
                scopes is None
                or (
                    (var := scopes[-1].get(name)) is None
                    and (name in names or (var := scopes[0].get(name)) is None)
                )
                or var.attrs & NAMEREF
            ):
                var = lookup(name)
            if (
                var is not None
                and type(var) is Var
                and type(value := var.value) is str
                and value
                and len(value) <= CHARGE_FROM
                and (
                    value.isalnum()
                    or not (" " in value or "\t" in value or "\n" in value or maybe_glob(value))
                )
                and ifs() == " \t\n"
            ):
                out.append(value)
            else:
                rest(var, out)

        return unquoted_scalar
    get = _planned_fn(ex, p, plan, False, _same, sys.maxsize)

    def unquoted_param(out: list[str]) -> None:
        value = get()
        if (
            type(value) is str
            and value
            and len(value) <= CHARGE_FROM
            and (value.isalnum() or not (" " in value or "\t" in value or "\n" in value or maybe_glob(value)))
            and ifs() == " \t\n"
        ):
            out.append(value)
        else:
            fields(value, out)

    return unquoted_param


def unquoted_scalar_rest(ex: Expander, p: A.Param) -> Callable[[Var | None, list[str]], None] | None:
    """For an unquoted $x whose plan is the value itself (fastparam._value): the fields of what
    looking `x` up found, the general way (a string split by IFS and globbed, a long one charged,
    unset, an array's element 0, `set -u`'s error...); the caller adds a plain one-field string
    itself, as unquoted_param_step's does. None: another shape."""
    if p.op is not None or p.prefix or _plan(ex, p) is not _value:
        return None
    return _unquoted_rest(ex, p)


def _unquoted_rest(ex: Expander, p: A.Param) -> Callable[[Var | None, list[str]], None]:
    fields = ex.unquoted_value_fields

    def unquoted_rest(var: Var | None, out: list[str]) -> None:
        if var is not None and type(var) is Var and type(value := var.value) is str:
            fields(value, out)
        else:
            fields(general(ex, p, False, None, var), out)

    return unquoted_rest


def _unquoted_op_step(ex: Expander, p: A.Param) -> Callable[[list[str]], None]:
    """The fields of the argument ${x%%,*}, ${m[$k]:-0}, ${#x} (one unquoted parameter with an
    operator or a prefix) as Expander._plain_word makes them from its one part, with `p`'s plan
    (or element closure) bound: a string that is not empty, holds no default IFS character and
    nothing to glob is one field while IFS is the default (charged when long); any other string
    is split and globbed as one expanded segment; nothing or several values (`${a[@]%x}`) go
    through the value's segments, as _plain_word sends them."""
    get = param_fn(ex, p, False, _same, sys.maxsize)
    ifs = ex.env.ifs
    fields = ex._fields
    value_segs = ex._value_segs
    charge = ex._charge_word

    def unquoted_op(out: list[str]) -> None:
        ex._at_empty = False
        value = get()
        if type(value) is str:
            if (
                value
                and (
                    value.isalnum()
                    or not (" " in value or "\t" in value or "\n" in value or maybe_glob(value))
                )
                and ifs() == " \t\n"
            ):
                if len(value) > CHARGE_FROM:
                    charge(len(value))
                out.append(value)
            else:
                fields([(value, EXP)], out)
            return
        segs: list[Seg] = []
        if value is not None:
            value_segs(value, segs, False, False)
        fields(segs, out)

    return unquoted_op


def _same(value: Value) -> Value:
    return value


def param_fn(
    ex: Expander, p: A.Param, in_dq: bool, finish: Callable[[Value], Any], limit: int
) -> Callable[[], Any]:
    """ex.param(p, in_dq) with `p`'s plan bound: a plain string value up to `limit` characters
    as it is, anything else given to `finish`."""
    return _planned_fn(ex, p, _plan(ex, p), in_dq, finish, limit)


def _planned_fn(
    ex: Expander,
    p: A.Param,
    plan: Plan | int | None,
    in_dq: bool,
    finish: Callable[[Value], Any],
    limit: int,
) -> Callable[[], Any]:
    """param_fn with `p`'s plan chosen (_plan)."""
    if plan is None:
        if p.sub is not None and (element := element_fn(ex, p, in_dq, string_fn, join_fn)) is not None:
            # `${m[$k]}`, `${a[i]:-0}`: the subscript's key or index text bound (elements.py)

            def element_text() -> Any:
                v = element()
                return v if type(v) is str and len(v) <= limit else finish(v)

            return element_text
        return lambda: finish(general(ex, p, in_dq, None, NOT_LOOKED))
    if isinstance(plan, int):
        positional = ex.env.positional
        index = plan

        def positional_text() -> Any:
            pos = positional()
            if index <= len(pos):
                v = pos[index - 1]
                return v if type(v) is str and len(v) <= limit else finish(v)
            return finish(general(ex, p, in_dq, None, NOT_LOOKED))

        return positional_text
    lookup = ex.env.lookup
    name = p.name
    scopes, names = inner_scopes(ex, name)
    if plan is _value:  # `$x`: the value itself

        def value() -> Any:
            if (
                scopes is None
                or (
                    (var := scopes[-1].get(name)) is None
                    and (name in names or (var := scopes[0].get(name)) is None)
                )
                or var.attrs & NAMEREF
            ):
                var = lookup(name)
            if var is not None and type(var) is Var and type(v := var.value) is str:
                return v if len(v) <= limit else finish(v)
            return finish(general(ex, p, in_dq, None, var))

        return value
    op = applied(plan)
    if op is not None:  # its function of the value (an ASCII one: a locale's bytes change nothing)
        byte_locale = ex._byte_locale

        def operated() -> Any:
            if (
                scopes is None
                or (
                    (var := scopes[-1].get(name)) is None
                    and (name in names or (var := scopes[0].get(name)) is None)
                )
                or var.attrs & NAMEREF
            ):
                var = lookup(name)
            if (
                var is not None
                and type(var) is Var
                and type(v := var.value) is str
                and (v.isascii() or not byte_locale())
            ):
                got = op(v)
                return got if len(got) <= limit else finish(got)
            return finish(general(ex, p, in_dq, None, var))

        return operated
    if is_length(plan):  # `${#s}`: the value's length
        count = _length_count(ex, name)

        def length_text() -> Any:
            n = count()
            if isinstance(n, int):
                return str(n)  # (a count's few digits are within any limit)
            return finish(general(ex, p, in_dq, None, n))  # (n: what the lookup found)

        return length_text
    planned = plan

    def planned_text() -> Any:
        if (
            scopes is None
            or (
                (var := scopes[-1].get(name)) is None
                and (name in names or (var := scopes[0].get(name)) is None)
            )
            or var.attrs & NAMEREF
        ):
            var = lookup(name)
        if var is not None and type(var) is Var:  # (an ElementsVar is "${A[@]}" unbraced)
            v = var.value
            if type(v) is str and (got := planned(ex, v)) is not None:
                return got if len(got) <= limit else finish(got)
        return finish(general(ex, p, in_dq, None, var))

    return planned_text


def length_fn(ex: Expander, p: A.Param) -> Callable[[], int | Var | None] | None:
    """`${#name}` counted as a number (an arithmetic slot: arithwords.template_fn), with its plan
    and lookup bound; the closure gives what its lookup found (not an int) where the text's way
    must answer (param_fn's general path), and there is no closure (None) when `p` is not
    planned as a length."""
    return _length_count(ex, p.name) if is_length(_plan(ex, p)) else None  # type: ignore[arg-type]


def _length_count(ex: Expander, name: str) -> Callable[[], int | Var | None]:
    """The length of `name`'s value when it is a plain ASCII string of the variable itself or
    of a reference to a name, else the variable found (or None: unset)."""
    lookup = ex.env.lookup
    nameref_target = ex.env.nameref_target
    # the variable last found to be `name`'s own or a reference's to a name (not to an element):
    # a reference to an element reads as a new Var at every lookup (Variables._deref_element),
    # so finding this one again means no reference to an element was followed, and the check
    # of _length (a second search of the scopes) is not needed (it was a sixth of `${#s}`)
    known: Var | None = None
    scopes, names = inner_scopes(ex, name)

    def length_count() -> int | Var | None:
        nonlocal known
        if (
            scopes is not None
            and (
                (var := scopes[-1].get(name)) is not None
                or (name not in names and (var := scopes[0].get(name)) is not None)
            )
            and not var.attrs & NAMEREF
        ):
            # (the variable itself, as lookup finds it: no reference followed)
            if type(v := var.value) is str and v.isascii():
                return len(v)
            return var
        var = lookup(name)
        if var is not None and type(var) is Var and type(v := var.value) is str and v.isascii():
            if var is not known:
                if "[" in (nameref_target(name) or ""):
                    return var
                known = var
            return len(v)
        return var

    return length_count


def inner_scopes(ex: Expander, name: str) -> tuple[list[Scope] | None, Set[str]]:
    """The variable store's scopes and the names bound above its globals (VarStore.local_names)
    when `name`, not a special name, may be read in place (the environment's plain_scopes): bound
    in the innermost scope, or else in the globals when no scope above them binds it, and no
    reference, that binding is what its lookup gives; else None (look it up)."""
    plain = getattr(ex.env, "plain_scopes", None)
    found = plain(name) if plain is not None else None
    return found if found is not None else (None, frozenset())


def _plan(ex: Expander, p: A.Param) -> Plan | int | None:
    at_empty = ex._at_empty  # (choosing expands the static words, which must leave no trace)
    plan = plan_for(ex, p)
    ex._at_empty = at_empty
    return plan


def join_fn(
    ex: Expander, parts: tuple[A.Part, ...], in_dq: bool, dq_word: bool = False, charged: bool = True
) -> StrFn | None:
    """Expander._join_parts(parts, in_dq), `charged` as string() charges its text (`dq_word`:
    the parts of a double-quoted part, which _join_parts and string() begin by leaving "$@"'s
    empty state), or None when a part is neither text, a parameter, an arithmetic expansion, a
    command substitution nor a double-quoted part of those."""
    items: list[str | Callable[[], str]] = []
    for p in parts:
        t = type(p)
        if t is A.Lit or t is A.SQ or t is A.Esc:
            if items and type(items[-1]) is str:  # (text next to text is one piece)
                items[-1] += p.text  # type: ignore[operator, union-attr]
            else:
                items.append(p.text)  # type: ignore[union-attr]
        elif t is A.Param:
            items.append(param_text_fn(ex, p, in_dq, False))  # type: ignore[arg-type]
        elif t is A.ArithSub:
            items.append(text_fn(_arith_of(ex, p.word)))  # type: ignore[union-attr]
        elif t is A.DQ and (inner := join_fn(ex, p.parts, True, True, False)) is not None:  # type: ignore[union-attr]
            items.append(inner)
        elif t is A.CmdSub:  # (its text as _parts gives it: quoted or not, one string is not split)
            items.append(partial(ex.env.command_sub, p))  # type: ignore[arg-type]
        else:
            return None
    pieces = tuple(items)
    charge = ex._charge_text
    limit = CHARGE_FROM if charged else sys.maxsize
    shape = tuple(type(x) is str for x in pieces)
    if shape == (True, False, True):  # `file$k.part`: the commonest shape, without a list
        head, fn, tail = pieces

        def text_around() -> str:
            if dq_word:
                ex._at_empty = False
            text = head + fn() + tail  # type: ignore[operator]
            if len(text) > limit:
                charge(len(text))
            return text

        return text_around
    if shape == (False,):  # `$k` alone (a subscript `a[$i]`, `"$x"`'s parts)
        (only,) = pieces

        def text_one() -> str:
            if dq_word:
                ex._at_empty = False
            text: str = only()  # type: ignore[operator]
            if len(text) > limit:
                charge(len(text))
            return text

        return text_one
    if len(shape) == 2 and shape != (True, True):  # `$a$b`, `x$k`, `$k.x`
        first, second = pieces

        def text_pair() -> str:
            if dq_word:
                ex._at_empty = False
            a = first if type(first) is str else first()  # type: ignore[operator]
            text = a + (second if type(second) is str else second())  # type: ignore[operator]
            if len(text) > limit:
                charge(len(text))
            return text

        return text_pair

    def joined() -> str:
        if dq_word:
            ex._at_empty = False
        text = "".join([x if type(x) is str else x() for x in pieces])  # type: ignore[operator]
        if len(text) > limit:
            charge(len(text))
        return text

    return joined


def _arith_of(ex: Expander, word: A.Word) -> Callable[[], int]:
    """What ex.arith(word) evaluates, bound (arithwords.arith: a literal text as it is)."""
    text = literal_arith(word)
    if text is not None:
        return literal_fn(ex.env, text)
    return arith_fn(ex, word)


def dq_word_step(ex: Expander, parts: tuple[A.Part, ...]) -> Callable[[list[str]], None] | None:
    """The fields of an argument that is one double-quoted string of text, parameters, $(( ))
    and $( ) ("file$k.part", "len += ${#t}": Expander._dq_word's shape) added to a command's
    words, with each parameter's plan and lookup bound (param_fn) and each $(( ))'s evaluation
    (_arith_of): made as _dq_word makes them, step for step (its segments, its charge, the empty
    word's rules), and from a value that is not a plain string ("$@", "${a[@]}") on, the rest
    through Expander.dq_rest as _dq_word goes on, each part still expanded once. None: a part of
    another kind, or a single parameter (dq_param_step's)."""
    if len(parts) < 2:
        return None
    steps: list[tuple[int, Any]] = []
    for q in parts:
        tq = type(q)
        if tq is A.Lit or tq is A.Esc:
            if not q.text:  # type: ignore[union-attr]
                return None  # (an empty text segment that is no QNULL: _dq_word's own)
            steps.append((0, q.text))  # type: ignore[union-attr]
        elif tq is A.Param:
            steps.append((1, param_fn(ex, q, True, _same, sys.maxsize)))  # type: ignore[arg-type]
        elif tq is A.ArithSub:
            steps.append((2, _arith_of(ex, q.word)))  # type: ignore[union-attr]
        elif tq is A.CmdSub:
            steps.append((3, q))
        else:
            return None
    plan = tuple(steps)
    command_sub = ex.env.command_sub
    charge = ex._charge_word
    rest = ex.dq_rest

    def dq_word(out: list[str]) -> None:
        ex._at_empty = False
        texts: list[str] = []  # (the segments' texts: an empty one is an expansion's QNULL)
        for i, (kind, x) in enumerate(plan):
            if kind == 0:
                texts.append(x)
            elif kind == 1:
                value = x()
                if type(value) is str:
                    texts.append(value)
                elif value is not None:
                    rest(parts, i, value, [(t, QUO) if t else QNULL for t in texts], out)
                    return
            elif kind == 2:
                texts.append(str(x()))
            else:
                texts.append(command_sub(x))
        if not texts or (ex._at_empty and not any(texts)):
            if not ex._at_empty:
                out.append("")  # "" or "$unset": one empty field
            return
        text = "".join(texts)
        if len(texts) > 1 or len(text) > CHARGE_FROM:
            charge(len(text))
        out.append(text)

    return dq_word
