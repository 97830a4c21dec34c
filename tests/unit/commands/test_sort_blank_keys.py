"""sort keys on blank-separated fields (no -t) against GNU sort: such keys are cut out
of each line by one pattern match (keys.blank_key_rx), which must give exactly GNU's
begfield/limfield span, including each field's leading blanks, -b, keys past the
end of short lines, an end field before the start field, and character offsets
(which take the general walk)."""

from __future__ import annotations

import random

import pytest

from sandbash.commands.sort.keys import Key, blank_key_rx, key_span

from .test_textbasic import compare


def _lines(seed: int) -> bytes:
    rng = random.Random(seed)
    words = [b"a", b"B", b"b", b"10", b"9", b"-3", b"x1", b"", b"zz", b"1.5"]
    out = []
    for _ in range(400):
        n = rng.randrange(0, 6)
        parts = [rng.choice([b"", b" ", b"  ", b"\t", b" \t"]) + rng.choice(words) for _ in range(n)]
        out.append(b" ".join(parts) + rng.choice([b"", b" ", b"\t"]))
    return b"\n".join(out) + b"\n"


_DATA = {"mixed": _lines(1), "mixed-2": _lines(2), "short": b"b a\n a b\n\n  \nc\n a\tb c\n"}
_KEYS = [
    ["-k1"],
    ["-k2"],
    ["-k3,3"],
    ["-k2,2", "-k1,1"],
    ["-k2,3"],
    ["-k3,2"],
    ["-b", "-k2,2"],
    ["-k2b,2"],
    ["-k2,2n"],
    ["-k2,2", "-r"],
    ["-k2,2r", "-k1"],
    ["-s", "-k2,2"],
    ["-u", "-k2,2"],
    ["-k7"],
    ["-k2.2,2"],
    ["-k1,1.1"],
    ["-bk2.1,3.0"],
    ["-k2,2", "-f"],
]


@pytest.mark.parametrize("name", sorted(_DATA))
@pytest.mark.parametrize("args", _KEYS, ids=[" ".join(k) for k in _KEYS])
def test_blank_field_keys_match_gnu(args: list[str], name: str) -> None:
    compare(["sort", *args], _DATA[name])


def test_pattern_gives_the_walks_span() -> None:
    """Every key shape the pattern takes, on random lines of blanks and other bytes."""
    rng = random.Random(7)
    alpha = b" \t\nab\x00\xff\r"
    shapes = 0
    for _ in range(1500):
        key = Key(
            sword=rng.randrange(0, 5),
            eword=rng.choice([None, 0, 1, 2, 3, 4, 6]),
            skipsblanks=rng.random() < 0.4,
        )
        rx = blank_key_rx(key)
        if rx is None:
            continue
        shapes += 1
        for _ in range(40):
            line = bytes(rng.choice(alpha) for _ in range(rng.randrange(0, 14)))
            m = rx.match(line)
            assert m is not None
            assert m.group(1) == key_span(line, key, None), (key, line)
    assert shapes > 1000
    assert blank_key_rx(Key(sword=1, schar=2)) is None  # offsets take the walk
    assert blank_key_rx(Key(sword=3, eword=1)) is None  # ends before it starts
