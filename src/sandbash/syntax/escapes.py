"""Backslash-escape decoding shared by $'...', echo -e and printf %b.

Strings are `str` holding bytes as surrogate escapes, so `\\xff` becomes the
lone byte 0xff and `\\u00e9` the UTF-8 encoding of é.
"""

from __future__ import annotations

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


def byte_char(value: int) -> str:
    """The str holding the single byte `value` (surrogate-escaped above 127)."""
    value &= 0xFF
    return chr(value) if value < 0x80 else chr(0xDC00 + value)


def codepoint(value: int, mode: str = "") -> str:
    """\\u/\\U as bash writes them in a UTF-8 locale: surrogates as their three
    bytes, past U+10FFFF the original UTF-8 forms (up to six bytes, to
    0x7FFFFFFF), beyond that nothing. `mode` is kept for the callers' symmetry."""
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


def decode_escapes(text: str, mode: str) -> tuple[str, bool]:
    """See `_decode`; byte escapes that together form valid UTF-8 become
    characters, as they would on a terminal."""
    out, stopped = _decode(text, mode)
    if any(0xDC80 <= ord(c) <= 0xDCFF for c in out):
        out = out.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    return out, stopped


def _decode(text: str, mode: str) -> tuple[str, bool]:
    """Decode backslash escapes.

    mode 'ansi':  $'...' rules (\\' \\" \\? \\cX, octal \\NNN, stops at NUL).
    mode 'echo':  echo -e / printf %b rules (octal \\0NNN, \\c stops output).
    Returns (text, stopped) where stopped is True when \\c ended the output
    (echo) or a NUL ended the string ($'...').
    """
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        d = text[i + 1]
        i += 2
        if d in _SIMPLE:
            out.append(_SIMPLE[d])
        elif mode == "ansi" and d in "'\"?":
            out.append(d)
        elif d == "c":
            if mode in ("echo", "printf_b"):
                return "".join(out), True
            if i < n:
                ch = text[i]
                i += 1
                if ch == "\\" and i < n and text[i] == "\\":
                    i += 1
                code = ord(ch.upper()) ^ 0x40 if ch != "?" else 0x7F
                if code == 0:
                    return "".join(out), True
                out.append(byte_char(code))
            else:
                out.append("\\c")
        elif d in _OCT and (mode != "echo" or d == "0"):
            # echo: \0NNN (up to 3 digits after the 0); ansi: \NNN (1-3 digits);
            # printf %b: both forms
            j = i - 1 if mode == "ansi" or (mode == "printf_b" and d != "0") else i
            start = j
            limit = start + 3
            while j < n and j < limit and text[j] in _OCT:
                j += 1
            digits = text[start:j]
            value = int(digits, 8) if digits else 0
            i = j
            if value == 0 and mode == "ansi":
                return "".join(out), True
            out.append(byte_char(value))
        elif d == "x":
            j = i
            while j < n and j < i + 2 and text[j] in _HEX:
                j += 1
            if j == i:
                out.append("\\x")
            else:
                value = int(text[i:j], 16)
                i = j
                if value == 0 and mode == "ansi":
                    return "".join(out), True
                out.append(byte_char(value))
        elif d in "uU":
            limit = 4 if d == "u" else 8
            j = i
            while j < n and j < i + limit and text[j] in _HEX:
                j += 1
            if j == i:
                out.append("\\" + d)
            else:
                value = int(text[i:j], 16)
                i = j
                if value == 0 and mode == "ansi":
                    return "".join(out), True
                out.append(codepoint(value, mode))
        else:
            out.append("\\" + d)
    return "".join(out), False
