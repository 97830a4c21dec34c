"""Word expansion in bash's order.

brace -> tilde -> parameter/command/arithmetic/process substitution -> field
splitting -> pathname expansion -> quote removal.

A word expands into *segments* `(text, flag)`: LIT (unquoted source text,
glob-active, not split), QUO (quoted: neither split nor globbed), EXP
(unquoted expansion result: split and glob-active) and BRK (a field break,
from "$@" and arrays). Quoting stays on each piece until splitting and
globbing are done.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Union

from ..limits import LimitExceeded, LimitKind
from ..shvars.arrays import AssocArray, IndexedArray
from ..shvars.vars import ASSOC, ATTR_LETTERS, CAPITALIZE, INTEGER, LOWER, NAMEREF, UPPER, ElementsVar, Var
from ..syntax import ast as A
from ..syntax.ast import Op, OpKind
from ..syntax.escapes import decode_escapes
from ..syntax.lexer import ARITH_EXPANDS, tilde_prefix
from .arith import ArithError, Fn, compiled
from .env import ExpandEnv, ExpansionError
from .pattern import compile_pattern, escape, has_path_glob
from .quoting import assoc_key, declare_quote, quote_reusable

_WS_SPLIT = re.compile("[ \t\n]+")  # our own fixed pattern, not user input
# what bash backslash-quotes in an expanded subscript of an arithmetic text (a translation
# table: str.translate does it in C, several times faster than a regular expression's sub)
_SUBSCRIPT_QUOTE = str.maketrans({c: "\\" + c for c in "[]$`~\\'\""})


def subscript_error(e: ArithError) -> ExpansionError:
    """An arithmetic error in an indexed subscript: bash -c exits, a script goes on with its next
    line (and a `((`, `let` or `[[` around it does not name itself in the message)."""
    return ExpansionError(e.render(), 1, exits=True)


def _quote_subscript(text: str) -> str:
    return text.translate(_SUBSCRIPT_QUOTE)


_BRACKET = re.compile(r"[][]")


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
            m = _BRACKET.search(text, i)
            if m is None:
                out.append(_quote_subscript(text[i:]))
                break
            j = m.start()
            if j > i:
                out.append(_quote_subscript(text[i:j]))
            if text[j] == "]" and depth == 1:
                depth = 0
                out.append("]")
            else:
                depth += 1 if text[j] == "[" else -1
                out.append("\\" + text[j])
        i = j + 1
    return depth


# operator families bound once: reading a member off an Enum class costs about 0.2 us on 3.11,
# a tenth of a ${x:-y}
_TEST, _SLICE, _XFORM, _REPL = OpKind.TEST, OpKind.SLICE, OpKind.XFORM, OpKind.REPL

# Values shorter than this are not charged one by one (it keeps the common path cheap): a
# command's max_arguments words of this size are the most that goes uncounted.
_CHARGE_FROM = 256

LIT = 0
QUO = 1
EXP = 2
BRK = 3

Seg = tuple[str, int]
_BRK: Seg = ("", BRK)
# the empty text a scalar expansion inside double quotes gave ("$e", "$(true)"), told apart by
# identity from a literal quoted null ("", '') and an empty array element: beside a "$@" that
# expands to nothing, bash drops such a word ("$e$@" is no word, "$@""" and "${a[@]}${b[@]}" with
# b=('') are one)
_QNULL: Seg = ("", QUO)
_NO_ELEMENTS = IndexedArray()  # (read only) a negative index counts back from no end


class _Multi:
    """A multi-valued expansion ("$@", "${a[@]}") or its "$*" form."""

    __slots__ = ("values", "star")

    def __init__(self, values: list[str], star: bool) -> None:
        self.values = values
        self.star = star


class _SliceArithError(ArithError):
    """An arithmetic error in ${name:offset:length}: bash names the parameter as written."""

    def __init__(self, inner: ArithError, shown: str) -> None:
        super().__init__(inner.message, f"{shown}: {inner.text}", inner.token)
        self.inner = inner


class _Segs:
    """An expansion result that is already segmented (the word of ${x:-word})."""

    __slots__ = ("segs",)

    def __init__(self, segs: list[Seg]) -> None:
        self.segs = segs

    def text(self) -> str:
        # a field break ("${a[@]}" inside the word) joins with a space, as "$@" does
        return "".join(t if f != BRK else " " for t, f in self.segs)


Value = Union[str, _Multi, _Segs, None]


# a command's words are charged to max_memory while it runs from this many characters
ARGV_HELD_MIN = 1 << 16


