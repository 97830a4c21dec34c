"""String builtins, `@format`s and regular expressions (Oniguruma-style).

Regexes go through the shared safe layer (RE2, or the `regex` module with a
timeout); jq's Perl-like defaults are kept: `^` only at the start, `$` at
the end or before a final newline, `.` not matching a newline unless the
`m`/`p` flag is given.
"""

from __future__ import annotations

import binascii
import functools
from collections.abc import Callable, Iterator

from ...textcache import TextLRU
from .builtins_core import FNative, Registry, cartesian, value
from .decode import decode_text
from .encode import dumps
from .errors import JqError
from .runtime import Env, F
from .values import add, is_number, split_str, type_error, typename

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# ---------------------------------------------------------------- strings


def _startswith(v: Any, s: Any) -> Any:
    if type(v) is not str or type(s) is not str:
        raise JqError("startswith() requires string inputs")
    return v.startswith(s)


def _endswith(v: Any, s: Any) -> Any:
    if type(v) is not str or type(s) is not str:
        raise JqError("endswith() requires string inputs")
    return v.endswith(s)


def _ltrimstr(v: Any, s: Any) -> Any:
    if type(v) is str and type(s) is str and v.startswith(s):
        return v[len(s) :]
    return v


def _rtrimstr(v: Any, s: Any) -> Any:
    if type(v) is str and type(s) is str and v.endswith(s) and s:
        return v[: len(v) - len(s)]
    return v


def _trimstr(v: Any, s: Any) -> Any:
    return _rtrimstr(_ltrimstr(v, s), s)


