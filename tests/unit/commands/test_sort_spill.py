"""sort's spilled runs (commands/sort/spill.py): runs kept compressed in memory and merged
a block of each at a time must give exactly the in-memory sort's output (itself compared
with GNU sort in test_sort.py), for every ordering option, with equal keys across block and
run boundaries; the runs are charged to max_memory and no file is written."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest

from sandbash.commands.sort import main as sort_main
from sandbash.commands.sort import spill
from sandbash.limits import LimitExceeded, LimitKind, Limits
from sandbash.stdio.streams import CHUNK
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


def _tiny_runs(
    monkeypatch: pytest.MonkeyPatch,
    run: int,
    block: int,
    top_up: int,
    raw: int = 0,
    merge: int = 0,
    work: int = 1 << 40,
) -> None:
    """Runs of `run` bytes of lines (or of `work` bytes of lines and records), blocks of `block`,
    the first `raw` bytes of them stored uncompressed, `merge` bytes of text pending in the merge
    (0: each run tops up to `top_up` lines only)."""
    monkeypatch.setattr(sort_main, "RUN_BYTES", run)
    monkeypatch.setattr(sort_main, "RUN_WORK", work)
    monkeypatch.setattr(spill, "BLOCK_BYTES", block)
    monkeypatch.setattr(spill, "_TOP_UP", top_up)
    monkeypatch.setattr(spill, "RAW_BYTES", raw)
    monkeypatch.setattr(spill, "MERGE_BYTES", merge)


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


@pytest.mark.parametrize("args", ARGS, ids=" ".join)
@pytest.mark.parametrize(
    ("work", "block", "merge"),
    # runs cut by their records' cost; the merge's pending text shared among the runs
    [(6000, 300, 2000), (20000, 1000, 700), (3000, 200, 50000)],
)
@pytest.mark.parametrize("make", [_words, _distinct])
def test_spilled_sort_sized_by_work_is_the_in_memory_sort(
    monkeypatch: pytest.MonkeyPatch, args: list[str], work: int, block: int, merge: int, make: object
) -> None:
    data = make(len(args) + work, 3000)  # type: ignore[operator]
    if "-z" in args:
        data = data.replace(b"\n", b"\0")
    expected = run_command(["sort", *args], stdin=data, limits=WORK)
    assert expected.status == 0, expected.stderr
    _tiny_runs(monkeypatch, 1 << 30, block, 1, merge=merge, work=work)
    ours = run_command(["sort", *args], stdin=data, limits=WORK)
    assert (ours.stdout, ours.stderr, ours.status) == (expected.stdout, expected.stderr, 0)


def _run_lengths(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of lines of each run spilled from now on."""
    lengths: list[int] = []
    store = spill.MemRuns.spill

    def spy(self: spill.MemRuns, records: Iterable[object], per_block: int, lines: bool = False) -> None:
        records = list(records)  # (a counted run comes one record at a time)
        lengths.append(len(records))
        store(self, records, per_block, lines)

    monkeypatch.setattr(spill.MemRuns, "spill", spy)
    return lengths


@pytest.mark.parametrize(
    ("args", "least"),
    # a key of most of the line costs about the line again; a number, a small int object
    [(["-k2"], 100), (["-k2", "-u"], 100), (["-t", " ", "-k1,1n"], 28), (["-k2,2", "-k1,1n", "-r"], 60)],
)
def test_runs_hold_lines_and_records_within_run_work(
    monkeypatch: pytest.MonkeyPatch, args: list[str], least: int
) -> None:
    rng = random.Random(5)
    data = b"".join(b"%d %s\n" % (rng.randrange(10**6), b"%x" % rng.getrandbits(400)) for _ in range(6000))
    per_line = 48 + len(data) // 6000  # a line's text and its object (main._LINE_COST)
    work = 200_000
    expected = run_command(["sort", *args], stdin=data).stdout
    _tiny_runs(monkeypatch, 1 << 30, 2000, 8, work=work)
    measured: list[int] = []
    measure = sort_main.Sorter.measure

    def spy(self: sort_main.Sorter, lines: list[bytes]) -> None:
        measure(self, lines)
        measured.append(self.per_record)

    monkeypatch.setattr(sort_main.Sorter, "measure", spy)
    lengths = _run_lengths(monkeypatch)
    r = run_command(["sort", *args], stdin=data, limits=WORK)
    assert r.status == 0 and r.stdout == expected
    [per_record] = measured  # once, on the first lines
    assert per_record >= 64 + least
    assert len(lengths) >= 2
    batch = CHUNK // (per_line - 48) + 1  # lines of one read (a run is full once a read passes its share)
    for n in lengths:
        assert (n - batch) * (per_line + per_record) <= work
    # a plain sort makes no record: its runs hold more lines than any keyed one
    keyed = list(lengths)
    plain = _run_lengths(monkeypatch)
    assert run_command(["sort"], stdin=data, limits=WORK).status == 0
    assert min(plain[:-1]) > max(keyed) + least


def test_merge_holds_its_share_whatever_the_number_of_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(9)
    data = b"".join(b"%x\n" % rng.getrandbits(200) for _ in range(20000))
    expected = b"".join(sorted(data.splitlines(keepends=True)))
    top_up = spill._top_up
    pending: dict[int, int] = {}
    most = [0]

    def spy(blocks: object, buf: list[bytes], live: list[bool], i: int, want: int) -> list[bytes]:
        buf = top_up(blocks, buf, live, i, want)  # type: ignore[arg-type]
        pending[i] = sum(map(len, buf))  # (plain: the records are the lines)
        most[0] = max(most[0], sum(pending.values()))
        return buf

    monkeypatch.setattr(spill, "_top_up", spy)
    for runs in (4, 40):
        _tiny_runs(monkeypatch, len(data) // runs, 1000, 1, merge=20000)
        pending.clear()
        most[0] = 0
        r = run_command(["sort"], stdin=data, limits=WORK)
        assert (r.stdout, r.stderr) == (expected, b"")
        # the merge's share, plus a block a run at most (a run tops up a block at a time); few
        # runs hold their shares, many a block each
        assert 10000 <= most[0] <= 20000 + 1000 * (runs + 2)


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
    assert spill.per_block(spill.BLOCK_BYTES * 4, 40) == 10
    assert spill.per_block(1000, 1000) == 16384  # short lines: capped
    assert spill.per_block(spill.BLOCK_BYTES * 100, 1000) == 10
