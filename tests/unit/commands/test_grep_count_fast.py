"""grep's counting and plain-text paths against GNU grep 3.8.

-c, -q, -l and -L count the selected lines of each chunk without visiting them (a literal
hops with bytes.find, a regex with `Regex.search_start`, -v subtracts from the line count);
several plain texts (-e A -e B, -F, -E 'A|B', 'A\\|B') and -i texts over ASCII chunks are
found with bytes.find (over a lower-cased copy for -i), for counting and for plain printing;
-w with one text checks the bytes beside each hit (the regex decides beside a byte beyond ASCII).
The corner cases: binary input (GNU reads NUL bytes as line ends there), invalid UTF-8,
letters that fold to ASCII only beyond it (the long s; GNU leaves the Kelvin sign
alone where RE2 folds it: not compared), CRLF, empty input,
a last line without a newline, lines holding several texts, and inputs over several 1 MiB
chunks whose hit density changes from one chunk to the next."""

from __future__ import annotations

import random

import pytest

from realtools import have, real_command
from sandbash.commands.grep import core as grep_core
from sandbash.commands.grep.core import Searcher
from sandbash.testing import run_command

pytestmark = pytest.mark.skipif(not have("grep"), reason="GNU grep not available")
CHUNK_DEFAULT = grep_core.CHUNK


def _big() -> bytes:
    dense = b"".join(
        b"w%d ERROR x WARN ERROR\n" % i if i % 3 else b"w%d ok error\n" % i for i in range(70000)
    )
    sparse = b"".join(
        b"v%d Warn\n" % i if i % 997 == 0 else b"v%d plain text line\n" % i for i in range(60000)
    )
    return dense + sparse + dense[:200000] + b"tail ERROR no newline"


