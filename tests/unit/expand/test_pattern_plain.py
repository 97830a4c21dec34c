"""Patterns of literals, `?`, `*` and brackets matched in Python on short ASCII texts
(expand/pattern.py `_plain_full`), against the two other matchers: RE2 (`_full`) and the set
matcher (`_slow_full`). All three must agree on every pattern and text, or a pattern would match
differently depending on its subject's length or characters."""

from __future__ import annotations

import random
import time

import pytest

from sandbash.expand.pattern import _PLAIN_TEXT_MAX, _plain_full, compile_pattern, glob_test

TOKENS = [
    "a",
    "b",
    "ab",
    "-",
    ".",
    "?",
    "*",
    "[a-c]",
    "[!a]",
    "[^b]",
    "[[:digit:]]",
    "[[:alpha:]_]",
    "[]a]",
    "[!]-]",
    "[a-]",
    "[z-a]",
    "\\*",
    "\\[",
    "\\?",
    "[",
    "]",
    "[[.hyphen.]]",
    "[[=a=]b]",
]
TEXT_CHARS = "ab.-0_z[]*?\\"


def _cases(seed: int, count: int) -> list[tuple[str, list[str]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        source = "".join(rng.choice(TOKENS) for _ in range(rng.randrange(1, 7)))
        texts = ["".join(rng.choice(TEXT_CHARS) for _ in range(rng.randrange(0, 9))) for _ in range(25)]
        out.append((source, texts))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_the_three_matchers_agree(seed: int) -> None:
    for source, texts in _cases(seed, 150):
        pattern = compile_pattern(source)
        plain = pattern._plain
        if plain is None:
            continue
        for text in texts:
            want = pattern._slow_full(text)
            assert _plain_full(plain, text) == want, (source, text)
            if pattern._regexes():  # (RE2's forms, compiled here: fullmatch never needs them)
                assert (pattern._full.match(text) is not None) == want, (source, text)
            assert pattern.fullmatch(text) == want, (source, text)


@pytest.mark.parametrize("seed", range(3))
def test_a_case_or_cond_site_tests_as_the_pattern_matches(seed: int) -> None:
    # glob_test keeps a plain pattern's pieces at the place (`case $c in [0-9])`, `[[ $x == *[ab] ]]`)
    for source, texts in _cases(100 + seed, 150):
        test = glob_test(source, lambda: False)
        for text in [*texts, "é" + "".join(texts), "ab" * _PLAIN_TEXT_MAX]:
            for nocase in (False, True):
                want = compile_pattern(source, True, nocase).fullmatch(text)
                assert bool(test(text, nocase, True)) == want, (source, text, nocase)
                assert bool(test(text, nocase, False)) == compile_pattern(source, False, nocase).fullmatch(
                    text
                )


@pytest.mark.parametrize(
    ("source", "yes", "no"),
    [
        ("[a-m]", ["a", "m", "g"], ["n", "", "ab", "A", "é"]),
        ("*[0-9]*", ["1", "a1", "1a", "abc9def"], ["", "abc", "é"]),
        ("[0-9][0-9]*", ["12", "12abc"], ["1", "a12", "1a"]),
        ("a*b*c", ["abc", "aXbYc", "abbc", "acbc"], ["ab", "acb", "bac"]),
        ("*a*a*", ["aa", "xaxax", "aaa"], ["a", "xax"]),
        ("?", ["a", "/", "é"], ["", "ab"]),
        ("*.tar.gz", ["x.tar.gz", ".tar.gz"], ["x.tar.gzz", "tar.gz"]),
        ("file[0-9]*[!x]", ["file1y", "file12y"], ["file1x", "file1", "filey"]),
    ],
)
def test_shapes(source: str, yes: list[str], no: list[str]) -> None:
    pattern = compile_pattern(source)
    assert pattern._plain is not None
    for text in yes:
        assert pattern.fullmatch(text), (source, text)
    for text in no:
        assert not pattern.fullmatch(text), (source, text)


@pytest.mark.parametrize(
    "source",
    ["@(a|b)", "+(x)", "!(a)*"],
)
def test_extglob_groups_are_not_plain(source: str) -> None:
    assert compile_pattern(source, extglob=True)._plain is None


def test_nocase_and_path_patterns_are_not_plain() -> None:
    assert compile_pattern("[a-c]*", nocase=True)._plain is None
    assert compile_pattern("[a-c]*", path=True)._plain is None


def test_a_long_text_with_stars_goes_to_re2() -> None:
    # each piece is searched from where the last ended; past _PLAIN_TEXT_MAX characters the
    # linear RE2 runs instead, so a long text against many pieces stays fast
    source = "*" + "[ab]?" * 40 + "*c"
    pattern = compile_pattern(source)
    text = "ab" * 200_000
    started = time.process_time()
    assert not pattern.fullmatch(text)
    assert pattern.fullmatch(text + "c")
    assert time.process_time() - started < 5
    short = "ab" * (_PLAIN_TEXT_MAX // 2)
    assert pattern.fullmatch(short + "c") == pattern._slow_full(short + "c")
