"""Compiled patterns and matches over RE2, with the `regex` module as fallback."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence

import re2 as _re2mod
from re2 import _re2

from ..limits import Budget, LimitExceeded, LimitKind
from ..textcache import TextLRU
from . import RETAINED_MAX, valid_utf8
from . import errors as E
from .emit import NeedFallback, emit, esc, shift_groups
from .errors import RegexError
from .posix import parse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_UNANCHORED = _re2.RE2.Anchor.UNANCHORED
_ANCHOR_START = _re2.RE2.Anchor.ANCHOR_START
_ANCHOR_BOTH = _re2.RE2.Anchor.ANCHOR_BOTH
_NULL = (-1, -1)
DEFAULT_TIMEOUT = 10.0
FLAVORS = ("bre", "ere", "pcre", "awk")
# The `regex` module's timeout counts the process's CPU time, not the wall clock, so under
# CPU contention one call can run several times longer than its timeout. The fallback
# therefore runs in slices: the first gets at most FIRST_SLICE seconds of CPU, each retry
# (from the start: a match cannot be resumed) four times the last, and every slice is cut
# to the wall time left times the share of CPU the previous slice got (half for the first).
# The run then ends close to its deadline; a match that needs more CPU than the first
# slice costs up to ~2.3x as much, and the usual match needs microseconds.
FIRST_SLICE = 0.05
MIN_SLICE = 0.002
# Patterns built by parsing and emitting are checked against the deadline every so many
COMPILE_CHECK_EVERY = 256
# A fallback pattern longer than this is refused ("Regular expression too big"): the `regex`
# module compiles ~100 KB a second and cannot be interrupted while it does
MAX_FALLBACK_SOURCE = 128 << 10
MEMO_MAX = 1 << 16  # the longest subject a shared compiled pattern remembers (characters or bytes)
# characters special somewhere in a BRE or an ERE: a pattern free of them (and of
# control characters) is the same literal text in every POSIX flavor and dialect
_SPECIAL = frozenset(".[]*^$\\+?{}()|")


class _Core:
    """What is shared by every user of one compiled pattern."""

    __slots__ = (
        "_last_bytes",
        "_last_str",
        "_uni",
        "bounded",
        "invalid_only",
        "groups",
        "posix",
        "re2",
        "retained",
        "rx",
        "shift",
        "source",
        "warnings",
    )

    def __init__(self) -> None:
        self.re2: Any = None
        self.rx: Any = None
        self.groups = 0
        self.shift = False
        self.warnings: tuple[str, ...] = ()
        self.source = ""
        self.posix = True
        # bytes the compiled engine may hold (RE2: its max_mem; the fallback: its compiled source)
        self.retained = 0
        self._last_str: tuple[str, bytes, bool] | None = None
        self._last_bytes: tuple[bytes, str, bool] | None = None
        # an RE2 pattern with word boundaries: its fallback form's source, line mode and case (uni)
        self.bounded: tuple[Any, ...] | None = None
        # True when only a subject that is not valid UTF-8 needs that form: grep -w's own word test
        # (RE2's class of non-word characters matches no invalid byte, which GNU takes for one)
        self.invalid_only = False
        self._uni: Any = None

    def uni(self) -> Any:
        """The fallback engine's form of an RE2 pattern with word boundaries (for a subject that
        is not ASCII), compiled once."""
        rx = self._uni
        if rx is None:
            src, nl, icase = self.bounded  # type: ignore[misc]
            rx = self._uni = _rx_compile(src, nl, icase)
            self.retained += _fallback_retained(src)
        return rx

    # The last subject converted is remembered (repeated searches of one line), but only a short
    # one: the core is shared by every run of the process, and must not keep a run's long text
    # alive after it (finditer converts a long subject once itself).
    def encode(self, s: str) -> tuple[bytes, bool]:
        last = self._last_str
        if last is not None and last[0] is s:
            return last[1], last[2]
        ascii_ = s.isascii()
        b = s.encode("utf-8", "surrogateescape")
        if len(s) <= MEMO_MAX:
            self._last_str = (s, b, ascii_)
        return b, ascii_

    def decode(self, b: bytes) -> tuple[str, bool]:
        last = self._last_bytes
        if last is not None and last[0] is b:
            return last[1], last[2]
        ascii_ = b.isascii()
        s = b.decode("utf-8", "surrogateescape")
        if len(b) <= MEMO_MAX:
            self._last_bytes = (b, s, ascii_)
        return s, ascii_


def _re2_options(posix: bool, icase: bool, max_mem: int) -> Any:
    o = _re2mod.Options()
    o.longest_match = posix
    o.case_sensitive = not icase
    o.log_errors = False
    o.max_mem = max_mem
    return o


# RE2's max_mem bounds what one compiled pattern holds: its program, and the DFA states it
# adds while matching (a pattern like a[ab]{20}x fills ~25 MB on one pass over hard text).
# Patterns live in a process-wide cache, so most get RE2's usual 8 MB; only a pattern whose
# program does not fit gets 64 MB. The cache is bounded by these sizes (RETAINED_MAX, __init__.py).
RE2_MEM = (8 << 20, 64 << 20)


def _fallback_retained(src: str) -> int:
    """What a `regex` module pattern holds: its compiled code, a few dozen bytes a character."""
    return 4096 + 48 * len(src)


def _re2_compile(core: _Core, src: str, posix: bool, icase: bool) -> Any:
    """The RE2 object for src, or None when RE2 cannot take the pattern; sets core.retained."""
    for max_mem in RE2_MEM:
        r = _re2.RE2(src.encode("utf-8", "surrogateescape"), _re2_options(posix, icase, max_mem))
        if r.ok():
            core.retained = max_mem + 2 * len(src)
            return r
    return None


def _is_plain(p: str) -> bool:
    """Is `p` literal text in every POSIX flavor (printable ASCII, nothing special)?"""
    return bool(p) and p.isascii() and p.isprintable() and _SPECIAL.isdisjoint(p)


_PLAIN_TABLES: dict[str, dict[int, str]] = {}


def _plain_source(p: str, target: str) -> str:
    """What the emitter writes for the plain pattern `p` (see _is_plain)."""
    table = _PLAIN_TABLES.get(target)
    if table is None:
        table = _PLAIN_TABLES[target] = {cp: esc(cp, target) for cp in range(0x20, 0x7F)}
    return p.translate(table)


def _check(budget: Budget | None, work: int) -> None:
    if budget is not None:
        budget.checkpoint(work)
        budget.check_time()


def _build(
    patterns: tuple[str, ...],
    flavor: str,
    icase: bool,
    multiline: bool,
    line_mode: bool,
    dialect: str,
    wrap: str,
    budget: Budget | None = None,
    c_locale: bool = False,
) -> _Core:
    core = _Core()
    nl = "lines" if line_mode else ("reg_newline" if multiline else "none")
    if flavor == "pcre":
        return _build_pcre(core, patterns, icase, multiline, line_mode, wrap)
    if flavor not in FLAVORS:
        raise ValueError(f"unknown regex flavor {flavor!r}")
    # Parse each pattern (a plain one stays text: many grep -f patterns are words);
    # a long list is checked against the deadline as it goes.
    nodes: list[Any] = []
    total = 0
    warnings: list[str] = []
    many = len(patterns) > COMPILE_CHECK_EVERY
    work = 0
    for k, p in enumerate(patterns):
        if many and k % COMPILE_CHECK_EVERY == 0:
            _check(budget, work + 1)
            work = 0
        work += len(p)
        if _is_plain(p):
            nodes.append(p)
            continue
        node, ng, warns, _ = parse(p, flavor, dialect)
        nodes.append(shift_groups(node, total))
        total += ng
        warnings.extend(warns)
    core.groups = total
    core.warnings = tuple(warnings)
    goff = 1 if wrap == "word" else 0
    core.shift = wrap == "word"
    bounded: list[bool] = []
    for target in ("re2", "regex"):
        try:
            body = _emit_all(nodes, target, nl, goff, budget, bounded if target == "re2" else None, c_locale)
        except NeedFallback:
            continue
        if target == "regex" and len(body) > MAX_FALLBACK_SOURCE:
            raise RegexError(E.TOO_BIG)
        src = _wrap(body, target, nl, wrap, c_locale)
        if target == "re2":
            prefix = "(?m)" if nl != "none" else "(?s)"
            try:
                core.re2 = _re2_compile(core, prefix + src, True, icase)
            except Exception:
                continue
            if core.re2 is None:
                continue
            core.source = prefix + src
            if bounded or wrap == "word":
                # RE2's word boundaries know only ASCII letters: a subject that is not ASCII
                # goes to the fallback engine's form of the pattern, compiled on first need (a
                # form too big for the fallback keeps RE2's reading); -w's word test alone
                # needs it only for a subject with an invalid byte
                uni = _wrap(
                    _emit_all(nodes, "regex", nl, goff, budget, None, c_locale), "regex", nl, wrap, c_locale
                )
                if len(uni) <= MAX_FALLBACK_SOURCE:
                    core.bounded = (uni, nl, icase)
                    core.invalid_only = not bounded
            return core
        core.rx = _rx_compile(src, nl, icase)
        core.source = src
        core.retained = _fallback_retained(src)
        return core
    raise RegexError(E.INVALID)  # pragma: no cover


def _rx_compile(src: str, nl: str, icase: bool) -> Any:
    import regex as _rx  # the fallback engine: imported on first use, not at start-up

    flags = _rx.POSIX | _rx.V0
    flags |= _rx.MULTILINE if nl != "none" else _rx.DOTALL
    if icase:
        flags |= _rx.IGNORECASE
    try:
        return _rx.compile(src, flags, cache_pattern=False)  # our cache is the bounded one
    except Exception as e:  # pragma: no cover - an emitter bug
        raise RegexError(E.INVALID) from e


def _emit_all(
    nodes: list[Any],
    target: str,
    nl: str,
    goff: int,
    budget: Budget | None,
    bounded: list[bool] | None = None,
    c_locale: bool = False,
) -> str:
    """The patterns (parsed nodes, or plain text) as one alternation in `target` syntax
    (`bounded`, `c_locale`: see emit)."""
    if len(nodes) == 1:
        n = nodes[0]
        return (
            _plain_source(n, target) if isinstance(n, str) else emit(n, target, nl, goff, bounded, c_locale)
        )
    many = len(nodes) > COMPILE_CHECK_EVERY
    parts: list[str] = []
    size = 0
    for k, n in enumerate(nodes):
        if many and k % COMPILE_CHECK_EVERY == 0:
            _check(budget, COMPILE_CHECK_EVERY)
            if target == "regex" and size > MAX_FALLBACK_SOURCE:
                raise RegexError(E.TOO_BIG)
        part = (
            _plain_source(n, target) if isinstance(n, str) else emit(n, target, nl, goff, bounded, c_locale)
        )
        size += len(part) + 1
        parts.append(part)
    return "(?:" + "|".join(parts) + ")"


def _wrap(body: str, target: str, nl: str, wrap: str, c_locale: bool = False) -> str:
    if wrap == "line":
        end = "$" if (nl != "none" or target == "re2") else "\\Z"
        return "^(?:" + body + ")" + end
    if wrap == "word":
        end = "$" if (nl != "none" or target == "re2") else "\\Z"
        word = "0-9A-Za-z_" if c_locale else "\\p{L}\\p{Nd}_"
        nw = f"[^{word}\\n]" if nl != "none" else f"[^{word}]"
        return "(?:^|" + nw + ")(" + body + ")(?:" + nw + "|" + end + ")"
    return body


_PCRE_WORD = "[\\p{L}\\p{Nd}_]"


def _pcre_numbers_groups(p: str) -> bool:
    """Whether a PCRE pattern names a group by its number (\\1, \\g1, \\g{-1}, \\k<n>, (?1),
    (?R), (?&n), (?P=n), (?P>n)), so an extra capturing group around it would change it."""
    i, n = 0, len(p)
    while i < n - 1:
        c = p[i]
        if c == "\\":
            if p[i + 1] in "123456789gk":
                return True
            i += 2
            continue
        if c == "(" and p[i + 1] == "?" and i + 2 < n:
            d = p[i + 2]
            if d in "R&+-0123456789" or p.startswith(("P=", "P>"), i + 2):
                return True
        i += 1
    return False


def _pcre_backref(p: str, i: int, groups: int) -> tuple[str, int] | None:
    """The `regex` module's spelling of the PCRE back-reference at p[i] (`\\g` or `\\k`) and
    where it ends; PCRE2's error for a malformed or impossible one."""
    d = p[i + 1]
    j = i + 2
    closing = {"{": "}", "<": ">", "'": "'"}
    call = False
    if j < len(p) and p[j] in closing:
        call = d == "g" and p[j] != "{"  # \\g<N>, \\g'name': Oniguruma's subroutine call, as (?N)
        end = p.find(closing[p[j]], j + 1)
        if end < 0:
            raise RegexError("syntax error in subpattern name (missing terminator?)")
        name = p[j + 1 : end]
        j = end + 1
    elif d == "g":
        k = j + (1 if p[j : j + 1] in ("-", "+") else 0)
        while k < len(p) and p[k].isdigit():
            k += 1
        name = p[j:k]
        j = k
    else:
        raise RegexError(_PCRE_BAD_REF[d])
    if name.lstrip("-+").isdigit():
        number = int(name)
        if number < 0:
            number = groups + 1 + number  # \\g{-1}: the group opened last
        if call:
            return f"(?{number})", j
        if number <= 0 or name.startswith("+"):  # \\g+N is a subroutine call, never a back-reference
            raise RegexError("reference to non-existent subpattern")
        return f"\\g<{number}>", j
    if name and (name[0].isalpha() or name[0] == "_") and all(ch.isalnum() or ch == "_" for ch in name):
        return (f"(?&{name})" if call else f"(?P={name})"), j
    raise RegexError(_PCRE_BAD_REF[d])


