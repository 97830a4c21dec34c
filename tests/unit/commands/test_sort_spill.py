"""sort's spilled runs (commands/sort/spill.py): runs kept compressed in memory and merged
a block of each at a time must give exactly the in-memory sort's output (itself compared
with GNU sort in test_sort.py), for every ordering option, with equal keys across block and
run boundaries; the runs are charged to max_memory and no file is written."""

from __future__ import annotations

import random

import pytest

from sandbash.commands.sort import main as sort_main
from sandbash.commands.sort import spill
from sandbash.limits import LimitExceeded, LimitKind, Limits
from sandbash.testing import run_command

from .test_textbasic import compare

WORK = Limits(max_work=10**11)


def _words(seed: int, n: int) -> bytes:
    """Lines with few distinct keys (ties everywhere), some equal lines, blank fields, case."""
    rng = random.Random(seed)
    keys = [b"a", b"B", b"b", b"", b"10", b"9", b"-3", b"1.50", b"1.5", b"x y", b"Jan", b"feb", b"0x1p2"]
    out = []
    for i in range(n):
        a, b = rng.choice(keys), rng.choice(keys)
        out.append(
            b"%s:%s %d:%s\n" % (a, b, rng.randrange(40), b"t%d" % (i % 7) if rng.random() < 0.5 else b"")
        )
    return b"".join(out)


def _distinct(seed: int, n: int) -> bytes:
    rng = random.Random(seed)
    return b"".join(b"%d %s %d\n" % (rng.randrange(10**6), b"k%d" % rng.randrange(99), i) for i in range(n))


ARGS = [
    [],
    ["-r"],
    ["-u"],
    ["-ru"],
    ["-n"],
    ["-nr"],
    ["-s", "-t:", "-k1,1"],
    ["-s", "-t:", "-k1,1", "-r"],
    ["-t:", "-k1,1", "-u"],
    ["-t:", "-k1,1r", "-k2n"],
    ["-t:", "-k2,2n", "-k1,1", "-s"],
    ["-t:", "-k2,2n", "-u"],
    ["-k2", "-u"],
    ["-k2,2", "-s"],
    ["-f", "-u"],
    ["-f", "-s", "-k1,1"],
    ["-g", "-t:", "-k1,1"],
    ["-M", "-t:", "-k1,1", "-s"],
    ["-V", "-u"],
    ["-b", "-k2,2", "-u"],
    ["-d", "-r"],
    ["-t:", "-k3", "-n", "-r", "-u"],
    ["-z"],
    ["--debug", "-t:", "-k2,2n"],
    ["-R", "--random-source=/dev/zero", "-k1,1"],
]


def _tiny_runs(monkeypatch: pytest.MonkeyPatch, run: int, block: int, top_up: int, raw: int = 0) -> None:
    """Runs of `run` bytes, blocks of `block`, the first `raw` bytes of them stored uncompressed."""
    monkeypatch.setattr(sort_main, "RUN_BYTES", run)
    monkeypatch.setattr(spill, "BLOCK_BYTES", block)
    monkeypatch.setattr(spill, "_TOP_UP", top_up)
    monkeypatch.setattr(spill, "RAW_BYTES", raw)


@pytest.mark.parametrize("args", ARGS, ids=" ".join)
@pytest.mark.parametrize(
    ("run", "block", "top_up", "raw"),
    # all blocks compressed; the first few kept as they are; none compressed
    [
        (3000, 200, 1, 0),
        (20000, 2000, 40, 0),
        (700, 5000, 512, 0),
        (3000, 200, 1, 9000),
        (700, 900, 4, 10**9),
    ],
)
@pytest.mark.parametrize("make", [_words, _distinct])
def test_spilled_sort_is_the_in_memory_sort(
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    run: int,
    block: int,
    top_up: int,
    raw: int,
    make: object,
) -> None:
    data = make(len(args) + run, 3000)  # type: ignore[operator]
    if "-z" in args:
        data = data.replace(b"\n", b"\0")
    expected = run_command(["sort", *args], stdin=data, limits=WORK)
    assert expected.status == 0, expected.stderr
    _tiny_runs(monkeypatch, run, block, top_up, raw)
    ours = run_command(["sort", *args], stdin=data, limits=WORK)
    assert (ours.stdout, ours.stderr, ours.status) == (expected.stdout, expected.stderr, 0)


