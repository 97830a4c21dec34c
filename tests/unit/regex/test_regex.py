"""The shared regex layer: translation of BRE/ERE/PCRE/awk onto RE2, checked
against GNU grep (grep dialect) and GNU sed (glibc dialect) where present."""

from __future__ import annotations

import random

import pytest

import oracle
from realtools import have
from sandbash.limits import Budget, LimitExceeded, Limits
from sandbash.regex import RegexError, compile_regex

ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"}


def _only(pattern: str, subject: str, flavor: str, dialect: str) -> list[str]:
    rx = compile_regex(pattern, flavor, dialect=dialect, line_mode=True)
    return [m.group() for m in rx.finditer(subject) if m.end() > m.start()]


# (flavor, pattern, subject, expected non-empty matches as grep -o prints them)
CASES = [
    ("bre", "a\\{2\\}", "aaaaa", ["aa", "aa"]),
    ("bre", "\\(ab\\)*c", "ababcx", ["ababc"]),
    ("bre", "a\\|ab", "abab", ["ab", "ab"]),
    ("bre", "*a", "x*a", ["*a"]),
    ("bre", "^*", "*a", ["*"]),
    ("bre", "a^b$c", "a^b$c", ["a^b$c"]),
    ("bre", "[]a]*", "]a]b", ["]a]"]),
    ("bre", "[^]a]", "]ab", ["b"]),
    ("bre", "[[:digit:][:upper:]]\\+", "aB12c", ["B12"]),
    ("bre", "\\<w", "word aw wx", ["w", "w"]),
    ("bre", "d\\>", "word dd", ["d", "d"]),
    ("bre", "\\bx\\B.", "xy ax xz", ["xy", "xz"]),
    ("bre", "\\w\\+\\W\\s", "ab, cd", ["ab, "]),
    ("bre", "\\(a\\)\\1", "aaa", ["aa"]),
    ("bre", "[[.-.]a]", "x-a", ["-", "a"]),
    ("bre", "[[=e=]]", "xe", ["e"]),
    ("ere", "a{,2}", "aaaaa", ["aa", "aa", "a"]),
    ("ere", "(a|ab)(c|bcd)", "abcd", ["abcd"]),
    ("ere", "x+?", "xxx", ["xxx"]),
    ("ere", "a{1", "a{1", ["a{1"]),
    ("ere", "a)", "a)", ["a)"]),
    ("ere", "()b|c", "bc", ["b", "c"]),
    ("ere", "é+", "ééa", ["éé"]),
    ("ere", ".", "ñ", ["ñ"]),
    ("ere", "[[:alpha:]]+", "über1", ["über"]),
    ("ere", "x{1001}", "x" * 1001, ["x" * 1001]),
]


@pytest.mark.parametrize("flavor,pattern,subject,expected", CASES)
def test_matches(flavor: str, pattern: str, subject: str, expected: list[str]) -> None:
    assert _only(pattern, subject, flavor, "grep") == expected


def test_groups_leftmost_longest() -> None:
    rx = compile_regex("\\(a*\\)\\(a*\\)", "bre")
    m = rx.search("aaa")
    assert m is not None and m.groups() == ("aaa", "")
    m = compile_regex("(a|ab)(c|bcd)", "ere").search("abcd")
    assert m is not None and m.span(1) == (0, 1) and m.span(2) == (1, 4)
    m = compile_regex("(a)|b", "ere").search("b")
    assert m is not None and m.group(1) is None and m.span(1) == (-1, -1)


def test_pcre_is_leftmost_first() -> None:
    rx = compile_regex("a|ab", "pcre")
    m = rx.search("ab")
    assert m is not None and m.group() == "a"
    assert compile_regex("(?<=a)b", "pcre").search("ab") is not None
    assert compile_regex("\\d+?", "pcre").search("x123").group() == "1"  # type: ignore[union-attr]
    assert compile_regex("(?i)AB", "pcre").search("xab") is not None
    assert compile_regex("(a)\\1", "pcre").search("xaa") is not None


def test_awk_escapes() -> None:
    assert compile_regex("a\\/b", "awk").search("a/b") is not None
    assert compile_regex("\\t", "awk").search("x\ty") is not None
    assert compile_regex("[\\]x]", "awk").search("]") is not None
    assert compile_regex("\\101", "awk").search("A") is not None
    assert compile_regex("\\y", "awk").search("x") is not None