_PCRE_BAD_REF = {
    "g": "\\g is not followed by a braced, angle-bracketed, or quoted name/number or by a plain number",
    "k": "\\k is not followed by a braced, angle-bracketed, or quoted name",
}


def _pcre_fix_for_regex(p: str) -> str:
    """PCRE spellings the `regex` module lacks or reads otherwise: \\x{HHHH}, \\h, \\z, \\Q...\\E
    (quoted text), `{,N}` (PCRE2 10.42: a literal brace, not a quantifier) and the Perl/PCRE
    back-reference spellings \\gN, \\g{N}, \\g{-N}, \\g{name}, \\k<name>, \\k'name', \\k{name}."""
    out: list[str] = []
    i = 0
    n = len(p)
    groups = 0  # capturing groups opened so far (what a relative \\g{-N} counts back from)
    in_class = False
    while i < n:
        c = p[i]
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            if p.startswith(("[^]", "[]"), i):  # a leading ] is a member
                out.append(p[i : i + (3 if p[i + 1] == "^" else 2)])
                i += 3 if p[i + 1] == "^" else 2
                continue
        elif c == "(" and (not p.startswith("(?", i) or p.startswith(("(?<", "(?P<", "(?'"), i)):
            if not p.startswith(("(?<=", "(?<!"), i):
                groups += 1
        if c == "{" and p.startswith("{,", i):
            out.append("\\{")
            i += 1
            continue
        if c == "\\" and i + 1 < n and not in_class and p[i + 1] in "gk":
            ref = _pcre_backref(p, i, groups)
            if ref is not None:
                out.append(ref[0])
                i = ref[1]
                continue
        if c == "\\" and i + 1 < n:
            d = p[i + 1]
            if d == "Q":
                end = p.find("\\E", i + 2)
                end = n if end < 0 else end
                out.extend("\\" + ch if not ch.isalnum() else ch for ch in p[i + 2 : end])
                i = end + 2
                continue
            if d == "x" and i + 2 < n and p[i + 2] == "{":
                close = p.find("}", i + 3)
                if close > 0:
                    try:
                        cp = int(p[i + 3 : close], 16)
                        out.append(f"\\U{cp:08x}")
                        i = close + 1
                        continue
                    except ValueError:
                        pass
            if d == "h":
                out.append("[ \\t]")
                i += 2
                continue
            if d == "z":
                out.append("\\Z")
                i += 2
                continue
            out.append(p[i : i + 2])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _build_pcre(
    core: _Core, patterns: tuple[str, ...], icase: bool, multiline: bool, line_mode: bool, wrap: str
) -> _Core:
    core.posix = False
    body = "|".join("(?:" + p + ")" for p in patterns) if len(patterns) > 1 else patterns[0]
    nl = "lines" if line_mode else ("reg_newline" if multiline else "none")
    if wrap == "word" and _pcre_numbers_groups(body):
        # the capturing wrapper would take group 1 from the user's `(\w)\1`: GNU grep -P -w wraps
        # the pattern in lookarounds, which capture nothing (the `regex` fallback runs them)
        core.shift = False
        src = f"(?<!{_PCRE_WORD})(?:{body})(?!{_PCRE_WORD})"
    else:
        core.shift = wrap == "word"
        src = _wrap(body, "re2", nl, wrap)
    prefix = "(?m)" if (multiline or line_mode) else ""
    try:
        r = _re2_compile(core, prefix + src, False, icase)
        if r is not None:
            core.re2 = r
            core.groups = r.NumberOfCapturingGroups() - (1 if core.shift else 0)
            core.source = prefix + src
            return core
    except Exception:
        pass
    rsrc = _pcre_fix_for_regex(src)
    if len(rsrc) > MAX_FALLBACK_SOURCE:
        raise RegexError(E.TOO_BIG)
    import regex as _rx  # the fallback engine: imported on first use, not at start-up

    flags = _rx.V1 if False else _rx.V0
    if multiline or line_mode:
        flags |= _rx.MULTILINE
    if icase:
        flags |= _rx.IGNORECASE
    try:
        core.rx = _rx.compile(rsrc, flags, cache_pattern=False)  # our cache is the bounded one
        core.retained = _fallback_retained(rsrc)
    except _rx.error as e:
        raise RegexError(_pcre_message(str(e))) from e
    except Exception as e:
        raise RegexError(E.INVALID) from e
    core.groups = core.rx.groups - (1 if core.shift else 0)
    core.source = rsrc
    return core


