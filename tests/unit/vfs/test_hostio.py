"""HostTree internals: the bounded directory-fd cache, pseudo-filesystem
detection and how host symlink targets are shown."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from sandbash.vfs import hostio
from sandbash.vfs.errors import FsError
from sandbash.vfs.hostio import HostTree, stays_inside

from .conftest import err


def _deep(root: Path, name: str, levels: int) -> str:
    """Make root/name/d/d/.../d (levels deep) with os calls; the tree path of the last one."""
    fd = os.open(root, os.O_RDONLY)
    parts = [name] + ["d"] * (levels - 1)
    for p in parts:
        os.mkdir(p, dir_fd=fd)
        nfd = os.open(p, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    os.close(fd)
    return "/" + "/".join(parts)


def test_rename_between_deep_paths_keeps_its_held_fds(tmp_path: Path) -> None:
    a = _deep(tmp_path, "a", 300)
    b = _deep(tmp_path, "b", 300)
    tree = HostTree(str(tmp_path))
    fd = tree.open_fd(a + "/f", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"moved")
    os.close(fd)
    # the walk to the destination trims the cache; the source's parent fd is held meanwhile
    tree.rename(a + "/f", b + "/g")
    assert tree.lstat(b + "/g").st_size == 5
    assert err(lambda: tree.lstat(a + "/f")) == errno.ENOENT
    assert len(tree._dirs) <= hostio._CACHED_DIRS
    tree.close()


def test_deep_chain_is_walked_with_a_bounded_cache(tmp_path: Path) -> None:
    deep = _deep(tmp_path, "x", 1500)
    tree = HostTree(str(tmp_path))
    chain = tree.lstat_chain(deep.strip("/").split("/"))
    assert len(chain) == 1500 and all(not isinstance(c, FsError) for c in chain)
    assert len(tree._dirs) <= hostio._CACHED_DIRS
    assert tree.listdir(deep) == []
    tree.close()


def test_pseudo_detection_without_a_mount_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hostio, "mount_types", lambda: None)
    tree = HostTree(str(tmp_path))
    assert tree._is_pseudo(os.makedev(0, 4242)) is True  # anonymous device, nothing to ask
    assert tree._is_pseudo(os.makedev(8, 4242)) is False
    tree.close()


def test_pseudo_detection_from_the_mount_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = {os.makedev(0, 21): "proc", os.makedev(0, 22): "tmpfs", os.makedev(0, 23): "sysfs"}
    monkeypatch.setattr(hostio, "mount_types", lambda: table)
    tree = HostTree(str(tmp_path))
    assert [tree._is_pseudo(d) for d in table] == [True, False, True]
    assert tree._is_pseudo(os.makedev(0, 99)) is False  # unlisted (a btrfs subvolume): allowed
    tree.close()


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="no procfs on this host")
def test_mount_types_reads_the_kernel_table() -> None:
    types = hostio.mount_types()
    assert types is not None and types.get(os.stat("/proc").st_dev) == "proc"


@pytest.mark.parametrize(
    ("link", "target", "inside"),
    [
        ("/l", "a/b", True),
        ("/l", "..", False),
        ("/d/l", "..", True),
        ("/d/l", "../..", False),
        ("/d/l", "x/../../y", True),
        ("/d/l", "x/../../../y", False),
        ("/d/e/l", "./.././../z", True),
        ("/l", ".", True),
        ("/l", "a//b/./c", True),
        ("/d/l", "../../d", False),
    ],
)
def test_stays_inside(link: str, target: str, inside: bool) -> None:
    assert stays_inside(link, target) is inside


def test_inside_target(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "d").mkdir(parents=True)
    links = {
        "d/rel": "../x",
        "d/esc": "../../x",
        "d/abs": str(root / "x"),
        "d/top": str(root),
        "d/out": str(tmp_path / "x"),
        "d/sib": str(root) + "x/y",
    }
    for name, target in links.items():
        (root / name).symlink_to(target)
    tree = HostTree(str(root))
    assert tree.inside_target("/d/rel") == "../x"
    assert tree.inside_target("/d/abs") == "../x"
    assert tree.inside_target("/d/top") == "../"
    for name in ("/d/esc", "/d/out", "/d/sib"):
        assert err(lambda n=name: tree.inside_target(n)) == errno.EACCES
    tree.close()
