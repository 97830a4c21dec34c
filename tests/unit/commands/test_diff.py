"""diff, cmp, patch, sdiff: compared with GNU diffutils 3.8 and GNU patch 2.7.6."""

from __future__ import annotations

import random
import re

import pytest

from realtools import have, real_command
from sandbash.testing import make_vfs, run_command

from .test_textbasic import compare

FILES: dict[str, bytes | str] = {
    "x": "a\nb\nc\nd\n",
    "y": "a\nB\nc\ne\nf\n",
    "nonl": "a\nb\nc",
    "nonl2": "a\nb\nd",
    "empty": "",
    "ws1": "a  b\n\tc\nD \n\n",
    "ws2": "a b\n        c\nd\n",
    "bin1": b"\0x",
    "bin2": b"\0y",
    "long1": "".join(f"line {i}\n" for i in range(1, 40)),
    "long2": "".join(f"line {i}\n" for i in range(1, 40) if i not in (5, 20)).replace("line 30", "LINE 30"),
    "t1": "a\tb\n",
    "t2": "a\tc\n",
    "crlf": "a\r\nb\r\n",
    "lf": "a\nb\n",
    "c1": "abc\ndef",
    "c2": "abd\ndeg",
    "c3": "ab",
    "c5": "a\nb\nX",
    "c6": "a\nb\nY",
    "d1/f": "1\n2\n",
    "d2/f": "1\n3\n",
    "d1/sub/s": "s\n",
    "d2/sub/s": "t\n",
    "d1/onlya": "only\n",
    "d1/same": "x\n",
    "d2/same": "x\n",
    "d1/dd/z": "",
    "d2/dd": "q\n",
    # names diff writes C-escaped in double quotes (a -r line, ---/+++ lines, -l page titles)
    "d1/s p": "p q\n",
    "d2/s p": "p r\n",
    "a b": "a\nb\nc\nd\n",
    "t\tab": "t\n",
    "\u00e9": "e\n",
    'q"b': "q\n",
    "\x7f": "del\n",
}

