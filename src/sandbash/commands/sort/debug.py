"""sort --debug: each output line shown again with its keys underlined, as GNU's debug_line draws
them. A tab shows as `>` and the line's end as a newline (also with -z); under each key (and
under the whole line for the last-resort comparison, unless -s or -u) a run of `_` as wide as
the part of the line the comparison used, or `^ no match for key`. Numeric and month keys are
narrowed to the number or month name read from them (GNU's tighter limit), widths are display
columns (a tab one, a control character none, an invalid byte one)."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable

from ..textbasic.common import char_width
from .keys import BLANKS, MONTHS, ORDERING_FLAGS, Key, key_bounds

# strtold's reach in the C locale: a decimal or hexadecimal number, inf, infinity or nan
_FLOAT = re.compile(
    rb"[+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    rb"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    rb"|(?i:infinity|inf|nan(?:\([0-9A-Za-z_]*\))?))"
)
_NUMBER = re.compile(rb"-?([0-9]*)(?:\.([0-9]*))?")
_UNITS = b"KkMGTPEZY"  # coreutils 9.1's unit_order letters


def width(text: bytes) -> int:
    """GNU's debug_width: mbsnwidth of the bytes (UTF-8) plus one per tab. A character cut by
    the key's byte offset counts one column for what is left of it (mbrtowc's incomplete end)."""
    total = text.count(b"\t")
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    chars = decoder.decode(text, final=False)
    if decoder.getstate()[0]:
        total += 1
    # (an invalid byte is one column to mbsnwidth)
    return total + sum(char_width(ch, invalid=1) for ch in chars)


def _tighter(line: bytes, beg: int, lim: int, key: Key) -> tuple[int, int]:
    """debug_key's narrowing of a numeric or month key to what was read from it."""
    text = line[:lim]  # (GNU writes a NUL at the limit)
    while beg < len(text) and text[beg] in BLANKS:
        beg += 1
    if lim < beg:
        return beg, lim
    end = beg
    if key.month:
        if text[beg : beg + 3].upper() in MONTHS:
            end = beg + 3
    elif key.general:
        m = _FLOAT.match(text, beg)
        if m is not None:
            end = m.end()
    else:
        m = _NUMBER.match(text, beg)
        if m is not None and (m.group(1) or m.group(2)):
            end = m.end()
            if key.human and end < len(text) and text[end] in _UNITS:
                end += 1
    return beg, end


def annotator(
    keys: list[Key], gkey: Key, tab: int | None, stable: bool, unique: bool
) -> Callable[[bytes], bytes]:
    """A function from an output line to its --debug text (without the final newline)."""
    # no -k: the global options make the one key when there are any (GNU inserts gkey, which
    # starts and ends nowhere, so it spans the line); then the last resort, the whole line
    marked: list[tuple[Key, bool]] = [(k, False) for k in keys]
    if not keys and not gkey.default_compare():
        marked.append((gkey, True))
    whole = not marked or not (stable or unique)

    def show(line: bytes) -> bytes:
        rows = [line.replace(b"\t", b">")]
        for key, global_key in marked:
            beg, lim = (0, len(line)) if global_key else key_bounds(line, key, tab)
            numeric = key.numeric or key.general or key.human
            if (global_key and key.skipsblanks) or key.month or numeric:
                beg, lim = _tighter(line, beg, lim, key)
            rows.append(_mark(line, beg, lim))
        if whole:
            rows.append(_mark(line, 0, len(line)))
        return b"\n".join(rows)

    return show


def _mark(line: bytes, beg: int, lim: int) -> bytes:
    offset = b" " * width(line[:beg])
    span = width(line[beg:lim]) if lim > beg else 0
    return offset + (b"_" * span if span else b"^ no match for key")


def warnings(
    keys: list[Key], gkey: Key, tab: int | None, gkey_only: bool, stable: bool, unique: bool
) -> list[str]:
    """GNU's key_warnings, after the locale line: each key's zero width, significant leading
    blanks and numeric span, then the numbers note and the global options no key used."""
    out: list[str] = []
    basic = general = basic_span = general_span = False
    unused = {name: getattr(gkey, name) for name in ORDERING_FLAGS}
    for num, key in enumerate(keys, 1):
        is_numeric = key.numeric or key.general or key.human
        if is_numeric:
            general, basic = general or key.general, basic or not key.general
        zero_width = not gkey_only and key.eword is not None and key.eword < key.sword
        if zero_width:
            out.append(f"key {num} has zero width and will be ignored")
        line_offset = key.eword == 0 and key.echar != 0
        implicit_skip = is_numeric or key.month
        if (
            not zero_width
            and not gkey_only
            and tab is None
            and not line_offset
            and (
                (not key.skipsblanks and not implicit_skip)
                or (not key.skipsblanks and key.schar)
                or (not key.skipeblanks and key.echar)
            )
        ):
            out.append(f"leading blanks are significant in key {num}; consider also specifying 'b'")
        if not gkey_only and is_numeric and (key.eword is None or key.sword < key.eword):
            out.append(f"key {num} is numeric and spans multiple fields")
            general_span, basic_span = general_span or key.general, basic_span or not key.general
        for name in ORDERING_FLAGS:
            unused[name] = unused[name] and not getattr(key, name)
    warned = False
    if (basic_span or general_span) and tab is not None:
        if tab == ord("."):
            out.append("field separator \u2018.\u2019 is treated as a decimal point in numbers")
            warned = True
        elif tab == ord("-"):
            out.append("field separator \u2018-\u2019 is treated as a minus sign in numbers")
        elif general_span and tab == ord("+"):
            out.append("field separator \u2018+\u2019 is treated as a plus sign in numbers")
    if (basic or general) and not warned:
        note = "" if tab == ord(".") else "note "
        out.append(f"{note}numbers use \u2018.\u2019 as a decimal point in this locale")
    left = Key(**{name: unused[name] for name in ORDERING_FLAGS})
    if not left.default_compare() or (unused["reverse"] and (stable or unique) and keys):
        letters = left.opts_letters(True, unused["reverse"] and (stable or unique))
        out.append(
            f"option '-{letters}' is ignored" if len(letters) == 1 else f"options '-{letters}' are ignored"
        )
    if unused["reverse"] and not (stable or unique) and keys:
        out.append("option '-r' only applies to last-resort comparison")
    return out
