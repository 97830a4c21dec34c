"""Word expansion in bash's order.

brace -> tilde -> parameter/command/arithmetic/process substitution -> field
splitting -> pathname expansion -> quote removal.

The Expander turns words into fields through segments (segments.py): quoting stays on each
piece until splitting and globbing are done. This module holds its entry points, the fast
paths for one-field words and the joining of parts into segments and strings; the methods on
parameters (params.py), their operators (paramops.py), arithmetic words (arithwords.py),
braces (braces.py) and splitting and globbing (fields.py) are functions of those modules,
bound into the class below.
"""

from __future__ import annotations

from collections.abc import Callable

from ..limits import LimitExceeded, LimitKind
from ..syntax import ast as A
from . import arithwords, braces, fields, params
from .arith import Template
from .arithwords import subscript_error
from .braces import brace_text, sequence_fields
from .elements import element_count_fn
from .env import ExpandEnv
from .fastparam import Plan
from .fields import ws_split
from .pattern import escape
from .segments import (
    BRK_SEG,
    CHARGE_FROM,
    DECL_WORDS,
    EXP,
    JOIN_IFS,
    JOIN_IFS_DQ,
    LIT,
    NULL_JOINED,
    ONE_NULL_IFS,
    PLAIN_PARTS,
    QNULL,
    QUO,
    Multi,
    Seg,
    Segs,
    Value,
    as_text,
    literal_text,
    maybe_glob,
    only_qnulls,
    plain_literal,
)
from .stringfn import join_fn, length_fn, param_fn, param_text_fn, value_string, value_text