# what jq 1.8 trims: ASCII and Unicode white space
_SPACE = (
    " \t\n\r\f\v\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _trim(how: str) -> Callable[[Any], Any]:
    def fn(v: Any) -> Any:
        if type(v) is not str:
            raise JqError("trim input must be a string")
        if how == "l":
            return v.lstrip(_SPACE)
        if how == "r":
            return v.rstrip(_SPACE)
        return v.strip(_SPACE)

    return fn


def _ascii_case(upper: bool) -> Callable[[Any], Any]:
    table = str.maketrans(
        "abcdefghijklmnopqrstuvwxyz" if upper else "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if upper else "abcdefghijklmnopqrstuvwxyz",
    )

    def fn(v: Any) -> Any:
        if type(v) is not str:
            raise JqError("explode input must be a string")
        return v.translate(table)

    return fn


# ---------------------------------------------------------------- formats


def tostring(v: Any) -> str:
    return v if type(v) is str else dumps(v, capped=True)


def _csv_tsv(v: Any, csv: bool) -> str:
    if type(v) is not list:
        raise type_error(v, f"cannot be {'csv' if csv else 'tsv'}-formatted, only array")
    out = []
    for x in v:
        if x is None:
            out.append("")
        elif type(x) is bool:
            out.append("true" if x else "false")
        elif is_number(x):
            out.append("" if x != x else dumps(x))
        elif type(x) is str:
            if csv:
                out.append('"' + x.replace('"', '""') + '"')
            else:
                out.append(
                    x.replace("\\", "\\\\").replace("\t", "\\t").replace("\r", "\\r").replace("\n", "\\n")
                )
        else:
            raise type_error(x, f"is not valid in a {'csv' if csv else 'tsv'} row")
    return ("," if csv else "\t").join(out)


def _sh(v: Any) -> str:
    items = v if type(v) is list else [v]
    out = []
    for x in items:
        if type(x) is str:
            out.append("'" + x.replace("'", "'\\''") + "'")
        elif type(x) is list or type(x) is dict:
            raise type_error(x, "can not be escaped for shell")
        else:
            out.append(dumps(x))
    return " ".join(out)


_URI_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")


def _uri(v: Any) -> str:
    data = tostring(v).encode("utf-8", "surrogatepass")
    return "".join(chr(b) if b in _URI_SAFE else f"%{b:02X}" for b in data)


def _urid(v: Any) -> str:
    s = tostring(v)
    out = bytearray()
    i = 0
    n = len(s)
    while i < n:
        c = s[i]
        if c != "%":
            out += c.encode("utf-8", "surrogatepass")
            i += 1
            continue
        h = s[i + 1 : i + 3]
        if len(h) != 2 or any(x not in "0123456789abcdefABCDEF" for x in h):
            raise type_error(s, "is not a valid uri encoding")
        out.append(int(h, 16))
        i += 3
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        raise type_error(s, "is not a valid uri encoding") from None


def _html(v: Any) -> str:
    s = tostring(v)
    return (
        s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("'", "&" + "apos;")
        .replace('"', "&quot;")
    )


def _b64(v: Any) -> str:
    import base64  # (~1 M instructions: for the programs that encode)

    return base64.b64encode(tostring(v).encode("utf-8", "surrogatepass")).decode("ascii")


_B64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _b64d(v: Any) -> str:
    s = tostring(v)
    body = s.split("=", 1)[0]
    if any(c not in _B64_ALPHABET for c in body):
        raise type_error(s, "is not valid base64 data")
    if len(body) % 4 == 1:
        raise type_error(s, "trailing base64 byte found")
    padded = body + "=" * (-len(body) % 4)
    import base64

    return decode_text(base64.b64decode(padded))


def _b32(v: Any) -> str:
    import base64

    return base64.b32encode(tostring(v).encode("utf-8", "surrogatepass")).decode("ascii")


def _b32d(v: Any) -> str:
    s = tostring(v)
    body = s.rstrip("=")
    padded = body + "=" * (-len(body) % 8)
    import base64

    try:
        return decode_text(base64.b32decode(padded))
    except (binascii.Error, ValueError):
        raise type_error(s, "is not valid base32 data") from None


FORMATS: dict[str, Callable[[Any], str]] = {
    "text": tostring,
    "json": dumps,
    "csv": lambda v: _csv_tsv(v, True),
    "tsv": lambda v: _csv_tsv(v, False),
    "html": _html,
    "uri": _uri,
    "urid": _urid,
    "sh": _sh,
    "base64": _b64,
    "base64d": _b64d,
    "base32": _b32,
    "base32d": _b32d,
}


def get_format(name: str) -> Callable[[Any], str]:
    fn = FORMATS.get(name)
    if fn is None:

        def bad(v: Any) -> str:
            raise JqError(f"{name} is not a valid format")

        return bad
    return fn


def _format(v: Any, name: Any) -> Any:
    if type(name) is not str:
        raise type_error(name, "is not a valid format")
    return get_format(name)(v)


# ---------------------------------------------------------------- regex


class _Rx:
    """A compiled jq regex: the pattern, its group names, and a variant with
    Perl's `$` (end or before a final newline) for subjects ending in one."""

    __slots__ = ("rx", "rx_nl", "names", "ngroups")

    def __init__(self, pattern: str, flags: str) -> None:
        self.names = _group_names(pattern)
        prefix = ""
        if "x" in flags:
            prefix += "(?x)"
        if "m" in flags or "p" in flags:
            prefix += "(?s)"
        src = prefix + _normalize(pattern)
        icase = "i" in flags
        from ...regex import RegexError, compile_regex  # (RE2: for the programs with a regex)

        try:
            self.rx = compile_regex(src, "pcre", icase=icase)
            self.rx_nl = None
            if _has_dollar(pattern):
                self.rx_nl = compile_regex(
                    prefix + _normalize(pattern, perl_dollar=True), "pcre", icase=icase
                )
        except RegexError as e:
            raise JqError("Regex failure: " + _ONIG_MESSAGES.get(e.message, e.message)) from None
        self.ngroups = self.rx.groups

    def pick(self, subject: str) -> Any:
        if self.rx_nl is not None and subject.endswith("\n"):
            return self.rx_nl
        return self.rx


# the regex layer's PCRE wording -> Oniguruma's, as jq prints it
_ONIG_MESSAGES = {
    "missing terminating ] for character class": "premature end of char-class",
    "missing closing parenthesis": "end pattern with unmatched parenthesis",
    "unmatched closing parenthesis": "unmatched close parenthesis",
    "quantifier does not follow a repeatable item": "target of repeat operator is not specified",
}


def _has_dollar(p: str) -> bool:
    return "$" in p


def _normalize(p: str, perl_dollar: bool = False) -> str:
    """`(?<name>` -> `(?P<name>`; optionally `$` -> Perl's `\\Z`-like lookahead."""
    out: list[str] = []
    i = 0
    n = len(p)
    in_class = False
    while i < n:
        c = p[i]
        if c == "\\" and i + 1 < n:
            out.append(p[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and p[i] == "^":
                out.append("^")
                i += 1
            if i < n and p[i] == "]":
                out.append("]")
                i += 1
            continue
        if c == "(" and p.startswith("(?<", i) and i + 3 < n and p[i + 3] not in "=!":
            out.append("(?P<")
            i += 3
            continue
        if c == "$" and perl_dollar:
            out.append("(?=\\n?\\Z)")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _group_names(p: str) -> list[str | None]:
    """Names of the capturing groups, in order (None for unnamed)."""
    names: list[str | None] = []
    i = 0
    n = len(p)
    in_class = False
    while i < n:
        c = p[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            i += 1
            continue
        if c == "[":
            in_class = True
            i += 1
            if i < n and p[i] == "^":
                i += 1
            if i < n and p[i] == "]":
                i += 1
            continue
        if c == "(":
            if p.startswith("(?P<", i) or (p.startswith("(?<", i) and i + 3 < n and p[i + 3] not in "=!"):
                start = p.index("<", i) + 1
                end = p.find(">", start)
                names.append(p[start:end] if end > 0 else None)
            elif not p.startswith("(?", i) and not p.startswith("(*", i):
                names.append(None)
        i += 1
    return names


@functools.cache
def _rx_cache() -> TextLRU[tuple[str, str], _Rx]:
    """Shared by every run of the process: bounded in entries, pattern text and compiled size
    (T-TEN-5); made by the first regex, with the regex layer."""
    from ...regex import RETAINED_MAX

    return TextLRU(256, retained=RETAINED_MAX)


def _compile(pattern: str, flags: str) -> _Rx:
    key = (pattern, flags)
    cache = _rx_cache()
    rx = cache.get(key)
    if rx is None:
        rx = _Rx(pattern, flags)
        cache.put(key, len(pattern), rx, rx.rx.retained + (rx.rx_nl.retained if rx.rx_nl is not None else 0))
    return rx


def _check_flags(flags: Any) -> tuple[str, bool]:
    if flags is None:
        return "", False
    if type(flags) is not str:
        raise type_error(flags, "is not a string")
    for c in flags:
        if c not in "gimxspln":
            raise JqError(f"{flags} is not a valid modifier string")
    return flags, "g" in flags


def match_all(v: Any, regex: Any, flags: Any, test: bool, budget: Any = None) -> Any:
    """jq's _match_impl: a list of match objects, or a boolean for test."""
    if type(v) is not str:
        raise type_error(v, "cannot be matched, as it is not a string")
    if type(regex) is not str:
        raise type_error(regex, "is not a string")
    fl, global_ = _check_flags(flags)
    crx = _compile(regex, fl)
    rx = crx.pick(v)
    if budget is not None:
        rx = rx.with_budget(budget)
    not_empty = "n" in fl
    if test:
        for m in _search_all(rx, v, global_ or not_empty):
            if not_empty and m.end() == m.start():
                continue
            return True
        return False
    out = []
    for m in _search_all(rx, v, global_):
        if not_empty and m.end() == m.start():
            continue
        out.append(_match_object(m, crx.names))
    return out


def _search_all(rx: Any, s: str, global_: bool) -> Iterator[Any]:
    pos = 0
    n = len(s)
    while pos <= n:
        m = rx.search(s, pos)
        if m is None:
            return
        yield m
        if not global_:
            return
        pos = m.end() + 1 if m.end() == m.start() else m.end()


def _match_object(m: Any, names: list[str | None]) -> dict[str, Any]:
    start, end = m.span()
    caps = []
    zero = start == end
    for g, (cs, ce) in enumerate(m.spans()[1:]):
        name = names[g] if g < len(names) else None
        if zero:
            caps.append({"offset": start, "string": "", "length": 0, "name": name})
        elif cs < 0:
            caps.append({"offset": -1, "string": None, "length": 0, "name": name})
        elif cs == ce:
            caps.append({"offset": cs, "string": "", "length": 0, "name": name})
        else:
            caps.append({"offset": cs, "length": ce - cs, "string": m.string[cs:ce], "name": name})
    return {"offset": start, "length": end - start, "string": m.string[start:end], "captures": caps}


def _split_regex_args(val: Any) -> tuple[Any, Any]:
    if type(val) is str:
        return val, None
    if type(val) is list and len(val) > 1:
        return val[0], val[1]
    if type(val) is list and len(val) > 0:
        return val[0], None
    raise JqError(f"{typename(val)} not a string or array")


def _captures_object(m: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for c in m["captures"]:
        if c["name"] is not None:
            out[c["name"]] = c["string"]
    return out


class FRegex(F):
    """test/match/capture/scan/splits with (re), (re; flags) or ([re, flags])."""

    __slots__ = ("kind", "args")

    def __init__(self, kind: str, args: list[F]) -> None:
        self.kind = kind
        self.args = args

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        for vals in cartesian(self.args, v, env):
            if len(vals) == 1 and self.kind in ("test", "match", "capture"):
                regex, flags = _split_regex_args(vals[0])
            else:
                regex = vals[0]
                flags = vals[1] if len(vals) > 1 else None
            yield from self._one(v, regex, flags, env[2].budget)

    def _one(self, v: Any, regex: Any, flags: Any, budget: Any = None) -> Iterator[Any]:
        kind = self.kind
        if kind == "test":
            yield match_all(v, regex, flags, True, budget)
            return
        if kind in ("scan", "splits"):
            if flags is not None and type(flags) is not str:
                raise type_error(flags, "is not a string")
            flags = "g" + (flags or "")
        matches = match_all(v, regex, flags, False, budget)
        if kind == "match":
            yield from matches
        elif kind == "capture":
            for m in matches:
                yield _captures_object(m)
        elif kind == "scan":
            for m in matches:
                caps = m["captures"]
                yield [c["string"] for c in caps] if caps else m["string"]
        else:
            prev = 0
            for m in matches:
                yield v[prev : m["offset"]]
                prev = m["offset"] + m["length"]
            yield v[prev:]


class FSplit2(F):
    """split($re; flags): the pieces as one array."""

    __slots__ = ("inner",)

    def __init__(self, re_: F, flags: F) -> None:
        self.inner = FRegex("splits", [re_, flags])

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        for vals in cartesian(self.inner.args, v, env):
            yield list(self.inner._one(v, vals[0], vals[1], env[2].budget))


class FSub(F):
    """sub/gsub: jq 1.7's definition, including several outputs of the replacement."""

    __slots__ = ("re_", "repl", "flags", "glob")

    def __init__(self, re_: F, repl: F, flags: F | None, glob: bool) -> None:
        self.re_ = re_
        self.repl = repl
        self.flags = flags
        self.glob = glob

    def run(self, v: Any, env: Env) -> Iterator[Any]:
        flag_values = self.flags.run(v, env) if self.flags is not None else ("",)
        for flags in flag_values:
            for regex in self.re_.run(v, env):
                if flags is not None and type(flags) is not str:
                    raise type_error(flags, "is not a string")
                fl = (flags or "") + ("g" if self.glob else "")
                yield from self._sub(v, regex, fl, env)

    def _sub(self, v: Any, regex: Any, flags: str, env: Env) -> Iterator[Any]:
        if type(v) is not str:
            raise type_error(v, "cannot be matched, as it is not a string")
        results: list[Any] = []
        previous = 0
        for m in match_all(v, regex, flags, False, env[2].budget):
            gap = v[previous : m["offset"]]
            inserts = list(self.repl.run(_captures_object(m), env))
            for ix, ins in enumerate(inserts):
                while len(results) <= ix:
                    results.append(None)
                results[ix] = add(results[ix], add(gap, ins))
            previous = m["offset"] + m["length"]
        if not results:
            yield v
            return
        tail = v[previous:]
        for r in results:
            out = add(r, tail)
            if out is None or out is False:
                continue
            yield out


def register(reg: Registry) -> None:
    value(reg, "startswith", 1, _startswith)
    value(reg, "endswith", 1, _endswith)
    value(reg, "ltrimstr", 1, _ltrimstr)
    value(reg, "rtrimstr", 1, _rtrimstr)
    value(reg, "trimstr", 1, _trimstr)
    value(reg, "trim", 0, _trim(""))
    value(reg, "ltrim", 0, _trim("l"))
    value(reg, "rtrim", 0, _trim("r"))
    value(reg, "ascii_downcase", 0, _ascii_case(False))
    value(reg, "ascii_upcase", 0, _ascii_case(True))
    value(reg, "format", 1, _format)
    value(reg, "split", 1, _split_plain)
    for kind in ("test", "match", "capture", "scan", "splits"):
        reg[(kind, 1)] = functools.partial(FRegex, kind)
        reg[(kind, 2)] = functools.partial(FRegex, kind)
    reg[("split", 2)] = lambda args: FSplit2(args[0], args[1])
    reg[("sub", 2)] = lambda args: FSub(args[0], args[1], None, False)
    reg[("sub", 3)] = lambda args: FSub(args[0], args[1], args[2], False)
    reg[("gsub", 2)] = lambda args: FSub(args[0], args[1], None, True)
    reg[("gsub", 3)] = lambda args: FSub(args[0], args[1], args[2], True)
    reg[("_match_impl", 3)] = lambda args: FNative(match_all, args)


def _split_plain(v: Any, sep: Any) -> Any:
    if type(v) is not str or type(sep) is not str:
        raise JqError("split input and separator must be strings")
    return split_str(v, sep)
