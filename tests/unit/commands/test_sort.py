"""sort: compared with GNU sort 9.1, plus the external merge path."""

from __future__ import annotations

import random

import pytest

from sandbash.commands.sort import main as sort_main
from sandbash.limits import Limits
from sandbash.testing import run_command

from .test_textbasic import compare

DATA = (
    b"b 2 x\nA 10 y\na 2 z\n  c 1.5 w\nb 2 x\n\n10 -1 x\nfeb 3K q\nJan 2M r\n1e3 0x10 s\nnan\n"
    b"-inf 1.2.3 t\n\tz -0 u\n0x1p3 .5 v\n+5 1,000 w\n"
)
COLON = b"b:2 x\nA:10 y\na:2 z\n  c:1.5 w\nb:2 x\nq:1:3\n::\n"
VERSIONS = (
    b"1.2.10\n1.2.9\n1.2\n1.2a\n1.2~\na.txt\n.hidden\n\n1.02\nfoo-1.10.tar.gz\nfoo-1.9.tar.gz\nv2\nv10\n"
)
HUMAN = b"1K\n2M\n-1G\n0\n3\n1.5K\n1024\n-2\n0K\n10Q\n"

ARGS = [
    [],
    ["-r"],
    ["-n"],
    ["-nr"],
    ["-k2,2"],
    ["-k2"],
    ["-k2,2n", "-k1,1r"],
    ["-u"],
    ["-f"],
    ["-fu"],
    ["-b", "-k2"],
    ["-k1.2,1.3"],
    ["-k3r"],
    ["-g"],
    ["-gr"],
    ["-h"],
    ["-M"],
    ["-V"],
    ["-d"],
    ["-i"],
    ["-s", "-k2,2"],
    ["-c"],
    ["-C"],
    ["-cu"],
    ["-z"],
    ["-k2,2", "-u"],
    ["-k2,2n", "-u"],
    ["-nu"],
    ["-k2.2b,2.3"],
    ["-k1,1", "-k3"],
    ["-bk2,2"],
    ["-n", "-k2"],
    ["-rk2,2g"],
    ["-k2,2h"],
    ["--sort=numeric"],
    ["-k1.1,1.1", "-s"],
    ["-dfk1"],
]


@pytest.mark.parametrize("args", ARGS, ids=[" ".join(a) or "plain" for a in ARGS])
def test_data(args: list[str]) -> None:
    compare(["sort", *args], DATA)


COLON_ARGS = [
    ["-t:", "-k2"],
    ["-t:", "-k2,2"],
    ["-t:", "-k2,2n"],
    ["-t", ":", "-k3,3", "-k1,1"],
    ["-t:", "-k2.2,2.3"],
    ["-t:", "-k2,2", "-u"],
    ["-t:", "-k1b,1"],
    ["-t:", "-k2.1b,2"],
]


@pytest.mark.parametrize("args", COLON_ARGS, ids=[" ".join(a) for a in COLON_ARGS])
def test_separator(args: list[str]) -> None:
    compare(["sort", *args], COLON)


# numeric keys read in one match (keys.numeric_extractor): separators that are blanks, digits,
# '.', '-' or special to a pattern; fields missing or empty; blanks before a number; fractions,
# signs, leading zeros, numbers longer than int() converts; keys to the end of the line
NUMBERS = (
    b"a:10:x 5\nb:-3.50:y\nc::z\nd: 007:q\ne:1e3:r\nf:-0:s\ng:.5:t\nh\ni:9:\tu\nj:-.25\n"
    b"k:" + b"9" * 5000 + b"\nl:-" + b"8" * 4500 + b".5\nm:12abc:v\nn:+4:w\no:\t 6:x\np:2.:y\nq:3-4:z\n"
)
NUMERIC_ARGS = [
    ["-t:", "-k2,2n"],
    ["-t:", "-k2n"],
    ["-t:", "-k2,3n"],
    ["-t:", "-k2,2nr", "-k1,1"],
    ["-t:", "-k3,3n", "-s"],
    ["-t:", "-k2,2n", "-u"],
    ["-t:", "-k2b,2n"],
    ["-t:", "-k9,9n"],
    ["-k2,2n"],
    ["-k1,1n"],
    ["-n"],
    ["-nu"],
    ["-t.", "-k2,2n"],
    ["-t-", "-k2,2n"],
    ["-t0", "-k2,2n"],
    ["-t ", "-k2,2n"],
    ["-t]", "-k2,2n"],
    ["-t\\", "-k2,2n"],
    ["-t:", "-k2,2", "-k2,2n"],
    ["-t:", "-k2,2fn"],
]