__all__ = ["Expander", "as_text", "literal_text", "plain_literal", "subscript_error"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..limits import Budget
    from . import paramops

# a command's words are charged to max_memory while it runs from this many characters
ARGV_HELD_MIN = 1 << 16
# One expansion making this many fields or more ("${a[@]}", `$(seq N)`, $list) charges what
# its transient lists hold to max_memory until the next command starts (bytes a field below,
# measured with tracemalloc): `y=(${a[@]})` of a million elements held ~150 MB that were never
# charged while y was made. Smaller expansions cost nothing more.
FIELDS_HELD_MIN = 1 << 12
FIELD_BYTES = 96  # a field split from a string: a new str and its places in two lists
SEGMENTED_FIELD_BYTES = 160  # a value made into segments, then split into fields
LISTED_FIELD_BYTES = 32  # a value that is its field as it is ("${a[@]}"): its places in lists


def _ere(segs: list[Seg]) -> str:
    """The ERE of the right side of =~ expanded to `segs`: quoted characters match literally."""
    chars = [(c, f == QUO) for t, f in segs for c in t]
    out: list[str] = []
    i = 0
    n = len(chars)
    while i < n:
        c, quoted = chars[i]
        if quoted:
            # (bash's ere_char: only what is special in an ERE is escaped; `\<` is a plain `<`,
            # never glibc's word boundary)
            out.append("\\" + c if c in _ERE_SPECIAL else c)
        elif c == "[":
            i = _regex_bracket(chars, i, out)
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _static(parts: tuple[A.Part, ...]) -> bool:
    """Nothing in these parts expands: literal text, quoted or not (what regex() makes of them
    depends on the text alone)."""
    for p in parts:
        t = type(p)
        if t is A.DQ:
            if not _static(p.parts):  # type: ignore[union-attr]
                return False
        elif not (t is A.Lit or t is A.SQ or t is A.Esc):
            return False
    return True


class Expander:
    def __init__(self, env: ExpandEnv) -> None:
        self.env = env
        self._at_empty = False
        self._ifs_joins = False  # (Multi.text: expanding an assignment's value or a here-string)
        # id(op) -> (op, extglob, the replacement's option bits, its function when its words are static)
        self._op_cache: dict[int, tuple[A.ParamOp, bool, int, Callable[[str], str] | None]] = {}
        # id(param) -> (param, its plan or None): the common shapes' short paths (fastparam.py)
        self._plans: dict[int, tuple[A.Param, Plan | int | None]] = {}
        # id(word) -> (word, how it is evaluated): arithmetic words' closures (arithwords.arith_fn)
        self._arith_fns: dict[int, tuple[A.Word, Callable[[], int]]] = {}
        # id(word) -> (word, its ERE text): the right side of =~ when nothing in it expands
        self._regex_texts: dict[int, tuple[A.Word, str]] = {}
        # the expanded right side of =~ (its segments) -> its ERE text
        self._regex_made: dict[tuple[Seg, ...], str] = {}
        # the run's limits and budget (read at each use: a Session swaps them between runs)
        self._rt = getattr(env, "rt", None)
        self._arg_bytes = 0  # text the words of the current command expanded to
        self._held = 0  # bytes charged for the fields of the current command's large expansions
        self._held_budget: Budget | None = None  # (the run they were charged to)
        self._glob_off = False  # a redirection's word in posix mode
        # evaluates a compiled arithmetic template (the shell's; None: every expression as text)
        self._arith_slots: Callable[[Template, tuple[int | str, ...]], int] | None = getattr(
            env, "arith_slots", None
        )

    # ------------------------------------------------------------ methods of the topic modules
    # (params.py)
    param = params.param
    _element_length = params.element_length
    _length = params.length
    _byte_locale = params.byte_locale
    _has_elements = params.has_elements
    _check_unset = params.check_unset
    _base = params.base
    _assoc_key = params.key_of
    _index = params.index
    _subscript_once = params.subscript_once
    _expand_sub_text = params.expand_sub_text
    _indirect = params.indirect

    # (paramops.py: bound by the first one a run uses, _ParamOp below the class)
    if TYPE_CHECKING:
        _apply_op = paramops.apply_op
        _op_function = paramops.op_function
        _make_op_function = paramops.make_op_function
        _test_op = paramops.test_op
        _alt_value = paramops.alt_value
        _slice_number = paramops.slice_number
        _offset_in_range = paramops.offset_in_range
        _slice = paramops.slice_value
        _slice_text_fn = paramops.slice_text_fn
        _xform = paramops.xform
        _replacement = paramops.replacement
        _xform_declared = paramops.xform_declared
        _xform_var = paramops.xform_var

    # (arithwords.py)
    arith = arithwords.arith
    arith_bound = arithwords.arith_bound
    _join_fn = join_fn
    _param_fn = param_fn
    _param_text_fn = param_text_fn
    _length_fn = length_fn
    _count_number_fn = element_count_fn
    arith_text = arithwords.arith_text
    arith_operand = arithwords.arith_operand
    _arith_join = arithwords.arith_join

    # (braces.py)
    _braces = braces.braces

    # (fields.py)
    _split = fields.split
    target_fields = fields.target_fields
    _glob_field = fields.glob_field

    # ------------------------------------------------------------ bounds

    def begin_argv(self) -> None:
        """A command's words are about to be expanded: their characters count from here, and
        what the last command's large expansions held is given back."""
        self._arg_bytes = 0
        if self._held:
            self.give_back_fields()

    def hold_fields(self, n: int, each: int = FIELD_BYTES, force: bool = False) -> bool:
        """`n` fields one expansion makes (or is about to make), when FIELDS_HELD_MIN or more
        (or `force`: the rest of a list already charged in part): their transient lists are
        charged to max_memory until the next command starts. False when nothing was charged
        (too few to count)."""
        rt = self._rt
        if rt is None or (n < FIELDS_HELD_MIN and not (force and n > 0)):
            return False
        budget = rt.budget
        if self._held and self._held_budget is not budget:
            self.give_back_fields()  # (a Session's earlier run)
        budget.charge_memory(n * each)
        self._held += n * each
        self._held_budget = budget
        return True

    def unhold_fields(self, n: int, each: int = FIELD_BYTES) -> None:
        """Give back `n` of the fields hold_fields charged ahead (fewer were made)."""
        n = min(n * each, self._held)
        if n > 0 and (budget := self._held_budget) is not None:
            budget.release_memory(n)
            self._held -= n

    def give_back_fields(self) -> None:
        budget = self._held_budget
        if budget is not None and (rt := self._rt) is not None and rt.budget is budget:
            budget.release_memory(self._held)
        self._held = 0
        self._held_budget = None

    def take_fields(self) -> tuple[int, Budget | None]:
        """What the expansion just made holds, taken over by a caller that keeps its fields past
        the next command (a `for` or `select` loop's list lives through the loop): the caller
        gives it back itself (`LoopFrame`), and the next command here gives back nothing of it."""
        held = (self._held, self._held_budget)
        self._held = 0
        self._held_budget = None
        return held

    def argv_held(self) -> int:
        """Characters the command's expanded words hold when worth charging to max_memory while
        it runs (a blocked pipeline stage keeps its argv), else 0: small argvs cost nothing."""
        n = self._arg_bytes
        return n if n >= ARGV_HELD_MIN else 0

    def end_argv(self, argv: list[str]) -> None:
        """The words one command gets, once past max_arguments (callers test that first): a
        builtin's, function's or for-list's bound (Limits.shell_words); a program's own,
        max_arguments, is checked where it would be exec'd (Executor.run_external)."""
        rt = self._rt
        if rt is not None:
            kind, words, _, _ = rt.limits.shell_words()
            if len(argv) > words:
                raise LimitExceeded(kind, words)

    def _charge_word(self, n: int, one_value: bool = True) -> None:
        """`n` characters of one word, before field splitting builds its fields: one value
        (max_string_length, unless `one_value` is False: the fields of "${a[@]}", each already
        a value), the command's words (Limits.shell_words: a program's own bound,
        max_argument_bytes, is Executor.run_external's), the run (max_expansion_bytes)."""
        rt = self._rt
        if rt is None:
            return
        limits = rt.limits
        if n > limits.max_string_length and one_value:
            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limits.max_string_length)
        total = self._arg_bytes + n
        if total > limits.max_argument_bytes:
            _, _, kind, chars = limits.shell_words()
            if total > chars:
                raise LimitExceeded(kind, chars)
        self._arg_bytes = total
        rt.budget.charge_expansion(n)

    def _charge_text(self, n: int) -> None:
        """An assignment's, redirection's or here-document's text (max_expansion_bytes)."""
        rt = self._rt
        if rt is not None:
            rt.budget.charge_expansion(n)

    def _field_cap(self) -> tuple[LimitKind, int]:
        """The words one expansion may make (`for i in $(seq 100000)` is one expansion, not a
        command's arguments: max_arguments is checked on the whole argv)."""
        rt = self._rt
        if rt is None:
            return (LimitKind.MAX_ARRAY_ELEMENTS, 1 << 62)
        return (LimitKind.MAX_ARRAY_ELEMENTS, rt.limits.max_array_elements)

    # ------------------------------------------------------------ entry points

    def words(self, words: tuple[A.Word, ...] | list[A.Word]) -> list[str]:
        out: list[str] = []
        for w in words:
            parts = w.parts
            if (text := literal_text(parts)) is not None:
                out.append(text)
            else:
                out.extend(self.word(w))
        return out

    def word(self, word: A.Word) -> list[str]:
        out: list[str] = []
        parts0 = word.parts
        if len(parts0) == 1:
            p0 = parts0[0]
            t0 = type(p0)
            if t0 is A.DQ and len(p0.parts) == 1 and type(p0.parts[0]) is A.Param:  # type: ignore[union-attr]
                # "$x", "${x%.*}": one field unless the value is "$@"-like
                self._at_empty = False
                value = self.param(p0.parts[0], True)  # type: ignore[union-attr]
                if type(value) is str:
                    if len(value) > CHARGE_FROM:
                        self._charge_word(len(value))
                    out.append(value)
                    return out
                return self.dq_value_fields(value, out)
            if t0 is A.ArithSub:
                return self.arith_fields(str(self.arith(p0.word)), out)  # type: ignore[union-attr]
            if t0 is A.Param and p0.op is None and not p0.prefix:  # type: ignore[union-attr]
                # a lone unquoted $x
                return self.unquoted_value_fields(self.param(p0), out)  # type: ignore[arg-type]
            if t0 is A.DQ:
                return self._dq_word(p0.parts, out)  # type: ignore[union-attr]
            if t0 is A.CmdSub or (t0 is A.Param and (p0.op is not None or p0.prefix)):  # type: ignore[union-attr]
                return self._plain_word(parts0, out)  # `${s%%.*}`, `$(cmd)`
            if t0 is A.BraceSeq and (items := sequence_fields(self, p0)) is not None:  # type: ignore[arg-type]
                self._at_empty = False
                out.extend(items)  # `{1..100000}`: each item a field, with nothing to expand
                return out
        elif all(type(p) in PLAIN_PARTS for p in parts0):
            return self._plain_word(parts0, out)
        results = self._braces(word.parts, top=True)
        # each result expands every part again: the clock is read at each (`{a,b}...$x$x...` of
        # 4,096 results of 2,000 parameters each ran 13 s past its deadline)
        check = self._rt.budget.check_time if len(results) > 1 and self._rt is not None else None
        for parts in results:
            if check is not None:
                check()
            segs: list[Seg] = []
            self._at_empty = False
            self._parts(parts, segs, False)
            self._fields(segs, out)
        return out

    def arith_fields(self, text: str, out: list[str]) -> list[str]:
        """The fields of a word that is one unquoted $(( )) given its number's text, added to
        `out`: one, which no default IFS character splits; split (and globbed) by any other IFS
        (`IFS=1`, `IFS=-`)."""
        if self.env.ifs() == " \t\n":
            out.append(text)
            return out
        for afield in self._split([(text, EXP)]):
            self._glob_field(afield, out)
        return out

    def unquoted_value_fields(self, value: Value, out: list[str]) -> list[str]:
        """The fields of a word that is one unquoted parameter without an operator ($x, $1, $@)
        given its value, added to `out`: split with the default IFS in C, then globbed (the
        compiled step stringfn.unquoted_param_step gives the common one-field case itself)."""
        if value is None:
            return out
        seps = 0
        if type(value) is str and len(value) > CHARGE_FROM:
            self._charge_word(len(value))
            seps = value.count(" ") + value.count("\t") + value.count("\n")
            if seps >= self._field_cap()[1]:
                # so many fields they must be counted as they are made
                for field_segs in self._split([(value, EXP)]):
                    self._glob_field(field_segs, out)
                return out
        if type(value) is str and self.env.ifs() == " \t\n":
            if value and not maybe_glob(value):  # nothing to glob in any field
                if not (" " in value or "\t" in value or "\n" in value):
                    out.append(value)  # one field: `$n`, `$1`
                    return out
                # `$(seq N)`, `$list`: the fields as the C split makes them, charged before they
                # are made (each needs a character no separator is: an upper bound), then settled
                had = len(out)
                most = min(seps, len(value) - seps) + 1
                held = seps > 0 and self.hold_fields(most)
                out.extend(field for field in ws_split().split(value.strip(" \t\n")) if field)
                if held:
                    self.unhold_fields(most - (len(out) - had))
                return out
            for field in ws_split().split(value.strip(" \t\n")) if value else ():
                if field:
                    self._glob_field([(field, EXP)], out)
            return out
        # (expanded once: `$RANDOM` under another IFS, a "$ref" to A[@])
        if type(value) is str:
            had = charged = len(out)
            for field_segs in self._split([(value, EXP)]):  # (a long value was charged)
                self._glob_field(field_segs, out)
                if len(out) - charged >= FIELDS_HELD_MIN:  # (charged as they are made)
                    self.hold_fields(len(out) - charged)
                    charged = len(out)
            if len(value) > CHARGE_FROM and charged > had:
                self.hold_fields(len(out) - charged, force=True)
            elif len(value) > CHARGE_FROM:
                self.hold_fields(len(out) - had)
            return out
        self._at_empty = False
        lone: list[Seg] = []
        self._value_segs(value, lone, False, False)
        return self._fields(lone, out)

    def dq_value_fields(self, value: Value, out: list[str]) -> list[str]:
        """The fields of a word that is one double-quoted parameter whose value is not a plain
        string ("$@", "${a[@]}", unset): none, one or several, added to `out`."""
        if type(value) is Multi and not value.star and not value.join:
            # "$@", "${a[@]}": each value is one field as it is (quoted: nothing to split or
            # glob), without the segments, field lists and joins of the general way (which held
            # ~240 bytes a field at once)
            values = value.values
            if not values:
                self._at_empty = True
                return out
            self.hold_fields(len(values), LISTED_FIELD_BYTES)
            self._charge_word(sum(map(len, values)), False)
            out.extend(values)
            return out
        vsegs: list[Seg] = []
        if value is not None:
            self._value_segs(value, vsegs, True, False)
            self._charge_word(sum(len(t) for t, _ in vsegs), type(value) is not Multi or value.star)  # type: ignore[union-attr]
        if not vsegs and not self._at_empty:
            vsegs.append(("", QUO))
        for vfield in self._split(vsegs):
            self._glob_field(vfield, out)
        return out

    def _fields(self, segs: list[Seg], out: list[str]) -> list[str]:
        """The fields of one word's segments (split and globbed) added to `out`."""
        if len(segs) == 1 and segs[0][1] == EXP:  # one unquoted expansion alone: `$(cmd)`, `${x%y}`
            return self.unquoted_value_fields(segs[0][0], out)
        if len(segs) > 1 or (segs and len(segs[0][0]) > CHARGE_FROM):
            self._charge_word(sum(len(t) for t, _ in segs))
        for field in self._split(segs):
            self._glob_field(field, out)
        return out

    def _dq_word(self, parts: tuple[A.Part, ...], out: list[str]) -> list[str]:
        """A word that is one double-quoted string ("x=$k", "$d/$f"): its text is one field, with
        nothing to split or glob, unless an expansion in it makes several ("$@", "${a[@]}"); then
        the segments so far go on the general way (each expansion still expands once)."""
        self._at_empty = False
        segs: list[Seg] = []
        for i, q in enumerate(parts):
            tq = type(q)
            if tq is A.Lit or tq is A.Esc:
                segs.append((q.text, QUO))  # type: ignore[union-attr]
                continue
            if tq is A.ArithSub:
                segs.append((str(self.arith(q.word)), QUO))  # type: ignore[union-attr]
                continue
            if tq is A.CmdSub:
                text = self.env.command_sub(q)  # type: ignore[arg-type]
                segs.append((text, QUO) if text else QNULL)
                continue
            if tq is A.Param:
                value = self.param(q, True)  # type: ignore[arg-type]
                if type(value) is str:
                    segs.append((value, QUO) if value else QNULL)
                    continue
                if value is None:
                    continue
                return self.dq_rest(parts, i, value, segs, out)
            return self.dq_rest(parts, i, None, segs, out)
        if not segs or (self._at_empty and only_qnulls(segs, 0)):
            if not self._at_empty:
                out.append("")  # "" or "$unset": one empty field
            return out
        if len(segs) > 1 or len(segs[0][0]) > CHARGE_FROM:
            self._charge_word(sum(len(t) for t, _ in segs))
        out.append("".join(t for t, _ in segs))
        return out

    def dq_rest(
        self, parts: tuple[A.Part, ...], i: int, value: Value, segs: list[Seg], out: list[str]
    ) -> list[str]:
        """The rest of a double-quoted word the general way, from `parts[i]` on, after `segs` were
        made from the parts before it: `value` is parts[i]'s value when it was expanded ("$@",
        "${a[@]}": several fields maybe), else None and parts[i] is yet to expand (a part
        _dq_word and stringfn.dq_word_step leave to _parts)."""
        if value is not None:
            self._value_segs(value, segs, True, False)
            i += 1
        self._parts(parts[i:], segs, True)
        if not segs:
            if not self._at_empty:
                segs.append(("", QUO))
        elif self._at_empty and only_qnulls(segs, 0):
            segs.clear()
        return self._fields(segs, out)

    def _plain_word(self, parts: tuple[A.Part, ...], out: list[str]) -> list[str]:
        """An unquoted word of text, parameters and substitutions (`$d/file`, `${s}x`, `a$k`,
        `x$((i+1))`, `$(cmd)`): one field when no value holds a default IFS character and nothing
        may glob; else (or when a parameter makes several words) the segments go on the general
        way."""
        segs: list[Seg] = []
        self._at_empty = False
        simple = True
        for i, q in enumerate(parts):
            if type(q) is A.Lit:
                text = q.text  # type: ignore[union-attr]
                segs.append((text, LIT))
                if simple and maybe_glob(text):
                    simple = False  # (even `[` alone: a value after it may close a bracket)
                continue
            tq = type(q)
            if tq is A.ArithSub:
                value: Value = str(self.arith(q.word))  # type: ignore[union-attr]
            elif tq is A.CmdSub:
                value = self.env.command_sub(q)  # type: ignore[arg-type]
            else:
                value = self.param(q, False)  # type: ignore[arg-type]
            if type(value) is str:
                segs.append((value, EXP))
                if simple and (" " in value or "\t" in value or "\n" in value or maybe_glob(value)):
                    simple = False
            elif value is not None:
                self._value_segs(value, segs, False, False)
                self._parts(parts[i + 1 :], segs, False)
                return self._fields(segs, out)
        text = "".join(t for t, _ in segs) if simple else ""
        if not text or self.env.ifs() != " \t\n":
            return self._fields(segs, out)  # (nothing left is no field: `$a$b` both empty)
        if len(segs) > 1 or len(text) > CHARGE_FROM:
            self._charge_word(len(text))
        out.append(text)
        return out

    def string(self, word: A.Word) -> str:
        """One string: no splitting, no globbing ("$@" joined by spaces)."""
        parts = word.parts
        if len(parts) == 1:
            p0 = parts[0]
            if type(p0) is A.Lit:
                return p0.text
            if type(p0) is A.ArithSub:
                return str(self.arith(p0.word))
            in_dq = type(p0) is A.DQ
            if (in_dq and len(p0.parts) == 1 and type(p0.parts[0]) is A.Param) or type(p0) is A.Param:  # type: ignore[union-attr]
                # "$x", "${x%.*}", $x: the parameter's value is the string
                return self._param_string(p0.parts[0] if in_dq else p0, in_dq)  # type: ignore[union-attr,arg-type]
            if in_dq:  # "file$k.txt": its parts, as _join_parts would reach them
                self._at_empty = False
                return self._charged(self._join_parts(p0.parts, True))  # type: ignore[union-attr]
        return self._charged(self._join_parts(parts, False))

    def _param_string(self, p: A.Param, in_dq: bool) -> str:
        value = self.param(p, in_dq)
        if type(value) is str:
            if len(value) > CHARGE_FROM:
                self._charge_text(len(value))
            return value
        return value_string(self, value, in_dq)

    def _charged(self, text: str) -> str:
        if len(text) > CHARGE_FROM:
            self._charge_text(len(text))
        return text

    def heredoc(self, word: A.Word) -> str:
        parts = word.parts
        if len(parts) == 1 and type(parts[0]) is A.Lit:
            return parts[0].text
        if not self._ifs_joins:
            return self._charged(self._join_parts(parts, True))
        return self.spaced(lambda: self._charged(self._join_parts(parts, True)))

    def spaced(self, expand: Callable[[], str]) -> str:
        """`expand()` with multi-valued results joined by spaces again, inside a value (a pattern
        or subscript in it, the commands of a `$( )` in it: bash joins there as anywhere)."""
        if not self._ifs_joins:
            return expand()
        self._ifs_joins = False
        try:
            return expand()
        finally:
            self._ifs_joins = True

    def value(self, word: A.Word) -> str:
        """An assignment's value or a here-string's text: `string`, except that an operator's
        multi-valued result (`${a[@]%.txt}`, `"${!a[@]}"`) joins with IFS's first character, as
        bash's string_list_pos_params does there (Multi.text: elsewhere spaces)."""
        if self._ifs_joins:
            return self.string(word)
        self._ifs_joins = True
        try:
            return self.string(word)
        finally:
            self._ifs_joins = False

    def _join_parts(self, parts: tuple[A.Part, ...], in_dq: bool) -> str:
        """The text of `parts` with "$@" joined: what _parts(..., join_at=True)
        gives, concatenated, without building the segments."""
        out: list[str] = []
        for p in parts:
            t = type(p)
            if t is A.Lit or t is A.SQ or t is A.Esc:
                out.append(p.text)  # type: ignore[union-attr]
            elif t is A.Param:
                value = self.param(p, in_dq)  # type: ignore[arg-type]
                out.append(value if type(value) is str else value_text(self, value, in_dq))
            elif t is A.DQ:
                self._at_empty = False  # as _parts does
                out.append(self._join_parts(p.parts, True))  # type: ignore[union-attr]
            else:
                segs: list[Seg] = []
                self._parts((p,), segs, in_dq, join_at=True)
                for seg in segs:
                    out.append(seg[0])
        return "".join(out)

    def pattern(self, word: A.Word) -> str:
        """A pattern string: quoted characters escaped with backslashes."""
        if self._ifs_joins:
            return self.spaced(lambda: self.pattern(word))
        segs: list[Seg] = []
        self._parts(word.parts, segs, False, join_at=True)
        return "".join(escape(t) if f == QUO else t for t, f in segs)

    def regex(self, word: A.Word) -> str:
        """The right side of =~: quoted characters match literally. Inside a bracket expression
        opened by an unquoted `[` they go in as they are (bash: `["."]` is `[.]`, `[\\.]` too).
        A word of literal text only (`^user[0-9]+,(.*)$`, `"a.b"'$'`) is made an ERE once (the
        entry holds the word, so its id stays its own); an expanded one (`$re`, `^$p-[0-9]+`) once
        for each text and quoting it expands to."""
        hit = self._regex_texts.get(id(word))
        if hit is not None and hit[0] is word:
            return hit[1]
        segs: list[Seg] = []
        self._parts(word.parts, segs, False, join_at=True)
        key = tuple(segs)
        made = self._regex_made
        text = made.get(key)
        if text is None:
            text = _ere(segs)
            if len(text) <= 4096:  # (what the cache holds stays small)
                if len(made) >= 256:
                    made.clear()
                made[key] = text
        if _static(word.parts):
            cache = self._regex_texts
            if len(cache) >= 1024:
                cache.clear()
            cache[id(word)] = (word, text)
        return text

    def redirect_target(self, word: A.Word) -> list[str]:
        """Expansion for a redirection target (may glob; caller checks count)."""
        return self.word(word)

    # ------------------------------------------------------------ parts -> segments

    def _parts(
        self,
        parts: tuple[A.Part, ...],
        segs: list[Seg],
        in_dq: bool,
        join_at: bool = False,
        nosplit2: bool = False,
    ) -> None:
        for p in parts:
            t = type(p)
            # the common kinds first, by exact type (node classes are final)
            if t is A.Lit:
                segs.append((p.text, QUO if in_dq else LIT))  # type: ignore[union-attr]
            elif t is A.Param:
                self._param_segs(p, segs, in_dq, join_at, nosplit2)  # type: ignore[arg-type]
            elif t is A.SQ or t is A.Esc:
                segs.append((p.text, QUO))  # type: ignore[union-attr]
            elif t is A.DQ:
                before = len(segs)
                self._at_empty = False
                self._parts(p.parts, segs, True, join_at)  # type: ignore[union-attr]
                if len(segs) == before:
                    if not self._at_empty:
                        segs.append(("", QUO))
                elif self._at_empty and only_qnulls(segs, before):
                    del segs[before:]
            elif isinstance(p, A.CmdSub):
                text = self.env.command_sub(p)
                segs.append(QNULL if in_dq and not text else (text, QUO if in_dq else EXP))
            elif isinstance(p, A.ArithSub):
                segs.append((str(self.arith(p.word)), QUO if in_dq else EXP))
            elif isinstance(p, A.Tilde):
                text = "~" + p.user if p.in_argument and self.env.option("posix") else self._tilde(p.user)
                segs.append((text, QUO))
            elif isinstance(p, A.ProcSub):
                segs.append((self.env.process_sub(p), QUO if in_dq else EXP))
            elif isinstance(p, A.ExtGlob):
                # its syntax as pattern text, each alternative's parts as they are: quoted ones
                # stay quoted (a word that globs nothing is printed without its quotes, not
                # escaped) and expansions are split as bash splits them (`+($v)`)
                self._group(p.op + "(", p.alts, "|", ")", segs, in_dq, join_at, nosplit2)
            elif isinstance(p, A.Brace):
                # where no brace expansion is made ([[ ]], case, set +B): its text, the parts of
                # each alternative expanded (`[[ $w == x{$y,b} ]]` compares with `x{Y,b}`)
                self._group("{", p.alts, ",", "}", segs, in_dq, join_at, nosplit2)
            elif isinstance(p, A.BraceSeq):
                segs.append((brace_text(p), QUO if in_dq else LIT))
            elif isinstance(p, A.AssignWord):
                segs.append((self.assign_word_text(p.assign), QUO))

    def _group(
        self,
        head: str,
        alts: tuple[tuple[A.Part, ...], ...],
        sep: str,
        tail: str,
        segs: list[Seg],
        in_dq: bool,
        join_at: bool,
        nosplit2: bool,
    ) -> None:
        """A group of alternatives kept as text (an extglob group, braces not expanded): `head`,
        the alternatives' parts expanded as they stand with `sep` between, then `tail`."""
        mark = QUO if in_dq else LIT
        segs.append((head, mark))
        for k, alt in enumerate(alts):
            if k:
                segs.append((sep, mark))
            self._parts(alt, segs, in_dq, join_at, nosplit2)
        segs.append((tail, mark))

    def assign_word_text(self, a: A.Assign) -> str:
        """An assignment-shaped argument as plain text (used when not declaring)."""
        head = a.name + (f"[{a.sub}]" if a.sub is not None else "") + ("+=" if a.append else "=")
        if a.array is not None:
            return head + "(" + " ".join(i.value.text for i in a.array) + ")"
        return head + (self.string(a.value) if a.value is not None else "")

    def _tilde(self, user: str) -> str:
        home = self.env.home_dir(user)
        return home if home is not None else "~" + user

    def _param_segs(
        self, p: A.Param, segs: list[Seg], in_dq: bool, join_at: bool, nosplit2: bool = False
    ) -> None:
        value = self.param(p, in_dq)
        if value is None:
            return
        if type(value) is str:
            segs.append(QNULL if in_dq and not value else (value, QUO if in_dq else EXP))
            return
        self._value_segs(value, segs, in_dq, join_at, nosplit2)

    def _value_segs(
        self, value: Value, segs: list[Seg], in_dq: bool, join_at: bool, nosplit2: bool = False
    ) -> None:
        """`nosplit2`: in the word of an unquoted ${x-word} (bash's PF_NOSPLIT2)."""
        flag = QUO if in_dq else EXP
        if value is None:
            return
        if type(value) is str:
            segs.append((value, flag))
            return
        if isinstance(value, Segs):
            if join_at:
                segs.append((value.text(), flag))
            else:
                segs.extend(value.segs)
            return
        assert isinstance(value, Multi)
        values = value.values
        if value.join and self._joined_segs(value, segs, in_dq, join_at):
            return
        if not in_dq and not join_at and len(values) > 1:
            ifs = self.env.ifs()
            if nosplit2 and not value.star and ifs and ifs[0] != " ":
                # POSIX interp 888: $@ there is joined with spaces that no splitting removes
                segs.append((" ".join(values), QUO))
                return
            if ifs and ifs[0] not in " \t\n":
                # unquoted $* / $@ with IFS=':': bash joins on ':' and splits
                # again, so an empty parameter stays an (empty) field
                segs.append((ifs[0].join(values), flag))
                return
        if len(values) >= FIELDS_HELD_MIN and not join_at and not (value.star and in_dq):
            self.hold_fields(len(values), SEGMENTED_FIELD_BYTES)  # (before the segments: two a value)
        if value.star:
            if in_dq or join_at:
                segs.append((value.text(self.env.ifs(), in_dq), flag))
            else:
                for i, v in enumerate(values):
                    if i:
                        segs.append(BRK_SEG)
                    segs.append((v, flag))
            return
        if join_at:
            segs.append((" ".join(values), flag))
            return
        if not values:
            self._at_empty = True
            return
        for i, v in enumerate(values):
            if i:
                segs.append(BRK_SEG)
            segs.append((v, flag))

    def _joined_segs(self, value: Multi, segs: list[Seg], in_dq: bool, join_at: bool) -> bool:
        """An operator's result that bash joins into one string (segments.py's bits) where "$@"
        would stay words: added to `segs` (True), or left to the general way (False)."""
        flag = QUO if in_dq else EXP
        if join_at:
            segs.append((value.text(self.env.ifs(), in_dq, self._ifs_joins), flag))
            return True
        join = value.join
        if join & DECL_WORDS:
            # `declare -a a=(...)`: one string split as any unquoted value is, except that a null
            # IFS, or a quoted [@] with IFS null or starting with a space, splits it on its spaces
            ifs = self.env.ifs()
            if (in_dq and (value.star or ifs[:1] not in ("", " "))) or (not in_dq and ifs):
                segs.append((" ".join(value.values), flag))
                return True
            return False
        if join & ONE_NULL_IFS and not in_dq and len(value.values) > 1 and not self.env.ifs():
            segs.append((" ".join(value.values), flag))
            return True
        if join & NULL_JOINED and not in_dq and len(value.values) > 1 and not self.env.ifs():
            segs.append(("".join(value.values), flag))
            return True
        if self._ifs_joins and (join & JOIN_IFS or (join & JOIN_IFS_DQ and in_dq)):
            # the word of ${u:-W} (and :+) inside a value: W's operator results join there as
            # the value's own do (`x=${u:-${a[@]%1}}` is `x,y2` under IFS=,)
            segs.append((value.text(self.env.ifs(), in_dq, True), flag))
            return True
        return False


