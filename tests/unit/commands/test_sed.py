"""sed against GNU sed 4.9 (table-driven; skipped without sed)."""

from __future__ import annotations

import pytest

from realtools import have, real_command
from sandbash.testing import run_command

needs_sed = pytest.mark.skipif(not have("sed"), reason="GNU sed not available")

FILES = {
    "in.txt": "ab\nbc\ncd\nde\n",
    "nums.txt": "".join(f"{i}\n" for i in range(1, 11)),
    "noeol.txt": "one\ntwo",
    "words.txt": "hello world\nfoo bar baz\nHello Again\n",
    "script.sed": "s/o/0/g\n# comment\n/bar/d\n",
    "other.txt": "X1\nX2\n",
    "text.sed": "/b/ {\na \\   after\\tTAB\ni before\\nsplit\n}\n",
    "y.sed": "h\ny/\\a\\b/AB/;p\ng;y,\\,,Z,;p\n",
    "labels.sed": ": top; /\\\\$/{ N; b top }\ns/\\n/+/g\n",
    "cont.txt": "a \\\nb\nc\n",
}

SCRIPTS = [
    "p",
    "-n p",
    "s/a/X/g",
    "2d",
    "$!N;P;D",
    "n;d",
    ":a;N;$!ba;s/\\n/,/g",
    "1!G;h;$!d",
    "/b/,/d/c\\\nCHANGED",
    "s/\\(.\\)\\(.\\)/\\2\\1/",
    "y/abc/xyz/",
    "2q",
    "2Q",
    "=",
    "l",
    "0,/b/d",
    "2,+1d",
    "1~2d",
    "a foo",
    "i\\\nbar",
    "$a end",
    "s/.*/\\U&/",
    "s/\\w\\+/\\u&/g",
    "N;N;s/\\n/+/2",
    "/c/{s/c/C/;p}",
    "s/x*/-/g",
    "3,1p",
    "h;G",
    "x;$!d",
    "s/b/[&]/2",
    "s/[bc]/<&>/2g",
    "/b/!d",
    "2,3!d",
    "$d",
    "1d;$d",
    "-n /b/{p;p}",
    "-n $=",
    "s/$/ end/",
    "s/^/> /",
    "-E s/(a|b)+/<\\1>/",
    "-r s/([a-z])([a-z])/\\2\\1/g",
    "s/B/x/I",
    "/B/Id",
    "-n /c/,$p",
    "-n 2,/d/p",
    "-n /a/,/a/p",
    "2~3d",
    "0~2d",
    "2,~4d",
    "s/./&&/3",
    "s/\\n//",
    "G",
    "H;$!d;x",
    "-s -n $p",
    "N;s/\\n/ /",
    "$!{N};P;D",
    "-n l 3",
    "s/a\\|c/Z/g",
    "s/\\(b\\)*c/[\\1]/",
    "y/\\n/X/",
    "s%b%/%",
    "s,b,\\,,",
    "\\,c,d",
    "\\%b%s%%X%",
    "/b/s//X/",
    "s/b/\\n/",
    "s/b/a\\\nb/",
    "s/[[:alpha:]]/./2",
    "s/\\bb/X/g",
    "s/\\<./X/g",
    "s/.\\>/X/g",
    "s/\\Bc/X/",
    "-E s/a{0}b/X/",
    "-E s/(x)?b/[\\1]/",
    "t;s/b/B/;ta;s/$/ no/;b;:a;s/$/ yes/",
    "s/b/B/;T;s/$/ !/",
    "/b/{/c/d}",
    "1{h;d};G",
    "-z s/\\n/,/g",
    "s/b/\\x41/",
    "s/b/\\o101\\d066/",
    "s/\\x62/X/",
    "c\\\nall",
    "2c two",
    "/c/a\\\nA1\\\nA2",
    "-n /b/w /dev/stdout",
    "F",
    "$=",
    "s/\\(a\\)\\|b/\\1/g",
    "-n s/b/X/p",
    "-n s/b/X/gpw /dev/stdout",
    "z;s/^$/empty/",
    "s/c/\\L&X\\E&Y/",
    "s/\\(.*\\)/\\u\\1/",
    "s/.*/\\L\\u&/",
    "-E s/(.)(.)/\\U\\1\\E\\2/",
    "--posix -n p",
    "2{q5}",
    "q3",
    "Q7",
    "s/bc/-/g",
    "s/c/x\\ny/g",
    "s/d/DD/gw /dev/stdout",
    "-n s/b/X/w /dev/stdout",
]

