"""Host-mode tests: a Bash over the recorded proc/sys tree (tests/fixtures) or the real /proc."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sandbash import Bash
from sandbash.host import HostAccess

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PROC = str(FIXTURES / "proc")
SYS = str(FIXTURES / "sys")


def fixture_host(**kw: Any) -> HostAccess:
    return HostAccess(proc_path=PROC, sys_path=SYS, **kw)


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> None:
    # ps STIME and uptime's clock are local times of the process
    monkeypatch.setenv("TZ", "UTC")
    import time

    time.tzset()


@pytest.fixture
def fixture_bash() -> Bash:
    return Bash(host=fixture_host())
