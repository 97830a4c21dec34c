"""The record loop as one generated function, `_LOOP`.

`_MAIN` is called once per record and reads fields through the runtime
(`_fs(3)` looks up `rt.flds`, splits `rt.rec` on first use). When the main
rules only read the record — constant fields, `$0`, print — `_LOOP` runs a
whole batch of records in one frame instead: the record is the local `_r`,
its fields the local `_f`, split on first use and only as far as the
highest field read (`str.split(sep, k)`), `next` is `continue`. A program that reads NF or a field by a computed
index (`$NF`, `$(i+1)`) splits the whole record: NF is `len(_f)`, a computed
field goes through `_lfsd`/`_lfvd`/`_lfnd` (the runtime's index checks).

The loop's body is `_MAIN`'s source with the field reads rewritten inline.
Every helper name left in it must be one of `_SAFE`, helpers that neither
read nor change the record, NF or the input: anything else (a user function,
getline, an assignment to a field or NF, a dynamic field, `next` inside a
loop) keeps the per-record `_MAIN` path. The rewrite only sees generated
text: program strings are pooled constants and identifiers are prefixed, so
no program text can look like a helper call.
"""

from __future__ import annotations

import re

# the helpers a loop body may call: none reads or writes $0, the fields, NF, NR or the input
_SAFE = frozenset(
    {
        "_num", "_s2n", "_str", "_n2s", "_ostr", "_n2o", "_bool", "_n2k", "_key", "_aset", "_subsep",
        "_cmp", "_cstr", "_scmp", "_cmpn", "_fmod", "_dre", "_dmatch", "_icre", "_mod", "_div_assign",
        "_mod_assign", "_pow", "_chk", "_sapp", "_bcat", "_cp", "_ikey", "_keys", "_print1", "_printn",
        "_printf", "_pfast", "_sfast", "_sprintf", "_length", "_substr", "_lower", "_upper", "_index",
        "_sin", "_cos", "_atan2", "_exp", "_log", "_sqrt", "_int", "_compl", "_strtonum", "_bits",
        "_rand", "_srand", "_typeof", "_typeof_el", "_isarray", "_strftime", "_systime", "_mktime",
        "_match", "_subst", "_gensub", "_aget", "_aval", "_anum", "_aset2", "_subq", "_sub",
        "_newarr", "_split", "_patsplit", "_asort", "_print_to", "_printf_to", "_close", "_fflush",
        "_glfv", "_glcv",  # (getline var < file, cmd | getline var: neither $0, NF nor NR)
        "_Exit", "_RNG", "_ONCE",
        # the loop's own names and what the rewrite brings in
        "_LOOP", "_r", "_f", "_it", "_sep", "_k", "_sp", "_cnt", "_rt", "_In", "_nullf", "_vcmpn", "_pflist",
        "_lfsd", "_lfvd", "_lfnd",
    }
)  # fmt: skip
_NAME = re.compile(r"(?<![\w.])(?:_[A-Za-z]\w*|F_\w+)")  # fixed pattern over generated source
_FIELD = re.compile(r"(?<![\w.])_(fcs|fs|fo|fn|fv|fb)\(([1-9][0-9]{0,9})\)")
_FCMPN = re.compile(r"(?<![\w.])_fcmpn\(([1-9][0-9]{0,9}), ")
_PFIELDS = re.compile(r"(?<![\w.])_pfields\(\(([0-9, ]+)\)\)")
_TEMP = re.compile(r"_t[0-9]+\Z")
# `$k == "text"` (or "text" == $k): a field is a piece of the record, so a record without the text
# cannot hold it as field k and is not split (`!=` gains nothing: its records are split in the body).
# A CSV field is no such piece ("a""b" reads a"b), but CSV records never come in batches (Reader.batch)
_EQ_LEFT = re.compile(r"\((?<![\w.])_fcs\([1-9][0-9]{0,9}\) == (K[0-9]+)\)")
_EQ_RIGHT = re.compile(r"\((K[0-9]+) == _fcs\([1-9][0-9]{0,9}\)\)")
# a field by a computed index; `$NF` itself; NF
_LASTF = re.compile(r"(?<![\w.])_(fsd|fod|fvd|fnd)\(_nf\(\)\)")
_DYNF = re.compile(r"(?<![\w.])_(fsd|fod|fvd|fnd)\(")
_NF = re.compile(r"(?<![\w.])_nf\(\)")
_REC = re.compile(r"(?<![\w.])_rec\(\)")
_R0 = re.compile(r"(?<![\w.])_r0\(\)")

