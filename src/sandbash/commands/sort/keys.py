"""sort's key definitions: parsing KEYDEFs, extracting key text, and turning
it into Python values whose natural order is GNU sort's order for that key."""

from __future__ import annotations

import functools
import re
import sys
from operator import itemgetter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from dataclasses import dataclass
    from decimal import Decimal
    from typing import Any
else:  # the same classes without importing dataclasses and inspect (~6 ms of a first run)
    from ...leanclass import dataclass

# bytes that separate fields when there is no -t (isblank, plus newline for -z)
BLANKS = b" \t\n"
_NOT_DICT = bytes(c for c in range(256) if not ((chr(c).isalnum() and c < 128) or c in BLANKS))
_NOT_PRINT = bytes(c for c in range(256) if not 32 <= c < 127)
_FOLD = bytes.maketrans(b"abcdefghijklmnopqrstuvwxyz", b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_NUM = re.compile(rb"[ \t\n]*(-?)0*([0-9]*)(?:\.([0-9]*))?")
_GEN = re.compile(
    rb"[ \t\n\v\f\r]*([+-]?)(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    rb"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?)",
    re.IGNORECASE,
)
_HUMAN_UNITS = {ord(c): i + 1 for i, c in enumerate("KMGTPEZY")}
_HUMAN_UNITS[ord("k")] = 1
_GROUP1 = itemgetter(1)
MONTHS = [b"JAN", b"FEB", b"MAR", b"APR", b"MAY", b"JUN", b"JUL", b"AUG", b"SEP", b"OCT", b"NOV", b"DEC"]


class KeySpecError(Exception):
    """`sort: MESSAGE: invalid field specification 'SPEC'` (message, spec)."""

    def __init__(self, message: str, spec: str) -> None:
        super().__init__(message)
        self.message = message
        self.spec = spec


# a key's ordering options: what a key without its own inherits from the global ones
ORDERING_FLAGS = (
    "dictionary",
    "nonprinting",
    "fold",
    "skipsblanks",
    "skipeblanks",
    "numeric",
    "general",
    "human",
    "month",
    "random",
    "version",
    "reverse",
)


@dataclass
class Key:
    sword: int = 0  # 0-based start field
    schar: int = 0  # 0-based start character
    eword: int | None = None  # 0-based end field; None: end of line
    echar: int = 0  # end character (1-based, 0: end of field)
    skipsblanks: bool = False
    skipeblanks: bool = False
    dictionary: bool = False
    nonprinting: bool = False
    fold: bool = False
    numeric: bool = False
    general: bool = False
    human: bool = False
    month: bool = False
    random: bool = False
    version: bool = False
    reverse: bool = False

    def default_compare(self) -> bool:
        """No ordering options at all (then the global ones apply)."""
        return not (
            self.dictionary
            or self.nonprinting
            or self.fold
            or self.skipsblanks
            or self.skipeblanks
            or self.numeric
            or self.general
            or self.human
            or self.month
            or self.random
            or self.version
        )

    def inherit(self, g: Key) -> None:
        for name in ORDERING_FLAGS:
            setattr(self, name, getattr(g, name))

    def opts_letters(self, blanks: bool = False, reverse: bool = False) -> str:
        """The key's ordering options as letters in GNU's key_to_opts order (the
        incompatible-options message); `blanks`/`reverse`: with `b` and `r` too, as
        sort --debug's key warnings name them."""
        flags = (
            (blanks and (self.skipsblanks or self.skipeblanks), "b"),
            (self.dictionary, "d"),
            (self.fold, "f"),
            (self.general, "g"),
            (self.human, "h"),
            (self.nonprinting, "i"),
            (self.month, "M"),
            (self.numeric, "n"),
            (self.random, "R"),
            (reverse, "r"),
            (self.version, "V"),
        )
        return "".join(letter for on, letter in flags if on)

    def incompatible(self) -> bool:
        kinds = (
            self.numeric
            + self.general
            + self.human
            + self.month
            + (self.version or self.random or self.dictionary or self.nonprinting)
        )
        return kinds > 1


def set_ordering(key: Key, letters: str, end: bool) -> str:
    """Apply option letters; return what is left unparsed."""
    i = 0
    while i < len(letters):
        c = letters[i]
        if c == "b":
            if end:
                key.skipeblanks = True
            else:
                key.skipsblanks = True
        elif c == "d":
            # one table of ignored characters: -d replaces -i's, -i never replaces -d's
            key.dictionary = True
            key.nonprinting = False
        elif c == "f":
            key.fold = True
        elif c == "g":
            key.general = True
        elif c == "h":
            key.human = True
        elif c == "i":
            key.nonprinting = not key.dictionary
        elif c == "M":
            key.month = True
        elif c == "n":
            key.numeric = True
        elif c == "R":
            key.random = True
        elif c == "r":
            key.reverse = True
        elif c == "V":
            key.version = True
        else:
            return letters[i:]
        i += 1
    return ""