@pytest.mark.parametrize("args", NUMERIC_ARGS, ids=[" ".join(a) for a in NUMERIC_ARGS])
def test_numeric_keys(args: list[str]) -> None:
    sep = args[0][2:] if args[0].startswith("-t") else ":"
    compare(["sort", *args], NUMBERS)
    compare(["sort", *args], NUMBERS.replace(b":", sep.encode()[:1] or b":"))


# -t fields (a split with a count): separators special to a pattern or to a class, blanks, a letter; lines with fewer fields than the key, empty fields, equal keys under -u/-s
FIELD_SEPS = [":", "]", "\\", "^", "-", ".", " ", "\t", "*", "a", "["]
FIELD_ARGS = [["-k2,2"], ["-k3,3", "-u"], ["-k2,2r", "-k1,1"], ["-k3,3", "-s"], ["-k1,1", "-k2,2n"]]


@pytest.mark.parametrize("sep", FIELD_SEPS)
@pytest.mark.parametrize("args", FIELD_ARGS, ids=" ".join)
def test_field_keys(sep: str, args: list[str]) -> None:
    rows = ["b:2:x", "a:10:y", "c", "a::y", "b:2", ":1:z", "d:2:x:q", "", "a:10:w", "b:2:x"]
    data = "".join(row.replace(":", sep) + "\n" for row in rows).encode()
    compare(["sort", "-t", sep, *args], data)


@pytest.mark.parametrize("args", [["-V"], ["-Vr"], ["-V", "-u"]])
def test_version(args: list[str]) -> None:
    compare(["sort", *args], VERSIONS)


@pytest.mark.parametrize("args", [["-h"], ["-hr"], ["-hu"]])
def test_human(args: list[str]) -> None:
    compare(["sort", *args], HUMAN)


ERRORS = [
    ["nope"],
    ["-k0"],
    ["-k1.0"],
    ["-k1,0"],
    ["-kx"],
    ["-k1.x"],
    ["-t", "ab"],
    ["-gn"],
    ["-nM"],
    ["--sort=foo"],
    ["-k1,1bdfgr"],
    ["-k1.1.1"],
    ["-t", ""],
    ["--parallel=0"],
    ["--parallel=x"],
    ["-S", "10x"],
    ["-S", "x"],
    ["--batch-size=1"],
    ["-o", "a", "-o", "b"],
    ["--check=foo"],
    ["-c", "a", "b"],
    ["-y"],
    ["d"],
    ["-x"],
    # --random-source is opened only when a key is random
    ["--random-source=nope"],
    ["--random-source=d", "-u", "-k1,1"],
    ["-R", "--random-source=nope"],
    ["-k1,1R", "--random-source=d"],
    ["-k1,1", "-R", "--random-source=d"],
]


@pytest.mark.parametrize("args", ERRORS, ids=[" ".join(a) for a in ERRORS])
def test_errors(args: list[str]) -> None:
    compare(["sort", *args], b"b\na\n", {"a": "x\n", "b": "y\n", "d/f": ""})


FILES = {"a": "z\nd\nm\n", "b": "c\ny\n", "s1": "a\nc\ne\n", "s2": "b\nd\nf\n"}