def test_str_and_bytes_subjects_agree() -> None:
    rx = compile_regex("é(.)", "ere")
    ms = rx.search("aébc")
    mb = rx.search("aébc".encode())
    assert ms is not None and mb is not None
    assert ms.span() == (1, 3) and ms.group(1) == "b"
    assert mb.span() == (1, 4) and mb.group(1) == b"b"
    assert [m.span() for m in rx.finditer("éaéb")] == [(0, 2), (2, 4)]


def test_finditer_skips_empty_match_after_match() -> None:
    rx = compile_regex("x*", "bre")
    assert [m.span() for m in rx.finditer("abxd")] == [(0, 0), (1, 1), (2, 3), (4, 4)]


def test_multiline_and_line_mode() -> None:
    assert compile_regex("a.b", "bre").search("a\nb") is not None
    assert compile_regex("a.b", "bre", multiline=True).search("a\nb") is None
    assert compile_regex("^b", "bre", multiline=True).search("a\nb") is not None
    assert compile_regex("^b", "bre").search("a\nb") is None
    assert compile_regex("a[[:space:]]b", "bre", line_mode=True).search("a\nb") is None
    assert compile_regex("a[^x]b", "bre", line_mode=True).search("a\nb") is None


def test_whole_line_and_word() -> None:
    rx = compile_regex("foo", "bre", whole="word", line_mode=True)
    assert [m.span() for m in rx.finditer("foo xfoo foo_ foo")] == [(0, 3), (14, 17)]
    rx = compile_regex("a\\|ab", "bre", whole="line", line_mode=True)
    assert rx.search("ab") is not None and rx.search("abc") is None


ERRORS = [
    ("bre", "glibc", "[a", "Unmatched [, [^, [:, [., or [="),
    ("bre", "glibc", "\\(a", "Unmatched ( or \\("),
    ("bre", "glibc", "a\\)", "Unmatched ) or \\)"),
    ("ere", "glibc", "a)", "Unmatched ) or \\)"),
    ("bre", "glibc", "a\\{1", "Unmatched \\{"),
    ("bre", "glibc", "a\\{1,2,3\\}", "Invalid content of \\{\\}"),
    ("ere", "glibc", "a{2,1}", "Invalid content of \\{\\}"),
    ("ere", "glibc", "a{32768}", "Regular expression too big"),
    ("bre", "glibc", "\\(a\\)\\2", "Invalid back reference"),
    ("bre", "glibc", "a**", "Invalid preceding regular expression"),
    ("ere", "glibc", "*a", "Invalid preceding regular expression"),
    ("bre", "glibc", "[z-a]", "Invalid range end"),
    ("bre", "glibc", "[[:foo:]]", "Invalid character class name"),
    ("bre", "glibc", "[[.ab.]]", "Invalid collation character"),
    ("bre", "glibc", "a\\", "Trailing backslash"),
    ("bre", "grep", "[:alpha:]", "character class syntax is [[:alpha:]], not [:alpha:]"),
]


@pytest.mark.parametrize("flavor,dialect,pattern,message", ERRORS)
def test_errors(flavor: str, dialect: str, pattern: str, message: str) -> None:
    with pytest.raises(RegexError) as info:
        compile_regex(pattern, flavor, dialect=dialect)
    assert info.value.message == message


def test_grep_dialect_is_lenient() -> None:
    rx = compile_regex("*a", "ere", dialect="grep")
    assert rx.warnings == ("* at start of expression",)
    assert compile_regex("a**", "bre", dialect="grep").search("aa") is not None
    assert compile_regex("\\{1", "bre", dialect="grep").search("{1") is not None


def test_sed_dialect_escapes() -> None:
    assert compile_regex("a\\nb", "bre", dialect="sed").search("a\nb") is not None
    assert compile_regex("\\x41\\o102\\d067", "bre", dialect="sed").search("ABC") is not None
    assert compile_regex("[\\n]", "bre", dialect="sed").search("n") is None


def test_backreference_fallback_honours_budget() -> None:
    budget = Budget(Limits(timeout=0.001))
    rx = compile_regex("\\(a*\\)*b\\1", "bre", budget=budget)
    assert rx.engine == "regex"
    import time

    time.sleep(0.01)
    with pytest.raises(LimitExceeded):
        rx.search("a" * 30)