@pytest.mark.parametrize(
    "args", [["-u"], ["-s", "-t:", "-k1,1"], ["-t:", "-k2,2n", "-u"], ["-r", "-k2"], ["-n"]], ids=" ".join
)
def test_spilled_sort_matches_gnu(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    _tiny_runs(monkeypatch, 4000, 300, 3)
    compare(["sort", *args], stdin=_words(7, 2000))


def test_spilled_output_onto_an_input(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _distinct(3, 4000)
    expected = run_command(["sort", "-k2,2", "-n"], stdin=data).stdout
    _tiny_runs(monkeypatch, 5000, 1000, 8)
    r = run_command(["sort", "-k2,2", "-n", "-o", "f", "f"], files={"f": data}, limits=WORK)
    assert r.status == 0 and r.vfs.view("/home/user").read_bytes("f") == expected


def test_spilled_check_and_merge_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _words(11, 3000)
    _tiny_runs(monkeypatch, 2000, 300, 2)
    out = run_command(["sort", "-t:", "-k2,2n", "-k1,1"], stdin=data, limits=WORK).stdout
    assert run_command(["sort", "-c", "-t:", "-k2,2n", "-k1,1"], stdin=out).status == 0
    half = out.count(b"\n") // 2
    lines = out.split(b"\n")
    files = {"a": b"\n".join(lines[:half]) + b"\n", "b": b"\n".join(lines[half:])}
    merged = run_command(["sort", "-m", "-t:", "-k2,2n", "-k1,1", "a", "b"], files=files, limits=WORK)
    assert merged.stdout == out


def test_spill_writes_no_file(monkeypatch: pytest.MonkeyPatch) -> None:
    # the runs stay in memory, charged to max_memory: nothing is written to the temporary directory
    data = _distinct(5, 5000)
    expected = run_command(["sort"], stdin=data).stdout
    _tiny_runs(monkeypatch, 4000, 500, 8)
    r = run_command(["sort", "-T", "/tmp"], stdin=data, limits=WORK)
    assert (r.stdout, r.status) == (expected, 0)
    assert r.vfs.view("/").listdir("/tmp") == []


def _long_lines(nbytes: int) -> bytes:
    """About `nbytes` of 80-byte lines (GNU's buffer was measured with lines that long)."""
    rng = random.Random(nbytes)
    return b"".join(b"%09d %s\n" % (rng.randrange(10**9), b"w" * 70) for _ in range(nbytes // 80))


# GNU sort needs a temporary file once its input passes its buffer (-S; for a pipe, a few MB;
# regular files are read whole): then a missing -T (or TMPDIR) directory fails, and only then
TEMP_CASES = [
    (["-S", "1M", "-T", "/nonexistent"], 2 << 20, False),
    (["-S", "1M", "-T", "/nonexistent", "-k2", "-u"], 2 << 20, False),
    (["-S", "1M", "-T", "/nonexistent", "-n", "-s"], 2 << 20, True),
    (["-S", "100M", "-T", "/nonexistent"], 2 << 20, False),
    (["-S", "1M", "-T", "/tmp", "-T", "/nonexistent"], 1_500_000, False),
    (["-S", "1M", "-T", "/nonexistent", "-T", "/tmp"], 1_500_000, True),
    (["-S", "1M", "-T", "/tmp", "-T", "/tmp", "-T", "/missing"], 1_000_000, True),  # 2 files
    (["-S", "1M", "-T", "/tmp", "-T", "/tmp", "-T", "/missing"], 1_300_000, True),  # 3 files
    (["-S", "1M", "-T", "/nonexistent"], 400_000, True),  # fits
    (["-T", "/nonexistent"], 4 << 20, False),
    (["-S", "1024", "-T", "a"], 2 << 20, True),
    (["-S", "1M", "-T", "/dev/null"], 2 << 20, False),
    (["-T", "/nonexistent"], 1 << 20, False),
    (["-T", "/nonexistent", "-r"], 8 << 20, False),
    (["-S", "1M", "-T", "/nonexistent", "-c"], 2 << 20, True),
    (["-S", "50%", "-T", "/nonexistent"], 2 << 20, False),
]


@pytest.mark.parametrize(("args", "size", "as_file"), TEMP_CASES, ids=lambda v: str(v))
def test_missing_temporary_directory_as_gnu(args: list[str], size: int, as_file: bool) -> None:
    data = _long_lines(size)
    if as_file:
        compare(["sort", *args, "f"], files={"f": data, "a/x": ""})
    else:
        compare(["sort", *args], stdin=data, files={"a/x": ""})


def test_temporary_directory_from_tmpdir_and_files_read_whole() -> None:
    data = _long_lines(2 << 20)
    r = run_command(["sort", "-S", "1M"], stdin=data, env={"TMPDIR": "/nowhere"})
    assert r.status == 2 and r.stdout == b""
    assert r.stderr == b"sort: cannot create temporary file in '/nowhere': No such file or directory\n"
    # regular files are sized: GNU holds them whole (here: spilled runs in memory, no check)
    r = run_command(["sort", "-T", "/nonexistent", "f"], files={"f": data * 8}, limits=WORK)
    assert r.status == 0 and r.stdout == b"".join(sorted((data * 8).splitlines(keepends=True)))


def test_spilled_runs_are_charged_to_max_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    # random text hardly compresses: 6 MB of it cannot be held under a 4 MB budget
    rng = random.Random(1)
    data = b"".join(b"%x\n" % rng.getrandbits(120) for _ in range(200_000))
    monkeypatch.setattr(sort_main, "RUN_BYTES", 256 << 10)
    limits = Limits(max_work=10**11, max_memory=4 << 20)
    with pytest.raises(LimitExceeded) as e:
        run_command(["sort"], stdin=data, limits=limits)
    assert e.value.limit == LimitKind.MAX_MEMORY
    # the same input sorts when the budget holds its compressed runs
    r = run_command(["sort"], stdin=data, limits=Limits(max_work=10**11, max_memory=64 << 20))
    assert r.status == 0 and r.stdout == b"".join(sorted(data.splitlines(keepends=True)))


def test_per_block_bounds() -> None:
    assert spill.per_block(10 << 20, 10) == 1  # long lines: few to a block
    assert spill.per_block(1 << 20, 40) == 10
    assert spill.per_block(1000, 1000) == 16384  # short lines: capped
    assert spill.per_block(spill.BLOCK_BYTES * 100, 1000) == 10
