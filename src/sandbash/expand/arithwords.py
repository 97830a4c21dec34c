"""Arithmetic words for the Expander: $((...)), subscripts and (( )) texts expanded as bash
does (an expanded subscript backslash-quoted), and templates that evaluate `$n % 3` without
parsing the text again for every value. Each function taking `ex` is an Expander method.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, partial

from ..syntax import ast as A
from ..syntax.lexer import ARITH_EXPANDS
from ..textcache import TextCache
from .arith import ArithError, Template, template_of
from .env import ArithAssignError, ExpansionError
from .fastparam import positional_index
from .segments import CHARGE_FROM

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .env import ExpandEnv
    from .words import Expander


# what bash backslash-quotes in an expanded subscript of an arithmetic text (a translation
# table: str.translate does it in C, several times faster than a regular expression's sub)
_QUOTED = "[]$`~\\'\""
_SUBSCRIPT_QUOTE = str.maketrans({c: "\\" + c for c in _QUOTED})


def subscript_error(e: ArithError) -> ExpansionError:
    """An arithmetic error in an indexed subscript: bash -c exits, a script goes on with its next
    line (and a `((`, `let` or `[[` around it does not name itself in the message)."""
    return ExpansionError(e.render(), 1, exits=True, arith=True)


def quote_subscript(text: str) -> str:
    return text.translate(_SUBSCRIPT_QUOTE)


@cache
def _bracket() -> re.Pattern[str]:
    """A bracket of a subscript: compiled on first use, not by every start-up."""
    return re.compile(r"[][]")


def _arith_lit(text: str, depth: int, out: list[str]) -> int:
    """Literal text of an arithmetic word appended to `out` with what is inside subscripts quoted
    (the `]` that closes the outer `[` stays plain); `depth`: inside how many `[`, returned updated.
    The runs between brackets go in whole."""
    i = 0
    n = len(text)
    while i < n:
        if not depth:
            j = text.find("[", i)
            if j < 0:
                out.append(text[i:])
                break
            out.append(text[i : j + 1])
            depth = 1
        else:
            m = _bracket().search(text, i)
            if m is None:
                out.append(quote_subscript(text[i:]))
                break
            j = m.start()
            if j > i:
                out.append(quote_subscript(text[i:j]))
            if text[j] == "]" and depth == 1:
                depth = 0
                out.append("]")
            else:
                depth += 1 if text[j] == "[" else -1
                out.append("\\" + text[j])
        i = j + 1
    return depth


def literal_arith(word: A.Word | None) -> str | None:
    """The text of an arithmetic word with nothing to expand first (one literal part), else None."""
    if word is not None and len(word.parts) == 1 and type(word.parts[0]) is A.Lit:
        return word.parts[0].text
    return None


def literal_fn(env: ExpandEnv, text: str) -> Callable[[], int]:
    """An evaluation of literal arithmetic text, bound once for a use that repeats: the shell's
    arith_fn (its compiled function looked up directly), arith_eval's for another environment."""
    make: Callable[[str], Callable[[], int]] | None = getattr(env, "arith_fn", None)
    return make(text) if make is not None else partial(env.arith_eval, text)


def arith(ex: Expander, word: A.Word) -> int:
    parts = word.parts
    if len(parts) == 1 and type(parts[0]) is A.Lit:
        return ex.env.arith_eval(parts[0].text)  # (nothing to expand: the text cache parses it once)
    hit = ex._arith_fns.get(id(word))
    if hit is None:
        return arith_bound(ex, word)()
    return hit[1]()


def arith_bound(ex: Expander, word: A.Word) -> Callable[[], int]:
    """arith(ex, word) as a callable, for a word evaluated again and again (a `for ((;;))` part):
    the function arith finds for it, looked up once."""
    parts = word.parts
    if len(parts) == 1 and type(parts[0]) is A.Lit:
        return partial(ex.env.arith_eval, parts[0].text)
    hit = ex._arith_fns.get(id(word))
    if hit is None:
        fns = ex._arith_fns
        if len(fns) >= 4096:
            fns.clear()
        # (the entry holds the node, so its id stays its own)
        hit = fns[id(word)] = (word, arith_fn(ex, word))
    return hit[1]