L = ["--label", "A", "--label", "B"]
DIFF_CASES = [
    ["-u", "--label", "l b", "x", "a b"],
    ["x", "y"],
    ["-u", *L, "x", "y"],
    ["-c", *L, "x", "y"],
    ["-U1", *L, "long1", "long2"],
    ["-C", "1", *L, "long1", "long2"],
    ["-u", *L, "long1", "long2"],
    ["-U0", *L, "long1", "long2"],
    ["long1", "long2"],
    ["-q", "x", "y"],
    ["-s", "x", "x"],
    ["x", "x"],
    ["nonl", "nonl2"],
    ["-u", *L, "nonl", "nonl2"],
    ["-u", *L, "x", "nonl"],
    ["empty", "x"],
    ["-u", *L, "empty", "x"],
    ["-c", *L, "x", "empty"],
    ["-i", "x", "y"],
    ["-w", "ws1", "ws2"],
    ["-b", "ws1", "ws2"],
    ["-B", "ws1", "ws2"],
    ["-Z", "ws1", "ws2"],
    ["-E", "ws1", "ws2"],
    ["-wB", "ws1", "ws2"],
    ["--strip-trailing-cr", "crlf", "lf"],
    ["crlf", "lf"],
    ["bin1", "bin2"],
    ["-a", "bin1", "bin2"],
    ["-y", "x", "y"],
    ["-y", "-W", "40", "x", "y"],
    ["-y", "-W", "40", "--suppress-common-lines", "x", "y"],
    ["-y", "-W", "40", "--left-column", "x", "y"],
    ["-y", "-W", "40", "t1", "t2"],
    ["-y", "-W", "60", "nonl", "nonl2"],
    ["-y", "-t", "-W", "40", "t1", "t2"],
    ["-e", "x", "y"],
    ["-T", "x", "y"],
    ["-t", "t1", "t2"],
    ["x", "nope"],
    ["nope", "x"],
    ["x"],
    ["x", "y", "z"],
    ["-N", "x", "nope"],
    ["-u", "-c", "x", "y"],
    ["-I", "^[Bb]", "x", "y"],
    ["--normal", "x", "y"],
    ["-d", "long1", "long2"],
    ["-U", "x", "x", "y"],
    ["-r", "d1", "d2"],
    ["-rq", "d1", "d2"],
    ["-rN", "d1", "d2"],
    ["d1", "d2"],
    ["-rs", "d1", "d2"],
    ["-r", "-x", "sub", "d1", "d2"],
    ["d1/f", "d2"],
    ["d2", "d1/f"],
    ["-", "x"],
    # RCS output (-n) and the group and line formats (-D NAME, --GTYPE-group-format, --LTYPE-line-format)
    ["-n", "x", "y"],
    ["-n", "nonl", "nonl2"],
    ["-n", "empty", "x"],
    ["-n", "x", "empty"],
    ["-n", "x", "x"],
    ["-n", "-i", "x", "y"],
    ["--rcs", "long1", "long2"],
    ["-rn", "d1", "d2"],
    ["-D", "FOO", "x", "y"],
    ["--ifdef=FOO", "nonl", "nonl2"],
    ["-DFOO", "empty", "x"],
    ["-DFOO", "x", "x"],
    ["-DFOO", "-i", "x", "y"],
    ["-DFOO", "-t", "t1", "t2"],
    ["-DFOO", "-q", "x", "y"],
    ["-DFOO", "d1", "d2"],
    ["-DA", "-DB", "x", "y"],
    ["-DA", "-DA", "x", "y"],
    ["-DA", "--old-group-format=Q", "x", "y"],
    ["-DA", "-u", "x", "y"],
    ["-n", "-DA", "x", "y"],
    ["--line-format=A", "--old-line-format=B", "x", "y"],
    ["--old-group-format=<%<", "--new-group-format=>%>", "x", "y"],
    ["--changed-group-format=C%<", "long1", "long2"],
    ["--line-format=%L", "nonl", "nonl2"],
    ["--old-line-format=%l", "nonl", "nonl2"],
    [
        "--unchanged-line-format==%dn %L",
        "--old-line-format=-%dn %L",
        "--new-line-format=+%dn %L",
        "long1",
        "long2",
    ],
    ["--line-format=%5dn|%-3dn|%03dn|%xn|%on|%Xn|%.3dn|%-05dn|%'4dn %l;", "x", "y"],
    [
        "--unchanged-group-format=U[%de %df %dl %dm %dn|%dE %dF %dL %dM %dN]",
        "--old-group-format=O[%de %df %dl %dm %dn|%dE %dF %dL %dM %dN]",
        "--new-group-format=N[%de %df %dl %dm %dn|%dE %dF %dL %dM %dN]",
        "--changed-group-format=C[%de %df %dl %dm %dn|%dE %dF %dL %dM %dN]",
        "long1",
        "long2",
    ],
    ["--changed-group-format=%(f=l?one:many %df-%dl)%(n=1?s:m)%(2=F?two:other)\n", "long1", "long2"],
    ["--changed-group-format=%(x=1?a:b)|%(1=1?a|%(1=2?q:r)", "x", "y"],
    ["--old-group-format=%c'\101'%c'\12'|%5c'x'|%c'\1234'|%c''|%c|%c'ab'|%dq|%d|%%|%q|%", "x", "y"],
    ["--old-line-format=%q%(n=1?X:Y)%", "x", "y"],
]


@pytest.mark.parametrize("args", DIFF_CASES, ids=[" ".join(c) for c in DIFF_CASES])
def test_diff(args: list[str]) -> None:
    compare(["diff", *args], b"a\nq\n", FILES)


