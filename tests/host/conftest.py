"""Host-mode tests: a Bash over the recorded proc/sys tree (tests/fixtures) or the real /proc."""

from __future__ import annotations

from collections.abc import Iterator
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
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # ps STIME and uptime's clock are local times of the process: UTC here, the old zone after
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def fixture_bash() -> Bash:
    return Bash(host=fixture_host())
