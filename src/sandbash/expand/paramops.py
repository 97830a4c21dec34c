"""The operators of ${name op word}: tests (:- := :? :+), trimming (# ## % %%), substitution
(/ // /# /%), case (^ ,), slices (:off:len) and transformations (@Q @a ...). Each function
taking `ex` is an Expander method (bound in words.py).
"""

from __future__ import annotations

from collections.abc import Callable

from ..shvars.arrays import AssocArray, IndexedArray
from ..shvars.vars import ATTR_LETTERS, CAPITALIZE, INTEGER, LOWER, NAMEREF, UPPER, Var
from ..syntax import ast as A
from ..syntax.ast import Op, OpKind
from ..syntax.escapes import decode_escapes, locale_escapes
from ..syntax.lexer import tilde_prefix
from . import casemap
from .arith import ArithError
from .arithwords import literal_fn
from .env import ExpansionError
from .params import SliceArithError, parse_ref
from .pattern import as_bytes, bash_matchlen, compile_pattern, escape, from_bytes
from .quoting import assoc_key, declare_quote, quote_reusable
from .segments import (
    BRK_SEG,
    DECL_WORDS,
    EXP,
    JOIN_IFS,
    JOIN_IFS_DQ,
    LIT,
    ONE_NULL_IFS,
    QUO,
    SET_WORDS,
    Multi,
    Seg,
    Segs,
    Value,
    as_text,
    static_word,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .words import Expander


# operator families bound once: reading a member off an Enum class costs about 0.2 us on 3.11,
# a tenth of a ${x:-y}
_TEST, _SLICE, _XFORM, _REPL, _TRIM = OpKind.TEST, OpKind.SLICE, OpKind.XFORM, OpKind.REPL, OpKind.TRIM


def apply_op(ex: Expander, p: A.Param, op: A.ParamOp, base: Value, desc: str, in_dq: bool) -> Value:
    kind = op.kind
    if kind is _TEST:
        return ex._test_op(p, op, base, desc, in_dq)
    if base is None:
        if not (kind is _XFORM and op.op in (Op.AT_ATTRIBUTES, Op.AT_ASSIGNMENT) and ex._has_elements(p)):
            ex._check_unset(desc, p)  # (${a@a}: an array with elements is set, whatever a[0])
        if kind is _XFORM:
            if op.op in (Op.AT_ATTRIBUTES, Op.AT_ASSIGNMENT) and p.name not in ("@", "*"):
                return ex._xform(p, op.op, None)
            return None
        return None
    if kind is _SLICE:
        return ex._slice(p, op, base)
    if kind is _XFORM:
        return ex._xform(p, op.op, base)
    fn = ex._op_function(op, bytewise_op(ex, base))
    if isinstance(base, Multi):
        if kind is _TRIM:  # (one word with a null IFS: an array's, not the positional parameters')
            join = JOIN_IFS if p.name in ("@", "*") else JOIN_IFS | ONE_NULL_IFS
        else:
            join = JOIN_IFS_DQ
        return Multi(each_charged(ex, fn, base.values), base.star, join)
    return fn(as_text(base) or "")


def each_charged(ex: Expander, fn: Callable[[str], str], values: list[str]) -> list[str]:
    """`fn` of each element, the results charged to the run's memory while the list is made: each
    result is within max_string_length, but `${a[@]/*/$long}` over 20,000 elements held 2 GB
    before the word was charged (the charge is given back once the list is made)."""
    rt = ex._rt
    if rt is None:
        return [fn(v) for v in values]
    budget = rt.budget
    out: list[str] = []
    held = 0
    try:
        for v in values:
            r = fn(v)
            n = len(r)
            if n > 256:  # short results cost what the elements did
                budget.charge_memory(n)
                held += n
            out.append(r)
    finally:
        if held:
            budget.release_memory(held)
    return out


def bytewise_op(ex: Expander, base: Value) -> bool:
    """Whether a trim, substitution or case change of `base` works on bytes: a non-ASCII value
    while the locale is C/POSIX (an ASCII one gives the same either way: the locale is not read)."""
    if isinstance(base, Multi):
        if all(v.isascii() for v in base.values):
            return False
    elif (text := as_text(base)) is None or text.isascii():
        return False
    return ex._byte_locale()


def op_function(ex: Expander, op: A.ParamOp, bytewise: bool = False) -> Callable[[str], str]:
    env = ex.env
    extglob = env.option("extglob")
    # a substitution also depends on patsub_replacement and nocasematch (bash 4.4+)
    amp = env.option("patsub_replacement") | env.option("nocasematch") << 1 if op.kind is _REPL else 0
    if bytewise:  # (C/POSIX on a non-ASCII value: made each time, the cache holds the UTF-8 one)
        return ex._make_op_function(op, extglob, True)
    cache = ex._op_cache
    hit = cache.get(id(op))
    if hit is not None and hit[0] is op:
        if hit[3] is not None and hit[1] == extglob and hit[2] == amp:
            return hit[3]
        static = hit[3] is not None
    else:
        # words of plain text (`${x%%.*}`, `${x//a/b}`) make the same function each time
        static = static_word(op.arg) and static_word(op.arg2) and _tilde_prefix(op) is None
    fn = ex._make_op_function(op, extglob)
    if len(cache) > 1024:
        cache.clear()
    cache[id(op)] = (op, extglob, amp, fn if static else None)
    return fn


def _tilde_prefix(op: A.ParamOp) -> str | None:
    """The user part of a tilde prefix that leads the pattern of a trim or of `/`, `//` (bash
    expands it there: `${p//~/x}` replaces the home directory; not after `/#`, `/%`), when the
    whole prefix is plain text; else None."""
    word = op.arg
    if (
        word is None
        or op.op in (Op.REPLACE_PREFIX, Op.REPLACE_SUFFIX)
        or op.kind not in (OpKind.TRIM, OpKind.REPL)
    ):
        return None
    parts = word.parts
    if not parts or type(parts[0]) is not A.Lit:
        return None
    text = parts[0].text  # type: ignore[union-attr]
    if not text.startswith("~"):
        return None
    end = text.find("/")
    if end < 0 and len(parts) > 1:
        return None  # (the prefix goes on into a quoted or expanded part: no tilde expansion)
    return text[1:end] if end >= 0 else text[1:]


def _op_pattern(ex: Expander, op: A.ParamOp) -> str:
    """The pattern of a trim or substitution, a leading tilde prefix expanded (_tilde_prefix)."""
    word = op.arg
    assert word is not None
    user = _tilde_prefix(op)
    home = ex.env.home_dir(user) if user is not None else None
    if home is None:
        return ex.pattern(word)
    first = word.parts[0]
    assert isinstance(first, A.Lit)
    rest = A.Word((A.Lit(first.text[1 + len(user or "") :]), *word.parts[1:]), word.line, word.text, word.col)
    return escape(home) + ex.pattern(rest)


def make_op_function(
    ex: Expander, op: A.ParamOp, extglob: bool, bytewise: bool = False
) -> Callable[[str], str]:
    """The trim, substitution or case change `op` as a function of a value; `bytewise`: as the
    C locale does it, a byte a character (pattern, replacement and value in pattern.as_bytes'
    form, the result turned back): `?` takes a byte, a case change only ASCII letters."""
    if not bytewise:
        return _op_made(ex, op, extglob, _same)
    fn = _op_made(ex, op, extglob, as_bytes)
    return lambda s: from_bytes(fn(as_bytes(s)))


def _same(text: str) -> str:
    return text


def _op_made(ex: Expander, op: A.ParamOp, extglob: bool, form: Callable[[str], str]) -> Callable[[str], str]:
    env = ex.env
    kind = op.kind
    if kind is OpKind.TRIM:
        assert op.arg is not None
        pat = compile_pattern(form(_op_pattern(ex, op)), extglob)
        o = op.op
        if o is Op.SHORT_PREFIX:
            return lambda s: s[k:] if (k := pat.prefix_len(s, False)) >= 0 else s
        if o is Op.LONG_PREFIX:
            return lambda s: s[k:] if (k := pat.prefix_len(s, True)) >= 0 else s
        if o is Op.SHORT_SUFFIX:
            return lambda s: s[:k] if (k := pat.suffix_start(s, False)) >= 0 else s
        return lambda s: s[:k] if (k := pat.suffix_start(s, True)) >= 0 else s
    if kind is OpKind.REPL:
        assert op.arg is not None
        pat_text = _op_pattern(ex, op)
        amp = env.option("patsub_replacement")
        rep = ex._replacement(op.arg2, amp) if op.arg2 is not None else ""
        return _replacer(
            op.op,
            form(pat_text),
            form(rep),
            extglob,
            amp and _amp_expands(rep),
            env.check_string,
            env.option("nocasematch"),
            _clock(ex),
        )
    if kind is OpKind.CASE:
        pat_src = ex.pattern(op.arg) if op.arg is not None else None
        cpat = compile_pattern(form(pat_src), extglob) if pat_src else None
        # ^ upper, , lower, ~ toggle: a character at a time, as bash (expand/casemap.py)
        one = {"^": casemap.upper_char, ",": casemap.lower_char}.get(op.op[0], casemap.toggle_char)
        only = cpat.fullmatch if cpat is not None else None
        if op.op in (Op.UPPER_ALL, Op.LOWER_ALL, Op.TOGGLE_ALL):
            if only is None:
                return {"^": casemap.upper, ",": casemap.lower}.get(op.op[0], casemap.toggle)
            return lambda s: casemap.convert(s, one, only)
        return lambda s: casemap.convert(s[:1], one, only) + s[1:]  # (the first character only)
    raise ExpansionError(f"{op.op}: bad substitution")


def test_op(ex: Expander, p: A.Param, op: A.ParamOp, base: Value, desc: str, in_dq: bool) -> Value:
    o = op.op
    colon = o[0] == ":"
    if isinstance(base, Multi):
        values = base.values
        is_unset = not values
        if in_dq and desc[:1] == "!":
            # "${!ref:-x}" with ref=a[@], a[*] or @ (desc names the reference): bash tests the
            # quoted expansion, whose empty string is a quoted null, not null: only a list
            # without elements takes the word
            is_null = is_unset
        elif base.star and in_dq:
            # "${a[*]:-x}": the joined string decides
            is_null = is_unset or ex.env.ifs()[:1].join(values) == ""
        else:
            is_null = is_unset or (len(values) == 1 and values[0] == "")
    else:
        is_unset = base is None
        is_null = is_unset or base == ""
    missing = is_null if colon else is_unset
    letter = o[-1]
    if letter == "+":
        if missing:
            if isinstance(base, Multi) and not base.star:
                # like an empty "$@": the word disappears even in quotes
                ex._at_empty = True
            return None
        return ex._alt_value(op.arg, in_dq)
    if not missing:
        return base
    if letter == "-":
        return ex._alt_value(op.arg, in_dq) if op.arg is not None else ""
    if letter == "=":
        if p.name in ("@", "*") or p.name[0].isdigit() or p.name in ("#", "?", "$", "!", "-"):
            raise ExpansionError(f"${p.name}: cannot assign in this way")
        value = ex.value(op.arg) if op.arg is not None else ""
        name, sub, parsed = p.name, p.sub, p.subscript
        ref = ex.env.nameref_target(name)
        if ref is not None:
            t = parse_ref(ref)
            if t is not None:
                name, sub, parsed = t.name, t.sub, None
        if sub is not None:
            sub = ex._subscript_once(name, sub, parsed)
        ex.env.assign_default(name, sub, value)
        var = ex.env.lookup(name)
        if var is not None and var.attrs & (INTEGER | LOWER | UPPER | CAPITALIZE):
            # the value as the variable's attributes made it (declare -u: FOO)
            got = ex._base(A.Param(name, sub))[0]
            return got if isinstance(got, str) else value
        return value
    # '?'
    word = op.arg
    if word is not None and word.parts:
        # bash expands the word as a command's words whatever quotes ${...} is in (expand_string:
        # split at IFS, never globbed) and joins them with spaces: `"${u?$*}"` and `${u?$x}`
        # with x=p,q are `p q` under IFS=,; a word that expands to nothing (`${u?$e}`,
        # `${u?""}`) is an empty message, not the default one
        first = word.parts[0]
        if type(first) is A.Lit and first.text[:1] == "~":
            # a leading tilde is expanded there inside double quotes too: `"${u?~}"` says $HOME
            word = A.Word(tuple(tilde_prefix(list(word.parts))), word.line, word.text, word.col)
        glob_off, ex._glob_off = ex._glob_off, True
        try:
            msg = ex.spaced(lambda: " ".join(ex.word(word)))  # ("${!a[@]}" in v=...: spaces too)
        finally:
            ex._glob_off = glob_off
    else:
        msg = "parameter null or not set" if colon else "parameter not set"
    raise ExpansionError(f"{desc}: {msg}", 127)


def alt_value(ex: Expander, word: A.Word | None, in_dq: bool) -> Value:
    """The word of ${x:-word} and friends. It keeps its own quoting: outside
    double quotes its unquoted text is split like an expansion."""
    if word is None:
        return ""
    segs: list[Seg] = []
    ex._parts(word.parts, segs, in_dq, nosplit2=not in_dq)
    if in_dq:
        if BRK_SEG in segs:
            return Segs(segs)  # "${u:-${a[@]}}" keeps the array's fields
        return "".join(s[0] for s in segs)
    return Segs([(t, EXP if f == LIT else f) for t, f in segs])


def slice_number(ex: Expander, p: A.Param, word: A.Word) -> int:
    """An offset or length of ${p:off:len}; an arithmetic error names the parameter as bash does."""
    text = ex.arith_text(word)
    if not text.strip():
        return 0
    try:
        return ex.env.arith_eval(text)
    except ArithError as e:
        shown = p.name + (f"[{p.sub}]" if p.sub is not None else "")
        raise SliceArithError(e, shown) from None


def offset_in_range(ex: Expander, p: A.Param, base: Value, offset: int) -> bool:
    """False when bash drops ${p:off:len} to nothing before it evaluates the length
    (subst.c's verify_substring_values: arrays count to their highest index, "$@" from $0)."""
    if isinstance(base, Multi):
        if p.name in ("@", "*"):
            count = len(base.values) + 1 + (offset == 0)
        else:
            var = ex.env.lookup(p.name)
            arr = var.value if var is not None else None
            top = arr.max_index() if isinstance(arr, IndexedArray) else len(base.values)
            count = top + (offset < 0)
    else:
        assert isinstance(base, str)
        count = len(base)
    return -count <= offset <= count


def slice_value(ex: Expander, p: A.Param, op: A.ParamOp, base: Value, as_bytes: bool = False) -> Value:
    assert op.arg is not None
    star = base.star if isinstance(base, Multi) else None
    if star is not None and p.name not in ("@", "*"):
        var = ex.env.lookup(p.name)
        if var is not None and isinstance(var.value, str):
            base = var.value  # ${scalar[@]:1}: bash slices the string
    if not as_bytes and isinstance(base, str) and not base.isascii() and ex._byte_locale():
        # a C locale slices bytes: each byte a character of its own while slicing
        raw = base.encode("utf-8", "surrogateescape").decode("latin-1")
        cut = ex._slice(p, op, raw, as_bytes=True)
        assert isinstance(cut, str)
        return cut.encode("latin-1").decode("utf-8", "surrogateescape")
    if isinstance(base, str) and star is None:
        return slice_text(ex, p, op, base)
    if isinstance(base, Multi) and not base.values and p.name not in ("@", "*"):
        return Multi([], base.star)  # an array without elements: bash evaluates neither number
    offset = ex._slice_number(p, op.arg)
    if not ex._offset_in_range(p, base, offset):
        return Multi([], star) if star is not None else ""  # length is not evaluated
    length = None if op.arg2 is None else ex._slice_number(p, op.arg2)
    if isinstance(base, str):  # ${scalar[@]:1}: the string's slice (out of range: no field)
        return cut_text(base, offset, length, op)
    assert isinstance(base, Multi)
    values = base.values
    if p.name in ("@", "*"):
        values = [ex.env.special("0")] + values
        if offset < 0:
            offset += len(values)
            if offset < 0:
                return Multi([], base.star)
        sel = values[offset:]
    else:
        var = ex.env.lookup(p.name)
        arr = var.value if var is not None else None
        if isinstance(arr, IndexedArray):
            keys = arr.keys()
            if offset < 0:
                offset += arr.max_index() + 1
                if offset < 0:
                    return Multi([], base.star)
            sel = [arr.get(k) or "" for k in keys if k >= offset]
        else:
            if offset < 0:
                offset += len(values) + isinstance(arr, AssocArray)
                if offset < 0:
                    return Multi([], base.star)
            if isinstance(arr, AssocArray) and offset:
                offset -= 1  # bash counts an associative array's elements from 1 here (0 is 1)
            sel = values[offset:]
    if length is not None:
        if length < 0:
            raise ExpansionError(f"{op.arg2.text if op.arg2 else length}: substring expression < 0", 1)
        sel = sel[:length]
    return Multi(sel, base.star, JOIN_IFS_DQ)


def slice_text(ex: Expander, p: A.Param, op: A.ParamOp, s: str) -> str:
    """${p:off:len} of a string value: the offset evaluated, then (when it is within the value:
    bash drops the slice to nothing before it evaluates the length) the length."""
    assert op.arg is not None
    offset = ex._slice_number(p, op.arg)
    n = len(s)
    if not -n <= offset <= n:
        return ""  # length is not evaluated
    return cut_text(s, offset, None if op.arg2 is None else ex._slice_number(p, op.arg2), op)


def cut_text(s: str, offset: int, length: int | None, op: A.ParamOp) -> str:
    """`s` from `offset` (within -len(s)..len(s)) for `length` characters (None: to the end; below
    zero: up to that many from the end)."""
    n = len(s)
    if offset < 0:
        offset += n
    if length is None:
        return s[offset:]
    if length < 0:
        end = n + length
        if end < offset:
            raise ExpansionError(f"{op.arg2.text if op.arg2 else length}: substring expression < 0", 1)
        return s[offset:end]
    return s[offset : offset + length]


def slice_text_fn(ex: Expander, p: A.Param, op: A.ParamOp) -> Callable[[Expander, str], str]:
    """slice_text for `p` and `op` in `ex` (fastparam's plan of a scalar's slice whose offset or
    length is an expression: `${s:i:1}`, `${s: -1}`, `${s:$k:n-k}`; plans are kept per expander),
    with each number's reading chosen once: a literal expression's compiled function is bound
    (arithwords.literal_fn), without expanding the text and looking it up at each use."""
    assert op.arg is not None
    offset_of = _number_fn(ex, p, op.arg)
    length_of = None if op.arg2 is None else _number_fn(ex, p, op.arg2)

    def slice_of(ex: Expander, s: str) -> str:
        offset = offset_of(ex)
        n = len(s)
        if not -n <= offset <= n:
            return ""  # length is not evaluated
        return cut_text(s, offset, None if length_of is None else length_of(ex), op)

    return slice_of


def _number_fn(ex: Expander, p: A.Param, word: A.Word) -> Callable[[Expander], int]:
    """slice_number(ex, p, word) as a function of the expander: one text of plain characters is
    evaluated as it is (what arith_text gives for it), one `$(( ))` is its value (the decimal text
    it expands to evaluates to that value again; its own errors are its own, as there)."""
    parts = word.parts
    if len(parts) == 1 and type(sub := parts[0]) is A.ArithSub:
        inner = sub.word
        return lambda ex: ex.arith(inner)
    if len(parts) != 1 or type(parts[0]) is not A.Lit:
        return lambda ex: slice_number(ex, p, word)
    text = parts[0].text
    if not text.strip():
        return lambda ex: 0
    shown = p.name + (f"[{p.sub}]" if p.sub is not None else "")
    value = literal_fn(ex.env, text)

    def number(ex: Expander) -> int:
        try:
            return value()
        except ArithError as e:
            raise SliceArithError(e, shown) from None

    return number


def xform(ex: Expander, p: A.Param, letter: str, base: Value) -> Value:
    if letter in ("a", "A") and p.name in ("@", "*") and isinstance(base, Multi):
        if letter == "a":
            return Multi(["" for _ in base.values], base.star, JOIN_IFS)  # positional parameters have none
        # ${@@A}: the `set --` command that makes these positional parameters; bash joins it with
        # IFS's first character and splits it there again, quoted or not (on spaces: IFS null)
        c_locale = ex._byte_locale()
        words = [quote_reusable(w, c_locale) for w in base.values]
        join = JOIN_IFS
        if words:
            if ex.env.ifs()[:1] in ("", " "):
                words[:0] = ["set", "--"]
                join |= SET_WORDS
            else:
                words[0] = "set -- " + words[0]
        return Multi(words, base.star, join)
    if letter in ("a", "A", "K", "k") and p.name not in ("@", "*"):
        var = ex.env.lookup(p.name)
        if (
            letter in ("K", "k")
            and var is not None
            and isinstance(var.value, (IndexedArray, AssocArray))
            and p.sub in ("@", "*")
        ):
            v = var.value
            items = [(str(k), val) for k, val in v.items()]
            if letter == "k":
                flat: list[str] = []
                for k, val in items:
                    flat.extend([k, val])
                return Multi(flat, p.sub == "*", JOIN_IFS)
            c_locale = ex._byte_locale()
            if isinstance(v, AssocArray):
                return "".join(
                    f"{assoc_key(k, c_locale)} {declare_quote(val, c_locale)} " for k, val in items
                )
            return " ".join(f"{k} {declare_quote(val, c_locale)}" for k, val in items)
        if letter in ("a", "A"):
            return ex._xform_declared(p, letter, base, var)

    def one(s: str) -> str:
        if letter == "Q" or letter in ("K", "k"):
            return quote_reusable(s, not s.isascii() and ex._byte_locale())
        if letter == "E":
            # bash's internal quoting character (\001) quotes the next one in the value: a
            # pair of them comes out as one
            text = s.replace("\x01\x01", "\x01")
            return decode_escapes(text, "ansi", None, locale_escapes(text) and ex._byte_locale())[0]
        if letter == "P":
            return ex.env.prompt_expand(s)
        if letter in ("U", "u", "L"):
            c_locale = not s.isascii() and ex._byte_locale()  # (bytes: only ASCII letters change)
            if letter == "U":
                return casemap.upper(s, c_locale)
            if letter == "u":
                return casemap.upper(s[:1], c_locale) + s[1:]
            return casemap.lower(s, c_locale)
        return s

    if isinstance(base, Multi):
        return Multi(each_charged(ex, one, base.values), base.star, JOIN_IFS)
    assert isinstance(base, str)
    return one(base)


def replacement(ex: Expander, word: A.Word, amp: bool) -> str:
    """The replacement of ${x/pat/rep}, expanded. With patsub_replacement a quoted `&` or
    backslash is marked with a backslash (subst.c's quote_string_for_repl), so that only an
    unquoted `&` stands for the match, including one in a variable's value."""
    if not amp:
        return ex.string(word)
    segs: list[Seg] = []
    ex._parts(word.parts, segs, False, join_at=True)
    return "".join(t.replace("\\", "\\\\").replace("&", "\\&") if f == QUO else t for t, f in segs)


def xform_declared(ex: Expander, p: A.Param, letter: str, base: Value, var: Var | None) -> Value:
    """${x@a} and ${x@A} (subst.c's string_var_assignment): a[@] of an array is the whole
    array, x or a[i] one value with the variable's attributes; a variable declared without a
    value is still shown by its attributes (`declare -rl x`)."""
    if var is None:
        if p.sub in ("@", "*"):
            return Multi([], p.sub == "*")  # (an unset array's "${u[@]@A}" is no word, as "${u[@]}")
        return "" if letter == "a" else None
    flags = _attr_letters(var)
    if letter == "a":
        if isinstance(base, Multi) and (base.values or var.value is not None):
            return Multi([flags for _ in base.values], base.star, JOIN_IFS)
        return flags
    if p.sub in ("@", "*") and isinstance(var.value, (IndexedArray, AssocArray)):
        # the words `declare -a a=(...)` (segments.DECL_WORDS)
        return Multi(ex._xform_var(p.name, var, letter).split(" ", 2), p.sub == "*", DECL_WORDS)
    value = (base.values[0] if base.values else None) if isinstance(base, Multi) else as_text(base)
    if value is None:
        return f"declare -{flags} {p.name}" if flags else ""
    quoted = quote_reusable(value, not value.isascii() and ex._byte_locale())
    return f"declare -{flags} {p.name}={quoted}" if flags else f"{p.name}={quoted}"


def xform_var(ex: Expander, name: str, var: Var, letter: str) -> str:
    if letter == "a":
        return _attr_letters(var)
    flags = _attr_letters(var)
    v = var.value
    c_locale = ex._byte_locale()
    if isinstance(v, AssocArray):
        body = "".join(f"[{assoc_key(k, c_locale)}]={declare_quote(val, c_locale)} " for k, val in v.items())
        return f"declare -{flags or '-'} {name}=({body})"
    if isinstance(v, IndexedArray):
        body = " ".join(f"[{k}]={declare_quote(val, c_locale)}" for k, val in v.items())
        return f"declare -{flags or '-'} {name}=({body})"
    if v is None:
        return ""
    if flags:
        return f"declare -{flags} {name}={quote_reusable(v, c_locale)}"
    return f"{name}={quote_reusable(v, c_locale)}"


def _attr_letters(var: Var) -> str:
    out = []
    v = var.value
    attrs = var.attrs
    for bit, letter in ATTR_LETTERS:
        if attrs & bit:
            out.append(letter)
    if isinstance(v, IndexedArray) and "a" not in out:
        out.insert(0, "a")
    if isinstance(v, AssocArray) and "A" not in out:
        out.insert(0, "A")
    if attrs & NAMEREF and "n" not in out:
        out.append("n")
    return "".join(out)


def _clock(ex: Expander) -> Callable[[], None] | None:
    """The deadline check of the run using `ex` when it is called (the function it is given to is
    cached in the expander, and a Session gives each run its own budget)."""
    rt = ex._rt
    if rt is None:
        return None
    return lambda: rt.budget.check_time()


# matches replaced between two deadline checks (a match costs ~2 us: `${x//[ab]/z}` on a 9 MB value
# made 6 million matches in 12 s of CPU with no check)
_MATCHES_PER_CHECK = 1024


def _replacer(
    op: str,
    pat_text: str,
    rep: str,
    extglob: bool,
    use_amp: bool,
    check_size: Callable[[int], None],
    nocase: bool = False,
    clock: Callable[[], None] | None = None,
) -> Callable[[str], str]:
    """`use_amp`: `rep` is marked (see Expander._replacement) and holds `&` or an escape; `clock`
    checks the run's deadline."""
    pat = compile_pattern(pat_text, extglob, nocase)
    # bash tries a match of this length only (-1: any): a pattern it miscounts matches nothing
    fixed = bash_matchlen(pat_text)

    def render(matched: str) -> str:
        if not use_amp:
            return rep
        return _amp_replace(rep, matched)

    if op == "/#":

        def f(s: str) -> str:
            k = pat.prefix_len(s, True)
            return s if k < 0 or (fixed >= 0 and k != fixed) else render(s[:k]) + s[k:]

        return f
    if op == "/%":

        def g(s: str) -> str:
            k = pat.suffix_start(s, True)
            return s if k < 0 or (fixed >= 0 and len(s) - k != fixed) else s[:k] + render(s[k:])

        return g
    if pat_text == "":
        return lambda s: s
    every = op == "//"
    lit = pat.literal
    if lit and not pat.nocase and not use_amp:
        # a plain string to replace: str.replace finds the same non-overlapping matches
        count = -1 if every else 1

        def plain(s: str) -> str:
            found = s.count(lit) if every else (1 if lit in s else 0)
            if not found:
                return s
            grown = found * len(rep)
            if grown > 1 << 16:
                check_size(len(s) + grown)
            return s.replace(lit, rep, count)

        return plain

    def h(s: str) -> str:
        if not s:  # an empty value the pattern matches is replaced (subst.c's pat_subst)
            return render("") if pat.search(s, 0) is not None and fixed <= 0 else s
        out: list[str] = []
        i = 0
        n = len(s)
        grown = 0  # what the replacements add: checked as it grows (${x//?/$x} squares x)
        found = 0
        encoded = pat.encoded(s) if every and n > 256 else None  # (see Pattern.search)
        while i < n:
            m = pat.search(s, i, encoded)
            if m is None:
                break
            a, b = m
            if a >= n:
                break  # bash tries no match at the very end (${x//?()/-} puts none after the last)
            if fixed >= 0 and b - a != fixed:
                break  # (every match of a pattern without a star is as long as the first)
            out.append(s[i:a])
            piece = render(s[a:b])
            out.append(piece)
            grown += len(piece)
            if grown > 1 << 16:
                check_size(n + grown)
            i = b
            if not every:
                break
            found += 1
            if not found % _MATCHES_PER_CHECK and clock is not None:
                clock()
            if b == a:
                # an empty match: the replacement goes in, then one character is copied
                out.append(s[a])
                i = a + 1
        out.append(s[i:])
        return "".join(out)

    return h


def _amp_expands(rep: str) -> bool:
    """Whether a marked replacement needs _amp_replace: an `&`, or a backslash before `&` or `\\`
    (subst.c's shouldexp_replacement)."""
    i = rep.find("\\")
    while i >= 0:
        if rep[i + 1 : i + 2] in ("&", "\\") and i + 1 < len(rep):
            return True
        i = rep.find("\\", i + 2)
    return "&" in rep


def _amp_replace(rep: str, matched: str) -> str:
    # `&` in the replacement stands for the match; `\&` is an `&` and `\\` a backslash (strcreplace)
    out = []
    i = 0
    while i < len(rep):
        c = rep[i]
        if c == "\\" and i + 1 < len(rep) and rep[i + 1] in "&\\":
            out.append(rep[i + 1])
            i += 2
            continue
        if c == "&":
            out.append(matched)
        else:
            out.append(c)
        i += 1
    return "".join(out)
