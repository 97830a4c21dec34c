"""MountFs: routing, mount points, cross-mount rules, the table for df/mount."""

from __future__ import annotations

import errno
from pathlib import Path

from sandbash.vfs import DiskQuota, MemoryFs, MountFs, OverlayFs, SqliteFs, Vfs

from .conftest import err


def stack(tmp_path: Path) -> tuple[Vfs, MountFs]:
    (tmp_path / "host").mkdir()
    (tmp_path / "host" / "data.txt").write_bytes(b"host data\n")
    fs = MountFs(MemoryFs())
    fs.mount("/mnt/ro", OverlayFs(str(tmp_path / "host")), read_only=True)
    fs.mount("/mnt/cow", OverlayFs(str(tmp_path / "host"), quota=DiskQuota(1000, 10)))
    fs.mount("/store", SqliteFs(str(tmp_path / "s.db")))
    return Vfs(fs), fs


def test_routing_and_virtual_directories(tmp_path: Path) -> None:
    vfs, _ = stack(tmp_path)
    fs = vfs.view("/")
    assert fs.listdir("/") == ["dev", "mnt", "store"]
    assert fs.listdir("/mnt") == ["cow", "ro"]
    assert fs.read_file("/mnt/ro/data.txt") == b"host data\n"
    assert fs.stat("/mnt").is_dir and fs.stat("/mnt").uid == 0
    assert fs.stat("/mnt/ro").dev != fs.stat("/store").dev
    assert err(lambda: fs.mkdir("/mnt")) == errno.EEXIST
    assert err(lambda: fs.write_file("/mnt/new", b"")) == errno.EACCES  # shown, not writable
    fs.write_file("/mnt/cow/data.txt", b"changed\n")
    assert fs.read_file("/mnt/ro/data.txt") == b"host data\n"


def test_mount_points_are_fixed(tmp_path: Path) -> None:
    vfs, _ = stack(tmp_path)
    fs = vfs.view("/")
    assert err(lambda: fs.rmdir("/store")) == errno.EBUSY
    assert err(lambda: fs.rename("/store", "/s2")) == errno.EBUSY
    assert err(lambda: fs.rmdir("/mnt")) == errno.EBUSY
    assert err(lambda: fs.rmdir("/dev")) in (errno.EBUSY, errno.EACCES)


def test_cross_mount_rename_and_link_are_exdev(tmp_path: Path) -> None:
    vfs, _ = stack(tmp_path)
    fs = vfs.view("/")
    fs.write_file("/tmpfile", b"x")
    assert err(lambda: fs.rename("/tmpfile", "/store/f")) == errno.EXDEV
    assert err(lambda: fs.link("/tmpfile", "/store/f")) == errno.EXDEV
    assert err(lambda: fs.rename("/mnt/cow/data.txt", "/mnt/ro/x")) == errno.EXDEV
    # what `mv` does on EXDEV: copy, then delete
    fs.write_file("/store/f", fs.read_file("/tmpfile"))
    fs.unlink("/tmpfile")
    assert fs.read_file("/store/f") == b"x"


def test_read_only_mount(tmp_path: Path) -> None:
    vfs, _ = stack(tmp_path)
    fs = vfs.view("/")
    assert err(lambda: fs.write_file("/mnt/ro/data.txt", b"x")) == errno.EROFS
    assert err(lambda: fs.write_file("/mnt/ro/new", b"x")) == errno.EROFS
    assert err(lambda: fs.unlink("/mnt/ro/data.txt")) == errno.EROFS
    assert err(lambda: fs.mkdir("/mnt/ro/d")) == errno.EROFS
    assert err(lambda: fs.chmod("/mnt/ro/data.txt", 0o600)) == errno.EROFS


def test_each_mount_has_its_quota(tmp_path: Path) -> None:
    vfs, _ = stack(tmp_path)
    fs = vfs.view("/")
    assert err(lambda: fs.write_file("/mnt/cow/big", b"x" * 2000)) == errno.ENOSPC
    fs.write_file("/big", b"x" * 2000)
    table = {m.path: m for m in vfs.mounts()}
    assert list(table) == ["/", "/dev", "/mnt/cow", "/mnt/ro", "/store"]
    assert table["/mnt/ro"].read_only and table["/mnt/ro"].fstype == "overlay"
    assert table["/store"].fstype == "sqlitefs" and table["/dev"].fstype == "devtmpfs"
    cow_quota = table["/mnt/cow"].quota
    assert cow_quota is not None and cow_quota.max_bytes == 1000
    assert vfs.statfs("/mnt/cow/data.txt").path == "/mnt/cow"
    assert vfs.statfs("/mnt").path == "/"


def test_symlink_across_mounts_resolves_in_the_sandbox(tmp_path: Path) -> None:
    vfs, _ = stack(tmp_path)
    fs = vfs.view("/")
    fs.symlink("/mnt/ro/data.txt", "/store/link")
    assert fs.read_file("/store/link") == b"host data\n"
    fs.symlink("../mnt/cow", "/store/dir")
    assert fs.realpath("/store/dir/data.txt") == "/mnt/cow/data.txt"


def test_nested_mountfs_table(tmp_path: Path) -> None:
    inner = MountFs(MemoryFs())
    inner.mount("/a", MemoryFs())
    outer = MountFs(MemoryFs())
    outer.mount("/x", inner)
    paths = [m.path for m in Vfs(outer).mounts()]
    assert paths == ["/", "/dev", "/x", "/x/a"]
    outer.umount("/x")
    assert [m.path for m in Vfs(outer).mounts()] == ["/", "/dev"]


def test_materialize_makes_a_stand_in_a_real_directory(tmp_path: Path) -> None:
    vfs, mfs = stack(tmp_path)
    fs = vfs.view("/")
    vfs.tree.materialize("/mnt", 0o1777, 1000, 1000)  # through the Vfs's own table (nested)
    st = fs.stat("/mnt")
    assert (st.mode & 0o7777, st.uid, st.gid) == (0o1777, 1000, 1000)
    assert fs.listdir("/mnt") == ["cow", "ro"]  # the mount points below are still shown
    fs.write_file("/mnt/new", b"x")
    assert fs.read_file("/mnt/new") == b"x"
    vfs.tree.materialize("/mnt", 0o755, 0, 0)  # real already: unchanged
    assert fs.stat("/mnt").mode & 0o7777 == 0o1777
    vfs.tree.materialize("/mnt/ro", 0o755, 0, 0)  # a mount point, not a stand-in: nothing made
    vfs.tree.materialize("/other", 0o755, 0, 0)  # nothing leads to a mount there: nothing made
    assert err(lambda: fs.stat("/other")) == errno.ENOENT
    deep = MountFs(MemoryFs())
    deep.mount("/a/b/c", MemoryFs())
    deep.materialize("/a/b", 0o700, 7, 7)  # its parents made too
    assert [deep.lstat(p).uid for p in ("/a", "/a/b")] == [7, 7]
    ro = MountFs(MemoryFs(), read_only=True)
    ro.mount("/x/y", MemoryFs())
    ro.materialize("/x", 0o755, 0, 0)  # a read-only backend keeps its stand-in
    assert err(lambda: ro.chmod("/x", 0o700)) in (errno.EPERM, errno.EROFS)
    assert mfs.listdir("/") == ["mnt", "store"]
