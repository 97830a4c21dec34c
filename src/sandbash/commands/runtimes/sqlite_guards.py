"""SQL functions whose one C call can run far past the run's deadline, replaced by bounded ones.

The progress handler (sqlite.py) runs between VDBE opcodes; a built-in function is one opcode, so
its C loop runs to its end whatever the deadline. SQLite 3.40's are linear in their output except:

- printf()/format() with `%c` and a precision: the character is appended `precision` times, one
  call each, and after the output passes SQLITE_LIMIT_LENGTH every append fails at once but the
  loop goes on (`printf('%.*c', 2000000000, 'x')`: ~2^31 turns, seconds past a 3 s deadline);
- instr() and replace(): a memcmp of the pattern at each byte of the text, n*m bytes compared;
- trim(), ltrim(), rtrim() with a character list: each character of the text against each of
  the list, n*m.

Each is registered over the built-in with the same name. A call whose work is small goes to the
built-in of a second connection (`Aux`, the same SQLite and length limit: same answers); a larger
one is answered here with linear work (Python's searches), or refused by the limit it would pass.
Arguments reach Python as int/float/str/bytes/None and go back as they came, so the built-in sees
the same storage classes; a float turned into text is SQLite's own conversion (CAST). Text that
is not UTF-8 cannot reach a Python function (the stdlib module refuses it): such a call fails as
every Python-defined function does on it.

This module runs inside sqlite3's worker process (sqlite_child.py imports it by itself, without
the sandbash package): it imports nothing of sandbash, and a limit is a TooLong for the shell to
name as max_string_length.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# byte comparisons a call may leave to the C loop (about 20 ms of memcmp)
C_WORK = 1 << 26
# SQLITE_MAX_LENGTH: past it the real shell's printf gives NULL too, so NULL is the answer
SQLITE_MAX_LENGTH = 1_000_000_000
_INT_MIN, _UINT = -(1 << 31), 1 << 32
_ARG_CONVERSIONS = frozenset("dsgzqQwcouxXfeEGipr")  # each takes one argument; n and % take none
_DIGITS = frozenset("0123456789")
_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 continuation bytes: no character starts there


class Aux:
    """The built-in functions, on a connection of their own (the main one has them replaced)."""

    def __init__(self, lib: Any, length_limit: int) -> None:
        self.conn = lib.connect(":memory:", isolation_level=None, check_same_thread=False)
        self.conn.setlimit(lib.SQLITE_LIMIT_LENGTH, length_limit)
        self.limit = length_limit
        self._sql: dict[tuple[str, int], str] = {}  # the SELECT for a name and argument count

    def call(self, name: str, args: tuple[object, ...]) -> object:
        sql = self._sql.get((name, len(args)))
        if sql is None:
            sql = self._sql[name, len(args)] = f"SELECT {name}({','.join('?' * len(args))})"
        return self.conn.execute(sql, args).fetchone()[0]

    def as_text(self, value: object) -> bytes:
        """A value as SQLite's sqlite3_value_text reads it (bytes of a blob as they are)."""
        if isinstance(value, bytes):
            return value
        if isinstance(value, str):
            return value.encode("utf-8", "surrogatepass")
        if isinstance(value, int):
            return str(value).encode()
        return str(self.conn.execute("SELECT CAST(? AS TEXT)", (value,)).fetchone()[0]).encode()

    def as_int(self, value: object) -> int:
        """sqlite3_value_int64 of an argument (printf's `*`)."""
        if value is None:
            return 0
        if isinstance(value, int):
            return value
        if isinstance(value, float):
            return max(-(1 << 63), min((1 << 63) - 1, int(value))) if value == value else 0
        return int(self.conn.execute("SELECT CAST(? AS INTEGER)", (value,)).fetchone()[0] or 0)

    def close(self) -> None:
        self.conn.close()


def _c_int(v: int) -> int:
    """`(int)` of an int64 (two's complement truncation to 32 bits)."""
    return (v - _INT_MIN) % _UINT + _INT_MIN


def char_repeats(fmt: str, args: tuple[object, ...], aux: Aux) -> int:
    """How many turns printf's `%c` loops take over `fmt` (sqlite3_str_vappendf's reading of the
    flags, width, precision and `*` arguments; an unknown conversion ends the output there)."""
    turns = 0
    used = 0
    i, n = 0, len(fmt)
    while True:
        i = fmt.find("%", i)
        if i < 0 or i + 1 >= n:
            return turns
        i += 1
        while i < n and fmt[i] in "-+ 0#,!":
            i += 1
        if i < n and fmt[i] == "*":
            used += 1
            i += 1
        else:
            while i < n and fmt[i] in _DIGITS:
                i += 1
        precision = -1
        if i < n and fmt[i] == ".":
            i += 1
            if i < n and fmt[i] == "*":
                p = _c_int(aux.as_int(args[used]) if used < len(args) else 0)
                used += 1
                i += 1
                precision = -p if p < 0 and p >= -(1 << 31) + 1 else (-1 if p < 0 else p)
            else:
                start = i
                while i < n and fmt[i] in _DIGITS:
                    i += 1
                precision = int(fmt[start:i] or 0) & 0x7FFFFFFF
        for _ in range(2):  # l or ll
            if i < n and fmt[i] == "l":
                i += 1
        if i >= n:
            return turns
        conv = fmt[i]
        i += 1
        if conv in "%n":
            continue
        if conv not in _ARG_CONVERSIONS:
            return turns
        used += 1
        if conv == "c" and precision > 1:
            turns += precision - 1