class Expander:
    def __init__(self, env: ExpandEnv) -> None:
        self.env = env
        self._at_empty = False
        # id(op) -> (op, extglob, patsub_replacement, function or None when not static)
        # id(op) -> (op, extglob, the replacement's option bits, its function when its words are static)
        self._op_cache: dict[int, tuple[A.ParamOp, bool, int, Callable[[str], str] | None]] = {}
        # the run's limits and budget (read at each use: a Session swaps them between runs)
        self._rt = getattr(env, "rt", None)
        self._arg_bytes = 0  # text the words of the current command expanded to
        self._glob_off = False  # a redirection's word in posix mode
        # evaluates a compiled arithmetic template (the shell's; None: every expression as text)
        self._arith_slots: Callable[[Fn, str, dict[str, str]], int] | None = getattr(env, "arith_slots", None)

    # ------------------------------------------------------------ bounds

    def begin_argv(self) -> None:
        """A command's words are about to be expanded: max_argument_bytes counts from here."""
        self._arg_bytes = 0

    def argv_held(self) -> int:
        """Characters the command's expanded words hold when worth charging to max_memory while
        it runs (a blocked pipeline stage keeps its argv), else 0: small argvs cost nothing."""
        n = self._arg_bytes
        return n if n >= ARGV_HELD_MIN else 0

    def end_argv(self, argv: list[str]) -> None:
        """max_arguments: the words one command gets."""
        rt = self._rt
        if rt is not None and len(argv) > rt.limits.max_arguments:
            raise LimitExceeded(LimitKind.MAX_ARGUMENTS, rt.limits.max_arguments)

    def _charge_word(self, n: int) -> None:
        """`n` characters of one word, before field splitting builds its fields: one value
        (max_string_length), the command's words (max_argument_bytes), the run (max_expansion_bytes)."""
        rt = self._rt
        if rt is None:
            return
        limits = rt.limits
        if n > limits.max_string_length:
            raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, limits.max_string_length)
        total = self._arg_bytes + n
        if total > limits.max_argument_bytes:
            raise LimitExceeded(LimitKind.MAX_ARGUMENT_BYTES, limits.max_argument_bytes)
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
                    if len(value) > _CHARGE_FROM:
                        self._charge_word(len(value))
                    out.append(value)
                    return out
                vsegs: list[Seg] = []
                if value is not None:
                    self._value_segs(value, vsegs, True, False)
                    self._charge_word(sum(len(t) for t, _ in vsegs))
                if not vsegs and not self._at_empty:
                    vsegs.append(("", QUO))
                for vfield in self._split(vsegs):
                    self._glob_field(vfield, out)
                return out
            if t0 is A.ArithSub:
                # $((...)): a number, which no default IFS character splits
                text = str(self.arith(p0.word))  # type: ignore[union-attr]
                if self.env.ifs() == " \t\n":
                    out.append(text)
                    return out
                for afield in self._split([(text, EXP)]):
                    self._glob_field(afield, out)
                return out
            if t0 is A.Param and p0.op is None and not p0.prefix:  # type: ignore[union-attr]
                # a lone unquoted $x: split with the default IFS in C, then glob
                value = self.param(p0)  # type: ignore[arg-type]
                if value is None:
                    return out
                if type(value) is str and len(value) > _CHARGE_FROM:
                    self._charge_word(len(value))
                    if value.count(" ") + value.count("\t") + value.count("\n") >= self._field_cap()[1]:
                        # so many fields they must be counted as they are made
                        for field_segs in self._split([(value, EXP)]):
                            self._glob_field(field_segs, out)
                        return out
                if type(value) is str and self.env.ifs() == " \t\n":
                    if value and not (" " in value or "\t" in value or "\n" in value or _maybe_glob(value)):
                        out.append(value)  # one field, nothing to glob: `$n`, `$1`
                        return out
                    for field in _WS_SPLIT.split(value.strip(" \t\n")) if value else ():
                        if field:
                            self._glob_field([(field, EXP)], out)
                    return out
                # (expanded once: `$RANDOM` under another IFS, a "$ref" to A[@])
                if type(value) is str:
                    for field_segs in self._split([(value, EXP)]):  # (a long value was charged)
                        self._glob_field(field_segs, out)
                    return out
                self._at_empty = False
                lone: list[Seg] = []
                self._value_segs(value, lone, False, False)
                return self._fields(lone, out)
            if t0 is A.DQ:
                return self._dq_word(p0.parts, out)  # type: ignore[union-attr]
            if t0 is A.CmdSub or (t0 is A.Param and (p0.op is not None or p0.prefix)):  # type: ignore[union-attr]
                return self._plain_word(parts0, out)  # `${s%%.*}`, `$(cmd)`
        elif all(type(p) in _PLAIN_PARTS for p in parts0):
            return self._plain_word(parts0, out)
        for parts in self._braces(word.parts, top=True):
            segs: list[Seg] = []
            self._at_empty = False
            self._parts(parts, segs, False)
            self._fields(segs, out)
        return out

    def _fields(self, segs: list[Seg], out: list[str]) -> list[str]:
        """The fields of one word's segments (split and globbed) added to `out`."""
        if len(segs) > 1 or (segs and len(segs[0][0]) > _CHARGE_FROM):
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
                text = self.env.command_sub(q.body, q.text)  # type: ignore[union-attr]
                segs.append((text, QUO) if text else _QNULL)
                continue
            if tq is A.Param:
                value = self.param(q, True)  # type: ignore[arg-type]
                if type(value) is str:
                    segs.append((value, QUO) if value else _QNULL)
                    continue
                if value is None:
                    continue
                self._value_segs(value, segs, True, False)
                i += 1
            self._parts(parts[i:], segs, True)
            if not segs:
                if not self._at_empty:
                    segs.append(("", QUO))
            elif self._at_empty and _only_qnulls(segs, 0):
                segs.clear()
            return self._fields(segs, out)
        if not segs or (self._at_empty and _only_qnulls(segs, 0)):
            if not self._at_empty:
                out.append("")  # "" or "$unset": one empty field
            return out
        if len(segs) > 1 or len(segs[0][0]) > _CHARGE_FROM:
            self._charge_word(sum(len(t) for t, _ in segs))
        out.append("".join(t for t, _ in segs))
        return out

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
                if simple and _maybe_glob(text):
                    simple = False  # (even `[` alone: a value after it may close a bracket)
                continue
            tq = type(q)
            if tq is A.ArithSub:
                value: Value = str(self.arith(q.word))  # type: ignore[union-attr]
            elif tq is A.CmdSub:
                value = self.env.command_sub(q.body, q.text)  # type: ignore[union-attr]
            else:
                value = self.param(q, False)  # type: ignore[arg-type]
            if type(value) is str:
                segs.append((value, EXP))
                if simple and (" " in value or "\t" in value or "\n" in value or _maybe_glob(value)):
                    simple = False
            elif value is not None:
                self._value_segs(value, segs, False, False)
                self._parts(parts[i + 1 :], segs, False)
                return self._fields(segs, out)
        text = "".join(t for t, _ in segs) if simple else ""
        if not text or self.env.ifs() != " \t\n":
            return self._fields(segs, out)  # (nothing left is no field: `$a$b` both empty)
        if len(segs) > 1 or len(text) > _CHARGE_FROM:
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
                value = self.param(p0.parts[0] if in_dq else p0, in_dq)  # type: ignore[union-attr,arg-type]
                if value is None:
                    return ""
                if type(value) is str:
                    if len(value) > _CHARGE_FROM:
                        self._charge_text(len(value))
                    return value
                if isinstance(value, _Segs):
                    return value.text()
                assert isinstance(value, _Multi)
                return self._charged((self.env.ifs()[:1] if value.star else " ").join(value.values))
        return self._charged(self._join_parts(parts, False))

    def _charged(self, text: str) -> str:
        if len(text) > _CHARGE_FROM:
            self._charge_text(len(text))
        return text

    def heredoc(self, word: A.Word) -> str:
        parts = word.parts
        if len(parts) == 1 and type(parts[0]) is A.Lit:
            return parts[0].text
        return self._charged(self._join_parts(parts, True))

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
                if type(value) is str:
                    out.append(value)
                elif isinstance(value, _Segs):
                    out.append(value.text())
                elif isinstance(value, _Multi):
                    out.append((self.env.ifs()[:1] if value.star else " ").join(value.values))
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
        segs: list[Seg] = []
        self._parts(word.parts, segs, False, join_at=True)
        return "".join(escape(t) if f == QUO else t for t, f in segs)

    def regex(self, word: A.Word) -> str:
        """The right side of =~: quoted characters match literally. Inside a bracket expression
        opened by an unquoted `[` they go in as they are (bash: `["."]` is `[.]`, `[\\.]` too)."""
        segs: list[Seg] = []
        self._parts(word.parts, segs, False, join_at=True)
        chars = [(c, f == QUO) for t, f in segs for c in t]
        out: list[str] = []
        i = 0
        n = len(chars)
        while i < n:
            c, quoted = chars[i]
            if quoted:
                out.append("\\" + c if not c.isalnum() and c != "_" and ord(c) < 128 else c)
            elif c == "[":
                i = _regex_bracket(chars, i, out)
                continue
            else:
                out.append(c)
            i += 1
        return "".join(out)

    def redirect_target(self, word: A.Word) -> list[str]:
        """Expansion for a redirection target (may glob; caller checks count)."""
        return self.word(word)

    # ------------------------------------------------------------ brace expansion

    def _braces(self, parts: tuple[A.Part, ...], top: bool = False) -> list[tuple[A.Part, ...]]:
        for p in parts:
            if type(p) is A.Brace or type(p) is A.BraceSeq:
                break
        else:
            return [parts]
        if not self.env.option("braceexpand"):
            return [
                tuple(A.Lit(_brace_source(p)) if isinstance(p, (A.Brace, A.BraceSeq)) else p for p in parts)
            ]
        results: list[list[A.Part]] = [[]]
        for p in parts:
            if type(p) is A.Brace:
                alts: list[tuple[A.Part, ...]] = []
                for alt in p.alts:
                    alts.extend(self._braces(alt))
                self.env.charge_brace(len(results) * len(alts))
                results = [r + list(a) for r in results for a in alts]
            elif type(p) is A.BraceSeq:
                # the size is charged before any string is built
                self.env.charge_brace(len(results) * _sequence_len(p))
                items = _sequence(p)
                if items is None:
                    text = "{" + p.start + ".." + p.end + (".." + p.step if p.step else "") + "}"
                    for r in results:
                        r.append(A.Lit(text))
                    continue
                self.env.charge_brace(len(results) * len(items))
                results = [r + [A.Lit(item) if item else A.SQ("")] for r in results for item in items]
            else:
                for r in results:
                    r.append(p)
        if top:
            # tilde expansion follows brace expansion: `{a,~}/x` gives `~/x` a home
            return [_tilde_after_brace(_glue_names(r)) for r in results]
        return [tuple(r) for r in results]

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
                elif self._at_empty and _only_qnulls(segs, before):
                    del segs[before:]
            elif isinstance(p, A.CmdSub):
                text = self.env.command_sub(p.body, p.text)
                segs.append(_QNULL if in_dq and not text else (text, QUO if in_dq else EXP))
            elif isinstance(p, A.ArithSub):
                segs.append((str(self.arith(p.word)), QUO if in_dq else EXP))
            elif isinstance(p, A.Tilde):
                text = "~" + p.user if p.in_argument and self.env.option("posix") else self._tilde(p.user)
                segs.append((text, QUO))
            elif isinstance(p, A.ProcSub):
                segs.append((self.env.process_sub(p.body, p.direction), QUO if in_dq else EXP))
            elif isinstance(p, A.ExtGlob):
                segs.append((self._extglob_text(p), QUO if in_dq else LIT))
            elif isinstance(p, (A.Brace, A.BraceSeq)):
                segs.append((_brace_text(p), QUO if in_dq else LIT))
            elif isinstance(p, A.AssignWord):
                segs.append((self.assign_word_text(p.assign), QUO))

    def assign_word_text(self, a: A.Assign) -> str:
        """An assignment-shaped argument as plain text (used when not declaring)."""
        head = a.name + (f"[{a.sub}]" if a.sub is not None else "") + ("+=" if a.append else "=")
        if a.array is not None:
            return head + "(" + " ".join(i.value.text for i in a.array) + ")"
        return head + (self.string(a.value) if a.value is not None else "")

    def _extglob_text(self, p: A.ExtGlob) -> str:
        alts = []
        for alt in p.alts:
            segs: list[Seg] = []
            self._parts(alt, segs, False, join_at=True)
            alts.append("".join(escape(t) if f == QUO else t for t, f in segs))
        return p.op + "(" + "|".join(alts) + ")"

    def _tilde(self, user: str) -> str:
        home = self.env.home_dir(user)
        return home if home is not None else "~" + user

    def arith(self, word: A.Word) -> int:
        parts = word.parts
        if self._arith_slots is not None and (len(parts) > 1 or (parts and type(parts[0]) is not A.Lit)):
            tpl = _ARITH_TEMPLATES.get(word.text, _NO_TEMPLATE)
            if tpl is _NO_TEMPLATE:
                tpl = _arith_template(word)
                if len(_ARITH_TEMPLATES) < 4096:
                    _ARITH_TEMPLATES[word.text] = tpl
            if tpl is not None:
                return self._arith_template_eval(tpl)
        return self.env.arith_eval(self.arith_text(word))

    def _arith_template_eval(self, tpl: _Template) -> int:
        """`$(( $n % 3 ))`: each `$n` expands as the text would, and when every one is a plain
        decimal number the expression is evaluated as its template (`_sbSlot0_ % 3`, parsed once,
        the slots bound to the numbers) instead of parsing the text anew for every value."""
        fn, template, parts, names = tpl
        texts: list[str] = []
        values: dict[str, str] = {}
        plain = True
        for p in parts:
            if type(p) is A.Lit:
                texts.append(p.text)  # type: ignore[union-attr]
                continue
            v = self.param(p, True)  # type: ignore[arg-type]
            if v is None:
                v = ""
            elif type(v) is not str:
                v = as_text(v) or ""
            texts.append(v)
            values[names[len(values)]] = v
            if plain and not (len(v) < 19 and v.isdigit() and v.isascii() and (v[0] != "0" or len(v) == 1)):
                plain = False
        if not plain:  # the text, from the values already expanded (each `$RANDOM` expands once)
            return self.env.arith_eval(self._charged("".join(texts)))
        assert self._arith_slots is not None
        try:
            return self._arith_slots(fn, template, values)
        except ArithError as e:
            # the message the text would give: the slots' names become their numbers again
            text, token = e.text, e.token
            for name, value in values.items():
                text, token = text.replace(name, value), token.replace(name, value)
            e.text, e.token = text, token
            raise

    def arith_text(self, word: A.Word) -> str:
        """The text of an arithmetic expression, expanded. When bash expands it fully, what a
        subscript expands to is backslash-quoted so the evaluator does not expand it again
        (subst.c's expand_array_subscript): `A[$k]` uses $k's value as the key, whatever it holds."""
        parts = word.parts
        if len(parts) == 1 and type(parts[0]) is A.Lit:
            return parts[0].text
        if "[" not in word.text or ARITH_EXPANDS.search(word.text) is None:
            return self.heredoc(word)
        out: list[str] = []
        self._arith_join(parts, out, 0)
        return self._charged("".join(out))

    def arith_operand(self, word: A.Word) -> str:
        """An operand of [[ a -eq b ]]: a word expanded with its subscripts quoted (as arith_text)."""
        if "[" not in word.text:
            return self.string(word)
        out: list[str] = []
        self._arith_join(word.parts, out, 0)
        return self._charged("".join(out))

    def _arith_join(self, parts: tuple[A.Part, ...], out: list[str], depth: int) -> int:
        """Append the expanded `parts` to `out`; `depth`: inside how many `[` (returned updated)."""
        for p in parts:
            t = type(p)
            if t is A.Lit:
                depth = _arith_lit(p.text, depth, out)  # type: ignore[union-attr]
            elif depth:
                text = p.text if t is A.SQ or t is A.Esc else self._join_parts((p,), False)  # type: ignore[union-attr]
                out.append(_quote_subscript(text))
            elif t is A.DQ:
                depth = self._arith_join(p.parts, out, depth)  # type: ignore[union-attr]
            else:
                out.append(self._join_parts((p,), True))
        return depth

    # ------------------------------------------------------------ parameters

    def _param_segs(
        self, p: A.Param, segs: list[Seg], in_dq: bool, join_at: bool, nosplit2: bool = False
    ) -> None:
        value = self.param(p, in_dq)
        if value is None:
            return
        if type(value) is str:
            segs.append(_QNULL if in_dq and not value else (value, QUO if in_dq else EXP))
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
        if isinstance(value, _Segs):
            if join_at:
                segs.append((value.text(), flag))
            else:
                segs.extend(value.segs)
            return
        assert isinstance(value, _Multi)
        values = value.values
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
        if value.star:
            if in_dq or join_at:
                ifs = self.env.ifs()
                sep = ifs[:1]
                segs.append((sep.join(values), flag))
            else:
                for i, v in enumerate(values):
                    if i:
                        segs.append(_BRK)
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
                segs.append(_BRK)
            segs.append((v, flag))

    def param(self, p: A.Param, in_dq: bool = False, shown: str | None = None) -> Value:
        """`shown`: the name messages give it (an indirection's `!ref`)."""
        prefix = p.prefix
        if prefix == "bad":
            assert p.op is not None
            raise ExpansionError(f"{p.op.text}: bad substitution")
        if prefix == "error":  # a command substitution in it that does not parse (bash: when expanded)
            assert p.op is not None and p.op.arg is not None
            raise ExpansionError(f"command substitution: line {p.op.arg.line}: {p.op.text}", located=False)
        if prefix == "!" and not p.names_suffix and (p.sub not in ("@", "*") or p.op is not None):
            # ${!a[@]} lists the keys only when the brace follows: ${!a[@]@Q} is an indirection
            return self._indirect(p, in_dq)
        if prefix == "#" and p.sub in ("@", "*") and p.op is None and not p.names_suffix:
            # ${#a[@]}: the number of elements, without listing them (a loop `k < ${#a[@]}` was
            # quadratic); anything else (unset, not an array, positional) goes the general way
            var = self.env.lookup(p.name) if p.name[0].isalpha() or p.name[0] == "_" else None
            if var is not None and isinstance(var.value, (IndexedArray, AssocArray)):
                return str(len(var.value))
        if prefix == "#" and p.sub is not None and p.op is None and not p.names_suffix:
            return self._element_length(p, p.sub)
        base, desc = self._base(p)
        if shown is not None:
            desc = shown
        op = p.op
        if prefix == "#":
            if isinstance(base, _Multi):
                return str(len(base.values))
            if base is None:
                self._check_unset(desc, p)
                return "0"
            if p.sub is None and "[" in (self.env.nameref_target(p.name) or ""):
                return "0"  # bash 5.2: ${#r} is 0 for a nameref to an array element, set or not
            return str(self._length(as_text(base) or ""))
        if op is None:
            if base is None:
                self._check_unset(desc, p)
            return base
        return self._apply_op(p, op, base, desc, in_dq)

    def _element_length(self, p: A.Param, sub: str) -> str:
        """${#a[sub]} as bash's array_length_reference: under `set -u` an unset variable, a
        declared one without a value or a scalar is `a: unbound variable` (status 1); an empty
        associative key or a negative index before the start names the subscript as written from
        its text on (`-9]: bad array subscript`). Both end the command line as a bad substitution
        does. An unset element has length 0."""
        var = self.env.lookup(p.name)
        val = var.value if var is not None else None
        if not isinstance(val, (IndexedArray, AssocArray)) and self.env.option("nounset"):
            raise ExpansionError(f"{p.name}: unbound variable", 1)
        if val is None:
            return "0"
        if sub in ("@", "*"):
            return "1" if isinstance(val, str) else str(len(val))
        if isinstance(val, AssocArray):
            key = self._assoc_key(p, sub)
            if key == "":
                raise ExpansionError(f"{sub}]: bad array subscript")
            return str(self._length(val.get(key) or ""))
        # (a scalar is no array: a negative index does not count back from its end)
        arr = val if isinstance(val, IndexedArray) else _NO_ELEMENTS
        index = self._index(p, sub, arr, p.name, report=False)
        if index is None:
            raise ExpansionError(f"{sub}]: bad array subscript")
        text = val.get(index) if isinstance(val, IndexedArray) else val if index == 0 else None
        return str(self._length(text or ""))

    def _length(self, text: str) -> int:
        """${#x}: characters, or bytes when the shell's locale is C/POSIX."""
        if text.isascii() or not self._byte_locale():
            return len(text)
        return len(text.encode("utf-8", "surrogateescape"))

    def _byte_locale(self) -> bool:
        """Characters are bytes: the shell's locale is C/POSIX (as the script sets it)."""
        return self.env.locale_bytes()

    def _has_elements(self, p: A.Param) -> bool:
        var = self.env.lookup(p.name) if p.sub is None else None
        return var is not None and isinstance(var.value, (IndexedArray, AssocArray)) and len(var.value) > 0

    def _check_unset(self, desc: str, p: A.Param) -> None:
        if self.env.option("nounset") and p.name not in ("@", "*"):
            if p.sub in ("@", "*") and p.prefix != "#":
                return
            if p.sub is None and "[" in (self.env.nameref_target(p.name) or ""):
                return  # bash 5.2: a nameref to an unset array element is not reported
            if (desc.isdigit() or desc == "!") and not p.braced:
                desc = "$" + desc  # bash names `$1` so, but `${1}` as 1
            raise ExpansionError(f"{desc}: unbound variable", 127)

    def _base(self, p: A.Param) -> tuple[Value, str]:
        """The unmodified value of the parameter and the name used in messages."""
        name = p.name
        env = self.env
        if p.names_suffix:
            names = [n for n in env.var_names() if n.startswith(name)]
            return _Multi(names, p.names_suffix == "*"), name
        c0 = name[0]
        if not (c0.isalpha() or c0 == "_"):
            # positional and special parameters
            if name in ("@", "*"):
                return _Multi(env.positional(), name == "*"), name
            if c0.isdigit():
                idx = int(name)
                if idx == 0:
                    return env.special("0"), name
                pos = env.positional()
                return (pos[idx - 1] if idx <= len(pos) else None), name
            if name in ("#", "?", "$", "!", "-"):
                sv = env.special(name)
                return (sv if sv != "" or name != "!" else None), name
        var = env.lookup(name)
        sub = p.sub
        if sub is None:
            if var is None:
                return None, name
            val = var.value
            if type(val) is str:
                if type(var) is not Var and not p.braced and isinstance(var, ElementsVar):
                    return _Multi(var.elements, var.star), name  # "$ref" to A[@]: as "${A[@]}"
                return val, name
            if val is None:
                return None, name
            if isinstance(val, IndexedArray):
                return val.get(0), name
            assert isinstance(val, AssocArray)
            return val.get("0"), name
        if sub in ("@", "*"):
            if p.prefix == "!":
                # ${!a[@]}: the keys
                if var is None or var.value is None:
                    return _Multi([], sub == "*"), name
                val = var.value
                if isinstance(val, IndexedArray):
                    return _Multi([str(k) for k in val.keys()], sub == "*"), name
                if isinstance(val, AssocArray):
                    return _Multi(val.keys(), sub == "*"), name
                return _Multi(["0"], sub == "*"), name
            if var is None or var.value is None:
                return (
                    _Multi([], sub == "*") if var is not None or not self.env.option("nounset") else None
                ), f"{name}[{sub}]"
            val = var.value
            if isinstance(val, (IndexedArray, AssocArray)):
                return _Multi(val.values(), sub == "*"), name
            return _Multi([val], sub == "*"), name
        desc = f"{name}[{sub}]"
        if var is None or var.value is None:
            if var is None or not (var.attrs & ASSOC):
                self._index(p, sub, None, name)  # evaluate for side effects and errors
            return None, desc
        val = var.value
        if isinstance(val, AssocArray):
            key = self._assoc_key(p, sub)
            if not key:
                self.env.report_error(f"{name}: bad array subscript")  # (an empty key: bash goes on)
                return None, desc
            return val.get(key), desc
        index = self._index(p, sub, val if isinstance(val, IndexedArray) else None, name)
        if index is None:
            return None, desc
        if isinstance(val, IndexedArray):
            return val.get(index), desc
        return (val if index == 0 else None), desc

    def _assoc_key(self, p: A.Param, sub: str) -> str:
        """The key `sub` names in an associative array: the parsed subscript's expansion, or (for a
        parameter made at run time) the text expanded as bash expands a key."""
        parsed = p.subscript
        if parsed is None:
            return self.env.subscript_key(sub)
        return sub if parsed.key is None else self.string(parsed.key)

    def _index(
        self, p: A.Param, sub: str, arr: IndexedArray | None, name: str, report: bool = True
    ) -> int | None:
        """An indexed subscript's value; None (after bash's message, unless not `report`) when a
        negative index falls before the start."""
        text = sub
        parsed = p.subscript
        if parsed is not None:
            if parsed.arith is not None:
                text = self.heredoc(parsed.arith)
        elif "$" in sub or "`" in sub or '"' in sub or "\\" in sub:
            # a parameter made when it runs (${!ref} naming an element)
            text = self._expand_sub_text(sub)
        try:
            value = self.env.arith_eval(text)
        except ArithError as e:
            raise subscript_error(e) from None
        if value < 0:
            size = arr.max_index() + 1 if arr is not None else 1
            value += size
            if value < 0:
                if report:
                    self.env.report_error(f"{name}: bad array subscript")
                return None
        return value

    def _subscript_once(self, name: str, sub: str, parsed: A.Subscript | None) -> str:
        """`sub` evaluated now, as a subscript that gives the same element again without being
        evaluated (${a[k++]=v} assigns and reads back the element its test saw next, once)."""
        var = self.env.lookup(name)
        if var is not None and (var.attrs & ASSOC or isinstance(var.value, AssocArray)):
            if parsed is None:
                key = self.env.subscript_key(sub)
            else:
                key = sub if parsed.key is None else self.string(parsed.key)
            # (`@` and `*` are keys here: escaped, they stay an element when read back)
            return "\\" + key if key in ("@", "*") else _quote_subscript(key)
        if sub in ("@", "*"):
            return sub
        arr = var.value if var is not None and isinstance(var.value, IndexedArray) else None
        index = self._index(A.Param(name, sub, "", None, True, "", parsed), sub, arr, name, report=False)
        return sub if index is None else str(index)

    def _expand_sub_text(self, sub: str) -> str:
        from ..syntax.lexer import ARITH
        from ..syntax.parser import Parser

        reader = Parser(sub)
        parts = reader.read_parts(ARITH)
        return self.heredoc(A.Word(tuple(parts), 0, sub))

    def _indirect(self, p: A.Param, in_dq: bool) -> Value:
        env = self.env
        name = p.name
        # ${!ref} on a nameref gives the name it refers to
        target_name = env.nameref_target(name) if p.sub is None else None
        if target_name is not None and p.op is None:
            return target_name
        ref = as_text(self._base(A.Param(name, p.sub, "", None, True, "", p.subscript))[0])
        if name in ("@", "*") and not env.positional():
            ref = None  # ${!@} without positional parameters names nothing: unset, no error
        if ref is None:
            # only a name that is no variable at all is an error (subst.c): an unset positional or
            # special parameter, or a declared variable without a value, expands as unset
            if (name[0].isalpha() or name[0] == "_") and env.lookup(name) is None:
                shown = name if p.sub is None else f"{name}[{p.sub}]"
                raise ExpansionError(f"{shown}: invalid indirect expansion", 1)
            if p.op is None:
                self._check_unset("!" + name, p)
                return None
            if p.op.op in (Op.ASSIGN, Op.ASSIGN_UNSET):
                raise ExpansionError(f"!{name}: invalid indirect expansion", 1)  # nothing to assign to
            return self._apply_op(p, p.op, None, "!" + name, in_dq)
        target = _parse_ref(ref)
        if target is None or target.name == "":
            raise ExpansionError(f"{ref}: invalid variable name", 1)
        try:
            return self.param(A.Param(target.name, target.sub, "", p.op, True), in_dq, "!" + name)
        except _SliceArithError as e:
            raise _SliceArithError(e.inner, "!" + name) from None

    # ------------------------------------------------------------ operators

    def _apply_op(self, p: A.Param, op: A.ParamOp, base: Value, desc: str, in_dq: bool) -> Value:
        kind = op.kind
        if kind is _TEST:
            return self._test_op(p, op, base, desc, in_dq)
        if base is None:
            if not (
                kind is _XFORM and op.op in (Op.AT_ATTRIBUTES, Op.AT_ASSIGNMENT) and self._has_elements(p)
            ):
                self._check_unset(desc, p)  # (${a@a}: an array with elements is set, whatever a[0])
            if kind is _XFORM:
                if op.op in (Op.AT_ATTRIBUTES, Op.AT_ASSIGNMENT) and p.name not in ("@", "*"):
                    return self._xform(p, op.op, None)
                return None
            return None
        if kind is _SLICE:
            return self._slice(p, op, base)
        if kind is _XFORM:
            return self._xform(p, op.op, base)
        fn = self._op_function(op)
        if isinstance(base, _Multi):
            return _Multi([fn(v) for v in base.values], base.star)
        return fn(as_text(base) or "")

    def _op_function(self, op: A.ParamOp) -> Callable[[str], str]:
        env = self.env
        extglob = env.option("extglob")
        # a substitution also depends on patsub_replacement and nocasematch (bash 4.4+)
        amp = env.option("patsub_replacement") | env.option("nocasematch") << 1 if op.kind is _REPL else 0
        cache = self._op_cache
        hit = cache.get(id(op))
        if hit is not None and hit[0] is op:
            if hit[3] is not None and hit[1] == extglob and hit[2] == amp:
                return hit[3]
            static = hit[3] is not None
        else:
            # words of plain text (`${x%%.*}`, `${x//a/b}`) make the same function each time
            static = _static_word(op.arg) and _static_word(op.arg2)
        fn = self._make_op_function(op, extglob)
        if len(cache) > 1024:
            cache.clear()
        cache[id(op)] = (op, extglob, amp, fn if static else None)
        return fn

    def _make_op_function(self, op: A.ParamOp, extglob: bool) -> Callable[[str], str]:
        env = self.env
        kind = op.kind
        if kind is OpKind.TRIM:
            assert op.arg is not None
            pat = compile_pattern(self.pattern(op.arg), extglob)
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
            pat_text = self.pattern(op.arg)
            amp = env.option("patsub_replacement")
            rep = self._replacement(op.arg2, amp) if op.arg2 is not None else ""
            return _replacer(
                op.op,
                pat_text,
                rep,
                extglob,
                amp and _amp_expands(rep),
                env.check_string,
                env.option("nocasematch"),
            )
        if kind is OpKind.CASE:
            pat_src = self.pattern(op.arg) if op.arg is not None else None
            cpat = compile_pattern(pat_src, extglob) if pat_src else None
            mode = op.op[0]  # ^ upper, , lower, ~ toggle
            whole = op.op in (Op.UPPER_ALL, Op.LOWER_ALL, Op.TOGGLE_ALL)

            def conv(s: str) -> str:
                out = []
                for i, c in enumerate(s):
                    if (whole or i == 0) and (cpat is None or cpat.fullmatch(c)):
                        if mode == "^":
                            c = c.upper()
                        elif mode == ",":
                            c = c.lower()
                        else:
                            c = c.lower() if c.isupper() else c.upper()
                    out.append(c)
                return "".join(out)

            return conv
        raise ExpansionError(f"{op.op}: bad substitution")

    def _test_op(self, p: A.Param, op: A.ParamOp, base: Value, desc: str, in_dq: bool) -> Value:
        o = op.op
        colon = o[0] == ":"
        if isinstance(base, _Multi):
            values = base.values
            is_unset = not values
            if base.star and in_dq:
                # "${a[*]:-x}": the joined string decides
                is_null = is_unset or self.env.ifs()[:1].join(values) == ""
            else:
                is_null = is_unset or (len(values) == 1 and values[0] == "")
        else:
            is_unset = base is None
            is_null = is_unset or base == ""
        missing = is_null if colon else is_unset
        letter = o[-1]
        if letter == "+":
            if missing:
                if isinstance(base, _Multi) and not base.star:
                    # like an empty "$@": the word disappears even in quotes
                    self._at_empty = True
                return None
            return self._alt_value(op.arg, in_dq)
        if not missing:
            return base
        if letter == "-":
            return self._alt_value(op.arg, in_dq) if op.arg is not None else ""
        if letter == "=":
            if p.name in ("@", "*") or p.name[0].isdigit() or p.name in ("#", "?", "$", "!", "-"):
                raise ExpansionError(f"${p.name}: cannot assign in this way")
            value = self.string(op.arg) if op.arg is not None else ""
            name, sub, parsed = p.name, p.sub, p.subscript
            ref = self.env.nameref_target(name)
            if ref is not None:
                t = _parse_ref(ref)
                if t is not None:
                    name, sub, parsed = t.name, t.sub, None
            if sub is not None:
                sub = self._subscript_once(name, sub, parsed)
            self.env.assign_default(name, sub, value)
            var = self.env.lookup(name)
            if var is not None and var.attrs & (INTEGER | LOWER | UPPER | CAPITALIZE):
                # the value as the variable's attributes made it (declare -u: FOO)
                got = self._base(A.Param(name, sub))[0]
                return got if isinstance(got, str) else value
            return value
        # '?'
        msg = self.string(op.arg) if op.arg is not None and op.arg.parts else ""
        if not msg:
            msg = "parameter null or not set" if colon else "parameter not set"
        raise ExpansionError(f"{desc}: {msg}", 127)

    def _alt_value(self, word: A.Word | None, in_dq: bool) -> Value:
        """The word of ${x:-word} and friends. It keeps its own quoting: outside
        double quotes its unquoted text is split like an expansion."""
        if word is None:
            return ""
        segs: list[Seg] = []
        self._parts(word.parts, segs, in_dq, nosplit2=not in_dq)
        if in_dq:
            if _BRK in segs:
                return _Segs(segs)  # "${u:-${a[@]}}" keeps the array's fields
            return "".join(s[0] for s in segs)
        return _Segs([(t, EXP if f == LIT else f) for t, f in segs])

    def _slice_number(self, p: A.Param, word: A.Word) -> int:
        """An offset or length of ${p:off:len}; an arithmetic error names the parameter as bash does."""
        text = self.arith_text(word)
        if not text.strip():
            return 0
        try:
            return self.env.arith_eval(text)
        except ArithError as e:
            shown = p.name + (f"[{p.sub}]" if p.sub is not None else "")
            raise _SliceArithError(e, shown) from None

    def _offset_in_range(self, p: A.Param, base: Value, offset: int) -> bool:
        """False when bash drops ${p:off:len} to nothing before it evaluates the length
        (subst.c's verify_substring_values: arrays count to their highest index, "$@" from $0)."""
        if isinstance(base, _Multi):
            if p.name in ("@", "*"):
                count = len(base.values) + 1 + (offset == 0)
            else:
                var = self.env.lookup(p.name)
                arr = var.value if var is not None else None
                top = arr.max_index() if isinstance(arr, IndexedArray) else len(base.values)
                count = top + (offset < 0)
        else:
            assert isinstance(base, str)
            count = len(base)
        return -count <= offset <= count

    def _slice(self, p: A.Param, op: A.ParamOp, base: Value, as_bytes: bool = False) -> Value:
        assert op.arg is not None
        star = base.star if isinstance(base, _Multi) else None
        if star is not None and p.name not in ("@", "*"):
            var = self.env.lookup(p.name)
            if var is not None and isinstance(var.value, str):
                base = var.value  # ${scalar[@]:1}: bash slices the string
        if not as_bytes and isinstance(base, str) and not base.isascii() and self._byte_locale():
            # a C locale slices bytes: each byte a character of its own while slicing
            raw = base.encode("utf-8", "surrogateescape").decode("latin-1")
            cut = self._slice(p, op, raw, as_bytes=True)
            assert isinstance(cut, str)
            return cut.encode("latin-1").decode("utf-8", "surrogateescape")
        offset = self._slice_number(p, op.arg)
        if not self._offset_in_range(p, base, offset):
            return _Multi([], star) if star is not None else ""  # length is not evaluated
        length = None if op.arg2 is None else self._slice_number(p, op.arg2)
        if isinstance(base, _Multi):
            values = base.values
            if p.name in ("@", "*"):
                values = [self.env.special("0")] + values
                if offset < 0:
                    offset += len(values)
                    if offset < 0:
                        return _Multi([], base.star)
                sel = values[offset:]
            else:
                var = self.env.lookup(p.name)
                arr = var.value if var is not None else None
                if isinstance(arr, IndexedArray):
                    keys = arr.keys()
                    if offset < 0:
                        offset += arr.max_index() + 1
                        if offset < 0:
                            return _Multi([], base.star)
                    sel = [arr.get(k) or "" for k in keys if k >= offset]
                else:
                    if offset < 0:
                        offset += len(values)
                        if offset < 0:
                            return _Multi([], base.star)
                    sel = values[offset:]
            if length is not None:
                if length < 0:
                    raise ExpansionError(
                        f"{op.arg2.text if op.arg2 else length}: substring expression < 0", None
                    )
                sel = sel[:length]
            return _Multi(sel, base.star)
        s = base
        assert isinstance(s, str)
        n = len(s)
        if offset < 0:
            offset += n
            if offset < 0:
                return ""
        if offset > n:
            return ""
        if length is None:
            return s[offset:]
        if length < 0:
            end = n + length
            if end < offset:
                raise ExpansionError(f"{op.arg2.text if op.arg2 else length}: substring expression < 0", None)
            return s[offset:end]
        return s[offset : offset + length]

    def _xform(self, p: A.Param, letter: str, base: Value) -> Value:
        if letter in ("a", "A") and p.name in ("@", "*") and isinstance(base, _Multi):
            if letter == "a":
                return _Multi(["" for _ in base.values], base.star)  # positional parameters have none
            # ${@@A}: the `set --` command that makes these positional parameters
            return _Multi(["set", "--", *map(quote_reusable, base.values)] if base.values else [], base.star)
        if letter in ("a", "A", "K", "k") and p.name not in ("@", "*"):
            var = self.env.lookup(p.name)
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
                    return _Multi(flat, p.sub == "*")
                if isinstance(v, AssocArray):
                    return "".join(f"{assoc_key(k)} {declare_quote(val)} " for k, val in items)
                return " ".join(f"{k} {declare_quote(val)}" for k, val in items)
            if letter in ("a", "A"):
                return self._xform_declared(p, letter, base, var)

        def one(s: str) -> str:
            if letter == "Q" or letter in ("K", "k"):
                return quote_reusable(s)
            if letter == "E":
                # bash's internal quoting character (\001) quotes the next one in the value: a
                # pair of them comes out as one
                return decode_escapes(s.replace("\x01\x01", "\x01"), "ansi")[0]
            if letter == "P":
                return self.env.prompt_expand(s)
            if letter == "U":
                return s.upper()
            if letter == "u":
                return s[:1].upper() + s[1:]
            if letter == "L":
                return s.lower()
            return s

        if isinstance(base, _Multi):
            return _Multi([one(v) for v in base.values], base.star)
        assert isinstance(base, str)
        return one(base)

    def _replacement(self, word: A.Word, amp: bool) -> str:
        """The replacement of ${x/pat/rep}, expanded. With patsub_replacement a quoted `&` or
        backslash is marked with a backslash (subst.c's quote_string_for_repl), so that only an
        unquoted `&` stands for the match, including one in a variable's value."""
        if not amp:
            return self.string(word)
        segs: list[Seg] = []
        self._parts(word.parts, segs, False, join_at=True)
        return "".join(t.replace("\\", "\\\\").replace("&", "\\&") if f == QUO else t for t, f in segs)

    def _xform_declared(self, p: A.Param, letter: str, base: Value, var: Var | None) -> Value:
        """${x@a} and ${x@A} (subst.c's string_var_assignment): a[@] of an array is the whole
        array, x or a[i] one value with the variable's attributes; a variable declared without a
        value is still shown by its attributes (`declare -rl x`)."""
        if var is None:
            return "" if letter == "a" else None
        flags = _attr_letters(var)
        if letter == "a":
            if isinstance(base, _Multi) and (base.values or var.value is not None):
                return _Multi([flags for _ in base.values], base.star)
            return flags
        if p.sub in ("@", "*") and isinstance(var.value, (IndexedArray, AssocArray)):
            return self._xform_var(p.name, var, letter)
        value = (base.values[0] if base.values else None) if isinstance(base, _Multi) else as_text(base)
        if value is None:
            return f"declare -{flags} {p.name}" if flags else ""
        return (
            f"declare -{flags} {p.name}={quote_reusable(value)}"
            if flags
            else f"{p.name}={quote_reusable(value)}"
        )

    def _xform_var(self, name: str, var: Var, letter: str) -> str:
        if letter == "a":
            return _attr_letters(var)
        flags = _attr_letters(var)
        v = var.value
        if isinstance(v, AssocArray):
            body = "".join(f"[{assoc_key(k)}]={declare_quote(val)} " for k, val in v.items())
            return f"declare -{flags or '-'} {name}=({body})"
        if isinstance(v, IndexedArray):
            body = " ".join(f"[{k}]={declare_quote(val)}" for k, val in v.items())
            return f"declare -{flags or '-'} {name}=({body})"
        if v is None:
            return ""
        if flags:
            return f"declare -{flags} {name}={quote_reusable(v)}"
        return f"{name}={quote_reusable(v)}"

    # ------------------------------------------------------------ splitting

    def _split(self, segs: list[Seg]) -> list[list[Seg]]:
        for s in segs:
            if s[1] >= EXP:
                break
        else:
            # nothing to split: one field unless it is entirely empty and unquoted
            if any(s[1] == QUO or s[0] for s in segs):
                return [segs]
            return []
        ifs = self.env.ifs()
        delim = _ifs_delimiter(ifs) if ifs else None
        cap_name, cap = self._field_cap()
        fields: list[list[Seg]] = []
        cur: list[Seg] = []
        exists = False
        for text, flag in segs:
            if flag == BRK:
                if exists:
                    if len(fields) >= cap:
                        raise LimitExceeded(cap_name, cap)
                    fields.append(cur)
                cur = []
                exists = False
                continue
            if flag != EXP:
                cur.append((text, flag))
                if flag == QUO or text:
                    exists = True
                continue
            if delim is None:
                if text:
                    cur.append((text, flag))
                    exists = True
                continue
            n = len(text)
            start = 0
            # one delimiter: IFS whitespace* [other IFS character, whitespace*] (a C-speed scan:
            # a long value must not cost a Python step per character)
            for m in delim[0].finditer(text):
                i, j = m.span()
                if i > start:
                    cur.append((text[start:i], EXP))
                    exists = True
                if exists or (delim[1] and delim[1].search(text, i, j)):
                    if len(fields) >= cap:
                        raise LimitExceeded(cap_name, cap)
                    fields.append(cur)
                cur = []
                exists = False
                start = j
            if start < n:
                cur.append((text[start:], EXP))
                exists = True
        if exists:
            fields.append(cur)
        return fields

    # ------------------------------------------------------------ globbing

    def target_fields(self, word: A.Word) -> list[str]:
        """The fields of a redirection's word: a non-interactive bash in posix mode does not glob it."""
        if not self.env.option("posix"):
            return self.words((word,))
        self._glob_off = True
        try:
            return self.words((word,))
        finally:
            self._glob_off = False

    def _glob_field(self, field: list[Seg], out: list[str]) -> None:
        if len(field) == 1:
            text, flag = field[0]
            if flag == QUO or not _maybe_glob(text) or self._glob_off or self.env.option("noglob"):
                out.append(text)
                return
        elif all(f == QUO for _, f in field) or self._glob_off or self.env.option("noglob"):
            out.append("".join(t for t, _ in field))
            return
        if not any(f != QUO and _maybe_glob(t) for t, f in field):
            out.append("".join(t for t, _ in field))
            return
        extglob = self.env.option("extglob")
        pattern = "".join(escape(t) if f == QUO else t for t, f in field)
        # whether it is a pattern is decided with quoted slashes still quoted (`[a"/"b]` is a
        # bracket expression, `[a/b]` is plain text); the walk then sees every slash as a slash
        if not has_path_glob(
            pattern
            if "/" not in pattern
            else "".join(escape(t).replace("/", "\\/") if f == QUO else t for t, f in field),
            extglob,
        ):
            out.append("".join(t for t, _ in field))
            return
        matches = self.env.glob(pattern)
        if matches is None:
            out.append("".join(t for t, _ in field))
        else:
            out.extend(matches)


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


