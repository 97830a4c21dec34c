"""The shared safe regular-expression layer (POSIX BRE/ERE, PCRE, awk) on RE2.

Every command that takes a user's regular expression (grep, sed, awk, expr,
find -regex, bash's `=~`, ...) compiles it here. Patterns are translated onto
google-re2, which runs in linear time; only what RE2 cannot express
(back-references, `\\<`/`\\>` where they cannot be rewritten as `\\b`, counts
over 1000, PCRE look-around) falls back to the `regex` module, always with a
timeout taken from the caller's budget. Stdlib `re` is never used on user
patterns.

API
---
``compile_regex(pattern, flavor="bre", icase=False, multiline=False, *,
dialect="glibc", line_mode=False, whole="", budget=None, c_locale=False) -> Regex``

- ``pattern``: a str, or a sequence of str meaning alternatives (grep's
  several -e patterns; each keeps its own back-references).
- ``flavor``: "bre" (POSIX basic + GNU extensions), "ere" (extended + GNU),
  "pcre" (Perl syntax, leftmost-first), "awk" (ERE with awk's escapes in
  regex literals: \\/ \\" \\n \\t \\ddd ..., and gawk's \\y \\< \\> \\s \\w).
  Dynamic awk regexes are passed after awk's string-escape processing.
- ``icase``: case-insensitive.
- ``multiline``: POSIX REG_NEWLINE (sed's M flag): `^`/`$` also match around
  embedded newlines and `.`/`[^x]` do not match a newline. Without it `.`
  matches a newline and `^`/`$` match only at the subject's ends.
- ``dialect``: "glibc" (regcomp rules: sed, expr, find), "grep" (GNU grep's
  more lenient rules and warnings), "sed" (glibc plus sed's escape
  conversion of \\n \\t \\dNNN \\oNNN \\xHH \\cX before compiling).
- ``line_mode``: the subject is a buffer of newline-terminated lines (grep
  searching whole chunks): like multiline, and no construct matches a
  newline, so a match never spans lines.
- ``whole``: "" / "line" (grep -x) / "word" (grep -w: the match must be
  delimited by non-word characters or line ends; group 0 is the word).
- ``budget``: a ``limits.Budget``; the fallback engine runs in CPU-time
  slices cut to the wall time left before its deadline
  (``LimitExceeded("timeout")`` when it runs out, ``DeadlineExpired`` for a
  sub-command's own deadline), and compiling a long list of patterns is
  checked against it. Without one, the fallback gets 10 s.
  ``Regex.with_budget(b)`` rebinds a compiled pattern cheaply. A fallback
  pattern over 128 KB is refused ("Regular expression too big").
- ``c_locale``: the C/POSIX locale's character classes (ASCII alone: `[[:alpha:]]`, `\\w`, word
  boundaries) for the POSIX flavors. The caller hands the subject and pattern over one character a
  byte (bash's `=~` under LC_ALL=C: each byte >= 0x80 a private-use character, in no class and
  with no case).

POSIX flavors use leftmost-longest matching (RE2 longest_match; group spans
agree with glibc on the usual cases); "pcre" uses leftmost-first.

``Regex``: ``search/match/fullmatch(subject, pos=0, endpos=None) -> Match |
None``; ``finditer(subject, pos=0, endpos=None)`` (GNU s///g semantics: an
empty match right after a match is skipped); ``test(subject)``; ``groups``
(number of capturing groups); ``warnings`` (grep's "* at start of
expression"); ``engine`` ("re2" or "regex"); ``source`` (translated text).
Subjects may be ``str`` or ``bytes``; spans are in the subject's units. Bytes
are read as UTF-8 (invalid bytes match nothing but themselves in
back-references), as GNU tools do in a UTF-8 locale.

``Match``: ``start/end/span(g=0)``, ``group(*gs)``, ``m[g]``,
``groups(default=None)``, ``spans()``, ``string``, ``pos``, ``endpos``, ``re``.

Errors: ``RegexError`` with glibc's wording in ``message`` (e.g. "Unmatched [,
[^, [:, [., or [=", "Invalid back reference", "Unmatched ( or \\\\(");
``kind == "class_syntax"`` for `[:space:]` written without the outer
brackets, which tools report bare ("character class syntax is [[:space:]],
not [:space:]"). Each tool adds its own prefix (``grep: ``, ``sed: -e
expression #1, char 5: ``).
"""

from __future__ import annotations

from codecs import utf_8_decode as _utf_8_decode

# What the process-wide caches of compiled patterns may hold in all (each pattern's RE2 max_mem or
# fallback source, engine.py): a number their users size a cache by without loading the engine
RETAINED_MAX = 256 << 20


def valid_utf8(subject: str | bytes | bytearray | memoryview) -> bool:
    """Whether a subject (bytes, a buffer, or text decoded with surrogateescape) is valid UTF-8:
    GNU tools read an invalid byte as a non-character, so grep and the engine route such subjects
    differently (here, not in engine.py, so grep can ask without loading RE2)."""
    try:
        if isinstance(subject, str):
            subject.encode("utf-8")
        else:
            _utf_8_decode(subject, "strict", True)
    except UnicodeError:
        return False
    return True


TYPE_CHECKING = False
if TYPE_CHECKING:
    from .engine import Match, Regex, compile_regex
    from .errors import RegexError
    from .posix import sed_preprocess
else:
    # the engine (with RE2's module, ~12 M instructions) loads when a name of it is first read: awk
    # imports this package for its bracket scanner and RETAINED_MAX, and a program with no regex
    # (or only literal ones) compiles none
    _HOME = {
        "Match": "engine",
        "Regex": "engine",
        "compile_regex": "engine",
        "RegexError": "errors",
        "sed_preprocess": "posix",
    }

    def __getattr__(name):
        home = _HOME.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(__import__(f"{__name__}.{home}", fromlist=[name]), name)
        globals()[name] = value
        return value


__all__ = [
    "RETAINED_MAX",
    "Match",
    "Regex",
    "RegexError",
    "compile_regex",
    "sed_preprocess",
    "valid_utf8",
]