def arith_fn(ex: Expander, word: A.Word) -> Callable[[], int]:
    """How `word` is evaluated, chosen once per node: as its template (template_fn), or
    as the text it expands to (arith_text), made by the closure of its parts when it is a
    here-document's text (Expander._join_fn)."""
    parts = word.parts
    tpl = word_template(ex, word)
    if tpl is not None:
        return template_fn(ex, tpl)
    arith_eval = ex.env.arith_eval
    if parts and ("[" not in word.text or ARITH_EXPANDS.search(word.text) is None):
        text_fn = ex._join_fn(parts, True)
        if text_fn is not None:
            return partial(_expanded_eval, arith_eval, text_fn)
        return partial(_expanded_eval, arith_eval, partial(ex.arith_text, word))
    return partial(_expanded_eval, arith_eval, arith_join_fn(ex, parts))  # (arith_text's other way)


def word_template(ex: Expander, word: A.Word) -> _Template | None:
    """The template `word` is evaluated as (_arith_template, cached by text), or None: not one,
    or an environment that evaluates no templates (no arith_slots)."""
    if ex._arith_slots is None or not word.parts:
        return None
    hit = _ARITH_TEMPLATES.get(word.text)
    if hit is None:
        tpl = _arith_template(word)
        _ARITH_TEMPLATES.put(word.text, word.text, (tpl,))
        return tpl
    return hit[0]


def nested_error(e: ArithError | ArithAssignError) -> ExpansionError:
    """An arithmetic error while expanding an arithmetic text (`(( $((1/0)) ))`, `${x:1/0}` in
    it, a readonly variable assigned in a `$(( ))` there): an expansion error, not the
    expression's own, as bash reports it (no `((: ` or `[[: ` before it) and acts on it (the
    command line is discarded, status 1)."""
    return ExpansionError(e.render() if isinstance(e, ArithError) else e.message, 1, arith=True)


def _expanded_eval(arith_eval: Callable[[str], int], text_fn: Callable[[], str]) -> int:
    try:
        text = text_fn()
    except (ArithError, ArithAssignError) as e:
        raise nested_error(e) from None
    return arith_eval(text)


def template_values(ex: Expander, tpl: _Template) -> Callable[[], tuple[int | str, ...] | int]:
    """The slots' values of `tpl` as template_fn expands them, for a caller that runs the template
    itself (a generated loop writes its statements in): a tuple of them, or, when the expansions
    make no numbers (template_fn's text way), the text's value already evaluated."""
    return template_fn(ex, tpl, True)  # type: ignore[return-value]


def renamed(e: ArithError, values: tuple[int | str, ...], names: tuple[str, ...]) -> None:
    """An error of a template run with `values` in its slots `names`: the text's (_name_numbers)."""
    _name_numbers(e, {n: str(v) for n, v in zip(names, values, strict=True)})