def as_text(value: Value) -> str | None:
    """A parameter value as one string ("$@" joined by spaces)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, _Segs):
        return value.text()
    return " ".join(value.values)


def _static_word(word: A.Word | None) -> bool:
    """A word of plain text only: its expansion never changes."""
    if word is None:
        return True
    for p in word.parts:
        t = type(p)
        if t is A.DQ:
            if not all(type(q) is A.Lit or type(q) is A.Esc or type(q) is A.SQ for q in p.parts):  # type: ignore[union-attr]
                return False
        elif not (t is A.Lit or t is A.Esc or t is A.SQ):
            return False
    return True


_DELIMITERS: dict[str, tuple[re.Pattern[str], re.Pattern[str] | None]] = {}


def _ifs_delimiter(ifs: str) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """A field delimiter for `ifs` (character classes only: linear time) and a test for
    its non-whitespace part (a "hard" delimiter ends a field even when it is empty)."""
    got = _DELIMITERS.get(ifs)
    if got is None:
        ws = "".join(c for c in ifs if c in " \t\n")
        other = "".join(c for c in ifs if c not in " \t\n")
        w = f"[{re.escape(ws)}]" if ws else ""
        o = f"[{re.escape(other)}]" if other else ""
        parts = []
        if o:
            parts.append(f"{w}*{o}{w}*" if w else o)
        if w:
            parts.append(f"{w}+")
        got = (re.compile("|".join(parts)), re.compile(o) if o else None)
        if len(_DELIMITERS) < 64:
            _DELIMITERS[ifs] = got
    return got


# the parts of an unquoted word Expander._plain_word takes (each expands to text)
_PLAIN_PARTS = frozenset({A.Lit, A.Param, A.ArithSub, A.CmdSub})


def _only_qnulls(segs: list[Seg], start: int) -> bool:
    """Whether every segment from `start` on is a scalar expansion's empty text (_QNULL)."""
    return all(seg is _QNULL for seg in segs[start:])


