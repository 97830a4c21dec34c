"""Process-wide caches of compiled patterns are bounded by what they hold, not only by count (T-TEN-5).

A short pattern can compile to a large program, and RE2 adds DFA states to a compiled pattern
while it matches (`a[ab]{20}x` over hard text: ~25 MB after one pass). The regex engine's cache,
awk's, jq's and the shell's glob cache count each entry at the memory its engine may hold, and
a shared compiled pattern keeps no long subject of a run alive. Cached objects carry no run's
budget (per-run state never sits in a shared object).
"""

from __future__ import annotations

import sys
import time

from sandbash.commands.awk import regex as awk_regex
from sandbash.commands.jq import builtins_text as jq_text
from sandbash.expand import pattern as glob_pattern
from sandbash.regex import RETAINED_MAX, compile_regex, engine
from sandbash.testing import run_command


def test_engine_cache_is_bounded_by_retained_bytes() -> None:
    for i in range(600):
        rx = compile_regex(f"a[ab]{{{i % 40 + 5}}}x{i}", "ere")
        assert rx.engine == "re2"
    assert engine._CACHE.held_bytes() <= RETAINED_MAX
    assert len(engine._CACHE) <= RETAINED_MAX // (8 << 20)
    # an ordinary pattern gets RE2's usual memory; only one whose program does not fit gets more
    assert compile_regex("^[a-z]+[0-9]*$", "ere").retained < (9 << 20)


def test_large_program_gets_the_larger_budget_and_still_compiles() -> None:
    words = [f"w{i:05d}[a-c]{{2}}" for i in range(20000)]
    rx = compile_regex(words, "ere")
    assert rx.search("xx w19999ab yy") is not None
    assert rx.retained <= (64 << 20) + 4 * sum(map(len, words))


def test_fallback_patterns_skip_the_regex_modules_own_cache() -> None:
    import regex

    internal = sys.modules[regex.compile.__module__]._cache  # type: ignore[attr-defined]
    before = len(internal)
    for i in range(50):
        rx = compile_regex(f"\\(a{i}\\)\\1", "bre")  # a backreference: the fallback engine
        assert rx.engine == "regex" and rx.search(f"a{i}a{i}") is not None
    assert len(internal) == before


def test_shared_core_keeps_no_long_subject() -> None:
    rx = compile_regex("b+", "ere")
    core = rx._core
    long_subject = "é" + "ab" * 200_000
    assert rx.search(long_subject) is not None
    assert core._last_str is None or core._last_str[0] is not long_subject
    short = "xxbb"
    assert rx.search(short) is not None and core._last_str is not None and core._last_str[0] is short
    raw = b"\xc3\xa9" + b"ab" * 200_000
    fallback = compile_regex("\\(b\\)\\1*", "bre")
    assert fallback.search(raw) is not None
    assert fallback._core._last_bytes is None or fallback._core._last_bytes[0] is not raw


def test_finditer_over_a_long_subject_converts_it_once() -> None:
    # each search of the loop would re-encode a long subject the core no longer remembers
    subject = "é" + "ab " * 100_000
    rx = compile_regex("ab", "ere")
    start = time.process_time()
    spans = [m.span() for m in rx.finditer(subject)]
    assert len(spans) == 100_000 and spans[0] == (1, 3) and spans[-1] == (len(subject) - 3, len(subject) - 1)
    assert time.process_time() - start < 30
    raw = subject.encode()
    fallback = compile_regex("\\(a\\)b", "bre")
    assert sum(1 for _ in fallback.finditer(raw)) == 100_000


def test_awk_and_jq_caches_are_bounded_and_hold_no_budget() -> None:
    for i in range(300):
        awk_regex.compile_regex(f"a[ab]{{{i % 30 + 3}}}q{i}")
        jq_text._compile(f"a[ab]{{{i % 30 + 3}}}q{i}", "")
    assert awk_regex._CACHE.held_bytes() <= RETAINED_MAX
    assert jq_text._rx_cache().held_bytes() <= RETAINED_MAX
    # a run binds its budget to a copy: the cached objects stay budget-free
    got = run_command(["jq", "-c", '[.[] | test("(a)\\\\1")]'], stdin=b'["aa","ab"]')
    assert got.stdout == b"[true,false]\n"
    cached = jq_text._rx_cache().get(("(a)\\1", ""))
    assert cached is not None and cached.rx._budget is None
    got = run_command(["awk", '{ r = "(b)+"; print ($0 ~ r) }'], stdin=b"abb\n")
    assert got.stdout == b"1\n"
    held = awk_regex._CACHE.get(("(b)+", False))
    assert held is not None and held._rx._budget is None


def test_glob_pattern_cache_is_bounded_by_retained_bytes() -> None:
    for i in range(3000):
        p = glob_pattern.compile_pattern(f"*a?[bc]x{i}*")
        assert p.fullmatch(f"zaqbx{i}yy") is True
    assert glob_pattern._PATTERNS.held_bytes() <= 256 << 20
    assert len(glob_pattern._PATTERNS) <= 2048


def test_awk_program_cache_counts_its_regex_literals() -> None:
    from sandbash.commands.awk import cli as awk_cli
    from sandbash.commands.awk.lexer import Source

    many = " ".join(f"/a[bc]{i}/ {{ n++ }}" for i in range(40))  # 40 compiled patterns: over the bound
    compiled = awk_cli.compile_program([Source("cmd. line", many)], False)
    assert len([v for v in compiled.gen.values.values() if isinstance(v, awk_regex.Regex)]) == 40
    key = ((("cmd. line", many),), False, False)
    assert awk_cli._CACHE.get(key) is None
    few = "/a[bc]x/ { n++ } END { print n + 0 }"
    awk_cli.compile_program([Source("cmd. line", few)], False)
    assert awk_cli._CACHE.get(((("cmd. line", few),), False, False)) is not None
    assert awk_cli._CACHE.held_bytes() <= RETAINED_MAX
