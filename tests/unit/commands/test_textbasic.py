"""cat, tac, head, tail, tee, wc, rev, nl: compared with the real GNU tools."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence

import pytest

from realtools import real_command
from sandbash.stdio.streams import BytesReader, Stream
from sandbash.testing import run_command

Files = Mapping[str, bytes | str]


def compare(argv: Sequence[str], stdin: bytes = b"", files: Files | None = None, stderr: bool = True) -> None:
    """Run argv in the sandbox and for real; stdout, status (and stderr) must match."""
    if shutil.which(argv[0]) is None:
        pytest.skip(f"{argv[0]} not installed")
    ours = run_command(list(argv), stdin=stdin, files=files or {})
    out, err, status = real_command(list(argv), stdin, files or {})
    # a short account of the first difference, not a bare assert: under CI=true pytest explains a
    # failed assert with an ndiff of both sides, quadratic in their lines (hours for 60,000)
    if ours.status != status:
        pytest.fail(f"status ours={ours.status} real={status}; stderr ours={ours.stderr!r} real={err!r}")
    if ours.stdout != out:
        pytest.fail(f"stdout: {first_difference(ours.stdout, out)}; stderr ours={ours.stderr!r} real={err!r}")
    if stderr and ours.stderr != err:
        pytest.fail(f"stderr: {first_difference(ours.stderr, err)}")


def first_difference(ours: bytes, real: bytes) -> str:
    """Where two outputs first differ: the line number and both lines (cut to 200 bytes), and each
    side's line count."""
    a, b = ours.splitlines(keepends=True), real.splitlines(keepends=True)
    k = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    line_a = a[k][:200] if k < len(a) else b"<end>"
    line_b = b[k][:200] if k < len(b) else b"<end>"
    return f"line {k + 1} ours={line_a!r} real={line_b!r} ({len(a)} lines ours, {len(b)} real)"


TEXT = b"one\ntwo\n\n\n\nthree four\tfive\nsix\x01\x80\xff\n\n"
LINES = b"".join(b"line %d\n" % i for i in range(1, 31))
FILES: dict[str, bytes | str] = {
    "a": "alpha\nbeta\ngamma\n",
    "b": "x\ny",
    "t.txt": TEXT,
    "lines": LINES,
    "d/inner": "z\n",
    "empty": "",
    "new\nline": "x\n",
    "a:b\nc d": "y z\n",
    "sp ace\t": "w\n",
    "u.txt": "h\u00e9llo w\u00f6rld \u65e5\u672c\u8a9e\n\ttab\u3000wide\xa0nb\n",
}