def _maybe_glob(text: str) -> bool:
    return "*" in text or "?" in text or "[" in text or "(" in text


_NO_GLOB: set[str] = set()  # literal texts with a glob character that is not active (`[`, `a(b`)


def literal_text(parts: tuple[A.Part, ...]) -> str | None:
    """The one field of a word of literal text only, when nothing in it can glob (`n+=1`, `a=b:c`,
    which the parser splits at `=` and `:` for tildes; `"n += 1"`, `'%s\\n'`, `\\*`), else None.
    A word of unquoted literals only is also checked for brackets that are not globs (`[`)."""
    texts: list[str] = []
    unquoted_glob = quoted = False
    for p in parts:
        t = type(p)
        if t is A.Lit:
            if _maybe_glob(p.text):  # type: ignore[union-attr]
                unquoted_glob = True
        elif t is A.SQ or t is A.Esc:
            quoted = True
        elif t is A.DQ:
            quoted = True
            for q in p.parts:  # type: ignore[union-attr]
                tq = type(q)
                if not (tq is A.Lit or tq is A.Esc or tq is A.SQ):
                    return None
                texts.append(q.text)  # type: ignore[union-attr]
            continue
        else:
            return None
        texts.append(p.text)  # type: ignore[union-attr]
    text = "".join(texts)
    if unquoted_glob and (quoted or not plain_literal(text)):
        return None
    if not text and not quoted:
        return None  # an empty unquoted word is no field (the general path decides)
    return text