def _pcre_message(msg: str) -> str:
    if "missing )" in msg or "missing ), unterminated subpattern" in msg:
        return "missing closing parenthesis"
    if "unbalanced parenthesis" in msg:
        return "unmatched closing parenthesis"
    if "unterminated character set" in msg:
        return "missing terminating ] for character class"
    if "nothing to repeat" in msg:
        return "quantifier does not follow a repeatable item"
    if "invalid group reference" in msg or "unknown group" in msg:
        return "reference to non-existent subpattern"
    return msg


# shared by every run of the process: bounded in entries and pattern text (T-TEN-5)
_CACHE: TextLRU[tuple[Any, ...], _Core] = TextLRU(512, retained=RETAINED_MAX)


def _core(
    patterns: tuple[str, ...],
    flavor: str,
    icase: bool,
    multiline: bool,
    line_mode: bool,
    dialect: str,
    wrap: str,
    budget: Budget | None,
    c_locale: bool = False,
) -> _Core:
    """The compiled core for these arguments, from a small LRU cache (building a new
    one is charged to `budget`, which is not part of the key)."""
    key = (patterns, flavor, icase, multiline, line_mode, dialect, wrap, c_locale)
    core = _CACHE.get(key)
    if core is None:
        core = _build(patterns, flavor, icase, multiline, line_mode, dialect, wrap, budget, c_locale)
        _CACHE.put(key, sum(map(len, patterns)), core, core.retained)
    return core


