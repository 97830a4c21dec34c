"""Builtins written in jq itself (the rest are native), and the assembled
builtin table, compiled once per process."""

from __future__ import annotations

from functools import lru_cache

from . import builtins_coll, builtins_core, builtins_data, builtins_text, dates
from .builtins_core import Registry, value
from .compiler import LibFunc, compile_library

JQ_DEFS = r"""
def values: select(. != null);
def nulls: select(. == null);
def booleans: select(type == "boolean");
def numbers: select(type == "number");
def strings: select(type == "string");
def arrays: select(type == "array");
def objects: select(type == "object");
def iterables: select(type|. == "array" or . == "object");
def scalars: select(type|. != "array" and . != "object");
def isfinite: type == "number" and (isinfinite | not);
def finites: select(isfinite);
def normals: select(isnormal);
def in(xs): . as $x | xs | has($x);
def inside(xs): . as $x | xs | contains($x);
def combinations:
  if length == 0 then [] else .[0][] as $x | (.[1:] | combinations) as $y | [$x] + $y end;
def combinations(n): . as $dot | [range(n) | $dot] | combinations;
def first: .[0];
def last: .[-1];
def nth($n): .[$n];
def fromstream(i): {x: null, e: false} as $init
  | foreach i as $i ($init;
      if .e then $init else . end
      | if $i | length == 2
        then setpath(["e"]; $i[0] | length == 0) | setpath(["x"] + $i[0]; $i[1])
        else setpath(["e"]; $i[0] | length == 1) end;
      if .e then .x else empty end);
def truncate_stream(stream): . as $n | null | stream | . as $input
  | if (.[0]|length) > $n then setpath([0];$input[0][$n:]) else empty end;
def pick(pathexps): . as $in | reduce path(pathexps) as $a (null; setpath($a; $in|getpath($a)));
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row|idx_expr|tostring] = $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def JOIN($idx; idx_expr): [.[] | [., $idx[idx_expr]]];
def JOIN($idx; stream; idx_expr): stream | [., $idx[idx_expr]];
def JOIN($idx; stream; idx_expr; join_expr): stream | [., $idx[idx_expr]] | join_expr;
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
"""


@lru_cache(maxsize=1)
def builtin_tables() -> tuple[Registry, dict[tuple[str, int], LibFunc]]:
    natives: Registry = {}
    builtins_core.register(natives)
    builtins_coll.register(natives)
    builtins_data.register(natives)
    builtins_text.register(natives)
    dates.register(natives)
    library = compile_library(JQ_DEFS, natives, builtins_text.get_format)
    names = sorted(
        {
            f"{name}/{arity}"
            for name, arity in list(natives) + list(library)
            if not name.startswith("_") and not name.endswith("_") and not name.startswith("$")
        }
    )
    value(natives, "builtins", 0, lambda v: list(names))
    return natives, library


def all_names() -> list[str]:
    natives, library = builtin_tables()
    return sorted(f"{n}/{a}" for n, a in list(natives) + list(library))