def plain_literal(text: str) -> bool:
    """An unquoted literal that expands to itself: no glob character, or none active even with
    extglob (`[ ... ]`'s brackets). Cached per text: a loop body's literals recur every iteration."""
    if not _maybe_glob(text) or text in _NO_GLOB:
        return True
    if has_path_glob(text, True):
        return False
    if len(_NO_GLOB) < 4096:
        _NO_GLOB.add(text)
    return True


_Template = tuple[Fn, str, tuple[A.Part, ...], tuple[str, ...]]
_NO_TEMPLATE: _Template = (lambda ev: 0, "", (), ())
_ARITH_TEMPLATES: dict[str, _Template | None] = {}  # arithmetic word text -> its template
_SLOT = "_sbSlot"
_IDENT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# what, next to a `$x`, would make its number part of another token or an assignment's target
_BEFORE_BAD = _IDENT | frozenset("#.$\\'\"`@")
_AFTER_BAD = _IDENT | frozenset("#.[($\\'\"`@")
_ASSIGN_AFTER = re.compile(r"\s*(?:\+\+|--|(?:[-+*/%&|^]|<<|>>)?=(?!=))")  # our own fixed pattern


def _arith_template(word: A.Word) -> _Template | None:
    """The template of an arithmetic word of literal text and plain `$x` / `${x}` / `$1` (each one
    a whole operand, never an assignment's target), or None: such a word's text differs from the
    template only by numbers where the slots are, when every `$x` is a decimal number."""
    parts = word.parts
    if not word.text or "[" in word.text or _SLOT in word.text:
        return None
    pieces: list[str] = []
    names: list[str] = []
    for i, p in enumerate(parts):
        t = type(p)
        if t is A.Lit:
            pieces.append(p.text)  # type: ignore[union-attr]
            continue
        if t is not A.Param or p.op is not None or p.prefix or p.sub is not None or p.name in ("@", "*"):  # type: ignore[union-attr]
            return None
        prev, nxt = parts[i - 1] if i else None, parts[i + 1] if i + 1 < len(parts) else None
        if (prev is not None and type(prev) is not A.Lit) or (nxt is not None and type(nxt) is not A.Lit):
            return None  # `$a$b`: one number made of two
        before = prev.text if prev is not None else ""  # type: ignore[union-attr]
        after = nxt.text if nxt is not None else ""  # type: ignore[union-attr]
        if (before and before[-1] in _BEFORE_BAD) or (after and after[0] in _AFTER_BAD):
            return None
        if before.rstrip().endswith(("++", "--")) or _ASSIGN_AFTER.match(after):
            return None
        name = f"{_SLOT}{len(names)}_"
        names.append(name)
        pieces.append(name)
    if not names:
        return None
    template = "".join(pieces)
    try:
        fn = compiled(template)
    except ArithError:
        return None  # the text itself reports the error
    return fn, template, parts, tuple(names)


