"""grep -o without prefixes runs the pattern over a whole chunk of lines at once; the
matches, and the exit status, must be GNU grep's: anchors at every line, word
boundaries at line ends, empty matches (which print nothing but select the line),
several patterns, case folding, back-references, lines crossing the 1 MiB reads,
and inputs that take the general path (NUL bytes, prefixes). Not here: invalid UTF-8
with -o, and -oc on data with NUL bytes, where sandbash differed from GNU grep
before the chunk-wide path too (GNU treats such bytes as line ends)."""

from __future__ import annotations

import pytest

from realtools import have, real_command
from sandbash.testing import run_command

pytestmark = pytest.mark.skipif(not have("grep"), reason="GNU grep not available")

_BIG = b"".join(b"id%d user%d ab ba aab x%dy\n" % (i, i % 97, i % 13) for i in range(60000)) + b"user7 tail"
INPUTS = {
    "small": b"abc abd\nab\n\nxab ab\nABC\nfoo_bar foo bar\n  ab  \nlast ab",
    "big": _BIG,
    "nul": b"ab\0cd ab\nab\n",
    # multibyte characters and empty matches beside them (the spans of one search each)
    "multi": "é abé ab\nxé ÉAB ab\n".encode() * 2000 + "€ab 𝄞 ß ab\n".encode() * 500,
}
ARGVS = [
    ["-o", "ab"],
    ["-o", "a[bc]*"],
    ["-o", "^ab"],
    ["-o", "ab$"],
    ["-o", "^"],
    ["-o", "x*"],
    ["-o", "b*"],
    ["-ow", "ab"],
    ["-ox", "ab"],
    ["-oi", "abc"],
    ["-oE", "ab|ba"],
    ["-o", "-e", "ab", "-e", "user[0-9]"],
    ["-oE", "(a)\\1b"],
    ["-o", "\\<[a-z]"],
    ["-o", "[0-9]\\+"],
    ["-oF", "a.b"],
    ["-o", "zzz"],
    ["-on", "ab"],
    ["-ob", "ab"],
    ["-om", "2", "ab"],
    ["-oH", "ab"],
    ["-o", "[^a-z ]*"],
    ["-o", "é*"],
    ["-oiw", "ab"],
    ["-oE", "[a-zé]+"],
    ["-oP", "a(?=b)"],
]


@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.parametrize("args", ARGVS, ids=[" ".join(a) for a in ARGVS])
def test_only_matching_matches_gnu(args: list[str], name: str) -> None:
    argv = ["grep", *args]
    data = INPUTS[name]
    exp_out, _err, exp_status = real_command(argv, data)
    got = run_command(argv, data)
    assert (got.stdout, got.status) == (exp_out, exp_status)