def _count(text: str, pos: int, what: str, spec: str) -> tuple[int, int]:
    j = pos
    while j < len(text) and text[j].isdigit():
        j += 1
    if j == pos:
        raise KeySpecError(f"{what}: invalid count at start of", text[pos:])
    return int(text[pos:j]), j


def parse_key(spec: str) -> Key:
    key = Key()
    n, i = _count(spec, 0, "invalid number at field start", spec)
    if n == 0:
        raise KeySpecError("field number is zero", spec)
    key.sword = n - 1
    if i < len(spec) and spec[i] == ".":
        c, i = _count(spec, i + 1, "invalid number after '.'", spec)
        if c == 0:
            raise KeySpecError("character offset is zero", spec)
        key.schar = c - 1
    rest = set_ordering(key, spec[i:].split(",", 1)[0], False)
    if rest:
        raise KeySpecError("stray character in field spec", spec)
    i = spec.find(",")
    if i >= 0:
        n, j = _count(spec, i + 1, "invalid number after ','", spec)
        if n == 0:
            raise KeySpecError("field number is zero", spec)
        key.eword = n - 1
        if j < len(spec) and spec[j] == ".":
            key.echar, j = _count(spec, j + 1, "invalid number after '.'", spec)
        if set_ordering(key, spec[j:], True):
            raise KeySpecError("stray character in field spec", spec)
    return key


# ------------------------------------------------------------------ extraction


@functools.lru_cache(maxsize=64)
def _fields_rx(n: int) -> re.Pattern[bytes]:
    # n times: blanks, then non-blanks. A fixed pattern of our own (only the count comes from
    # the key), matched once per line: the two classes alternate, so nothing backtracks.
    return re.compile(rb"(?:[ \t\n]*[^ \t\n]*){%d}" % n)


_LEADING_BLANKS = re.compile(rb"[ \t\n]*")
_FIELDS_RX_MAX = 4096  # counts above this (-k 99999) take the loop, not a pattern each


def _skip_fields_blank(line: bytes, pos: int, n: int) -> int:
    """GNU's begfield without -t: skip n fields, each its leading blanks and then its text."""
    if n <= 0:
        return pos
    if n <= _FIELDS_RX_MAX:
        m = _fields_rx(n).match(line, pos)
        assert m is not None  # every part of the pattern may be empty
        return m.end()
    end = len(line)
    while pos < end and n > 0:
        while pos < end and line[pos] in BLANKS:
            pos += 1
        while pos < end and line[pos] not in BLANKS:
            pos += 1
        n -= 1
    return pos


def blank_key_rx(key: Key) -> re.Pattern[bytes] | None:
    """For a key on blank-separated fields without character offsets (-k3, -k2,4, -b -k5,5):
    one pattern whose group 1 is what key_span returns, so both of its walks over the
    line happen in one C-level match. None for the other keys."""
    if key.schar or key.echar or key.sword > _FIELDS_RX_MAX:
        return None
    field = rb"[ \t\n]*[^ \t\n]*"
    prefix = rb"(?:%s){%d}" % (field, key.sword) + (rb"[ \t\n]*" if key.skipsblanks else b"")
    if key.eword is None:
        # (the rest of the line: `.` with DOTALL repeated is one jump to the end, where a class
        # of every byte is tested byte by byte)
        return re.compile(prefix + rb"((?s:.*))")
    more = key.eword + 1 - key.sword  # fields the key ends after, counted from its start field
    if more < (1 if key.skipsblanks else 0) or more > _FIELDS_RX_MAX:
        return None  # an end before the start: key_span's empty key
    if key.skipsblanks:  # the start field's blanks are already behind
        return re.compile(prefix + rb"([^ \t\n]*(?:%s){%d})" % (field, more - 1))
    return re.compile(prefix + rb"((?:%s){%d})" % (field, more))


def key_span(line: bytes, key: Key, tab: int | None) -> bytes:
    """GNU's begfield/limfield: the bytes of the key in the line."""
    start, end = key_bounds(line, key, tab)
    return line[start:end] if end > start else b""


