"""Serializing jq values exactly as jq prints them.

The C `json` encoder produces jq's layout (`indent=2` is jq's pretty form,
`(",", ":")` its compact form) and escapes strings the same way, except that
jq also escapes DEL and prints numbers its own way. So values whose numbers
the C encoder would print identically go through it; anything else (special
floats, literals, very deep nesting) goes through the slower writer here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

from .numbers import format_number

_esc: Callable[[str], str] = encode_basestring
_esc_ascii: Callable[[str], str] = encode_basestring_ascii


def quote(s: str, ascii_only: bool = False) -> str:
    """A JSON string literal, escaped like jq (`\\u007f` included)."""
    if ascii_only:
        return _esc_ascii(s)
    out = _esc(s)
    if "\x7f" in s:
        out = out.replace("\x7f", "\\u007f")
    return out


class Style:
    """Output options: indent (0 = compact), tab, ascii, sort_keys."""

    __slots__ = ("indent", "tab", "ascii", "sort_keys")

    def __init__(self, indent: int = 2, tab: bool = False, ascii: bool = False, sort_keys: bool = False) -> None:
        self.indent = indent
        self.tab = tab
        self.ascii = ascii
        self.sort_keys = sort_keys

    @property
    def pretty(self) -> bool:
        return self.tab or self.indent > 0


COMPACT = Style(indent=0)


def dumps(value: Any, style: Style = COMPACT) -> str:
    """Serialize one value."""
    t = type(value)
    if t is str:
        return quote(value, style.ascii)
    if t is list or t is dict:
        if not style.pretty:
            fast = _fast_dumps(value, style)
            if fast is not None:
                return fast
            out: list[str] = []
            _compact(value, style, 0, out)
            return "".join(out)
        out = []
        try:
            _pretty(value, style, 0, out)
        except RecursionError:
            return _slow_dumps(value, style)
        text = "".join(out)
        if not style.ascii and "\x7f" in text:
            text = text.replace("\x7f", "\\u007f")
        return text
    return _scalar(value, style.ascii)


def _compact(value: Any, style: Style, depth: int, out: list[str]) -> None:
    """Compact output: subtrees the C encoder prints as jq does go through it."""
    add = out.append
    text = _fast_dumps(value, style)
    if text is not None:
        add(text)
        return
    is_dict = type(value) is dict
    add("{" if is_dict else "[")
    items = (sorted(value.items()) if style.sort_keys else value.items()) if is_dict else value
    first = True
    for item in items:
        if first:
            first = False
        else:
            add(",")
        if is_dict:
            add(quote(item[0], style.ascii))
            add(":")
            child = item[1]
        else:
            child = item
        if type(child) is list or type(child) is dict:
            _compact(child, style, depth + 1, out)
        else:
            add(_scalar(child, style.ascii))
    add("}" if is_dict else "]")


def _pretty(value: Any, style: Style, depth: int, out: list[str]) -> None:
    """Pretty output, recursively (the caller falls back on deep values)."""
    add = out.append
    unit = "\t" if style.tab else " " * style.indent
    inner = "\n" + unit * (depth + 1)
    esc = _esc_ascii if style.ascii else _esc
    if type(value) is dict:
        if not value:
            add("{}")
            return
        add("{")
        first = True
        items = sorted(value.items()) if style.sort_keys else value.items()
        for k, child in items:
            if first:
                add(inner)
                first = False
            else:
                add("," + inner)
            add(esc(k))
            add(": ")
            tc = type(child)
            if tc is str:
                add(esc(child))
            elif tc is int and -9007199254740992 < child < 9007199254740992:
                add(str(child))
            elif tc is list or tc is dict:
                _pretty(child, style, depth + 1, out)
            else:
                add(_scalar(child, style.ascii))
        add("\n" + unit * depth + "}")
        return
    if not value:
        add("[]")
        return
    add("[")
    first = True
    for child in value:
        if first:
            add(inner)
            first = False
        else:
            add("," + inner)
        tc = type(child)
        if tc is str:
            add(esc(child))
        elif tc is int and -9007199254740992 < child < 9007199254740992:
            add(str(child))
        elif tc is list or tc is dict:
            _pretty(child, style, depth + 1, out)
        else:
            add(_scalar(child, style.ascii))
    add("\n" + unit * depth + "]")


def _scalar(value: Any, ascii_only: bool) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is str:
        return quote(value, ascii_only)
    return format_number(value)


def _fast_dumps(value: Any, style: Style) -> str | None:
    """The C encoder's text, or None when a number needs jq's formatting.
    Values too deep for the C encoder go to the iterative writer."""
    try:
        if not _plain(value):
            return None
        if style.pretty:
            text = json.dumps(
                value, ensure_ascii=style.ascii, indent="\t" if style.tab else style.indent,
                separators=(",", ": "), sort_keys=style.sort_keys, check_circular=False,
            )
        else:
            text = json.dumps(
                value, ensure_ascii=style.ascii, separators=(",", ":"), sort_keys=style.sort_keys,
                check_circular=False,
            )
    except RecursionError:
        return _slow_dumps(value, style)
    if not style.ascii and "\x7f" in text:
        text = text.replace("\x7f", "\\u007f")
    return text


def _plain(value: Any) -> bool:
    """True when the C encoder prints every number in `value` as jq does."""
    t = type(value)
    if t is dict:
        for v in value.values():
            tv = type(v)
            if tv is int or tv is str or v is None or tv is bool:
                if tv is int and not -(2**53) < v < 2**53:
                    return False
                continue
            if not _plain(v):
                return False
        return True
    if t is list:
        for v in value:
            tv = type(v)
            if tv is int or tv is str or v is None or tv is bool:
                if tv is int and not -(2**53) < v < 2**53:
                    return False
                continue
            if not _plain(v):
                return False
        return True
    if t is float:
        # repr matches jq for finite non-integral values printed without a
        # positive exponent (repr switches to exponents at 1e16, jq later)
        return bool(value == value and not value.is_integer() and -1e16 < value < 1e16)
    if t is int:
        return bool(-(2**53) < value < 2**53)
    return t is str or t is bool or value is None


def _slow_dumps(value: Any, style: Style) -> str:
    """Iterative writer: any depth, jq's number formatting."""
    out: list[str] = []
    add = out.append
    ascii_only = style.ascii
    pretty = style.pretty
    unit = "\t" if style.tab else " " * style.indent
    colon = ": " if pretty else ":"
    # open containers: [iterator over children, is_dict, depth, first child?]
    stack: list[list[Any]] = []

    def emit(v: Any, depth: int) -> None:
        tv = type(v)
        if tv is dict:
            if not v:
                add("{}")
                return
            add("{")
            items = sorted(v.items()) if style.sort_keys else v.items()
            stack.append([iter(items), True, depth + 1, True])
        elif tv is list:
            if not v:
                add("[]")
                return
            add("[")
            stack.append([iter(v), False, depth + 1, True])
        else:
            add(_scalar(v, ascii_only))

    emit(value, 0)
    while stack:
        top = stack[-1]
        it, is_dict, depth = top[0], top[1], top[2]
        item: Any = next(it, _END)
        if item is _END:
            stack.pop()
            if pretty:
                add("\n" + unit * (depth - 1))
            add("}" if is_dict else "]")
            continue
        if top[3]:
            top[3] = False
        else:
            add(",")
        if pretty:
            add("\n" + unit * depth)
        if is_dict:
            add(quote(item[0], ascii_only))
            add(colon)
            emit(item[1], depth)
        else:
            emit(item, depth)
    return "".join(out)


_END = object()
