"""Spec tables: each case's script must give the recorded stdout and exit status.

`test_sandbash` runs every case in sandbash; `test_real_bash` checks that real
bash (when /bin/bash exists) still gives the recorded values, so the tables stay
honest. Cases marked `## xfail:` are known sandbash bugs; they are strict, so a
fix turns them red until the mark is removed. See spec_loader.py for the format
and record.py for recording.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from spec_loader import BASH, Case, Outcome, load_all, run_real_bash, run_sandbash

CASES = load_all()


def _bash_52() -> bool:
    """The tables were recorded with GNU bash 5.2; other versions differ in places."""
    if not os.path.exists(BASH):
        return False
    p = subprocess.run([BASH, "-c", "echo ${BASH_VERSINFO[0]}.${BASH_VERSINFO[1]}"], capture_output=True)
    return p.stdout == b"5.2\n"


def _explain(case: Case, got: Outcome) -> str:
    return (
        f"{case.id} (cases/{case.file}.txt:{case.line})\n--- script\n{case.script}"
        f"--- expected (bash): status {case.status}\n{case.stdout!r}\n"
        f"--- got: status {got.status}\n{got.stdout!r}\n--- stderr\n{got.stderr}"
    )


def _check(case: Case, got: Outcome) -> None:
    assert case.stdout is not None and case.status is not None, f"{case.id}: not recorded, run record.py"
    assert (got.stdout, got.status) == (case.stdout, case.status), _explain(case, got)


def _xfail(case: Case) -> list[pytest.MarkDecorator]:
    return [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []


def test_cases_exist() -> None:
    assert len(CASES) >= 500


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=_xfail(c)) for c in CASES])
def test_sandbash(case: Case) -> None:
    _check(case, run_sandbash(case))


@functools.cache
def _real_bash_outcomes() -> dict[str, Outcome]:
    """Run every case in real bash once, in parallel: one process per case is the slow part."""
    with ThreadPoolExecutor(8) as pool:
        return dict(zip((c.id for c in CASES), pool.map(run_real_bash, CASES), strict=True))


@pytest.mark.skipif(not _bash_52(), reason="GNU bash 5.2 not available at /bin/bash")
@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_real_bash(case: Case) -> None:
    _check(case, _real_bash_outcomes()[case.id])
