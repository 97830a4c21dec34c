"""tr: compared with GNU tr 9.1."""

from __future__ import annotations

import pytest

from .test_textbasic import compare

TEXT = b"Hello, World! abc xyz 123\n\ttabs\x00nul\xc3\xa9\naabbccdd  ee\\\n"

CASES = [
    ["a-z", "A-Z"],
    ["[:lower:]", "[:upper:]"],
    ["[:upper:]", "[:lower:]"],
    ["-d", "[:digit:]"],
    ["-d", "a-z"],
    ["-s", " "],
    ["-s", "a-z"],
    ["-ds", "a", "b"],
    ["-cd", "[:alnum:]\\n"],
    ["-c", "a-z", "_"],
    ["-C", "a-z", "_"],
    ["-t", "abc", "xy"],
    ["abc", "xy"],
    ["abc", "[x*]yz"],
    ["a-f", "[x*2]"],
    ["[=a=]", "x"],
    ["\\101\\n", "b "],
    ["-s", "a-z", "A-Z"],
    ["[:lower:][:digit:]", "[:upper:]x"],
    ["a-", "xy"],
    ["[a-c]", "x"],
    ["\\q", "x"],
    ["-d", "\\000"],
    ["\\t\\n", "TN"],
    ["[:space:]", "[_*]"],
    ["[:punct:]", "."],
    ["-d", "[:cntrl:]"],
    ["-cs", "[:alpha:]", "\\n"],
    ["a-z", "[:upper:]"],
    ["[:alpha:]", "[x*08]"],
    ["a", "[b*z]"],
    ["'"],
    ["a"],
    ["-d", "a", "b"],
    ["-s"],
    ["a", ""],
    ["z-a", "x"],
    ["a", "[:alpha:]"],
    ["[a*]", "x"],
    ["[:foo:]", "x"],
    ["a", "b", "c"],
    ["-c", "[:upper:]", "[:lower:]"],
    ["[:upper:]", "[:lower:][:digit:]"],
    ["ab", "[:lower:]"],
    ["[:lower:]", "A-Z"],
    ["a\\", "x"],
    [],
    ["-t", "a", ""],
    ["-d", "[=x=]"],
    ["-s", "\\\\"],
    ["[:xdigit:]", "X"],
    ["-d", "[:blank:][:graph:]"],
    ["[:print:]", "P"],
    # string2 validation and other corners found by comparing with GNU
    ["-c", ".[:alpha:]", "[b*]a[=a=]"],
    ["-C", "[:digit:]^", "a\\t"],
    ["-ds", "a-c", "a-c[b*]"],
    ["-cs", "0-9]", "[b*]"],
    ["-s", "[=a=]a", "x-z[:lower:]"],
    ["-t", "\\101", "\\n[:upper:]"],
    ["[a*3]*", "\\n-\\t"],
    ["-C", "^[a*3]\\101", "["],
    ["-cs", "a-c", "-[:upper:]"],
    ["-d", "zz", "]\\\\"],
    ["z-\\\\", "x"],
    ["a", "[b*][c*]"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) or "none" for c in CASES])
def test_tr(args: list[str]) -> None:
    compare(["tr", *args], TEXT)


def test_squeeze_across_chunks() -> None:
    from sandbash.testing import run_command

    data = b"a" * 200000 + b"b" * 3 + b"a" * 70000
    assert run_command(["tr", "-s", "a"], stdin=data).stdout == b"abbba"