@pytest.mark.parametrize(
    "argv",
    [
        ["sort", "a", "-", "b"],
        ["sort", "-m", "s1", "s2"],
        ["sort", "-m", "-r", "s2", "s1"],
        ["sort", "-c", "a"],
        ["sort", "-C", "s1"],
        ["sort", "-m", "s1", "nope"],
        ["sort", "-c", "-", "a"],
    ],
)
def test_files(argv: list[str]) -> None:
    compare(argv, b"q\nb\n", FILES)


def test_output_may_be_an_input() -> None:
    r = run_command(["sort", "-o", "a", "a", "b"], files=FILES)
    assert r.status == 0 and r.stdout == b""
    assert r.vfs.view("/home/user").read_bytes("a") == b"c\nd\nm\ny\nz\n"
    r = run_command(["sort", "-m", "-o", "s1", "s1", "s2"], files=FILES)
    assert r.vfs.view("/home/user").read_bytes("s1") == b"a\nb\nc\nd\ne\nf\n"


def test_random_is_seeded_and_groups_keys() -> None:
    r = run_command(["sort", "-R"], stdin=b"a\nb\na\nc\nb\na\n")
    lines = r.stdout.split(b"\n")[:-1]
    assert sorted(lines) == [b"a", b"a", b"a", b"b", b"b", b"c"]
    # identical keys are adjacent
    groups = [k for i, k in enumerate(lines) if i == 0 or lines[i - 1] != k]
    assert len(groups) == 3


def test_external_merge(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    data = b"".join(b"%d k%d\n" % (rng.randint(0, 5000), rng.randint(0, 50)) for _ in range(20000))
    expected = run_command(["sort", "-k2,2", "-n"], stdin=data).stdout
    expected_u = run_command(["sort", "-k2,2", "-u"], stdin=data).stdout
    monkeypatch.setattr(sort_main, "RUN_BYTES", 20000)
    limits = Limits(max_work=10**10)
    r = run_command(["sort", "-k2,2", "-n"], stdin=data, limits=limits)
    assert r.status == 0 and r.stdout == expected
    assert r.vfs.view("/").listdir("/tmp") == []  # runs are removed
    r = run_command(["sort", "-k2,2", "-u"], stdin=data, limits=limits)
    assert r.stdout == expected_u


def test_external_merge_quota(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sort_main, "RUN_BYTES", 1000)
    data = b"x" * 100 + b"\n"
    r = run_command(["sort"], stdin=data * 2000, limits=Limits(max_work=10**10))
    assert r.status == 0 and r.stdout == data * 2000


# the display widths sort --debug underlines (commands/textbasic/common.char_width with an invalid
# byte counted as one column): marks by category (a spacing mark with a combining class, U+1D165,
# takes a column; a non-spacing one none), format characters none but the soft hyphen and the
# prepended concatenation marks, Hangul medial vowels none, wide characters two, an invalid byte
# and a character cut by a key's byte offset one
WIDTH_LINES = [
    "a\u0301b",
    "a\u0903b",
    "a\U0001d165b",
    "a\u302eb",
    "a\u20ddb",
    "a\u00adb",
    "a\u0600b",
    "a\u200bb",
    "a\u1160b",
    "a\ud7b0b",
    "a\u3000b",
    "\U0001f600x",
    "a\tb",
]


@pytest.mark.parametrize("line", WIDTH_LINES, ids=[ascii(x) for x in WIDTH_LINES])
def test_debug_widths(line: str) -> None:
    data = line.encode() + b"\n"
    compare(["sort", "--debug"], data)
    compare(["sort", "--debug", "-k1.2"], data)


@pytest.mark.parametrize("data", [b"a\xffb\n", b"\xc3\n", b"x\xe6\x97\xa5y\n", b"a\xe6\x97\n"])
def test_debug_widths_of_bytes(data: bytes) -> None:
    compare(["sort", "--debug"], data)
    compare(["sort", "--debug", "-k1.3"], data)
