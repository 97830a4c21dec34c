"""The operations arithmetic evaluation shares between its two tiers: the closures of
expand/arith.py and the generated functions of expand/arithgen.py (bash's 64-bit wrap-around,
division truncating toward zero, variables read as bash reads them)."""

from __future__ import annotations

from ..shvars.vars import NAMEREF

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .arith import Evaluator

_MASK = (1 << 64) - 1
_SIGN = 1 << 63
MIN = -(1 << 63)
MAX = (1 << 63) - 1

# the numbers arithmetic stored last, by the text stored (str(n) -> n): a variable holding one of
# these texts is read without parsing it. Any text here is what str() made of its number, and
# reading such a text as arithmetic gives that number, whichever variable holds it; shared by every
# run of the process, bounded (INTS_MAX entries of at most 20 characters), cleared when full
INTS: dict[str, int] = {}
INTS_MAX = 1024

MAX_DIGITS = 20  # the longest text of a number arithmetic gives (-9223372036854775808)

GEN_FILE = "<arith>"  # the file name of arithgen's functions' code (arith.generated_of tells them by it)


class Slot:
    """An operand of a template (arithwords: `$(( $n % 3 ))` parsed once as `_sbSlot0_ % 3`): the
    number the expansion gave (or, for a whole subscript, its text), read from Evaluator.slots. Not a syntax node: only a template's tree
    has one (arith.template_of), so a variable that happens to bear a slot's name is never read as one."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


def remember(text: str, value: int) -> None:
    """Note that `text` is str(value), just stored (see INTS); `value` is within 64 bits."""
    if len(INTS) >= INTS_MAX:
        INTS.clear()
    INTS[text] = value


def text_fn(value: Callable[[], int]) -> Callable[[], str]:
    """`$(( ))` as text (`x=$(( i * 2 ))`, `file$((k+1))`), remembered (INTS) when it is within 64
    bits (every result is): what `x=$(( ... ))` stores is then read back without parsing it."""
    ints = INTS

    def arith_text() -> str:
        v = value()
        text = str(v)
        if MIN <= v <= MAX:
            if len(ints) >= INTS_MAX:
                ints.clear()
            ints[text] = v
        return text

    return arith_text


def wrap(v: int) -> int:
    v &= _MASK
    return v - (1 << 64) if v & _SIGN else v


def trunc_divmod(a: int, b: int, is_div: bool) -> int:
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return wrap(q) if is_div else wrap(a - q * b)


def binary_value(op: str, a: int, b: int, ev: Evaluator, pos: int) -> int:
    """The value of `a OP b` (compound assignments like `x /= 2`, chains)."""
    if op == "+":
        v = a + b
    elif op == "-":
        v = a - b
    elif op == "*":
        v = a * b
    elif op == "/" or op == "%":
        if b == 0:
            raise ev.error("division by 0", pos)
        return trunc_divmod(a, b, op == "/")
    elif op == "**":
        if b < 0:
            raise ev.error("exponent less than 0", pos)
        return ipow(a, b)
    elif op == "<<":
        v = a << (b & 63)
    elif op == ">>":
        return a >> (b & 63)
    elif op == "&":
        return a & b
    elif op == "|":
        return a | b
    elif op == "^":
        return a ^ b
    elif op == "<":
        return 1 if a < b else 0
    elif op == ">":
        return 1 if a > b else 0
    elif op == "<=":
        return 1 if a <= b else 0
    elif op == ">=":
        return 1 if a >= b else 0
    elif op == "==":
        return 1 if a == b else 0
    else:
        return 1 if a != b else 0
    return v if MIN <= v <= MAX else wrap(v)


def ipow(a: int, b: int) -> int:
    result = 1
    base = a
    while b:
        if b & 1:
            result = wrap(result * base)
        base = wrap(base * base)
        b >>= 1
    return result


def read_name(name: str, ev: Evaluator) -> int:
    """The value of plain variable `name` (no subscript): a plain string variable is found in
    the evaluator's scopes as arith_get would find it; anything else goes through arith_get."""
    raw: str | None = None
    found = ev.binding(name)
    if found is not None and not found.attrs & NAMEREF and type(found.value) is str:
        raw = found.value
    if raw is None:
        raw = ev.vars.arith_get(name, None)
    v = INTS.get(raw)  # type: ignore[arg-type]
    return v if v is not None else ev.value_of(raw)


def incdec(name: str, sub: str | None, delta: int, prefix: bool, ev: Evaluator) -> int:
    """`++x`, `x--`, `a[i]++`: the subscript evaluated once; the new value (prefix) or the old."""
    if sub is not None and (bump := ev.bump) is not None and (old := bump(name, sub, delta)) is not None:
        return wrap(old + delta) if prefix else old  # (stored: an element read with one lookup)
    sub = ev.once(name, sub)
    old = ev.get(name, sub)
    new = ev.set(name, sub, wrap(old + delta))
    return new if prefix else old