def template_fn(ex: Expander, tpl: _Template, values: bool = False) -> Callable[[], int]:
    """`$(( $n % 3 ))`, `$(( ${m[$w]:-0} + 1 ))`: each expansion expands as the text would, and when
    every one is a plain decimal number the expression is evaluated as its template (`_sbSlot0_ %
    3`, parsed once, its slots the numbers: arith.Template) instead of parsing the text anew for
    every value. Each expansion is what the text's join would make of it (_part_fn).
    An expansion that is a whole subscript (`m[$w]++`, `a["$k"]`) may also give text: its slot is
    then that text as the text would spell it (quote_subscript's), which is exactly the subscript the
    parser would cut from the text, so `(( count[$word]++ ))` over many words parses once, not once
    per word (only while the text would stay short enough to need no charge: CHARGE_FROM)."""
    compiled_tpl, parts, names, quoted = tpl
    # (an expansion that is a subscript is joined as arith_join_fn joins it: not as in "", quoted)
    inside = iter(quoted)
    steps = tuple(p.text if type(p) is A.Lit else _part_fn(ex, p, not next(inside)) for p in parts)  # type: ignore[union-attr]
    slots = ex._arith_slots
    assert slots is not None
    arith_eval = ex.env.arith_eval
    charged = ex._charged
    if len(names) == 1 and not values:  # `$(( $1 % 3 ))`: one expansion, text around it (_arith_template)
        i = next(j for j, step in enumerate(steps) if type(step) is not str)
        get = steps[i]
        name = names[0]
        quote = quoted[0]
        before = "".join(steps[:i])  # type: ignore[arg-type]
        after = "".join(steps[i + 1 :])  # type: ignore[arg-type]
        outside = len(before) + len(after)

        def one_slot() -> int:
            try:
                v = get()  # type: ignore[operator]
            except (ArithError, ArithAssignError) as e:  # (as the text's join reports it: _expanded_eval)
                raise nested_error(e) from None
            return slot_of(v)

        def slot_of(v: str) -> int:
            """The expression's value with `v`, the slot's text, in place."""
            if len(v) < 19 and v.isdigit() and v.isascii() and (v[0] != "0" or len(v) == 1):
                try:
                    return slots(compiled_tpl, (int(v),))
                except ArithError as e:
                    _name_numbers(e, {name: v})
                    raise
            if quote and not v.isalnum():
                v = v.translate(_SUBSCRIPT_QUOTE)
            if quote and v and len(v) + outside <= CHARGE_FROM:
                # a whole subscript (`m[$w]++`, w=k123): the key's text is the slot (see template_fn)
                try:
                    return slots(compiled_tpl, (v,))
                except ArithError as e:
                    _name_numbers(e, {name: v})
                    raise
            return arith_eval(charged(before + v + after))  # (see template_eval)

        part = parts[i]
        index = positional_index(part) if type(part) is A.Param else 0
        if index:
            positional = ex.env.positional

            def positional_slot() -> int:
                # `$(( $1 % 3 ))`: the positional parameter read in place when it is a plain
                # decimal number (slot_of's first case); anything else, one_slot's way
                pos = positional()
                if index <= len(pos):
                    v = pos[index - 1]
                    if len(v) < 19 and v.isdigit() and v.isascii() and (v[0] != "0" or len(v) == 1):
                        try:
                            return slots(compiled_tpl, (int(v),))
                        except ArithError as e:
                            _name_numbers(e, {name: v})
                            raise
                return one_slot()

            return positional_slot
        number = ex._count_number_fn(part) if type(part) is A.Param and not quote else None  # type: ignore[arg-type]
        if number is not None:

            def count_slot() -> int:
                # `k < ${#a[@]}`: an array's count is the slot's number itself; anything else
                # gives the text the expansion gives (elements.count_number_fn)
                try:
                    n = number()
                except (ArithError, ArithAssignError) as e:
                    raise nested_error(e) from None
                if type(n) is not int:
                    return slot_of(n)  # type: ignore[arg-type]
                try:
                    return slots(compiled_tpl, (n,))
                except ArithError as e:
                    _name_numbers(e, {name: str(n)})
                    raise

            return count_slot
        count = ex._length_fn(part) if type(part) is A.Param and not quote else None  # type: ignore[arg-type]
        if count is not None:

            def length_slot() -> int:
                # `(( len += ${#t} ))`: the count is the slot's number itself (what its text,
                # a plain decimal, would be read as); a value the count declines, the text's way
                n = count()
                if type(n) is not int:  # (looked up again: no dynamic variable, whose lookups
                    # may differ, declines: their values are ASCII strings)
                    return one_slot()
                try:
                    return slots(compiled_tpl, (n,))
                except ArithError as e:
                    _name_numbers(e, {name: str(n)})
                    raise

            return length_slot

        return one_slot

    # (an array's count, `${#a[@]}`, gives its number itself: elements.count_number_fn)
    expansions = [p for p in parts if type(p) is not A.Lit]
    getters: tuple[Callable[[], str | int], ...] = tuple(
        (ex._count_number_fn(p) if type(p) is A.Param and not q else None) or step  # type: ignore[arg-type, misc]
        for p, q, step in zip(expansions, quoted, [s for s in steps if type(s) is not str], strict=True)
    )
    literal = sum(len(step) for step in steps if type(step) is str)

    def evaluate(values: list[str | int]) -> int:
        """The expression with the expansions' values, each expanded once already."""
        numbers = slot_values(values)
        if type(numbers) is not tuple:
            return numbers  # type: ignore[return-value]  # (the text's value)
        try:
            return slots(compiled_tpl, numbers)
        except ArithError as e:
            renamed(e, numbers, names)
            raise

    def slot_values(values: list[str | int]) -> tuple[int | str, ...] | int:
        """The slots' numbers (or whole subscripts' texts) the values make; or, when they make
        none, the value of the text they expand it to."""
        numbers: list[int | str] = []
        keys = 0  # the length of the whole subscripts given as text (see template_fn)
        for v, q in zip(values, quoted, strict=True):
            if isinstance(v, int):
                numbers.append(v)
            elif len(v) < 19 and v.isdigit() and v.isascii() and (v[0] != "0" or len(v) == 1):
                numbers.append(int(v))
            elif q and v:
                key = v if v.isalnum() else v.translate(_SUBSCRIPT_QUOTE)
                keys += len(key)
                numbers.append(key)
            else:
                keys = CHARGE_FROM + 1
                break
        if keys and keys + literal > CHARGE_FROM:
            # the text, from the values already expanded (each `$RANDOM` expands once)
            left = iter(
                [
                    str(w)
                    if isinstance(w, int)
                    else w.translate(_SUBSCRIPT_QUOTE)
                    if q and not w.isalnum()
                    else w
                    for w, q in zip(values, quoted, strict=True)
                ]
            )
            return arith_eval(charged("".join([s if type(s) is str else next(left) for s in steps])))  # type: ignore[misc]
        return tuple(numbers)

    def template_eval() -> int:
        try:
            values = [get() for get in getters]
        except (ArithError, ArithAssignError) as e:
            raise nested_error(e) from None
        return evaluate(values)

    def slots_of() -> tuple[int | str, ...] | int:
        # (template_values: the numbers for the caller to run the template with)
        try:
            values = [get() for get in getters]
        except (ArithError, ArithAssignError) as e:
            raise nested_error(e) from None
        return slot_values(values)

    if values:
        return slots_of  # type: ignore[return-value]

    if len(getters) != 2:
        return template_eval
    first, second = getters
    pair = names[0], names[1]

    def two_slots() -> int:
        # (`$((c + ${#f[@]} + ${f[2]}))`, `$(( $a * $b ))`: template_eval without its lists when
        # both values are numbers or plain decimals; anything else, its way with them)
        try:
            a = first()
            b = second()
        except (ArithError, ArithAssignError) as e:
            raise nested_error(e) from None
        if isinstance(a, str):
            if not (len(a) < 19 and a.isdigit() and a.isascii() and (a[0] != "0" or len(a) == 1)):
                return evaluate([a, b])
            a = int(a)
        if isinstance(b, str):
            if not (len(b) < 19 and b.isdigit() and b.isascii() and (b[0] != "0" or len(b) == 1)):
                return evaluate([a, b])
            b = int(b)
        try:
            return slots(compiled_tpl, (a, b))
        except ArithError as e:
            _name_numbers(e, {pair[0]: str(a), pair[1]: str(b)})
            raise

    return two_slots