class Match:
    """One match: spans are in the subject's own units (bytes or characters)."""

    __slots__ = ("_spans", "endpos", "pos", "re", "string")

    def __init__(
        self, regex: Regex, string: Any, spans: list[tuple[int, int]], pos: int, endpos: int
    ) -> None:
        self.re = regex
        self.string = string
        self._spans = spans
        self.pos = pos
        self.endpos = endpos

    def _span(self, g: int) -> tuple[int, int]:
        try:
            return self._spans[g]
        except IndexError:
            raise IndexError("no such group") from None

    def start(self, g: int = 0) -> int:
        return self._span(g)[0]

    def end(self, g: int = 0) -> int:
        return self._span(g)[1]

    def span(self, g: int = 0) -> tuple[int, int]:
        return self._span(g)

    def group(self, *gs: int) -> Any:
        if not gs:
            gs = (0,)
        out = []
        for g in gs:
            s, e = self._span(g)
            out.append(None if s < 0 else self.string[s:e])
        return out[0] if len(out) == 1 else tuple(out)

    def __getitem__(self, g: int) -> Any:
        return self.group(g)

    def groups(self, default: Any = None) -> tuple[Any, ...]:
        out = []
        for s, e in self._spans[1:]:
            out.append(default if s < 0 else self.string[s:e])
        return tuple(out)

    def spans(self) -> list[tuple[int, int]]:
        """Every group's span, group 0 first; (-1, -1) for a group that did not take part."""
        return list(self._spans)

    def __repr__(self) -> str:
        return f"<sandbash.regex.Match span={self._spans[0]} match={self.group(0)!r}>"


