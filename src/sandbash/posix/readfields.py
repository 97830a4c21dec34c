"""`read`'s field splitting (bash's read builtin: IFS whitespace runs and other IFS characters,
backslash-escaped characters never delimit, the last name takes the rest of the line): shared by
the builtin (builtins/io.py) and the compiled `read ... <<< WORD` (interp/fastread.py)."""

from __future__ import annotations

import functools
import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import partial

# a line's fields under one IFS: (the line, with nothing escaped; the most fields) -> the fields
Splitter = Callable[[str, int], list[str]]
IfsClasses = tuple[str, str, "re.Pattern[str] | None", "re.Pattern[str] | None"]
_IFS_CACHED_MAX = 256  # (the cache keys an IFS value whole: a longer one is split uncached)
# a line up to this long is cut at IFS whitespace by one regex split (a Python step per field
# costs more); a longer one is scanned with str.find, at memchr speed (see find below)
_SPLIT_MAX = 4096


def _ifs_split(ifs: str) -> IfsClasses:
    """IFS's whitespace and other characters, each once (only which characters delimit counts:
    a value repeating them, up to max_string_length long, gives a class of a few), and a run of
    its whitespace as a pattern: possibly empty (to skip it), and not (to split at it)."""
    ws = "".join(c for c in " \t\n" if c in ifs)
    other = "".join(dict.fromkeys(c for c in ifs if c not in " \t\n"))
    if not ws:
        return ws, other, None, None
    return ws, other, re.compile(f"[{re.escape(ws)}]*"), re.compile(f"[{re.escape(ws)}]+")


# once per IFS value, not per line read; bounded in entries (a script may try any number of
# values) and in size (_IFS_CACHED_MAX): the cache is the process's, shared by every run
_ifs_cached = functools.lru_cache(maxsize=32)(_ifs_split)


def most_fields(text: str, ifs: str, count: int) -> int:
    """An upper bound of the fields split_read_fields(text, _, ifs, count) gives, found at C
    speed before they are made (read -a charges them first): one more than the delimiters in
    the text, no more than `count`; with IFS whitespace only, no more than the characters that
    are not (each field has one)."""
    if not ifs or not text:
        return 1
    ws, other, _, _ = _ifs_cached(ifs) if len(ifs) <= _IFS_CACHED_MAX else _ifs_split(ifs)
    if len(ws) + len(other) > 64:
        return min(count, len(text) + 1)  # (too many characters to count one by one)
    seps = sum(text.count(c) for c in ws + other)
    most = seps + 1 if other else min(seps, len(text) - seps) + 1
    return min(count, most)


def split_read_fields(text: str, escaped: Sequence[int], ifs: str, count: int) -> list[str]:
    """Split a line read by `read` into at most `count` fields (the last takes the rest).
    `escaped`: ascending positions of backslash-escaped characters, which never delimit. Scans
    run at C speed with a Python step per field or escaped delimiter, never per character."""
    if not ifs:
        return [text] if text else []
    # (the classes of a short IFS from the cache, once a value; no frame of its own: one a line read)
    ws, other, ws_run, ws_split = _ifs_cached(ifs) if len(ifs) <= _IFS_CACHED_MAX else _ifs_split(ifs)
    if not escaped:
        if not other:
            assert ws_split is not None  # (ifs is not empty and all whitespace)
            return _split_white(ws, ws_split, ws_run, text, count)
        if len(other) == 1 and not ws:
            return _split_at(other, text, count)
    return _scan(ws, other, ws_run, text, count, escaped)


def read_splitter(ifs: str) -> Splitter:
    """split_read_fields(text, [], ifs, count) as a function of (text, count) chosen once for an
    IFS known before any line is read (the literal of `IFS=, read -r a b c`, compiled once):
    without the per-line lookup of IFS's classes and the tests choosing a way."""
    if not ifs:
        return _whole
    ws, other, ws_run, ws_split = _ifs_split(ifs)
    if not other:
        assert ws_split is not None  # (ifs is not empty and all whitespace)
        return partial(_split_white, ws, ws_split, ws_run)
    if len(other) == 1 and not ws:
        return partial(_split_at, other)
    return partial(_scan, ws, other, ws_run)


def _whole(text: str, count: int) -> list[str]:
    """The fields of a line under an empty IFS: the line whole, none when it is empty."""
    return [text] if text else []


def _split_white(
    ws: str, ws_split: re.Pattern[str], ws_run: re.Pattern[str] | None, text: str, count: int
) -> list[str]:
    """IFS whitespace only, nothing escaped (`while read -r line`, `read -r a b c <<< "$x"`):
    what _scan gives, the text without its leading and trailing IFS whitespace, cut at runs of it
    into at most `count` fields (the last one the rest, inner runs kept); a long line to cut
    more than once is scanned."""
    if count != 1 and len(text) > _SPLIT_MAX:
        return _scan(ws, "", ws_run, text, count, ())
    whole = text.strip(ws)
    if not whole:
        return []
    if count == 1:
        return [whole]
    return ws_split.split(whole, count - 1)


def _split_at(sep: str, text: str, count: int) -> list[str]:
    """One delimiter, no IFS whitespace, nothing escaped (`IFS=, read -r a b c`): what _scan
    gives, the pieces between delimiters, the last name the rest; a piece left empty by a
    delimiter ending the line is no field, and the rest loses one delimiter that ends it when it
    holds no other ("a,b," into two names is a and b, "a,b,," is a and "b,,")."""
    pieces = text.split(sep, count - 1)
    rest = pieces[-1]
    if not rest:
        pieces.pop()
    elif rest.find(sep) == len(rest) - 1:
        pieces[-1] = rest[:-1]
    return pieces


def _scan(
    ws: str,
    other: str,
    ws_run: re.Pattern[str] | None,
    text: str,
    count: int,
    escaped: Sequence[int] = (),
) -> list[str]:
    """bash's read splitting of any line: runs of IFS whitespace `ws` and each of the `other`
    IFS characters (with the whitespace around it) delimit, an escaped position never does."""
    esc = frozenset(escaped)
    delims = ws + other
    n = len(text)

    def find(i: int) -> int:
        """Where the first unescaped delimiter at or after `i` is, or n (str.find per delimiter
        char runs at memchr speed; a regex class scans a long line ~30 times slower)."""
        while True:
            best = n
            for c in delims:
                p = text.find(c, i, best)
                if p >= 0:
                    best = p
            if best == n or best not in esc:
                return best
            i = best + 1

    def skip_ws(i: int) -> int:
        m = ws_run.match(text, i) if ws_run is not None else None
        end = m.end() if m else i
        k = bisect_left(escaped, i)
        return escaped[k] if k < len(escaped) and escaped[k] < end else end

    fields: list[str] = []
    i = skip_ws(0)
    while len(fields) < count - 1 and i < n:
        j = find(i)
        fields.append(text[i:j])
        i = skip_ws(j)
        if i < n and text[i] in other and i not in esc:
            i = skip_ws(i + 1)
    if i < n:
        # the rest goes to the last name; as bash's read: when it is one word, the delimiters
        # after it go; otherwise only its trailing whitespace, escaped or not
        j = find(i)
        k = skip_ws(j)
        if k < n and text[k] in other and k not in esc:
            k = skip_ws(k + 1)
        fields.append(text[i:j] if k >= n else text[i : len(text.rstrip(ws))])
    return fields
