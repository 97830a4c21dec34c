"""Fixtures for the filesystem contract suite: the same tests over every
backend and over a stack (memory root, overlay and sqlite mounts)."""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from sandbash.vfs import DiskQuota, FsError, FsView, MemoryFs, MountFs, OverlayFs, ReadWriteFs, SqliteFs, Vfs
from sandbash.vfs.base import Backend

KINDS = ["memory", "overlay", "readwrite", "sqlite", "stack-memory", "stack-overlay", "stack-sqlite"]


@dataclass
class Env:
    """A Vfs over one backend kind; tests work below `base` (the view's cwd)."""

    kind: str
    vfs: Vfs
    view: FsView
    base: str
    backend: Backend
    host: Path | None  # the host directory a host-backed backend uses


Factory = Callable[..., Env]


def _build(kind: str, tmp: Path, quota: DiskQuota | None) -> tuple[Backend, str, Backend, Path | None]:
    """(backend for the Vfs, base dir, backend holding base, its host dir)."""
    lower = tmp / "lower"
    lower.mkdir(exist_ok=True)
    if kind == "memory":
        be: Backend = MemoryFs(quota=quota)
        return be, "/w", be, None
    if kind == "overlay":
        be = OverlayFs(str(lower), quota=quota)
        return be, "/w", be, lower
    if kind == "readwrite":
        be = ReadWriteFs(str(lower), quota=quota)
        return be, "/w", be, lower
    if kind == "sqlite":
        be = SqliteFs(str(tmp / "store.db"), quota=quota)
        return be, "/w", be, None
    # a stack: memory root with an overlay and a sqlite store mounted
    root = MemoryFs(quota=quota if kind == "stack-memory" else None)
    ov = OverlayFs(str(lower), quota=quota if kind == "stack-overlay" else None)
    sq = SqliteFs(str(tmp / "store.db"), quota=quota if kind == "stack-sqlite" else None)
    stack = MountFs(root)
    stack.mount("/mnt/ov", ov)
    stack.mount("/mnt/sq", sq)
    where = {
        "stack-memory": ("/w", root, None),
        "stack-overlay": ("/mnt/ov/w", ov, lower),
        "stack-sqlite": ("/mnt/sq/w", sq, None),
    }[kind]
    return stack, where[0], where[1], where[2]


@pytest.fixture(params=KINDS)
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Factory]:
    kind: str = request.param
    made: list[Backend] = []

    def factory(quota: DiskQuota | None = None) -> Env:
        sub = tmp_path / f"fs{len(made)}"
        sub.mkdir()
        be, base, holder, host = _build(kind, sub, quota)
        made.append(be)
        vfs = Vfs(be)
        vfs.view("/").mkdir(base, parents=True)
        return Env(kind, vfs, vfs.view(base), base, holder, host)

    yield factory
    for be in made:
        for m in be.mounts if isinstance(be, MountFs) else []:
            close = getattr(m.fs, "close", None)
            if close is not None:
                close()
        close = getattr(be, "close", None)
        if close is not None:
            close()


@pytest.fixture
def env(make: Factory) -> Env:
    return make()


def err(fn: Callable[[], object]) -> int:
    """The errno `fn` fails with (the test fails if it succeeds)."""
    try:
        fn()
    except FsError as e:
        return e.code
    except OSError as e:  # a stream's error (writes to /dev/full)
        return e.errno or 0
    raise AssertionError("no error")


__all__ = ["KINDS", "Env", "Factory", "err", "errno"]
