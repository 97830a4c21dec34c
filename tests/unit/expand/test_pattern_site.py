"""A place's pattern of fixed text (pattern.pattern_site): the pattern each setting of extglob
and nocasematch makes, never one made under another setting; kept by the place only when it
matches without its regex and its text is short."""

from __future__ import annotations

import pytest

from sandbash.expand.pattern import compile_pattern, pattern_site

SOURCES = ["file*7", "abc", "*.gz", "@(ab)", "+(a|b)c", "[[:upper:]]x", "a\\*b", "", "é*", "x" * 1100 + "*"]
SUBJECTS = [
    "file17",
    "FILE17",
    "abc",
    "ABC",
    "x.gz",
    "ab",
    "aabc",
    "@(ab)",
    "Ax",
    "a*b",
    "",
    "éa",
    "x" * 1100,
]


@pytest.mark.parametrize("source", SOURCES)
def test_each_setting_matches_as_its_own_pattern(source: str) -> None:
    site = pattern_site(source)
    # settings visited in an order that reuses what an earlier one made, if it ever did
    for extglob, nocase in [
        (False, False),
        (True, False),
        (False, True),
        (True, True),
        (False, False),
        (True, True),
    ]:
        want = compile_pattern(source, extglob, nocase)
        got = site(extglob, nocase)
        assert (got.source, got.nocase) == (source, nocase)
        assert [got.fullmatch(s) for s in SUBJECTS] == [want.fullmatch(s) for s in SUBJECTS]


def test_a_simple_pattern_is_kept_and_a_regex_one_is_not() -> None:
    simple = pattern_site("file*7")
    assert simple(False, False) is simple(False, False)
    regex = pattern_site("[ab]*7")
    made = regex(False, False)
    assert made._simple is None and made.literal is None
    long = pattern_site("y" * 1100 + "*")
    assert long(False, False)._simple is not None
    # neither is held by the place: each use asks the shared cache (which may let it go)
    assert regex.__closure__ is not None
    held = [c.cell_contents for c in regex.__closure__ if isinstance(c.cell_contents, list)]
    assert held == [[None, None, None, None]]
    held_long = [c.cell_contents for c in long.__closure__ or () if isinstance(c.cell_contents, list)]
    assert held_long == [[None, None, None, None]]
