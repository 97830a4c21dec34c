"""Serializing jq values exactly as jq prints them.

The C `json` encoder produces jq's layout (`indent=2` is jq's pretty form,
`(",", ":")` its compact form) and escapes strings the same way, except that
jq also escapes DEL and prints numbers its own way. So values whose numbers
the C encoder would print identically go through it; anything else (special
floats, literals, very deep nesting) goes through the slower writers here.

Output can be far larger than the value (a deep value's indentation grows
with the square of its depth), so the writers hand their text on in pieces
(`dump_to`), charging the run's work as they go.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextvars import ContextVar
from json.encoder import encode_basestring, encode_basestring_ascii  # type: ignore[attr-defined]

from ...limits import LimitExceeded, LimitKind
from .numbers import format_number

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_esc: Callable[[str], str] = encode_basestring
_esc_ascii: Callable[[str], str] = encode_basestring_ascii

# the recursive writers hand subtrees deeper than this to the iterative one
_RECURSIVE_DEPTH = 200
# elements and string characters a value may have for the C encoder to print it
# in one go (larger values stream through the writers, which charge the work)
_FAST_MAX = 1 << 20
_FAST_NESTED = 1 << 16
# pieces (and characters) collected before they are joined and handed on
_FLUSH_PIECES = 4096
_FLUSH_CHARS = 1 << 16

# the run's work charger and longest string (the runner sets them; by
# default nothing is charged or capped)
BUDGET: ContextVar[tuple[Callable[[int], None] | None, int]] = ContextVar("jq_budget", default=(None, 0))


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

    def __init__(
        self, indent: int = 2, tab: bool = False, ascii: bool = False, sort_keys: bool = False
    ) -> None:
        self.indent = indent
        self.tab = tab
        self.ascii = ascii
        self.sort_keys = sort_keys

    @property
    def pretty(self) -> bool:
        return self.tab or self.indent > 0


COMPACT = Style(indent=0)


def dumps(value: Any, style: Style = COMPACT, capped: bool = True, stop: int = 0) -> str:
    """Serialize one value. A text longer than the run's string limit is a limit error, as for
    strings that operators build: a value of shared parts prints as 2**40 characters, and every
    text made here is held in memory (`debug`, `error`, `@sh`, messages); `capped=False` is for
    callers that bound it themselves. `stop`: the text's first `stop` characters or more, the
    rest never made (a message quoting a value shows its start)."""
    t = type(value)
    if t is str:
        return quote(value, style.ascii)
    if t is list or t is dict:
        cap = BUDGET.get()[1] if capped else 0
        if not style.pretty:
            fast = _fast_dumps(value, style)
            if fast is not None:
                if cap and len(fast) > cap and not stop:
                    raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, cap)
                return fast
        parts: list[str] = []
        size = 0

        def collect(text: str) -> None:
            nonlocal size
            size += len(text)
            parts.append(text)
            if stop and size >= stop:
                raise _Enough
            if cap and size > cap:
                raise LimitExceeded(LimitKind.MAX_STRING_LENGTH, cap)

        try:
            dump_to(value, style, Sink(collect, style), fast=style.pretty)
        except _Enough:
            pass
        return "".join(parts)
    return _scalar(value, style.ascii)


class _Enough(Exception):
    """`dumps` has made the `stop` characters its caller wants."""


def dump_to(value: Any, style: Style, sink: Sink, fast: bool = True) -> None:
    """Serialize one value into `sink` (see `Sink`), in pieces of bounded size
    (`fast`: try the C encoder on the whole value first)."""
    t = type(value)
    if t is str:
        sink.write(quote(value, style.ascii))
    elif t is list or t is dict:
        if style.pretty:
            _pretty(value, style, 0, sink.out, sink)
        else:
            text = _fast_dumps(value, style) if fast else None
            if text is not None:
                sink.write(text)
                return
            _compact(value, style, 0, sink.out, sink, _Seen())
        sink.flush()
    else:
        sink.write(_scalar(value, style.ascii))


class Sink:
    """Text on its way to `write`: the writers collect pieces in `out`,
    which is joined and handed on every so often (DEL escaped: the C
    escaper leaves it), with the work charged to the run. Reusable."""

    __slots__ = ("out", "write", "checkpoint", "fix_del")

    def __init__(self, write: Callable[[str], None], style: Style) -> None:
        self.out: list[str] = []
        self.write = write
        self.checkpoint = BUDGET.get()[0]
        self.fix_del = not style.ascii

    def flush(self) -> None:
        out = self.out
        if not out:
            return
        text = "".join(out)
        out.clear()
        if self.fix_del and "\x7f" in text:
            text = text.replace("\x7f", "\\u007f")
        if len(text) > 4096 and self.checkpoint is not None:
            self.checkpoint(len(text) >> 12)
        self.write(text)


class _Seen:
    """What one compact dump learned about shared sub-values (`[., .]` built
    up 30 times is 30 arrays printed 2**30 times): the containers too large
    for the C encoder, and the last text it made (kept alive with them)."""

    __slots__ = ("big", "keep", "last", "text")

    def __init__(self) -> None:
        self.big: set[int] = set()
        self.keep: list[Any] = []
        self.last: Any = None
        self.text = ""


def _compact(value: Any, style: Style, depth: int, out: list[str], sink: Sink, seen: _Seen) -> None:
    """Compact output: subtrees the C encoder prints as jq does go through it."""
    if depth > _RECURSIVE_DEPTH:
        _iterative(value, style, depth, sink)
        return
    add = out.append
    if value is seen.last:
        add(seen.text)
        if len(seen.text) > _FLUSH_CHARS:
            sink.flush()
        return
    if id(value) not in seen.big:
        # a sub-value too large for the C encoder costs a walk of `room`
        # elements before its children are tried: nested attempts get a
        # small room, and a failed one is not tried again
        text = _fast_dumps(value, style, depth, _FAST_NESTED)
        if text is not None:
            seen.last, seen.text = value, text
            add(text)
            if len(text) > _FLUSH_CHARS:
                sink.flush()
            return
        seen.big.add(id(value))
        seen.keep.append(value)
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
            _compact(child, style, depth + 1, out, sink, seen)
        else:
            add(_scalar(child, style.ascii))
    add("}" if is_dict else "]")
    if len(out) > _FLUSH_PIECES:
        sink.flush()


def _pretty(value: Any, style: Style, depth: int, out: list[str], sink: Sink) -> None:
    """Pretty output, recursively (deep subtrees go to the iterative writer)."""
    if depth > _RECURSIVE_DEPTH:
        _iterative(value, style, depth, sink)
        return
    add = out.append
    unit = "\t" if style.tab else " " * style.indent
    inner = "\n" + unit * (depth + 1)
    esc = _esc_ascii if style.ascii else _esc
    if type(value) is dict:
        if not value:
            add("{}")
            return
        add("{")
        lead = inner
        sep = "," + inner
        items = sorted(value.items()) if style.sort_keys else value.items()
        for k, child in items:
            add(lead)
            lead = sep
            add(esc(k))
            add(": ")
            tc = type(child)
            if tc is str:
                add(esc(child))
                if len(child) > _FLUSH_CHARS:
                    sink.flush()
            elif tc is int and -9007199254740992 < child < 9007199254740992:
                add(str(child))
            elif tc is list or tc is dict:
                _pretty(child, style, depth + 1, out, sink)
            else:
                add(_scalar(child, style.ascii))
        add("\n" + unit * depth + "}")
        if len(out) > _FLUSH_PIECES:
            sink.flush()
        return
    if not value:
        add("[]")
        return
    add("[")
    lead = inner
    sep = "," + inner
    for child in value:
        add(lead)
        lead = sep
        tc = type(child)
        if tc is str:
            add(esc(child))
            if len(child) > _FLUSH_CHARS:
                sink.flush()
        elif tc is int and -9007199254740992 < child < 9007199254740992:
            add(str(child))
        elif tc is list or tc is dict:
            _pretty(child, style, depth + 1, out, sink)
        else:
            add(_scalar(child, style.ascii))
    add("\n" + unit * depth + "]")
    if len(out) > _FLUSH_PIECES:
        sink.flush()


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


def _fast_dumps(value: Any, style: Style, depth: int = 0, room: int = _FAST_MAX) -> str | None:
    """The C encoder's text, or None when a number needs jq's formatting or
    the value nests too deep for the recursive writers (`depth`: where the
    value sits)."""
    try:
        # the C encoder builds its whole text at once and cannot be stopped:
        # values whose text may be large (a shared sub-array repeated 2**30
        # times) go to the writers that stream it and charge the work
        if _plain(value, depth, [room]) is False:
            return None
    except RecursionError:
        return None
    if style.pretty:
        text = json.dumps(
            value,
            ensure_ascii=style.ascii,
            indent="\t" if style.tab else style.indent,
            separators=(",", ": "),
            sort_keys=style.sort_keys,
            check_circular=False,
        )
    else:
        text = json.dumps(
            value,
            ensure_ascii=style.ascii,
            separators=(",", ":"),
            sort_keys=style.sort_keys,
            check_circular=False,
        )
    if not style.ascii and "\x7f" in text:
        text = text.replace("\x7f", "\\u007f")
    return text


def _plain(value: Any, depth: int = 0, room: list[int] | None = None) -> bool:
    """True when the C encoder prints every number in `value` as jq does
    and no container in it sits deeper than the recursive writers go
    (`room`: elements and string characters the walk may still see)."""
    t = type(value)
    if t is dict or t is list:
        if depth > _RECURSIVE_DEPTH:
            return False
        if room is not None:
            room[0] -= len(value)
            if room[0] < 0:
                return False
        for v in value.values() if t is dict else value:
            tv = type(v)
            if tv is int or tv is str or v is None or tv is bool:
                if tv is int and not -(2**53) < v < 2**53:
                    return False
                if tv is str and room is not None and len(v) > 64:
                    room[0] -= len(v)
                    if room[0] < 0:
                        return False
            elif tv is float:
                if not (v == v and not v.is_integer() and -1e16 < v < 1e16):
                    return False
            elif not _plain(v, depth + 1, room):
                return False
        return True
    if t is float:
        # repr matches jq for finite non-integral values printed without a
        # positive exponent (repr switches to exponents at 1e16, jq later)
        return bool(value == value and not value.is_integer() and -1e16 < value < 1e16)
    if t is int:
        return bool(-(2**53) < value < 2**53)
    return t is str or t is bool or value is None


def _iterative(value: Any, style: Style, level: int, sink: Sink) -> None:
    """Iterative writer: any depth, jq's number formatting; `level` is how
    deep the value sits (its indentation)."""
    out = sink.out
    add = out.append
    ascii_only = style.ascii
    pretty = style.pretty
    unit = "\t" if style.tab else " " * style.indent
    colon = ": " if pretty else ":"
    width = len(unit)
    # open containers: [iterator over children, is_dict, children's level, first child?]
    stack: list[list[Any]] = []
    # characters of indentation added since the last flush
    pending = 0

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

    emit(value, level)
    while stack:
        top = stack[-1]
        it, is_dict, depth = top[0], top[1], top[2]
        item: Any = next(it, _END)
        if item is _END:
            stack.pop()
            if pretty:
                add("\n" + unit * (depth - 1))
                pending += depth * width
            add("}" if is_dict else "]")
        else:
            if top[3]:
                top[3] = False
            else:
                add(",")
            if pretty:
                add("\n" + unit * depth)
                pending += depth * width
            if is_dict:
                add(quote(item[0], ascii_only))
                add(colon)
                emit(item[1], depth)
            else:
                emit(item, depth)
        if len(out) > _FLUSH_PIECES or pending > _FLUSH_CHARS:
            sink.flush()
            pending = 0


_END = object()
