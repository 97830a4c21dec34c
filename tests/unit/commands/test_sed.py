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


# ------------------------------------------------------------ programs run over blocks of lines
# One s/// (first or every match, -n with p), -n /RE/p, /RE/d and their `!`: searched over whole blocks
# of lines with the regex in line mode (sed/blocks.py). Inputs span many reads, with long, empty and
# multibyte lines and an unterminated last line.
BLOCK_TEXT = (
    b"".join(b"%d user%d ERROR x%s ms=%d\n" % (i, i % 37, b"y" * (i % 5), i * 7) for i in range(9000))
    + b"\n\n"
    + b"z" * 150_000
    + b" user5\nt user7 x\n"
    + b"".join(b"row %d DEBUG\n" % i for i in range(4000))
    + b"tail user9 without newline"
)
BLOCK_SCRIPTS = [
    "s/ms=[0-9]*//",
    "s/[0-9]/#/g",
    "s/x*/-/g",
    "s/y*/-/",
    "s/^/> /",
    "s/$/ </g",
    "s/^$/EMPTY/",
    "s/\\(user\\)\\([0-9]*\\)/\\2\\1/g",
    "-E s/(user)([0-9]+)/\\2\\1/",
    "s/[a-z]\\+/\\U&/g",
    "s/\\<u/\\uU/g",
    "s/\\bx/Y/g",
    "s/.*/[&]/",
    "s/[[:digit:]][[:space:]]/_/g",
    "s/USER/u/gI",
    "s/[^a-z]/_/g",
    "/ERROR/d",
    "/ERROR/!d",
    "/^$/d",
    "/x*/!d",
    "/[0-9]$/d",
    "-n /DEBUG/p",
    "-n /DEBUG/!p",
    "-n /^$/p",
    "-n /^ROW/Ip",
    "-n s/user\\([0-9]\\)$/U\\1/p",
    "-n s/x*/-/gp",
    "-n s/ERROR/E/gp",
    "-E -n s/^([0-9]+) .*/\\1/p",
]


