"""grep/egrep/fgrep against GNU grep 3.8 (table-driven; skipped without grep)."""

from __future__ import annotations

import pytest

from realtools import have, real_command
from sandbash.testing import run_command

needs_grep = pytest.mark.skipif(not have("grep"), reason="GNU grep not available")

TEXT = "apple pie\nbanana split\nCherry tart\napple crumble\n\nkiwi\nfoo bar baz\nfoo-bar\nfoobar\n"
FILES = {
    "a.txt": TEXT,
    "b.txt": "one\ntwo apple\nthree\n",
    "noeol.txt": "first\nlast apple",
    "d/x.txt": "apple in d\n",
    "d/y.log": "apple log\n",
    "d/sub/z.txt": "deep apple\n",
    "pats": "apple\nkiwi\n",
    "bin.dat": "abc\0apple\n",
    "latin.txt": b"ok apple\n\xff apple\nlast apple\n",
    "ctx.txt": "".join(f"line{i}\n" for i in range(1, 31)),
}

CASES = [
    # basic matching and regex flavours
    ["grep", "apple", "a.txt"],
    ["grep", "-i", "cherry", "a.txt"],
    ["grep", "-y", "CHERRY", "a.txt"],
    ["grep", "-v", "apple", "a.txt"],
    ["grep", "-c", "apple", "a.txt"],
    ["grep", "-cv", "apple", "a.txt"],
    ["grep", "-n", "a", "a.txt"],
    ["grep", "-b", "apple", "a.txt"],
    ["grep", "-nb", "-o", "an", "a.txt"],
    ["grep", "-o", "a[np]*", "a.txt"],
    ["grep", "-w", "foo", "a.txt"],
    ["grep", "-wo", "foo\\|bar", "a.txt"],
    ["grep", "-x", "kiwi", "a.txt"],
    ["grep", "-x", "-e", "", "a.txt"],
    ["grep", "-E", "ap+le|kiwi", "a.txt"],
    ["grep", "-F", "a.p", "a.txt"],
    ["grep", "-F", "-e", "pie", "-e", "tart", "a.txt"],
    ["grep", "-e", "pie", "-e", "kiwi", "a.txt"],
    ["grep", "-E", "(ap)(p)le \\2?", "a.txt"],
    ["grep", "\\(an\\)\\1", "a.txt"],
    ["grep", "-E", "\\<ba", "a.txt"],
    ["grep", "-o", "\\w\\+", "b.txt"],
    ["grep", "-P", "\\d+|ap(?=ple)", "a.txt", "b.txt"],
    ["grep", "-Po", "a\\w+?e", "a.txt"],
    ["grep", "-f", "pats", "a.txt"],
    ["grep", "", "b.txt"],
    ["grep", "-c", "", "a.txt"],
    ["grep", "-e", "x\ny", "a.txt"],
    ["egrep", "pie|tart", "a.txt"],
    ["fgrep", "a.t", "a.txt"],
    # files and names
    ["grep", "apple", "a.txt", "b.txt"],
    ["grep", "-h", "apple", "a.txt", "b.txt"],
    ["grep", "-H", "apple", "b.txt"],
    ["grep", "-l", "apple", "a.txt", "b.txt", "ctx.txt"],
    ["grep", "-L", "apple", "a.txt", "b.txt", "ctx.txt"],
    ["grep", "-c", "apple", "a.txt", "b.txt"],
    ["grep", "-q", "apple", "a.txt"],
    ["grep", "-q", "zzz", "a.txt"],
    ["grep", "apple", "missing.txt"],
    ["grep", "-s", "apple", "missing.txt", "b.txt"],
    ["grep", "-q", "apple", "missing.txt", "b.txt"],
    ["grep", "apple", "d"],
    ["grep", "-r", "apple", "d"],
    ["grep", "-r", "apple", "d/"],
    ["grep", "-rh", "apple", "d"],
    ["grep", "-rl", "apple", "d"],
    ["grep", "-r", "--include=*.txt", "apple", "d"],
    ["grep", "-r", "--exclude=*.txt", "apple", "d"],
    ["grep", "-r", "--exclude-dir=sub", "apple", "d"],
    ["grep", "-rc", "apple", "d"],
    ["grep", "-Z", "-l", "apple", "a.txt", "b.txt"],
    ["grep", "apple", "noeol.txt"],
    ["grep", "-v", "zzz", "noeol.txt"],
    ["grep", "-c", "apple", "noeol.txt"],
    # binary data
    ["grep", "apple", "bin.dat"],
    ["grep", "-c", "apple", "bin.dat"],
    ["grep", "-a", "apple", "bin.dat"],
    ["grep", "-I", "apple", "bin.dat", "a.txt"],
    ["grep", "--binary-files=without-match", "apple", "bin.dat"],
    ["grep", "apple", "latin.txt"],
    ["grep", "-c", "apple", "latin.txt"],
    # context
    ["grep", "-A", "1", "apple", "a.txt"],
    ["grep", "-B", "2", "kiwi", "a.txt"],
    ["grep", "-C", "1", "-n", "line1[05]", "ctx.txt"],
    ["grep", "-2", "line20", "ctx.txt"],
    ["grep", "-A1", "-B3", "line[27]$", "ctx.txt"],
    ["grep", "--group-separator=XX", "-A", "0", "line[13]$", "ctx.txt"],
    ["grep", "--no-group-separator", "-A", "0", "line[13]$", "ctx.txt"],
    ["grep", "-m", "2", "line", "ctx.txt"],
    ["grep", "-m", "1", "-A", "2", "line1", "ctx.txt"],
    ["grep", "-m", "1", "-c", "line", "ctx.txt"],
    ["grep", "-C", "1", "apple", "a.txt", "b.txt"],
    ["grep", "-vn", "-A", "1", "line[2-9]", "ctx.txt"],
    # errors and statuses
    ["grep", "-E", "a{1,2", "a.txt"],
    ["grep", "[a", "a.txt"],
    ["grep", "-E", "(a", "a.txt"],
    ["grep", "a\\{1", "a.txt"],
    ["grep", "\\(a\\)\\2", "a.txt"],
    ["grep", "[[:nope:]]", "a.txt"],
    ["grep", "[:space:]", "a.txt"],
    ["grep", "-A", "x", "a", "a.txt"],
    ["grep", "-m", "x", "a", "a.txt"],
    ["grep"],
    ["grep", "--frobnicate", "a"],
    ["grep", "-m", "0", "apple", "a.txt"],
    ["grep", "--color=always", "apple", "a.txt", "b.txt"],
    ["grep", "--color=always", "-n", "-o", "ap", "a.txt"],
]


