"""ReadWriteFs: real I/O confined to its root."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from sandbash.vfs import DiskQuota, ReadWriteFs, Vfs

from .conftest import err


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"canary")
    return root, outside


def test_writes_reach_the_host(setup: tuple[Path, Path]) -> None:
    root, _ = setup
    fs = Vfs(ReadWriteFs(str(root))).view("/")
    fs.mkdir("/d", 0o750)
    fs.write_file("/d/f", b"data")
    fs.chmod("/d/f", 0o600)
    fs.symlink("f", "/d/l")
    assert (root / "d" / "f").read_bytes() == b"data"
    assert (root / "d" / "f").stat().st_mode & 0o7777 == 0o600
    assert (root / "d").stat().st_mode & 0o7777 == 0o750  # the host umask does not apply
    assert os.readlink(root / "d" / "l") == "f"
    assert fs.stat("/d/f").uid == 1000  # host files belong to the sandbox user


def test_backend_never_follows_a_parent_symlink(setup: tuple[Path, Path]) -> None:
    root, outside = setup
    (root / "esc").symlink_to(outside.parent)
    be = ReadWriteFs(str(root))
    # what a racing writer could hand the backend after the facade resolved the path
    assert err(lambda: be.lstat("/esc/outside.txt")) == errno.ELOOP
    assert err(lambda: be.open("/esc/outside.txt", "w", 0o644, 0, 0)) == errno.ELOOP
    assert err(lambda: be.unlink("/esc/outside.txt")) == errno.ELOOP
    assert err(lambda: be.rename("/esc/outside.txt", "/x")) == errno.ELOOP
    (root / "last").symlink_to(outside)
    assert err(lambda: be.open("/last", "r", 0, 0, 0)) == errno.ELOOP
    assert err(lambda: be.open("/last", "a", 0o644, 0, 0)) == errno.ELOOP
    assert err(lambda: be.chmod("/last", 0o777)) == errno.EOPNOTSUPP
    be.utime("/last", 10**9, 10**9)  # acts on the link itself
    assert outside.read_bytes() == b"canary" and outside.stat().st_mtime > 1


def test_host_symlinks_leaving_the_root_are_refused(setup: tuple[Path, Path]) -> None:
    root, outside = setup
    (root / "abs").symlink_to(outside)
    (root / "rel").symlink_to("../outside.txt")
    (root / "in").symlink_to(root / "f")  # absolute, inside the root: shown relative
    fs = Vfs(ReadWriteFs(str(root))).view("/")
    for name in ("/abs", "/rel"):
        assert err(lambda n=name: fs.read_file(n)) == errno.EACCES
        assert err(lambda n=name: fs.readlink(n)) == errno.EACCES  # the host target is not shown
        assert err(lambda n=name: fs.write_file(n, b"x")) == errno.EACCES
    assert fs.readlink("/in") == "f"
    fs.write_file("/in", b"made inside")
    assert (root / "f").read_bytes() == b"made inside"
    assert outside.read_bytes() == b"canary"


def test_outside_symlinks_opt_in(setup: tuple[Path, Path]) -> None:
    root, outside = setup
    (root / "rel").symlink_to("../outside.txt")
    fs = Vfs(ReadWriteFs(str(root), outside_symlinks=True)).view("/")
    assert fs.readlink("/rel") == "../outside.txt"
    fs.write_file("/rel", b"made inside")  # still resolved in the sandbox: /outside.txt
    assert (root / "outside.txt").read_bytes() == b"made inside"
    fs.symlink("/etc/passwd", "/pw")  # the embedder allowed real links anywhere
    assert os.readlink(root / "pw") == "/etc/passwd"
    assert outside.read_bytes() == b"canary"


def test_hard_link_to_outside_is_read_only(setup: tuple[Path, Path]) -> None:
    root, outside = setup
    os.link(outside, root / "hl")
    fs = Vfs(ReadWriteFs(str(root))).view("/")
    assert fs.read_file("/hl") == b"canary"
    for action in (
        lambda: fs.write_file("/hl", b"x"),
        lambda: fs.write_file("/hl", b"x", append=True),
        lambda: fs.truncate("/hl", 0),
        lambda: fs.chmod("/hl", 0o777),
        lambda: fs.utime("/hl", 1, 1),
    ):
        assert err(action) == errno.EPERM
    fs.unlink("/hl")
    assert outside.read_bytes() == b"canary"


def test_quota_counts_additions_less_removals(setup: tuple[Path, Path]) -> None:
    root, _ = setup
    (root / "old.bin").write_bytes(b"o" * 50_000)
    be = ReadWriteFs(str(root), quota=DiskQuota(max_bytes=60_000, max_files=100))
    fs = Vfs(be).view("/")
    fs.write_file("/a", b"a" * 40_000)
    assert be.quota.used_bytes == 40_001
    assert err(lambda: fs.write_file("/b", b"b" * 30_000)) == errno.ENOSPC
    assert (root / "b").stat().st_size == 0  # refused before anything was written
    fs.unlink("/old.bin")  # removing host data makes room
    fs.write_file("/b", b"b" * 30_000)
    fs.rename("/b", "/a")
    assert (root / "a").read_bytes() == b"b" * 30_000
    assert be.quota.used_bytes == 0  # usage never goes below zero


def test_host_dev_is_hidden(setup: tuple[Path, Path]) -> None:
    root, _ = setup
    (root / "dev").mkdir()
    (root / "dev" / "host-secret").write_bytes(b"x")
    fs = Vfs(ReadWriteFs(str(root))).view("/")
    assert "host-secret" not in fs.listdir("/dev")
    assert err(lambda: fs.read_file("/dev/host-secret")) == errno.ENOENT
    assert err(lambda: fs.rmdir("/dev")) in (errno.EBUSY, errno.EACCES)


def test_missing_root() -> None:
    assert err(lambda: ReadWriteFs("/no/such/dir/anywhere")) == errno.ENOENT


def test_fifo_is_not_opened(setup: tuple[Path, Path]) -> None:
    root, _ = setup
    os.mkfifo(root / "fifo")
    fs = Vfs(ReadWriteFs(str(root))).view("/")
    assert err(lambda: fs.read_file("/fifo")) == errno.ENXIO  # never blocks waiting for a writer


def test_lstat_many_stays_inside_the_root(setup: tuple[Path, Path]) -> None:
    root, outside = setup
    (root / "d").mkdir()
    (root / "esc").symlink_to(outside.parent)
    be = ReadWriteFs(str(root))
    # a directory swapped for a link after the facade resolved it: refused, not followed
    assert err(lambda: be.lstat_many("/esc", ["outside.txt"])) == errno.ELOOP
    # entry names are looked up in the directory only, never as paths
    got = be.lstat_many("/d", ["..", ".", "", "../esc", "x\0"])
    assert [getattr(r, "code", None) for r in got] == [errno.EINVAL] * 5
    (root / "d" / "l").symlink_to(outside)
    (link,) = be.lstat_many("/d", ["l"])
    assert not isinstance(link, Exception) and link.is_link  # the link itself


def test_dotdot_is_never_looked_up(setup: tuple[Path, Path]) -> None:
    root, _ = setup
    (root / "d").mkdir()
    be = ReadWriteFs(str(root))
    for path in ("/..", "/../", "/d/..", "/d/../", "/../x", "/d/../../x", "//d/./../x"):
        assert err(lambda path=path: be.lstat(path)) == errno.EINVAL, path
    assert be.lstat("/d/./").is_dir  # '.' and '//' stay harmless


def test_lstat_chain_stops_at_links_and_odd_names(setup: tuple[Path, Path]) -> None:
    root, outside = setup
    (root / "d").mkdir()
    (root / "d" / "esc").symlink_to(outside.parent)
    tree = ReadWriteFs(str(root)).tree
    got = tree.lstat_chain(["d", "esc", "outside.txt"])
    assert len(got) == 2 and not isinstance(got[1], Exception) and os.path.stat.S_ISLNK(got[1].st_mode)
    assert len(tree.lstat_chain(["d", "..", "x"])) == 1  # never looked up: the caller goes on alone
    got = tree.lstat_chain(["d", "missing", "x"])
    assert len(got) == 2 and getattr(got[1], "code", None) == errno.ENOENT
