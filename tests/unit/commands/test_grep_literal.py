"""grep with a plain-text pattern against GNU grep: the pattern is searched with
bytes.find (hopping from hit to hit, or splitting into lines when a 64 KiB sample
says most lines hit) and the regex is compiled only when an option needs it
(-o, -n, --color, context). Every output option over inputs where the hit density
changes from one 1 MiB chunk to the next, lines hold the word several times, and
the last line has no newline."""

from __future__ import annotations

import pytest

from realtools import have, real_command
from sandbash.testing import run_command

pytestmark = pytest.mark.skipif(not have("grep"), reason="GNU grep not available")


def _input(dense_first: bool) -> bytes:
    dense = b"".join(b"w%d ERROR x ERROR\n" % i if i % 3 else b"w%d ok\n" % i for i in range(90000))
    sparse = b"".join(
        b"v%d ERROR\n" % i if i % 997 == 0 else b"v%d plain text line\n" % i for i in range(60000)
    )
    body = dense + sparse if dense_first else sparse + dense
    return body + b"tail ERROR no newline"


INPUTS = {
    "dense-then-sparse": _input(True),
    "sparse-then-dense": _input(False),
    "small": b"ERROR\n\nERRORERROR\nxERRO\nRROR\nERROR",
}

ARGVS = [
    ["-c", "ERROR"],
    ["-vc", "ERROR"],
    ["ERROR"],
    ["-v", "ERROR"],
    ["-F", "ERROR"],
    ["-n", "ERROR"],
    ["-o", "ERROR"],
    ["-b", "ERROR"],
    ["-m", "5", "ERROR"],
    ["-l", "ERROR"],
    ["-L", "ERROR"],
    ["-q", "ERROR"],
    ["-A", "1", "ERROR"],
    ["-C", "1", "-v", "ERROR"],
    ["--color=always", "ERROR"],
    ["-H", "ERROR"],
    ["-e", "ERROR"],
    ["-c", "nothing-like-this"],
    ["-v", "nothing-like-this"],
    ["-c", "R"],
    ["-vn", "x"],
]


@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.parametrize("args", ARGVS, ids=[" ".join(a) for a in ARGVS])
def test_plain_text_pattern_matches_gnu(args: list[str], name: str) -> None:
    argv = ["grep", *args]
    data = INPUTS[name]
    exp_out, _err, exp_status = real_command(argv, data)
    got = run_command(argv, data)
    assert got.status == exp_status
    assert got.stdout == exp_out