def _name_numbers(e: ArithError, values: dict[str, str]) -> None:
    """The message the text would give: the slots' names become their numbers again."""
    text, token = e.text, e.token
    for name, value in values.items():
        text, token = text.replace(name, value), token.replace(name, value)
    e.text, e.token = text, token


def arith_text(ex: Expander, word: A.Word) -> str:
    """The text of an arithmetic expression, expanded. When bash expands it fully, what a
    subscript expands to is backslash-quoted so the evaluator does not expand it again
    (subst.c's expand_array_subscript): `A[$k]` uses $k's value as the key, whatever it holds."""
    parts = word.parts
    if len(parts) == 1 and type(parts[0]) is A.Lit:
        return parts[0].text
    if "[" not in word.text or ARITH_EXPANDS.search(word.text) is None:
        return ex.heredoc(word)
    out: list[str] = []
    ex._arith_join(parts, out, 0)
    return ex._charged("".join(out))


def arith_join_fn(ex: Expander, parts: tuple[A.Part, ...]) -> Callable[[], str]:
    """What arith_join(parts) appends from depth 0, joined and charged (arith_text, arith_operand),
    as a closure. How deep in brackets each part is depends on the literal text alone, so what each
    literal becomes and which expansions are quoted is decided once: `a[$k] + 1` and `-v m[$k]`
    expand `$k` and quote it, without scanning the brackets at every use."""
    steps: list[tuple[str, Callable[[], str] | None, bool]] = []

    def walk(parts: tuple[A.Part, ...], depth: int) -> int:
        for p in parts:
            t = type(p)
            if t is A.Lit:
                out: list[str] = []
                depth = _arith_lit(p.text, depth, out)  # type: ignore[union-attr]
                steps.append(("".join(out), None, False))
            elif depth:
                if t is A.SQ or t is A.Esc:
                    steps.append((quote_subscript(p.text), None, False))  # type: ignore[union-attr]
                else:  # (_join_parts((p,), False), quoted)
                    steps.append(("", _part_fn(ex, p, False), True))
            elif t is A.DQ:
                depth = walk(p.parts, depth)  # type: ignore[union-attr]
            else:  # (_join_parts((p,), True))
                steps.append(("", _part_fn(ex, p, True), False))
        return depth

    walk(parts, 0)
    plan = tuple(steps)
    charge = ex._charge_text

    def arith_joined() -> str:
        out: list[str] = []
        for text, fn, quote in plan:
            if fn is None:
                out.append(text)
            elif quote:
                v = fn()
                out.append(v if v.isalnum() else v.translate(_SUBSCRIPT_QUOTE))  # (a word: nothing to quote)
            else:
                out.append(fn())
        text = "".join(out)
        if len(text) > CHARGE_FROM:
            charge(len(text))
        return text

    return arith_joined


