"""mv across mount points (rename says EXDEV: copy, then remove), against GNU mv
moving between this machine's disk and /dev/shm where they differ."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence

import pytest

import oracle
from realtools import REAL_ENV, have
from sandbash.testing import run_command
from sandbash.vfs.facade import Vfs
from sandbash.vfs.memory import MemoryFs
from sandbash.vfs.quota import DiskQuota
from unit.commands.test_fileops import Files, Snapshot, _check_safe, snapshot_dir, snapshot_vfs


def _other_device() -> str | None:
    """A directory on another filesystem than the temp dir, or None."""
    shm = "/dev/shm"
    try:
        if os.path.isdir(shm) and os.stat(shm).st_dev != os.stat(tempfile.gettempdir()).st_dev:
            return shm
    except OSError:
        pass
    return None


OTHER = _other_device()


def sandbox_vfs(files: Files, quota: DiskQuota | None = None, read_only: bool = False) -> Vfs:
    """/home/user with another MemoryFs mounted at ./shm (files under shm/ go there)."""
    vfs = Vfs()
    view = vfs.view("/")
    view.mkdir("/home/user", parents=True)
    view.mkdir("/tmp")
    shm = MemoryFs(quota=quota)
    vfs.tree.mount("/home/user/shm", shm)
    here = vfs.view("/home/user")
    for path, content in files.items():
        if "/" in path:
            here.mkdir(path.rsplit("/", 1)[0], parents=True)
        here.write_file(path, content)
    if read_only:
        vfs.tree.mount("/home/user/shm", shm, read_only=True)  # filled first, then made read-only
    return vfs


def _without_mount_point(snap: Snapshot) -> Snapshot:
    return [e for e in snap if e[0] != "shm"]


def sandbox_run(
    argv: Sequence[str], files: Files, setup: Sequence[Sequence[str]]
) -> tuple[bytes, bytes, int, Snapshot]:
    vfs = sandbox_vfs(files)
    for cmd in setup:
        run_command(list(cmd), vfs=vfs)
    r = run_command(list(argv), vfs=vfs)
    return r.stdout, r.stderr, r.status, _without_mount_point(snapshot_vfs(vfs))


def real_run(
    argv: Sequence[str], files: Files, setup: Sequence[Sequence[str]]
) -> tuple[bytes, bytes, int, Snapshot]:
    """In a fresh temp dir whose ./shm is a symlink to a fresh dir on the other
    filesystem; commands only ever get relative paths."""
    assert OTHER is not None
    for cmd in [*setup, argv]:
        _check_safe(cmd)
    with tempfile.TemporaryDirectory() as work, tempfile.TemporaryDirectory(dir=OTHER) as other:
        os.symlink(other, os.path.join(work, "shm"))
        for path, content in files.items():
            full = os.path.join(work, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(content.encode() if isinstance(content, str) else content)
        for cmd in setup:
            oracle.run(
                list(cmd),
                cwd=work,
                env=REAL_ENV,
                writable=[other],
                capture_output=True,
                timeout=30,
                check=False,
            )
        p = oracle.run(list(argv), cwd=work, env=REAL_ENV, writable=[other], capture_output=True, timeout=30)
        snap = [e for e in snapshot_dir(work) if e[0] != "shm"]
        snap += [(f"shm/{rel}", *rest) for rel, *rest in snapshot_dir(other)]  # type: ignore[misc]
        return p.stdout, p.stderr, p.returncode, sorted(snap)


TREE: Files = {"f": "hello\n", "d/a": "1\n", "d/sub/b": "2\n", "g": "x", "shm/f": "old\n", "shm/full/z": "z"}
SETUP = [
    ["chmod", "750", "d"],
    ["chmod", "600", "d/a"],
    ["ln", "-s", "a", "d/link"],
    ["ln", "-s", "nowhere", "dangling"],
    ["mkdir", "shm/empty", "e", "full"],
    ["touch", "e/q"],
]
CASES = [
    ["mv", "f", "shm/g"],
    ["mv", "-v", "g", "shm/"],
    ["mv", "d", "shm/"],
    ["mv", "d", "shm/newname"],
    ["mv", "f", "shm/"],
    ["mv", "-b", "-v", "f", "shm/"],
    ["mv", "-n", "f", "shm/"],
    ["mv", "-v", "dangling", "shm/"],
    ["mv", "f", "g", "d", "shm/"],
    ["mv", "shm/f", "."],
    ["mv", "-v", "shm/f", "g"],
    ["mv", "full", "shm/"],
    ["mv", "-v", "e", "shm/empty"],
    ["mv", "d", "shm/f"],
    ["mv", "f", "shm/full"],
    ["mv", "-T", "e", "shm/empty"],
    ["mv", "-t", "shm", "f", "g"],
    ["mv", "-u", "shm/f", "f"],
]


@pytest.mark.skipif(OTHER is None or not have("mv"), reason="needs GNU mv and a second filesystem (/dev/shm)")
@pytest.mark.parametrize("argv", CASES, ids=" ".join)
def test_matches_gnu_across_filesystems(argv: list[str]) -> None:
    ours = sandbox_run(argv, TREE, SETUP)
    real = real_run(argv, TREE, SETUP)
    assert ours == real


def test_modes_times_and_hard_links_survive() -> None:
    vfs = sandbox_vfs({"d/a": "1", "d/b/c": "2"})
    here = vfs.view("/home/user")
    here.link("d/a", "d/hard")
    here.chmod("d/b", 0o700)
    here.utime("d/a", 1_000_000_000 * 10**9, 1_000_000_000 * 10**9)
    here.utime("d/b", 1_100_000_000 * 10**9, 1_100_000_000 * 10**9)
    r = run_command(["mv", "d", "shm/"], vfs=vfs)
    assert (r.stdout, r.stderr, r.status) == (b"", b"", 0)
    assert not here.exists("d")
    a, hard, b = here.lstat("shm/d/a"), here.lstat("shm/d/hard"), here.lstat("shm/d/b")
    assert a.ino == hard.ino and a.nlink == 2 and a.mtime == 1_000_000_000
    assert b.perm == 0o700 and b.mtime == 1_100_000_000
    assert here.read_bytes("shm/d/b/c") == b"2"


def test_verbose_wording() -> None:
    vfs = sandbox_vfs({"d/x": "1"})
    r = run_command(["mv", "-v", "d", "shm/"], vfs=vfs)
    assert r.stdout == (
        b"created directory 'shm/d'\ncopied 'd/x' -> 'shm/d/x'\nremoved 'd/x'\nremoved directory 'd'\n"
    )


def test_source_that_cannot_be_removed_stays() -> None:
    vfs = sandbox_vfs({"ro/f": "x"})
    here = vfs.view("/home/user")
    here.chmod("ro", 0o555)
    r = run_command(["mv", "ro/f", "shm/"], vfs=vfs)
    assert (r.stderr, r.status) == (b"mv: cannot remove 'ro/f': Permission denied\n", 1)
    assert here.read_bytes("shm/f") == b"x" and here.exists("ro/f")


def test_a_failed_copy_keeps_the_source() -> None:
    vfs = sandbox_vfs({"big": "x" * 10000}, quota=DiskQuota(4096, 100))
    here = vfs.view("/home/user")
    r = run_command(["mv", "big", "shm/"], vfs=vfs)
    assert (r.stderr, r.status) == (b"mv: error writing 'shm/big': No space left on device\n", 1)
    assert here.exists("big")


def test_read_only_target() -> None:
    vfs = sandbox_vfs({"f": "x"}, read_only=True)
    r = run_command(["mv", "f", "shm/"], vfs=vfs)
    assert (r.stderr, r.status) == (b"mv: cannot create regular file 'shm/f': Read-only file system\n", 1)
    assert vfs.view("/home/user").exists("f")


def test_mount_points_cannot_move() -> None:
    vfs = sandbox_vfs({})
    r = run_command(["mv", "shm", "elsewhere"], vfs=vfs)
    assert (r.stderr, r.status) == (b"mv: cannot move 'shm' to 'elsewhere': Device or resource busy\n", 1)


def test_copy_engine_unchanged_for_cp() -> None:
    """cp -v still announces each file (before copying, as GNU does)."""
    vfs = sandbox_vfs({"f": "x"})
    r = run_command(["cp", "-v", "f", "shm/nodir/f"], vfs=vfs)
    assert r.stdout == b"'f' -> 'shm/nodir/f'\n"
    assert r.stderr == b"cp: cannot create regular file 'shm/nodir/f': No such file or directory\n"
    assert r.status == 1