class TooLong(Exception):
    """A value would pass the run's max_string_length (`limit`): the run ends with that limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"string or blob too big (limit {limit})")
        self.limit = limit


def too_long(limit: int) -> TooLong:
    return TooLong(limit)


def _text(out: bytes) -> object:
    """A result SQLite makes as text: bytes that are no UTF-8 (from blobs) go back as they are."""
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return out


def _units(chars: bytes) -> list[bytes]:
    """A character list as SQLite's trim() reads it: a lead byte and the continuation bytes after
    it (SQLITE_SKIP_UTF8), whatever they spell."""
    out: list[bytes] = []
    i, n = 0, len(chars)
    while i < n:
        j = i + 1
        if chars[i] >= 0xC0:
            while j < n and (chars[j] & 0xC0) == 0x80:
                j += 1
        out.append(chars[i:j])
        i = j
    return out


def trim_bytes(s: bytes, chars: bytes, left: bool, right: bool, tick: Callable[[], None]) -> bytes:
    """trim()'s answer in linear time: at each end, the first unit of the list (in its order)
    that the text starts or ends with is taken off, as often as one does."""
    first: dict[bytes, int] = {}
    for i, u in enumerate(_units(chars)):
        first.setdefault(u, i)
    if all(len(u) == 1 for u in first):  # single bytes: C's strip over the distinct ones
        sep = b"".join(first)
        return s.strip(sep) if left and right else s.lstrip(sep) if left else s.rstrip(sep)
    sizes = sorted({len(u) for u in first})

    def unit(at: int, lo: int, hi: int, forward: bool) -> int:
        """The size of the unit (first in the list's order) at `at`, going forward or back; 0: none."""
        best, rank = 0, len(chars)  # (past every index in the list)
        for k in sizes:
            if (at + k > hi) if forward else (at - k < lo):
                break
            r = first.get(s[at : at + k] if forward else s[at - k : at], rank)
            if r < rank:
                best, rank = k, r
        return best

    a, b, turns = 0, len(s), 0
    while left and a < b and (k := unit(a, a, b, True)):
        a += k
        turns += 1
        if not turns & 0xFFFF:
            tick()
    while right and b > a and (k := unit(b, a, b, False)):
        b -= k
        turns += 1
        if not turns & 0xFFFF:
            tick()
    return s[a:b]


def make_guards(
    aux: Aux, stop: Callable[[BaseException], None], check: Callable[[], None]
) -> dict[str, Callable[..., object]]:
    """The replacement functions by name; `stop(limit)` keeps a limit for the shell to raise once
    SQLite has unwound the statement (a Python exception in a function only fails the statement);
    `check` is the run's deadline check."""

    def fail(e: BaseException) -> None:
        stop(e)
        raise ValueError(str(e))  # SQLite fails the statement; the shell raises the limit kept

    def tick() -> None:
        try:
            check()
        except BaseException as e:  # (a limit or cancellation: kept, raised again by the shell)
            fail(e)

    def printf(*args: object) -> object:
        fmt = args[0] if args else None
        if fmt is None:
            return None
        text = fmt if isinstance(fmt, str) else aux.as_text(fmt).decode("utf-8", "replace")
        turns = char_repeats(text, args[1:], aux) if "c" in text else 0
        if turns >= SQLITE_MAX_LENGTH:
            return None  # what the real shell's printf answers: its output passes SQLITE_MAX_LENGTH
        if turns >= aux.limit:
            fail(too_long(aux.limit))  # the real shell prints it; here the run's limit is named
        out = aux.call("printf", args)
        if out is None and text and aux.call("printf", ("#" + text, *args[1:])) is None:
            fail(too_long(aux.limit))  # NULL only for output past the limit, not for `printf('')`
        return out

    def instr(hay: object, needle: object) -> object:
        if hay is None or needle is None:
            return None
        h, n = aux.as_text(hay), aux.as_text(needle)
        if len(h) * len(n) <= C_WORK or not n:
            return aux.call("instr", (hay, needle))
        is_text = not (isinstance(hay, bytes) and isinstance(needle, bytes))
        at = h.find(n)
        while at > 0 and is_text and (h[at] & 0xC0) == 0x80:
            at = h.find(n, at + 1)  # SQLite steps over a text a character at a time
        if at < 0:
            return 0
        return 1 + (len(h[:at].translate(None, _CONTINUATION)) if is_text else at)

    def replace(text_: object, pattern: object, rep: object) -> object:
        if text_ is None or pattern is None:
            return None
        s, p = aux.as_text(text_), aux.as_text(pattern)
        if len(s) * len(p) <= C_WORK or not p or p[0] == 0 or rep is None:
            return aux.call("replace", (text_, pattern, rep))
        r = aux.as_text(rep)
        if len(s) + s.count(p) * (len(r) - len(p)) > aux.limit:
            fail(too_long(aux.limit))
        return _text(s.replace(p, r))

    def trimmer(name: str, left: bool, right: bool) -> Callable[..., object]:
        def trim(text_: object, chars: object) -> object:
            if text_ is None or chars is None:
                return None
            s, c = aux.as_text(text_), aux.as_text(chars)
            if len(s) * len(c) <= C_WORK:
                return aux.call(name, (text_, chars))
            return _text(trim_bytes(s, c.split(b"\0", 1)[0], left, right, tick))

        return trim

    return {
        "printf": printf,
        "format": printf,
        "instr": instr,
        "replace": replace,
        "trim": trimmer("trim", True, True),
        "ltrim": trimmer("ltrim", True, False),
        "rtrim": trimmer("rtrim", False, True),
    }