# ---------------------------------------------------------------- differential
def _rand_pattern(r: random.Random, ere: bool) -> str:
    atoms = (
        ["a", "b", ".", "[ab]", "[^a]", "(a|ab)", "(b)*", "\\w", "\\<", "\\>", "^", "$", "x"]
        if ere
        else ["a", "b", ".", "[ab]", "[^a]", "\\(a\\|ab\\)", "\\(b\\)*", "\\w", "\\<", "\\>", "^", "$", "x"]
    )
    ops = (
        ["", "", "*", "+", "?", "{2}", "{1,2}"]
        if ere
        else ["", "", "*", "\\+", "\\?", "\\{2\\}", "\\{1,2\\}"]
    )
    return "".join(r.choice(atoms) + r.choice(ops) for _ in range(r.randint(1, 4)))


@pytest.mark.skipif(not have("grep"), reason="GNU grep not available")
@pytest.mark.parametrize("ere", [False, True])
def test_random_patterns_against_gnu_grep(ere: bool) -> None:
    r = random.Random(7 + ere)
    flavor = "ere" if ere else "bre"
    for _ in range(60):
        p = _rand_pattern(r, ere)
        s = "".join(r.choice("ab x") for _ in range(r.randint(0, 8)))
        proc = oracle.run(
            ["grep", "-o", *(["-E"] if ere else []), "-e", p],
            input=(s + "\n").encode(),
            capture_output=True,
            env=ENV,
        )
        try:
            got = "".join(x + "\n" for x in _only(p, s, flavor, "grep"))
        except RegexError:
            assert proc.returncode == 2, p
            continue
        if proc.returncode == 2:
            continue
        assert got == proc.stdout.decode(), (p, s)


@pytest.mark.skipif(not have("sed"), reason="GNU sed not available")
def test_random_substitutions_against_gnu_sed() -> None:
    r = random.Random(11)
    for _ in range(60):
        p = _rand_pattern(r, True).replace("\\<", "").replace("\\>", "")
        s = "".join(r.choice("ab x") for _ in range(r.randint(0, 8)))
        proc = oracle.run(
            ["sed", "-E", "-n", f"s/{p}/[&]/gp"], input=(s + "\n").encode(), capture_output=True, env=ENV
        )
        try:
            rx = compile_regex(p, "ere", dialect="sed")
        except RegexError:
            assert proc.returncode == 1, p
            continue
        out: list[str] = []
        last = 0
        found = False
        for m in rx.finditer(s):
            found = True
            out.append(s[last : m.start()] + "[" + m.group() + "]")
            last = m.end()
        expected = proc.stdout.decode()
        assert ("".join(out) + s[last:] + "\n" if found else "") == expected, (p, s)


def test_awk_hex_escapes_inside_brackets() -> None:
    from sandbash.regex import compile_regex

    rx = compile_regex("[\\x30-\\x32]", "awk")
    assert [rx.search(c) is not None for c in "0125x"] == [True, True, True, False, False]
    assert compile_regex("[\\x61]", "awk").search("a") is not None


@pytest.mark.parametrize(
    ("pattern", "flavor", "kw"),
    [
        ("x*", "bre", {}),
        ("[0-9]", "bre", {}),
        ("a\\|", "bre", {}),
        ("^", "ere", {"line_mode": True}),
        ("$", "ere", {"line_mode": True}),
        ("b*", "ere", {"line_mode": True}),
        ("\\bw", "ere", {}),
        ("é*", "ere", {}),
        ("ab", "bre", {"whole": "word"}),  # a wrapped pattern: its group 1 is the match
        ("(a)\\1", "ere", {}),  # the fallback engine
    ],
)
def test_spans_are_finditers_spans(pattern: str, flavor: str, kw: dict[str, object]) -> None:
    rx = compile_regex(pattern, flavor, **kw)  # type: ignore[arg-type]
    text = "xxab ab\nbxx\n\nwé aa éé \xff ab9 0\n".encode("utf-8", "surrogateescape")
    for pos, end in ((0, None), (0, len(text) - 1), (3, 20), (5, 5)):
        assert list(rx.spans(text, pos, end)) == [m.span() for m in rx.finditer(text, pos, end)]