# Expander's methods from paramops.py (the operators of ${x op ...}), by attribute: the module is
# ~0.9 M instructions of a start-up (callgrind) and a script with no operator
# never runs one, so the first use imports it and binds them all.
_PARAMOPS = {
    "_apply_op": "apply_op",
    "_op_function": "op_function",
    "_make_op_function": "make_op_function",
    "_test_op": "test_op",
    "_alt_value": "alt_value",
    "_slice_number": "slice_number",
    "_offset_in_range": "offset_in_range",
    "_slice": "slice_value",
    "_slice_text_fn": "slice_text_fn",
    "_xform": "xform",
    "_replacement": "replacement",
    "_xform_declared": "xform_declared",
    "_xform_var": "xform_var",
}


class _ParamOp:
    """Stands in for one of those methods until the first is read: it then puts every real
    function on Expander (a plain class attribute again, bound as before) and gives that one."""

    __slots__ = ("attr",)

    def __init__(self, attr: str) -> None:
        self.attr = attr

    def __get__(self, obj: object, owner: type | None = None) -> object:
        from . import paramops

        for attr, name in _PARAMOPS.items():
            setattr(Expander, attr, getattr(paramops, name))
        return getattr(Expander if obj is None else obj, self.attr)


if not TYPE_CHECKING:
    for _attr in _PARAMOPS:
        setattr(Expander, _attr, _ParamOp(_attr))
    del _attr


_ERE_SPECIAL = frozenset(".[\\()*+?{|^$")


def _regex_bracket(chars: list[tuple[str, bool]], i: int, out: list[str]) -> int:
    """Copy the bracket expression opening at chars[i] with its quoted characters unescaped (a
    leading `^` and `]` are plain, `[:...:]`, `[=...=]`, `[. .]` kept whole); where it ends."""
    n = len(chars)
    out.append("[")
    i += 1
    for lead in "^]":
        if i < n and chars[i] == (lead, False):
            out.append(lead)
            i += 1
    while i < n:
        c, quoted = chars[i]
        out.append(c)
        i += 1
        if quoted:
            continue
        if c == "]":
            return i
        if c == "[" and i < n and chars[i][0] in ":=." and not chars[i][1]:
            end = chars[i][0]
            out.append(end)
            i += 1
            while i < n and not (chars[i][0] == end and i + 1 < n and chars[i + 1][0] == "]"):
                out.append(chars[i][0])
                i += 1
            if i < n:
                out.append(end + "]")
                i += 2
    return i
