"""Character classes in patterns beyond ASCII, and the two matchers agreeing on them.

A pattern runs through RE2 when it can (expand/pattern.py `_full`/`_search`) and through the
set-based matcher otherwise (extglob forms RE2 cannot say, `[[:word:]]`, text RE2 cannot take).
Both must give the same answer for every character, or a pattern would match differently
depending on its neighbours. bash (the C library in a UTF-8 locale) is the reference for the
letters tested against it in tests/spec/cases/lead_casemap.txt."""

from __future__ import annotations

import pytest

from sandbash.expand.pattern import _CLASSES, compile_pattern

CHARS = [
    *"aZ09_-!~ \t",
    *"éÉßÿĀāǅǆǄ",  # Latin letters, titlecase
    *"ΣσςЖж中あ",  # other scripts
    *"²٣Ⅰⅰ",  # numbers: other, decimal, letter
    "\u0300",  # a combining mark
    *"€£©±—“",  # symbols and punctuation
    "\u00a0",  # no-break space
    "\x07",
]
NAMES = [
    "alpha",
    "alnum",
    "upper",
    "lower",
    "digit",
    "space",
    "blank",
    "punct",
    "print",
    "graph",
    "cntrl",
    "xdigit",
]


@pytest.mark.parametrize("name", NAMES)
def test_re2_and_the_set_matcher_agree(name: str) -> None:
    fast = compile_pattern(f"[[:{name}:]]")
    assert fast._regexes(), "this class should go through RE2"
    for c in CHARS:
        assert fast.fullmatch(c) == _CLASSES[name](c), (name, c)
        negated = compile_pattern(f"[![:{name}:]]")
        assert negated.fullmatch(c) != _CLASSES[name](c), (name, c)


@pytest.mark.parametrize(
    ("name", "yes", "no"),
    [
        ("alpha", "aéЖ中Ⅰǅ", "0²€ \u0300"),
        ("upper", "AÉЖǅ", "aé中²"),
        ("lower", "aéжǅß", "AÉ中"),
        ("alnum", "a0é٣Ⅰ", "²€-"),
        ("punct", "-!€²\u0300", "aé0 "),
        ("print", " aé€²", "\x07"),
    ],
)
def test_letters_of_every_script(name: str, yes: str, no: str) -> None:
    pat = compile_pattern(f"[[:{name}:]]")
    for c in yes:
        assert pat.fullmatch(c), (name, c)
    for c in no:
        assert not pat.fullmatch(c), (name, c)


@pytest.mark.parametrize(("unit", "letters"), [("ab cd-", 4), ("aé c€-", 3), ("a😀 éb", 3)])
def test_a_long_text_is_searched_in_linear_time(unit: str, letters: int) -> None:
    # RE2's binding encodes a str at every call: a replace-all searched 96 KB 65,536 times; the
    # text is encoded once (Pattern.encoded), its offsets mapped back as the search moves on
    pat = compile_pattern("[[:alpha:]]")
    text = unit * 16000
    encoded = pat.encoded(text)
    assert encoded is not None
    found, i = 0, 0
    while (m := pat.search(text, i, encoded)) is not None:
        assert m == pat.search(text, i) if found % 4999 == 0 else True  # (the same as without)
        found += 1
        i = m[1]
    assert found == 16000 * letters
    assert pat.search(text, 0) == pat.search(text, 0, encoded) == (0, 1)