CASES: list[tuple[list[str], bytes]] = [
    (["cat"], TEXT),
    (["cat", "a", "-", "b"], b"in\n"),
    (["cat", "-n", "a", "b", "a"], b""),
    (["cat", "-b", "t.txt"], b""),
    (["cat", "-s", "t.txt"], b""),
    (["cat", "-sn", "t.txt"], b""),
    (["cat", "-A", "t.txt"], b""),
    (["cat", "-e", "t.txt"], b""),
    (["cat", "-t", "t.txt"], b""),
    (["cat", "-vET", "u.txt"], b""),
    (["cat", "nope", "a"], b""),
    (["cat", "d"], b""),
    (["cat", "-z"], b""),
    (["cat", "--number", "--show-ends", "b", "b"], b""),
    (["tac", "a", "b"], b""),
    (["tac"], b"1\n2\n3"),
    (["tac", "-s", "x", "-b"], b"axbxcx"),
    (["tac", "-s", ":"], b"a:b::c"),
    (["tac", "nope"], b""),
    (["head"], LINES),
    (["head", "-n", "3", "lines"], b""),
    (["head", "-3", "lines", "a"], b""),
    (["head", "-n", "-27", "lines"], b""),
    (["head", "-c", "10", "lines"], b""),
    (["head", "-c", "-200", "lines"], b""),
    (["head", "-c", "1K", "lines"], b""),
    (["head", "-c", "1kB", "lines"], b""),
    (["head", "-n", "x"], b""),
    (["head", "-c", "1Mi"], b""),
    (["head", "-n", "99999999999999999999999", "a"], b""),
    (["head", "-v", "a"], b""),
    (["head", "-q", "a", "b"], b""),
    (["head", "-n1", "a", "nope", "d", "b"], b""),
    (["head", "-z", "-n1"], b"a\0b\0"),
    (["head", "-n", "2", "-"], b"1\n2\n3\n"),
    (["head", "-5c", "a"], b""),
    (["tail"], LINES),
    (["tail", "-n", "3", "lines"], b""),
    (["tail", "-3", "lines"], b""),
    (["tail", "+25", "lines"], b""),
    (["tail", "-n", "+28", "lines", "a"], b""),
    (["tail", "-c", "5", "lines"], b""),
    (["tail", "-c", "+200", "lines"], b""),
    (["tail", "-n", "2"], b"a\nb\nc"),
    (["tail", "-n", "0", "a"], b""),
    (["tail", "-n", "+0", "a"], b""),
    (["tail", "-2c", "a"], b""),
    (["tail", "-n", "1x"], b""),
    (["tail", "-n", "1", "a", "nope", "b"], b""),
    (["tail", "-v", "-n1"], b"q\n"),
    (["tail", "-z", "-n1"], b"a\0b\0"),
    (["tail", "-n", "3"], LINES * 5000),
    (["tail", "-c", "3"], LINES * 5000),
    (["tee"], b"abc\n"),
    (["tee", "d"], b"abc\n"),
    (["wc"], TEXT),
    (["wc", "-l"], TEXT),
    (["wc", "-lw"], TEXT),
    (["wc", "a", "b", "t.txt"], b""),
    (["wc", "-l", "a"], b""),
    (["wc", "-c", "a", "-"], b"xyz"),
    (["wc", "-m", "u.txt"], b""),
    (["wc", "-L", "u.txt", "t.txt"], b""),
    (["wc", "-w", "u.txt", "t.txt"], b""),
    (["wc", "-mwlcL", "u.txt"], b""),
    (["wc", "nope", "a"], b""),
    (["wc", "d"], b""),
    (["wc", "-w"], b"\x01 x \x02\x03 y\x01z\n"),
    (["wc", "-x"], b""),
    (["wc", "--files0-from=-"], b"a\0b\0"),
    (["wc", "empty"], b""),
    (["wc", "-l", "new\nline", "a", "sp ace\t"], b""),  # only a newline makes wc quote a name
    (["wc", "-c", "a:b\nc d", "b"], b""),
    (["wc", "--files0-from=-"], b"new\nline\0a\0"),
    (["rev"], b"abc\nd\xc3\xa9f\nlast"),
    (["rev", "a", "b"], b""),
    (["nl", "t.txt"], b""),
    (["nl", "-ba", "-nln", "-w3", "-s:", "t.txt"], b""),
    (["nl", "-nrz", "-v", "7", "-i", "3", "a"], b""),
    (["nl", "-ba", "-l", "2", "t.txt"], b""),
    (["nl", "-ha", "-fa"], b"a\n\\:\\:\\:\nh\n\\:\\:\nb\n\n\\:\nf\n"),
    (["nl", "-p", "-ha"], b"a\n\\:\\:\\:\nh\n\\:\\:\nb\n"),
    (["nl", "-bq"], b""),
    (["nl", "-nxx"], b""),
    (["nl", "-w0"], b""),
    (["nl"], b"a\nb"),
    # whole batches numbered at once (no section markers; t, n, or a without -l)
    (["nl", "-ba", "-nrz", "-w4", "-v", "-3", "-i", "2", "t.txt"], b""),
    (["nl", "-ba", "-nln", "-s", "%d%s|", "t.txt", "-", "t.txt"], LINES),
    (["nl", "-bn", "-w2", "t.txt"], b""),
    (["nl", "-bt", "-nrn", "-i", "-5", "-s", ""], LINES * 300),
    (["nl", "-ba", "-l", "3"], b"a\n\n\n\n\n\n\nb\n" * 2000),
    (["nl", "-ba", "-w1"], b"x\n" * 20000),
    (["nl", "-bt"], b"a\n\n" * 3000 + b"\\:\\:\nb\n\n\\:\nc\n\\:\\:\\:\nd\n"),
    (["nl", "-ha", "-fn", "-bpb"], b"b\nc\n\\:\\:\\:\nh\n\\:\\:\nbb\n\\:\nf\n" * 2000),
]