def _plain_bytes(subject: Any, invalid_only: bool) -> bool:
    """Whether RE2 reads a bytes subject as the pattern means: ASCII, or (invalid_only) valid UTF-8."""
    ascii_ = bytes(subject).isascii() if type(subject) is memoryview else subject.isascii()
    return ascii_ or (invalid_only and valid_utf8(subject))


class Regex:
    """A compiled pattern. Cheap to create: the compiled engine is shared."""

    __slots__ = ("_asc", "_budget", "_core", "_text", "flavor", "icase", "multiline", "pattern")

    def __init__(
        self,
        core: _Core,
        pattern: str | Sequence[str],
        flavor: str,
        icase: bool,
        multiline: bool,
        budget: Budget | None,
    ) -> None:
        self._core = core
        self._budget = budget
        self._asc: tuple[Any, bool] | None = None  # (_uni_for: the last long subject, is it ASCII)
        # (_run_uni: [subject, its text, a byte offset and its character, an end and its character])
        self._text: list[Any] | None = None
        self.pattern = pattern
        self.flavor = flavor
        self.icase = icase
        self.multiline = multiline

    # ---------------------------------------------------------------- info
    @property
    def groups(self) -> int:
        return self._core.groups

    @property
    def warnings(self) -> tuple[str, ...]:
        return self._core.warnings

    @property
    def engine(self) -> str:
        """'re2' or 'regex' (the backtracking fallback, with a timeout)."""
        return "re2" if self._core.re2 is not None else "regex"

    @property
    def source(self) -> str:
        """The translated pattern handed to the engine (for debugging)."""
        return self._core.source

    @property
    def retained(self) -> int:
        """Bytes the compiled pattern may hold, for the callers' own bounded caches."""
        return self._core.retained

    def with_budget(self, budget: Budget | None) -> Regex:
        return Regex(self._core, self.pattern, self.flavor, self.icase, self.multiline, budget)

    # ---------------------------------------------------------------- matching
    def _run(
        self,
        anchor: Any,
        subject: Any,
        pos: int,
        endpos: int | None,
        converted: tuple[Any, bool] | None = None,
        hint: list[int] | None = None,
    ) -> Match | None:
        """`converted`: the subject already encoded (str, for RE2) or decoded (bytes, for the
        fallback engine) by the caller, with its is-ASCII flag."""
        core = self._core
        if core.re2 is not None:
            if core.bounded is not None:
                uni = self._uni_for(subject, converted)
                if uni is not None:
                    if type(subject) is str:
                        return self._run_rx(anchor, subject, pos, endpos, None, uni)
                    return self._run_uni(anchor, subject, pos, endpos, uni)
            if isinstance(subject, str):
                return self._run_re2_str(anchor, subject, pos, endpos, converted, hint)
            n = len(subject)
            end = n if endpos is None or endpos > n else endpos
            if pos < 0:
                pos = 0
            if pos > end:
                return None
            spans = core.re2.Match(anchor, subject, pos, end)
            if spans[0][0] < 0:
                return None
            if core.shift:
                spans = spans[1:]
            return Match(self, subject, spans, pos, end)
        return self._run_rx(anchor, subject, pos, endpos, converted)

    def _uni_for(self, subject: Any, converted: tuple[Any, bool] | None) -> Any:
        """The fallback form of a pattern with word boundaries when `subject` is not ASCII (RE2's
        \\b would take its letters for non-word characters), of a -w pattern when it is not valid
        UTF-8 (invalid_only), else None. A long subject's answer is remembered for the loop of
        searches that follows (grep's over one buffer)."""
        core = self._core
        if converted is not None:
            plain = converted[1] or (core.invalid_only and valid_utf8(subject))
        elif type(subject) is str:
            plain = core.encode(subject)[1] or (core.invalid_only and valid_utf8(subject))
        elif len(subject) <= MEMO_MAX:
            plain = _plain_bytes(subject, core.invalid_only)
        else:
            memo = self._asc
            if memo is not None and memo[0] is subject:
                plain = memo[1]
            else:
                plain = _plain_bytes(subject, core.invalid_only)
                self._asc = (subject, plain)
        return None if plain else core.uni()

    def _run_uni(self, anchor: Any, subject: Any, pos: int, endpos: int | None, rx: Any) -> Match | None:
        """A bytes subject that is not ASCII, searched with the fallback form of a pattern with
        word boundaries. The subject is decoded once for a loop of searches over it (grep's over
        its buffer, s///g's over a line), and byte offsets are counted from the last search's
        rather than from 0, so the loop stays linear."""
        memo = self._text
        if memo is None or memo[0] is not subject:
            raw = bytes(subject)
            memo = self._text = [subject, raw.decode("utf-8", "surrogateescape"), 0, 0, -1, 0]
        text: str = memo[1]
        n = len(subject)
        end = n if endpos is None or endpos > n else endpos
        if pos < 0:
            pos = 0
        if pos > end:
            return None
        cpos = _chars_to(subject, memo, pos)
        if end == n:
            cend = len(text)
        elif end == memo[4]:  # (a loop's searches share their end)
            cend = memo[5]
        else:
            cend = cpos + len(bytes(subject[pos:end]).decode("utf-8", "surrogateescape"))
            memo[4], memo[5] = end, cend
        m = self._run_rx_text(anchor, text, cpos, cend, rx)
        if m is None:
            return None
        spans = []
        for s_, e_ in (m.span(g) for g in range(rx.groups + 1)):
            if s_ < 0:
                spans.append(_NULL)
                continue
            bs = pos + len(text[cpos:s_].encode("utf-8", "surrogateescape"))
            spans.append((bs, bs + len(text[s_:e_].encode("utf-8", "surrogateescape"))))
        if self._core.shift:
            spans = spans[1:]
        return Match(self, subject, spans, pos, end)

    def _run_rx_text(self, anchor: Any, text: str, cpos: int, cend: int, rx: Any) -> Any:
        """rx's search, match or fullmatch of `text` between two character offsets, under the
        deadline (_call_rx)."""
        fn = rx.search if anchor is _UNANCHORED else rx.match if anchor is _ANCHOR_START else rx.fullmatch
        start = time.monotonic()
        budget = self._budget
        if budget is None or budget.deadline - start > 2 * FIRST_SLICE:
            try:
                return fn(text, cpos, cend, timeout=FIRST_SLICE)
            except TimeoutError:
                return self._call_rx(fn, text, cpos, cend, start, FIRST_SLICE)
        return self._call_rx(fn, text, cpos, cend, start, 0.0)

    def _run_re2_str(
        self,
        anchor: Any,
        subject: str,
        pos: int,
        endpos: int | None,
        converted: tuple[Any, bool] | None = None,
        hint: list[int] | None = None,
    ) -> Match | None:
        """`hint`: [character, byte] offsets of a position in the subject, kept by a search loop."""
        core = self._core
        b, ascii_ = converted if converted is not None else core.encode(subject)
        n = len(subject)
        end = n if endpos is None or endpos > n else endpos
        if pos < 0:
            pos = 0
        if pos > end:
            return None
        if ascii_:
            spans = core.re2.Match(anchor, b, pos, end)
            if spans[0][0] < 0:
                return None
            if core.shift:
                spans = spans[1:]
            return Match(self, subject, spans, pos, end)
        if hint is not None and 0 < hint[0] <= pos:
            # a loop of searches: count characters from where the last one was, not from 0
            bpos = hint[1] + _re2.CharLenToBytes(b, hint[1], pos - hint[0])
        else:
            bpos = _re2.CharLenToBytes(b, 0, pos) if pos else 0
        if hint is not None:
            hint[0], hint[1] = pos, bpos
        bend = len(b) if end == n else bpos + _re2.CharLenToBytes(b, bpos, end - pos)
        raw = core.re2.Match(anchor, b, bpos, bend)
        if raw[0][0] < 0:
            return None
        if core.shift:
            raw = raw[1:]
        offsets = sorted({o for sp in raw for o in sp if o >= 0})
        conv = {}
        last_b, last_c = bpos, pos
        for o in offsets:
            if o >= last_b:
                last_c += _re2.BytesToCharLen(b, last_b, o)
            else:  # pragma: no cover - offsets are sorted
                last_c = _re2.BytesToCharLen(b, 0, o)
            last_b = o
            conv[o] = last_c
        spans = [(conv[s], conv[e]) if s >= 0 else _NULL for s, e in raw]
        return Match(self, subject, spans, pos, end)

    def _call_rx(self, fn: Any, text: str, cpos: int, cend: int, start: float, given: float) -> Any:
        """fn(text, cpos, cend) on the `regex` module, bounded by the deadline (see FIRST_SLICE):
        the slices after a first one of `given` seconds started at `start` (0: none yet)."""
        budget = self._budget
        deadline = start + DEFAULT_TIMEOUT if budget is None else budget.deadline
        cpu_slice = FIRST_SLICE
        share = 0.5
        while True:
            if given:
                # the slice used `given` seconds of CPU: its share of the wall clock it took
                now = time.monotonic()
                if now > start:
                    share = min(1.0, max(0.02, given / (now - start)))
                start = now
                cpu_slice = 4 * given
                if budget is not None:
                    budget.check_time()  # cancellation
            left = deadline - start
            if left <= 0:
                if budget is None:
                    raise LimitExceeded(LimitKind.TIMEOUT, DEFAULT_TIMEOUT)
                budget.check_time()  # the run's timeout, or a sub-command's own deadline
                raise LimitExceeded(LimitKind.TIMEOUT, budget.limits.timeout)
            given = max(MIN_SLICE, min(cpu_slice, left * share))
            try:
                return fn(text, cpos, cend, timeout=given)
            except TimeoutError:
                pass

    def _run_rx(
        self,
        anchor: Any,
        subject: Any,
        pos: int,
        endpos: int | None,
        converted: tuple[Any, bool] | None = None,
        rx: Any = None,
    ) -> Match | None:
        """`rx`: the compiled fallback pattern (the core's own, or its form for a subject that
        is not ASCII: _uni_for)."""
        core = self._core
        if rx is None:
            rx = core.rx
        is_bytes = not isinstance(subject, str)
        if is_bytes:
            text, ascii_ = converted if converted is not None else core.decode(bytes(subject))
        else:
            text, ascii_ = subject, True
        n = len(subject)
        end = n if endpos is None or endpos > n else endpos
        if pos < 0:
            pos = 0
        if pos > end:
            return None
        cpos, cend = pos, end
        if is_bytes and not ascii_:
            cpos = len(bytes(subject[:pos]).decode("utf-8", "surrogateescape"))
            cend = len(bytes(subject[:end]).decode("utf-8", "surrogateescape"))
        fn = rx.search if anchor is _UNANCHORED else rx.match if anchor is _ANCHOR_START else rx.fullmatch
        # the first slice inline (most matches take microseconds); _call_rx for the rest
        start = time.monotonic()
        budget = self._budget
        if budget is None or budget.deadline - start > 2 * FIRST_SLICE:
            try:
                m = fn(text, cpos, cend, timeout=FIRST_SLICE)
            except TimeoutError:
                m = self._call_rx(fn, text, cpos, cend, start, FIRST_SLICE)
        else:
            m = self._call_rx(fn, text, cpos, cend, start, 0.0)
        if m is None:
            return None
        spans = [m.span(g) for g in range(rx.groups + 1)]
        if core.shift:
            spans = spans[1:]
        if is_bytes and not ascii_:

            def cb(c: int) -> int:
                return -1 if c < 0 else len(text[:c].encode("utf-8", "surrogateescape"))

            spans = [(cb(s), cb(e)) for s, e in spans]
        return Match(self, subject, spans, pos, end)

    def search(self, subject: Any, pos: int = 0, endpos: int | None = None) -> Match | None:
        """The leftmost match at or after `pos` (leftmost-longest for POSIX flavors)."""
        return self._run(_UNANCHORED, subject, pos, endpos)

    def search_start(self, subject: bytes, pos: int = 0, endpos: int | None = None) -> int:
        """Where `search(subject, pos, endpos)` would start its match, or -1: a search loop
        that needs only the position (grep finding the next matching line) builds no Match,
        which costs as much as RE2's own call when matches are dense."""
        core = self._core
        r = core.re2
        if r is None or (core.bounded is not None and self._uni_for(subject, None) is not None):
            m = self._run(_UNANCHORED, subject, pos, endpos)
            return -1 if m is None else m._spans[0][0]
        n = len(subject)
        end = n if endpos is None or endpos > n else endpos
        if pos < 0:
            pos = 0
        if pos > end:
            return -1
        spans = r.Match(_UNANCHORED, subject, pos, end)
        # a wrapped pattern (grep -w) reports the word, its group 1
        return int(spans[1][0] if core.shift and spans[0][0] >= 0 else spans[0][0])

    def match(self, subject: Any, pos: int = 0, endpos: int | None = None) -> Match | None:
        """A match starting exactly at `pos`."""
        return self._run(_ANCHOR_START, subject, pos, endpos)

    def fullmatch(self, subject: Any, pos: int = 0, endpos: int | None = None) -> Match | None:
        return self._run(_ANCHOR_BOTH, subject, pos, endpos)

    def test(self, subject: Any, pos: int = 0) -> bool:
        return self._run(_UNANCHORED, subject, pos, None) is not None

    def finditer(self, subject: Any, pos: int = 0, endpos: int | None = None) -> Iterator[Match]:
        """Successive matches as GNU sed's s///g and awk's gsub see them: after
        a match, an empty match right where it ended is skipped."""
        n = len(subject)
        end = n if endpos is None or endpos > n else endpos
        is_str = isinstance(subject, str)
        prev_end = -1
        converted = self._convert_once(subject)
        hint = [0, 0]
        while pos <= end:
            m = self._run(_UNANCHORED, subject, pos, end, converted, hint)
            if m is None:
                return
            s, e = m._spans[0]
            if s == e:
                if s == prev_end:
                    if s >= end:
                        return
                    pos = s + (1 if is_str else _utf8_len(subject, s))
                    continue
                yield m
                prev_end = e
                if s >= end:
                    return
                pos = s + (1 if is_str else _utf8_len(subject, s))
                continue
            yield m
            prev_end = e
            pos = e

    def searcher(self, subject: Any) -> Callable[[int], Match | None]:
        """`search(subject, pos)` for a loop of searches of one subject at rising positions, as a
        caller's own loop needs (ed's s///g): a long subject is converted once, not per search
        (quadratic), and a position is counted on from the last search's."""
        converted = self._convert_once(subject)
        hint = [0, 0]

        def search(pos: int) -> Match | None:
            return self._run(_UNANCHORED, subject, pos, None, converted, hint)

        return search

    def _convert_once(self, subject: Any) -> tuple[Any, bool] | None:
        """A long subject converted once for a loop of searches (the core remembers short ones)."""
        if len(subject) <= MEMO_MAX:
            return None
        core = self._core
        if core.re2 is not None:
            if isinstance(subject, str):
                return subject.encode("utf-8", "surrogateescape"), subject.isascii()
            return None  # (bytes: RE2 reads them as they are; _run_uni decodes its own once)
        if isinstance(subject, str):
            return None
        raw = bytes(subject)
        return raw.decode("utf-8", "surrogateescape"), raw.isascii()

    def spans(self, subject: bytes, pos: int = 0, endpos: int | None = None) -> Iterator[tuple[int, int]]:
        """The spans of `finditer`'s matches, without a Match each: a loop of RE2 calls over bytes
        (sed's s///g with a plain replacement, where matches are as many as the characters)."""
        core = self._core
        r = core.re2
        if (
            r is None
            or not isinstance(subject, bytes)
            or (core.bounded is not None and not subject.isascii())
        ):
            for m in self.finditer(subject, pos, endpos):
                yield m.span()
            return
        n = len(subject)
        end = n if endpos is None or endpos > n else endpos
        g = 1 if core.shift else 0
        match = r.Match
        prev_end = -1
        while pos <= end:
            spans = match(_UNANCHORED, subject, pos, end)
            if spans[0][0] < 0:
                return
            s, e = spans[g]
            if s == e:
                if s != prev_end:
                    yield s, e
                    prev_end = e
                if s >= end:
                    return
                pos = s + _utf8_len(subject, s)
                continue
            yield s, e
            prev_end = pos = e

    def findall_spans(self, subject: Any, pos: int = 0) -> list[tuple[int, int]]:
        return [m._spans[0] for m in self.finditer(subject, pos)]

    def __repr__(self) -> str:
        return f"<sandbash.regex.Regex {self.flavor} {self.pattern!r} via {self.engine}>"