ERRORS = [
    "k",
    "{p",
    "p}",
    "}",
    "s/a/b/q",
    "bfoo",
    "y/ab/c/",
    "1,p",
    "p x",
    "0p",
    "0,5p",
    "s/x/\\1/",
    "a",
    "s/a",
    "s/a/b",
    "y/a/",
    ",p",
    "1,2,3p",
    "s/\\(a/x/",
    "s/[a/x/",
    "/x",
    "s/a/b/gg",
    "s/a/b/pp",
    "s/a/b/0",
    "s/a/b/1/",
    ": ",
    "-E s/a{1/x/",
    "s/a\\{1/x/",
    "!!p",
    "3!!d",
    "r",
    "w",
    "1,2=",
    "=x",
    "v 5.0",
    "v 4.x",
    "v 4.9.1",
    "s/a/b\nc/",
    "s/a\nb/c/",
    "dp",
    "-E s/*a/x/",
    "s/a**/x/",
    "s/[[:foo:]]/x/",
]


@needs_sed
@pytest.mark.parametrize("script", SCRIPTS)
def test_sed_scripts_match_gnu(script: str) -> None:
    opts: list[str] = []
    parts = script.split(" ", 1) if script.startswith("-") else [script]
    while parts[0].startswith("-") and len(parts) == 2:
        opts.append(parts[0])
        parts = parts[1].split(" ", 1) if parts[1].startswith("-") else [parts[1]]
    argv = ["sed", *opts, parts[0], "in.txt"]
    for file in ("in.txt", "noeol.txt"):
        argv[-1] = file
        exp_out, exp_err, exp_status = real_command(argv, files=FILES)
        got = run_command(argv, files=FILES)
        assert (got.stdout, got.status) == (exp_out, exp_status), (file, got.stderr, exp_err)


@needs_sed
@pytest.mark.parametrize("script", ERRORS)
def test_sed_errors_match_gnu(script: str) -> None:
    argv = ["sed", script] if not script.startswith("-E ") else ["sed", "-E", script[3:]]
    exp_out, exp_err, exp_status = real_command(argv, b"a\n")
    got = run_command(argv, b"a\n")
    assert (got.stdout, got.stderr, got.status) == (exp_out, exp_err, exp_status)


ARGVS = [
    ["sed", "-n", "-e", "1p", "-e", "3p", "nums.txt"],
    ["sed", "--expression=2d", "--quiet", "-e", "p", "in.txt"],
    ["sed", "-f", "script.sed", "words.txt"],
    ["sed", "-e", "a\\", "-e", "appended", "in.txt"],
    ["sed", "$p", "in.txt", "nums.txt"],
    ["sed", "-s", "$p", "in.txt", "nums.txt"],
    ["sed", "-s", "-n", "1p;F", "in.txt", "nums.txt"],
    ["sed", "-n", "$=", "in.txt", "missing.txt"],
    ["sed", "p", "missing.txt"],
    ["sed", "2r other.txt", "in.txt"],
    ["sed", "r missing.txt", "in.txt"],
    ["sed", "R other.txt", "in.txt"],
    ["sed", "-n", "/b/w out.txt", "in.txt"],
    ["sed", "1~3p;d", "nums.txt"],
    ["sed", "-n", "3,+2p", "nums.txt"],
    ["sed", "-n", "/4/,~4p", "nums.txt"],
    ["sed", "5q", "nums.txt"],
    ["sed", "-n", "$p", "noeol.txt"],
    ["sed", "a X", "noeol.txt"],
    ["sed", "-l", "4", "-n", "l", "words.txt"],
    ["sed"],
    ["sed", "--bogus"],
    ["sed", "-f", "missing.sed", "in.txt"],
    ["sed", "-f", "text.sed", "in.txt"],
    ["sed", "-n", "-f", "y.sed", "in.txt"],
    ["sed", "-f", "labels.sed", "cont.txt"],
    ["sed", "#n\n$p", "in.txt"],
    ["sed", "#nx\n$p", "in.txt"],
    ["sed", "-n", "1d;1,3p", "in.txt"],
    ["sed", "-n", "1,2d;1,/d/p", "in.txt"],
    ["sed", "s/b/x/;T;n;: l;s/d/y/;t q;n;b l;: q;q", "in.txt"],
    ["sed", "v 4.2", "in.txt"],
    ["sed", "-n", "w wout.txt", "noeol.txt"],
    ["sed", "s/o/0/g", "noeol.txt"],
    ["sed", "s/o/0/g", "noeol.txt", "in.txt"],
    ["sed", "s/o/0/g", "missing.txt"],
]


