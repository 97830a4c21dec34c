"""`${s:OFF:LEN}` whose offset and length are each a plain decimal number or a lone variable's
name (`${s:off:width}`, `${s:i:1}`, `${s:k}`), sliced by one generated function.

Each name is read as Shell.arith_fn's name_arith reads it (the innermost binding, not a
nameref) and taken only when its value is a plain decimal number (or a number arithmetic stored,
INTS's key) that is not negative: the slice is then `s[off:off + len]`, whatever the two are.
Anything else (unset, a negative number, an expression, an array, a reference) gives None before
anything is evaluated, and the caller slices the general way, which evaluates both as arithmetic
with every message and effect (reading a variable's value has none). The text depends only on
the shape (which operand is a name); names and numbers are constants of its namespace."""

from __future__ import annotations

from ..expand.arithops import INTS
from ..shvars.vars import NAMEREF
from ..textcache import function_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .state import ShellState


_NONE = object()

# one operand read into `{x}`: its name is the namespace constant `n{x}`; `s{x}` is the last value
# taken and `i{x}` its number (the same str object holds the same text: no test again)
_READ = """\
    v = top.get(n{x})
    if v is None and len(scopes) > 1:
        v = store.find(n{x}) if n{x} in store.local_names else scopes[0].get(n{x})
    if v is None or v.attrs & NAMEREF:
        return None
    r = v.value
    if r is s{x}:
        {x} = i{x}
    else:
        {x} = ints.get(r)
        if {x} is None:
            if type(r) is not str or not (len(r) < 19 and r.isdigit() and r.isascii() and (r[0] != "0" or len(r) == 1)):
                return None
            {x} = int(r)
        elif {x} < 0:
            return None
        s{x} = r
        i{x} = {x}
"""


def slice_fn(st: ShellState, offset: str | int, length: str | int | None) -> Callable[[str], str | None]:
    """The slice of a value by `offset` and `length` (None: to the end), each a number (a plain
    decimal literal, not negative) or a variable's name (not special: NOT_PLAIN), as described
    above; at least one is a name."""
    ns: dict[str, object] = {"st": st, "ints": INTS, "NAMEREF": NAMEREF}
    lines = ["def sliced(s):", "    global sa, ia, sb, ib"]
    lines += ["    store = st.vars", "    scopes = store.scopes", "    top = scopes[-1]"]
    for x, operand in (("a", offset), ("b", length)):
        if isinstance(operand, str):
            ns["n" + x] = operand
            ns["s" + x] = _NONE  # (never a value)
            lines.append(_READ.format(x=x).rstrip("\n"))
        elif operand is not None:
            ns["k" + x] = operand
            lines.append(f"    {x} = k{x}")
    lines.append("    return s[a:]" if length is None else "    return s[a:a + b]")
    return function_of("\n".join(lines) + "\n", "<slice>", "sliced", ns)  # type: ignore[return-value]