def key_bounds(line: bytes, key: Key, tab: int | None) -> tuple[int, int]:
    """Where begfield and limfield put the key's start and end (the end may lie before the start:
    an empty key, which --debug shows as no match)."""
    lim = len(line)
    # start
    if tab is None:
        ptr = _skip_fields_blank(line, 0, key.sword)
    else:
        ptr = 0
        for _ in range(key.sword):
            idx = line.find(tab, ptr)
            if idx < 0:
                ptr = lim
                break
            ptr = idx + 1
    if key.skipsblanks:
        m = _LEADING_BLANKS.match(line, ptr)  # always matches (maybe empty)
        ptr = m.end() if m else ptr
    start = min(lim, ptr + key.schar)
    if key.eword is None:
        return start, lim
    eword = key.eword + (1 if key.echar == 0 else 0)
    if tab is None:
        ptr = _skip_fields_blank(line, 0, eword)
    else:
        ptr = 0
        while ptr < lim and eword > 0:
            eword -= 1
            idx = line.find(tab, ptr)
            if idx < 0:
                ptr = lim
                break
            ptr = idx + 1 if (eword or key.echar) else idx
    if key.echar:
        if key.skipeblanks:
            while ptr < lim and line[ptr] in BLANKS:
                ptr += 1
        ptr = min(lim, ptr + key.echar)
    return start, ptr


# ------------------------------------------------------------------ ordering values


@functools.cache
def _decimal() -> type[Decimal]:
    """The Decimal type, imported by the first -n key with a fraction (decimal is ~5 M instructions
    a sort of integers or words does without)."""
    from decimal import Decimal

    return Decimal


def numeric_value(text: bytes) -> Any:
    """-n: leading blanks, optional '-', digits, optional fraction; anything else is 0."""
    m = _NUM.match(text)  # (every part is optional: it always matches)
    return 0 if m is None else _number(m.groups())


def _number(groups: tuple[Any, ...]) -> Any:
    """The value of _NUM's groups: an int, or a Decimal when there is a fraction."""
    sign, whole, frac = groups
    if frac:
        frac = frac.rstrip(b"0")
    if frac:
        value: Any = _decimal()((whole or b"0").decode() + "." + frac.decode())
    elif not whole:
        return 0
    else:
        try:
            value = int(whole)
        except ValueError:  # more digits than int() converts
            value = _decimal()(whole.decode())
    return -value if sign else value


# characters a number may hold: a -t separator among them could be read as part of a number
_NUMBER_BYTES = b" \t\n0123456789.-"


def numeric_extractor(
    key: Key, tab: int | None
) -> tuple[Callable[[bytes], Any], Callable[[list[bytes]], list[Any]]] | None:
    """For a -n key that starts at a field and ends at a field's end (-k3,3n, -t: -k2n, -n): the
    line to the key's value in one match (the fields skipped and the number read), for a number
    ends at the first byte that is no part of one, the field's end included; and the values of a
    list of lines, integers read by int() over C-level maps where every line's number is a plain
    one (no fraction). None otherwise."""
    if not key.numeric or key.dictionary or key.nonprinting or key.fold or key.schar or key.echar:
        return None
    if (key.eword is not None and key.eword < key.sword) or key.sword > _FIELDS_RX_MAX:
        return None
    if tab is not None and tab in _NUMBER_BYTES:
        return None  # (the number could run past the key's end: `-t. -k1,1n` of 1.9.2 is 1, not 1.9)
    if key.sword == 0:
        prefix = b""
    elif tab is None:
        prefix = rb"(?:[ \t\n]*[^ \t\n]*){%d}" % key.sword
    else:
        t = re.escape(bytes([tab]))
        prefix = rb"(?:[^%s]*%s){%d}" % (t, t, key.sword)
    match = re.compile(prefix + _NUM.pattern).match
    # the same fields, then a sign and digits not followed by a fraction (atomic: no backtracking
    # into the fields to find digits elsewhere); no match sends the line to `value`
    plain = re.compile(rb"(?>%s)[ \t\n]*+(-?[0-9]+)(?![0-9.])" % prefix).match

    def value(line: bytes) -> Any:
        m = match(line)
        if m is None:  # fewer fields than the key's start: an empty key
            return 0
        sign, whole, frac = groups = m.groups()
        if frac or not whole or len(whole) > 4000:
            return _number(groups)
        return -int(whole) if sign else int(whole)

    def values(part: list[bytes]) -> list[Any]:
        # (each Match is dropped as its number is read: a list of them would be GC-tracked
        # objects outliving young collections, promoted in bulk, and full collections follow)
        try:
            return list(map(int, map(_GROUP1, map(plain, part))))  # type: ignore[arg-type]
        except TypeError:  # a line without a plain number: those lines one at a time
            pass
        except ValueError:  # (more digits than int() reads)
            return list(map(value, part))
        try:
            return [value(line) if (m := plain(line)) is None else int(m[1]) for line in part]
        except ValueError:
            return list(map(value, part))

    return value, values