# (an empty record has no fields: "".split(":") is [""])
_FIELDS = "(_f := _f or ((_r.split(_sep, _k) if _r else []) if _sp is None else _sp(_r)))"
# Python refuses more than 20 nested blocks: a body this deep keeps _MAIN alone
_MAX_INDENT = 16 * 4
HEADER = "def _LOOP(_it, _sep, _k, _sp, _cnt, _rt):"


def _text(k: int) -> str:
    return f'(_f[{k - 1}] if len({_FIELDS}) >= {k} else "")'


def _inline(m: re.Match[str]) -> str:
    kind, k = m.group(1), int(m.group(2))
    if kind in ("fcs", "fs", "fo"):
        return _text(k)
    if kind == "fn":
        return f"(_s2n(_f[{k - 1}]) if len({_FIELDS}) >= {k} else 0.0)"
    value = f"(_In(_f[{k - 1}]) if len({_FIELDS}) >= {k} else _nullf)"
    return value if kind == "fv" else f"_bool({value})"


def _last(m: re.Match[str]) -> str:
    # $NF: the last field, or $0 when there is none (a blank record's $0 is its blanks)
    kind = m.group(1)
    if kind == "fvd":
        return f"(_In(_f[-1] if len({_FIELDS}) else _r))"
    if kind == "fnd":
        return f"_s2n(_f[-1] if len({_FIELDS}) else _r)"
    return f"(_f[-1] if len({_FIELDS}) else _r)"


def _dynamic(line: str) -> str:
    line = _LASTF.sub(_last, line)
    line = _DYNF.sub(lambda m: f"_l{'fsd' if m.group(1) == 'fod' else m.group(1)}({_FIELDS}, _r, ", line)
    return _NF.sub(f"float(len({_FIELDS}))", line)


def _prefilter(line: str, values: dict[str, object]) -> str:
    def pre(m: re.Match[str]) -> str:
        const = m.group(1)
        return f"({const} in _r and {m.group(0)})" if isinstance(values.get(const), str) else m.group(0)

    return _EQ_RIGHT.sub(pre, _EQ_LEFT.sub(pre, line))


def rewrite(lines: list[str], values: dict[str, object]) -> tuple[list[str], int] | None:
    """The loop body's lines with field reads inline and the highest field read
    (-1: every field), or None when the body uses anything that needs the runtime's record."""
    out: list[str] = []
    highest = 0
    whole = False
    for line in lines:
        if len(line) - len(line.lstrip(" ")) > _MAX_INDENT:
            return None
        for m in _FIELD.finditer(line):
            highest = max(highest, int(m.group(2)))
        for m in _FCMPN.finditer(line):
            highest = max(highest, int(m.group(1)))
        line = _FIELD.sub(_inline, _prefilter(line, values))
        if _DYNF.search(line) or _NF.search(line):
            whole = True
            line = _dynamic(line)
        line = _FCMPN.sub(lambda m: f"_vcmpn({_text(int(m.group(1)))}, ", line)
        for m in _PFIELDS.finditer(line):
            highest = max([highest, *(int(x) for x in m.group(1).split(",") if x.strip())])
        line = _PFIELDS.sub(lambda m: f"_pflist({_FIELDS}, ({m.group(1)}))", line)
        line = _R0.sub("_In(_r)", _REC.sub("_r", line))
        for name in _NAME.findall(line):
            if name not in _SAFE and not _TEMP.match(name):
                return None
        out.append(line)
    return out, -1 if whole else highest
