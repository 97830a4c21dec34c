"""paste, comm, join, column, fold, fmt, expand, unexpand, pr: compared with the real tools."""

from __future__ import annotations

import pytest

from .test_textbasic import compare

FILES: dict[str, bytes | str] = {
    "n": "1\n2\n3\n",
    "l": "a\nb\n",
    "nonl": "x",
    "u1": "a\nc\nb\n",
    "s1": "a\nb\n",
    "s2": "a\nb\nd\n",
    "j1": "a 1\nc 3\nb 2\n",
    "j2": "a x\nb y\nd z\n",
    "f1": "k1 a b\nk2 c\nk2 d\nk3 e\n",
    "f2": "k2 X\nk2 Y\nk3 Z\nk4 W\n",
    "c1": "x:k1\ny:k2\n",
    "c2": "k1:A\nk2:B\n",
    "h1": "H1 h\nk1 a\n",
    "h2": "H2 g\nk1 b\n",
    "sp": "  k1   a  b\n",
    "up": "A 1\n",
    "lo": "a 2\n",
    "tbl": "a b c\nlonger x\n\nq  w   e r\n",
    "csv": "a,b,,c\nd,e\n",
    "tabs": "a\tb\tc\td\n\tx  \ty\n        eight\n  two\tt\n",
    "para": (
        "This is a paragraph of text that is long enough to need filling. It has two sentences.  "
        "And a third one here!\nshort line\nanother short line (with parens) and more words to fill\n\n"
        "    Indented paragraph that goes on and on and on for a while to wrap around the width.\n"
        "    second line of it.\n"
    ),
    "p7": "".join(f"l{i}\n" for i in range(1, 8)),
    "e1": ":\na:B:\nc:a:\n",
    "e2": ":\n:b\nc:d\n",
    "b1": "b \nc d\n",
    "b2": "a x\nb\nc B \n",
}

CASES = [
    ["paste", "n", "l"],
    ["paste", "-s", "n", "l"],
    ["paste", "-sd+", "n"],
    ["paste", "-d", ",:", "n", "l", "n"],
    ["paste", "-d", "", "n", "l"],
    ["paste", "-d", "\\t\\n\\\\0", "n", "l", "n", "l"],
    ["paste", "-", "-"],
    ["paste", "-z", "n", "l"],
    ["paste", "nonl", "n"],
    ["paste", "-s", "nonl", "n"],
    ["paste", "nope"],
    ["paste", "-d"],
    ["paste", "-d", "\\", "n", "l"],
    ["paste", "-s", "-", "n"],
    ["comm", "u1", "s2"],
    ["comm", "--nocheck-order", "u1", "s2"],
    ["comm", "--check-order", "u1", "s2"],
    ["comm", "-12", "u1", "s2"],
    ["comm", "--total", "s1", "s2"],
    ["comm", "--output-delimiter=::", "s1", "s2"],
    ["comm", "-3", "s1", "s2"],
    ["comm", "s1"],
    ["comm", "s1", "s2", "s2"],
    ["comm", "-23", "s2", "-"],
    ["comm", "s1", "nope"],
    ["join", "j1", "j2"],
    ["join", "--check-order", "j1", "j2"],
    ["join", "f1", "f2"],
    ["join", "-a1", "f1", "f2"],
    ["join", "-a1", "-a2", "-e", "EMPTY", "-o", "0,1.2,1.3,2.2", "f1", "f2"],
    ["join", "-v1", "f1", "f2"],
    ["join", "-v2", "f1", "f2"],
    ["join", "-o", "auto", "-a1", "-e", "?", "f1", "f2"],
    ["join", "-t:", "-1", "2", "-2", "1", "c1", "c2"],
    ["join", "--header", "h1", "h2"],
    ["join", "sp", "f1"],
    ["join", "-i", "up", "lo"],
    ["join", "-o", "1.5,2.1", "f1", "f2"],
    ["join", "-o", "x", "f1", "f2"],
    ["join", "-1", "0", "f1", "f2"],
    ["join", "f1"],
    ["join", "-a", "3", "f1", "f2"],
    ["join", "-t", "ab", "f1", "f2"],
    ["join", "-j", "1", "f1", "f2"],
    ["join", "--nocheck-order", "j1", "j2"],
    ["join", "-", "-"],
    ["join", "-t", ":", "-e", "E", "e1", "e2"],
    ["join", "-a1", "-a2", "b1", "b2"],
    ["join", "-v1", "b1", "b2"],
    ["join", "-j", "1", "-1", "2", "f1", "f2"],
    ["join", "-o", "auto", "-o", "0,2.1", "f1", "f2"],
    ["join", "-t", ":", "--header", "-1", "2", "e1", "e2"],
    ["join", "-e", "E", "-a2", "-2", "2", "b1", "b2"],
    ["column", "-t", "-"],  # (util-linux 2.38: `-` is a file name, stdin only with no operand)
    ["column", "-t", "tbl"],
    ["column", "-t", "-s,", "csv"],
    ["column", "-t", "-N", "X,Y,Z,W", "-R", "2", "tbl"],
    ["column", "-t", "-o", "|", "tbl"],
    ["column", "n", "l", "tbl"],
    ["column", "-x", "-c", "20", "p7", "n"],
    ["column", "-t", "-H", "2", "-N", "x,y,z", "tbl"],
    ["column", "-t", "-d", "-N", "x,y,z", "tbl"],
    ["column", "-t", "-O", "3,1", "-N", "x,y,z", "tbl"],
    ["column", "-t", "-l", "2", "tbl"],
    ["column", "-t", "-L", "tbl"],
    ["column", "-J", "-N", "x,y", "s1"],
    ["fold", "-w", "5", "para"],
    ["fold", "-s", "-w", "20", "para"],
    ["fold", "-b", "-w", "7", "tabs"],
    ["fold", "-w", "10", "tabs"],
    ["fold", "-sw", "9", "tabs"],
    ["fold", "-3", "n"],
    ["fold", "-w", "x"],
    ["fold", "-w", "0"],
    ["fold", "nonl"],
    ["fmt", "para"],
    ["fmt", "-w", "40", "para"],
    ["fmt", "-u", "para"],
    ["fmt", "-s", "-w", "30", "para"],
    ["fmt", "-c", "-w", "50", "para"],
    ["fmt", "-t", "-w", "50", "para"],
    ["fmt", "-w", "30", "tabs"],
    ["fmt", "-p", "    ", "-w", "30", "para"],
    ["fmt", "-60", "para"],
    ["fmt", "-g", "40", "para"],
    ["expand", "tabs"],
    ["expand", "-t", "4", "tabs"],
    ["expand", "-t", "2,5,/4", "tabs"],
    ["expand", "-t", "2,5,+4", "tabs"],
    ["expand", "-t", "2,5", "tabs"],
    ["expand", "-i", "tabs"],
    ["expand", "-3", "tabs"],
    ["expand", "-t", "0"],
    ["expand", "-t", "3,2"],
    ["expand", "-t", "a"],
    # GNU's tab-list reading: a `/` or `+` marks its number and every later one of that list
    *(
        ["expand", "-t", t, "tabs"]
        for t in ("2,5/4", "2,+", "2,/", "+3,5", "/3,5", "+3,/4", "2,/3", "5/", "/+3", "2//3", "1,2,/0")
    ),
    *(
        ["expand", "-t", t, "tabs"]
        for t in ("+0", "99999999999999999999999", "-3", ",3", "3,x", "0,3", "2 ,4")
    ),
    ["expand", "-t", "2", "-t", "/5", "tabs"],
    ["expand", "-t", "/2", "-t", "5", "tabs"],
    ["unexpand", "-t", "2,/3", "tabs"],
    ["unexpand", "-t", "/3,5", "tabs"],
    ["unexpand", "tabs"],
    ["unexpand", "-a", "tabs"],
    ["unexpand", "-t", "2", "tabs"],
    ["unexpand", "--first-only", "-a", "tabs"],
    ["unexpand", "-a", "para"],
    ["unexpand", "-t", "4,8", "tabs"],
    ["pr", "-t", "p7"],
    ["pr", "-2", "-t", "p7"],
    ["pr", "-3", "-t", "p7"],
    ["pr", "-3", "-t", "-a", "p7"],
    ["pr", "-n", "-t", "p7"],
    ["pr", "-2", "-t", "-s,", "p7"],
    ["pr", "-d", "-t", "p7"],
    ["pr", "-t", "-o", "3", "p7"],
    ["pr", "-w", "20", "-2", "-t", "p7"],
]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_matches(argv: list[str]) -> None:
    compare(argv, b"in1\nin2\n", FILES)


