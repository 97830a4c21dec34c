"""Standard output a command cannot write: each tool's own words and status (its record's
WriteFailure, reported at one seam: commands/invoke.py), and a write to a full filesystem, which
is the writer's write error, not a file error without a name. The tools' words against the real
ones are spec cases (tests/spec/cases/fx_lead30_write_errors.txt)."""

from __future__ import annotations

import errno
import fnmatch

import pytest

from sandbash import Bash, Limits
from sandbash.commands import registry
from sandbash.commands.record import STDIO_BLOCK, WriteFailure

RECORDS = registry.all_records()


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.name)
def test_every_record_reports_every_way_a_write_fails(record: object) -> None:
    failure = record.write_failure  # type: ignore[attr-defined]
    assert isinstance(failure, WriteFailure)
    for code in (errno.ENOSPC, errno.EBADF, errno.EIO):
        for size in (1, STDIO_BLOCK):
            text, status = failure.report(record.name, code, size)  # type: ignore[attr-defined]
            assert text.endswith("\n") and "{" not in text, text
            assert record.name in text or "gzip" in text, text  # type: ignore[attr-defined]
            assert 0 < status < 126


def test_a_closed_descriptor_keeps_errno_where_a_full_device_loses_it() -> None:
    bare = WriteFailure(at_exit="{name}: write error{close_err}\n")
    assert bare.report("wc", errno.ENOSPC, 2) == ("wc: write error\n", 1)
    assert bare.report("wc", errno.EBADF, 2) == ("wc: write error: Bad file descriptor\n", 1)


FULL = {"max_filesystem_bytes": 1 << 20}


@pytest.mark.parametrize(
    ("script", "message", "status"),
    [
        ("seq 1 300000 > f", "seq: write error: No space left on device\n", 1),
        ("seq 1 300000 | sed p > f", "sed: couldn't flush stdout: No space left on device\n", 4),
        ("seq 1 300000 | grep 1 > f", "grep: write error: No space left on device\n", 2),
        ("seq 1 300000 | cat >> f", "cat: write error: No space left on device\n", 1),
        (
            "seq 1 300000 | awk '{print}' > f",
            # (the record is the one whose output filled a buffer: where the pipe's chunks end)
            'awk: (FILENAME=- FNR=*) fatal: print to "standard output" failed: No space left on device\n',
            2,
        ),
        ("seq 1 300000 | tee f > /dev/null", "tee: f: No space left on device\n", 1),
        ("head -c 900000 /dev/zero > a; cp a b", "cp: error writing 'b': No space left on device\n", 1),
    ],
)
def test_a_full_filesystem_is_the_writer_s_write_error(script: str, message: str, status: int) -> None:
    r = Bash(limits=Limits(**FULL)).exec(script + '; echo "rc=$?"')
    assert fnmatch.fnmatchcase(r.stderr, message), r.stderr
    assert r.stdout == f"rc={status}\n"
    assert "f: " not in r.stderr.replace("tee: f: ", "") and ": : " not in r.stderr