def _brace_source(p: A.Part) -> str:
    """The text a brace expansion was written as (for `set +B`)."""
    if isinstance(p, A.BraceSeq):
        return _brace_text(p)
    if isinstance(p, A.Brace):
        alts = []
        for alt in p.alts:
            alts.append(
                "".join(x.text if isinstance(x, (A.Lit, A.Esc, A.SQ)) else _brace_source(x) for x in alt)
            )
        return "{" + ",".join(alts) + "}"
    return ""


def _brace_text(p: A.Part) -> str:
    if isinstance(p, A.BraceSeq):
        return "{" + p.start + ".." + p.end + (".." + p.step if p.step else "") + "}"
    return ""


_NAME_TAIL = re.compile("[A-Za-z0-9_]*")  # our own fixed pattern


def _glue_names(parts: list[A.Part]) -> list[A.Part]:
    """`$var{x,y}` is `$varx $vary`: bash expands braces in the word's text before parameters, so
    a `$name` goes on into the letters a brace put after it (the lexer ended the name there)."""
    out: list[A.Part] = []
    for p in parts:
        if type(p) is A.Lit and out:
            q = out[-1]
            if (
                type(q) is A.Param
                and not q.braced
                and not q.prefix
                and q.sub is None
                and q.op is None
                and (q.name[:1].isalpha() or q.name[:1] == "_")
            ):
                m = _NAME_TAIL.match(p.text)
                tail = m.end() if m is not None else 0
                if tail:
                    out[-1] = A.Param(q.name + p.text[:tail])
                    if tail == len(p.text):
                        continue
                    p = A.Lit(p.text[tail:])
        out.append(p)
    return out