@needs_sed
@pytest.mark.parametrize("argv", ARGVS, ids=[" ".join(a) for a in ARGVS])
def test_sed_argv_match_gnu(argv: list[str]) -> None:
    exp_out, _exp_err, exp_status = real_command(argv, files=FILES)
    got = run_command(argv, files=FILES)
    assert (got.stdout, got.status) == (exp_out, exp_status), got.stderr


def test_sed_in_place_and_backup() -> None:
    r = run_command(["sed", "-i.bak", "s/a/A/", "f.txt", "g.txt"], files={"f.txt": "abc\n", "g.txt": "xa\n"})
    assert r.status == 0 and r.stdout == b""
    view = r.vfs.view("/home/user")
    assert view.read_bytes("f.txt") == b"Abc\n" and view.read_bytes("f.txt.bak") == b"abc\n"
    assert view.read_bytes("g.txt") == b"xA\n"
    r = run_command(["sed", "-i", "-n", "$p", "f.txt", "g.txt"], files={"f.txt": "1\n2\n", "g.txt": "3\n4\n"})
    view = r.vfs.view("/home/user")
    assert view.read_bytes("f.txt") == b"2\n" and view.read_bytes("g.txt") == b"4\n"
    r = run_command(["sed", "-i", "bak/*", "p", "f.txt"], files={"f.txt": "1\n"})


def test_sed_w_file_written() -> None:
    r = run_command(["sed", "-n", "/b/w out.txt", "in.txt"], files=FILES)
    assert r.vfs.view("/home/user").read_bytes("out.txt") == b"ab\nbc\n"


def test_sed_endless_branch_is_bounded() -> None:
    from sandbash.limits import LimitExceeded, Limits

    with pytest.raises(LimitExceeded):
        run_command(["sed", ":a;ba"], b"x\n", limits=Limits(max_sed_iterations=1000))


def test_sed_long_join_loop_is_not_limited() -> None:
    from sandbash.limits import Limits

    data = b"".join(b"%d\n" % i for i in range(3000))
    r = run_command(["sed", ":a;N;$!ba;s/\\n/,/g"], data, limits=Limits(max_sed_iterations=1000))
    assert r.stdout.count(b",") == 2999


def test_sed_large_input_streams() -> None:
    import time

    data = b"".join(b"line %d foo\n" % i for i in range(100_000))
    t = time.monotonic()
    r = run_command(["sed", "s/foo/bar/;/5 bar$/d"], data)
    assert r.stdout.count(b"bar") == 90_000
    assert time.monotonic() - t < 10


def test_sed_literal_global_substitution_across_chunks() -> None:
    # `s/LITERAL/TEXT/g` runs on whole blocks of lines: matches at block edges and long lines
    line = b"x" * 70_000 + b"needle" + b"y" * 70_000
    data = b"".join(b"%d needle %s\n" % (i, b"n" * (i % 7)) for i in range(50_000)) + line + b"\n" + line
    r = run_command(["sed", "s/needle/pin/g"], data)
    assert r.stdout == data.replace(b"needle", b"pin")
    assert r.status == 0
    twice = data.replace(b"needle", b"needle needle")
    r = run_command(["sed", "s/needle/pin/"], twice)
    assert r.stdout == b"\n".join(ln.replace(b"needle", b"pin", 1) for ln in twice.split(b"\n"))
