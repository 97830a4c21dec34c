"""Opt-in: GNU bash's own test suite against the local bash (see bash_suite.py and README.md here).

Runs only when BASH_SUITE_REPO names a bash source snapshot (a git dir or a checkout); skipped cleanly
otherwise. Fails when the share of matching checks falls below BASH_SUITE_MIN (percent, default the
figure recorded in README.md minus one point), so a regression shows up without pinning each line.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = os.environ.get("BASH_SUITE_REPO")

pytestmark = pytest.mark.skipif(
    not REPO or not Path("/bin/bash").exists(),
    reason="set BASH_SUITE_REPO to a bash source snapshot to run bash's own suite",
)


def recorded_percent() -> float:
    text = (HERE / "README.md").read_text()
    m = re.search(r"\| \*\*all\*\* \| \*\*\d+/\d+\*\* \| \*\*([\d.]+)\*\*", text)
    assert m, "README.md has no totals row"
    return float(m.group(1))


def test_bash_suite_does_not_regress(tmp_path: Path) -> None:
    sys.path.insert(0, str(HERE))
    import bash_suite

    out = tmp_path / "results.json"
    assert bash_suite.main(["run", "--bash-repo", str(REPO), "--out", str(out)]) == 0
    outcomes = json.loads(out.read_text())["outcomes"]
    checks = sum(o["checks"] for o in outcomes)
    passed = sum(o["passed"] for o in outcomes)
    floor = float(os.environ.get("BASH_SUITE_MIN", recorded_percent() - 1.0))
    assert checks > 1000, "the snapshot gave too few checks: is it bash's source tree?"
    assert 100 * passed / checks >= floor, f"{passed}/{checks} checks match bash, below {floor}%"