@pytest.mark.parametrize(("argv", "stdin"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_matches_gnu(argv: list[str], stdin: bytes) -> None:
    compare(argv, stdin, FILES)


def test_tee_writes_files_and_appends() -> None:
    r = run_command(["tee", "o1", "o2"], stdin=b"hi\n", files={"o2": "old\n"})
    assert r.stdout == b"hi\n" and r.status == 0
    assert r.vfs.view("/home/user").read_bytes("o2") == b"hi\n"
    r = run_command(["tee", "-a", "o2"], stdin=b"hi\n", files={"o2": "old\n"})
    assert r.vfs.view("/home/user").read_bytes("o2") == b"old\nhi\n"


def test_tee_missing_dir() -> None:
    r = run_command(["tee", "no/such"], stdin=b"x")
    assert r.stdout == b"x" and r.status == 1
    assert r.stderr == b"tee: no/such: No such file or directory\n"


def test_tail_follow_runs_until_stopped() -> None:
    # as GNU tail: following never ends by itself; `timeout` ends it (124) after the last line
    from sandbash import Bash

    for cmd in ("tail -f -n1 -s 0.05 a", "tail -1f a", "tail -F -n1 -s 0.05 a"):
        r = Bash(files={"/home/user/a": "1\n2\n"}).exec(f"timeout 0.3 {cmd}; echo $?")
        assert (r.stdout, r.exit_code) == ("2\n124\n", 0), cmd


def test_write_error() -> None:
    from sandbash.stdio.streams import BufferWriter, FullStream

    err = BufferWriter()
    status = run_ctx("cat", ["a"], BytesReader(b""), FullStream(), err, {"a": "x\n"})
    assert status == 1 and err.getvalue() == b"cat: write error: No space left on device\n"


def run_ctx(
    name: str, args: list[str], stdin: Stream, stdout: Stream, stderr: Stream, files: Files | None = None
) -> int:
    """Run a command with streams of our choosing."""
    from sandbash.commands.invoke import Capabilities, invoke
    from sandbash.commands.registry import BUILTIN_TABLE
    from sandbash.limits import Budget, Limits
    from sandbash.testing import make_vfs

    record = BUILTIN_TABLE.lookup(name)
    assert record is not None
    return invoke(
        record,
        [name, *args],
        {0: stdin, 1: stdout, 2: stderr},
        make_vfs(files).view("/home/user"),
        {"LC_ALL": "C.UTF-8"},
        Capabilities(Budget(Limits())),
    )


class _Endless(Stream):
    """`yes`-like input: head must stop reading once it has enough."""

    readable = True

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def _fill(self, n: int) -> bytes:
        self.reads += 1
        if self.reads > 100:
            raise AssertionError("read too far")
        return b"y\n" * (n // 2)


def test_head_stops_reading() -> None:
    from sandbash.stdio.streams import BufferWriter

    src = _Endless()
    out = BufferWriter()
    assert run_ctx("head", ["-n", "1"], src, out, BufferWriter()) == 0
    assert out.getvalue() == b"y\n" and src.reads == 1


def test_tail_pipe_memory_bounded() -> None:
    # a big stream through tail -n 2 keeps a few chunks only
    data = b"x" * 100 + b"\n"
    r = run_command(["tail", "-n", "2"], stdin=data * 50000)
    assert r.stdout == data * 2
    assert isinstance(BytesReader(b""), Stream)


@pytest.mark.parametrize("locale", ["C", "C.UTF-8"])
# (-l, -c, -m alone and together skip the word and width scans and the C locale's byte mapping)
@pytest.mark.parametrize("flag", ["-m", "-w", "-L", "-c", "-l", "-lc", "-lm", "-cm", "-lw", "-cL", "-mwlcL"])
def test_wc_follows_the_locale(locale: str, flag: str) -> None:
    if shutil.which("wc") is None:
        pytest.skip("wc not installed")
    data = "h\u00e9llo w\u00f6rld \u65e5\u672c x\u00a0y\n\tz\n".encode() + b"\xff a\n"
    ours = run_command(["wc", flag], stdin=data, env={"LC_ALL": locale})
    out, _err, status = real_command(["wc", flag], data, {}, env={"LC_ALL": locale, "PATH": "/usr/bin:/bin"})
    assert (ours.stdout, ours.status) == (out, status)


# ------------------------------------------------------------ tac from the end, a block at a time
# A file is read back from its end (GNU's tac_seekable) and a pipe's chunks are let go from the end;
# a tiny block puts separators, long records and a `-s xy` split across every block boundary.
TAC_TEXTS = {
    "lines": b"".join(b"%s%d\n" % (b"w" * (i % 13), i) for i in range(60)),
    "open-end": b"a\nbb\nccc\n" * 9 + b"last",
    "long-records": b"x" * 40 + b"\n" + b"y" * 33 + b"\nz",
    "separators-only": b"\n" * 23,
    "leading-separator": b"\nab:cd:\n:ef" * 5,
    "xy-pairs": b"1xy22xy333xyxyx" * 7 + b"yxy",
    "aa-runs": b"aaa:a:aaaa\naa" * 6,
    "empty": b"",
}
TAC_OPTS = [
    [],
    ["-b"],
    ["-s", ":"],
    ["-b", "-s", ":"],
    ["-s", "xy"],
    ["-bs", "xy"],
    ["-s", "aa"],
    ["-bs", "aa"],
]


@pytest.mark.parametrize("opts", TAC_OPTS, ids=lambda o: " ".join(o) or "newline")
@pytest.mark.parametrize("text", list(TAC_TEXTS), ids=str)
def test_tac_by_blocks_matches_gnu(monkeypatch: pytest.MonkeyPatch, opts: list[str], text: str) -> None:
    from sandbash.commands.textbasic import cat

    data = TAC_TEXTS[text]
    for block in (3, 7, 1 << 16):
        monkeypatch.setattr(cat, "TAC_BLOCK", block)
        compare(["tac", *opts, "f"], files={"f": data})  # a file: from its end
        compare(["tac", *opts], stdin=data)  # a pipe: held, let go from the end
        compare(["tac", *opts, "f", "-", "f"], stdin=data, files={"f": data})


def test_tac_holds_a_block_of_a_file_and_all_of_a_pipe() -> None:
    from sandbash.limits import LimitExceeded, LimitKind, Limits

    data = b"".join(b"row %d\n" % i for i in range(400_000))  # ~4.5 MB
    small = Limits().with_overrides(max_memory=2 << 20)
    want = b"".join(reversed(data.splitlines(keepends=True)))
    for argv in (["tac", "f"], ["tac", "-s", "w", "f"], ["tac", "-b", "f"]):
        r = run_command(argv, files={"f": data}, limits=small)
        assert r.status == 0 and len(r.stdout) == len(data)
    assert run_command(["tac", "f"], files={"f": data}, limits=small).stdout == want
    # a pipe cannot be read again: what tac holds of it is charged before it is kept
    with pytest.raises(LimitExceeded) as e:
        run_command(["tac"], stdin=data, limits=small)
    assert e.value.kind == LimitKind.MAX_MEMORY
    # one record longer than the budget is held whole, and charged
    with pytest.raises(LimitExceeded) as e:
        run_command(["tac", "f"], files={"f": b"q" * (3 << 20)}, limits=small)
    assert e.value.kind == LimitKind.MAX_MEMORY