def _tilde_after_brace(parts: list[A.Part]) -> tuple[A.Part, ...]:
    if not parts or type(parts[0]) is not A.Lit or not parts[0].text.startswith("~"):
        return tuple(parts)
    k = 1
    while k < len(parts) and type(parts[k]) is A.Lit:
        k += 1
    lead = A.Lit("".join(p.text for p in parts[:k]))  # type: ignore[union-attr]
    return tuple(tilde_prefix([lead, *parts[k:]]))


def _sequence_len(p: A.BraceSeq) -> int:
    step = abs(int(p.step)) if p.step else 1
    step = step or 1
    if p.start.lstrip("+-").isdigit() and p.end.lstrip("+-").isdigit():
        return abs(int(p.end) - int(p.start)) // step + 1
    if len(p.start) == 1 and len(p.end) == 1:
        return abs(ord(p.end) - ord(p.start)) // step + 1
    return 1


def _sequence(p: A.BraceSeq) -> list[str] | None:
    step = int(p.step) if p.step else 1
    if p.start.lstrip("+-").isdigit() and p.end.lstrip("+-").isdigit():
        a, b = int(p.start), int(p.end)
        step = abs(step) or 1
        width = 0
        for s in (p.start, p.end):
            digits = s.lstrip("+-")
            if len(digits) > 1 and digits[0] == "0":
                width = max(width, len(s))
        if a <= b:
            rng = range(a, b + 1, step)
        else:
            rng = range(a, b - 1, -step)
        if width:
            return [(f"-{str(-v).zfill(width - 1)}" if v < 0 else str(v).zfill(width)) for v in rng]
        return [str(v) for v in rng]
    if len(p.start) == 1 and len(p.end) == 1:
        a, b = ord(p.start), ord(p.end)
        step = abs(step) or 1
        rng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        # bash yields an empty word for the backslash between Z and a
        return ["" if v == 92 else chr(v) for v in rng]
    return None