def _part_fn(ex: Expander, p: A.Part, in_dq: bool) -> Callable[[], str]:
    """What ex._join_parts((p,), in_dq) gives, as a closure: a parameter's text with its plan
    and lookup bound (stringfn.param_text_fn, as join_fn binds it), other parts as join_fn makes them."""
    if type(p) is A.Param:
        return ex._param_text_fn(p, in_dq, False)  # type: ignore[arg-type]
    inner = p.parts if type(p) is A.DQ else ()  # type: ignore[union-attr]
    if len(inner) == 1 and type(inner[0]) is A.Param:  # `m["$k"]`
        text = ex._param_text_fn(inner[0], True, False)

        def dq_param() -> str:
            ex._at_empty = False  # (as _join_parts does for a double-quoted part)
            return text()

        return dq_param
    return ex._join_fn((p,), in_dq, charged=False) or partial(ex._join_parts, (p,), in_dq)


def arith_operand(ex: Expander, word: A.Word) -> str:
    """An operand of [[ a -eq b ]]: a word expanded with its subscripts quoted (as arith_text)."""
    if "[" not in word.text:
        return ex.string(word)
    out: list[str] = []
    ex._arith_join(word.parts, out, 0)
    return ex._charged("".join(out))


def arith_join(ex: Expander, parts: tuple[A.Part, ...], out: list[str], depth: int) -> int:
    """Append the expanded `parts` to `out`; `depth`: inside how many `[` (returned updated)."""
    for p in parts:
        t = type(p)
        if t is A.Lit:
            depth = _arith_lit(p.text, depth, out)  # type: ignore[union-attr]
        elif depth:
            text = p.text if t is A.SQ or t is A.Esc else ex._join_parts((p,), False)  # type: ignore[union-attr]
            out.append(quote_subscript(text))
        elif t is A.DQ:
            depth = ex._arith_join(p.parts, out, depth)  # type: ignore[union-attr]
        else:
            out.append(ex._join_parts((p,), True))
    return depth


# (the template, the word's parts, its slots' names, whether each is a whole subscript)
_Template = tuple[Template, tuple[A.Part, ...], tuple[str, ...], tuple[bool, ...]]

# arithmetic word text -> (its template,): process-wide, so bounded in the text behind it and
# keeping nothing from a long text, whose compiled template holds ~100 bytes a character (T-TEN-5)
_ARITH_TEMPLATES: TextCache[str, tuple[_Template | None]] = TextCache()

_SLOT = "_sbSlot"

_IDENT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")

