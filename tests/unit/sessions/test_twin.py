"""A forked session's file layers (sessions/snapshot.twin): each in-memory layer, a memory
backend or an overlay's upper, is a new empty tree with the original's quota limits, owner and clock;
the host data below an overlay stays shared."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sandbash import Bash
from sandbash.sessions.snapshot import twin
from sandbash.vfs.memory import MemoryFs
from sandbash.vfs.overlay import OverlayFs
from sandbash.vfs.quota import DiskQuota


def _memory(tmp: Path) -> MemoryFs:
    return MemoryFs(quota=DiskQuota(4096, 500))


def _overlay(tmp: Path) -> OverlayFs:
    (tmp / "seen.txt").write_text("lower\n")
    for d in ("home/user", "tmp"):
        (tmp / d).mkdir(parents=True)
    return OverlayFs(str(tmp), quota=DiskQuota(4096, 500))


@pytest.mark.parametrize("make", [_memory, _overlay], ids=["memory", "overlay"])
def test_twin_layers_are_empty_and_keep_limits_and_owner(
    tmp_path: Path, make: Callable[[Path], MemoryFs | OverlayFs]
) -> None:
    backend = make(tmp_path)
    bash = Bash(fs=backend)
    assert bash.exec("echo mine > /tmp/only-in-one").exit_code == 0
    copy = twin(bash)
    layer = copy.vfs.backend
    assert layer is not backend and type(layer) is type(backend)
    upper = layer.upper if isinstance(layer, OverlayFs) else layer
    orig_upper = backend.upper if isinstance(backend, OverlayFs) else backend
    assert isinstance(upper, MemoryFs)
    assert upper is not orig_upper and upper.quota is not orig_upper.quota
    assert (upper.quota.max_bytes, upper.quota.max_files) == (4096, 500)
    assert (upper.uid, upper.gid, upper.clock) == (orig_upper.uid, orig_upper.gid, orig_upper.clock)
    if isinstance(layer, OverlayFs):
        assert layer.quota is layer.upper.quota and layer.lock is layer.upper.lock and not layer.whiteouts
    r = copy.exec(
        "test -e /tmp/only-in-one; echo $?; head -c 3000 /dev/zero > /big; head -c 3000 /dev/zero > /big2"
    )
    assert r.stdout.startswith("1\n")  # the original's file is not in the twin
    assert "No space left on device" in r.stderr  # the twin's quota is the original's size
    assert bash.exec("cat /tmp/only-in-one").stdout == "mine\n"  # and the original keeps its own
    if isinstance(layer, OverlayFs):
        assert copy.exec("cat /seen.txt").stdout == "lower\n"  # host data below stays shared
