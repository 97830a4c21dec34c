"""Scripts try to leave their filesystem root; canaries outside it are never
read or changed, whatever the script does, on every host-backed setup."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sandbash import Bash
from sandbash.errors import ExecutionLimitError
from sandbash.vfs import MemoryFs, MountFs, OverlayFs, ReadWriteFs, SqliteFs
from sandbash.vfs.base import Backend

SECRET = "CANARY-SECRET-7f3a"


def snapshot(top: Path, skip: set[Path]) -> dict[str, str]:
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if Path(dirpath) / d not in skip]
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if p in skip:
                continue
            st = p.lstat()
            body = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() and not p.is_symlink() else ""
            # not nlink: removing or adding a name inside the root may change it
            out[str(p)] = f"{st.st_mode:o} {st.st_mtime_ns} {body}"
    return out


def _setups(tmp: Path, root: Path) -> dict[str, Callable[[], Backend]]:
    def stack() -> Backend:
        (tmp / "data").mkdir(exist_ok=True)
        (tmp / "data" / "in.txt").write_text("data\n")
        fs = MountFs(MemoryFs())
        fs.mount("/work", ReadWriteFs(str(root)))
        fs.mount("/data", OverlayFs(str(tmp / "data")), read_only=True)
        fs.mount("/cow", OverlayFs(str(tmp / "data"), follow_symlinks=True))
        return fs

    return {
        "readwrite": lambda: ReadWriteFs(str(root)),
        "overlay": lambda: OverlayFs(str(root), follow_symlinks=True),
        "sqlite": lambda: SqliteFs(str(tmp / "store.db")),
        "stack": stack,
    }


@pytest.fixture(params=["readwrite", "overlay", "sqlite", "stack"])
def sandbox(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Bash, Path]]:
    root = tmp_path / "root"
    root.mkdir()
    (root / "inside.txt").write_text("inside\n")
    canary = tmp_path / "canary.txt"
    canary.write_text(SECRET + "\n")
    canary.chmod(0o644)
    (tmp_path / "canary_dir").mkdir()
    (tmp_path / "canary_dir" / "keep.txt").write_text(SECRET + "\n")
    (root / "host_link").symlink_to(canary)  # a link planted on the host, pointing out
    (root / "host_rel").symlink_to("../canary.txt")
    linked = tmp_path / "linked.txt"  # reachable only through a hard link planted in the root
    linked.write_text("linked\n")
    os.link(linked, root / "host_hard")
    bash = Bash(fs=_setups(tmp_path, root)[request.param]())
    before = snapshot(
        tmp_path, {root, tmp_path / "store.db", tmp_path / "store.db-wal", tmp_path / "store.db-shm"}
    )
    yield bash, tmp_path
    after = snapshot(
        tmp_path, {root, tmp_path / "store.db", tmp_path / "store.db-wal", tmp_path / "store.db-shm"}
    )
    assert after == before


SCRIPTS = [
    # symlinks made inside pointing out, absolute and relative
    "ln -s {canary} l; cat l; echo pwned > l; echo more >> l; chmod 777 l; truncate -s 0 l; touch l; rm -f l",
    "ln -s ../../../../../../../../../{canary} l; cat l; cp l copy; cat copy; echo pwned > l",
    "ln -s {tmp}/canary_dir d; ls d; cat d/keep.txt; echo x > d/new.txt; rm -rf d/; rm -rf d/*; mkdir d/sub",
    "mkdir -p a/b; ln -s ../../../../.. a/b/up; cat a/b/up/{canary}; ls a/b/up{tmp}; echo x > a/b/up{canary}",
    # ../../ and /proc/self/root
    "cd ../../../../../../..; cat .{canary}; ls {tmp}; echo x > {canary}; rm -rf {tmp}",
    "cat /proc/self/root{canary}; echo x > /proc/self/root{canary}; ls /proc/self/fd; cat /proc/self/environ",
    "cat /../../..{canary}; echo x >> /../..{canary}; cp /../..{canary} here; mv /../../{canary} here2",
    # NUL bytes in names (bash cuts words at NUL; printf output must still not reach the host)
    "f=$(printf '../../{canary}\\0x'); cat \"$f\"; echo x > \"$f\"; touch $'\\x00'; cat $'..\\x00/etc'",
    # host-planted links: absolute, relative, and a hard link to a file outside
    "cat host_link; echo x > host_link; cat host_rel; echo x > host_rel; cat host_hard; echo x > host_hard",
    "echo x >> host_hard; chmod 777 host_hard; touch host_hard; truncate -s 0 host_hard; rm host_hard; cat host_hard",
    "ln host_hard h2; echo x > h2; ln {canary} h3; mv host_link moved; cat moved; cp -a host_link c; cat c",
    # renames and copies across mounts (the stack has /work, /data, /cow)
    "mv /data/in.txt /work/; mv /work/inside.txt /data/; mv /work /moved; cp -r /cow/. /work/x; rm -rf /cow/*",
    "ln -s /work/../../canary.txt /cow/l; cat /cow/l; mv /cow/l /work/l; cat /work/l; echo x > /work/l",
    # looking around
    "find / -name 'canary*' 2>&1; ls -laR / 2>&1 | grep -c canary; cat /etc/passwd; du -s / >/dev/null",
]


@pytest.mark.parametrize("script", SCRIPTS)
def test_canaries_survive(sandbox: tuple[Bash, Path], script: str) -> None:
    bash, tmp = sandbox
    text = script.format(canary=tmp / "canary.txt", tmp=tmp)
    try:
        r = bash.exec("cd /work 2>/dev/null || cd /; " + text)
        out = r.stdout + r.stderr
    except ExecutionLimitError as e:
        out = e.result.stdout + e.result.stderr
    assert SECRET not in out


def test_nul_bytes_are_refused_by_the_api(sandbox: tuple[Bash, Path]) -> None:
    bash, tmp = sandbox
    for bad in (f"a\0{tmp}/canary.txt", f"../..{tmp}/canary.txt\0"):
        with pytest.raises(OSError):
            bash.fs.write_file(bad, b"x")
        with pytest.raises(OSError):
            bash.fs.read_file(bad)