CMP_CASES = [
    ["c1", "c2"],
    ["-b", "c1", "c2"],
    ["-l", "c1", "c2"],
    ["-lb", "c1", "c2"],
    ["c1", "c3"],
    ["c3", "c1"],
    ["empty", "c1"],
    ["-s", "c1", "c2"],
    ["-n", "2", "c1", "c2"],
    ["-i", "1", "c1", "c2"],
    ["c1", "c2", "1", "1"],
    ["c1", "nope"],
    ["-l", "c1", "c3"],
    ["c1"],
    ["-", "c1"],
    ["c5", "c6"],
    ["--print-bytes", "c5", "c6"],
    ["c1", "c1"],
    ["-i", "1:2", "c1", "c2"],
    ["lf", "x"],
]


@pytest.mark.parametrize("args", CMP_CASES, ids=[" ".join(c) for c in CMP_CASES])
def test_cmp(args: list[str]) -> None:
    compare(["cmp", *args], b"abc\ndef", FILES)


def _rand_lines(rng: random.Random, alpha: str, n: int) -> list[str]:
    return [rng.choice(alpha) for _ in range(n)]


@pytest.mark.parametrize("seed", range(12))
def test_diff_random_against_gnu(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(6):
        a = _rand_lines(rng, rng.choice(["ab", "abc", "abcdef"]), rng.randint(0, 25))
        b = list(a)
        for _ in range(rng.randint(0, 6)):
            k = rng.random()
            if k < 0.3 and b:
                del b[rng.randrange(len(b))]
            elif k < 0.6:
                b.insert(rng.randint(0, len(b)), rng.choice("abcdef"))
            elif b:
                b[rng.randrange(len(b))] = rng.choice("abcdef")
        files = {"a": "".join(x + "\n" for x in a), "b": "".join(x + "\n" for x in b)}
        for args in (["diff"], ["diff", "-u", *L], ["diff", "-c", "-C2", *L]):
            compare([*args, "a", "b"], b"", files)


# (each with the files' times in its output: compared without them)
STAMPED_CASES = [
    ["-u", "a b", "y"],
    ["-c", "t\tab", "\u00e9"],
    ["-u", 'q"b', "\x7f"],
    ["-ru", "d1", "d2"],
    ["-l", "-u", "a b", "y"],
]
PAGINATE_CASES = [
    ["-l", "x", "y"],
    ["-lu", *L, "x", "y"],
    ["-l", "-c", *L, "long1", "long2"],
    ["-l", "-r", "d1", "d2"],  # (pr's pages straight out, `Only in` lines held in diff's buffer)
    ["-l", "-q", "x", "y"],  # (not paginated: messages)
    ["-l", "-s", "x", "x"],
    ["-l", "x", "x"],
    ["-l", "-y", "-W", "40", "x", "x"],
    ["-l", "--label", "L 1", "a b", "y"],
    ["--paginate", "-e", "\u00e9", "y"],
]


def _undated(out: bytes) -> bytes:
    # pr's page titles carry the time diff ran, ---/+++ lines the files' times
    out = re.sub(rb"(?m)^\d{4}-\d\d-\d\d \d\d:\d\d ", b"DATE ", out)
    return re.sub(rb"(?m)\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} [+-]\d{4}$", b"\tSTAMP", out)


@pytest.mark.parametrize(
    "args", PAGINATE_CASES + STAMPED_CASES, ids=[" ".join(c) for c in PAGINATE_CASES + STAMPED_CASES]
)
def test_against_gnu_undated(args: list[str]) -> None:
    if not have("diff") or not have("pr"):
        pytest.skip("GNU diff or pr not installed")
    ours = run_command(["diff", *args], files=FILES, env={"TZ": "UTC"})
    out, err, status = real_command(["diff", *args], b"", FILES, env={"TZ": "UTC"})
    assert (_undated(ours.stdout), ours.stderr, ours.status) == (_undated(out), err, status)


def test_paginate_runs_pr_as_a_command() -> None:
    from sandbash import Bash, Policy

    files = {"/w/x": "a\n", "/w/y": "b\n"}
    refused = Bash(files=files, cwd="/w", policy=Policy(deny=["pr"])).exec("diff -l x y; echo $?")
    assert refused.stdout.endswith("2\n")
    assert "pr" in refused.stderr
    # the static check knows -l runs pr
    guarded = Bash(files=files, cwd="/w", policy=Policy(deny=["pr"]))
    assert guarded.check("diff -l x y").status == "denied"
    assert guarded.check("diff x y").status == "allowed"
    allowed = Bash(files=files, cwd="/w").exec(
        "diff -l x y | grep -c 'diff -l x y'; diff -l x y >/dev/null; echo $?"
    )
    assert allowed.stdout == "1\n1\n"


def test_unified_headers_use_mtimes() -> None:
    vfs = make_vfs({"a": "1\n", "b": "2\n"})
    vfs.view("/").utime("/home/user/a", 0, 1704067200_500_000_000)
    vfs.view("/").utime("/home/user/b", 0, 1704067201 * 10**9)
    r = run_command(["diff", "-u", "a", "b"], vfs=vfs, env={"TZ": "UTC"})
    assert r.stdout.splitlines()[:2] == [
        b"--- a\t2024-01-01 00:00:00.500000000 +0000",
        b"+++ b\t2024-01-01 00:00:01.000000000 +0000",
    ]
    assert r.status == 1


PATCH_FILES: dict[str, bytes | str] = {
    "p1": "1\n2\n3\n4\n5\n",
    "t4": "a\nb\n1\n2\n3\n4\n5\n",
    "t5": "q\n2\nw\n4\n5\n",
    "done": "1\nX\n3\n4\n5\n6\n",
    "u.diff": "--- p1\n+++ p2\n@@ -1,5 +1,6 @@\n 1\n-2\n+X\n 3\n 4\n 5\n+6\n",
    "n.diff": "2c2\n< 2\n---\n> X\n5a6\n> 6\n",
    "c.diff": "*** p1\n--- p2\n***************\n*** 1,5 ****\n  1\n! 2\n  3\n  4\n  5\n--- 1,6 ----\n  1\n! X\n  3\n  4\n  5\n+ 6\n",
    "r.diff": "--- a/p1\n+++ b/p1\n@@ -1,5 +1,6 @@\n 1\n-2\n+X\n 3\n 4\n 5\n+6\n",
    "new.diff": "--- /dev/null\n+++ newf\n@@ -0,0 +1,2 @@\n+hello\n+world\n",
    "z.diff": "--- zz\n+++ zz\n@@ -1,5 +1,6 @@\n 1\n-2\n+X\n 3\n 4\n 5\n+6\n",
    "e.diff": "5a\n6\n.\n2c\nX\n.\n",
    "bad.ed": "2c\nQ\n.\n9d\n",
    "dollar.ed": "$a\nz\n.\n",
    "empty.diff": "",
    "blank.diff": "\n",
}

PATCH_CASES = [
    ["patch", "p1", "u.diff"],
    ["patch", "-i", "u.diff", "p1"],
    ["patch", "t4", "u.diff"],
    ["patch", "t5", "u.diff"],
    ["patch", "p1", "n.diff"],
    ["patch", "p1", "c.diff"],
    ["patch", "-p1", "-i", "r.diff"],
    ["patch", "-i", "new.diff"],
    ["patch", "--dry-run", "p1", "u.diff"],
    ["patch", "-N", "done", "u.diff"],
    ["patch", "done", "u.diff"],
    ["patch", "-R", "done", "u.diff"],
    ["patch", "-i", "nope"],
    ["patch", "-i", "z.diff"],
    ["patch", "-s", "p1", "u.diff"],
    # -R on a patch that is not reversed: GNU's "Unreversed" wording, in each mode
    ["patch", "-R", "p1", "u.diff"],
    ["patch", "-R", "-t", "p1", "u.diff"],
    ["patch", "-R", "-N", "p1", "u.diff"],
    ["patch", "-R", "--dry-run", "p1", "u.diff"],
    ["patch", "-t", "done", "u.diff"],
    # ed scripts (-e, or found to be one): silent, applied through ed
    ["patch", "-e", "p1", "e.diff"],
    ["patch", "p1", "e.diff"],
    ["patch", "--dry-run", "-e", "p1", "e.diff"],
    ["patch", "-e", "p1", "bad.ed"],
    ["patch", "-e", "p1", "dollar.ed"],
    # empty input is nothing to do (`git diff | patch -p1` of no change); a blank line is garbage
    ["patch", "p1", "empty.diff"],
    ["patch", "-p1", "-i", "empty.diff"],
    ["patch", "p1", "blank.diff"],
]


@pytest.mark.parametrize("argv", PATCH_CASES, ids=[" ".join(c) for c in PATCH_CASES])
def test_patch_output(argv: list[str]) -> None:
    compare(argv, b"garbage\n", PATCH_FILES)


def test_patch_of_empty_standard_input() -> None:
    compare(["patch", "-p1"], b"", PATCH_FILES)


@pytest.mark.parametrize(
    ("argv", "target", "expected"),
    [
        (["patch", "p1", "u.diff"], "p1", b"1\nX\n3\n4\n5\n6\n"),
        (["patch", "-i", "u.diff"], "p1", b"1\nX\n3\n4\n5\n6\n"),
        (["patch", "t4", "u.diff"], "t4", b"a\nb\n1\nX\n3\n4\n5\n6\n"),
        (["patch", "p1", "n.diff"], "p1", b"1\nX\n3\n4\n5\n6\n"),
        (["patch", "p1", "c.diff"], "p1", b"1\nX\n3\n4\n5\n6\n"),
        (["patch", "-p1", "-i", "r.diff"], "p1", b"1\nX\n3\n4\n5\n6\n"),
        (["patch", "-i", "new.diff"], "newf", b"hello\nworld\n"),
        (["patch", "-R", "done", "u.diff"], "done", b"1\n2\n3\n4\n5\n"),
        (["patch", "-o", "out", "p1", "u.diff"], "out", b"1\nX\n3\n4\n5\n6\n"),
        (["patch", "-b", "p1", "u.diff"], "p1.orig", b"1\n2\n3\n4\n5\n"),
        (["patch", "t5", "u.diff"], "t5.rej", PATCH_FILES["u.diff"].encode()),  # type: ignore[union-attr]
    ],
)
def test_patch_results(argv: list[str], target: str, expected: bytes) -> None:
    r = run_command(argv, files=PATCH_FILES)
    assert r.vfs.view("/home/user").read_bytes(target) == expected


def test_patch_roundtrip_random() -> None:
    rng = random.Random(3)
    for _ in range(20):
        a = [f"l{rng.randint(0, 9)}\n" for _ in range(rng.randint(1, 30))]
        b = list(a)
        for _ in range(4):
            if rng.random() < 0.5 and b:
                del b[rng.randrange(len(b))]
            else:
                b.insert(rng.randint(0, len(b)), f"n{rng.randint(0, 9)}\n")
        files = {"a": "".join(a), "b": "".join(b)}
        d = run_command(["diff", "-u", "a", "b"], files=files)
        r = run_command(["patch", "a"], stdin=d.stdout, files=files)
        assert r.status == 0, r.stdout
        assert r.vfs.view("/home/user").read_bytes("a") == "".join(b).encode()


def test_sdiff_and_diff3() -> None:
    compare(["sdiff", "-w", "40", "x", "y"], b"", FILES)
    r = run_command(["diff3", "x", "y", "x"], files=FILES)
    assert r.status == 2 and b"not supported" in r.stderr