@needs_sed
@pytest.mark.parametrize("script", BLOCK_SCRIPTS)
def test_sed_block_programs_match_gnu(script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from sandbash.commands.sed.run import Runner

    def no_cycles(*_a: object) -> None:
        raise AssertionError("ran cycle by cycle")

    monkeypatch.setattr(Runner, "_loop", no_cycles)  # (the block path is the one taken)
    *opts, prog = script.split(" ")
    files = {"f": BLOCK_TEXT}
    for argv, stdin in ((["sed", *opts, prog, "f"], b""), (["sed", *opts, prog], BLOCK_TEXT)):
        exp_out, exp_err, exp_status = real_command(argv, stdin, files=files)
        got = run_command(argv, stdin, files=files)
        assert (got.stdout, got.status) == (exp_out, exp_status), (got.stderr, exp_err)


@pytest.mark.parametrize(
    "argv",
    [
        ["sed", "s/a*/b/2"],  # an occurrence count
        ["sed", "2s/a*/b/"],  # an address
        ["sed", "s/a*/b/w /dev/stdout"],
        ["sed", "s/a*$/b/M"],
        ["sed", "s/\\`a*/b/"],  # the pattern space's own anchors
        ["sed", "s/a*\\'/b/"],
        ["sed", "s/a*\\nb/c/"],
        ["sed", "-z", "s/a*/b/"],
        ["sed", "-u", "s/a*/b/"],
        ["sed", "--posix", "s/a*/b/"],
        ["sed", "s/a*/b/p"],  # printed twice without -n
        ["sed", "/a*/,/b/d"],
        ["sed", "-n", "/a*/d"],
        ["sed", "-s", "s/a*/b/", "f", "f"],
        ["sed", "s/a*/b/", "f", "-"],
        ["sed", "-i", "s/a*/b/", "f"],
        ["sed", "s/a*/b/;s/b/c/"],
        ["sed", "s//b/"],
    ],
    ids=lambda a: " ".join(a[1:]),
)
def test_sed_programs_with_state_run_cycle_by_cycle(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from sandbash.commands.sed import blocks

    def no_blocks(*_a: object) -> int:
        raise AssertionError("ran over blocks")

    monkeypatch.setattr(blocks, "run", no_blocks)
    files = {"f": "a\nab\nb"}
    exp_out, _exp_err, exp_status = real_command(argv, b"a\nab\nb", files=files)
    got = run_command(argv, b"a\nab\nb", files=files)
    assert (got.stdout, got.status) == (exp_out, exp_status), got.stderr


# s///g whose matches are each one ASCII character of a set, or one ASCII literal, is done by bytes
# operations (sed/charsub.py): translate, split and join, bytes.replace. Text with multibyte
# characters, invalid UTF-8, long lines and runs of matches across reads.
CHAR_TEXT = (
    BLOCK_TEXT[:60_000]
    + "é€ 𝄞 naïve x9 ẞ K ſ k s\n".encode() * 300
    + b"\xff\xc3 a1\xe2\x82 9\xc3\n" * 200
    + b"9" * 140_000
    + b"\n"
    + BLOCK_TEXT[-30_000:]
)
CHAR_SCRIPTS = [
    "s/[0-9]/#/g",  # every replacement one byte: translate
    "s/[a-f]/\\U&/g",
    "s/ /_/g",
    "s/[[:xdigit:]]/./g",
    "s/[aeiou]/V/Ig",  # (no letter that folds to a non-ASCII one)
    "s/[0-9]//g",  # every match deleted
    "s/[[:digit:]]//g",
    "s/[0-9]/<&>/g",  # a replacement per byte: split and join
    "s/[0-9]/<>/g",  # one replacement for all
    "s/\\([xyz]\\)/[\\1\\1]/g",
    "-E s/([.=])/\\1\\1/g",
    "s/[a-z]/\\u&-/g",
    "s/[9]/\\n/g",
    "s/9/nine/g",
    "s/[=]/&&&/g",
    "s/user/U/g",  # ASCII literal text: bytes.replace
    "s/ER/&&/g",
    "s/ms=/&ms=/g",
    "-E s/(ERROR)/<\\1>/g",
    "s/\\(99\\)/&/g",
    "s/zz/z/g",
    "s/user/U/",  # the first match of each line: bytes.replace once a line
    "s/9/nine/",
    "s/ERROR/&&/",
    "s/ /\\n/",
    "s/zz//",
]
NOT_CHAR_SCRIPTS = [
    "s/[^0-9]/#/g",  # takes non-ASCII characters
    "s/[[:alpha:]]/#/g",
    "s/./#/g",
    "s/\\w/#/g",
    "s/[é9]/#/g",
    "s/é/e/g",
    "s/[ks]/#/Ig",  # K (KELVIN SIGN) and ſ fold to them
    "s/user/U/Ig",
    "s/[0-9]\\+/#/g",  # more than one character
    "s/[0-9]\\{2\\}/#/g",
    "s/^[0-9]/#/g",
    "s/\\(9\\)\\1/#/g",
    "-E s/1|2/#/g",
    "s/[0-9]/#/",  # the first match of a set
    "s/US/u/I",
]


def _char_path(monkeypatch: pytest.MonkeyPatch, taken: bool) -> None:
    from sandbash.commands.sed import blocks, charsub
    from sandbash.commands.sed.run import Runner
    from sandbash.regex import Regex

    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("the other path")

    monkeypatch.setattr(Runner, "_loop", refuse)
    if taken:
        monkeypatch.setattr(blocks, "_substitute_spans", refuse)
        monkeypatch.setattr(blocks, "_first_per_line", refuse)
        monkeypatch.setattr(Regex, "finditer", refuse)
        monkeypatch.setattr(Regex, "spans", refuse)
    else:
        monkeypatch.setattr(charsub.CharSub, "run", refuse)


@needs_sed
@pytest.mark.parametrize(
    ("script", "taken"), [(s, True) for s in CHAR_SCRIPTS] + [(s, False) for s in NOT_CHAR_SCRIPTS]
)
def test_sed_char_substitution_matches_gnu(script: str, taken: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    _char_path(monkeypatch, taken)
    *opts, prog = script.split(" ")
    files = {"f": CHAR_TEXT}
    for argv, stdin in ((["sed", *opts, prog, "f"], b""), (["sed", *opts, prog], CHAR_TEXT)):
        exp_out, exp_err, exp_status = real_command(argv, stdin, files=files)
        got = run_command(argv, stdin, files=files)
        assert (got.stdout, got.status) == (exp_out, exp_status), (got.stderr, exp_err)


@pytest.mark.parametrize(
    ("script", "out"),
    [
        ("s/x/&&&&&&&&/g", b"x" * 16),
        ("s/[x]/[&]/g", b"[x][x]"),
        ("s/[xy]/&&/g", b"xxxx"),
        ("s/xx/&&&/g", b"xxxxxx"),
    ],
)
def test_sed_char_substitution_is_bounded(script: str, out: bytes) -> None:
    from sandbash.limits import LimitExceeded, LimitKind, Limits

    limits = Limits(max_string_length=1 << 20)
    # one line made longer than the string limit is the limit; many short lines stream out
    with pytest.raises(LimitExceeded) as e:
        run_command(["sed", script], b"x" * 700_000 + b"\n", limits=limits)
    assert e.value.kind == LimitKind.MAX_STRING_LENGTH
    r = run_command(["sed", script], b"xx\n" * 300_000, limits=limits)
    assert r.stdout == (out + b"\n") * 300_000
    # a replacement of 100 KB per character: written a few characters at a time, never held whole
    big = "s/[0-9]/" + "y" * 100_000 + "/g"
    r = run_command(["sed", big], b"123\n" * 40, limits=Limits(max_memory=64 << 20))
    assert r.status == 0 and r.stdout == (b"y" * 300_000 + b"\n") * 40


def test_sed_block_substitution_is_bounded() -> None:
    from sandbash.limits import LimitExceeded, LimitKind, Limits

    # a line made longer than the string limit by one s///g is the limit, as cycle by cycle
    with pytest.raises(LimitExceeded) as e:
        run_command(
            ["sed", "s/x/&&&&&&&&/g"], b"x" * 200_000 + b"\n", limits=Limits(max_string_length=1 << 20)
        )
    assert e.value.kind == LimitKind.MAX_STRING_LENGTH
    # many short lines grown together are written as they are made
    r = run_command(["sed", "s/x/&&&&&&&&/g"], b"xx\n" * 200_000, limits=Limits(max_string_length=1 << 20))
    assert r.stdout == (b"x" * 16 + b"\n") * 200_000
    with pytest.raises(LimitExceeded) as e:  # (the same over -n s///p and over a line of many writes)
        run_command(
            ["sed", "-n", "s/x*/&&/gp"], b"x" * 600_000 + b"\n", limits=Limits(max_string_length=1 << 20)
        )
    assert e.value.kind == LimitKind.MAX_STRING_LENGTH


@pytest.mark.parametrize(
    "argv",
    [
        ["sed", "s/x*/-/g"],
        ["sed", "-n", "/q*/p"],
        ["sed", "s/x/y/"],
        ["sed", "/q/!d"],
    ],
)
def test_block_paths_answer_the_deadline(argv: list[str]) -> None:
    """A long input through sed's block paths ends at the run's deadline (the per-match loops check
    it every 4096 matches): which limit ended it is asserted, not how fast."""
    from sandbash.limits import LimitExceeded, LimitKind, Limits

    # 30 MB: 0.2 s of CPU for the quickest (s/x/y/) on a quiet machine, many seconds for the rest;
    # a deadline well inside the quickest run
    data = b"xx qq row\n" * 3_000_000
    with pytest.raises(LimitExceeded) as e:
        run_command([*argv, "f"], files={"f": data}, limits=Limits(timeout=0.05, max_memory=1 << 30))
    assert e.value.kind == LimitKind.TIMEOUT


def test_sed_literal_substitution_is_bounded() -> None:
    from sandbash.limits import LimitExceeded, LimitKind, Limits

    # ASCII literal text made longer: one long line is replaced match by match and ends at the string
    # limit without being made whole first; many lines stream out whole
    grow = "s/ab/" + "y" * 1000 + "/g"
    for data in (b"ab" * 2_000_000 + b"\n", b"q\n" + b"abab" * 1_000_000):
        with pytest.raises(LimitExceeded) as e:
            run_command(["sed", grow], data, limits=Limits(max_string_length=1 << 20, max_memory=96 << 20))
        assert e.value.kind == LimitKind.MAX_STRING_LENGTH
    r = run_command(["sed", grow], b"ab-ab\n" * 20_000, limits=Limits(max_memory=96 << 20))
    assert r.stdout == (b"y" * 1000 + b"-" + b"y" * 1000 + b"\n") * 20_000
    # a line longer than a piece among short ones: replaced match by match, the same text
    data = b"aa\n" * 1000 + b"x" + b"a" * 2_999_999 + b"\n" + b"aaa\n" * 1000
    r = run_command(["sed", "s/aa/a&a/g"], data, limits=Limits(max_memory=96 << 20))
    assert r.stdout == b"aaaa\n" * 1000 + b"x" + b"aaaa" * 1_499_999 + b"a\n" + b"aaaaa\n" * 1000


@pytest.mark.parametrize("prog", ["s/[xq]/<&>/g", "s/q/Q/g", "s/[xq]//g", "s/[q]/QQ/g", "s/qq/Q/g"])
def test_char_substitution_answers_the_deadline(prog: str) -> None:
    """sed's bytes paths of s///g (sed/charsub.py) over endless input end at the run's deadline, and
    what they make streams out (the limit named, not how fast)."""
    from sandbash.api import Bash
    from sandbash.errors import ExecutionLimitError
    from sandbash.limits import Limits

    with pytest.raises(ExecutionLimitError) as info:
        Bash(limits=Limits(timeout=1.0, max_memory=256 << 20)).exec(f"yes 'xx qq row' | sed '{prog}' | wc -c")
    assert info.value.limit == "timeout"


@pytest.mark.parametrize(
    ("script", "limit"),
    [
        ("yes | tr -d '\\n' | sed s/y/n/g | wc -c", "max_memory"),  # an endless line is held, and counted
        ("yes | tr -d '\\n' | sed s/yy/n/ | wc -c", "max_memory"),
        ("yes | tr -d '\\n' | sed 's/[y]/<&>/g' | wc -c", "max_memory"),
        # a line grown a thousand times is the string limit, never made whole first
        (
            "head -c 300000 /dev/zero | tr '\\0' a | sed \"s/a/$(printf 'y%.0s' {1..1000})/g\" | wc -c",
            "max_string_length",
        ),
        (
            "head -c 300000 /dev/zero | tr '\\0' a | sed \"s/aa/$(printf 'y%.0s' {1..1000})/g\" | wc -c",
            "max_string_length",
        ),
    ],
)
def test_sed_literal_and_char_paths_count_their_memory(script: str, limit: str) -> None:
    from sandbash.api import Bash
    from sandbash.errors import ExecutionLimitError
    from sandbash.limits import Limits

    # (the deadline far off: the limit that ends the run is the memory's, not the time's)
    with pytest.raises(ExecutionLimitError) as info:
        Bash(limits=Limits(timeout=60.0, max_memory=64 << 20, max_string_length=64 << 20)).exec(script)
    assert info.value.limit == limit