def _runs(n: int) -> bytes:
    """Runs of consecutive lines holding one text or another (a run may switch texts, texts may
    overlap: ERR in ERROR, RORW across two), between runs of lines holding none."""
    rng = random.Random(n)
    hits = [b"a WARN", b"ERROR b", b"c warn ERROR WARN", b"ERRORWARN", b"WARNWARN x", b"ERR", b"xERR OR"]
    misses = [b"none", b"", b"Err or", b"W A R N"]
    lines = [rng.choice(hits if (i // rng.randrange(1, 5)) % 2 else misses) for i in range(n)]
    return b"\n".join(lines) + (b"\n" if n % 2 else b"")


INPUTS: dict[str, bytes] = {
    "runs": _runs(30001),
    "runs-small": _runs(60),
    "text": b"ERROR a\nwarn b\nWARN c\nx ERRORWARN ERROR\nnone\nError d\n\nlast WARN",
    "big": _big(),
    "binary": b"a\0a\nERROR\0x\nb\nERR\0OR\nwarn\0\0WARN\n\nend",
    "binary-late": b"ERROR 1\n" * 30 + b"x\0ERROR\n",
    "invalid-utf8": b"\xff ERROR\n\xc3(\nerror \xe9\nplain\n\xe9t\xe9 warn\xff\n",
    "letters": "\u00e9t\u00e9 t\u00e9\nt\u00e9\n\u00e9t\n\u00e9 t \u00e9\nt\u00b7\n".encode(),
    "fold": "\u212a\nk\n\u017f\ns\nplain\n".encode(),
    "crlf": b"ERROR\r\nwarn\r\nx\r\nERROR",
    "empty": b"",
    "newline": b"\n",
    "no-newline": b"ERROR",
    "words": b"foo_bar foo\nfoobar\n_foo\nfoo-bar\n\xc3\xa9foo\nfoo\xc3\xa9\nfoo\xe2\x80\x94\n"
    b"xfoo foo\nfoofoo\n\xc3\xa9foo foo\nfoo",
}

COUNT_ARGVS = [
    ["-c", "ERROR"],
    ["-vc", "ERROR"],
    ["-c", "-i", "error"],
    ["-vc", "-i", "error"],
    ["-c", "-i", "s"],
    ["-c", "-w", "ERROR"],
    ["-c", "-x", "ERROR"],
    ["-c", "-w", "foo"],
    ["-vc", "-w", "foo"],
    ["-c", "-w", "-i", "error"],
    ["-c", "-wF", "x ERR"],
    ["-c", "-w", "t"],
    ["-c", "-w", "-e", "ERROR", "-e", "WARN"],
    ["-c", "-e", "ERROR", "-e", "WARN"],
    ["-c", "-e", "ERROR", "-e", "WARN", "-e", "ERR"],
    ["-c", "-F", "-e", "RORW", "-e", "x", "-e", "none"],
    ["-vc", "-e", "ERROR", "-e", "WARN"],
    ["-vc", "-i", "-e", "warn", "-e", "err"],
    ["-vc", "-e", "ERROR", "-e", "x", "-e", "w1"],
    ["-vc", "-E", "ERROR|WARN|plain"],
    ["-vc", "-e", "ERROR", "-e", ""],
    ["-vc", "-m", "5", "-e", "ERROR", "-e", "WARN"],
    ["-vl", "-e", "ERROR", "-e", "WARN"],
    ["-vL", "-e", "ERROR", "-e", "ok"],
    ["-c", "-E", "ERROR|WARN"],
    ["-c", "ERROR\\|warn"],
    ["-c", "ERROR|WARN"],
    ["-c", "-E", "ERROR|"],
    ["-c", "-F", "-e", "ERR", "-e", "R"],
    ["-ci", "-e", "error", "-e", "warn"],
    ["-c", "E.R"],
    ["-vc", "^ERROR"],
    ["-c", "x*"],
    ["-c", ""],
    ["-vc", ""],
    ["-vc", "-e", "", "-e", ""],
    ["-vcx", ""],
    ["-L", "-v", ""],
    ["-c", "-m", "2", "ERROR"],
    ["-c", "-m", "3", "-i", "-e", "error", "-e", "warn"],
    ["-vc", "-m", "2", "ERROR"],
    ["-c", "-a", "a"],
    ["-c", "-I", "a"],
    ["-c", "a.a"],
    ["-q", "-i", "warn"],
    ["-q", "-v", "ERROR"],
    ["-l", "-e", "nothing", "-e", "WARN"],
    ["-L", "-i", "nothing"],
    ["-L", "-I", "a"],
    ["-l", "-x", "a"],
    ["-c", "-z", "a"],
]

PRINT_ARGVS = [
    ["-w", "foo"],
    ["-vw", "foo"],
    ["-w", "-i", "FOO"],
    ["-w", "warn"],
    ["-i", "error"],
    ["-vi", "error"],
    ["-e", "ERROR", "-e", "WARN"],
    ["-e", "ERR", "-e", "ERROR", "-e", "WARN", "-e", "RORW"],
    ["-E", "none|a WARN"],
    ["-i", "-e", "warn", "-e", "err or"],
    ["-v", "-i", "-e", "warn", "-e", "err or"],
    ["-v", "-e", "ERROR", "-e", "WARN"],
    ["-v", "-e", "ERROR", "-e", "x", "-e", "w1"],
    ["-v", "-F", "-e", "WARN", "-e", "ERROR", "-e", "ok"],
    ["-v", "-E", "ERROR|WARN|plain"],
    ["-v", "ERROR\\|ok"],
    ["-v", "-e", "", "-e", "WARN"],
    ["-v", "-e", "ERROR", "-e", "\xc3"],
    ["-v", "-e", "t", "-e", "\u00e9"],
    ["-E", "ERROR|warn"],
    ["-F", "-e", "ERR", "-e", "R"],
    ["-i", "-e", "error", "-e", "warn"],
    ["-i", "s"],
    ["-x", "a"],
    ["-n", "-i", "warn"],
    ["ERROR"],
    ["-v", "ERROR"],
    ["-v", "x ERR"],
    ["-F", " plain"],
    ["-vF", " plain"],
    ["-v", "WARN"],
]


def _check(args: list[str], name: str) -> None:
    argv = ["grep", *args]
    data = INPUTS[name]
    if any("w" in a for a in args if a.startswith("-") and not a.startswith("--")) and b"\xff" in data:
        # GNU reads an encoding error beside the word as a non-word character; the regex
        # layer's -w (RE2, which the fast path defers to beside any byte beyond ASCII) does not
        pytest.skip("-w beside an invalid UTF-8 byte: a known difference of the regex layer")
    exp_out, exp_err, exp_status = real_command(argv, data)
    got = run_command(argv, data)
    assert (got.stdout, got.status) == (exp_out, exp_status)
    if b"binary file matches" in exp_err:
        assert got.stderr == exp_err


@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.parametrize("args", COUNT_ARGVS, ids=[" ".join(a) for a in COUNT_ARGVS])
def test_count_matches_gnu(args: list[str], name: str) -> None:
    _check(args, name)


@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.parametrize("args", PRINT_ARGVS, ids=[" ".join(a) for a in PRINT_ARGVS])
def test_plain_texts_print_as_gnu(args: list[str], name: str) -> None:
    _check(args, name)


def test_binary_file_without_match_still_counts_and_lists() -> None:
    files = {"b": b"a\0", "t": b"a\n"}
    for args in (["-c", "-I", "a", "b", "t"], ["-L", "-I", "a", "b", "t"], ["-l", "-I", "a", "b", "t"]):
        exp_out, _err, exp_status = real_command(["grep", *args], files=files)
        got = run_command(["grep", *args], files=files)
        assert (got.stdout, got.status) == (exp_out, exp_status), args


def test_counting_charges_the_budget_as_printing_does() -> None:
    # a unit of work per matching line, whether the lines are printed or only counted
    from sandbash.limits import LimitExceeded, LimitKind, Limits

    data = b"x\n" * 5000
    tight = Limits().with_overrides(max_work=2000)
    assert run_command(["grep", "-c", "y."], data, limits=tight).stdout == b"0\n"
    for argv in (["grep", "-c", "x*"], ["grep", "x*"], ["grep", "-vc", "y*x"]):
        with pytest.raises(LimitExceeded) as e:
            run_command(argv, data, limits=tight)
        assert e.value.kind == LimitKind.MAX_WORK


# ------------------------------------------------------------ block boundaries
# -c, -q, -l and -L count each block where it was read and join only the line that straddles two
# blocks; tiny blocks put line ends, literals, NUL bytes and CRs across every boundary.
BLOCK_SIZES = [1, 2, 5, 64]
BLOCK_INPUTS = [
    "text",
    "runs-small",
    "binary",
    "binary-late",
    "crlf",
    "no-newline",
    "newline",
    "empty",
    "words",
    "fold",
]
BLOCK_ARGVS = [
    ["-c", "ERROR"],
    ["-vc", "ERROR"],
    ["-c", "-i", "error"],
    ["-c", "-w", "foo"],
    ["-c", "-x", "ERROR"],
    ["-c", "-e", "ERROR", "-e", "WARN"],
    ["-vc", "^ERROR"],
    ["-c", "E.R"],
    ["-c", ""],
    ["-c", "-m", "2", "ERROR"],
    ["-c", "-a", "a"],
    ["-c", "-I", "a"],
    ["-c", "a.a"],
    ["-q", "-v", "ERROR"],
    ["-l", "WARN"],
    ["-L", "-I", "a"],
    ["-c", "RRO"],
    ["-vc", "x ERR"],
    ["-c", "\\r"],
    ["-zc", "a"],
    ["-c", "-P", "E.R"],
    ["-vc", "-e", "ERROR", "-e", "WARN"],
    ["-c", "-i", "-e", "warn", "-e", "err"],
]


@pytest.mark.parametrize("block", BLOCK_SIZES)
@pytest.mark.parametrize("name", BLOCK_INPUTS)
@pytest.mark.parametrize("args", BLOCK_ARGVS, ids=[" ".join(a) for a in BLOCK_ARGVS])
def test_count_across_small_blocks(
    monkeypatch: pytest.MonkeyPatch, args: list[str], name: str, block: int
) -> None:
    monkeypatch.setattr(grep_core, "CHUNK", block)
    _check(args, name)


BLOCK_PRINT_ARGVS = [
    ["ERROR"],
    ["-v", "ERROR"],
    ["-n", "WARN"],
    ["-vi", "error"],
    ["-w", "foo"],
    ["-A1", "WARN"],
    ["-b", "ERROR"],
    ["-o", "ERR"],
    ["-x", "ERROR"],
    ["-z", "ERROR"],
    ["-vz", "a"],
    ["-h", "-e", "ERROR", "-e", "warn"],
    ["-v", "-e", "ERROR", "-e", "warn"],
]


@pytest.mark.parametrize("block", BLOCK_SIZES)
# (not binary-late: a NUL byte makes a file binary from the block it is read in, and lines printed
# from earlier blocks stay printed; GNU reads 96 KiB at once, sandbash 1 MiB: the same for it)
@pytest.mark.parametrize("name", [n for n in BLOCK_INPUTS if n != "binary-late"])
@pytest.mark.parametrize("args", BLOCK_PRINT_ARGVS, ids=[" ".join(a) for a in BLOCK_PRINT_ARGVS])
def test_print_across_small_blocks(
    monkeypatch: pytest.MonkeyPatch, args: list[str], name: str, block: int
) -> None:
    monkeypatch.setattr(grep_core, "CHUNK", block)
    _check(args, name)


def _lines_of(first: bytes, n: int) -> bytes:
    # a literal whose first byte is rare (ERROR) or common (a space) in lines of changing density
    return b"".join(
        b"%s %d %s ms=%d\n" % (first, i, b"ERROR" if i % 7 == 0 else b"plain", i) for i in range(n)
    )


def _density_text(tail: bytes = b"") -> bytes:
    # 3000 short lines, then one of 600 bytes with ERROR in its middle (blocks of 97 and 4096 bytes
    # start mid-line), then `tail`
    return _lines_of(b"line", 3000) + b"x" * 300 + b" ERROR" + b"y" * 300 + tail


# (literal, whether one findall of `LITERAL[^\n]*` counts it, rather than the bytes.find hop)
PICKS = [(b"ERROR", True), (b"ms=", True), (b"s", True), (b" plain ms=2999", False), (b" zz", False)]


@pytest.mark.parametrize(("lit", "by_findall"), PICKS, ids=[p[0].decode() for p in PICKS])
def test_literal_found_either_way_as_gnu(
    monkeypatch: pytest.MonkeyPatch, lit: bytes, by_findall: bool
) -> None:
    data = _density_text()
    start = 40000  # (a block that starts mid-line: its sample too)
    assert Searcher._findall_cheaper(data, start, len(data), lit) is by_findall
    for block in (CHUNK_DEFAULT, 4096, 97):
        monkeypatch.setattr(grep_core, "CHUNK", block)
        for args in (
            ["-c", "-F", lit.decode()],
            ["-vc", "-F", lit.decode()],
            ["-F", lit.decode()],
            ["-vF", lit.decode()],
        ):
            exp_out, _err, exp_status = real_command(["grep", *args], data)
            got = run_command(["grep", *args], data)
            assert (got.stdout, got.status) == (exp_out, exp_status), (args, block)


FILES = {
    "a.log": _lines_of(b"a", 500),
    "b.log": b"no match here\n",
    "c.bin": b"ERROR\0\n" * 40 + b"ERROR",
    "d/e.log": b"x ERROR\r\ny" + b"z" * 5000 + b" ERROR",
    "empty": b"",
}


@pytest.mark.parametrize("block", [3, 1 << 20])
@pytest.mark.parametrize(
    "args",
    [
        ["-c", "ERROR", "a.log", "b.log", "c.bin", "d/e.log", "empty"],
        ["-l", "ERROR", "a.log", "b.log", "c.bin", "d/e.log", "empty"],
        ["-L", "ERROR", "a.log", "b.log", "c.bin", "d/e.log", "empty"],
        ["-cI", "ERROR", "a.log", "c.bin"],
        ["-vch", "ERROR", "a.log", "d/e.log"],
        ["-rc", "ERROR", "."],
        ["-rl", "z"],
        ["-qs", "ERROR", "missing", "a.log"],
        ["-c", "-m", "5", "ERROR", "a.log", "c.bin"],
    ],
    ids=lambda a: " ".join(a),
)
def test_count_files_across_blocks(monkeypatch: pytest.MonkeyPatch, args: list[str], block: int) -> None:
    # files read through the virtual filesystem (not stdin), with and without names
    monkeypatch.setattr(grep_core, "CHUNK", block)
    exp_out, _err, exp_status = real_command(["grep", *args], files=FILES)
    got = run_command(["grep", *args], files=FILES)
    if args[0].startswith("-r"):  # GNU walks directory order, sandbash name order
        assert (sorted(got.stdout.splitlines()), got.status) == (sorted(exp_out.splitlines()), exp_status)
    else:
        assert (got.stdout, got.status) == (exp_out, exp_status)


def test_a_line_longer_than_a_block_is_charged_to_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandbash.limits import LimitExceeded, LimitKind, Limits

    monkeypatch.setattr(grep_core, "CHUNK", 1 << 16)
    line = b"a" * (3 << 20)
    small = Limits().with_overrides(max_memory=2 << 20)
    assert run_command(["grep", "-c", "a"], line + b"\n" + line[: 1 << 20]).stdout == b"2\n"
    for argv in (["grep", "-c", "b"], ["grep", "b"], ["grep", "-n", "a"]):
        with pytest.raises(LimitExceeded) as e:
            run_command(argv, line, limits=small)
        assert e.value.kind == LimitKind.MAX_MEMORY
    # lines that fit are held one at a time: a long input of short lines stays within the budget
    assert run_command(["grep", "-c", "a"], b"a\n" * (2 << 20), limits=small).stdout == b"%d\n" % (2 << 20)


@pytest.mark.parametrize(
    "argv",
    [["-c", "x"], ["x"], ["-n", "x"], ["-v", "-c", "y"], ["-l", "x"], ["-o", "x"], ["-c", "-i", "X"]],
    ids=lambda a: " ".join(a),
)
@pytest.mark.parametrize(
    "tail", [b"", b"x\n", b"\0x", b"ax\0\0yx\n"], ids=["none", "x-line", "nul-x", "mixed"]
)
def test_a_run_of_nuls_longer_than_the_budget_is_lines_not_one_line(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], tail: bytes
) -> None:
    """NUL bytes end a binary file's lines (GNU's NUL zapper), so a run of them without a
    newline (`grep x /dev/zero`) is never held whole: it stays within a budget smaller than it,
    and counts and prints as GNU grep does, whatever the reads' size."""
    from sandbash.limits import Limits

    data = b"\0" * (3 << 20) + tail
    small = Limits().with_overrides(max_memory=2 << 20)
    exp_out, exp_err, exp_status = real_command(["grep", *argv], data)
    for block in (CHUNK_DEFAULT, 1 << 16, 4093):
        monkeypatch.setattr(grep_core, "CHUNK", block)
        got = run_command(["grep", *argv], data, limits=small)
        assert (got.stdout, got.status, got.stderr) == (exp_out, exp_status, exp_err)


# ------------------------------------------------------------ prefixed output
# -n, -b, -H, -Z without context, -o, -m or colour: a read's selected lines are listed first (a literal
# in most lines, or -v of one: the read split into lines and each tested; else their spans found by
# finditer, the bytes.find hop, the plain texts' finder or the regex), then prefixed by one format.
# Binary reads and reads with an encoding error still go line by line.
PREFIX_ARGVS = [
    ["-n", "ERROR"],
    ["-vn", "ERROR"],
    ["-b", "ERROR"],
    ["-vb", "WARN"],
    ["-nb", "-i", "error"],
    ["-vnb", "-i", "error"],
    ["-Hn", "-e", "ERROR", "-e", "WARN"],
    ["-vHnb", "-e", "ERROR", "-e", "WARN"],
    ["-n", "-w", "foo"],
    ["-vbn", "-w", "foo"],
    ["-n", "E.R"],
    ["-vn", "^ERROR"],
    ["-nb", "x*"],
    ["-n", ""],
    ["-HZn", "ERROR"],
    ["-n", "-x", "ERROR"],
    ["-nb", "-F", "x ERR"],
    ["-n", "-a", "a"],
    ["-vn", "-I", "a"],
    ["-bn", "s"],
    ["-n", "-P", "E.R"],
    ["-vn", "-i", "s"],
    ["-Hb", "%d"],
    ["-n", "RRO"],
    ["-vn", "\\r"],
]


@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.parametrize("args", PREFIX_ARGVS, ids=[" ".join(a) for a in PREFIX_ARGVS])
def test_prefixed_lines_print_as_gnu(args: list[str], name: str) -> None:
    _check(args, name)


@pytest.mark.parametrize("block", BLOCK_SIZES)
@pytest.mark.parametrize("name", [n for n in BLOCK_INPUTS if n != "binary-late"])
@pytest.mark.parametrize("args", PREFIX_ARGVS[:12], ids=[" ".join(a) for a in PREFIX_ARGVS[:12]])
def test_prefixed_lines_across_small_blocks(
    monkeypatch: pytest.MonkeyPatch, args: list[str], name: str, block: int
) -> None:
    monkeypatch.setattr(grep_core, "CHUNK", block)
    _check(args, name)


@pytest.mark.parametrize("lit", [b"ERROR", b"ms=", b"s", b" plain ms=2999", b" zz", b"line"])
def test_prefixed_literal_found_every_way_as_gnu(monkeypatch: pytest.MonkeyPatch, lit: bytes) -> None:
    # a literal in few lines (finditer or the find hop) or in most (split and test), and -v of it,
    # over blocks whose density changes, which start mid-line, and a last line without a newline
    data = _density_text(b"\nline ms=1\nline s")
    for block in (CHUNK_DEFAULT, 4096, 97):
        monkeypatch.setattr(grep_core, "CHUNK", block)
        for args in (["-n"], ["-vn"], ["-b"], ["-vnb"], ["-H"], ["-vHn"]):
            argv = ["grep", *args, "-F", lit.decode()]
            exp_out, _err, exp_status = real_command(argv, data)
            got = run_command(argv, data)
            assert (got.stdout, got.status) == (exp_out, exp_status), (args, block)


@pytest.mark.parametrize("block", [3, 1 << 20])
@pytest.mark.parametrize(
    "args",
    [
        ["-n", "ERROR", "a.log", "b.log", "c.bin", "d/e.log", "empty"],
        ["-vnb", "ERROR", "a.log", "d/e.log", "empty"],
        ["-Hn", "plain", "a.log"],
        ["-hn", "-e", "ERROR", "-e", "plain", "a.log", "d/e.log"],
        ["-rn", "ERROR", "d"],
        ["-Zb", "ERROR", "a.log", "d/e.log"],
        ["-n", "%s", "50%.log"],
    ],
    ids=lambda a: " ".join(a),
)
def test_prefixed_files_as_gnu(monkeypatch: pytest.MonkeyPatch, args: list[str], block: int) -> None:
    # file names as prefixes (one with a % in it, formatted into every line)
    monkeypatch.setattr(grep_core, "CHUNK", block)
    files = {**FILES, "50%.log": b"a %s b\n%d\n"}
    exp_out, exp_err, exp_status = real_command(["grep", *args], files=files)
    got = run_command(["grep", *args], files=files)
    assert (got.stdout, got.status) == (exp_out, exp_status)
    assert got.stderr == exp_err


def test_prefixed_lines_charge_the_budget_and_the_output_limit() -> None:
    from sandbash import Bash
    from sandbash.errors import ExecutionLimitError
    from sandbash.limits import LimitExceeded, LimitKind, Limits

    data = b"x\n" * 5000
    tight = Limits().with_overrides(max_work=2000)
    for argv in (
        ["grep", "-n", "x"],
        ["grep", "-vn", "y"],
        ["grep", "-Hb", "x*"],
        ["grep", "-vb", "-e", "a", "-e", "b"],
    ):
        with pytest.raises(LimitExceeded) as e:
            run_command(argv, data, limits=tight)
        assert e.value.kind == LimitKind.MAX_WORK, argv
    # the output limit ends the run (prefixed lines are written a read at a time, never held whole)
    for cmd in ("grep -n 1 /tmp/f", "grep -vb x /tmp/f", "grep -Hn -e 1 -e 2 /tmp/f"):
        bash = Bash(limits=Limits().with_overrides(max_output_size=200_000))
        with pytest.raises(ExecutionLimitError) as x:
            bash.exec(f"seq 300000 > /tmp/f; {cmd}; echo after")
        assert x.value.limit == "max_output_size", cmd


@pytest.mark.parametrize("argv", [["-n", "b"], ["-vb", "a"], ["-H", "b"], ["-n", "-e", "b", "-e", "c"]])
def test_a_long_line_is_charged_when_prefixed(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    from sandbash.limits import LimitExceeded, LimitKind, Limits

    monkeypatch.setattr(grep_core, "CHUNK", 1 << 16)
    small = Limits().with_overrides(max_memory=2 << 20)
    with pytest.raises(LimitExceeded) as e:
        run_command(["grep", *argv], b"a" * (3 << 20), limits=small)
    assert e.value.kind == LimitKind.MAX_MEMORY
    # short lines are held a read at a time: a long input of them stays within the budget
    got = run_command(["grep", *argv], b"a\nb\n" * (1 << 19), limits=small)
    exp_out, _err, exp_status = real_command(["grep", *argv], b"a\nb\n" * (1 << 19))
    assert (got.stdout, got.status) == (exp_out, exp_status)


# context, -o and colour print line by line, their selected lines found a read at a time (a literal
# without the regex) when every selected line is wanted (not -v, -m, binary)
CONTEXT_ARGVS = [
    ["-A1", "ERROR"],
    ["-B2", "-n", "WARN"],
    ["-C1", "-b", "-i", "error"],
    ["-A1", "-e", "ERROR", "-e", "WARN"],
    ["-B1", "-w", "foo"],
    ["-C2", "-n", "E.R"],
    ["-on", "ERR"],
    ["-ob", "-i", "err"],
    ["-o", "-H", "-e", "ERR", "-e", "WA"],
    ["-n", "--color=always", "ERROR"],
    ["-A0", "--color=always", "-w", "foo"],
    ["-C1", "-a", "a"],
    ["-A1", "-x", "ERROR"],
    ["-B1", "-m2", "ERROR"],
    ["-vA1", "ERROR"],
]


@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.parametrize("args", CONTEXT_ARGVS, ids=[" ".join(a) for a in CONTEXT_ARGVS])
def test_context_and_matches_print_as_gnu(args: list[str], name: str) -> None:
    if name == "invalid-utf8" and " ".join(args) in _KNOWN_ENCODING_DIFFS:
        # (as before this path changed: the line-by-line path's handling of a line with an encoding
        # error under -o and context differs from GNU's, which prints a `--` or the match)
        pytest.xfail("known difference of the line-by-line path: -o/context beside an encoding error")
    _check(args, name)


_KNOWN_ENCODING_DIFFS = {"-C1 -b -i error", "-on ERR", "-ob -i err", "-o -H -e ERR -e WA", "-vA1 ERROR"}


@pytest.mark.parametrize("block", BLOCK_SIZES)
# (runs-small: lines of ~10 bytes meet the known -B2/-C2 difference below at every size)
@pytest.mark.parametrize("name", [n for n in BLOCK_INPUTS if n not in ("binary-late", "runs-small")])
@pytest.mark.parametrize("args", CONTEXT_ARGVS[:8], ids=[" ".join(a) for a in CONTEXT_ARGVS[:8]])
def test_context_and_matches_across_small_blocks(
    monkeypatch: pytest.MonkeyPatch, args: list[str], name: str, block: int
) -> None:
    monkeypatch.setattr(grep_core, "CHUNK", block)
    if args == ["-B2", "-n", "WARN"] and name == "text" and block < 64:
        # (as before: a read carries its own last lines only, so -B2 misses a line two reads back,
        # which 1 MiB reads meet only beside a line of a MiB or more)
        pytest.xfail("known difference: before-context from more than one read back")
    _check(args, name)


def test_context_lines_charge_the_budget() -> None:
    from sandbash.limits import LimitExceeded, LimitKind, Limits

    tight = Limits().with_overrides(max_work=2000)
    for argv in (["grep", "-A1", "x"], ["grep", "-on", "x"], ["grep", "-C1", "-e", "x", "-e", "z"]):
        with pytest.raises(LimitExceeded) as e:
            run_command(argv, b"x\ny\n" * 5000, limits=tight)
        assert e.value.kind == LimitKind.MAX_WORK, argv


def test_several_texts_under_v_test_each_line_only_where_most_lines_hold_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # -v -e A -e B: one `in` pass per text over the lines of a chunk where at least half of them
    # hold a text; the hop from hit to hit elsewhere (both compared with GNU in the tables above)
    taken: list[bool] = []
    original = Searcher._texts_absent

    def spy(self: Searcher, buf: bytes, start: int, end: int) -> list[bytes] | None:
        lines = original(self, buf, start, end)
        taken.append(lines is not None)
        return lines

    monkeypatch.setattr(Searcher, "_texts_absent", spy)
    dense = b"a ERROR\nb WARN\nc\n" * 1000
    sparse = b"plain\n" * 3000 + b"ERROR\n"
    for argv, data, out, line_pass in (
        (["grep", "-v", "-e", "ERROR", "-e", "WARN"], dense, b"c\n" * 1000, True),
        (["grep", "-vc", "-e", "ERROR", "-e", "WARN"], dense, b"1000\n", True),
        (["grep", "-vc", "-e", "ERROR", "-e", "WARN"], sparse, b"3000\n", False),
        (["grep", "-v", "-e", "ERROR", "-e", "WARN"], sparse, b"plain\n" * 3000, False),
    ):
        taken.clear()
        assert run_command(argv, data).stdout == out
        assert taken and all(t == line_pass for t in taken)