def test_pr_header() -> None:
    from sandbash.testing import make_vfs, run_command

    vfs = make_vfs({"f": "a\nb\n"})
    vfs.view("/").utime("/home/user/f", 0, 1700000000 * 10**9)
    r = run_command(["pr", "-h", "TITLE", "-l", "15", "f"], vfs=vfs, env={"TZ": "UTC"})
    lines = r.stdout.split(b"\n")
    assert lines[2] == b"2023-11-14 22:13" + b" " * 22 + b"TITLE" + b" " * 23 + b"Page 1"
    assert len(lines) == 16 and lines[5:7] == [b"a", b"b"]


# paste's rows made by the batch (columns zipped while every input holds lines): inputs of
# several read chunks, of unequal lengths, ending without a newline, with CRLF, NUL bytes and
# broken UTF-8, one input filling several columns (`-` twice), a directory among them
_BIG: dict[str, bytes | str] = {
    "w1": b"".join(b"w%d\r\n" % i if i % 7 else b"\xff\xfe %d\n" % i for i in range(30000)),
    "w2": b"".join(b"%d\0x\n" % i if i % 5 else b"\n" for i in range(45000)) + b"tail",
    "w3": "".join(f"\u00e9{i}\n" for i in range(12000)),
    "wz": b"".join(b"z%d\nq\0" % i for i in range(25000)),
    "dir/x": "",
}
_BIG_CASES = [
    ["paste", "w1", "w2"],
    ["paste", "w2", "w1", "w3"],
    ["paste", "-d", ",;", "w3", "w1", "w2", "w1"],
    ["paste", "-d", "", "w1", "w3"],
    ["paste", "-", "-"],
    ["paste", "-", "w3", "-", "-"],
    ["paste", "w3", "dir", "w1"],
    ["paste", "dir", "w3"],
    ["paste", "-z", "wz", "w1"],
    ["paste", "-s", "w1", "w2"],
    ["paste", "-s", "-d", ",", "w2", "-", "w3"],
    ["paste", "w1"],
]


@pytest.mark.parametrize("argv", _BIG_CASES, ids=lambda a: " ".join(a[1:]))
def test_paste_batches(argv: list[str]) -> None:
    compare(argv, b"".join(b"in%d\n" % i for i in range(40001)), _BIG)
