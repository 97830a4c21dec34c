"""The one backslash-escape decoder, with a mode for each language that has them:
$'...', echo -e, printf %b and printf's format string, awk strings, sed regexes, bc's print
strings, tr's sets, stat --printf.

Strings are `str` holding bytes as surrogate escapes, so `\\xff` becomes the
lone byte 0xff and `\\u00e9` the UTF-8 encoding of é.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache

from ..leanclass import Declared

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same classes, built without importing dataclasses (leanclass.py)
    from ..leanclass import dataclass

_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
}
_HEX = "0123456789abcdefABCDEF"
_OCT = "01234567"
_DEC = "0123456789"


def byte_char(value: int) -> str:
    """The str holding the single byte `value` (surrogate-escaped above 127)."""
    value &= 0xFF
    return chr(value) if value < 0x80 else chr(0xDC00 + value)


def codepoint(value: int, mode: str = "", c_locale: bool = False) -> str:
    """\\u/\\U as bash writes them in a UTF-8 locale: surrogates as their three
    bytes, past U+10FFFF the original UTF-8 forms (up to six bytes, to
    0x7FFFFFFF), beyond that nothing. `mode` is kept for the callers' symmetry.
    `c_locale`: the C/POSIX locale has no character past ASCII to convert to, and bash's
    u32cconv writes the escape back, `\\u00E9` or `\\U0001F600`."""
    if c_locale and value > 0x7F:
        return f"\\u{value:04X}" if value <= 0xFFFF else f"\\U{value:08X}"
    if value <= 0x10FFFF:
        return chr(value).encode("utf-8", "surrogatepass").decode("utf-8", "surrogateescape")
    if value > 0x7FFFFFFF:
        return ""
    nbytes = 4 if value <= 0x1FFFFF else 5 if value <= 0x3FFFFFF else 6
    lead = (0xF0, 0xF8, 0xFC)[nbytes - 4]
    out = [lead | (value >> (6 * (nbytes - 1)))]
    for k in range(nbytes - 2, -1, -1):
        out.append(0x80 | (value >> (6 * k)) & 0x3F)
    return "".join(byte_char(b) for b in out)


def locale_escapes(text: str) -> bool:
    """Whether decoding `text` may depend on the locale: a \\u or \\U escape (codepoint)."""
    return "\\u" in text or "\\U" in text


def decode_escapes(
    text: str, mode: str, unknown: list[str] | None = None, c_locale: bool = False
) -> tuple[str, bool]:
    """See `_decode`; byte escapes that together form valid UTF-8 become
    characters, as they would on a terminal (`c_locale`: codepoint's)."""
    out, stopped = _decode(text, mode, unknown, c_locale)
    if any(0xDC80 <= ord(c) <= 0xDCFF for c in out):
        out = out.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    return out, stopped


def decode_raw(text: str, mode: str, unknown: list[str] | None = None, c_locale: bool = False) -> str:
    """Decode in `mode` keeping byte escapes as bytes (printf's format, awk strings, stat
    --printf); each escape the mode does not know is appended to `unknown` (for a warning), and
    in tr's mode an octal escape too large for a byte, as `\\NNN` (`c_locale`: codepoint's)."""
    return _decode(text, mode, unknown, c_locale)[0]


@dataclass(frozen=True, slots=True)
class _Mode(metaclass=Declared):
    simple: Mapping[str, str]  # \n and the like
    octal: str  # "lead": \N to \NNN; "zero": \0 then up to 3 digits; "both" (printf %b); "none"
    c: str  # "stop" (echo, %b), "control" ($'\cX'), "" (no meaning)
    hex: bool = True  # \xHH
    unicode: bool = True  # \uHHHH, \UHHHHHHHH
    nul_stops: bool = False  # $'...' ends at a NUL
    unknown: str = "keep"  # an unknown \d: "keep" it, "plain" d (awk, stat), "drop" it (bc)
    continuation: bool = False  # awk: backslash-newline is nothing
    lettered: bool = False  # sed: \dNNN decimal, \oNNN octal (its \N are back-references)
    byte_octal: bool = False  # tr: an octal escape stops before it passes 255 (\400 is \40 then 0)
    hex_brace: bool = False  # $'...': \x{HHH...} takes every hex digit (the low byte) and a `}`


_QUOTES = {"'": "'", '"': '"', "?": "?"}
_MODES = {
    "ansi": _Mode({**_SIMPLE, **_QUOTES}, "lead", "control", nul_stops=True, hex_brace=True),
    "echo": _Mode(_SIMPLE, "zero", "stop"),
    "printf_b": _Mode(_SIMPLE, "both", "stop"),
    "format": _Mode({**_SIMPLE, **_QUOTES}, "lead", ""),
    "awk": _Mode(
        {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "a": "\a", "b": "\b", "f": "\f", "v": "\v"},
        "lead",
        "",
        unicode=False,
        unknown="plain",
        continuation=True,
    ),
    "sed": _Mode(
        {"n": "\n", "t": "\t", "a": "\a", "f": "\f", "v": "\v", "r": "\r"}, "none", "control", lettered=True
    ),
    "bc": _Mode(
        {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "q": '"', "t": "\t", "\\": "\\"},
        "none",
        "",
        hex=False,
        unicode=False,
        unknown="drop",
    ),
    "tr": _Mode(
        {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"},
        "lead",
        "",
        hex=False,
        unicode=False,
        unknown="plain",
        byte_octal=True,
    ),
    "stat": _Mode(
        {k: v for k, v in _SIMPLE.items() if k != "E"} | {'"': '"'},
        "lead",
        "",
        unicode=False,
        unknown="plain",
    ),
}


def _digits(text: str, start: int, limit: int, allowed: str) -> int:
    """The end of the run of `allowed` characters from `start`, at most `limit` long."""
    j = start
    while j < len(text) and j < start + limit and text[j] in allowed:
        j += 1
    return j


def decode_pieces(text: str, mode: str, unknown: list[str] | None = None) -> list[tuple[str, bool]]:
    """The decoded text as pieces, each marked True when it came from an escape (tr needs to
    know that an `[` or a `-` was written `\\[`, `\\-`)."""
    marks: list[int] = []
    out = _decode_into(text, mode, unknown, marks)[0]
    escaped = set(marks)
    return [(piece, k in escaped) for k, piece in enumerate(out)]


def _decode(
    text: str, mode: str, unknown: list[str] | None = None, c_locale: bool = False
) -> tuple[str, bool]:
    """Decode backslash escapes by the rules of `mode` (see _MODES).

    Returns (text, stopped) where stopped is True when \\c ended the output
    (echo, printf %b) or a NUL ended the string ($'...').
    """
    out, stopped = _decode_into(text, mode, unknown, None, c_locale)
    return "".join(out), stopped


def _decode_into(
    text: str, mode: str, unknown: list[str] | None, marks: list[int] | None, c_locale: bool = False
) -> tuple[list[str], bool]:
    """The loop of `_decode`: the output pieces; `marks` gets the index of each piece an escape made."""
    m = _MODES[mode]
    simple = m.simple
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        if marks and marks[-1] == len(out):  # the last escape wrote nothing (awk's \\ newline)
            marks.pop()
        j = text.find("\\", i)
        if j != i:  # a run of plain text up to the next backslash
            out.append(text[i:] if j < 0 else text[i:j])
            i = n if j < 0 else j
            continue
        if i + 1 >= n:
            if m.unknown != "drop":  # a last lone backslash stays (bc drops it)
                out.append("\\")
            i += 1
            continue
        if marks is not None:
            marks.append(len(out))
        d = text[i + 1]
        i += 2
        value: int | None = None
        piece = simple.get(d)
        if piece is not None:
            out.append(piece)
            continue
        if d == "c" and m.c:
            if m.c == "stop":
                return out, True
            if i >= n:
                out.append("\\c")
                continue
            ch = text[i]
            i += 1
            if ch == "\\" and i < n and text[i] == "\\":
                i += 1
            if ch in "\x01\x7f":
                # bash keeps these two escaped by its internal \001 in the text: \c takes that one
                out.append("\x01" + ch)
                continue
            # bash's TOCTRL on the character's first byte (the others stay): `?` is DEL, anything
            # else keeps its low five bits (\c0 is \020, \ca and \cA are \001)
            raw = ch.encode("utf-8", "surrogateescape")
            code = 0x7F if ch == "?" else raw[0] & 0x1F
            if code == 0:
                return out, True
            out.append(byte_char(code))
            out.extend(byte_char(b) for b in raw[1:])
            continue
        if d == "\n" and m.continuation:
            continue
        if m.lettered and d in "do" and (end := _digits(text, i, 3, _DEC if d == "d" else _OCT)) > i:
            start, i = i, end
            value = int(text[start:i], 10 if d == "d" else 8)
        elif d in _OCT and m.octal != "none" and (m.octal != "zero" or d == "0"):
            # "lead": the digit after the backslash is the first of up to three; "zero": \0NNN
            start = i if d == "0" and m.octal in ("zero", "both") else i - 1
            i = _digits(text, start, 3, _OCT)
            if m.byte_octal and i - start == 3 and int(text[start:i], 8) > 0xFF:
                if unknown is not None:
                    unknown.append("\\" + text[start:i])  # tr warns: an ambiguous octal escape
                i -= 1
            value = int(text[start:i], 8) if i > start else 0
        elif d == "x" and m.hex_brace and text.startswith("{", i):
            start = i + 1
            i = _digits(text, start, n, _HEX)
            value = int(text[start:i], 16) & 0xFF if i > start else 0
            if text.startswith("}", i):
                i += 1
        elif d == "x" and m.hex and (end := _digits(text, i, 2, _HEX)) > i:
            start, i = i, end
            value = int(text[start:i], 16)
        elif d in "uU" and m.unicode and (end := _digits(text, i, 4 if d == "u" else 8, _HEX)) > i:
            start, i = i, end
            value = int(text[start:i], 16)
            if value == 0 and m.nul_stops:
                return out, True
            out.append(codepoint(value, mode, c_locale))
            continue
        else:
            if unknown is not None:
                unknown.append(d)
            out.append({"keep": "\\" + d, "plain": d, "drop": ""}[m.unknown])
            continue
        if value == 0 and m.nul_stops:
            return out, True
        out.append(byte_char(value))
    return out, False


def single_quote(s: str) -> str:
    """bash's sh_single_quote: '...' with each ' as '\\'' (a lone ' is \\', as bash special-cases it)."""
    if s == "'":
        return "\\'"
    return "'" + s.replace("'", "'\\''") + "'"


def as_bytes(text: str) -> str:
    """`text` as the C locale sees it, each byte of its UTF-8 form one character: ASCII as it is,
    every other byte the lone surrogate surrogateescape gives it (U+DC80-U+DCFF). No class,
    range of ASCII ends or case folding takes those, as no ctype class takes a byte >= 0x80 in
    the C locale; `?` and `*` take them one at a time (RE2 sees each as a private-use character:
    Pattern._re2_text)."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("ascii", "surrogateescape")


def from_bytes(text: str) -> str:
    """The text whose as_bytes form `text` is."""
    if text.isascii():
        return text
    return text.encode("ascii", "surrogateescape").decode("utf-8", "surrogateescape")


def needs_ansi(s: str) -> bool:
    """Control characters or raw bytes that are no text: bash writes such a value as $'...'."""
    # (isprintable is true of none of them: one C pass answers for most values; a Python loop
    # over a 9 MB value took ~0.8 s)
    return not s.isprintable() and _ansi_search()(s) is not None


@cache
def _ansi_search() -> Callable[[str], object]:
    """A search for what needs_ansi looks for (our own fixed class: stdlib re, compiled on first use)."""
    import re

    return re.compile("[\\x00-\\x1f\\x7f\\udc80-\\udcff]").search


@cache
def _raw_search() -> Callable[[str], object]:
    """A search for a byte that is no text (U+DC80-U+DCFF)."""
    import re

    return re.compile("[\\udc80-\\udcff]").search


def printable_name(s: str) -> str:
    """A name as bash's printable_filename shows it in a message (command not found, cd, source):
    in $'...' when it holds a character that is no text, else as it is."""
    return ansi_c_quote(s) if needs_ansi(s) else s


def ansi_c_quote(s: str) -> str:
    """$'...' as bash's ansic_quote writes it: the C escapes by name, other control characters and
    bytes that are no text (U+DC80-U+DCFF) in octal."""
    pairs = _ansi_pairs()
    quoted = replace_each(s, pairs[0])
    if not s.isascii() and _raw_search()(s) is not None:
        quoted = replace_each(quoted, pairs[1])
    return "$'" + quoted + "'"


def replace_each(s: str, pairs: tuple[tuple[str, str], ...]) -> str:
    """`s` with each character of `pairs` that it holds replaced by that character's text: one
    str.replace a character. The pairs come in an order where no text holds a character replaced
    after it (a backslash first). (A Python step a character took ~3 s for a 9 MB value, and a
    str.translate over characters mostly left alone ~2 s: a lookup that misses costs a KeyError.)"""
    for c, text in pairs:
        if c in s:
            s = s.replace(c, text)
    return s


@cache
def _ansi_pairs() -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """ansi_c_quote's replacements: of ASCII characters (a backslash first), of bytes that are no
    text (made at the first use)."""
    named = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\x1b": "\\E"}
    named.update({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\v": "\\v"})
    ascii_ = list(named.items())
    ascii_ += [(chr(o), f"\\{o:03o}") for o in [*range(32), 127] if chr(o) not in named]
    raw = tuple((chr(o), f"\\{o - 0xDC00:03o}") for o in range(0xDC80, 0xDD00))
    return tuple(ascii_), raw


def ansi_decoded(text: str, in_dq: bool = False) -> str:
    """A word's source with each $'...' outside other quotes replaced by its single-quoted text (and
    each $"..." by "..."), as bash's parser stores it: what `set -x`, $BASH_COMMAND, `declare -f` and `type` show. A
    backquoted command is kept as written (bash reads its text again when it runs). `in_dq`: the
    text starts inside double quotes (a piece of a word after a `$( )`)."""
    if "$'" not in text and '$"' not in text:
        return text
    return ansi_scan(text, in_dq)[0]


def ansi_scan(text: str, in_dq: bool = False) -> tuple[str, bool]:
    """ansi_decoded's work, and whether the text ends inside double quotes."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            out.append(text[i : i + 2])
            i += 2
        elif c == '"':
            in_dq = not in_dq
            out.append(c)
            i += 1
        elif c == "`":
            end = i + 1
            while end < n and text[end] != "`":
                end += 2 if text[end] == "\\" else 1
            out.append(text[i : end + 1])
            i = end + 1
        elif c == "'" and not in_dq:
            end = text.find("'", i + 1)
            end = n - 1 if end < 0 else end
            out.append(text[i : end + 1])
            i = end + 1
        elif c == "$" and not in_dq and text[i + 1 : i + 2] == "'":
            end = i + 2
            while end < n and text[end] != "'":
                end += 2 if text[end] == "\\" else 1
            out.append(single_quote(decode_escapes(text[i + 2 : end], "ansi")[0]))
            i = end + 1
        elif c == "$" and not in_dq and text[i + 1 : i + 2] == '"':
            i += 1  # $"..." is stored as "..." (bash translates it to the locale's text: C's is itself)
        else:
            out.append(c)
            i += 1
    return "".join(out), in_dq
