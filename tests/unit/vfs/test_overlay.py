"""OverlayFs: host content, copy-on-write, whiteouts, host symlinks, streaming."""

from __future__ import annotations

import errno
import hashlib
import os
import tracemalloc
from pathlib import Path

import pytest

from sandbash.vfs import DiskQuota, OverlayFs, Vfs

from .conftest import err

LARGE_MB = int(os.environ.get("SANDBASH_LARGE_MB", "50"))


def snapshot(root: Path) -> dict[str, str]:
    """Every host entry under root with its content hash / link target / mode."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            if p.is_symlink():
                out[str(p)] = "link:" + os.readlink(p)
            elif p.is_file():
                out[str(p)] = f"{st.st_mode:o}:" + hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                out[str(p)] = f"{st.st_mode:o}:{st.st_mtime_ns}"
    return out


@pytest.fixture
def lower(tmp_path: Path) -> Path:
    root = tmp_path / "host"
    (root / "docs" / "sub").mkdir(parents=True)
    (root / "docs" / "a.txt").write_bytes(b"alpha\n")
    (root / "docs" / "sub" / "b.txt").write_bytes(b"beta\n")
    (root / "top.txt").write_bytes(b"top\n")
    (root / "docs" / "inside").symlink_to("a.txt")
    (root / "docs" / "abs_inside").symlink_to(root / "top.txt")
    (root / "docs" / "outside").symlink_to("/etc/passwd")
    (root / "docs" / "up").symlink_to("../../..")
    return root


def test_reads_host_and_never_writes_it(lower: Path) -> None:
    before = snapshot(lower)
    fs = Vfs(OverlayFs(str(lower))).view("/")
    assert fs.read_file("/docs/a.txt") == b"alpha\n"
    assert fs.listdir("/docs") == ["a.txt", "abs_inside", "inside", "outside", "sub", "up"]
    fs.write_file("/docs/a.txt", b"changed", append=True)
    fs.write_file("/docs/new.txt", b"new")
    fs.unlink("/top.txt")
    fs.chmod("/docs/sub/b.txt", 0o600)
    fs.utime("/docs", 5 * 10**9, 5 * 10**9)
    fs.rename("/docs/sub", "/moved")
    fs.mkdir("/docs/sub")
    fs.link("/moved/b.txt", "/hard")
    fs.truncate("/hard", 2)
    fs.unlink("/docs/outside")
    assert fs.read_file("/docs/a.txt") == b"alpha\nchanged"
    assert fs.listdir("/") == ["dev", "docs", "hard", "moved"]
    assert fs.listdir("/docs/sub") == []
    assert fs.read_file("/moved/b.txt") == b"be"
    assert fs.stat("/moved/b.txt").perm == 0o600
    assert err(lambda: fs.read_file("/top.txt")) == errno.ENOENT
    assert snapshot(lower) == before


def test_whiteouts_hide_lower_subtrees(lower: Path) -> None:
    fs = Vfs(OverlayFs(str(lower))).view("/")
    fs.unlink("/docs/sub/b.txt")
    fs.rmdir("/docs/sub")
    fs.mkdir("/docs/sub")  # recreated: opaque, the lower content stays hidden
    assert fs.listdir("/docs/sub") == []
    fs.write_file("/docs/sub/b.txt", b"fresh")
    assert fs.read_file("/docs/sub/b.txt") == b"fresh"
    fs.unlink("/docs/a.txt")
    fs.symlink("x", "/docs/a.txt")
    assert fs.readlink("/docs/a.txt") == "x"
    assert err(lambda: fs.rmdir("/docs")) == errno.ENOTEMPTY


def test_host_symlinks_refused_by_default(lower: Path) -> None:
    fs = Vfs(OverlayFs(str(lower))).view("/")
    assert fs.lstat("/docs/inside").is_link
    assert err(lambda: fs.read_file("/docs/inside")) == errno.EACCES
    assert err(lambda: fs.read_file("/docs/outside")) == errno.EACCES
    assert err(lambda: fs.readlink("/docs/up")) == errno.EACCES


def test_host_symlinks_followed_inside_root(lower: Path) -> None:
    vfs = Vfs(OverlayFs(str(lower), follow_symlinks=True))
    fs = vfs.view("/")
    assert fs.read_file("/docs/inside") == b"alpha\n"
    assert fs.read_file("/docs/abs_inside") == b"top\n"
    assert fs.readlink("/docs/abs_inside") == "../top.txt"
    assert err(lambda: fs.read_file("/docs/outside")) == errno.EACCES
    assert err(lambda: fs.listdir("/docs/up")) == errno.EACCES


def test_read_only(lower: Path) -> None:
    fs = Vfs(OverlayFs(str(lower), read_only=True)).view("/")
    assert fs.read_file("/top.txt") == b"top\n"
    for action in (
        lambda: fs.write_file("/top.txt", b"x"),
        lambda: fs.write_file("/n", b""),
        lambda: fs.unlink("/top.txt"),
        lambda: fs.mkdir("/d"),
        lambda: fs.chmod("/top.txt", 0),
        lambda: fs.rename("/top.txt", "/t2"),
        lambda: fs.symlink("a", "/l"),
    ):
        assert err(action) == errno.EROFS


def test_quota_counts_the_upper_layer_only(lower: Path) -> None:
    (lower / "big.bin").write_bytes(b"b" * 300_000)
    ov = OverlayFs(str(lower), quota=DiskQuota(max_bytes=100_000, max_files=50))
    fs = Vfs(ov).view("/")
    assert len(fs.read_file("/big.bin")) == 300_000  # reading host data costs nothing
    fs.chmod("/big.bin", 0o600)  # a metadata copy-up: the content stays on the host
    assert ov.quota.used_bytes < 100
    assert err(lambda: fs.write_file("/big.bin", b"x", append=True)) == errno.ENOSPC
    assert fs.read_file("/big.bin") == b"b" * 300_000
    fs.write_file("/big.bin", b"small")  # truncation needs no copy of the old content
    assert fs.read_file("/big.bin") == b"small"


@pytest.mark.skipif(os.environ.get("SANDBASH_SKIP_LARGE") == "1", reason="SANDBASH_SKIP_LARGE=1")
def test_large_file_streams_in_bounded_memory(tmp_path: Path) -> None:
    big = tmp_path / "big.bin"
    block = hashlib.sha256(b"seed").digest() * 32768  # 1 MiB
    with big.open("wb") as f:
        for _ in range(LARGE_MB):
            f.write(block)
    fs = Vfs(OverlayFs(str(tmp_path), read_only=True)).view("/")
    tracemalloc.start()
    try:
        stream = fs.open("/big.bin")
        h = hashlib.sha256()
        total = 0
        while chunk := stream.read_chunk():
            h.update(chunk)
            total += len(chunk)
        stream.close()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert total == LARGE_MB << 20
    expected = hashlib.sha256()
    for _ in range(LARGE_MB):
        expected.update(block)
    assert h.hexdigest() == expected.hexdigest()
    assert peak < 4 << 20, f"peak {peak} bytes"