def general_value(text: bytes) -> tuple[int, float]:
    """-g: strtold prefix; failures first, then NaN, then numbers."""
    m = _GEN.match(text)
    if m is None:
        return (0, 0.0)
    sign, body = m.group(1), m.group(2).lower()
    try:
        if body.startswith(b"0x"):
            h = body.decode()
            value = float.fromhex(h if "p" in h else h + "p0")
        elif body.startswith(b"nan"):
            return (1, 0.0)
        else:
            value = float(body)
    except (ValueError, OverflowError):
        return (0, 0.0)
    return (2, -value if sign == b"-" else value)


def human_value(text: bytes) -> tuple[int, Any]:
    """-h: sign and SI unit order first, then the number."""
    m = _NUM.match(text)
    if m is None:
        return (0, 0)
    number = numeric_value(text)
    end = m.end()
    order = _HUMAN_UNITS.get(text[end], 0) if end < len(text) else 0
    if number == 0:
        order = 0
    if m.group(1):
        order = -order
    return (order, number)


def month_value(text: bytes) -> int:
    t = text.lstrip(BLANKS)[:3].upper()
    for i, name in enumerate(MONTHS):
        if t == name:
            return i + 1
    return 0


def _order_run(run: bytes) -> tuple[int, ...]:
    out = []
    for c in run:
        if c == 0x7E:
            out.append(-1)
        elif (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A):
            out.append(c)
        else:
            out.append(c + 256)
    out.append(0)
    return tuple(out)


_VERSION_PARTS = re.compile(rb"([^0-9]*)([0-9]*)")
_SUFFIX = re.compile(rb"(?:\.[A-Za-z~][A-Za-z0-9~]*)+$")
# filevercmp pads the shorter version with empty parts: this part orders like one
_PAD = ((0,), 0, b"")


def _verrev_key(s: bytes) -> tuple[Any, ...]:
    parts: list[Any] = []
    for m in _VERSION_PARTS.finditer(s):
        if not m.group(0):
            break
        digits = m.group(2).lstrip(b"0")
        parts.append((_order_run(m.group(1)), len(digits), digits))
    parts.append(_PAD)
    return tuple(parts)


def version_value(text: bytes) -> tuple[Any, ...]:
    """-V: GNU filevercmp as a sort key."""
    if text in (b"", b".", b".."):
        return ({b"": 0, b".": 1, b"..": 2}[text],)
    hidden = text.startswith(b".")
    m = _SUFFIX.search(text, 1)
    prefix = text[: m.start()] if m else text
    return (3 if hidden else 4, _verrev_key(prefix), _verrev_key(text))


def text_value(text: bytes, key: Key) -> bytes:
    if key.dictionary:
        text = text.translate(None, _NOT_DICT)
    elif key.nonprinting:
        text = text.translate(None, _NOT_PRINT)
    if key.fold:
        text = text.translate(_FOLD)
    return text


def make_value(key: Key, salt: bytes, collating: bool = False) -> Any:
    """A function from key text to an orderable value for this key. `collating`: the collation
    locale is not C/POSIX, where GNU sort -R hashes the key's strxfrm form, which in C.UTF-8 is
    the key with its terminating NUL."""
    base = _base_value(key, salt, b"\0" if collating else b"")
    filtered = key.dictionary or key.nonprinting or key.fold
    if base is None or not filtered or key.random:
        return base
    # GNU drops ignored characters and folds case before the comparison proper
    return lambda text: base(text_value(text, key))


def _base_value(key: Key, salt: bytes, tail: bytes) -> Any:
    if key.numeric:
        return numeric_value
    if key.general:
        return general_value
    if key.human:
        return human_value
    if key.month:
        return month_value
    if key.version:
        return version_value
    if key.random:
        import hashlib  # (-R only: hashlib loads OpenSSL, ~12 M instructions of a first sort)

        seeded = hashlib.md5(salt)

        def rand(text: bytes) -> bytes:
            h = seeded.copy()
            h.update(text_value(text, key) + tail)
            return h.digest()

        return rand
    if key.dictionary or key.nonprinting or key.fold:
        return lambda text: text_value(text, key)
    return None


def value_cost(value: Any) -> int:
    """The bytes a key value holds: its object (rounded to the allocator's 8) and, for a tuple
    (-V, -h, -g keys), its items'."""
    size = (sys.getsizeof(value) + 7) & ~7
    if type(value) is tuple:
        size += sum(map(value_cost, value))
    return size


class Reversed:
    """Wraps a value so that it orders the other way round (merge and -c only)."""

    __slots__ = ("v",)

    def __init__(self, v: Any) -> None:
        self.v = v

    def __lt__(self, other: Reversed) -> bool:
        return bool(other.v < self.v)

    def __gt__(self, other: Reversed) -> bool:
        return bool(other.v > self.v)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reversed) and bool(self.v == other.v)

    def __hash__(self) -> int:
        return hash(self.v)