def _chars_to(subject: Any, memo: list[Any], pos: int) -> int:
    """The character offset of byte `pos` of `subject` (whose decoded text is memo[1]), counted
    on from the last offset asked (memo[2], its character memo[3]) when `pos` is not before it."""
    b0, c0 = (memo[2], memo[3]) if pos >= memo[2] else (0, 0)
    c = c0 + len(bytes(subject[b0:pos]).decode("utf-8", "surrogateescape"))
    memo[2], memo[3] = pos, c
    return c


def _utf8_len(b: Any, i: int) -> int:
    """Length of the UTF-8 character starting at byte i (1 for a stray byte)."""
    c = b[i]
    if c < 0xC0:
        return 1
    k = 2 if c < 0xE0 else 3 if c < 0xF0 else 4
    n = len(b)
    j = 1
    while j < k and i + j < n and 0x80 <= b[i + j] < 0xC0:
        j += 1
    return j


def compile_regex(
    pattern: str | Sequence[str],
    flavor: str = "bre",
    icase: bool = False,
    multiline: bool = False,
    *,
    dialect: str = "glibc",
    line_mode: bool = False,
    whole: str = "",
    budget: Budget | None = None,
    c_locale: bool = False,
) -> Regex:
    """Compile a pattern (or a list of alternatives, as grep -e p1 -e p2).

    See the package docstring for the meaning of each argument."""
    patterns = (pattern,) if isinstance(pattern, str) else tuple(pattern)
    if not patterns:
        raise ValueError("no pattern")
    if flavor == "awk" and dialect == "glibc":
        dialect = "awk"
    core = _core(
        patterns, flavor, bool(icase), bool(multiline), bool(line_mode), dialect, whole, budget, c_locale
    )
    return Regex(core, pattern, flavor, bool(icase), bool(multiline), budget)