class _Ref:
    __slots__ = ("name", "sub")

    def __init__(self, name: str, sub: str | None) -> None:
        self.name = name
        self.sub = sub


def _parse_ref(ref: str) -> _Ref | None:
    """Parse the target of an indirection: name, name[sub], positional or special."""
    if not ref:
        return None
    if ref in ("@", "*", "#", "?", "$", "!", "-") or ref.isdigit():
        return _Ref(ref, None)
    i = 0
    if not (ref[0].isalpha() or ref[0] == "_"):
        return _Ref("", None)
    while i < len(ref) and (ref[i].isalnum() or ref[i] == "_"):
        i += 1
    if i == len(ref):
        return _Ref(ref, None)
    if ref[i] == "[" and ref.endswith("]"):
        return _Ref(ref[:i], ref[i + 1 : -1])
    return _Ref("", None)


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


def _replacer(
    op: str,
    pat_text: str,
    rep: str,
    extglob: bool,
    use_amp: bool,
    check_size: Callable[[int], None],
    nocase: bool = False,
) -> Callable[[str], str]:
    """`use_amp`: `rep` is marked (see Expander._replacement) and holds `&` or an escape."""
    pat = compile_pattern(pat_text, extglob, nocase)

    def render(matched: str) -> str:
        if not use_amp:
            return rep
        return _amp_replace(rep, matched)

    if op == "/#":

        def f(s: str) -> str:
            k = pat.prefix_len(s, True)
            return s if k < 0 else render(s[:k]) + s[k:]

        return f
    if op == "/%":

        def g(s: str) -> str:
            k = pat.suffix_start(s, True)
            return s if k < 0 else s[:k] + render(s[k:])

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
            return render("") if pat.search(s, 0) is not None else s
        out: list[str] = []
        i = 0
        n = len(s)
        grown = 0  # what the replacements add: checked as it grows (${x//?/$x} squares x)
        while i < n:
            m = pat.search(s, i)
            if m is None:
                break
            a, b = m
            if a >= n:
                break  # bash tries no match at the very end (${x//?()/-} puts none after the last)
            out.append(s[i:a])
            piece = render(s[a:b])
            out.append(piece)
            grown += len(piece)
            if grown > 1 << 16:
                check_size(n + grown)
            i = b
            if not every:
                break
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
