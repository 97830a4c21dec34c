"""Texts that are not UTF-8 (invalid input bytes, and every non-ASCII text under LC_ALL=C, as
pattern.as_bytes gives it): RE2 matches them with each such byte as one private-use character
(Pattern._re2_text), as the set matcher does. A `*` pattern's search was quadratic there
(`${x//*[0-9]/}` on 6,000 bytes of é under C took 5 s, so a longer value outlived the deadline)."""

from __future__ import annotations

import random

import pytest

from sandbash import Bash
from sandbash.expand.pattern import Pattern, as_bytes

PIECES = ["a", "b", "é", "\udcff", "\udcc3", "1", "/", ".", " ", "\uf7c3"]
PATTERNS = [
    "*[0-9]", "a*", "*b", "*é*", "?", "??*", "[[:alpha:]]*", "*[![:alnum:]]", "[é]*", "*[a-b]?",
    "+(a|é)*", "*@(b|\udcff)", "a*b*", "*\udcc3*", "[^a]*[0-9]", "*[[:punct:]]", "*[[:print:]]",
]  # fmt: skip


def _methods(p: Pattern, text: str) -> tuple[object, ...]:
    return (
        p.fullmatch(text),
        p.prefix_len(text, True),
        p.prefix_len(text, False),
        p.suffix_start(text, True),
        p.suffix_start(text, False),
        p.search(text, 0),
        p.search(text, min(2, len(text))),
        p.match_at(text, min(1, len(text))),
    )


@pytest.mark.parametrize("source", PATTERNS + [as_bytes(p) for p in PATTERNS if not p.isascii()])
def test_the_mapped_text_matches_as_the_set_matcher(source: str) -> None:
    rng = random.Random(source.encode("utf-8", "surrogatepass"))
    for _ in range(150):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 9)))
        mapped = Pattern(source, extglob=True)
        sets = Pattern(source, extglob=True)
        sets._sets_only = True  # (the set matcher for every text that is not UTF-8)
        assert _methods(mapped, text) == _methods(sets, text), (source, text)


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("LC_ALL=C; x=$(printf 'é%.0s' {1..60000})7; y=${x//*[0-9]/}; echo ${#y}", "0"),
        ("LC_ALL=C; x=$(printf 'é%.0s' {1..60000}); y=${x//*[0-9]/-}; echo ${#y}", "120000"),
        ("x=$(printf '\\xff%.0s' {1..60000}); y=${x//*[0-9]/}; echo ${#y}", "60000"),
        ("LC_ALL=C; x=$(printf 'é%.0s' {1..60000}); [[ $x == *[0-9]* ]]; echo $?", "1"),
    ],
)
def test_a_long_text_that_is_not_utf8_is_matched_in_linear_time(script: str, expected: str) -> None:
    # (quadratic before: each of these outlived a 60 s deadline; the limit is generous on purpose)
    r = Bash(limits={"timeout": 60}).exec(script)
    assert (r.stdout.strip(), r.exit_code) == (expected, 0), r.stderr
