"""Field splitting on IFS and pathname expansion of the fields (Expander methods)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

from ..limits import LimitExceeded, LimitKind
from ..syntax import ast as A
from .pattern import escape, has_path_glob
from .segments import BRK, EXP, QUO, Seg, maybe_glob

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .words import Expander


@cache
def ws_split() -> re.Pattern[str]:
    """Splits a value at default IFS's blanks: compiled on first use (a plain `echo hi` splits nothing)."""
    return re.compile("[ \t\n]+")  # our own fixed pattern, not user input


def split(ex: Expander, segs: list[Seg]) -> Iterable[list[Seg]]:
    """The fields of `segs`, each a list of segments: given one at a time as they are split (the
    caller globs each into its own list), so a value of a million fields never holds them all as
    segments at once (~190 bytes a field, uncharged: 240 MB under max_memory 64 MiB)."""
    for s in segs:
        if s[1] >= EXP:
            break
    else:
        # nothing to split: one field unless it is entirely empty and unquoted
        if any(s[1] == QUO or s[0] for s in segs):
            return [segs]
        return []
    return _split_fields(ex, segs)


def _split_fields(ex: Expander, segs: list[Seg]) -> Iterator[list[Seg]]:
    ifs = ex.env.ifs()
    delim = _ifs_delimiter(ifs) if ifs else None
    cap_name, cap = ex._field_cap()
    mark = min(cap, FIELDS_PER_CLOCK)  # (the next count at which _field_mark looks)
    made = 0
    cur: list[Seg] = []
    exists = False
    for text, flag in segs:
        if flag == BRK:
            if exists:
                if made >= mark:
                    mark = _field_mark(ex, made, cap_name, cap)
                made += 1
                yield cur
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
                if made >= mark:
                    mark = _field_mark(ex, made, cap_name, cap)
                made += 1
                yield cur
            cur = []
            exists = False
            start = j
        if start < n:
            cur.append((text[start:], EXP))
            exists = True
    if exists:
        yield cur


# fields split between two reads of the clock: "${a[@]}" of a million elements is one expansion,
# charged once before it is split (Expander._charge_word), and its splitting and globbing took
# seconds with no look at the deadline (`f "${a[@]}"` in a loop: 3 s past a 1 s timeout)
FIELDS_PER_CLOCK = 1 << 14


def _field_mark(ex: Expander, made: int, cap_name: LimitKind, cap: int) -> int:
    """`made` fields so far reached split's mark: the expansion's bound (max_array_elements), or
    time to read the clock (the run's deadline and cancellation). The next mark."""
    if made >= cap:
        raise LimitExceeded(cap_name, cap)
    rt = ex._rt
    if rt is not None:
        rt.budget.check_time()
    return min(cap, made + FIELDS_PER_CLOCK)


def target_fields(ex: Expander, word: A.Word) -> list[str]:
    """The fields of a redirection's word: a non-interactive bash in posix mode does not glob it."""
    if not ex.env.option("posix"):
        return ex.words((word,))
    ex._glob_off = True
    try:
        return ex.words((word,))
    finally:
        ex._glob_off = False


def glob_field(ex: Expander, field: list[Seg], out: list[str]) -> None:
    if len(field) == 1:
        text, flag = field[0]
        if flag == QUO or not maybe_glob(text) or ex._glob_off or ex.env.option("noglob"):
            out.append(text)
            return
    elif all(f == QUO for _, f in field) or ex._glob_off or ex.env.option("noglob"):
        out.append("".join(t for t, _ in field))
        return
    if not any(f != QUO and maybe_glob(t) for t, f in field):
        out.append("".join(t for t, _ in field))
        return
    extglob = ex.env.option("extglob")
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
    matches = ex.env.glob(pattern)
    if matches is None:
        out.append("".join(t for t, _ in field))
    else:
        out.extend(matches)


_DELIMITERS: dict[str, tuple[re.Pattern[str], re.Pattern[str] | None]] = {}
_DELIMITERS_MAX = 64
# the cache is the process's and keys an IFS value whole: a longer one (up to max_string_length)
# is not kept, and a class made of more distinct characters is not left in `re`'s own cache
_DELIMITER_LONGEST = 256


def _ifs_delimiter(ifs: str) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """A field delimiter for `ifs` (character classes only: linear time) and a test for
    its non-whitespace part (a "hard" delimiter ends a field even when it is empty)."""
    got = _DELIMITERS.get(ifs)
    if got is None:
        # each character once: only which characters delimit counts
        chars = dict.fromkeys(ifs)
        ws = "".join(c for c in chars if c in " \t\n")
        other = "".join(c for c in chars if c not in " \t\n")
        w = f"[{re.escape(ws)}]" if ws else ""
        o = f"[{re.escape(other)}]" if other else ""
        parts = []
        if o:
            parts.append(f"{w}*{o}{w}*" if w else o)
        if w:
            parts.append(f"{w}+")
        got = (re.compile("|".join(parts)), re.compile(o) if o else None)
        if len(ifs) <= _DELIMITER_LONGEST:
            if len(_DELIMITERS) < _DELIMITERS_MAX:
                _DELIMITERS[ifs] = got
        elif len(other) > _DELIMITER_LONGEST:
            re.purge()  # (re.compile keeps its last 512 patterns for the process's life)
    return got