# what, next to a `$x`, would make its number part of another token or an assignment's target
_BEFORE_BAD = _IDENT | frozenset("#.$\\'\"`@")

_AFTER_BAD = _IDENT | frozenset("#.[($\\'\"`@")


@cache
def _assign_after() -> re.Pattern[str]:
    """An assignment or increment operator after a name: compiled on first use, not by every start-up."""
    return re.compile(r"\s*(?:\+\+|--|(?:[-+*/%&|^]|<<|>>)?=(?!=))")  # our own fixed pattern


def _slot_part(p: A.Part) -> bool:
    """Whether `p` may be a template's slot: an expansion that gives one text (a parameter with any
    operator but the `$@`/`${a[*]}` kinds that join many, unless counted with `#`; `$(( ))`; `$( )`)."""
    t = type(p)
    if t is A.ArithSub or t is A.CmdSub:
        return True
    if t is not A.Param or p.names_suffix:  # type: ignore[union-attr]
        return False
    return p.prefix == "#" or not (p.name in ("@", "*") or p.sub in ("@", "*"))  # type: ignore[union-attr, operator]


def _holds_commands(text: str) -> bool:
    """Whether `text` may hold a command substitution (`$(`, backquotes, `<(`/`>(`): its parsed
    body depends on the run that read it (POSIX mode expands the run's aliases into it), so its
    nodes must never be shared through the process-wide template cache (T-TEN-5)."""
    return "`" in text or "<(" in text or ">(" in text or "$(" in text.replace("$((", "")


def _arith_template(word: A.Word) -> _Template | None:
    """The template of an arithmetic word of literal text and expansions (_slot_part: `$x`, `$1`,
    `${m[$w]:-0}`, `${#s}`, `$(( ))`, each one a whole operand, never an assignment's target), or
    None: such a word's text differs from the template only by numbers where the slots are, when
    every expansion gives a decimal number. An expansion may also be a whole subscript (`m[$k]`,
    `m["$k"]`: the subscript's text is the number, as quote_subscript leaves digits alone); else
    no expansion is inside brackets, and the literal text inside them is one arith_join_fn would
    not quote (nothing nested)."""
    parts = word.parts
    if not word.text or _SLOT in word.text or _holds_commands(word.text):
        return None
    pieces: list[str] = []
    names: list[str] = []
    quoted: list[bool] = []
    depth = 0
    for i, p in enumerate(parts):
        t = type(p)
        if t is A.Lit:
            text: str = p.text  # type: ignore[union-attr]
            for c in text:
                if c == "[":
                    depth += 1
                elif c == "]":
                    depth -= 1
                elif depth and c in _QUOTED:
                    return None  # (arith_join_fn would quote it)
                if depth > 1 or depth < 0:
                    return None
            pieces.append(text)
            continue
        prev, nxt = parts[i - 1] if i else None, parts[i + 1] if i + 1 < len(parts) else None
        if (prev is not None and type(prev) is not A.Lit) or (nxt is not None and type(nxt) is not A.Lit):
            return None  # `$a$b`: one number made of two
        before = prev.text if prev is not None else ""  # type: ignore[union-attr]
        after = nxt.text if nxt is not None else ""  # type: ignore[union-attr]
        if depth:
            # a whole subscript: `[` right before and `]` right after (`m[$k+1]` is text)
            inner = p.parts if t is A.DQ else ()  # type: ignore[union-attr]
            single = _slot_part(p) or (len(inner) == 1 and _slot_part(inner[0]))
            if not single or not before.endswith("[") or not after.startswith("]"):
                return None
        else:
            if not _slot_part(p):
                return None
            if (before and before[-1] in _BEFORE_BAD) or (after and after[0] in _AFTER_BAD):
                return None
            if before.rstrip().endswith(("++", "--")) or _assign_after().match(after):
                return None
        name = f"{_SLOT}{len(names)}_"
        names.append(name)
        quoted.append(depth > 0)
        pieces.append(name)
    if not names or depth:
        return None
    try:
        tpl = template_of("".join(pieces), tuple(names))
    except ArithError:
        return None  # the text itself reports the error
    return None if tpl is None else (tpl, parts, tuple(names), tuple(quoted))