@needs_grep
@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c) for c in CASES])
def test_grep_matches_gnu(argv: list[str]) -> None:
    exp_out, _exp_err, exp_status = real_command(argv, files=FILES)
    got = run_command(argv, files=FILES)
    if any(a.startswith("-r") for a in argv):
        # GNU walks directories in readdir order; we walk them sorted
        exp_out = b"".join(sorted(exp_out.splitlines(keepends=True)))
        got.stdout = b"".join(sorted(got.stdout.splitlines(keepends=True)))
    assert (got.stdout, got.status) == (exp_out, exp_status), got.stderr


STDIN_CASES = [
    (["grep", "b"], b"abc\nxyz\nbcd\n"),
    (["grep", "-c", "^"], b"a\nb\nc"),
    (["grep", "-z", "b"], b"abc\0xyz\0b\nc\0"),
    (["grep", "-z", "^c"], b"abc\0xyz\0b\nc\0"),
    (["grep", "-n", "x"], b"x\n" * 5),
    (["grep", "--label=foo", "-H", "x"], b"x\n"),
    (["grep", "-o", "[0-9]*"], b"a1b22c333\n"),
    (["grep", "-ob", "b"], b"abcb\nbb\n"),
    (["grep", "-E", "a|"], b"xyz\n"),
    (["grep", "-w", ""], b"a b\n\n  \n"),
    (["grep", "-i", "STRASSE"], "straße STRASSE strasse\n".encode()),
    (["grep", "-o", "."], "héllo\n".encode()),
    (["grep", "[[:alpha:]]"], "é\n1\n".encode()),
    (["grep", "-c", "a"], b"\0a\n"),
    (["grep", "-E", "*a"], b"a*a\n"),
    (["grep", "-o", "-E", "a{,2}"], b"aaaaa\n"),
    (["grep", "-P", "(?i)AB"], b"xab\n"),
    (["grep", "-x", "-F", "ab"], b"ab\nabc\n"),
    (["grep", "-e", "a", "-f", "/dev/null"], b"a\nb\n"),
    (["grep", "-f", "/dev/null"], b"a\nb\n"),
    (["grep", "-v", "-f", "/dev/null"], b"a\nb\n"),
]


