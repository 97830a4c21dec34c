"""The pieces a word expands into, before splitting and globbing.

A word expands into *segments* `(text, flag)`: LIT (unquoted source text, glob-active, not
split), QUO (quoted: neither split nor globbed), EXP (unquoted expansion result: split and
glob-active) and BRK (a field break, from "$@" and arrays). A parameter's value is a str, a
Multi ("$@", "${a[@]}"), a Segs (the word of ${x:-word}) or None (unset). Also the tests for
words of literal text that expand to themselves.
"""

from __future__ import annotations

from ..syntax import ast as A
from .pattern import has_path_glob

# Values shorter than this are not charged one by one (it keeps the common path cheap): a
# command's max_arguments words of this size are the most that goes uncounted.
CHARGE_FROM = 256

LIT = 0
QUO = 1
EXP = 2
BRK = 3

Seg = tuple[str, int]
BRK_SEG: Seg = ("", BRK)

# the empty text a scalar expansion inside double quotes gave ("$e", "$(true)"), told apart by
# identity from a literal quoted null ("", '') and an empty array element: beside a "$@" that
# expands to nothing, bash drops such a word ("$e$@" is no word, "$@""" and "${a[@]}${b[@]}" with
# b=('') are one)
QNULL: Seg = ("", QUO)


# How a multi-valued result joins where one string is wanted (an assignment's value, a
# here-document) and splits unquoted: "$@" and "${a[@]}" themselves join with spaces; an
# operator's result is made by bash's string_list_pos_params, which joins with IFS's first
# character (a space when IFS is null) where:
JOIN_IFS_DQ = 1  # quoted: ${a[@]/x/y}, ${a[@]:1}, ${a[@]^^}, ${!a[@]}
JOIN_IFS = 2  # quoted or not: ${a[@]%x}, ${a[@]#x}, the ${a[@]@X} transforms, ${!pre@}
ONE_NULL_IFS = 4  # unquoted with IFS null, one word joined with spaces: ${a[@]%x} of an array, ${!a[*]}
# ${a[@]@A} of an array: the words `declare -a a=(...)`, one string joined with spaces except
# where bash splits it again on spaces: quoted [@], or unquoted with IFS null
DECL_WORDS = 8
# ${*@A}: its first two words are `set` `--`, which a null IFS joins with spaces all the same
SET_WORDS = 16
# ${!pre*} unquoted with IFS null: one word, the names joined with nothing (IFS's first
# character), where $* and ${a[*]} stay separate words
NULL_JOINED = 32


class Multi:
    """A multi-valued expansion ("$@", "${a[@]}") or its "$*" form; `join`: the bits above."""

    __slots__ = ("values", "star", "join")

    def __init__(self, values: list[str], star: bool, join: int = 0) -> None:
        self.values = values
        self.star = star
        self.join = join

    def text(self, ifs: str, in_dq: bool, ifs_joins: bool = False) -> str:
        """The values as one string. "$*" joins with IFS's first character everywhere; the
        operators' results (the bits above) only where `ifs_joins`: an assignment's value or a
        here-string (Expander.value); in the other places that want one string (`[[ ]]`, `case`,
        patterns, an operator's word, a here-document, a subscript) bash joins them with spaces."""
        join = self.join
        if self.star and not join & DECL_WORDS:
            if join & SET_WORDS and not ifs:
                return "set -- " + "".join(self.values[2:])
            return ifs[:1].join(self.values)
        if not ifs_joins:
            return " ".join(self.values)
        if join & JOIN_IFS or (join & JOIN_IFS_DQ and in_dq):
            return (ifs[:1] or " ").join(self.values)
        return " ".join(self.values)


class Segs:
    """An expansion result that is already segmented (the word of ${x:-word})."""

    __slots__ = ("segs",)

    def __init__(self, segs: list[Seg]) -> None:
        self.segs = segs

    def text(self) -> str:
        # a field break ("${a[@]}" inside the word) joins with a space, as "$@" does
        return "".join(t if f != BRK else " " for t, f in self.segs)


Value = str | Multi | Segs | None


def as_text(value: Value) -> str | None:
    """A parameter value as one string ("$@" joined by spaces)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Segs):
        return value.text()
    return " ".join(value.values)


def static_word(word: A.Word | None) -> bool:
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


# the parts of an unquoted word Expander._plain_word takes (each expands to text)
PLAIN_PARTS = frozenset({A.Lit, A.Param, A.ArithSub, A.CmdSub})


def only_qnulls(segs: list[Seg], start: int) -> bool:
    """Whether every segment from `start` on is a scalar expansion's empty text (QNULL)."""
    return all(seg is QNULL for seg in segs[start:])


def maybe_glob(text: str) -> bool:
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
            if maybe_glob(p.text):  # type: ignore[union-attr]
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
    if not maybe_glob(text) or text in _NO_GLOB:
        return True
    if has_path_glob(text, True):
        return False
    if len(text) <= 256:  # (process-wide: nothing of a long text is kept, T-TEN-5)
        if len(_NO_GLOB) >= 4096:
            _NO_GLOB.clear()
        _NO_GLOB.add(text)
    return True