@needs_grep
@pytest.mark.parametrize("argv,stdin", STDIN_CASES, ids=[" ".join(c[0]) for c in STDIN_CASES])
def test_grep_stdin_matches_gnu(argv: list[str], stdin: bytes) -> None:
    exp_out, _exp_err, exp_status = real_command(argv, stdin)
    got = run_command(argv, stdin)
    assert (got.stdout, got.status) == (exp_out, exp_status), got.stderr


def test_grep_error_messages() -> None:
    r = run_command(["grep", "x", "nope"])
    assert r.stderr == b"grep: nope: No such file or directory\n" and r.status == 2
    r = run_command(["grep", "[a"], b"a\n")
    assert r.stderr == b"grep: Unmatched [, [^, [:, [., or [=\n" and r.status == 2
    r = run_command(["grep", "\\(a\\)\\2"], b"a\n")
    assert r.stderr == b"grep: Invalid back reference\n"
    r = run_command(["grep", "x", "d"], files={"d/f": "x\n"})
    assert r.stderr == b"grep: d: Is a directory\n" and r.status == 2
    r = run_command(["grep", "x", "bin"], files={"bin": b"x\0\n"})
    assert r.stdout == b"" and r.stderr == b"grep: bin: binary file matches\n" and r.status == 0


def test_grep_large_input_is_streamed_fast() -> None:
    import time

    data = b"".join(b"line %d some text here\n" % i for i in range(400_000))
    t = time.monotonic()
    r = run_command(["grep", "-c", "99"], data)
    assert r.stdout == str(sum(1 for i in range(400_000) if "99" in str(i))).encode() + b"\n"
    r = run_command(["grep", "-v", "-c", "e"], data)
    assert r.stdout == b"0\n"
    assert time.monotonic() - t < 10


def test_plain_output_over_many_blocks_keeps_every_line() -> None:
    # plain (no prefixes) output copies runs of lines; check it against a line-by-line filter
    lines = [b"%d %s" % (i, b"DEBUG" if i % 3 == 0 else b"INFO") + b"x" * (i % 50) for i in range(120_000)]
    data = b"\n".join(lines)  # no final newline: grep adds one
    keep = [ln for ln in lines if b"DEBUG" not in ln]
    hit = [ln for ln in lines if b"DEBUG" in ln]
    r = run_command(["grep", "-v", "DEBUG"], data)
    assert (r.stdout, r.status) == (b"\n".join(keep) + b"\n", 0)
    r = run_command(["grep", "DEBUG"], data)
    assert (r.stdout, r.status) == (b"\n".join(hit) + b"\n", 0)
    r = run_command(["grep", "-v", "x"], b"x\nx\nx")
    assert (r.stdout, r.status) == (b"", 1)


@pytest.mark.parametrize(
    "argv",
    [
        ["grep", "-c", "ab"],
        ["grep", "-vc", "ab"],
        ["grep", "ab"],
        ["grep", "-v", "ab"],
        ["grep", "-F", "a.b"],
        ["grep", "-Fv", "a.b"],
        ["grep", "-c", "-F", "a.b"],
        ["grep", "-x", "ab"],
        ["grep", "-i", "AB"],
    ],
)
@pytest.mark.skipif(not have("grep"), reason="GNU grep not available")
def test_literal_patterns_agree_with_gnu(argv: list[str]) -> None:
    data = b"ab\nxab\n\na.b\naxb\nAB\nab"
    for stdin in (data, data + b"\n", b"", b"\n"):
        exp_out, _err, exp_status = real_command(argv, stdin)
        got = run_command(argv, stdin)
        assert (got.stdout, got.status) == (exp_out, exp_status), (argv, stdin)
